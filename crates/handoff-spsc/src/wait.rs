//! Wait strategies, and the two building blocks they are made of.
//!
//! * [`Wait`] is what a user picks when creating a ring: how a side that cannot proceed (a
//!   producer facing a full ring, a consumer facing an empty one) passes the time.
//! * [`Backoff`] turns a [`Wait`] into a sequence of spins, yields and, for [`Wait::Block`],
//!   the moment to go to sleep.
//! * [`Waiter`] is where one thread sleeps, with the edge-triggered wake protocol that lets the
//!   other side skip any system call unless someone actually sleeps.
//!
//! [`Backoff`] and [`Waiter`] are public so that structures built from several rings (such as
//! the sharded MPSC channel in `handoff-mpsc`, whose consumer sleeps on one waiter shared by all
//! its rings) can reuse the exact protocol instead of re-deriving it.

#[cfg(feature = "block")]
use crate::barrier;
#[cfg(feature = "block")]
use crate::loom::futex::Futex;
#[cfg(feature = "block")]
use crate::loom::sync::atomic::Ordering;
use crate::loom::thread::{spin_loop, yield_now};

/// How a side that cannot make progress waits, chosen when the ring is created.
///
/// | strategy | waiting side | cost on the other side's hot path |
/// |---|---|---|
/// | [`Spin`](Wait::Spin) | busy-polls; yields once every 256 failed polls | none |
/// | [`SpinThenYield`](Wait::SpinThenYield) | spins with growing pauses, then yields on every poll | none |
/// | [`Block`](Wait::Block) | spins, yields a few times, then sleeps on a futex | a load of a rarely written flag per push / pop (per run with the batch API), behind a fence that is free on Linux and a full fence elsewhere |
///
/// All three make progress when threads outnumber cores: none of them spins forever without
/// giving the scheduler a chance to run the thread it waits for.
///
/// `Block` exists with the `block` feature (on by default), which brings the futex and, on
/// Linux, `libc` for `membarrier`; without it the crate depends on neither. The enum is
/// `non_exhaustive` so that code written without the feature still compiles when another crate
/// of the build turns it on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Wait {
    /// Busy-wait with `spin_loop` hints, for the lowest hand-off latency when each side has a core
    /// of its own. To keep making progress under oversubscription (more runnable threads than
    /// cores, where the other side may be waiting for this very core), it calls
    /// [`std::thread::yield_now`] once every [`Backoff::SPIN_YIELD_EVERY`] consecutive failed
    /// polls.
    Spin,
    /// Spin with exponentially growing pauses for a short while, then call
    /// [`std::thread::yield_now`] on every failed poll. Never sleeps; a good default when cores
    /// are shared.
    #[default]
    SpinThenYield,
    /// Spin and yield briefly, then sleep until the other side wakes this one. The other side
    /// issues a wake-up (a futex system call) only when it sees that this side is asleep, i.e.
    /// only on the empty→non-empty edge (waking a sleeping consumer) or the full→not-full edge
    /// (waking a sleeping producer): never one system call per message in steady state. The
    /// price on the hot path is a load of the other side's sleep flag per push and per pop (per
    /// run with the batch API) behind a store→load fence, which is what makes a lost wake-up
    /// impossible (see [`Waiter`]). On Linux that fence is free for the hot path: the side that
    /// goes to sleep pays for both with one `membarrier` system call (microseconds: it
    /// interrupts every CPU running a thread of the process) before it sleeps. Elsewhere it is a
    /// full fence (a locked instruction on x86) per operation.
    #[cfg(feature = "block")]
    Block,
}

impl Wait {
    /// Whether a side may sleep under this strategy, so that the other side must notify it.
    #[inline]
    pub(crate) fn sleeps(self) -> bool {
        match self {
            #[cfg(feature = "block")]
            Wait::Block => true,
            _ => false,
        }
    }
}

/// Spins, yields and decides when to sleep, according to a [`Wait`] strategy.
///
/// Create one when a wait starts, call [`snooze`](Backoff::snooze) after every failed poll.
///
/// ```
/// use handoff_spsc::{Backoff, Wait};
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// let ready = AtomicBool::new(true);
/// let mut backoff = Backoff::new(Wait::SpinThenYield);
/// while !ready.load(Ordering::Acquire) {
///     // `snooze` returns true only for `Wait::Block`, once spinning has not paid off.
///     assert!(!backoff.snooze());
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Backoff {
    wait: Wait,
    step: u32,
}

impl Backoff {
    /// [`Wait::Spin`] yields once every this many consecutive failed polls.
    pub const SPIN_YIELD_EVERY: u32 = if cfg!(handoff_loom) { 1 } else { 256 };
    /// Pauses double on each snooze up to `2^SPIN_LIMIT` `spin_loop` hints.
    const SPIN_LIMIT: u32 = if cfg!(handoff_loom) { 0 } else { 6 };
    /// [`Wait::Block`] yields on snoozes after `SPIN_LIMIT` up to this one, then sleeps.
    const YIELD_LIMIT: u32 = if cfg!(handoff_loom) { 0 } else { 10 };

