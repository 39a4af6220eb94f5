//! How a side of the ring waits, across processes.
//!
//! * `spin` (the default): the harness's shared spin — a spin-loop hint per failed poll and a
//!   yield every [`SPINS_BEFORE_YIELD`]; never sleeps, and the other side's hot path does
//!   nothing for it.
//! * `block`: spins and yields for a while, then sleeps on a futex word in the shared region.
//!   The futex is *not* process-private (no `FUTEX_PRIVATE_FLAG`): the kernel keys it by the
//!   shared page, so a wake from the other process finds the sleeper. The other side wakes it
//!   only when it sees it asleep, so a steady stream costs no system call; the price on its hot
//!   path is a full fence and the load of the sleeper's flag per publication (per run with
//!   batches), which is what makes a lost wake-up impossible: the sleeper stores its flag and
//!   then rereads the slot's tag, the publisher stores the tag and then reads the flag, each
//!   with a full fence between, so at least one of them sees the other's store.
//!
//! **A side that dies.** A process killed mid-stream drops nothing, so its `gone` flag is never
//! set. [`Liveness`] checks the other side's process through a pidfd (readable once the process
//! has exited, even before it is reaped) every [`CHECK_EVERY`] failed polls, and a sleeper wakes
//! at least every [`NAP`] to check it, so a waiting side learns of the other's death within
//! milliseconds instead of waiting forever.

use super::side::SideState;
use crate::transports::spin::SPINS_BEFORE_YIELD;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};
use std::time::Duration;

/// How a side that cannot proceed waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiting {
    /// The harness's shared spin.
    Spin,
    /// Spin, yield, then sleep on a futex.
    Block,
}

impl Waiting {
    /// Whether the other side must wake a sleeper after it publishes.
    #[inline(always)]
    pub fn blocks(self) -> bool {
        self == Waiting::Block
    }
}

/// Failed polls a blocking side spins and yields through before it sleeps.
const BEFORE_SLEEP: u32 = 4 * SPINS_BEFORE_YIELD;

/// Failed polls between two checks of whether the other side's process is alive.
pub(super) const CHECK_EVERY: u32 = 1024;

/// The longest a sleeper sleeps before it checks the other side's process.
pub(super) const NAP: Duration = Duration::from_millis(50);

/// Waits once after the `round`-th failed poll of one operation (the caller counts): a spin-loop
/// hint, a yield, or (blocking) a sleep on `me`'s futex unless `ready` says the wait is over.
/// Returns whether it slept (the caller then checks the other side at once).
#[inline]
pub(super) fn pause(
    waiting: Waiting,
    round: &mut u32,
    me: &SideState,
    ready: impl Fn() -> bool,
) -> bool {
    *round = round.wrapping_add(1);
    match waiting {
        Waiting::Block if *round >= BEFORE_SLEEP => {
            sleep(me, ready);
            true
        }
        _ if *round % SPINS_BEFORE_YIELD == 0 => {
            std::thread::yield_now();
            false
        }
        _ => {
            std::hint::spin_loop();
            false
        }
    }
}

/// Sleeps on `me`'s futex unless `ready`, for at most [`NAP`].
#[cold]
fn sleep(me: &SideState, ready: impl Fn() -> bool) {
    let key = me.futex.load(Ordering::SeqCst);
    me.sleeping.store(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    if !ready() {
        futex_wait(&me.futex, key, NAP);
    }
    me.sleeping.store(0, Ordering::Relaxed);
}

/// After a publication: wakes the side `other` if it sleeps.
#[inline(always)]
pub(super) fn wake(other: &SideState) {
    fence(Ordering::SeqCst);
    if other.sleeping.load(Ordering::Relaxed) != 0 {
        wake_always(other);
    }
}

/// Wakes the side `other`, asleep or not (a side leaving).
#[cold]
pub(super) fn wake_always(other: &SideState) {
    other.futex.fetch_add(1, Ordering::SeqCst);
    futex_wake(&other.futex);
}

fn futex_wait(word: &std::sync::atomic::AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: FUTEX_WAIT reads the aligned u32 at `word` (in a mapping that outlives the call)
    // and the timespec; it returns at a wake, a timeout, a signal or a changed value, all fine.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

fn futex_wake(word: &std::sync::atomic::AtomicU32) {
    // SAFETY: FUTEX_WAKE only names the word's address; it reads no memory of ours.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// Whether the other side's process has died, checked now and then (see the module docs).
#[derive(Default)]
pub(super) struct Liveness {
    /// The pid the pidfd is for.
    pid: u32,
    pidfd: Option<OwnedFd>,
    polls: u32,
    dead: bool,
}

impl Liveness {
    /// Whether the process of `side` has died; looks only every [`CHECK_EVERY`] calls.
    pub fn died(&mut self, side: &SideState) -> bool {
        if self.dead {
            return true;
        }
        self.polls = self.polls.wrapping_add(1);
        if self.polls % CHECK_EVERY != 0 {
            return false;
        }
        self.check(side.pid.load(Ordering::Acquire))
    }

    /// Whether the process of `side` has died, looked at now.
    pub fn died_now(&mut self, side: &SideState) -> bool {
        self.dead || self.check(side.pid.load(Ordering::Acquire))
    }

    #[cold]
    fn check(&mut self, pid: u32) -> bool {
        if pid == 0 || pid == std::process::id() {
            return false;
        }
        if self.pid != pid || self.pidfd.is_none() {
            self.pid = pid;
            // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                // Already reaped: gone. Without pidfds, fall back to asking whether it exists.
                self.dead = e.raw_os_error() == Some(libc::ESRCH)
                    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
                    || unsafe { libc::kill(pid as libc::pid_t, 0) } != 0;
                return self.dead;
            }
            // SAFETY: pidfd_open returned a new descriptor owned by nobody else.
            self.pidfd = Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) });
        }
        let Some(fd) = &self.pidfd else { return false };
        let mut p = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll reads and writes the one pollfd given, and does not wait (timeout 0).
        let r = unsafe { libc::poll(&mut p, 1, 0) };
        self.dead = r > 0 && p.revents & libc::POLLIN != 0;
        self.dead
    }
}
