//! Which OS thread ran each side of a hand-off, for the async engine.
//!
//! On a multi-thread runtime the scheduler, not the workload, decides where a woken task runs:
//! tokio's LIFO slot and work stealing often run the consumer next on the very worker that woke
//! it, so two tasks can take turns on one thread while the runtime has several. Such a hand-off
//! crosses no core, and a result made mostly of them is not a cross-thread figure. This module
//! measures how many hand-offs stayed on one worker, without adding shared cache-line traffic to
//! the hot path:
//!
//! * every OS thread gets a small index the first time it asks ([`here`]: a thread-local read,
//!   and a counter bumped once per thread ever);
//! * every sending task owns a [`Where`] slot, on a cache line of its own, into which it notes
//!   its thread before each send, storing only when the thread changed ([`Noter`]), so in steady
//!   state the line is only ever read and stays shared in every core's cache;
//! * every receiving task, after each receive, compares its own thread with the slot of the
//!   message's sender and counts the receives that matched in a [`Tally`] it owns.
//!
//! The channel's own hand-off orders the sender's store before the receiver's load (the send
//! releases, the receive acquires), so the receiver reads the thread the sender ran on when it
//! sent the message, or a later one if the sender has moved since. In a ping-pong the sender
//! waits for the reply and cannot have moved: the count is exact. In a stream it is the share of
//! receives done on the thread where the producer last ran, which is the question that matters:
//! were the two sides taking turns on one thread?
//!
//! The same instrumentation runs under every driver, so the drivers are compared at the same
//! harness cost: on OS threads no hand-off matches (0%), on a current-thread runtime every one
//! does (100%).

use crate::outcome::WorkerShare;
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};

/// The next index to give a thread; 0 means "no thread noted yet".
static NEXT: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// This thread's index, 0 until first asked for.
    static INDEX: Cell<u32> = const { Cell::new(0) };
}

/// A small index of the calling OS thread, distinct between threads of the process (never 0).
#[inline]
pub(crate) fn here() -> u32 {
    INDEX.with(|i| match i.get() {
        0 => {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            i.set(n);
            n
        }
        n => n,
    })
}

/// Where a sending task last ran: written by that task, read by its receivers.
#[derive(Default)]
pub(crate) struct Where(CachePadded<AtomicU32>);

impl Where {
    /// The thread the sender last noted (0 before its first send).
    #[inline]
    pub(crate) fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A sending task's side: notes its thread in its [`Where`] before each send, storing only when
/// the thread changed.
pub(crate) struct Noter<'a> {
    slot: &'a Where,
    last: u32,
}

impl<'a> Noter<'a> {
    /// A noter for `slot`.
    pub(crate) fn new(slot: &'a Where) -> Self {
        Noter { slot, last: 0 }
    }

    /// Call before each send.
    #[inline]
    pub(crate) fn note(&mut self) {
        let t = here();
        if t != self.last {
            self.last = t;
            self.slot.0.store(t, Ordering::Relaxed);
        }
    }
}

/// A receiving task's count: receives seen, and how many ran on the thread of their sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    observed: u64,
    same: u64,
}

impl Tally {
    /// Call after each receive, with the slot of the message's sender.
    #[inline]
    pub(crate) fn received_from(&mut self, sender: &Where) {
        self.observed += 1;
        self.same += u64::from(sender.get() == here());
    }

    /// The sum of several tallies, as the outcome carries it.
    pub(crate) fn share(tallies: impl IntoIterator<Item = Tally>) -> WorkerShare {
        let mut s = WorkerShare::default();
        for t in tallies {
            s.observed += t.observed;
            s.same += t.same;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_get_distinct_stable_indices() {
        let a = here();
        assert_ne!(a, 0);
        assert_eq!(here(), a);
        let b = std::thread::spawn(here).join().unwrap();
        assert_ne!(b, 0);
        assert_ne!(a, b);
    }

    #[test]
    fn a_receive_matches_only_on_the_senders_thread() {
        let slot = Where::default();
        let mut tally = Tally::default();
        // Nothing noted yet: no match.
        tally.received_from(&slot);
        let mut noter = Noter::new(&slot);
        noter.note();
        tally.received_from(&slot);
        // A sender on another thread.
        std::thread::scope(|s| {
            s.spawn(|| Noter::new(&slot).note());
        });
        tally.received_from(&slot);
        let share = Tally::share([tally, Tally::default()]);
        assert_eq!((share.observed, share.same), (3, 1));
    }
}
