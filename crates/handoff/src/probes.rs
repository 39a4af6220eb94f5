//! Limit probes: what the machine itself can do between two cores, measured in the same run as
//! the transports so each result can be shown next to its physical limit.
//!
//! * **Cache-line round trip** — two threads on two cores bounce one cache line: A writes `i`,
//!   B waits for it and writes `i + 1`, A waits for that. No transport's ping-pong can beat this.
//!   It is measured twice: timed in bulk (the hardware's figure), and with each round trip
//!   stamped by the `RoundTripTimer` exactly as the ping-pong workload stamps its round trips
//!   (the yardstick a ping-pong percentile is compared with: both carry the timer's cost and
//!   step). The timer's step is recorded next to them.
//! * **Streaming bandwidth** — a producer fills a 64 KiB ring of cache lines with plain
//!   (vectorizable) stores and publishes them 32 lines (2 KiB) at a time with one store of its
//!   position; the consumer reads each published block with plain loads and publishes its own
//!   position once per block. Each side re-reads the other's position only when the ring looks
//!   full (producer) or every published block is read (consumer). Every byte of a line is data,
//!   and the protocol costs two position stores per 2 KiB, so a 1->1 stream of N-byte messages
//!   should not move more than `bandwidth / N` messages per second; a result over it is flagged
//!   (`beyond-limit`).
//!
//! Each probe runs several repetitions. The limit is the **median** of those kept, and a
//! repetition that disagrees with the rest is set aside, never the limit (see [`repetitions`]
//! for why the median and not the best one, and the rule that sets one aside).

pub use handoff_model::repetitions;

pub use repetitions::Repetitions;

use crate::histogram;
use crate::placement;
use crate::round_trip_timer::RoundTripTimer;
use crossbeam_utils::CachePadded;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

pub use handoff_model::limits::{Limits, RTT, RTT_STAMPED, STREAM};

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

/// Runs both probes (the round trip both ways), `budget.repetitions` times each, interleaved.
pub(crate) fn measure(budget: ProbeBudget) -> Limits {
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
        bw.push(stream(&plan, budget.lines, StreamGeometry::LIMIT));
    }
    let rtt = Repetitions::new(RTT, rtt);
    let stamped = Repetitions::new(RTT_STAMPED, stamped);
    let bw = Repetitions::new(STREAM, bw);
    Limits {
        at_s: None,
        cacheline_rtt_ns: rtt.summary().expect("at least one repetition"),
        cacheline_rtt_stamped_ns: stamped.summary(),
        clock_step_ns: RoundTripTimer::new().step_ns(STEP_PAIRS),
        stream_bytes_per_s: bw.summary().expect("at least one repetition"),
        cores: plan.placement.cores.clone(),
        pinned: plan.placement.pinned,
        note,
        repetitions: vec![rtt, stamped, bw],
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

/// One cache line of the streaming probe's ring: data only, written and read with plain
/// (vectorizable) accesses.
#[repr(C, align(64))]
struct DataLine(UnsafeCell<[u64; 8]>);

/// The streaming probe's ring and its two positions, each on a line of its own.
struct StreamRing {
    lines: Box<[DataLine]>,
    /// Lines published at once.
    block_lines: u64,
    /// Blocks written so far. Written by the producer only.
    published: CachePadded<AtomicU64>,
    /// Blocks read so far. Written by the consumer only.
    consumed: CachePadded<AtomicU64>,
}

// SAFETY: the lines are shared between the two probe threads, but never accessed by both at
// once: the producer writes block `k` only after the consumer has published (Release) that it is
// done with block `k - blocks in the ring`, and the consumer reads block `k` only after the
// producer has published (Release) that it wrote it; each side loads the other's position with
// Acquire.
unsafe impl Sync for StreamRing {}

impl StreamRing {
    fn blocks(&self) -> u64 {
        self.lines.len() as u64 / self.block_lines
    }

    /// The lines of block number `k` (counted from the start of the stream).
    fn block(&self, k: u64) -> &[DataLine] {
        let first = ((k % self.blocks()) * self.block_lines) as usize;
        &self.lines[first..first + self.block_lines as usize]
    }
}

/// The streaming probe's geometry: how much is in flight, and how much is published at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamGeometry {
    /// Bytes in the ring: a whole number of blocks.
    pub ring_bytes: usize,
    /// Bytes published with one position store: a whole number of 64-byte lines.
    pub block_bytes: usize,
}

impl StreamGeometry {
    /// The geometry of the limit every run measures: a 64 KiB ring, published 2 KiB at a time.
    pub const LIMIT: StreamGeometry = StreamGeometry {
        ring_bytes: 64 * 1024,
        block_bytes: 2 * 1024,
    };

    /// Checks that blocks are whole lines and the ring whole blocks.
    pub(crate) fn validate(self) -> Result<Self, GeometryError> {
        if self.block_bytes == 0 || self.block_bytes % 64 != 0 {
            return Err(GeometryError::Block(self.block_bytes));
        }
        if self.ring_bytes < self.block_bytes || self.ring_bytes % self.block_bytes != 0 {
            return Err(GeometryError::Ring {
                ring: self.ring_bytes,
                block: self.block_bytes,
            });
        }
        Ok(self)
    }
}

