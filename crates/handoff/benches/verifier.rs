//! The verifier's own cost per message, single-threaded, for each payload shape: build a stream
//! of messages once, then time `Verifier::observe` over it one message at a time, and
//! `Stream::observe_run` over it in runs of [`RUN`] (as a batch consumer that reads runs in place
//! checks them), and, for reference, a loop that only sums the messages' sequence numbers.
//! These columns stream through an array far larger than the caches, as a consumer reading
//! fresh messages does; the last column checks runs of a window that stays in the L2 cache
//! ([`RESIDENT_BYTES`]), a fresh verifier per pass, to show the check's own cost apart from
//! the memory's.
//!
//! Run: `cargo bench -p handoff --bench verifier`.

use handoff::message::Message;
use handoff::payload::PayloadKind;
use handoff::semantics::Ordering;
use handoff::verify::Verifier;
use std::time::Instant;

/// Messages per run in the run-wise column (the batch size of the benchmarks in BENCHMARKS.md).
const RUN: usize = 256;
/// Bytes of messages in the cache-resident column's window.
const RESIDENT_BYTES: usize = 256 * 1024;
/// Passes over the window per repetition of the cache-resident column.
const RESIDENT_PASSES: usize = 64;

/// Best ns per message of verifying `window` run-wise, again and again, with a fresh verifier
/// for each pass (its setup and verdict are timed too, a small share of a pass).
fn resident<M: Message>(window: &[M]) -> f64 {
    let n = window.len() as u64;
    let mut best = f64::MAX;
    for _ in 0..7 {
        let start = Instant::now();
        for _ in 0..RESIDENT_PASSES {
            let mut v = Verifier::new(1, n, Ordering::PerProducerFifo, 1);
            {
                let mut s = v.stream();
                for run in std::hint::black_box(window).chunks(RUN) {
                    s.observe_run(run);
                }
            }
            let verdict = v.finish();
            assert_eq!((verdict.count, verdict.violation), (n, None));
        }
        best = best.min(start.elapsed().as_nanos() as f64 / (n as f64 * RESIDENT_PASSES as f64));
    }
    best
}

fn measure<M: Message>(kind: PayloadKind, n: u64) {
    // Built in the payload's own form: a boxed body of `kind`'s length, not the default one.
    let form = M::form(kind);
    let msgs: Vec<M> = (0..n).map(|s| M::build_in(form, 0, s)).collect();
    let mut best_verify = f64::MAX;
    let mut best_touch = f64::MAX;
    let mut best_runs = f64::MAX;
    for _ in 0..7 {
        // The slice is hidden from the optimiser once, not each message: a barrier per message
        // would cost more than the check it surrounds and leave nothing in registers.
        let start = Instant::now();
        let mut sum = 0u64;
        for m in std::hint::black_box(&msgs[..]) {
            sum = sum.wrapping_add(m.seq());
        }
        std::hint::black_box(sum);
        best_touch = best_touch.min(start.elapsed().as_nanos() as f64 / n as f64);

        let mut v = Verifier::new(1, n, Ordering::PerProducerFifo, 1);
        let start = Instant::now();
        {
            let mut s = v.stream();
            for m in std::hint::black_box(&msgs[..]) {
                s.observe(m);
            }
        }
        let verdict = v.finish();
        best_verify = best_verify.min(start.elapsed().as_nanos() as f64 / n as f64);
        assert!(verdict.violation.is_none());
        assert_eq!(verdict.count, n);

        let mut v = Verifier::new(1, n, Ordering::PerProducerFifo, 1);
        let start = Instant::now();
        {
            let mut s = v.stream();
            for run in std::hint::black_box(&msgs[..]).chunks(RUN) {
                s.observe_run(run);
            }
        }
        let runs = v.finish();
        best_runs = best_runs.min(start.elapsed().as_nanos() as f64 / n as f64);
        assert_eq!(runs, verdict, "runs and single messages disagree");
    }
    let window = (RESIDENT_BYTES / std::mem::size_of::<M>()).clamp(RUN, msgs.len());
    let best_resident = resident(&msgs[..window]);
    println!(
        "{:<16} {:>10.2} {:>12.2} {:>10.2} {:>14.2} {:>12.2}",
        kind.to_string(),
        best_touch,
        best_verify,
        best_verify - best_touch,
        best_runs,
        best_resident
    );
}

fn main() {
    println!(
        "{:<16} {:>10} {:>12} {:>10} {:>14} {:>12}   (ns per message, best of 7)",
        "payload", "read seq", "verify", "extra", "verify in runs", "runs in L2"
    );
    let mut kinds = PayloadKind::all();
    kinds.push(PayloadKind::U64);
    for kind in kinds {
        let n = if kind.wire_bytes() > 256 || matches!(kind, PayloadKind::Boxed(_)) {
            200_000
        } else {
            2_000_000
        };
        handoff::with_payload!(kind, M => measure::<M>(kind, n));
    }
}
