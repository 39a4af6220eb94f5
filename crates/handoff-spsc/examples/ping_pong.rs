//! How close a ping-pong over two rings comes to what the hardware allows, timed in bulk (no
//! clock inside the loop: N round trips, one elapsed time).
//!
//! ```text
//! cargo run -p handoff-spsc --release --example ping_pong [repetitions]
//! ```
//!
//! Four ping-pongs between two pinned threads, interleaved repetition by repetition so that
//! drift on a shared machine hits all four:
//!
//! * **one line** — a single cache line that both threads write in turn (the `handoff`
//!   harness's cache-line round-trip probe): the least a round trip can cost;
//! * **two lines** — one line per direction, each written by one thread only: the least any
//!   pair of one-way channels can cost, since a request and its reply then live in two lines;
//! * **handoff-spsc** — a request ring and a reply ring, [`Wait::Spin`];
//! * **rtrb** — the same with two `rtrb` rings (a cached-index ring of the same design),
//!   polled in a spin loop.
//!
//! Each is reported as a multiple of *one line* (median and quartiles over the repetitions).

mod support;

use core_affinity::CoreId;
use crossbeam_utils::CachePadded;
use handoff_spsc::{channel, Wait};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use support::quartiles;

const ROUND_TRIPS: u64 = 200_000;

/// Runs `ping` and `pong` on two pinned threads; `ping`'s nanoseconds per round trip.
fn pair(
    cores: &[CoreId],
    ping: impl FnOnce() + Send + 'static,
    pong: impl FnOnce() + Send + 'static,
) -> f64 {
    support::pair(cores, ping, pong).as_nanos() as f64 / ROUND_TRIPS as f64
}

fn spin_until(a: &AtomicU64, value: u64) {
    while a.load(Ordering::Acquire) != value {
        std::hint::spin_loop();
    }
}

fn one_line(cores: &[CoreId]) -> f64 {
    let line = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let other = line.clone();
    pair(
        cores,
        move || {
            for i in 0..ROUND_TRIPS {
                line.store(2 * i + 1, Ordering::Release);
                spin_until(&line, 2 * i + 2);
            }
        },
        move || {
            for i in 0..ROUND_TRIPS {
                spin_until(&other, 2 * i + 1);
                other.store(2 * i + 2, Ordering::Release);
            }
        },
    )
}

fn two_lines(cores: &[CoreId]) -> f64 {
    let lines = Arc::new([
        CachePadded::new(AtomicU64::new(0)),
        CachePadded::new(AtomicU64::new(0)),
    ]);
    let other = lines.clone();
    pair(
        cores,
        move || {
            for i in 1..=ROUND_TRIPS {
                lines[0].store(i, Ordering::Release);
                spin_until(&lines[1], i);
            }
        },
        move || {
            for i in 1..=ROUND_TRIPS {
                spin_until(&other[0], i);
                other[1].store(i, Ordering::Release);
            }
        },
    )
}

fn rings(cores: &[CoreId]) -> f64 {
    let (mut request, mut requests) = channel::<u64>(1024, Wait::Spin).expect("capacity");
    let (mut reply, mut replies) = channel::<u64>(1024, Wait::Spin).expect("capacity");
    pair(
        cores,
        move || {
            for i in 0..ROUND_TRIPS {
                request.push(i).expect("ponger alive");
                assert_eq!(replies.pop(), Some(i));
            }
        },
        move || {
            while let Some(i) = requests.pop() {
                if reply.push(i).is_err() {
                    break;
                }
            }
        },
    )
}

fn rtrb_rings(cores: &[CoreId]) -> f64 {
    let (mut request, mut requests) = rtrb::RingBuffer::<u64>::new(1024);
    let (mut reply, mut replies) = rtrb::RingBuffer::<u64>::new(1024);
    pair(
        cores,
        move || {
            for i in 0..ROUND_TRIPS {
                while request.push(i).is_err() {
                    std::hint::spin_loop();
                }
                let got = loop {
                    match replies.pop() {
                        Ok(v) => break v,
                        Err(_) => std::hint::spin_loop(),
                    }
                };
                assert_eq!(got, i);
            }
        },
        move || {
            for _ in 0..ROUND_TRIPS {
                let got = loop {
                    match requests.pop() {
                        Ok(v) => break v,
                        Err(_) => std::hint::spin_loop(),
                    }
                };
                while reply.push(got).is_err() {
                    std::hint::spin_loop();
                }
            }
        },
    )
}

fn main() {
    let repetitions = support::repetitions(25);
    let cores = support::cores();
    let mut line_ns = Vec::new();
    let mut two = Vec::new();
    let mut ring = Vec::new();
    let mut peer = Vec::new();
    for _ in 0..repetitions {
        // One line before and after the others, so that its figure brackets theirs in time.
        let before = one_line(&cores);
        two.push(two_lines(&cores));
        ring.push(rings(&cores));
        peer.push(rtrb_rings(&cores));
        let line = (before + one_line(&cores)) / 2.0;
        line_ns.push(line);
        for v in [&mut two, &mut ring, &mut peer] {
            *v.last_mut().unwrap() /= line;
        }
    }
    let [q1, m, q3] = quartiles(line_ns);
    println!("{repetitions} repetitions of {ROUND_TRIPS} round trips, timed in bulk");
    println!(
        "{:<14} {m:>6.1} ns per round trip (quartiles {q1:.1}–{q3:.1})",
        "one line"
    );
    for (name, ratios) in [("two lines", two), ("handoff-spsc", ring), ("rtrb", peer)] {
        let [q1, m, q3] = quartiles(ratios);
        println!("{name:<14} {m:>6.2}× one line (quartiles {q1:.2}–{q3:.2})");
    }
}
