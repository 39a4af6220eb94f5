//! Model tests of the ring's protocol, run by loom over every interleaving (up to a preemption
//! bound):
//!
//! ```text
//! RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-shm --release --test it
//! ```
//!
//! Under the model the ring's tags, counts and flags are loom's atomics and every slot's body a
//! loom cell, so loom checks each read of a message against the write that made it (a message
//! read before its tag said so is a data race) and reports a deadlock if a lost wake-up leaves
//! both sides asleep.
#![cfg(handoff_loom)]

use handoff_shm::{Consumer, Producer, Shared, Waiting};
use loom::thread;
use std::sync::Arc;

/// Runs `f` under loom, up to 3 preemptions (see `handoff_sync::model`).
fn model(f: impl Fn() + Sync + Send + 'static) {
    handoff_sync::model(3, f);
}

fn put(m: &u64, at: *mut u8) {
    // SAFETY: the model's slots hold 8 bytes, and a Vec<u8>'s buffer may be unaligned: write
    // it unaligned.
    unsafe { (at as *mut u64).write_unaligned(*m) }
}

fn get(at: *const u8) -> u64 {
    // SAFETY: as in `put`.
    unsafe { (at as *const u64).read_unaligned() }
}

/// The consumer's loop: takes every message until the producer has left, in runs of up to
/// `take`; returns them.
fn drain(rx: &mut Consumer, take: usize) -> Vec<u64> {
    let mut got = Vec::new();
    let mut round = 0;
    loop {
        if rx.pop_each(take, get, &mut |m| got.push(m)) > 0 {
            round = 0;
            continue;
        }
        if rx.producer_gone(false) {
            // Whatever was published before the producer left is still there.
            rx.pop_each(usize::MAX, get, &mut |m| got.push(m));
            return got;
        }
        rx.pause(&mut round);
    }
}

/// Three messages, one at a time, through a ring of two: the producer finds it full in some
/// interleavings, the consumer finds it empty in others; every message arrives once, in order,
/// and the end of the stream is seen after the last one.
fn one_at_a_time(waiting: Waiting) {
    model(move || {
        let shared = Arc::new(Shared::heap(2, 8).unwrap());
        let mut tx = Producer::take(shared.clone(), waiting);
        let mut rx = Consumer::take(shared, waiting);
        let producer = thread::spawn(move || {
            for i in 0..3u64 {
                let mut round = 0;
                while !tx.try_push(|at| put(&i, at)) {
                    assert!(!tx.consumer_gone(false));
                    tx.pause(&mut round);
                }
            }
        });
        assert_eq!(drain(&mut rx, 1), [0, 1, 2]);
        producer.join().unwrap();
    });
}

#[test]
fn spin_one_at_a_time() {
    one_at_a_time(Waiting::Spin);
}

/// The sleep and wake protocol: with both sides blocking, neither can sleep through the
/// other's publication (loom would report both asleep).
#[test]
fn block_one_at_a_time() {
    one_at_a_time(Waiting::Block);
}

/// A run of three written with one claim into a ring of four (spans of two), read in runs: the
/// one tag looked at for a run covers every message before it.
fn runs(waiting: Waiting) {
    model(move || {
        let shared = Arc::new(Shared::heap(4, 8).unwrap());
        let mut tx = Producer::take(shared.clone(), waiting);
        let mut rx = Consumer::take(shared, waiting);
        let producer = thread::spawn(move || {
            let mut items = 0..3u64;
            let mut next = None;
            let mut round = 0;
            while next.is_some() || !items.is_empty() {
                if tx.push_run(&mut next, &mut items, put) == 0 {
                    tx.pause(&mut round);
                }
            }
        });
        assert_eq!(drain(&mut rx, 4), [0, 1, 2]);
        producer.join().unwrap();
    });
}

#[test]
fn spin_runs() {
    runs(Waiting::Spin);
}

#[test]
fn block_runs() {
    runs(Waiting::Block);
}

/// A second lap: five messages through a ring of two, so every slot is reused after the
/// consumer frees it (its count published a span at a time) and the producer reloads the
/// count only when the ring looks full.
#[test]
fn slots_are_reused_only_once_freed() {
    model(|| {
        let shared = Arc::new(Shared::heap(2, 8).unwrap());
        let mut tx = Producer::take(shared.clone(), Waiting::Spin);
        let mut rx = Consumer::take(shared, Waiting::Spin);
        let producer = thread::spawn(move || {
            let mut items = 0..5u64;
            let mut next = None;
            let mut round = 0;
            while next.is_some() || !items.is_empty() {
                if tx.push_run(&mut next, &mut items, put) == 0 {
                    tx.pause(&mut round);
                }
            }
        });
        assert_eq!(drain(&mut rx, 2), [0, 1, 2, 3, 4]);
        producer.join().unwrap();
    });
}

/// A consumer that leaves: the producer sees it gone instead of waiting for room forever.
#[test]
fn a_consumer_that_leaves_is_seen_by_a_waiting_producer() {
    model(|| {
        let shared = Arc::new(Shared::heap(2, 8).unwrap());
        let mut tx = Producer::take(shared.clone(), Waiting::Block);
        let rx = Consumer::take(shared, Waiting::Block);
        let consumer = thread::spawn(move || drop(rx));
        let mut sent = 0u64;
        let mut round = 0;
        loop {
            if tx.try_push(|at| put(&sent, at)) {
                sent += 1;
                continue;
            }
            if tx.consumer_gone(false) {
                break;
            }
            tx.pause(&mut round);
        }
        assert_eq!(sent, 2, "the ring holds two, and nobody frees them");
        consumer.join().unwrap();
    });
}
