//! Many producers, one consumer: each worker thread reports events through its own sender; the
//! consumer aggregates them and checks that every worker's events arrived complete and in order.
//!
//! ```text
//! cargo run -p handoff-mpsc --example ingress [workers]
//! ```

use handoff_mpsc::{channel, Wake};
use std::thread;

#[derive(Debug)]
struct Event {
    worker: usize,
    seq: u64,
    latency_us: u32,
}

fn main() -> Result<(), handoff_mpsc::CapacityError> {
    let workers: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(8);
    const EVENTS: u64 = 100_000;

    // Each worker gets a ring of 1024 events; the consumer sleeps when all are empty and is
    // woken only when a worker finds it asleep.
    let (tx, mut rx) = channel::<Event>(1024, Wake::Edge)?;
    let handles: Vec<_> = (0..workers)
        .map(|worker| {
            let mut tx = tx.clone();
            thread::spawn(move || {
                for seq in 0..EVENTS {
                    let latency_us = ((seq * 7919 + worker as u64) % 1000) as u32;
                    if tx
                        .send(Event {
                            worker,
                            seq,
                            latency_us,
                        })
                        .is_err()
                    {
                        return; // the consumer is gone
                    }
                }
            })
        })
        .collect();
    drop(tx);

    let mut next_seq = vec![0u64; workers];
    let mut worst = vec![0u32; workers];
    // Drain in batches; the receiver takes turns over the workers' rings.
    while rx.recv_batch(256, |e| {
        assert_eq!(
            e.seq, next_seq[e.worker],
            "events of worker {} out of order",
            e.worker
        );
        next_seq[e.worker] += 1;
        worst[e.worker] = worst[e.worker].max(e.latency_us);
    }) > 0
    {}
    for h in handles {
        h.join().expect("worker panicked");
    }

    for (worker, (&n, &w)) in next_seq.iter().zip(&worst).enumerate() {
        assert_eq!(n, EVENTS);
        println!("worker {worker}: {n} events, worst latency {w} us");
    }
    Ok(())
}
