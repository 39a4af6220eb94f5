//! What the measuring examples share: two threads pinned to cores of their own and started
//! together, and the quartiles of their repetitions.

use core_affinity::CoreId;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

/// The number of repetitions given as the first argument, or `default` without one. A malformed
/// argument ends the program with a message and exit status 2.
pub fn repetitions(default: usize) -> usize {
    match std::env::args().nth(1) {
        None => default,
        Some(arg) => match arg.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("repetitions: expected a positive whole number, got {arg:?}");
                std::process::exit(2);
            }
        },
    }
}

/// The cores to pin to, with a word on stdout when there are not two of them (the figures are
/// then not cross-core).
pub fn cores() -> Vec<CoreId> {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    if cores.len() < 2 {
        println!("(fewer than two cores to pin to: the figures below are not cross-core)");
    }
    cores
}

/// Runs `timed` on one thread and `other` on another, each pinned to a core of its own (where
/// there are two), releases both at once, and returns how long `timed` took. The closures may
/// borrow from the caller (the threads are scoped).
pub fn pair(
    cores: &[CoreId],
    timed: impl FnOnce() + Send,
    other: impl FnOnce() + Send,
) -> Duration {
    let start_line = Barrier::new(2);
    let (a, b) = (cores.first().copied(), cores.get(1).copied());
    thread::scope(|s| {
        s.spawn(|| {
            if let Some(core) = b {
                core_affinity::set_for_current(core);
            }
            start_line.wait();
            other();
        });
        let timed = s.spawn(|| {
            if let Some(core) = a {
                core_affinity::set_for_current(core);
            }
            start_line.wait();
            let start = Instant::now();
            timed();
            start.elapsed()
        });
        timed.join().expect("timed thread")
    })
}

/// Streams `0..messages` from a producer thread to a consumer thread, pinned as [`pair`] pins
/// them, each retrying its non-waiting call in a spin loop (which never sleeps): `push` offers a
/// value and says whether it was taken, `pop` returns the next value if there is one. The
/// consumer checks the order and is the timed side; returns messages per second, in millions.
// Not every example streams.
#[allow(dead_code)]
pub fn spin_stream(
    cores: &[CoreId],
    messages: u64,
    mut pop: impl FnMut() -> Option<u64> + Send,
    mut push: impl FnMut(u64) -> bool + Send,
) -> f64 {
    // The closures are moved into the threads, as a program's own two loops would own their
    // handles.
    let elapsed = pair(
        cores,
        move || {
            for n in 0..messages {
                let value = loop {
                    match pop() {
                        Some(value) => break value,
                        None => std::hint::spin_loop(),
                    }
                };
                assert_eq!(value, n, "order");
            }
        },
        move || {
            for i in 0..messages {
                while !push(i) {
                    std::hint::spin_loop();
                }
            }
        },
    );
    messages as f64 / elapsed.as_secs_f64() / 1e6
}

/// First quartile, median and third quartile.
pub fn quartiles(mut v: Vec<f64>) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    [v[v.len() / 4], v[v.len() / 2], v[3 * v.len() / 4]]
}
