//! The sinks of an open-loop sample. Each verifies every event it receives from the last hop and
//! records, per event, the latency from its intended send (corrected for coordinated omission)
//! and from its actual send (uncorrected). In a fan-out the last hop broadcasts to several sinks:
//! each verifies the whole stream on its own, and the latency histograms hold one entry per
//! delivery.

use super::gauge::Gauge;
use crate::engine::crew::{Progress, PROGRESS_EVERY, PUBLISH_PERIOD};
use crate::histogram;
use crate::message::Message;
use crate::open_loop::clock::Clock;
use crate::open_loop::Stamped;
use crate::semantics::Ordering;
use crate::transport::Receiver;
use crate::verify::{self, Verdict, Verifier};
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

/// One sink, as it is handed to its thread (its receiver apart).
pub(super) struct Sink {
    /// Which sink, from 0 (0 unless fanning out; sink 0 publishes the watchdog's progress).
    pub index: usize,
    /// Injectors in all.
    pub injectors: usize,
    /// Events per injector.
    pub per: u64,
    /// The order the stream arrives in.
    pub ordering: Ordering,
    /// Every hop's counters; this sink writes its own into the last hop's.
    pub gauges: Arc<Vec<Gauge>>,
    /// Hops in all.
    pub n_hops: usize,
    /// The sample's clock.
    pub clock: Clock,
    /// The sample's progress.
    pub progress: Arc<Progress>,
}

/// What one sink reports.
pub(super) struct SinkReport {
    /// Which sink (0 unless fanning out).
    pub index: usize,
    pub verifier: Verifier,
    pub corrected: Histogram<u64>,
    pub uncorrected: Histogram<u64>,
    /// When the last event arrived.
    pub last_ns: u64,
    /// Failed non-blocking receive attempts.
    pub failed: u64,
}

impl Sink {
    /// Receives, verifies and times every event from `rx` until it ends.
    pub fn run<M: Message, R: Receiver<Stamped<M>>>(self, mut rx: R) -> SinkReport {
        let Sink {
            index,
            injectors,
            per,
            ordering,
            gauges: sink_gauges,
            n_hops,
            clock: sink_clock,
            progress,
        } = self;
        let mut verifier = Verifier::new(injectors, per, ordering, 1);
        let mut corrected = histogram::new();
        let mut uncorrected = histogram::new();
        let received = &sink_gauges[n_hops - 1].received[index];
        let mut last_ns = 0;
        // The watchdog's progress follows the first sink, published every
        // `PROGRESS_EVERY` events or every `PUBLISH_PERIOD`, whichever comes first: the
        // sink reads the clock for every event anyway, so the time costs one comparison.
        let period_ns = PUBLISH_PERIOD.as_nanos() as u64;
        let (mut published, mut published_ns) = (0u64, sink_clock.now_ns());
        while let Some(m) = rx.recv() {
            let now = sink_clock.now_ns();
            verifier.observe(&m);
            histogram::record(&mut corrected, now.saturating_sub(m.intended_ns));
            histogram::record(&mut uncorrected, now.saturating_sub(m.sent_ns));
            drop(m);
            let count = verifier.count();
            received.store(count, AtomicOrdering::Relaxed);
            if index == 0
                && (count - published >= PROGRESS_EVERY
                    || now.saturating_sub(published_ns) >= period_ns)
            {
                progress.delivered.store(count, AtomicOrdering::Relaxed);
                (published, published_ns) = (count, now);
            }
            last_ns = now;
        }
        if index == 0 {
            progress
                .delivered
                .store(verifier.count(), AtomicOrdering::Relaxed);
        }
        SinkReport {
            index,
            verifier,
            corrected,
            uncorrected,
            last_ns,
            failed: rx.failed_attempts(),
        }
    }
}

/// What the sinks received, over all of them.
pub(super) struct Delivered {
    /// The stream's verdict (see [`delivered`]).
    pub verdict: Verdict,
    /// Latency from the intended send, every delivery.
    pub corrected: Histogram<u64>,
    /// Latency from the actual send, every delivery.
    pub uncorrected: Histogram<u64>,
    /// When the last event arrived at any sink.
    pub last_ns: u64,
}

/// The sinks' reports put together; `disconnect` is the first send that found the first hop
/// disconnected, and there were `sinks` sinks. `None` if no sink reported.
///
/// Each sink's stream is verified on its own: in a fan-out every consumer must see it whole.
/// The sample's count and digest are those of the whole stream as one consumer saw it, so they
/// agree with a one-consumer run; the first sink with a violation names the verdict.
pub(super) fn delivered(
    mut reports: Vec<SinkReport>,
    disconnect: Option<(u32, u64)>,
    sinks: usize,
) -> Option<Delivered> {
    reports.sort_by_key(|r| r.index);
    let mut corrected = histogram::new();
    let mut uncorrected = histogram::new();
    let mut last_ns = 0;
    let mut verdict: Option<Verdict> = None;
    for r in reports {
        let SinkReport {
            index,
            mut verifier,
            corrected: c,
            uncorrected: u,
            last_ns: l,
            failed: _,
        } = r;
        if let Some((p, s)) = disconnect {
            verifier.note_disconnect(p, s);
        }
        let mut v = verify::merge(vec![verifier]);
        if sinks > 1 {
            if let Some(violation) = &mut v.violation {
                violation.consumer = Some(index as u32);
            }
        }
        histogram::merge(&mut corrected, &c);
        histogram::merge(&mut uncorrected, &u);
        last_ns = last_ns.max(l);
        verdict = Some(match verdict {
            None => v,
            Some(mut seen) => {
                seen.count = seen.count.min(v.count);
                seen.violation = seen.violation.or(v.violation);
                seen
            }
        });
    }
    Some(Delivered {
        verdict: verdict?,
        corrected,
        uncorrected,
        last_ns,
    })
}
