//! Waiting after a failed `try_*` attempt, shared by every spinning adapter.
//!
//! A spinning adapter must keep making progress when the trial has more threads than cores: a
//! thread that spins on an empty queue while the producer that would fill it is descheduled on
//! the same core only burns its time slice. [`Backoff`] therefore issues a spin-loop hint after
//! each failed attempt and, after [`SPINS_BEFORE_YIELD`] failures in a row, yields the thread's
//! time slice (`std::thread::yield_now`). A yield does not sleep: with a free core it returns at
//! once, so such adapters still declare [`WaitStrategy::Spin`](crate::semantics::WaitStrategy::Spin).

/// Failed attempts in a row after which a spinning adapter yields its time slice.
///
/// 64 spin-loop hints cost a few hundred nanoseconds to a few microseconds, depending on the CPU:
/// short enough that an oversubscribed trial does not stall for a whole scheduler tick, long
/// enough that a yield (a system call) stays rare when every thread has a core of its own.
pub const SPINS_BEFORE_YIELD: u32 = 64;

/// Spin-then-yield waiting for one operation that retries a non-blocking attempt.
///
/// Create one per operation (it starts a fresh run of failures) and call [`Backoff::snooze`]
/// after every failed attempt:
///
/// ```
/// use handoff::transports::Backoff;
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// let ready = AtomicBool::new(true);
/// let mut backoff = Backoff::new();
/// while !ready.load(Ordering::Acquire) {
///     backoff.snooze();
/// }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Backoff {
    failures: u32,
}

impl Backoff {
    /// A backoff with no failures yet.
    #[inline]
    pub const fn new() -> Backoff {
        Backoff { failures: 0 }
    }

    /// Waits after a failed attempt: a spin-loop hint, or a yield of the time slice once every
    /// [`SPINS_BEFORE_YIELD`] failures in a row.
    #[inline]
    pub fn snooze(&mut self) {
        self.failures += 1;
        if self.failures < SPINS_BEFORE_YIELD {
            std::hint::spin_loop();
        } else {
            self.failures = 0;
            std::thread::yield_now();
        }
    }
}
