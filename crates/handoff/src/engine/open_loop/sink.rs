//! The sinks of an open-loop sample. Each verifies every event it receives from the last hop and
//! records, per event it fires, the latency from its intended send (corrected for coordinated
//! omission) and from its actual send (uncorrected). In a fan-out the last hop broadcasts to
//! several sinks: each verifies the whole stream on its own, and the latency histograms hold one
//! entry per fire.
//!
//! A sink is the pipeline's **reactor**. It *fires* an event: runs the reactor's work (spun on
//! the clock) and then times it, so latency runs to the end of the last stage's work. Under the
//! `sequential` strategy every event fires. Under `latest` the reactor drains what arrived while
//! it was busy and fires once, on the newest: after each receive it reads how many events its
//! hop's writers have sent ([`Gauge`]), and while more are already in the hop it receives again
//! without firing. A writer counts an event only once its send has returned, so an event
//! counted is in the hop and the receive that takes it does not wait; one not yet counted can
//! only make the reactor fire early, never skip the newest. Every event is still received and
//! verified (exactly once, in order); the one held when the hop ends fires then, so the final
//! event always fires. Under `batch` the reactor accumulates instead: it drains what arrived as
//! `latest` does, then fires once on the whole batch, and every event of the batch is timed at
//! the end of that one run. Latency is timed for the injectors' events only: a merge source's
//! take a shorter path.
//!
//! After each fire the sink tells its receiver that everything received so far is processed
//! ([`Receiver::processed`]): a broker transport may commit its offset or acknowledge there, once
//! per graph run, as the system the pipeline scenario comes from does.
//!
//! In a soak each sink also times its fires window by window ([`LatencyWindows`]).

use super::gauge::Gauge;
use super::windows::{LatencyWindows, WindowLatency, WindowSpec};
use crate::engine::crew::{Progress, PROGRESS_EVERY, PUBLISH_PERIOD};
use crate::engine::hop::DynAsyncReceiver;
use crate::histogram;
use crate::message::Message;
use crate::open_loop::clock::Clock;
use crate::open_loop::Stamped;
use crate::semantics::Ordering;
use crate::transport::Receiver;
use crate::verify::{self, Verdict, Verifier};
use crate::workload::Reactor;
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

/// One sink, as it is handed to its thread (its receiver apart).
pub(in crate::engine) struct Sink {
    /// Which sink, from 0 (0 unless fanning out; sink 0 publishes the watchdog's progress).
    pub index: usize,
    /// Each producer's stream length: the injectors', then a merge source's.
    pub lens: Vec<u64>,
    /// Producers whose events are timed (the injectors; a merge source's are not).
    pub timed: u32,
    /// Which events fire.
    pub reactor: Reactor,
    /// Nanoseconds of work per fire.
    pub work: u64,
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
    /// A soak's windows, if the sample is one.
    pub windows: Option<WindowSpec>,
    /// How many times the chain delivers each event: a broker hop may repeat or lose one,
    /// which the verifier then counts instead of failing (see `crate::verify`).
    pub delivery: crate::semantics::Delivery,
}

/// What one sink reports.
pub(in crate::engine) struct SinkReport {
    /// Which sink (0 unless fanning out).
    pub index: usize,
    pub verifier: Verifier,
    pub corrected: Histogram<u64>,
    pub uncorrected: Histogram<u64>,
    /// When the last fire ended.
    pub last_ns: u64,
    /// Events fired.
    pub fires: u64,
    /// Failed non-blocking receive attempts.
    pub failed: u64,
    /// Receives that waited and were woken (an async hop awaited by a task).
    pub wakeups: Option<u64>,
    /// A soak's latency, window by window.
    pub windows: Vec<WindowLatency>,
}

impl Sink {
    /// Receives, verifies and times every event from `rx` until it ends.
    pub fn run<M: Message, R: Receiver<Stamped<M>>>(self, mut rx: R) -> SinkReport {
        let mut state = self.start();
        while let Some(m) = rx.recv() {
            let pending = match state.sink.reactor {
                Reactor::Sequential => None,
                Reactor::Latest | Reactor::Batch => rx.pending(),
            };
            if state.on_event(&m, pending) {
                rx.processed();
            }
        }
        if state.flush() {
            rx.processed();
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
            state.on_event(&m, None);
        }
        state.flush();
        state.finish(0, Some(rx.wakeups()))
    }

