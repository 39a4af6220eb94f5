//! What `Wait::Block` costs a ring that streams without ever sleeping, before and after the
//! process's first sleep, timed in bulk between two pinned threads.
//!
//! ```text
//! cargo run -p handoff-spsc --release --example block_cost [repetitions]
//! ```
//!
//! With `Wait::Block` every push and pop ends with the waker's half of the wake-up handshake
//! (`Waiter::notify`): a look at the process-wide barrier state, the barrier it calls for, and a
//! load of the other side's sleep flag. The process registers for `membarrier` only at its
//! first sleep, but the first notify asks the kernel (without side effect) whether it could,
//! and from then on the waker's barrier is a compiler fence: before this, a ring whose sides
//! had not slept yet paid a full fence per message. This streams [`MESSAGES`] `u64`s through
//! 1024 slots with `try_push` and `try_pop` in spin loops (which never sleep, so the state stays
//! as it is) on a `SpinThenYield` ring and on a `Block` ring, interleaved repetition by
//! repetition, first before any sleep (state `available`), then after one forced sleep
//! (`asymmetric`), and prints each as messages per second and the per-repetition ratio
//! Block / SpinThenYield.

mod support;

use handoff_spsc::{__barrier as barrier, channel, Wait};
use std::thread;
use std::time::Duration;
use support::{quartiles, spin_stream};

const MESSAGES: u64 = 20_000_000;
const CAPACITY: usize = 1024;

fn stream(cores: &[core_affinity::CoreId], wait: Wait) -> f64 {
    let (mut tx, mut rx) = channel::<u64>(CAPACITY, wait).expect("capacity");
    spin_stream(
        cores,
        MESSAGES,
        move || rx.try_pop().ok(),
        move |i| tx.try_push(i).is_ok(),
    )
}

fn phase(cores: &[core_affinity::CoreId], repetitions: usize) {
    let (mut spin, mut block, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repetitions {
        let s = stream(cores, Wait::SpinThenYield);
        let b = stream(cores, Wait::Block);
        spin.push(s);
        block.push(b);
        ratios.push(b / s);
    }
    println!("process barrier state: {}", barrier::state());
    for (name, v) in [("spin-then-yield", spin), ("block", block)] {
        let [q1, m, q3] = quartiles(v);
        println!("  {name:>15}: median {m:7.1} M msgs/s (quartiles {q1:.1} – {q3:.1})");
    }
    let [q1, m, q3] = quartiles(ratios);
    println!(
        "  block / spin-then-yield, per repetition: median {m:.2}× (quartiles {q1:.2} – {q3:.2})"
    );
}

/// One sleep of a `Block` consumer, which registers the process.
fn force_a_sleep() {
    let (mut tx, mut rx) = channel::<u64>(4, Wait::Block).expect("capacity");
    let producer = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        tx.push(1).expect("consumer alive");
    });
    assert_eq!(rx.pop(), Some(1));
    producer.join().expect("producer");
}

fn main() {
    let repetitions = support::repetitions(11);
    let cores = support::cores();
    phase(&cores, repetitions);
    force_a_sleep();
    phase(&cores, repetitions);
}
