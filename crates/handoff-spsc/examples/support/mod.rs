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

/// First quartile, median and third quartile.
pub fn quartiles(mut v: Vec<f64>) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    [v[v.len() / 4], v[v.len() / 2], v[3 * v.len() / 4]]
}
