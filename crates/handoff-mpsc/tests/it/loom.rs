//! Model tests of the registration, retirement and sleep/wake protocols of the sharded channel,
//! and of the Vyukov queue's links, run by loom over every interleaving (up to a preemption
//! bound):
//!
//! ```text
//! RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-mpsc --test it --release
//! ```
//!
//! Models are kept small (two producers, one or two messages each): the state space grows
//! exponentially with every extra operation.
#![cfg(handoff_loom)]

use handoff_mpsc::{channel, vyukov, Wake};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Runs `f` under loom, up to 2 preemptions (see `handoff_sync::model`).
fn model(f: impl Fn() + Sync + Send + 'static) {
    handoff_sync::model(2, f);
}

/// Receives until the end of the stream, checking per-producer order; returns the count per
/// producer.
fn receive_all(rx: &mut handoff_mpsc::Receiver<(usize, usize)>) -> [usize; 2] {
    let mut next = [0; 2];
    while let Some((p, seq)) = rx.recv() {
        assert_eq!(seq, next[p], "producer {p} out of order");
        next[p] += 1;
    }
    next
}

/// Two senders, each on its own thread; the clone is registered before the threads start.
fn sharded_two_senders(wake: Wake) {
    model(move || {
        let (mut tx0, mut rx) = channel::<(usize, usize)>(2, wake).unwrap();
        let mut tx1 = tx0.clone();
        let a = thread::spawn(move || {
            tx0.send((0, 0)).unwrap();
            tx0.send((0, 1)).unwrap();
        });
        let b = thread::spawn(move || {
            tx1.send((1, 0)).unwrap();
        });
        assert_eq!(receive_all(&mut rx), [2, 1]);
        a.join().unwrap();
        b.join().unwrap();
    });
}

#[test]
fn sharded_two_senders_spin() {
    sharded_two_senders(Wake::Spin);
}

#[test]
fn sharded_two_senders_edge() {
    sharded_two_senders(Wake::Edge);
}

#[test]
fn sharded_two_senders_every() {
    sharded_two_senders(Wake::Every);
}

/// A clone is registered while the receiver runs (possibly asleep) and sends: the receiver must
/// adopt the new ring. The clone stays alive until its message is received, so that only the
/// send (not the end of the stream) can wake the receiver. Then the rings are retired and the
/// stream ends.
fn sharded_register_while_receiving(wake: Wake) {
    model(move || {
        let (tx0, mut rx) = channel::<(usize, usize)>(2, wake).unwrap();
        let producer = thread::spawn(move || {
            let mut tx1 = tx0.clone();
            drop(tx0);
            tx1.send((1, 0)).unwrap();
            tx1
        });
        assert_eq!(rx.recv(), Some((1, 0)));
        drop(producer.join().unwrap());
        assert_eq!(rx.recv(), None);
        assert_eq!(rx.shards(), 0);
    });
}

#[test]
fn sharded_register_while_receiving_spin() {
    sharded_register_while_receiving(Wake::Spin);
}

#[test]
fn sharded_register_while_receiving_edge() {
    sharded_register_while_receiving(Wake::Edge);
}

/// A ring of one: the sender waits (sleeps, under `Edge`) on its full ring until the receiver
/// takes the first message, in batches this time.
#[test]
fn sharded_full_ring_edge() {
    model(|| {
        let (mut tx, mut rx) = channel::<usize>(1, Wake::Edge).unwrap();
        let producer = thread::spawn(move || {
            tx.send(0).unwrap();
            tx.send(1).unwrap();
        });
        let mut next = 0;
        while rx.recv_batch(2, |v| {
            assert_eq!(v, next);
            next += 1;
        }) > 0
        {}
        assert_eq!(next, 2);
        producer.join().unwrap();
    });
}

/// The receiver goes away while a sender sleeps on its full ring: the sender must wake and get
/// its message back; every message is dropped exactly once.
#[test]
fn sharded_receiver_drop_wakes_sender() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, rx) = channel::<Counted>(1, Wake::Edge).unwrap();
        let d = drops.clone();
        let producer = thread::spawn(move || {
            tx.send(Counted(d.clone())).unwrap();
            assert!(tx.send(Counted(d)).is_err());
            assert!(tx.is_disconnected());
        });
        drop(rx);
        producer.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    });
}

/// Two producers push one message each; the receiver follows the links, including through the
/// inconsistent state (a swap not yet linked).
fn vyukov_two_producers(wake: Wake) {
    model(move || {
        let (tx, mut rx) = vyukov::channel::<usize>(wake);
        let tx1 = tx.clone();
        let a = thread::spawn(move || tx.send(0).unwrap());
        let b = thread::spawn(move || tx1.send(1).unwrap());
        let mut seen = [false; 2];
        while let Some(v) = rx.recv() {
            assert!(!seen[v], "{v} received twice");
            seen[v] = true;
        }
        assert_eq!(seen, [true, true]);
        a.join().unwrap();
        b.join().unwrap();
    });
}

#[test]
fn vyukov_two_producers_spin() {
    vyukov_two_producers(Wake::Spin);
}

#[test]
fn vyukov_two_producers_edge() {
    vyukov_two_producers(Wake::Edge);
}

#[test]
fn vyukov_two_producers_every() {
    vyukov_two_producers(Wake::Every);
}

/// One producer, two messages: order is kept, and `try_recv` never sees a message twice or out
/// of order while a push is half done.
#[test]
fn vyukov_order_try_recv() {
    model(|| {
        let (tx, mut rx) = vyukov::channel::<usize>(Wake::Spin);
        let producer = thread::spawn(move || {
            tx.send(0).unwrap();
            tx.send(1).unwrap();
        });
        let mut next = 0;
        loop {
            match rx.try_recv() {
                Ok(v) => {
                    assert_eq!(v, next);
                    next += 1;
                }
                Err(handoff_mpsc::TryPopError::Empty) => thread::yield_now(),
                Err(handoff_mpsc::TryPopError::Disconnected) => break,
            }
        }
        assert_eq!(next, 2);
        producer.join().unwrap();
    });
}

/// Messages never received are dropped exactly once, and every node is freed (loom would
/// report a leak of the nodes' atomics otherwise), whichever end goes first.
#[test]
fn vyukov_leftovers_dropped_once() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = vyukov::channel::<Counted>(Wake::Edge);
        let tx1 = tx.clone();
        let d = drops.clone();
        let a = thread::spawn(move || {
            let _ = tx.send(Counted(d.clone()));
            let _ = tx.send(Counted(d));
        });
        let d = drops.clone();
        let b = thread::spawn(move || {
            let _ = tx1.send(Counted(d));
        });
        drop(rx.try_recv());
        drop(rx);
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 3);
    });
}

#[derive(Debug)]
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
