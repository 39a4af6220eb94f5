//! A quick sanity check of throughput, not a benchmark (use the `handoff` harness for that: it
//! pins threads, repeats samples, verifies every message and reports the spread).
//!
//! ```text
//! cargo run -p handoff-spsc --release --example spsc_throughput [messages]
//! ```
//!
//! Streams `u64`s from one thread to another through each wait strategy, one at a time and in
//! batches, with `std::sync::mpsc::sync_channel` as a familiar point of reference. For the ring
//! it also says how often each side found it full or empty and waited: a figure set mostly by
//! waits at the empty end is a consumer catching up on every message (see the crate README,
//! "What the compiler makes of it"), not the ring's best.

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

/// A ring's run: its time, and how many times the producer found the ring full and the
/// consumer found it empty before waiting.
struct Run {
    elapsed: Duration,
    full: u64,
    empty: u64,
}

fn report_run(name: &str, messages: u64, run: Run) {
    report(name, messages, run.elapsed);
    println!(
        "{:<28} waited: producer {} (full), consumer {} (empty)",
        "", run.full, run.empty
    );
}

fn single(wait: Wait, messages: u64) -> Run {
    let (mut tx, mut rx) = channel::<u64>(CAPACITY, wait).unwrap();
    let start = Instant::now();
    let producer = thread::spawn(move || {
        for i in 0..messages {
            tx.push(i).unwrap();
        }
        tx.failed_polls()
    });
    let mut expected = 0;
    while let Some(v) = rx.pop() {
        assert_eq!(v, expected);
        expected += 1;
    }
    let elapsed = start.elapsed();
    let full = producer.join().unwrap();
    assert_eq!(expected, messages);
    Run {
        elapsed,
        full,
        empty: rx.failed_polls(),
    }
}

fn batched(wait: Wait, messages: u64) -> Run {
    let (mut tx, mut rx) = channel::<u64>(CAPACITY, wait).unwrap();
    let start = Instant::now();
    let producer = thread::spawn(move || {
        let mut next = 0;
        while next < messages {
            let end = (next + BATCH as u64).min(messages);
            tx.push_batch(&mut (next..end)).unwrap();
            next = end;
        }
        tx.failed_polls()
    });
    let mut expected = 0;
    while rx.pop_batch(BATCH, |v| {
        assert_eq!(v, expected);
        expected += 1;
    }) > 0
    {}
    let elapsed = start.elapsed();
    let full = producer.join().unwrap();
    assert_eq!(expected, messages);
    Run {
        elapsed,
        full,
        empty: rx.failed_polls(),
    }
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
        report_run(&format!("spsc {wait:?}"), messages, single(wait, messages));
        report_run(
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
