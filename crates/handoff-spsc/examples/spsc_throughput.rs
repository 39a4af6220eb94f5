//! A quick sanity check of throughput, not a benchmark (use the `handoff` harness for that: it
//! pins threads, repeats samples, verifies every message and reports the spread).
//!
//! ```text
//! cargo run -p handoff-spsc --release --example spsc_throughput [messages]
//! ```
//!
//! Streams `u64`s from one thread to another through each wait strategy, one at a time and in
//! batches, with `std::sync::mpsc::sync_channel` as a familiar point of reference.

use handoff_spsc::{channel, Wait};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const CAPACITY: usize = 4096;
const BATCH: usize = 256;

fn report(name: &str, messages: u64, elapsed: Duration) {
    let per_sec = messages as f64 / elapsed.as_secs_f64();
    let ns = elapsed.as_nanos() as f64 / messages as f64;
    println!("{name:<28} {:>9.1} M msg/s {ns:>8.2} ns/msg", per_sec / 1e6);
}

fn single(wait: Wait, messages: u64) -> Duration {
    let (mut tx, mut rx) = channel::<u64>(CAPACITY, wait).unwrap();
    let start = Instant::now();
    let producer = thread::spawn(move || {
        for i in 0..messages {
            tx.push(i).unwrap();
        }
    });
    let mut expected = 0;
    while let Some(v) = rx.pop() {
        assert_eq!(v, expected);
        expected += 1;
    }
    let elapsed = start.elapsed();
    producer.join().unwrap();
    assert_eq!(expected, messages);
    elapsed
}

fn batched(wait: Wait, messages: u64) -> Duration {
    let (mut tx, mut rx) = channel::<u64>(CAPACITY, wait).unwrap();
    let start = Instant::now();
    let producer = thread::spawn(move || {
        let mut next = 0;
        while next < messages {
            let end = (next + BATCH as u64).min(messages);
            tx.push_batch(&mut (next..end)).unwrap();
            next = end;
        }
    });
    let mut expected = 0;
    while rx.pop_batch(BATCH, |v| {
        assert_eq!(v, expected);
        expected += 1;
    }) > 0
    {}
    let elapsed = start.elapsed();
    producer.join().unwrap();
    assert_eq!(expected, messages);
    elapsed
}

fn std_sync_channel(messages: u64) -> Duration {
    let (tx, rx) = mpsc::sync_channel::<u64>(CAPACITY);
    let start = Instant::now();
    let producer = thread::spawn(move || {
        for i in 0..messages {
            tx.send(i).unwrap();
        }
    });
    let mut expected = 0;
    while let Ok(v) = rx.recv() {
        assert_eq!(v, expected);
        expected += 1;
    }
    let elapsed = start.elapsed();
    producer.join().unwrap();
    elapsed
}

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    println!("{messages} u64 messages, capacity {CAPACITY}, batches of {BATCH}");
    for wait in [Wait::Spin, Wait::SpinThenYield, Wait::Block] {
        report(&format!("spsc {wait:?}"), messages, single(wait, messages));
        report(
            &format!("spsc {wait:?} batch"),
            messages,
            batched(wait, messages),
        );
    }
    report(
        "std sync_channel",
        messages / 10,
        std_sync_channel(messages / 10),
    );
}
