//! Stress tests: exact counts and per-producer order for every wake policy, with more producers
//! than cores, producers coming and going, and drop accounting. Sized down under Miri.
#![cfg(not(handoff_loom))]

use handoff_mpsc::{channel, vyukov, Receiver, TryPopError, TryPushError, Wake, SHARD_TURN};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

/// Messages per configuration, split between the producers.
const N: u64 = if cfg!(miri) { 50 } else { 200_000 };
const WAKES: [Wake; 3] = [Wake::Spin, Wake::Edge, Wake::Every];
/// 8 producers on a 2-core machine: oversubscribed, so everything must yield or sleep.
const PRODUCERS: [u64; 3] = [1, 2, 8];

/// A message: who sent it and its sequence number in that sender's stream.
type Msg = (u64, u64);

/// Checks per-producer order and counts; panics on a gap, a duplicate or a reordering.
struct Checker {
    next: Vec<u64>,
}

impl Checker {
    fn new(producers: u64) -> Self {
        Checker {
            next: vec![0; producers as usize],
        }
    }

    fn see(&mut self, (p, seq): Msg) {
        let next = &mut self.next[p as usize];
        assert_eq!(seq, *next, "producer {p}: expected seq {next}, got {seq}");
        *next += 1;
    }

    fn assert_complete(&self, per_producer: u64) {
        for (p, &n) in self.next.iter().enumerate() {
            assert_eq!(
                n, per_producer,
                "producer {p} delivered {n} of {per_producer}"
            );
        }
    }
}

/// How the receiver of a test receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recv {
    One,
    Batch,
    Slices,
}

