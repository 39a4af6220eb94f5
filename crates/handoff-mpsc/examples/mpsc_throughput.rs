//! A quick sanity check of throughput, not a benchmark (use the `handoff` harness for that: it
//! pins threads, repeats samples, verifies every message and reports the spread).
//!
//! ```text
//! cargo run -p handoff-mpsc --release --example mpsc_throughput [messages]
//! ```
//!
//! K producers stream `u64`s to one consumer through the sharded channel and the Vyukov queue,
//! under each wake policy, with `std::sync::mpsc` as a familiar point of reference.
//! `Wake::Every` makes a system call per message, so it gets a tenth of the messages.

use handoff_mpsc::{channel, vyukov, Wake};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const SHARD_CAPACITY: usize = 1024;
const BATCH: usize = 256;

fn report(name: &str, messages: u64, elapsed: Duration) {
    let per_sec = messages as f64 / elapsed.as_secs_f64();
    println!("{name:<34} {:>8.1} M msg/s", per_sec / 1e6);
}

fn sharded(wake: Wake, producers: u64, per: u64) -> Duration {
    let (tx, mut rx) = channel::<u64>(SHARD_CAPACITY, wake).unwrap();
    let senders: Vec<_> = (0..producers).map(|_| tx.clone()).collect();
    drop(tx);
    let start = Instant::now();
    let handles: Vec<_> = senders
        .into_iter()
        .map(|mut tx| {
            thread::spawn(move || {
                for i in 0..per {
                    tx.send(i).unwrap();
                }
            })
        })
        .collect();
    let mut count = 0;
    while rx.recv_batch(BATCH, |_| count += 1) > 0 {}
    let elapsed = start.elapsed();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(count, producers * per);
    elapsed
}

fn vyukov_queue(wake: Wake, producers: u64, per: u64) -> Duration {
    let (tx, mut rx) = vyukov::channel::<u64>(wake);
    let start = Instant::now();
    let handles: Vec<_> = (0..producers)
        .map(|_| {
            let tx = tx.clone();
            thread::spawn(move || {
                for i in 0..per {
                    tx.send(i).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut count = 0;
    while rx.recv_batch(BATCH, |_| count += 1) > 0 {}
    let elapsed = start.elapsed();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(count, producers * per);
    elapsed
}

fn std_mpsc(producers: u64, per: u64) -> Duration {
    let (tx, rx) = mpsc::channel::<u64>();
    let start = Instant::now();
    let handles: Vec<_> = (0..producers)
        .map(|_| {
            let tx = tx.clone();
            thread::spawn(move || {
                for i in 0..per {
                    tx.send(i).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let count = rx.iter().count() as u64;
    let elapsed = start.elapsed();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(count, producers * per);
    elapsed
}

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    println!("{messages} u64 messages in total, shard capacity {SHARD_CAPACITY}, receive batches of {BATCH}");
    for producers in [1u64, 2, 4, 8] {
        println!("-- {producers} producer(s)");
        let run = |wake: Wake, f: fn(Wake, u64, u64) -> Duration, name: &str| {
            let messages = if wake == Wake::Every {
                messages / 10
            } else {
                messages
            };
            let per = messages / producers;
            report(
                &format!("{name} {wake:?}"),
                per * producers,
                f(wake, producers, per),
            );
        };
        for wake in [Wake::Spin, Wake::Edge, Wake::Every] {
            run(wake, sharded, "sharded");
        }
        for wake in [Wake::Spin, Wake::Edge, Wake::Every] {
            run(wake, vyukov_queue, "vyukov");
        }
        let per = messages / producers;
        report(
            "std mpsc (unbounded)",
            per * producers,
            std_mpsc(producers, per),
        );
    }
}
