//! Stress tests: exact counts and order across threads, for every wait strategy and for the
//! batch API, and drop accounting. Sized down under Miri.
#![cfg(not(handoff_loom))]

use handoff_spsc::{channel, CapacityError, TryPopError, TryPushError, Wait, MAX_CAPACITY};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

const N: u64 = if cfg!(miri) { 50 } else { 200_000 };
const WAITS: [Wait; 3] = [Wait::Spin, Wait::SpinThenYield, Wait::Block];
/// Small rings fill and empty all the time; the large one rarely does.
const CAPACITIES: [usize; 3] = [1, 4, 1024];

/// Pushes `0..N` one by one and pops them one by one; every value arrives once, in order.
#[test]
fn push_pop_every_wait() {
    for wait in WAITS {
        for capacity in CAPACITIES {
            let (mut tx, mut rx) = channel::<u64>(capacity, wait).unwrap();
            let producer = thread::spawn(move || {
                for i in 0..N {
                    tx.push(i).unwrap();
                }
            });
            let mut expected = 0;
            while let Some(v) = rx.pop() {
                assert_eq!(v, expected, "{wait:?}, capacity {capacity}");
                expected += 1;
            }
            assert_eq!(expected, N, "{wait:?}, capacity {capacity}");
            producer.join().unwrap();
        }
    }
}

/// The non-waiting operations, retried by hand.
#[test]
fn try_push_try_pop() {
    for capacity in CAPACITIES {
        let (mut tx, mut rx) = channel::<u64>(capacity, Wait::Spin).unwrap();
        let producer = thread::spawn(move || {
            let mut full = 0u64;
            for i in 0..N {
                let mut v = i;
                loop {
                    match tx.try_push(v) {
                        Ok(()) => break,
                        Err(back) => {
                            full += 1;
                            v = back.into_inner();
                            thread::yield_now();
                        }
                    }
                }
            }
            full
        });
        let mut expected = 0;
        loop {
            match rx.try_pop() {
                Ok(v) => {
                    assert_eq!(v, expected);
                    expected += 1;
                }
                Err(TryPopError::Empty) => thread::yield_now(),
                Err(TryPopError::Disconnected) => break,
            }
        }
        assert_eq!(expected, N);
        producer.join().unwrap();
    }
}

/// Batch pushes of varying sizes against batch pops of varying sizes.
#[test]
fn batch_every_wait() {
    for wait in WAITS {
        for capacity in CAPACITIES {
            let (mut tx, mut rx) = channel::<u64>(capacity, wait).unwrap();
            let producer = thread::spawn(move || {
                let mut next = 0;
                let mut size = 1;
                while next < N {
                    let end = (next + size).min(N);
                    assert_eq!(tx.push_batch(&mut (next..end)), Ok((end - next) as usize));
                    next = end;
                    size = size % 300 + 7;
                }
            });
            let mut expected = 0;
            let mut max = 1;
            loop {
                let n = rx.pop_batch(max, |v| {
                    assert_eq!(v, expected, "{wait:?}, capacity {capacity}");
                    expected += 1;
                });
                if n == 0 {
                    break;
                }
                assert!(n <= max);
                max = max % 257 + 3;
            }
            assert_eq!(expected, N, "{wait:?}, capacity {capacity}");
            producer.join().unwrap();
        }
    }
}

/// Batch pushes against runs lent in place (`pop_slices`) of varying sizes: every value once,
/// in order, in at most two slices per call that together hold what the call reports.
#[test]
fn slices_every_wait() {
    for wait in WAITS {
        for capacity in CAPACITIES {
            let (mut tx, mut rx) = channel::<u64>(capacity, wait).unwrap();
            let producer = thread::spawn(move || {
                let mut next = 0;
                let mut size = 1;
                while next < N {
                    let end = (next + size).min(N);
                    assert_eq!(tx.push_batch(&mut (next..end)), Ok((end - next) as usize));
                    next = end;
                    size = size % 300 + 7;
                }
            });
            let mut expected = 0;
            let mut max = 1;
            loop {
                let (mut lent, mut calls) = (0, 0);
                let n = rx.pop_slices(max, |run| {
                    assert!(!run.is_empty(), "an empty run was lent");
                    for &v in run {
                        assert_eq!(v, expected, "{wait:?}, capacity {capacity}");
                        expected += 1;
                    }
                    lent += run.len();
                    calls += 1;
                });
                if n == 0 {
                    break;
                }
                assert!(
                    n <= max && lent == n && calls <= 2,
                    "{n} of {max} in {calls} runs"
                );
                max = max % 257 + 3;
            }
            assert_eq!(expected, N, "{wait:?}, capacity {capacity}");
            producer.join().unwrap();
        }
    }
}

