//! Model tests of the index protocol and of the `Wait::Block` sleep/wake protocol, run by loom
//! over every interleaving (up to a preemption bound):
//!
//! ```text
//! RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-spsc --test it --release
//! ```
//!
//! Loom checks every slot access for data races (through the crate's loom seam), and reports a
//! deadlock if a lost wake-up leaves both sides asleep.
#![cfg(handoff_loom)]

use handoff_spsc::{channel, TryPopError, Wait};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Runs `f` under loom, up to 3 preemptions (see `handoff_sync::model`).
fn model(f: impl Fn() + Sync + Send + 'static) {
    handoff_sync::model(3, f);
}

/// Three messages through a ring of two: the producer finds the ring full at least once in
/// some interleavings, the consumer finds it empty in others.
fn push_pop_full_and_empty(wait: Wait) {
    model(move || {
        let (mut tx, mut rx) = channel::<usize>(2, wait).unwrap();
        let producer = thread::spawn(move || {
            for i in 0..3 {
                tx.push(i).unwrap();
            }
        });
        for i in 0..3 {
            assert_eq!(rx.pop(), Some(i));
        }
        assert_eq!(rx.pop(), None);
        producer.join().unwrap();
    });
}

#[test]
fn spin_full_and_empty() {
    push_pop_full_and_empty(Wait::Spin);
}

#[test]
fn spin_then_yield_full_and_empty() {
    push_pop_full_and_empty(Wait::SpinThenYield);
}

#[test]
fn block_full_and_empty() {
    push_pop_full_and_empty(Wait::Block);
}

/// Non-waiting operations: the producer fills the ring, the consumer races it; every message is
/// seen once and in order, full and empty are reported as such.
#[test]
fn try_push_try_pop() {
    model(|| {
        let (mut tx, mut rx) = channel::<usize>(2, Wait::Spin).unwrap();
        let producer = thread::spawn(move || {
            let mut sent = 0;
            for i in 0..3 {
                if tx.try_push(i).is_ok() {
                    sent += 1;
                } else {
                    break;
                }
            }
            sent
        });
        let mut next = 0;
        loop {
            match rx.try_pop() {
                Ok(v) => {
                    assert_eq!(v, next);
                    next += 1;
                }
                Err(TryPopError::Empty) => thread::yield_now(),
                Err(TryPopError::Disconnected) => break,
            }
        }
        let sent = producer.join().unwrap();
        assert!(sent >= 2, "a ring of 2 accepts at least 2");
        assert_eq!(next, sent);
    });
}

/// Batches: a run of three pushed into a ring of two, read back in runs.
fn batch(wait: Wait) {
    model(move || {
        let (mut tx, mut rx) = channel::<usize>(2, wait).unwrap();
        let producer = thread::spawn(move || {
            assert_eq!(tx.push_batch(&mut (0..3)), Ok(3));
        });
        let mut next = 0;
        loop {
            let n = rx.pop_batch(2, |v| {
                assert_eq!(v, next);
                next += 1;
            });
            if n == 0 {
                break;
            }
        }
        assert_eq!(next, 3);
        producer.join().unwrap();
    });
}

/// Runs lent in place: a run of three pushed into a ring of two, each lent run read and
/// released while the producer may be writing the slots just released.
fn slices(wait: Wait) {
    model(move || {
        let (mut tx, mut rx) = channel::<usize>(2, wait).unwrap();
        let producer = thread::spawn(move || {
            assert_eq!(tx.push_batch(&mut (0..3)), Ok(3));
        });
        let mut next = 0;
        while rx.pop_slices(2, |run| {
            for &v in run {
                assert_eq!(v, next);
                next += 1;
            }
        }) > 0
        {}
        assert_eq!(next, 3);
        producer.join().unwrap();
    });
}

#[test]
fn slices_spin() {
    slices(Wait::Spin);
}

#[test]
fn slices_block() {
    slices(Wait::Block);
}

#[test]
fn batch_spin() {
    batch(Wait::Spin);
}

#[test]
fn batch_block() {
    batch(Wait::Block);
}

/// The consumer goes away while the producer waits on a full ring: the producer must wake up
/// and get its message back; the messages left in the ring are dropped exactly once.
#[test]
fn block_consumer_drop_wakes_producer() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, rx) = channel::<Counted>(1, Wait::Block).unwrap();
        let d = drops.clone();
        let producer = thread::spawn(move || {
            tx.push(Counted(d.clone())).unwrap();
            // The ring is full and nobody pops: this waits (sleeps) until the consumer is gone.
            assert!(tx.push(Counted(d)).is_err());
            assert!(tx.is_abandoned());
        });
        drop(rx);
        producer.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    });
}

/// Messages left in the ring are dropped exactly once when both ends are gone.
#[test]
fn leftovers_dropped_once() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, mut rx) = channel::<Counted>(2, Wait::Spin).unwrap();
        let d = drops.clone();
        let producer = thread::spawn(move || {
            tx.push(Counted(d.clone())).unwrap();
            tx.push(Counted(d)).unwrap();
        });
        let first = rx.try_pop().ok();
        drop(first);
        producer.join().unwrap();
        drop(rx);
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    });
}

#[derive(Debug)]
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A ring of one: every push after the first finds it full, every pop after a pop finds it
/// empty, so both sides go through the sleep/wake protocol.
#[test]
fn block_capacity_one() {
    model(|| {
        let (mut tx, mut rx) = channel::<usize>(1, Wait::Block).unwrap();
        let producer = thread::spawn(move || {
            tx.push(1).unwrap();
            tx.push(2).unwrap();
        });
        assert_eq!(rx.pop(), Some(1));
        assert_eq!(rx.pop(), Some(2));
        assert_eq!(rx.pop(), None);
        producer.join().unwrap();
    });
}

/// The producer goes away while the consumer sleeps on an empty ring: the consumer must wake up
/// and see the end of the stream.
#[test]
fn block_producer_drop_wakes_consumer() {
    model(|| {
        let (tx, mut rx) = channel::<usize>(2, Wait::Block).unwrap();
        let producer = thread::spawn(move || {
            drop(tx);
        });
        assert_eq!(rx.pop(), None);
        producer.join().unwrap();
    });
}
