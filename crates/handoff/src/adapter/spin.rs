//! Waiting after a failed `try_*` attempt: the one backoff every spinning adapter shares.
//!
//! A spinning adapter must keep making progress when the trial has more threads than cores: a
//! thread that spins on an empty queue while the producer that would fill it is descheduled on
//! the same core only burns its time slice. [`Backoff`] therefore issues a spin-loop hint after
//! each failed attempt and, after [`SPINS_BEFORE_YIELD`] failures in a row, yields the thread's
//! time slice (`std::thread::yield_now`). A yield does not sleep: with a free core it returns at
//! once, so such adapters still declare [`WaitStrategy::Spin`](crate::semantics::WaitStrategy::Spin).
//!
//! Every adapter that spins waits with this backoff and counts every failed attempt in a plain
//! counter of its handle, so that spinning transports differ in their queue only, never in how
//! the harness waits for them or counts: `rtrb`, `ringbuf`, the crossbeam queues, the
//! disruptor's producers (its processor thread waits with the same backoff, uncounted: it is
//! the transport's own thread, not a harness side), and the reference transports in their
//! spinning mode
//! (`handoff-spsc` `wait=spin`, `handoff-mpsc` and `vyukov-mpsc` `wake=spin`), which the harness
//! drives through their non-waiting operations. Where an option chooses a transport's *own*
//! wait (`handoff-spsc` `wait=spin-yield|block`, the MPSC ones `wake=edge|every`), that wait is
//! what is measured; the option's help says so, and the transport counts its failed polls
//! itself, by the same rule: a look that found the queue full (empty) and was followed by a
//! wait.
//!
//! [`send_spinning`], [`recv_spinning`], [`retry`] and [`send_batch_spinning`] are the retry
//! loops of those adapters, written once.

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
/// use handoff::adapter::Backoff;
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
    /// `SPINS_BEFORE_YIELD` failures in a row.
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

/// Sends `msg` through `end` by retrying `push`, the way every spinning adapter does: after each
/// failed attempt it asks `gone` whether every consumer has left (then the message comes back),
/// counts the attempt in `failed` and waits with a [`Backoff`].
///
/// Always inlined, with its closures, into the adapter's `send`: the loop is the adapter's own.
#[inline(always)]
pub fn send_spinning<E, M>(
    end: &mut E,
    failed: &mut u64,
    msg: M,
    push: impl Fn(&mut E, M) -> Result<(), M>,
    gone: impl Fn(&E) -> bool,
) -> Result<(), M> {
    let mut msg = msg;
    let mut backoff = Backoff::new();
    loop {
        match push(end, msg) {
            Ok(()) => return Ok(()),
            Err(m) => msg = m,
        }
        if gone(end) {
            return Err(msg);
        }
        *failed += 1;
        backoff.snooze();
    }
}

/// Receives from `end` by retrying `pop`, the way every spinning adapter does: after each failed
/// attempt it asks `gone` whether every producer has left, counts the attempt in `failed` and
/// waits with a [`Backoff`]. Once the producers are gone it pops once more before ending the
/// stream: their last pushes happened before they left, which `gone` observed, so a message sent
/// just before the last producer was dropped is never lost.
///
/// Always inlined, with its closures, into the adapter's `recv`: the loop is the adapter's own.
#[inline(always)]
pub fn recv_spinning<E, M>(
    end: &mut E,
    failed: &mut u64,
    pop: impl Fn(&mut E) -> Option<M>,
    gone: impl Fn(&E) -> bool,
) -> Option<M> {
    let mut backoff = Backoff::new();
    loop {
        if let Some(m) = pop(end) {
            return Some(m);
        }
        if gone(end) {
            return pop(end);
        }
        *failed += 1;
        backoff.snooze();
    }
}

/// Retries `attempt` until it gives an answer, the way every spinning adapter waits: each `None`
/// is a failed attempt, counted in `failed` and followed by a wait with a [`Backoff`]. For the
/// non-waiting operations that tell "nothing yet" from "the end" themselves (a batch receive
/// returning `Ok(n)`, `Empty` or `Disconnected`).
///
/// Always inlined, with its closure, into the adapter's operation: the loop is the adapter's own.
#[inline(always)]
pub fn retry<E, R>(
    end: &mut E,
    failed: &mut u64,
    mut attempt: impl FnMut(&mut E) -> Option<R>,
) -> R {
    let mut backoff = Backoff::new();
    loop {
        if let Some(r) = attempt(end) {
            return r;
        }
        *failed += 1;
        backoff.snooze();
    }
}

/// Sends every message of `msgs` through `end` with `push_run`, a non-waiting batch send that
/// publishes as many as fit at once and takes none it cannot send (0 when full or done). When
/// the queue is full it takes the next message and waits for room as [`send_spinning`] does
/// (with `push` and `gone`); that message is then published on its own, and the runs go on.
///
/// Always inlined, with its closures, into the adapter's `send_batch`.
#[inline(always)]
pub fn send_batch_spinning<E, M, I: Iterator<Item = M>>(
    end: &mut E,
    failed: &mut u64,
    msgs: &mut I,
    push_run: impl Fn(&mut E, &mut I) -> usize,
    push: impl Fn(&mut E, M) -> Result<(), M>,
    gone: impl Fn(&E) -> bool,
) -> Result<(), M> {
    loop {
        if push_run(end, msgs) > 0 {
            continue;
        }
        // Full, or the iterator is done.
        let Some(m) = msgs.next() else {
            return Ok(());
        };
        send_spinning(end, failed, m, &push, &gone)?;
    }
}
