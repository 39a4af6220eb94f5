//! The sinks of an open-loop sample. Each verifies every event it receives from the last hop and
//! records, per event, the latency from its intended send (corrected for coordinated omission)
//! and from its actual send (uncorrected). In a fan-out the last hop broadcasts to several sinks:
//! each verifies the whole stream on its own, and the latency histograms hold one entry per
//! delivery.

use super::gauge::Gauge;
use crate::engine::crew::{Progress, PROGRESS_EVERY, PUBLISH_PERIOD};
use crate::engine::hop::DynAsyncReceiver;
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
    /// Receives that waited and were woken (an async hop awaited by a task).
    pub wakeups: Option<u64>,
}

impl Sink {
    /// Receives, verifies and times every event from `rx` until it ends.
    pub fn run<M: Message, R: Receiver<Stamped<M>>>(self, mut rx: R) -> SinkReport {
        let mut state = self.start();
        while let Some(m) = rx.recv() {
            state.on_event(&m);
        }
        state.finish(rx.failed_attempts(), None)
    }

    /// [`Sink::run`] as a task awaiting an async hop.
    pub async fn run_async<M: Message>(
        self,
        mut rx: Box<dyn DynAsyncReceiver<Stamped<M>>>,
    ) -> SinkReport {
        let mut state = self.start();
        while let Some(m) = rx.recv_boxed().await {
            state.on_event(&m);
        }
        state.finish(0, Some(rx.wakeups()))
    }

    /// The sink's state before its first event.
    fn start(self) -> SinkState {
        let verifier = Verifier::new(self.injectors, self.per, self.ordering, 1);
        let published_ns = self.clock.now_ns();
        SinkState {
            verifier,
            corrected: histogram::new(),
            uncorrected: histogram::new(),
            last_ns: 0,
            published: 0,
            published_ns,
            sink: self,
        }
    }
}

/// A sink while it receives.
struct SinkState {
    sink: Sink,
    verifier: Verifier,
    corrected: Histogram<u64>,
    uncorrected: Histogram<u64>,
    last_ns: u64,
    /// The count last published to the watchdog's progress, and when.
    published: u64,
    published_ns: u64,
}

impl SinkState {
    /// Verifies and times one event.
    ///
    /// The watchdog's progress follows the first sink, published every `PROGRESS_EVERY` events
    /// or every `PUBLISH_PERIOD`, whichever comes first: the sink reads the clock for every event
    /// anyway, so the time costs one comparison.
    #[inline]
    fn on_event<M: Message>(&mut self, m: &Stamped<M>) {
        let s = &self.sink;
        let now = s.clock.now_ns();
        self.verifier.observe(m);
        histogram::record(&mut self.corrected, now.saturating_sub(m.intended_ns));
        histogram::record(&mut self.uncorrected, now.saturating_sub(m.sent_ns));
        let count = self.verifier.count();
        s.gauges[s.n_hops - 1].received[s.index].store(count, AtomicOrdering::Relaxed);
        if s.index == 0
            && (count - self.published >= PROGRESS_EVERY
                || now.saturating_sub(self.published_ns) >= PUBLISH_PERIOD.as_nanos() as u64)
        {
            s.progress.delivered.store(count, AtomicOrdering::Relaxed);
            (self.published, self.published_ns) = (count, now);
        }
        self.last_ns = now;
    }

    /// The sink's report once its hop has ended: `failed` non-blocking receives, `wakeups` of
    /// an async hop.
    fn finish(self, failed: u64, wakeups: Option<u64>) -> SinkReport {
        let s = self.sink;
        if s.index == 0 {
            s.progress
                .delivered
                .store(self.verifier.count(), AtomicOrdering::Relaxed);
        }
        SinkReport {
            index: s.index,
            verifier: self.verifier,
            corrected: self.corrected,
            uncorrected: self.uncorrected,
            last_ns: self.last_ns,
            failed,
            wakeups,
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
            wakeups: _,
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