/// A [`StreamGeometry`] the streaming probe cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// The block is not a whole number of cache lines.
    #[error("block of {0} bytes: expected a positive multiple of 64 (whole cache lines)")]
    Block(usize),
    /// The ring is not a whole number of blocks.
    #[error("ring of {ring} bytes: expected a positive multiple of the block ({block} bytes)")]
    Ring {
        /// The ring's bytes.
        ring: usize,
        /// The block's bytes.
        block: usize,
    },
}

/// One repetition of the streaming probe with another geometry than the limit's, on the two
/// cores the limit probes use: bytes per second for a stream of at least `bytes`. Shows what
/// two cores can stream through a ring of a transport's own size and run length (see the
/// `stream_geometry` example).
pub fn stream_with(geometry: StreamGeometry, bytes: u64) -> Result<f64, GeometryError> {
    let geometry = geometry.validate()?;
    let plan = placement::plan(2, true);
    Ok(stream(&plan, bytes.div_ceil(64), geometry))
}

/// One repetition of the streaming probe over at least `lines` lines; returns bytes per second.
fn stream(plan: &placement::Plan, lines: u64, geometry: StreamGeometry) -> f64 {
    let block_lines = (geometry.block_bytes / 64) as u64;
    let blocks = lines.div_ceil(block_lines).max(1);
    let ring = Arc::new(StreamRing {
        lines: (0..geometry.ring_bytes / 64)
            .map(|_| DataLine(UnsafeCell::new([0; 8])))
            .collect(),
        block_lines,
        published: CachePadded::new(AtomicU64::new(0)),
        consumed: CachePadded::new(AtomicU64::new(0)),
    });
    let r2 = ring.clone();
    let (start_ns, elapsed) = spawn_pair(
        plan,
        move || {
            let start = Instant::now();
            let ring_blocks = ring.blocks();
            let mut room = ring_blocks;
            for k in 0..blocks {
                // Re-read the consumer's position only when the ring looks full.
                while k >= room {
                    room = ring.consumed.load(Ordering::Acquire) + ring_blocks;
                    if k >= room {
                        std::hint::spin_loop();
                    }
                }
                for line in ring.block(k) {
                    // SAFETY: the block is free (the consumer published that it is done with
                    // it, loaded with Acquire above) and unpublished: only this thread touches
                    // it until the Release store below.
                    let words = unsafe { &mut *line.0.get() };
                    for (j, w) in words.iter_mut().enumerate() {
                        *w = k ^ j as u64;
                    }
                }
                ring.published.store(k + 1, Ordering::Release);
            }
            start.elapsed().as_nanos() as f64
        },
        move || {
            let start = Instant::now();
            let mut sum = 0u64;
            let mut ready = 0;
            for k in 0..blocks {
                // Re-read the producer's position only when every published block is read.
                while k >= ready {
                    ready = r2.published.load(Ordering::Acquire);
                    if k >= ready {
                        std::hint::spin_loop();
                    }
                }
                for line in r2.block(k) {
                    // SAFETY: the block is published (loaded with Acquire above) and the
                    // producer does not write it again until the Release store below.
                    let words = unsafe { &*line.0.get() };
                    sum = words.iter().fold(sum, |s, w| s.wrapping_add(*w));
                }
                r2.consumed.store(k + 1, Ordering::Release);
            }
            std::hint::black_box(sum);
            start.elapsed().as_nanos() as f64
        },
    );
    let ns = start_ns.max(elapsed);
    (blocks * block_lines) as f64 * 64.0 / (ns / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both probes finish with a small budget (a line count that is not a whole number of
    /// blocks, a ring that wraps many times) and measure positive, finite figures.
    #[test]
    fn probes_finish_and_measure_finite_figures() {
        let limits = measure(ProbeBudget {
            repetitions: 2,
            round_trips: 2_000,
            lines: 10 * (StreamGeometry::LIMIT.ring_bytes as u64 / 64) + 7,
        });
        for (what, v) in [
            ("round trip", limits.rtt_ns()),
            ("stream", limits.stream_bytes()),
        ] {
            assert!(v.is_finite() && v > 0.0, "{what}: {v}");
        }
        // Every repetition is kept in the report, each probe's under its name.
        for probe in [RTT, RTT_STAMPED, STREAM] {
            let r = limits.repetitions_of(probe).expect(probe);
            assert_eq!(r.values.len(), 2, "{probe}");
        }
    }

    /// Other geometries stream too (a ring of a single block included), and impossible ones
    /// are refused with the rule they break.
    #[test]
    fn geometries_stream_or_say_what_is_wrong() {
        for (ring_bytes, block_bytes) in [(2048, 2048), (8192, 2048), (4096, 64)] {
            let g = StreamGeometry {
                ring_bytes,
                block_bytes,
            };
            let bw = stream_with(g, 1 << 20).unwrap();
            assert!(bw.is_finite() && bw > 0.0, "{g:?}: {bw}");
        }
        for (ring_bytes, block_bytes, says) in [
            (8192, 0, "multiple of 64"),
            (8192, 100, "multiple of 64"),
            (1024, 2048, "multiple of the block"),
            (5000, 1024, "multiple of the block"),
        ] {
            let err = stream_with(
                StreamGeometry {
                    ring_bytes,
                    block_bytes,
                },
                1 << 20,
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains(says), "{ring_bytes}/{block_bytes}: {err}");
        }
    }
}