/// Runs `producers` sharded senders of `N / producers` messages each; the receiver uses `recv`,
/// `recv_batch` or `recv_slices`.
fn sharded_run(wake: Wake, producers: u64, capacity: usize, recv: Recv) {
    let per = N / producers;
    let (tx, mut rx) = channel::<Msg>(capacity, wake).unwrap();
    let handles: Vec<_> = (0..producers)
        .map(|p| {
            let mut tx = tx.clone();
            thread::spawn(move || {
                for seq in 0..per {
                    tx.send((p, seq)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut checker = Checker::new(producers);
    match recv {
        Recv::Batch => while rx.recv_batch(100, |m| checker.see(m)) > 0 {},
        Recv::Slices => {
            while rx.recv_slices(100, |run| {
                assert!(!run.is_empty(), "an empty run was lent");
                run.iter().for_each(|&m| checker.see(m));
            }) > 0
            {}
        }
        Recv::One => {
            while let Some(m) = rx.recv() {
                checker.see(m);
            }
        }
    }
    checker.assert_complete(per);
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(rx.shards(), 0, "every ring retired");
}

#[test]
fn sharded_every_wake_recv() {
    for wake in WAKES {
        for producers in PRODUCERS {
            sharded_run(wake, producers, 64, Recv::One);
        }
    }
}

#[test]
fn sharded_every_wake_recv_batch() {
    for wake in WAKES {
        for producers in PRODUCERS {
            sharded_run(wake, producers, 64, Recv::Batch);
        }
    }
}

#[test]
fn sharded_every_wake_recv_slices() {
    for wake in WAKES {
        for producers in PRODUCERS {
            sharded_run(wake, producers, 64, Recv::Slices);
        }
    }
}

/// Rings of one and two: senders wait on full rings all the time.
#[test]
fn sharded_tiny_rings() {
    for wake in WAKES {
        sharded_run(wake, 2, 1, Recv::One);
        sharded_run(wake, 8, 2, Recv::Batch);
        sharded_run(wake, 4, 2, Recv::Slices);
    }
}

/// Non-waiting operations, retried by hand.
#[test]
fn sharded_try_send_try_recv() {
    let producers = 4;
    let per = N / producers;
    let (tx, mut rx) = channel::<Msg>(16, Wake::Spin).unwrap();
    let handles: Vec<_> = (0..producers)
        .map(|p| {
            let mut tx = tx.clone();
            thread::spawn(move || {
                for seq in 0..per {
                    let mut m = (p, seq);
                    loop {
                        match tx.try_send(m) {
                            Ok(()) => break,
                            Err(TryPushError::Full(back)) => {
                                m = back;
                                thread::yield_now();
                            }
                            Err(TryPushError::Disconnected(_)) => panic!("receiver alive"),
                        }
                    }
                }
            })
        })
        .collect();
    drop(tx);
    let mut checker = Checker::new(producers);
    loop {
        match rx.try_recv() {
            Ok(m) => checker.see(m),
            Err(TryPopError::Empty) => thread::yield_now(),
            Err(TryPopError::Disconnected) => break,
        }
    }
    checker.assert_complete(per);
    for h in handles {
        h.join().unwrap();
    }
}

/// Batch sends against batch and single receives.
#[test]
fn sharded_send_batch() {
    for wake in WAKES {
        let producers = 3;
        let per = N / producers;
        let (tx, mut rx) = channel::<Msg>(32, wake).unwrap();
        let handles: Vec<_> = (0..producers)
            .map(|p| {
                let mut tx = tx.clone();
                thread::spawn(move || {
                    let mut seq = 0;
                    let mut size = 1;
                    while seq < per {
                        let end = (seq + size).min(per);
                        let sent = tx.send_batch(&mut (seq..end).map(|s| (p, s))).unwrap();
                        assert_eq!(sent as u64, end - seq);
                        seq = end;
                        size = size % 97 + 5;
                    }
                })
            })
            .collect();
        drop(tx);
        let mut checker = Checker::new(producers);
        let mut max = 1;
        loop {
            let n = rx.recv_batch(max, |m| checker.see(m));
            if n == 0 {
                break;
            }
            assert!(n <= max);
            max = max % 200 + 1;
        }
        checker.assert_complete(per);
        for h in handles {
            h.join().unwrap();
        }
    }
}

/// Senders are cloned and dropped while the receiver runs: every clone's messages arrive, in
/// order, and the receiver sees the end only after the last one.
#[test]
fn sharded_senders_come_and_go() {
    for wake in WAKES {
        let threads = 4u64;
        let generations = if cfg!(miri) { 3 } else { 200 };
        let per = (N / threads / generations).max(1);
        let (tx, mut rx) = channel::<Msg>(8, wake).unwrap();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for g in 0..generations {
                        // A fresh sender (and ring) per generation, dropped at the end of it.
                        let mut sender = tx.clone();
                        let id = t * generations + g;
                        for seq in 0..per {
                            sender.send((id, seq)).unwrap();
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        let mut checker = Checker::new(threads * generations);
        let mut max_shards = 0;
        while let Some(m) = rx.recv() {
            checker.see(m);
            max_shards = max_shards.max(rx.shards());
        }
        checker.assert_complete(per);
        for h in handles {
            h.join().unwrap();
        }
        assert!(max_shards >= 1);
        assert_eq!(rx.shards(), 0);
    }
}

/// A hot sender with a full ring cannot starve another: the receiver takes turns of at most
/// `SHARD_TURN` messages.
/// Fills one producer's ring (1024 messages of 0), sends one message (1) from a second
/// producer, reads everything with `read`, and asserts the second producer's message came within
/// one turn of the first's.
fn assert_fair_turns(how: &str, read: impl FnOnce(&mut Receiver<u32>) -> Vec<u32>) {
    let (mut hot, mut rx) = channel::<u32>(1024, Wake::Spin).unwrap();
    let mut cold = hot.clone();
    for _ in 0..1024 {
        hot.send(0).unwrap();
    }
    cold.send(1).unwrap();
    let seen = read(&mut rx);
    assert_eq!(seen.len(), 1025, "{how}: every message received");
    let position = seen.iter().position(|&v| v == 1).unwrap();
    assert!(
        position <= SHARD_TURN,
        "{how}: cold message received after {position} hot ones"
    );
}

#[test]
fn sharded_turns_are_fair() {
    assert_fair_turns("one by one", |rx| {
        (0..1025).map(|_| rx.recv().unwrap()).collect()
    });
    assert_fair_turns("in batches", |rx| {
        let mut seen = Vec::new();
        while seen.len() < 1025 {
            rx.recv_batch(1025 - seen.len(), |v| seen.push(v));
        }
        seen
    });
    assert_fair_turns("in runs", |rx| {
        let mut seen = Vec::new();
        while seen.len() < 1025 {
            rx.recv_slices(1025 - seen.len(), |run| seen.extend_from_slice(run));
        }
        seen
    });
}

#[test]
fn sharded_disconnection() {
    let (mut tx, rx) = channel::<u32>(2, Wake::Edge).unwrap();
    assert!(!tx.is_disconnected() && !rx.is_disconnected());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(tx.try_send(3), Err(TryPushError::Full(3)));
    drop(rx);
    assert!(tx.is_disconnected());
    assert_eq!(tx.send(3), Err(3));
    assert_eq!(tx.try_send(3), Err(TryPushError::Disconnected(3)));
    // A clone made after the receiver is gone is disconnected too.
    let mut late = tx.clone();
    assert!(late.is_disconnected());
    late.send(1).unwrap(); // room in its fresh ring
    late.send(2).unwrap();
    assert_eq!(late.send(3), Err(3));

    let (tx, mut rx) = channel::<u32>(4, Wake::Edge).unwrap();
    let waiter = thread::spawn(move || rx.recv());
    thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
        1
    } else {
        20
    }));
    drop(tx);
    assert_eq!(waiter.join().unwrap(), None);
}

#[test]
fn capacity_errors() {
    assert!(channel::<u8>(0, Wake::Edge).is_err());
    assert_eq!(channel::<u8>(5, Wake::Edge).unwrap().0.shard_capacity(), 8);
}

/// A message that counts its drops.
#[derive(Debug)]
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Messages left in rings (adopted or still pending registration, wrapped around or not) are
/// dropped exactly once, whichever end goes first.
#[test]
fn sharded_leftovers_dropped_exactly_once() {
    for receiver_first in [false, true] {
        for received in [0usize, 3, 11] {
            let drops = Arc::new(AtomicUsize::new(0));
            let (mut a, mut rx) = channel::<Counted>(4, Wake::Edge).unwrap();
            let mut sent = 0;
            for _ in 0..4 {
                a.send(Counted(drops.clone())).unwrap();
                sent += 1;
            }
            // Walk around the ring.
            for _ in 0..received {
                drop(rx.recv().unwrap());
                a.send(Counted(drops.clone())).unwrap();
                sent += 1;
            }
            // A clone the receiver has not adopted yet, with messages in its ring.
            let mut b = a.clone();
            b.send(Counted(drops.clone())).unwrap();
            b.send(Counted(drops.clone())).unwrap();
            sent += 2;
            assert_eq!(drops.load(Ordering::Relaxed), received);
            if receiver_first {
                drop(rx);
                drop((a, b));
            } else {
                drop((a, b));
                drop(rx);
            }
            assert_eq!(drops.load(Ordering::Relaxed), sent);
        }
    }
}

/// Across threads, everything sent is dropped exactly once, received or not.
#[test]
fn sharded_drops_across_threads() {
    let drops = Arc::new(AtomicUsize::new(0));
    let created = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx) = channel::<Counted>(16, Wake::Edge).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let mut tx = tx.clone();
            let (drops, created) = (drops.clone(), created.clone());
            thread::spawn(move || {
                for _ in 0..N / 4 {
                    created.fetch_add(1, Ordering::Relaxed);
                    if tx.send(Counted(drops.clone())).is_err() {
                        break; // dropped here, handed back
                    }
                }
            })
        })
        .collect();
    drop(tx);
    for _ in 0..N / 8 {
        drop(rx.recv().unwrap());
    }
    drop(rx);
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(
        drops.load(Ordering::Relaxed),
        created.load(Ordering::Relaxed)
    );
}

/// `producers` Vyukov senders of `N / producers` messages each.
fn vyukov_run(wake: Wake, producers: u64, batch: bool) {
    let per = N / producers;
    let (tx, mut rx) = vyukov::channel::<Msg>(wake);
    let handles: Vec<_> = (0..producers)
        .map(|p| {
            let tx = tx.clone();
            thread::spawn(move || {
                for seq in 0..per {
                    tx.send((p, seq)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut checker = Checker::new(producers);
    if batch {
        while rx.recv_batch(100, |m| checker.see(m)) > 0 {}
    } else {
        while let Some(m) = rx.recv() {
            checker.see(m);
        }
    }
    checker.assert_complete(per);
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn vyukov_every_wake_recv() {
    for wake in WAKES {
        for producers in PRODUCERS {
            vyukov_run(wake, producers, false);
        }
    }
}

#[test]
fn vyukov_every_wake_recv_batch() {
    for wake in WAKES {
        for producers in PRODUCERS {
            vyukov_run(wake, producers, true);
        }
    }
}

/// One sender shared by reference between threads (`Sender: Sync`).
#[test]
fn vyukov_shared_sender() {
    let (tx, mut rx) = vyukov::channel::<Msg>(Wake::Edge);
    let per = N / 4;
    thread::scope(|s| {
        for p in 0..4 {
            let tx = &tx;
            s.spawn(move || {
                for seq in 0..per {
                    tx.send((p, seq)).unwrap();
                }
            });
        }
        let mut checker = Checker::new(4);
        for _ in 0..4 * per {
            checker.see(rx.recv().unwrap());
        }
        checker.assert_complete(per);
    });
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryPopError::Disconnected));
}

#[test]
fn vyukov_senders_come_and_go() {
    for wake in WAKES {
        let threads = 4u64;
        let generations = if cfg!(miri) { 3 } else { 200 };
        let per = (N / threads / generations).max(1);
        let (tx, mut rx) = vyukov::channel::<Msg>(wake);
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for g in 0..generations {
                        let sender = tx.clone();
                        let id = t * generations + g;
                        for seq in 0..per {
                            sender.send((id, seq)).unwrap();
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        let mut checker = Checker::new(threads * generations);
        while let Some(m) = rx.recv() {
            checker.see(m);
        }
        checker.assert_complete(per);
        for h in handles {
            h.join().unwrap();
        }
    }
}

#[test]
fn vyukov_disconnection() {
    let (tx, rx) = vyukov::channel::<u32>(Wake::Edge);
    assert!(!tx.is_disconnected() && !rx.is_disconnected());
    tx.send(1).unwrap();
    drop(rx);
    assert!(tx.is_disconnected());
    assert_eq!(tx.send(2), Err(2));

    let (tx, mut rx) = vyukov::channel::<u32>(Wake::Edge);
    let waiter = thread::spawn(move || rx.recv());
    thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
        1
    } else {
        20
    }));
    drop(tx);
    assert_eq!(waiter.join().unwrap(), None);
}

/// Messages never received are dropped exactly once, whichever end goes first.
#[test]
fn vyukov_leftovers_dropped_exactly_once() {
    for receiver_first in [false, true] {
        for received in [0usize, 1, 5] {
            let drops = Arc::new(AtomicUsize::new(0));
            let (tx, mut rx) = vyukov::channel::<Counted>(Wake::Spin);
            for _ in 0..8 {
                tx.send(Counted(drops.clone())).unwrap();
            }
            for _ in 0..received {
                drop(rx.recv().unwrap());
            }
            assert_eq!(drops.load(Ordering::Relaxed), received);
            if receiver_first {
                drop(rx);
                assert_eq!(drops.load(Ordering::Relaxed), 8);
                // Sends after the receiver is gone hand the message back (dropped here).
                assert!(tx.send(Counted(drops.clone())).is_err());
                drop(tx);
                assert_eq!(drops.load(Ordering::Relaxed), 9);
            } else {
                drop(tx);
                drop(rx);
                assert_eq!(drops.load(Ordering::Relaxed), 8);
            }
        }
    }
}

/// A panic in the batch callback neither loses nor double-drops a message.
#[test]
fn panic_in_recv_batch() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(8, Wake::Spin).unwrap();
    for _ in 0..8 {
        tx.send(Counted(drops.clone())).unwrap();
    }
    let mut calls = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        rx.recv_batch(8, |_m| {
            calls += 1;
            if calls == 3 {
                panic!("boom");
            }
        })
    }));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::Relaxed), 3);
    drop((tx, rx));
    assert_eq!(drops.load(Ordering::Relaxed), 8);

    let (tx, mut rx) = vyukov::channel::<Counted>(Wake::Spin);
    for _ in 0..8 {
        tx.send(Counted(drops.clone())).unwrap();
    }
    let mut calls = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        rx.recv_batch(8, |_m| {
            calls += 1;
            if calls == 3 {
                panic!("boom");
            }
        })
    }));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::Relaxed), 8 + 3);
    drop((tx, rx));
    assert_eq!(drops.load(Ordering::Relaxed), 16);
}

