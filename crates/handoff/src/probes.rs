//! Limit probes: what the machine itself can do between two cores, measured in the same run as
//! the transports so each result can be shown next to its physical limit.
//!
//! * **Cache-line round trip** — two threads on two cores bounce one cache line: A writes `i`,
//!   B waits for it and writes `i + 1`, A waits for that. No transport's ping-pong can beat this.
//!   It is measured twice: timed in bulk (the hardware's figure), and with each round trip
//!   stamped by the [`RoundTripTimer`] exactly as the ping-pong workload stamps its round trips
//!   (the yardstick a ping-pong percentile is compared with: both carry the timer's cost and
//!   step). The timer's step is recorded next to them.
//! * **Streaming bandwidth** — a producer fills a ring of cache lines, each published by a
//!   sequence word in the line itself; the consumer waits on each line's sequence and reads the
//!   line. The producer re-reads the consumer's position only once per half ring. This is the
//!   least protocol with which data can stream across cores, so a 1->1 stream of N-byte messages
//!   cannot move more than `bandwidth / N` messages per second.

use crate::histogram;
use crate::placement;
use crate::round_trip_timer::RoundTripTimer;
use crate::stats::Summary;
use crossbeam_utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

/// The limits measured in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Cache-line round trip between two cores, nanoseconds (per repetition), timed in bulk.
    pub cacheline_rtt_ns: Summary,
    /// The same round trip with each one stamped by the [`RoundTripTimer`], as the ping-pong
    /// workload stamps its round trips: the median round trip of each repetition, nanoseconds.
    /// Absent from reports written before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cacheline_rtt_stamped_ns: Option<Summary>,
    /// The [`RoundTripTimer`]'s step, nanoseconds ([`RoundTripTimer::step_ns`]): latency
    /// percentiles are not resolved more finely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_step_ns: Option<f64>,
    /// Streaming bandwidth between two cores, bytes per second (per repetition).
    pub stream_bytes_per_s: Summary,
    /// Cores the probes ran on.
    pub cores: Vec<usize>,
    /// Whether the two probe threads were pinned to distinct cores.
    pub pinned: bool,
    /// Anything that weakens the figures (e.g. only one core available).
    pub note: Option<String>,
}

impl Limits {
    /// The limit on a round trip: the best repetition (noise on a shared machine only ever makes
    /// a repetition slower, so the fastest one is the closest to what the hardware can do).
    pub fn rtt_ns(&self) -> f64 {
        self.cacheline_rtt_ns.min
    }

    /// The limit a stamped round-trip percentile is compared with: the best repetition's median
    /// stamped round trip, if it was measured.
    pub fn rtt_stamped_ns(&self) -> Option<f64> {
        self.cacheline_rtt_stamped_ns.as_ref().map(|s| s.min)
    }

    /// The limit on streaming: the best repetition, in bytes per second.
    pub fn stream_bytes(&self) -> f64 {
        self.stream_bytes_per_s.max
    }

    /// The most messages per second a 1->1 stream of `bytes`-byte messages could move.
    pub fn stream_msgs_per_s(&self, bytes: usize) -> f64 {
        self.stream_bytes() / bytes.max(1) as f64
    }
}

/// How long the probes run.
#[derive(Clone, Copy, Debug)]
pub struct ProbeBudget {
    /// Repetitions of each probe.
    pub repetitions: usize,
    /// Round trips per repetition.
    pub round_trips: u64,
    /// Cache lines streamed per repetition.
    pub lines: u64,
}

impl ProbeBudget {
    /// The default budget (about half a second in all).
    pub const DEFAULT: ProbeBudget = ProbeBudget {
        repetitions: 7,
        round_trips: 100_000,
        lines: 4_000_000,
    };
    /// The quick budget.
    pub const QUICK: ProbeBudget = ProbeBudget {
        repetitions: 3,
        round_trips: 30_000,
        lines: 1_000_000,
    };
}

/// Runs both probes.
pub fn measure(budget: ProbeBudget) -> Limits {
    let plan = placement::plan(2, true);
    let mut note = plan.placement.note.clone();
    if plan.placement.cores_available < 2 {
        note = Some("only one core available: probes measure same-core hand-off".into());
    }
    let mut rtt = Vec::new();
    let mut stamped = Vec::new();
    let mut bw = Vec::new();
    for _ in 0..budget.repetitions {
        rtt.push(round_trip(&plan, budget.round_trips));
        stamped.push(stamped_round_trip(&plan, budget.round_trips));
        bw.push(stream(&plan, budget.lines));
    }
    Limits {
        cacheline_rtt_ns: Summary::of(&rtt).expect("at least one repetition"),
        cacheline_rtt_stamped_ns: Summary::of(&stamped),
        clock_step_ns: RoundTripTimer::new().step_ns(STEP_PAIRS),
        stream_bytes_per_s: Summary::of(&bw).expect("at least one repetition"),
        cores: plan.placement.cores.clone(),
        pinned: plan.placement.pinned,
        note,
    }
}

