//! Whether where a user keeps the two handles can slow the ring, timed in bulk between two
//! pinned threads.
//!
//! ```text
//! cargo run -p handoff-spsc --release --example handle_placement [repetitions]
//! ```
//!
//! Each side of the ring writes its own position into its handle on every message. If the
//! producer's and the consumer's handles shared a cache line, every message would move that
//! line between the cores on top of the slot's: false sharing decided by where the user's
//! program happens to put the handles (two closures boxed one after the other, two fields of one
//! struct), not by the ring. The handles are therefore aligned to whole cache-line pairs (see
//! `Producer`), so that no placement can put them on one line. This example checks it:
//!
//! * **apart** — the two handles a page apart;
//! * **adjacent** — both handles in one `#[repr(C)]` struct, back to back, the closest a program
//!   can put them;
//! * **rtrb adjacent** — rtrb's two handles placed the same way, for context (its handles hold
//!   only cached copies of the other side's index, written when they are refreshed).
//!
//! Each streams [`MESSAGES`] `u64`s through 1024 slots with `try_push` / `try_pop` in spin loops
//! (the consumer checks the order); the two run interleaved, repetition by repetition. It prints
//! the handles' size and alignment, each placement's quartiles in messages per second, and the
//! median of the per-repetition ratios adjacent / apart.

mod support;

use core_affinity::CoreId;
use handoff_spsc::{channel, Consumer, Producer, Wait};
use support::{quartiles, spin_stream};

const MESSAGES: u64 = 20_000_000;
const CAPACITY: usize = 1024;

/// Both handles back to back, as close as a program can put them.
#[repr(C)]
struct Adjacent {
    producer: Producer<u64>,
    consumer: Consumer<u64>,
}

/// The two handles a page apart, in one allocation (two separate boxes of the same size can
/// well be neighbours).
#[repr(C)]
struct Apart {
    producer: Producer<u64>,
    _gap: [u8; 4096],
    consumer: Consumer<u64>,
}

/// rtrb's handles back to back.
#[repr(C)]
struct RtrbAdjacent {
    producer: rtrb::Producer<u64>,
    consumer: rtrb::Consumer<u64>,
}

/// Streams through `producer` and `consumer` on two pinned threads; messages per second, in
/// millions.
fn stream(cores: &[CoreId], producer: &mut Producer<u64>, consumer: &mut Consumer<u64>) -> f64 {
    spin_stream(
        cores,
        MESSAGES,
        || consumer.try_pop().ok(),
        |i| producer.try_push(i).is_ok(),
    )
}

fn apart(cores: &[CoreId]) -> f64 {
    let (producer, consumer) = channel::<u64>(CAPACITY, Wait::Spin).expect("capacity");
    let mut both = Box::new(Apart {
        producer,
        _gap: [0; 4096],
        consumer,
    });
    let Apart {
        producer, consumer, ..
    } = &mut *both;
    stream(cores, producer, consumer)
}

fn adjacent(cores: &[CoreId]) -> f64 {
    let (producer, consumer) = channel::<u64>(CAPACITY, Wait::Spin).expect("capacity");
    let mut both = Box::new(Adjacent { producer, consumer });
    let Adjacent { producer, consumer } = &mut *both;
    stream(cores, producer, consumer)
}

fn rtrb_adjacent(cores: &[CoreId]) -> f64 {
    let (producer, consumer) = rtrb::RingBuffer::<u64>::new(CAPACITY);
    let mut both = Box::new(RtrbAdjacent { producer, consumer });
    let RtrbAdjacent { producer, consumer } = &mut *both;
    spin_stream(
        cores,
        MESSAGES,
        || consumer.pop().ok(),
        |i| producer.push(i).is_ok(),
    )
}

fn main() {
    let repetitions = support::repetitions(15);
    let cores = support::cores();
    println!(
        "handles: Producer {} B aligned to {} B, Consumer {} B aligned to {} B; {} u64 per repetition, capacity {CAPACITY}",
        std::mem::size_of::<Producer<u64>>(),
        std::mem::align_of::<Producer<u64>>(),
        std::mem::size_of::<Consumer<u64>>(),
        std::mem::align_of::<Consumer<u64>>(),
        MESSAGES,
    );
    let (mut a, mut b, mut r, mut ratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repetitions {
        let x = apart(&cores);
        let y = adjacent(&cores);
        a.push(x);
        b.push(y);
        r.push(rtrb_adjacent(&cores));
        ratios.push(y / x);
    }
    let show = |name: &str, v: Vec<f64>| {
        let [q1, m, q3] = quartiles(v);
        println!("{name:>10}: median {m:7.1} M msgs/s (quartiles {q1:.1} – {q3:.1})");
    };
    show("apart", a);
    show("adjacent", b);
    show("rtrb adj.", r);
    let [q1, m, q3] = quartiles(ratios);
    println!("adjacent / apart, per repetition: median {m:.2}× (quartiles {q1:.2} – {q3:.2})");
}
