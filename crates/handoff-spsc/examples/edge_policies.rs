//! Whether the ring one message at a time would stream faster if its two sides met less often
//! at the edges, timed in bulk between two pinned threads.
//!
//! ```text
//! cargo run -p handoff-spsc --release --example edge_policies [repetitions]
//! ```
//!
//! When a consumer keeps up with its producer, it reads the line the producer is writing and
//! each message can move a line between the cores; when it falls behind, the producer waits at
//! a full ring and writes into the line the consumer is reading. Two policies that keep the
//! sides a few lines apart, built on the public API, are set against the plain ring:
//!
//! * **plain** — `push` and `pop` with [`Wait::Spin`];
//! * **consumer slips** — after a pop finds the ring empty, the consumer polls until a line's
//!   worth of messages ([`SLIP`]) is ready, at most [`POLLS`] times;
//! * **producer gathers room** — after a push finds the ring full, the producer polls until
//!   [`ROOM`] slots are free, at most [`POLLS`] times;
//! * **rtrb** — a cached-index ring of the same design, polled in a spin loop.
//!
//! Each streams [`MESSAGES`] `u64`s through a ring of 1024 slots; the consumer checks the order
//! and sums. The four run interleaved, repetition by repetition, and each is reported in
//! messages per second and as a multiple of the plain ring in the same repetition.

mod support;

use core_affinity::CoreId;
use handoff_spsc::{channel, Consumer, Producer, TryPopError, Wait};
use support::{pair, quartiles};

const MESSAGES: u64 = 20_000_000;
const CAPACITY: usize = 1024;
/// Messages a slipping consumer waits for: one 64-byte line of `u64`s.
const SLIP: usize = 8;
/// Free slots a gathering producer waits for: two lines.
const ROOM: usize = 16;
/// The bound on either wait, so that a lone message or a slow peer is never held for long.
const POLLS: u32 = 64;

/// Streams through a fresh handoff-spsc ring with the given producer and consumer loops;
/// millions of messages per second, timed on the consumer.
fn ring(cores: &[CoreId], produce: fn(Producer<u64>), consume: fn(Consumer<u64>) -> u64) -> f64 {
    let (tx, rx) = channel::<u64>(CAPACITY, Wait::Spin).expect("capacity");
    let elapsed = pair(
        cores,
        move || assert_eq!(consume(rx), MESSAGES, "messages delivered"),
        move || produce(tx),
    );
    MESSAGES as f64 / elapsed.as_secs_f64() / 1e6
}

/// Checks that `value` is the `n`-th message and folds it into `sum`.
#[inline(always)]
fn check(value: u64, n: u64, sum: &mut u64) {
    assert_eq!(value, n, "order");
    *sum = sum.wrapping_add(value);
}

fn push_all(mut tx: Producer<u64>) {
    for i in 0..MESSAGES {
        tx.push(i).expect("consumer alive");
    }
}

fn push_gathering_room(mut tx: Producer<u64>) {
    for i in 0..MESSAGES {
        let mut value = i;
        while let Err(refused) = tx.try_push(value) {
            assert!(refused.is_full(), "consumer alive");
            value = refused.into_inner();
            let mut polls = 0;
            while tx.slots() < ROOM && polls < POLLS {
                polls += 1;
                std::hint::spin_loop();
            }
        }
    }
}

fn pop_all(mut rx: Consumer<u64>) -> u64 {
    let (mut n, mut sum) = (0, 0);
    while let Some(v) = rx.pop() {
        check(v, n, &mut sum);
        n += 1;
    }
    std::hint::black_box(sum);
    n
}

fn pop_slipping(mut rx: Consumer<u64>) -> u64 {
    let (mut n, mut sum) = (0, 0);
    loop {
        match rx.try_pop() {
            Ok(v) => {
                check(v, n, &mut sum);
                n += 1;
            }
            Err(TryPopError::Disconnected) => break,
            Err(TryPopError::Empty) => {
                let mut polls = 0;
                while rx.slots() < SLIP && polls < POLLS {
                    polls += 1;
                    std::hint::spin_loop();
                }
            }
        }
    }
    std::hint::black_box(sum);
    n
}

fn rtrb_ring(cores: &[CoreId]) -> f64 {
    let (tx, rx) = rtrb::RingBuffer::<u64>::new(CAPACITY);
    let elapsed = pair(cores, move || rtrb_pop_all(rx), move || rtrb_push_all(tx));
    MESSAGES as f64 / elapsed.as_secs_f64() / 1e6
}

fn rtrb_push_all(mut tx: rtrb::Producer<u64>) {
    for i in 0..MESSAGES {
        while tx.push(i).is_err() {
            std::hint::spin_loop();
        }
    }
}

fn rtrb_pop_all(mut rx: rtrb::Consumer<u64>) {
    let mut sum = 0;
    for n in 0..MESSAGES {
        let v = loop {
            match rx.pop() {
                Ok(v) => break v,
                Err(_) => std::hint::spin_loop(),
            }
        };
        check(v, n, &mut sum);
    }
    std::hint::black_box(sum);
}

fn main() {
    let repetitions = support::repetitions(15);
    let cores = support::cores();
    let names = ["plain", "consumer slips", "producer gathers room", "rtrb"];
    let mut rates: [Vec<f64>; 4] = Default::default();
    for _ in 0..repetitions {
        rates[0].push(ring(&cores, push_all, pop_all));
        rates[1].push(ring(&cores, push_all, pop_slipping));
        rates[2].push(ring(&cores, push_gathering_room, pop_all));
        rates[3].push(rtrb_ring(&cores));
    }
    println!(
        "{repetitions} repetitions of {MESSAGES} u64s through {CAPACITY} slots, timed in bulk"
    );
    for (name, series) in names.iter().zip(&rates) {
        let [q1, m, q3] = quartiles(series.clone());
        let ratios = series.iter().zip(&rates[0]).map(|(r, p)| r / p).collect();
        let [r1, rm, r3] = quartiles(ratios);
        println!(
            "{name:<22} {m:>6.0} M msgs/s (quartiles {q1:.0}–{q3:.0})  {rm:.2}× plain (quartiles {r1:.2}–{r3:.2})"
        );
    }
}