fn spawn_pair<A, B>(plan: &placement::Plan, a: A, b: B) -> (f64, f64)
where
    A: FnOnce() -> f64 + Send + 'static,
    B: FnOnce() -> f64 + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(2));
    let (ca, cb) = (
        plan.cores.first().copied().flatten(),
        plan.cores.get(1).copied().flatten(),
    );
    let b1 = barrier.clone();
    let ta = thread::spawn(move || {
        placement::apply(ca);
        b1.wait();
        a()
    });
    let tb = thread::spawn(move || {
        placement::apply(cb);
        barrier.wait();
        b()
    });
    (
        ta.join().expect("probe thread"),
        tb.join().expect("probe thread"),
    )
}

/// The pinger's half of round trip `i` on the bounced line: write the request (odd), wait for
/// the reply (even).
#[inline(always)]
fn ping(line: &AtomicU64, i: u64) {
    line.store(2 * i + 1, Ordering::Release);
    while line.load(Ordering::Acquire) != 2 * i + 2 {
        std::hint::spin_loop();
    }
}

/// The ponger's side of `n` round trips on the bounced line: wait for each request, reply.
fn pong(line: &AtomicU64, n: u64) {
    for i in 0..n {
        while line.load(Ordering::Acquire) != 2 * i + 1 {
            std::hint::spin_loop();
        }
        line.store(2 * i + 2, Ordering::Release);
    }
}

/// One repetition of the cache-line round trip; returns ns per round trip.
fn round_trip(plan: &placement::Plan, n: u64) -> f64 {
    let line = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let l2 = line.clone();
    let (ns, _) = spawn_pair(
        plan,
        move || {
            let start = Instant::now();
            for i in 0..n {
                ping(&line, i);
            }
            start.elapsed().as_nanos() as f64 / n as f64
        },
        move || {
            pong(&l2, n);
            0.0
        },
    );
    ns
}

/// Pairs of readings behind the timer's step (well under a millisecond).
const STEP_PAIRS: u32 = 20_000;

/// One repetition of the cache-line round trip with every round trip stamped as the ping-pong
/// workload stamps it (a reading before the store, the elapsed time once the reply is seen,
/// recorded in a full histogram); returns the median round trip in ns.
fn stamped_round_trip(plan: &placement::Plan, n: u64) -> f64 {
    let line = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let l2 = line.clone();
    let mut hist = histogram::new();
    let (p50, _) = spawn_pair(
        plan,
        move || {
            let timer = RoundTripTimer::new();
            for i in 0..n {
                let t0 = timer.stamp();
                ping(&line, i);
                histogram::record(&mut hist, timer.elapsed_ns(t0));
            }
            hist.value_at_quantile(0.5) as f64
        },
        move || {
            pong(&l2, n);
            0.0
        },
    );
    p50
}

/// A cache line: a publication sequence and 56 bytes of data.
#[repr(C, align(64))]
struct Line {
    seq: AtomicU64,
    data: [AtomicU64; 7],
}

const RING_LINES: u64 = 1024;

/// One repetition of the streaming probe; returns bytes per second.
fn stream(plan: &placement::Plan, lines: u64) -> f64 {
    let ring: Arc<Vec<Line>> = Arc::new(
        (0..RING_LINES)
            .map(|_| Line {
                seq: AtomicU64::new(0),
                data: Default::default(),
            })
            .collect(),
    );
    let consumed = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let (r2, c2) = (ring.clone(), consumed.clone());
    let (start_ns, elapsed) = spawn_pair(
        plan,
        move || {
            let start = Instant::now();
            let mut limit = RING_LINES;
            for i in 0..lines {
                if i >= limit {
                    // Re-read the consumer's position only when the ring looks full.
                    loop {
                        limit = consumed.load(Ordering::Acquire) + RING_LINES;
                        if i < limit {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                }
                let line = &ring[(i % RING_LINES) as usize];
                for (j, d) in line.data.iter().enumerate() {
                    d.store(i ^ j as u64, Ordering::Relaxed);
                }
                line.seq.store(i + 1, Ordering::Release);
            }
            start.elapsed().as_nanos() as f64
        },
        move || {
            let start = Instant::now();
            let mut sum = 0u64;
            for i in 0..lines {
                let line = &r2[(i % RING_LINES) as usize];
                while line.seq.load(Ordering::Acquire) != i + 1 {
                    std::hint::spin_loop();
                }
                for d in &line.data {
                    sum = sum.wrapping_add(d.load(Ordering::Relaxed));
                }
                if i % (RING_LINES / 2) == RING_LINES / 2 - 1 {
                    c2.store(i + 1, Ordering::Release);
                }
            }
            std::hint::black_box(sum);
            start.elapsed().as_nanos() as f64
        },
    );
    let ns = start_ns.max(elapsed);
    lines as f64 * 64.0 / (ns / 1e9)
}