/// A run that wraps around the end of the buffer is lent as two slices, oldest first, and a
/// run that does not as one.
#[test]
fn slices_split_at_the_wrap() {
    let (mut tx, mut rx) = channel::<u32>(8, Wait::Spin).unwrap();
    for start in 0..16u32 {
        assert_eq!(tx.push_batch(&mut (start..start + 5)), Ok(5));
        let mut runs = Vec::new();
        assert_eq!(rx.pop_slices(8, |run| runs.push(run.to_vec())), 5);
        let first_slot = (start as usize * 5) % 8;
        let expected: Vec<Vec<u32>> = if first_slot + 5 <= 8 {
            vec![(start..start + 5).collect()]
        } else {
            let split = start + (8 - first_slot) as u32;
            vec![(start..split).collect(), (split..start + 5).collect()]
        };
        assert_eq!(runs, expected, "run starting at slot {first_slot}");
    }
}

/// `try_pop_slices` never waits: empty, then a run, then disconnected once drained.
#[test]
fn try_slices() {
    let (mut tx, mut rx) = channel::<u64>(16, Wait::Spin).unwrap();
    assert_eq!(
        rx.try_pop_slices(4, |_| panic!("lent from an empty ring")),
        Err(TryPopError::Empty)
    );
    assert_eq!(rx.try_pop_slices(0, |_| panic!("lent with max 0")), Ok(0));
    tx.push_batch(&mut (0..6)).unwrap();
    let mut seen = Vec::new();
    assert_eq!(
        rx.try_pop_slices(4, |run| seen.extend_from_slice(run)),
        Ok(4)
    );
    drop(tx);
    assert_eq!(
        rx.try_pop_slices(4, |run| seen.extend_from_slice(run)),
        Ok(2)
    );
    assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
    assert_eq!(
        rx.try_pop_slices(4, |_| panic!("lent after the end")),
        Err(TryPopError::Disconnected)
    );
    assert_eq!(rx.pop_slices(4, |_| panic!("lent after the end")), 0);
}

/// Batch on one side, single messages on the other, both ways round.
#[test]
fn batch_against_single() {
    for wait in WAITS {
        let (mut tx, mut rx) = channel::<u64>(64, wait).unwrap();
        let producer = thread::spawn(move || {
            assert_eq!(tx.push_batch(&mut (0..N)), Ok(N as usize));
        });
        let mut expected = 0;
        while let Some(v) = rx.pop() {
            assert_eq!(v, expected);
            expected += 1;
        }
        assert_eq!(expected, N);
        producer.join().unwrap();

        let (mut tx, mut rx) = channel::<u64>(64, wait).unwrap();
        let producer = thread::spawn(move || {
            for i in 0..N {
                tx.push(i).unwrap();
            }
        });
        let mut expected = 0;
        while rx.pop_batch(100, |v| {
            assert_eq!(v, expected);
            expected += 1;
        }) > 0
        {}
        assert_eq!(expected, N);
        producer.join().unwrap();
    }
}

/// `try_push_batch` and `try_pop_batch` never wait and never lose an item of the iterator.
#[test]
fn try_batches() {
    let (mut tx, mut rx) = channel::<u64>(16, Wait::Spin).unwrap();
    let producer = thread::spawn(move || {
        let mut items = 0..N;
        while !items.is_empty() {
            if tx.try_push_batch(&mut items) == 0 {
                thread::yield_now();
            }
        }
    });
    let mut expected = 0;
    loop {
        match rx.try_pop_batch(10, |v| {
            assert_eq!(v, expected);
            expected += 1;
        }) {
            Ok(n) => assert!((1..=10).contains(&n)),
            Err(TryPopError::Empty) => thread::yield_now(),
            Err(TryPopError::Disconnected) => break,
        }
    }
    assert_eq!(expected, N);
    producer.join().unwrap();
}

/// Zero-sized messages are counted like any other.
#[test]
fn zero_sized() {
    let (mut tx, mut rx) = channel::<()>(8, Wait::SpinThenYield).unwrap();
    let producer = thread::spawn(move || {
        for _ in 0..N {
            tx.push(()).unwrap();
        }
    });
    let mut count = 0;
    while rx.pop().is_some() {
        count += 1;
    }
    assert_eq!(count, N);
    producer.join().unwrap();
}

