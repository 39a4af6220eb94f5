//! Does handoff measure what a plain hand-written loop measures, and what does verification cost?
//!
//! For each transport below, three variants run interleaved (A B C A B C …) with the same
//! messages, capacity and payload (`u64`), both threads pinned to distinct cores:
//!
//! * `plain` — a hand-written loop on the transport's own API: spawn, barrier, the
//!   producer sends `0..N`, the consumer receives N messages and sums them;
//! * `plain+verify` — the same loop with handoff's verifier called on every message;
//! * `handoff` — handoff's own engine (`Runner::run_sample`, in process).
//!
//! It prints each variant's median messages/s and two ratios per transport:
//! `handoff / plain` (should be within 10%) and `plain+verify / plain` (verification cost,
//! should be under 5% on the fastest 1->1 transport).
//!
//! Run: `cargo bench -p handoff --bench agreement` (optionally `-- <messages> <rounds>`).

use handoff::message::Message;
use handoff::payload::{PayloadKind, Word};
use handoff::semantics::Ordering;
use handoff::verify::Verifier;
use handoff::workload::{Messages, TrialSpec, WorkloadKind};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

const CAPACITY: usize = 1024;

fn cores() -> (Option<core_affinity::CoreId>, Option<core_affinity::CoreId>) {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    (ids.first().copied(), ids.get(1).copied())
}

/// A plain two-thread stream: `send(i)` for i in 0..n on one core, `recv()` n times on another.
/// Returns messages per second, timed from the barrier to the last receive.
fn plain<S, R, FS, FR>(
    n: u64,
    verify: bool,
    make: impl FnOnce() -> (S, R),
    send: FS,
    recv: FR,
) -> f64
where
    S: Send + 'static,
    R: Send + 'static,
    // Generic (not `fn` pointers) so the calls inline into the loops exactly as the harness's do.
    FS: Fn(&mut S, Word) + Send + 'static,
    FR: Fn(&mut R) -> Word + Send + 'static,
{
    let (mut tx, mut rx) = make();
    let (c0, c1) = cores();
    let barrier = Arc::new(Barrier::new(2));
    let b2 = barrier.clone();
    let mut verifier = Verifier::new(1, n, Ordering::PerProducerFifo, 1);
    let consumer = thread::spawn(move || {
        if let Some(c) = c0 {
            core_affinity::set_for_current(c);
        }
        b2.wait();
        let start = Instant::now();
        let mut sum = 0u64;
        if verify {
            {
                let mut s = verifier.stream();
                for _ in 0..n {
                    let m = recv(&mut rx);
                    s.observe(&m);
                }
            }
            assert!(verifier.finish().violation.is_none());
        } else {
            for _ in 0..n {
                sum = sum.wrapping_add(recv(&mut rx).0);
            }
        }
        std::hint::black_box(sum);
        (start, Instant::now())
    });
    let producer = thread::spawn(move || {
        if let Some(c) = c1 {
            core_affinity::set_for_current(c);
        }
        barrier.wait();
        let start = Instant::now();
        for i in 0..n {
            send(&mut tx, Word::build(0, i));
        }
        start
    });
    let p_start = producer.join().unwrap();
    let (c_start, end) = consumer.join().unwrap();
    n as f64 / end.duration_since(p_start.min(c_start)).as_secs_f64()
}

fn spin_push(p: &mut rtrb::Producer<Word>, mut w: Word) {
    loop {
        match p.push(w) {
            Ok(()) => return,
            Err(rtrb::PushError::Full(back)) => {
                w = back;
                std::hint::spin_loop();
            }
        }
    }
}

fn spin_pop(c: &mut rtrb::Consumer<Word>) -> Word {
    loop {
        if let Ok(w) = c.pop() {
            return w;
        }
        std::hint::spin_loop();
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with('-')).collect();
    let n: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5_000_000);
    let rounds: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(11);
    let catalog = handoff_transports::builtin();
    println!(
        "messages per sample: {n}, capacity {CAPACITY}, payload u64, rounds {rounds} (interleaved)"
    );
    println!(
        "{:<20} {:>14} {:>14} {:>14} {:>16} {:>18}",
        "transport", "plain M/s", "plain+verify", "handoff", "handoff/plain", "verify cost"
    );

    type Variant = Box<dyn Fn(bool) -> f64>;
    let transports: Vec<(&str, Variant)> = vec![
        (
            "crossbeam-bounded",
            Box::new(move |verify| {
                plain(
                    n,
                    verify,
                    || crossbeam_channel::bounded::<Word>(CAPACITY),
                    |s, w| s.send(w).unwrap(),
                    |r| r.recv().unwrap(),
                )
            }),
        ),
        (
            "rtrb",
            Box::new(move |verify| {
                plain(
                    n,
                    verify,
                    || rtrb::RingBuffer::<Word>::new(CAPACITY),
                    spin_push,
                    spin_pop,
                )
            }),
        ),
        (
            "handoff-spsc",
            Box::new(move |verify| {
                plain(
                    n,
                    verify,
                    || handoff_spsc::channel::<Word>(CAPACITY, handoff_spsc::Wait::Spin).unwrap(),
                    |p, w| p.push(w).unwrap(),
                    |c| c.pop().unwrap(),
                )
            }),
        ),
    ];
    for (name, plain_run) in &transports {
        let Some(entry) = catalog.get(name) else {
            println!("{name:<20} (not in catalog)");
            continue;
        };
        let spec = TrialSpec {
            transport: name.to_string(),
            workload: WorkloadKind::Spsc,
            driver: Default::default(),
            payload: PayloadKind::U64,
            capacity: CAPACITY,
            producers: 1,
            consumers: 1,
            messages: Messages::Fixed(n),
            batch: None,
            options: Default::default(),
            samples: rounds,
            warmup: 1,
            timeout_ms: 60_000,
            pin: true,
            fresh_process: false,
            placement: Default::default(),
            pacing: Default::default(),
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        };
        // Warm-up of each variant.
        plain_run(false);
        plain_run(true);
        entry.runner().run_sample_with(&spec, n, catalog.drivers());
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(plain_run(false));
            b.push(plain_run(true));
            let o = entry.runner().run_sample_with(&spec, n, catalog.drivers());
            assert!(o.status.is_pass(), "{name}: {:?}", o.status);
            c.push(o.messages as f64 / (o.elapsed_ns as f64 / 1e9));
        }
        let (pa, pb, pc) = (median(&mut a), median(&mut b), median(&mut c));
        println!(
            "{name:<20} {:>14.1} {:>14.1} {:>14.1} {:>15.3}x {:>+17.1}%",
            pa / 1e6,
            pb / 1e6,
            pc / 1e6,
            pc / pa,
            (pa / pb - 1.0) * 100.0
        );
    }
}