/// `try_send_batch` sends what fits and takes nothing it cannot send.
#[test]
fn try_send_batch_takes_only_what_fits() {
    let (mut tx, mut rx) = channel::<u64>(4, Wake::Edge).unwrap();
    let mut items = 0..10;
    assert_eq!(tx.try_send_batch(&mut items), 4);
    assert_eq!(tx.try_send_batch(&mut items), 0);
    assert_eq!(items.next(), Some(4));
    assert_eq!(rx.try_recv(), Ok(0));
    assert_eq!(tx.try_send_batch(&mut (5..5)), 0);
    assert_eq!(tx.failed_polls(), 0);
}

/// The waiting operations count the polls that found nothing to do and were followed by a
/// wait, for every wake policy, on both channels; the `try_*` ones count nothing.
#[test]
fn waits_are_counted_as_failed_polls() {
    let pause = || thread::sleep(std::time::Duration::from_millis(20));
    for wake in WAKES {
        // A receiver that waits for a late sender, and a sender that waits for a late receiver.
        // A thread not scheduled for the whole pause waits for nothing, so retry.
        let counted = (0..10).any(|_| {
            let (mut tx, mut rx) = channel::<u64>(1, wake).unwrap();
            let receiver = thread::spawn(move || {
                let first = rx.recv();
                pause();
                let second = rx.recv();
                let waits = rx.failed_polls();
                // The third message, so that the receiver is not dropped while it is sent.
                let third = rx.recv();
                (first, second, third, waits)
            });
            pause();
            for i in 0..3 {
                tx.send(i).unwrap();
            }
            let send_waits = tx.failed_polls();
            drop(tx);
            let (first, second, third, recv_waits) = receiver.join().unwrap();
            assert_eq!(
                (first, second, third),
                (Some(0), Some(1), Some(2)),
                "{wake:?}"
            );
            send_waits > 0 && recv_waits > 0
        });
        assert!(
            counted,
            "sharded {wake:?}: no wait was counted in ten tries"
        );

        let counted = (0..10).any(|_| {
            let (tx, mut rx) = vyukov::channel::<u64>(wake);
            let receiver = thread::spawn(move || (rx.recv(), rx.failed_polls()));
            pause();
            tx.send(7).unwrap();
            let (got, waits) = receiver.join().unwrap();
            assert_eq!(got, Some(7), "{wake:?}");
            waits > 0
        });
        assert!(counted, "vyukov {wake:?}: no wait was counted in ten tries");
    }
    let (mut tx, mut rx) = channel::<u64>(1, Wake::Spin).unwrap();
    assert_eq!(rx.try_recv(), Err(TryPopError::Empty));
    tx.try_send(0).unwrap();
    assert!(matches!(tx.try_send(1), Err(TryPushError::Full(1))));
    assert_eq!((tx.failed_polls(), rx.failed_polls()), (0, 0));
}