    /// The sink's state before its first event.
    fn start(self) -> SinkState {
        let verifier =
            Verifier::with_lengths(&self.lens, self.ordering, 1).delivering(self.delivery);
        let published_ns = self.clock.now_ns();
        SinkState {
            verifier,
            corrected: histogram::new(),
            uncorrected: histogram::new(),
            last_ns: 0,
            fires: 0,
            held: Vec::new(),
            windows: self.windows.clone().map(LatencyWindows::new),
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
    fires: u64,
    /// Events received and not fired yet: under `latest` the newest alone, under `batch` the
    /// batch so far.
    held: Vec<Held>,
    /// A soak's latency windows.
    windows: Option<LatencyWindows>,
    /// The count last published to the watchdog's progress, and when.
    published: u64,
    published_ns: u64,
}

/// What a reactor keeps of an event it has not fired yet.
#[derive(Clone, Copy)]
struct Held {
    producer: u32,
    intended_ns: u64,
    sent_ns: u64,
}

impl SinkState {
    /// Verifies one event and fires it, or under `latest` and `batch` holds it while newer
    /// ones are already in the hop: as many as the receiver says it holds (`pending`), or where
    /// it cannot tell, as many as were sent into the hop and not yet received. Returns whether
    /// it fired.
    ///
    /// The watchdog's progress follows the first sink, published every `PROGRESS_EVERY` events
    /// or every `PUBLISH_PERIOD`, whichever comes first: the sink reads the clock for every event
    /// anyway, so the time costs one comparison.
    #[inline]
    fn on_event<M: Message>(&mut self, m: &Stamped<M>, pending: Option<usize>) -> bool {
        let s = &self.sink;
        let now = s.clock.now_ns();
        self.verifier.observe(m);
        let count = self.verifier.count();
        let hop = &s.gauges[s.n_hops - 1];
        hop.received[s.index].store(count, AtomicOrdering::Relaxed);
        if s.index == 0
            && (count - self.published >= PROGRESS_EVERY
                || now.saturating_sub(self.published_ns) >= PUBLISH_PERIOD.as_nanos() as u64)
        {
            s.progress.delivered.store(count, AtomicOrdering::Relaxed);
            (self.published, self.published_ns) = (count, now);
        }
        let event = Held {
            producer: m.producer(),
            intended_ns: m.intended_ns,
            sent_ns: m.sent_ns,
        };
        let more = s.reactor != Reactor::Sequential
            && pending.map_or_else(|| hop.sent_total() > count, |n| n > 0);
        match s.reactor {
            Reactor::Latest => self.held.clear(),
            Reactor::Sequential | Reactor::Batch => {}
        }
        self.held.push(event);
        if more {
            return false;
        }
        self.fire(now);
        true
    }

    /// Fires the events held, the last received at `now`: spins for the reactor's work once,
    /// then times each at the end of it.
    #[inline]
    fn fire(&mut self, now: u64) {
        let s = &self.sink;
        let end = if s.work > 0 {
            let until = now.saturating_add(s.work);
            let mut t = now;
            while t < until {
                std::hint::spin_loop();
                t = s.clock.now_ns();
            }
            t
        } else {
            now
        };
        self.fires += 1;
        for event in self.held.drain(..) {
            if event.producer < s.timed {
                histogram::record(&mut self.corrected, end.saturating_sub(event.intended_ns));
                histogram::record(&mut self.uncorrected, end.saturating_sub(event.sent_ns));
                if let Some(w) = &mut self.windows {
                    w.record(event.intended_ns, end);
                }
            }
        }
        self.last_ns = end;
    }

    /// Fires what is held when the hop ended (the final event, if it was counted late);
    /// returns whether it fired.
    fn flush(&mut self) -> bool {
        if self.held.is_empty() {
            return false;
        }
        let now = self.sink.clock.now_ns();
        self.fire(now);
        true
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
            fires: self.fires,
            failed,
            wakeups,
            windows: self.windows.map_or_else(Vec::new, LatencyWindows::finish),
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
    /// When the last fire ended at any sink.
    pub last_ns: u64,
    /// Fires over every sink.
    pub fires: u64,
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
    let mut fires = 0;
    let mut verdict: Option<Verdict> = None;
    for r in reports {
        let SinkReport {
            index,
            mut verifier,
            corrected: c,
            uncorrected: u,
            last_ns: l,
            fires: f,
            failed: _,
            wakeups: _,
            windows: _,
        } = r;
        fires += f;
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
        fires,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use crate::payload::Word;

    /// A sink of one injector's `n` events over one hop, under `reactor`.
    fn sink(reactor: Reactor, n: u64) -> (SinkState, Arc<Vec<Gauge>>) {
        let gauges = Arc::new(vec![Gauge::new(1, 1)]);
        let s = Sink {
            index: 0,
            lens: vec![n],
            timed: 1,
            reactor,
            work: 0,
            ordering: Ordering::PerProducerFifo,
            gauges: gauges.clone(),
            n_hops: 1,
            clock: Clock::start(),
            progress: Progress::for_sample(),
            windows: None,
            delivery: Default::default(),
        };
        (s.start(), gauges)
    }

    fn event(seq: u64) -> Stamped<Word> {
        Stamped::<Word>::build(0, seq)
    }

    /// The hop's writer has sent `sent` events (as the injector publishes it).
    fn sent(gauges: &[Gauge], sent: u64) {
        gauges[0].sent[0].store(sent, AtomicOrdering::Relaxed);
    }

    #[test]
    fn a_sequential_reactor_fires_every_event() {
        let (mut s, gauges) = sink(Reactor::Sequential, 4);
        sent(&gauges, 4);
        for seq in 0..4 {
            s.on_event(&event(seq), None);
        }
        s.flush();
        let r = s.finish(0, None);
        assert_eq!((r.fires, r.corrected.len()), (4, 4));
    }

    /// Events already counted in the hop are drained without firing; the newest fires once.
    #[test]
    fn a_latest_reactor_drains_what_arrived_and_fires_once_on_the_newest() {
        let (mut s, gauges) = sink(Reactor::Latest, 6);
        // Three events arrived while the reactor was busy: 0 and 1 are drained, 2 fires.
        sent(&gauges, 3);
        for seq in 0..3 {
            s.on_event(&event(seq), None);
        }
        assert_eq!(s.fires, 1);
        // One at a time: each fires.
        for seq in 3..5 {
            sent(&gauges, seq + 1);
            s.on_event(&event(seq), None);
        }
        assert_eq!(s.fires, 3);
        s.flush();
        assert_eq!(s.fires, 3, "nothing was held");
        // Every event was verified, whether it fired or not.
        assert_eq!(s.verifier.count(), 5);
    }

    #[test]
    fn a_batch_reactor_fires_once_per_batch_and_times_every_event_of_it() {
        let (mut s, gauges) = sink(Reactor::Batch, 5);
        // Three arrived while the reactor was busy: one run for the three, each timed.
        sent(&gauges, 3);
        let fired: Vec<bool> = (0..3).map(|seq| s.on_event(&event(seq), None)).collect();
        assert_eq!(fired, [false, false, true]);
        assert_eq!((s.fires, s.corrected.len()), (1, 3));
        // Two more, the second counted late: the held one fires at the end.
        sent(&gauges, 5);
        assert!(!s.on_event(&event(3), None));
        assert!(!s.on_event(&event(4), Some(1)));
        assert!(s.flush());
        let r = s.finish(0, None);
        assert_eq!((r.fires, r.corrected.len()), (2, 5));
        assert_eq!(r.verifier.finish().violation, None);
    }

    /// A receiver that can say what it holds (a broker client) decides, not the counters: what
    /// was sent may still be on its way through the broker.
    #[test]
    fn what_the_receiver_holds_decides_over_what_was_sent() {
        let (mut s, gauges) = sink(Reactor::Latest, 10);
        sent(&gauges, 10);
        assert!(!s.on_event(&event(0), Some(1)));
        assert!(s.on_event(&event(1), Some(0)));
        assert_eq!(s.fires, 1);
        // Without it, the counters say eight more are in the hop: no fire.
        assert!(!s.on_event(&event(2), None));
    }

    /// The final event fires even when the writer's count ran ahead of what the hop delivered:
    /// the event held when the hop ends fires then.
    #[test]
    fn the_event_held_when_the_hop_ends_fires() {
        let (mut s, gauges) = sink(Reactor::Latest, 3);
        sent(&gauges, 4);
        for seq in 0..3 {
            s.on_event(&event(seq), None);
        }
        assert_eq!(s.fires, 0);
        s.flush();
        let r = s.finish(0, None);
        assert_eq!((r.fires, r.corrected.len()), (1, 1));
        assert_eq!(r.verifier.finish().violation, None);
    }
}