#[test]
fn capacity_rounding_and_errors() {
    let (tx, rx) = channel::<u8>(3, Wait::Spin).unwrap();
    assert_eq!((tx.capacity(), rx.capacity()), (4, 4));
    assert_eq!(channel::<u8>(1, Wait::Spin).unwrap().0.capacity(), 1);
    assert_eq!(channel::<u8>(1024, Wait::Spin).unwrap().0.capacity(), 1024);
    assert_eq!(
        channel::<u8>(0, Wait::Spin).unwrap_err(),
        CapacityError::Zero
    );
    assert!(matches!(
        channel::<u8>(MAX_CAPACITY + 1, Wait::Spin),
        Err(CapacityError::TooLarge { .. })
    ));
    // A buffer of 2^50 MiB does not fit in `isize::MAX` bytes; 2^42 MiB is the largest that does.
    #[cfg(target_pointer_width = "64")]
    assert_eq!(
        channel::<[u8; 1 << 20]>(1 << 50, Wait::Spin).unwrap_err(),
        CapacityError::TooLarge {
            requested: 1 << 50,
            max: 1 << 42
        }
    );
    assert!(!CapacityError::Zero.to_string().is_empty());
}

#[test]
fn disconnection() {
    let (mut tx, rx) = channel::<u32>(2, Wait::Block).unwrap();
    assert!(!tx.is_abandoned() && !rx.is_abandoned());
    tx.push(1).unwrap();
    tx.push(2).unwrap();
    assert_eq!(tx.try_push(3), Err(TryPushError::Full(3)));
    assert!(tx.is_full());
    drop(rx);
    assert!(tx.is_abandoned());
    // A full ring whose consumer is gone: `push` gives the message back instead of waiting.
    assert_eq!(tx.push(3), Err(3));
    assert_eq!(tx.push_batch(&mut (4..6)), Err(4));

    let (mut tx, mut rx) = channel::<u32>(4, Wait::Block).unwrap();
    tx.push(1).unwrap();
    drop(tx);
    assert!(rx.is_abandoned());
    assert_eq!(rx.pop(), Some(1));
    assert_eq!(rx.pop(), None);
    assert_eq!(rx.pop_batch(8, |_| unreachable!()), 0);
    assert_eq!(rx.try_pop(), Err(TryPopError::Disconnected));
}

/// A consumer asleep on an empty ring wakes when the producer goes away.
#[test]
fn blocked_consumer_sees_end() {
    let (tx, mut rx) = channel::<u32>(4, Wait::Block).unwrap();
    let consumer = thread::spawn(move || rx.pop());
    thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
        1
    } else {
        20
    }));
    drop(tx);
    assert_eq!(consumer.join().unwrap(), None);
}

/// A producer asleep on a full ring wakes when the consumer goes away.
#[test]
fn blocked_producer_sees_end() {
    let (mut tx, rx) = channel::<u32>(1, Wait::Block).unwrap();
    tx.push(0).unwrap();
    let producer = thread::spawn(move || tx.push(1));
    thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
        1
    } else {
        20
    }));
    drop(rx);
    assert_eq!(producer.join().unwrap(), Err(1));
}

/// Runs `f` on a thread of its own and fails (instead of hanging the test run) if it has not
/// finished within a minute: a lost wake-up shows up as a side asleep forever.
fn within_a_minute<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (done, finished) = std::sync::mpsc::channel();
    let worker = thread::spawn(move || {
        let result = f();
        let _ = done.send(());
        result
    });
    match finished.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => worker.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => worker.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no progress for 60 s, a wake-up was lost")
        }
    }
}

/// Where the system offers it, `Wait::Block` uses the asymmetric barrier pair (a free one on the
/// hot path) once a waiter has slept, so that the tests of this file exercise the protocol that
/// ships.
#[test]
#[cfg(all(target_os = "linux", not(miri)))]
fn block_uses_asymmetric_barriers_on_linux() {
    let (mut tx, mut rx) = channel::<u32>(2, Wait::Block).unwrap();
    let producer = thread::spawn(move || {
        thread::sleep(std::time::Duration::from_millis(200));
        tx.push(1).unwrap();
    });
    // Long enough a wait for the consumer to sleep, which registers the process.
    assert_eq!(rx.pop(), Some(1));
    producer.join().unwrap();
    assert!(handoff_spsc::Waiter::new().is_asymmetric());
}

