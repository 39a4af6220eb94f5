//! A message whose `drop` panics must not make a channel drop any message twice or leak one:
//! batch and lent receives, and channels dropped with messages inside, for both designs, driven
//! through `catch_unwind`.

#![cfg(not(handoff_loom))]

use handoff_mpsc::{channel, vyukov, Wake};
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
        if self.id == self.ledger.bomb && before == 0 {
            panic!("message {} refuses to be dropped", self.id);
        }
    }
}

/// Two senders (the original and a clone), messages `0..6` from the first and `6..12` from the
/// second, into rings of 8 whose runs wrap.
fn sharded(
    ledger: &Arc<Ledger>,
) -> (
    handoff_mpsc::Sender<Msg>,
    handoff_mpsc::Sender<Msg>,
    handoff_mpsc::Receiver<Msg>,
) {
    let spare = Ledger::new(10, usize::MAX);
    let (mut a, mut rx) = channel::<Msg>(8, Wake::Edge).unwrap();
    let mut b = a.clone();
    a.send_batch(&mut (0..5).map(|i| spare.message(i))).unwrap();
    b.send_batch(&mut (5..10).map(|i| spare.message(i)))
        .unwrap();
    assert_eq!(rx.recv_batch(10, drop), 10);
    spare.assert_each_dropped_once();
    a.send_batch(&mut (0..6).map(|i| ledger.message(i)))
        .unwrap();
    b.send_batch(&mut (6..12).map(|i| ledger.message(i)))
        .unwrap();
    (a, b, rx)
}

#[test]
fn sharded_recv_slices_drops_once_when_a_message_panics() {
    for bomb in [0, 3, 4, 7, 11] {
        let ledger = Ledger::new(12, bomb);
        let (a, b, mut rx) = sharded(&ledger);
        drop((a, b));
        let mut received = 0;
        loop {
            match catch_unwind(AssertUnwindSafe(|| rx.recv_slices(12, |_| {}))) {
                Ok(0) => break,
                Ok(n) => received += n,
                Err(_) => {}
            }
        }
        assert!(received <= 12);
        drop(rx);
        ledger.assert_each_dropped_once();
    }
}

#[test]
fn sharded_recv_batch_drops_once_when_a_message_panics() {
    for bomb in [0, 5, 6, 11] {
        let ledger = Ledger::new(12, bomb);
        let (a, b, mut rx) = sharded(&ledger);
        drop((a, b));
        let mut panics = 0;
        loop {
            match catch_unwind(AssertUnwindSafe(|| rx.recv_batch(12, drop))) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => panics += 1,
            }
        }
        assert_eq!(panics, 1);
        drop(rx);
        ledger.assert_each_dropped_once();
    }
}

#[test]
fn dropping_a_non_empty_sharded_channel_drops_each_message_once() {
    for (bomb, receiver_last) in [(0, true), (4, false), (7, true), (11, false)] {
        let ledger = Ledger::new(12, bomb);
        let (a, b, rx) = sharded(&ledger);
        let result = catch_unwind(AssertUnwindSafe(move || {
            if receiver_last {
                drop((a, b));
                drop(rx);
            } else {
                drop(rx);
                drop((a, b));
            }
        }));
        assert!(result.is_err());
        ledger.assert_each_dropped_once();
    }
}

#[test]
fn vyukov_recv_batch_drops_once_when_a_message_panics() {
    let ledger = Ledger::new(8, 3);
    let (tx, mut rx) = vyukov::channel::<Msg>(Wake::Spin);
    for i in 0..8 {
        tx.send(ledger.message(i)).unwrap();
    }
    drop(tx);
    let mut panics = 0;
    loop {
        match catch_unwind(AssertUnwindSafe(|| rx.recv_batch(8, drop))) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => panics += 1,
        }
    }
    assert_eq!(panics, 1);
    drop(rx);
    ledger.assert_each_dropped_once();
}

#[test]
fn dropping_a_non_empty_vyukov_channel_drops_each_message_once() {
    for (bomb, receiver_last) in [(0, true), (3, false), (7, true), (5, false)] {
        let ledger = Ledger::new(8, bomb);
        let (tx, rx) = vyukov::channel::<Msg>(Wake::Edge);
        for i in 0..8 {
            tx.send(ledger.message(i)).unwrap();
        }
        let result = catch_unwind(AssertUnwindSafe(move || {
            if receiver_last {
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
