//! How a side of the ring waits, across processes, and what each side shares of itself.
//!
//! * [`Waiting::Spin`]: a spin-loop hint per failed poll and a yield every
//!   [`SPINS_BEFORE_YIELD`]; never sleeps, and the other side's hot path does nothing for it.
//! * [`Waiting::Block`]: spins and yields for a while, then sleeps on a futex word in the shared
//!   memory. The futex is *not* process-private (no `FUTEX_PRIVATE_FLAG`): the kernel keys it by
//!   the shared page, so a wake from the other process finds the sleeper. The other side wakes
//!   it only when it sees it asleep, so a steady stream costs no system call; the price on its
//!   hot path is a full fence and the load of the sleeper's flag per publication (per run with
//!   batches), which is what makes a lost wake-up impossible: the sleeper stores its flag and
//!   then rereads the slot's tag, the publisher stores the tag and then reads the flag, each
//!   with a full fence between, so at least one of them sees the other's store (the model tests
//!   check it: a lost wake-up would leave both sides asleep, which loom reports).
//!
//! **A side that dies.** A process killed mid-stream drops nothing, so its `gone` flag is never
//! set. [`Liveness`] checks the other side's process through a pidfd (readable once the process
//! has exited, even before it is reaped) every [`CHECK_EVERY`] failed polls, and a sleeper wakes
//! at least every [`NAP`] to check it, so a waiting side learns of the other's death within
//! milliseconds instead of waiting forever. (The model has one process: nobody dies there, and
//! a sleep lasts until a wake.)

use handoff_sync::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// The word a side sleeps on: an atomic in the shared memory (a normal build).
#[cfg(not(handoff_loom))]
type Word = AtomicU32;
/// The word a side sleeps on: the seam's model futex.
#[cfg(handoff_loom)]
type Word = handoff_sync::futex::Futex;

/// One side's shared state, in the ring's header.
#[repr(C)]
pub(crate) struct SideState {
    /// The consumer's: messages consumed, published once per span. Unused for the producer.
    pub consumed: AtomicU64,
    /// The process id of the side, once it has taken its end (0 before).
    pub pid: AtomicU32,
    /// The side has dropped its end: it will publish nothing more.
    pub gone: AtomicU32,
    /// The side is asleep on `futex` (or about to be): the other side must wake it.
    pub sleeping: AtomicU32,
    /// The word the side sleeps on; the other side bumps it to wake it.
    futex: Word,
}

#[cfg(handoff_loom)]
impl SideState {
    pub fn new() -> SideState {
        SideState {
            consumed: AtomicU64::new(0),
            pid: AtomicU32::new(0),
            gone: AtomicU32::new(0),
            sleeping: AtomicU32::new(0),
            futex: Word::new(0),
        }
    }
}

impl SideState {
    #[cfg(not(handoff_loom))]
    #[inline(always)]
    fn word(&self) -> &AtomicU32 {
        &self.futex
    }

    #[cfg(handoff_loom)]
    fn word(&self) -> &AtomicU32 {
        self.futex.atomic()
    }
}

/// How a side that cannot proceed waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// Spin-loop hints and yields; never sleeps.
    Spin,
    /// Spin, yield, then sleep on a futex in the shared memory.
    Block,
}

impl Waiting {
    /// Whether the other side must wake a sleeper after it publishes.
    #[inline(always)]
    pub fn blocks(self) -> bool {
        self == Waiting::Block
    }
}

/// Failed polls between two yields (the same figure as the spin every spinning transport of
/// handoff shares).
pub const SPINS_BEFORE_YIELD: u32 = 64;

/// Failed polls a blocking side spins and yields through before it sleeps (under the model, one:
/// the sleep is what it checks).
const BEFORE_SLEEP: u32 = if cfg!(handoff_loom) {
    1
} else {
    4 * SPINS_BEFORE_YIELD
};

/// Failed polls between two checks of whether the other side's process is alive.
pub const CHECK_EVERY: u32 = 1024;

/// The longest a sleeper sleeps before it checks the other side's process.
pub const NAP: Duration = Duration::from_millis(50);

/// Waits once after the `round`-th failed poll of one operation (the caller counts): a spin-loop
/// hint, a yield, or (blocking) a sleep on `me`'s futex unless `ready` says the wait is over.
/// Returns whether it slept (the caller then checks the other side at once).
#[inline]
pub(crate) fn pause(
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
            handoff_sync::thread::yield_now();
            false
        }
        _ => {
            handoff_sync::thread::spin_loop();
            false
        }
    }
}

/// Sleeps on `me`'s futex unless `ready`, for at most [`NAP`].
#[cold]
fn sleep(me: &SideState, ready: impl Fn() -> bool) {
    let key = me.word().load(Ordering::SeqCst);
    me.sleeping.store(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    if !ready() {
        futex_wait(&me.futex, key, NAP);
    }
    me.sleeping.store(0, Ordering::Relaxed);
}

/// After a publication: wakes the side `other` if it sleeps.
#[inline(always)]
pub(crate) fn wake(other: &SideState) {
    fence(Ordering::SeqCst);
    if other.sleeping.load(Ordering::Relaxed) != 0 {
        wake_always(other);
    }
}

/// Wakes the side `other`, asleep or not (a side leaving).
#[cold]
pub(crate) fn wake_always(other: &SideState) {
    other.word().fetch_add(1, Ordering::SeqCst);
    futex_wake(&other.futex);
}

#[cfg(not(handoff_loom))]
fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: FUTEX_WAIT reads the aligned u32 at `word` (in memory that outlives the call) and
    // the timespec; it returns at a wake, a timeout, a signal or a changed value, all fine.
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

#[cfg(not(handoff_loom))]
fn futex_wake(word: &AtomicU32) {
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

/// The model's sleep: until a wake (nobody dies in the model, so no nap is needed).
#[cfg(handoff_loom)]
fn futex_wait(word: &Word, expected: u32, _: Duration) {
    word.wait(expected);
}

#[cfg(handoff_loom)]
fn futex_wake(word: &Word) {
    word.wake_one();
}

/// Whether the other side's process has died, checked now and then (see the module docs).
#[derive(Default)]
pub(crate) struct Liveness {
    /// The pid the pidfd is for.
    #[cfg(not(handoff_loom))]
    pid: u32,
    #[cfg(not(handoff_loom))]
    pidfd: Option<std::os::fd::OwnedFd>,
    polls: u32,
    dead: bool,
}

impl Liveness {
    /// Whether `side` has left for good: its `gone` flag (set after its last publication), or
    /// its process died (looked at every [`CHECK_EVERY`] calls; at once when `now`).
    pub fn left(&mut self, side: &SideState, now: bool) -> bool {
        side.gone.load(Ordering::Acquire) != 0
            || if now {
                self.died_now(side)
            } else {
                self.died(side)
            }
    }

    /// Whether the process of `side` has died; looks only every [`CHECK_EVERY`] calls.
    fn died(&mut self, side: &SideState) -> bool {
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
    fn died_now(&mut self, side: &SideState) -> bool {
        self.dead || self.check(side.pid.load(Ordering::Acquire))
    }

    /// The model has one process.
    #[cfg(handoff_loom)]
    fn check(&mut self, _pid: u32) -> bool {
        false
    }

    #[cfg(not(handoff_loom))]
    #[cold]
    fn check(&mut self, pid: u32) -> bool {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
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