/// Bursts separated by pauses long enough for the other side to go to sleep: each burst must
/// wake it. Run in both directions (the consumer sleeping on an empty ring, the producer on a
/// full one), with exact counts and order; a lost wake-up fails the test instead of hanging it.
#[test]
fn every_sleep_is_woken() {
    const BURSTS: u64 = if cfg!(miri) { 5 } else { 1_000 };
    let pause = std::time::Duration::from_micros(if cfg!(miri) { 1 } else { 200 });
    // The consumer sleeps between the producer's bursts.
    within_a_minute("consumer asleep on an empty ring", move || {
        let (mut tx, mut rx) = channel::<u64>(64, Wait::Block).unwrap();
        let producer = thread::spawn(move || {
            for burst in 0..BURSTS {
                for i in 0..burst % 3 + 1 {
                    tx.push(burst * 4 + i).unwrap();
                }
                thread::sleep(pause);
            }
        });
        let mut received = 0;
        let mut last = None;
        while let Some(v) = rx.pop() {
            assert!(last.map_or(true, |l| v > l), "{v} after {last:?}");
            last = Some(v);
            received += 1;
        }
        producer.join().unwrap();
        assert_eq!(received, (0..BURSTS).map(|b| b % 3 + 1).sum::<u64>());
    });
    // The producer sleeps on a full ring while the consumer pauses.
    within_a_minute("producer asleep on a full ring", move || {
        let (mut tx, mut rx) = channel::<u64>(2, Wait::Block).unwrap();
        let producer = thread::spawn(move || {
            for i in 0..BURSTS * 2 {
                tx.push(i).unwrap();
            }
        });
        for expected in 0..BURSTS * 2 {
            if expected % 2 == 0 {
                thread::sleep(pause);
            }
            assert_eq!(rx.pop(), Some(expected));
        }
        producer.join().unwrap();
        assert_eq!(rx.pop(), None);
    });
}

/// A message that counts its drops.
#[derive(Debug)]
struct Counted {
    id: u64,
    drops: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

fn counted(id: u64, drops: &Arc<AtomicUsize>) -> Counted {
    Counted {
        id,
        drops: drops.clone(),
    }
}

/// Messages left in a dropped ring are dropped exactly once, wherever head and tail stand
/// (including after the indices have wrapped around the buffer several times).
#[test]
fn leftovers_dropped_exactly_once() {
    for capacity in [1usize, 2, 8] {
        for popped in 0..3 * capacity {
            for left in 0..=capacity {
                let drops = Arc::new(AtomicUsize::new(0));
                let (mut tx, mut rx) = channel::<Counted>(capacity, Wait::Spin).unwrap();
                // Walk the indices around the ring first.
                for i in 0..popped as u64 {
                    tx.push(counted(i, &drops)).unwrap();
                    assert_eq!(rx.pop().unwrap().id, i);
                }
                for i in 0..left as u64 {
                    tx.push(counted(i, &drops)).unwrap();
                }
                assert_eq!(drops.load(Ordering::Relaxed), popped);
                // Either end may go first.
                if left % 2 == 0 {
                    drop(tx);
                    drop(rx);
                } else {
                    drop(rx);
                    drop(tx);
                }
                assert_eq!(drops.load(Ordering::Relaxed), popped + left);
            }
        }
    }
}

/// Across threads: everything pushed is dropped exactly once, whether popped or left behind.
#[test]
fn drops_across_threads() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(32, Wait::SpinThenYield).unwrap();
    let d = drops.clone();
    let producer = thread::spawn(move || {
        for i in 0..N {
            if tx.push(counted(i, &d)).is_err() {
                return i;
            }
        }
        N
    });
    let mut popped = 0;
    while popped < N / 2 {
        let m = rx.pop().unwrap();
        assert_eq!(m.id, popped);
        popped += 1;
    }
    drop(rx);
    let pushed = producer.join().unwrap();
    // Each message created was dropped once: popped ones here, the rest in the ring or by the
    // producer when `push` handed it back.
    let created = (pushed + u64::from(pushed < N)) as usize;
    assert_eq!(drops.load(Ordering::Relaxed), created);
}

/// A panic in the batch callback neither loses nor double-drops a message.
#[test]
fn panic_in_pop_batch() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(8, Wait::Spin).unwrap();
    for i in 0..8 {
        tx.push(counted(i, &drops)).unwrap();
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        rx.pop_batch(8, |m| {
            if m.id == 3 {
                panic!("boom");
            }
        })
    }));
    assert!(result.is_err());
    // 0..=3 were handed to the callback (and dropped by it); 4..8 are still in the ring.
    assert_eq!(drops.load(Ordering::Relaxed), 4);
    assert_eq!(rx.pop().unwrap().id, 4);
    drop(tx);
    drop(rx);
    assert_eq!(drops.load(Ordering::Relaxed), 8);
}

