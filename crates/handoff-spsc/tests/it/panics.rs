//! A message whose `drop` panics must not make the ring drop any message twice or leak one:
//! lent runs, batch pops and a ring dropped with messages inside, driven through `catch_unwind`.

#![cfg(not(handoff_loom))]

use handoff_spsc::{channel, Wait};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts the drops of every message by number; the message numbered `bomb` panics in its
/// first drop.
#[derive(Debug)]
struct Ledger {
    drops: Vec<AtomicUsize>,
    bomb: usize,
}

impl Ledger {
    fn new(messages: usize, bomb: usize) -> Arc<Ledger> {
        Arc::new(Ledger {
            drops: (0..messages).map(|_| AtomicUsize::new(0)).collect(),
            bomb,
        })
    }

    fn message(self: &Arc<Self>, id: usize) -> Msg {
        Msg {
            id,
            ledger: self.clone(),
        }
    }

    /// Every message was dropped exactly once.
    fn assert_each_dropped_once(&self) {
        let counts: Vec<usize> = self
            .drops
            .iter()
            .map(|c| c.load(Ordering::SeqCst))
            .collect();
        assert!(
            counts.iter().all(|&c| c == 1),
            "drops per message: {counts:?}"
        );
    }
}

#[derive(Debug)]
struct Msg {
    id: usize,
    ledger: Arc<Ledger>,
}

impl Drop for Msg {
    fn drop(&mut self) {
        let before = self.ledger.drops[self.id].fetch_add(1, Ordering::SeqCst);
        // Only on the first drop: a second one (the bug these tests look for) is counted, not
        // turned into a panic while unwinding (which would abort).
        if self.id == self.ledger.bomb && before == 0 {
            panic!("message {} refuses to be dropped", self.id);
        }
    }
}

/// A ring of 8 whose next run starts at slot 5, so that a run of 6 wraps: slots 5, 6, 7 then
/// 0, 1, 2. Returns the ends with messages `0..n` pushed.
fn wrapped_ring(
    ledger: &Arc<Ledger>,
    n: usize,
) -> (handoff_spsc::Producer<Msg>, handoff_spsc::Consumer<Msg>) {
    let (mut tx, mut rx) = channel::<Msg>(8, Wait::Spin).unwrap();
    let spare = Ledger::new(5, usize::MAX);
    tx.push_batch(&mut (0..5).map(|i| spare.message(i)))
        .unwrap();
    assert_eq!(rx.pop_batch(5, drop), 5);
    spare.assert_each_dropped_once();
    tx.push_batch(&mut (0..n).map(|i| ledger.message(i)))
        .unwrap();
    (tx, rx)
}

#[test]
fn lent_run_dropped_once_when_a_message_panics() {
    // The bomb in the first stretch (before the wrap), at its end, and in the second stretch.
    for bomb in [0, 1, 2, 3, 5] {
        let ledger = Ledger::new(8, bomb);
        let (mut tx, mut rx) = wrapped_ring(&ledger, 6);
        let mut lent = Vec::new();
        let result = catch_unwind(AssertUnwindSafe(|| {
            rx.pop_slices(6, |run| {
                lent.push(run.iter().map(|m| m.id).collect::<Vec<_>>())
            })
        }));
        assert!(
            result.is_err(),
            "bomb {bomb}: the drop's panic reaches the caller"
        );
        assert_eq!(lent, [vec![0, 1, 2], vec![3, 4, 5]]);
        // The run counts as popped: the ring is empty and takes new messages.
        assert!(rx.is_empty());
        tx.push_batch(&mut (6..8).map(|i| ledger.message(i)))
            .unwrap();
        assert_eq!(rx.pop_batch(8, drop), 2);
        drop((tx, rx));
        ledger.assert_each_dropped_once();
    }
}

#[test]
fn try_lent_run_dropped_once_when_a_message_panics() {
    let ledger = Ledger::new(6, 4);
    let (tx, mut rx) = wrapped_ring(&ledger, 6);
    let result = catch_unwind(AssertUnwindSafe(|| rx.try_pop_slices(6, |_| {})));
    assert!(result.is_err());
    assert!(rx.is_empty());
    drop((tx, rx));
    ledger.assert_each_dropped_once();
}

#[test]
fn batch_pop_drops_once_when_a_message_panics() {
    for bomb in [0, 2, 4] {
        let ledger = Ledger::new(6, bomb);
        let (tx, mut rx) = wrapped_ring(&ledger, 6);
        let mut seen = Vec::new();
        let result = catch_unwind(AssertUnwindSafe(|| {
            rx.pop_batch(6, |m| {
                seen.push(m.id);
                drop(m);
            })
        }));
        assert!(result.is_err());
        assert_eq!(seen, (0..=bomb).collect::<Vec<_>>());
        // What the batch did not reach is still there, in order.
        let mut rest = Vec::new();
        while let Ok(m) = rx.try_pop() {
            rest.push(m.id);
        }
        assert_eq!(rest, (bomb + 1..6).collect::<Vec<_>>());
        drop((tx, rx));
        ledger.assert_each_dropped_once();
    }
}

#[test]
fn dropping_a_non_empty_ring_drops_each_message_once() {
    // Either end last; the bomb before the wrap, right after it, and at the end.
    for (bomb, consumer_last) in [(1, true), (3, false), (5, true), (0, false)] {
        let ledger = Ledger::new(6, bomb);
        let (tx, rx) = wrapped_ring(&ledger, 6);
        let result = catch_unwind(AssertUnwindSafe(move || {
            if consumer_last {
                drop(tx);
                drop(rx);
            } else {
                drop(rx);
                drop(tx);
            }
        }));
        assert!(result.is_err());
        ledger.assert_each_dropped_once();
    }
}
