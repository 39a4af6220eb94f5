//! Exact counts between two threads, in a ring in this process's heap: every message arrives
//! once and in order, whatever the ring's size, the wait, and the runs on either side.
#![cfg(not(handoff_loom))]

use handoff_shm::{Consumer, Producer, Shared, Waiting};
use std::sync::Arc;

/// Writes a `u64` message.
fn put(m: &u64, at: *mut u8) {
    // SAFETY: the ring hands out 8-aligned slots of at least the wire size (8 bytes).
    unsafe { (at as *mut u64).write(*m) }
}

/// Reads a `u64` message.
fn get(at: *const u8) -> u64 {
    // SAFETY: as in `put`; the slot holds a message the producer wrote.
    unsafe { (at as *const u64).read() }
}

/// Sends `n` messages one at a time (`run` = 1) or in runs, and receives them one at a time or
/// in runs of up to `take`; checks each.
fn stream(capacity: usize, waiting: Waiting, n: u64, run: u64, take: usize) {
    let shared = Arc::new(Shared::heap(capacity, 8).unwrap());
    let mut tx = Producer::take(shared.clone(), waiting);
    let mut rx = Consumer::take(shared, waiting);
    let producer = std::thread::spawn(move || {
        let mut i = 0;
        let mut round = 0;
        while i < n {
            let end = (i + run).min(n);
            let mut items = i..end;
            let mut next = None;
            while next.is_some() || !items.is_empty() {
                if tx.push_run(&mut next, &mut items, put) == 0 {
                    assert!(!tx.consumer_gone(false));
                    tx.pause(&mut round);
                }
            }
            i = end;
        }
    });
    let mut want = 0;
    let mut round = 0;
    loop {
        let got = rx.pop_each(take, get, &mut |m| {
            assert_eq!(m, want);
            want += 1;
        });
        if got > 0 {
            continue;
        }
        if rx.producer_gone(false) {
            rx.pop_each(usize::MAX, get, &mut |m| {
                assert_eq!(m, want);
                want += 1;
            });
            break;
        }
        rx.pause(&mut round);
    }
    producer.join().unwrap();
    assert_eq!(want, n);
}

#[test]
fn every_message_arrives_once_in_order_one_at_a_time() {
    for waiting in [Waiting::Spin, Waiting::Block] {
        stream(2, waiting, 200_000, 1, 1);
        stream(64, waiting, 1_000_000, 1, 1);
    }
}

#[test]
fn every_message_arrives_once_in_order_in_runs() {
    for waiting in [Waiting::Spin, Waiting::Block] {
        stream(64, waiting, 1_000_000, 37, 64);
        stream(8, waiting, 300_000, 64, 5);
    }
}

#[test]
fn a_single_push_and_pop_see_the_same_bytes_and_the_ring_fills() {
    let shared = Arc::new(Shared::heap(4, 8).unwrap());
    let mut tx = Producer::take(shared.clone(), Waiting::Spin);
    let mut rx = Consumer::take(shared, Waiting::Spin);
    assert_eq!(rx.try_pop(get), None);
    for i in 0..4 {
        assert!(tx.try_push(|at| put(&i, at)));
    }
    assert!(!tx.try_push(|at| put(&9, at)), "four slots, full");
    for i in 0..4 {
        assert_eq!(rx.try_pop(get), Some(i));
    }
    assert_eq!(rx.try_pop(get), None);
    drop(rx);
    assert!(tx.consumer_gone(false));
}

#[test]
fn a_ring_is_refused_where_it_cannot_live() {
    assert!(Shared::heap(3, 8).is_err(), "not a power of two");
    let shared = Shared::heap(4, 8).unwrap();
    assert_eq!(shared.capacity(), 4);
    assert_eq!(handoff_shm::slot_size(8), 16);
    assert_eq!(handoff_shm::slot_size(64), 72);
}