/// Lent messages are dropped exactly once, after the callback, including in runs that wrap.
#[test]
fn slices_drop_lent_messages_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(8, Wait::Spin).unwrap();
    let mut next = 0u64;
    for round in 1..=5 {
        for _ in 0..5 {
            tx.push(counted(next, &drops)).unwrap();
            next += 1;
        }
        let before = drops.load(Ordering::Relaxed);
        let mut ids = Vec::new();
        assert_eq!(
            rx.pop_slices(8, |run| {
                // Nothing lent is dropped while it is lent.
                assert_eq!(drops.load(Ordering::Relaxed), before);
                ids.extend(run.iter().map(|m| m.id));
            }),
            5
        );
        assert_eq!(ids, ((round - 1) * 5..round * 5).collect::<Vec<u64>>());
        assert_eq!(drops.load(Ordering::Relaxed), before + 5);
    }
    drop((tx, rx));
    assert_eq!(drops.load(Ordering::Relaxed), 25);
}

/// A panic in the callback of `pop_slices` pops (and drops) the whole lent run once, and leaves
/// the rest in the ring.
#[test]
fn panic_in_pop_slices() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(8, Wait::Spin).unwrap();
    for i in 0..8 {
        tx.push(counted(i, &drops)).unwrap();
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        rx.pop_slices(5, |run| {
            if run.iter().any(|m| m.id == 3) {
                panic!("boom");
            }
        })
    }));
    assert!(result.is_err());
    // 0..5 were lent: they count as popped and were dropped once; 5..8 are still in the ring.
    assert_eq!(drops.load(Ordering::Relaxed), 5);
    assert_eq!(rx.pop().unwrap().id, 5);
    drop(tx);
    drop(rx);
    assert_eq!(drops.load(Ordering::Relaxed), 8);
}

/// A panic in the iterator of a batch push neither loses nor double-drops a message.
#[test]
fn panic_in_push_batch() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (mut tx, mut rx) = channel::<Counted>(8, Wait::Spin).unwrap();
    let d = drops.clone();
    let mut items = (0..8).map(move |i| {
        if i == 5 {
            panic!("boom");
        }
        counted(i, &d)
    });
    assert!(catch_unwind(AssertUnwindSafe(|| tx.push_batch(&mut items))).is_err());
    // What was written before the panic was published.
    for i in 0..5 {
        assert_eq!(rx.try_pop().unwrap().id, i);
    }
    assert_eq!(rx.try_pop().unwrap_err(), TryPopError::Empty);
    drop((tx, rx));
    assert_eq!(drops.load(Ordering::Relaxed), 5);
}

/// The waiting operations count the polls that found the ring full (producer) or empty
/// (consumer) and were followed by a wait; a run that never waits counts none.
#[test]
fn waits_are_counted_as_failed_polls() {
    for wait in WAITS {
        // Nobody waits: the ring holds everything and is read only once it is full.
        let (mut tx, mut rx) = channel::<u64>(4, wait).unwrap();
        for i in 0..4 {
            tx.push(i).unwrap();
        }
        for i in 0..4 {
            assert_eq!(rx.pop(), Some(i));
        }
        assert_eq!((tx.failed_polls(), rx.failed_polls()), (0, 0), "{wait:?}");

        // The consumer waits on an empty ring, the producer on a full one. Which one waits is
        // up to the scheduler only if a thread is not scheduled for the whole pause, so retry.
        let counted = (0..10).any(|_| {
            let (mut tx, mut rx) = channel::<u64>(1, wait).unwrap();
            let consumer = thread::spawn(move || {
                let first = rx.pop();
                thread::sleep(std::time::Duration::from_millis(20));
                let second = rx.pop();
                let waits = rx.failed_polls();
                // The third message, so that the consumer is not dropped while it is pushed:
                // a push that finds the consumer gone hands the message back.
                let third = rx.pop();
                (first, second, third, waits)
            });
            thread::sleep(std::time::Duration::from_millis(20));
            for i in 0..3 {
                tx.push(i).unwrap();
            }
            let sent_waits = tx.failed_polls();
            drop(tx);
            let (first, second, third, recv_waits) = consumer.join().unwrap();
            assert_eq!(
                (first, second, third),
                (Some(0), Some(1), Some(2)),
                "{wait:?}"
            );
            sent_waits > 0 && recv_waits > 0
        });
        assert!(counted, "{wait:?}: no wait was counted in ten tries");
    }
}
