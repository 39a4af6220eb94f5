//! The lazy switch to asymmetric fences, exercised on real hardware: wakers already running at
//! full speed while the process's first sleep registers it, and sleeps and wake-ups going on
//! across the switch. Loom cannot model the switch (it has no barrier run on another thread's
//! behalf, see `barrier.rs`), so this stress test complements the written argument there: no
//! wake-up may be lost (the test would hang and trip its deadline) and every message arrives
//! exactly once, in order. (It runs in a process of its own: the state is the process's.)

use handoff_spsc::{__barrier as barrier, channel, Wait};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Rings running at once, each with its producer and consumer thread.
const RINGS: usize = 4;
/// Messages per ring.
const MESSAGES: u64 = 200_000;
/// How long the whole test may take before it counts as a lost wake-up.
const DEADLINE: Duration = Duration::from_secs(120);

/// A cheap deterministic sequence (xorshift), to vary the producers' pauses.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

pub fn wake_ups_survive_the_switch_to_asymmetric_fences() {
    assert_eq!(
        barrier::state(),
        "unknown",
        "nothing notified or slept before this test"
    );
    let (done_tx, done_rx) = mpsc::channel();
    let mut threads = Vec::new();
    for ring in 0..RINGS {
        // Small rings, so that both sides keep meeting the full and the empty edge.
        let (mut tx, mut rx) = channel::<u64>(4, Wait::Block).unwrap();
        threads.push(thread::spawn(move || {
            let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (ring as u64 + 1);
            for i in 0..MESSAGES {
                tx.push(i).unwrap();
                // Now and then a pause long enough for the consumer to fall asleep; the first
                // such sleep in the process registers it while the other rings run flat out.
                let r = next(&mut seed);
                if r % 4096 == 0 {
                    thread::sleep(Duration::from_micros(200 + r % 800));
                } else if r % 64 == 0 {
                    thread::yield_now();
                }
            }
        }));
        let done = done_tx.clone();
        threads.push(thread::spawn(move || {
            let mut seed = 0xD1B5_4A32_D192_ED03 ^ (ring as u64 + 1);
            let mut expected = 0;
            while let Some(v) = rx.pop() {
                assert_eq!(v, expected, "ring {ring}: order");
                expected += 1;
                // The consumer pauses too, so the producer sleeps on a full ring as well.
                if next(&mut seed) % 8192 == 0 {
                    thread::sleep(Duration::from_micros(300));
                }
            }
            done.send((ring, expected)).unwrap();
        }));
    }
    drop(done_tx);
    let start = Instant::now();
    let mut received = [0u64; RINGS];
    for _ in 0..RINGS {
        let left = DEADLINE.saturating_sub(start.elapsed());
        let (ring, n) = done_rx
            .recv_timeout(left)
            .expect("a ring stalled: a wake-up was lost across the switch");
        received[ring] = n;
    }
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(received, [MESSAGES; RINGS], "every message of every ring");
    match barrier::state() {
        "asymmetric" => assert_eq!(barrier::registrations(), 1, "the process registered once"),
        // A kernel without expedited barriers: never asked to register.
        "symmetric" => assert_eq!(barrier::registrations(), 0),
        other => panic!("state {other} after sleeps"),
    }
}