    /// A fresh backoff for one wait.
    #[inline]
    pub fn new(wait: Wait) -> Self {
        Backoff { wait, step: 0 }
    }

    /// The strategy this backoff follows.
    #[inline]
    pub fn wait(&self) -> Wait {
        self.wait
    }

    /// Waits a little after a failed poll. Returns `true` when the caller should go to sleep on
    /// its [`Waiter`] instead (only ever with [`Wait::Block`], once spinning and yielding have
    /// not paid off; from then on every call returns `true`).
    #[inline]
    pub fn snooze(&mut self) -> bool {
        match self.wait {
            Wait::Spin => {
                spin_loop();
                self.step += 1;
                if self.step >= Self::SPIN_YIELD_EVERY {
                    self.step = 0;
                    yield_now();
                }
                false
            }
            Wait::SpinThenYield => {
                self.pause();
                false
            }
            #[cfg(feature = "block")]
            Wait::Block => {
                if self.step > Self::YIELD_LIMIT {
                    return true;
                }
                self.pause();
                false
            }
        }
    }

    /// Spins `2^step` times while `step <= SPIN_LIMIT`, yields afterwards.
    // Under loom the limits are 0, which makes the comparisons trivially true there.
    #[allow(clippy::absurd_extreme_comparisons)]
    #[inline]
    fn pause(&mut self) {
        if self.step <= Self::SPIN_LIMIT {
            for _ in 0..1u32 << self.step {
                spin_loop();
            }
        } else {
            yield_now();
        }
        if self.step <= Self::YIELD_LIMIT {
            self.step += 1;
        }
    }
}

#[cfg(feature = "block")]
const AWAKE: u32 = 0;
#[cfg(feature = "block")]
const SLEEPING: u32 = 1;

/// A place where one thread sleeps until another wakes it, woken only if it actually sleeps.
///
/// One side (the *sleeper*) waits for a condition that the other side (the *waker*) makes true
/// by publishing something (an index, a flag) with a store. The protocol is a Dekker-style
/// handshake with a store→load barrier on each side:
///
/// | sleeper ([`sleep_unless`](Waiter::sleep_unless)) | waker ([`notify`](Waiter::notify)) |
/// |---|---|
/// | 1. `state = SLEEPING` | 1. publish (e.g. `tail.store(t, Release)`) |
/// | 2. heavy barrier | 2. light barrier |
/// | 3. re-check the condition; if true, `state = AWAKE`, return | 3. if `state == SLEEPING`: `state = AWAKE`, futex wake |
/// | 4. futex wait while `state == SLEEPING` | |
///
/// The two barriers are ordered one after the other. If the waker's comes first, the sleeper's
/// re-check (3) sees the publication and does not sleep. If the sleeper's comes first, the
/// waker's check (3) sees `SLEEPING` and wakes it; the futex wait (4) returns at once if that
/// happens before it starts, because the value is then no longer `SLEEPING`. Either way no
/// wake-up is lost, and a waker that finds `AWAKE` (the common case) makes no system call at all.
///
/// The barriers are asymmetric where the system allows it: on Linux the waker's (run on every
/// message) is only a compiler fence and the sleeper's (run once per sleep) is a `membarrier`
/// system call that makes every running thread of the process execute a full fence, so that
/// together they order memory as two `fence(SeqCst)` would. Elsewhere both are `fence(SeqCst)`.
/// [`is_asymmetric`](Waiter::is_asymmetric) tells which.
///
/// Wake-ups can be spurious (a wake meant for an earlier sleep, or the futex's own), so callers
/// re-check their condition in a loop.
#[cfg(feature = "block")]
#[derive(Debug)]
pub struct Waiter {
    state: Futex,
}

#[cfg(feature = "block")]
impl Default for Waiter {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "block")]
impl Waiter {
    /// A waiter with nobody asleep.
    ///
    /// Creating a waiter has no side effect: the process registers for `membarrier` (where
    /// that is available) only when a waiter first goes to sleep. (The first
    /// [`notify`](Waiter::notify) of the process asks the kernel, without side effect, whether
    /// it could, so that a waker pays no full fence while nobody has slept yet.)
    pub fn new() -> Self {
        Waiter {
            state: Futex::new(AWAKE),
        }
    }

    /// Whether waiters use asymmetric barriers right now (a free one for
    /// [`notify`](Waiter::notify), a system call for [`sleep_unless`](Waiter::sleep_unless))
    /// rather than two full fences. A process-wide state: false until the kernel has been asked
    /// (on the process's first notify or sleep), then true where it offers expedited barriers,
    /// until a barrier is refused.
    pub fn is_asymmetric(&self) -> bool {
        barrier::is_asymmetric()
    }

    /// Goes to sleep unless `ready` returns true after this thread has announced that it is
    /// going to sleep. Returns after a wake-up (possibly spurious) or at once if `ready` held.
    ///
    /// `ready` must load the state it checks with at least `Acquire` ordering, and every change
    /// that can make it true must be followed by a [`notify`](Waiter::notify) on this waiter.
    /// At most one thread may sleep on a waiter at a time.
    pub fn sleep_unless(&self, ready: impl FnOnce() -> bool) {
        // The sleeper changes `state` with swaps rather than plain stores. On hardware a plain
        // store would do as well, but with every write to `state` a read-modify-write, its
        // modification order is one chain that loom models exactly (loom can otherwise reorder a
        // plain store after a waker's swap that in fact preceded it).
        //
        // 1. Announce the sleep. Relaxed: the fence below orders it before the re-check.
        self.state.atomic().swap(SLEEPING, Ordering::Relaxed);
        // 2. Pairs with the light barrier in `notify`: either the waker sees SLEEPING, or we see
        //    what the waker published before its barrier (or both).
        //    Registers the process for `membarrier` on the first sleep.
        let may_block = barrier::heavy();
        // 3. Re-check: the waker may have published just before we announced the sleep.
        if !ready() {
            if may_block {
                // 4. Sleep, unless a waker already reset the state to AWAKE (then `wait` returns
                //    at once). Returns on a wake-up or spuriously; the caller re-checks either way.
                self.state.wait(SLEEPING);
            } else {
                // The kernel refused a barrier that wakers may rely on (see `barrier`): blocking
                // could miss a wake-up, so yield and let the caller look again.
                yield_now();
            }
        }
        // Back to AWAKE, so that wakers skip the system call until the next sleep. A waker that
        // read SLEEPING before this may still wake us later: a harmless spurious wake-up.
        self.state.atomic().swap(AWAKE, Ordering::Relaxed);
    }

    /// Wakes the sleeper, if there is one. Call after publishing what the sleeper waits for.
    ///
    /// Costs a load of a rarely written cache line behind a light barrier (free on Linux, a
    /// full fence elsewhere); the system call is made only when the sleeper is (about to be)
    /// asleep.
    #[inline]
    pub fn notify(&self) {
        // Pairs with the heavy barrier in `sleep_unless` (step 2).
        barrier::light();
        if self.state.atomic().load(Ordering::Relaxed) == SLEEPING {
            self.wake();
        }
    }

    /// Like [`notify`](Waiter::notify), but makes a futex wake system call every time, even when
    /// nobody sleeps. Deliberately wasteful: this is the "wake on every push" baseline that shows
    /// what per-message wake-ups cost. As correct as `notify`, only slower.
    #[inline]
    pub fn notify_always(&self) {
        barrier::light();
        if self.state.atomic().load(Ordering::Relaxed) == SLEEPING {
            self.wake();
        } else {
            self.state.wake_one();
        }
    }

    /// Whether a thread has announced that it sleeps (or is about to). A snapshot, for
    /// diagnostics.
    pub fn is_sleeping(&self) -> bool {
        self.state.atomic().load(Ordering::Relaxed) == SLEEPING
    }

    /// The out-of-line half of [`notify`](Waiter::notify), called only when the other side
    /// sleeps, but from inside every push and pop of a blocking ring. It cannot unwind (an `extern "C"` function aborts on a panic, and
    /// nothing here panics), so a caller's loop needs no unwinding path around the call; such a
    /// path (dropping whatever the loop holds) keeps a caller's values, the ring's handles among
    /// them, in memory instead of registers: a stack store per message (see the ring's `Link`).
    #[cold]
    #[inline(never)]
    #[cfg(not(handoff_loom))]
    extern "C" fn wake(&self) {
        self.wake_now();
    }

    /// Under loom, whose failed checks unwind, an ordinary function.
    #[cold]
    #[inline(never)]
    #[cfg(handoff_loom)]
    fn wake(&self) {
        self.wake_now();
    }

    #[inline(always)]
    fn wake_now(&self) {
        // Only the waker that flips SLEEPING to AWAKE makes the system call, so a burst of
        // publications wakes the sleeper once.
        if self.state.atomic().swap(AWAKE, Ordering::AcqRel) == SLEEPING {
            self.state.wake_one();
        }
    }
}

/// Without the `block` feature nobody sleeps ([`Wait::sleeps`] is false for every strategy, and
/// [`Backoff::snooze`] never says to sleep), so waiters are never slept on or notified; this
/// stands in for them at no cost, for the rings here and for `handoff-mpsc`'s `Wake::Spin`
/// channels. Not part of the API.
#[cfg(not(feature = "block"))]
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Waiter;

#[cfg(not(feature = "block"))]
impl Waiter {
    /// A waiter nobody will sleep on.
    pub fn new() -> Self {
        Waiter
    }

    /// Nothing to wake.
    #[inline(always)]
    pub fn notify(&self) {}

    /// Never called without `block`; yields if it were.
    pub fn sleep_unless(&self, _ready: impl FnOnce() -> bool) {
        yield_now();
    }
}
