//! Open-loop runs over a chain of hops: `paced` (K producers -> one hop -> consumer) and
//! `pipeline` (injector -> hop -> stage -> hop -> … -> sink).
//!
//! Threads, all released together by the crew's start line:
//! * **injectors** (one per producer) send on a [`Pacer`] schedule. Each message is stamped with
//!   the time it was due and the time it was offered; a send the transport refuses (full) is
//!   counted and then made blocking, so the message still arrives and its wait shows in its
//!   latency (the longest such wait is kept too, bounded by the longest latency from actual
//!   send, which contains it). Injector 0 also samples every hop's depth now and then.
//! * **stages** receive from one hop, spin for the stage's work, and send into the next.
//! * the **sink** verifies every event and records, per event, the latency from its intended
//!   send (corrected for coordinated omission) and from its actual send (uncorrected). In a
//!   fan-out the last hop broadcasts to N sinks: each verifies the whole stream on its own, and
//!   the latency histograms hold one entry per delivery (N per event).
//!
//! Depth is counted by the harness, not asked of the transport: each hop's writers publish how
//! many they sent and its reader how many it received, each on a cache line of its own; depth is
//! the difference. Writers publish with plain relaxed stores of a counter only they write.

use super::crew::{Progress, PROGRESS_EVERY, PUBLISH_PERIOD};
use super::sample::{self, Members, Threads};
use crate::histogram;
use crate::message::Message;
use crate::open_loop::clock::{measure_overhead, Clock};
use crate::open_loop::pacer::{self, Pacer, Wait};
use crate::open_loop::Stamped;
use crate::outcome::{HopFigures, PacedFigures, SampleOutcome, SampleStatus};
use crate::placement;
use crate::semantics::Ordering;
use crate::transport::{Endpoints, Receiver, Sender, TrySendError};
use crate::verify::{self, Verifier};
use crate::workload::{PacerMode, TrialSpec};
use crossbeam_utils::CachePadded;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

/// What the engine knows of a hop besides its endpoints.
#[derive(Clone, Debug)]
pub(super) struct HopMeta {
    /// Transport name.
    pub name: String,
    /// Capacity, if bounded.
    pub capacity: Option<usize>,
    /// The hop conflates (keeps only the newest value).
    pub latest: bool,
}

/// Depth samples at most this often per second (each reads every hop's counters, which other
/// cores are writing).
const DEPTH_SAMPLES_PER_S: u64 = 20_000;
/// Clock reads and records timed to measure the harness's own cost.
const OVERHEAD_ITERATIONS: u64 = 20_000;

/// Counters of one hop.
struct Gauge {
    /// One per writer (injector or stage).
    sent: Vec<CachePadded<AtomicU64>>,
    /// One per reader (stage or sink; several sinks in a fan-out).
    received: Vec<CachePadded<AtomicU64>>,
}

impl Gauge {
    fn new(writers: usize, readers: usize) -> Gauge {
        let counters = |n| {
            (0..n)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect()
        };
        Gauge {
            sent: counters(writers),
            received: counters(readers),
        }
    }

    /// Messages every reader has received (a broadcast hop holds a message until its slowest
    /// reader has taken it).
    fn received(&self) -> u64 {
        self.received
            .iter()
            .map(|r| r.load(AtomicOrdering::Relaxed))
            .min()
            .unwrap_or(0)
    }

    fn depth(&self) -> u64 {
        // Read the readers first: a writer's count read later can only be larger, so the
        // difference never underflows from a race.
        let received = self.received();
        let sent: u64 = self
            .sent
            .iter()
            .map(|s| s.load(AtomicOrdering::Relaxed))
            .sum();
        sent.saturating_sub(received)
    }
}

enum Member {
    Injector {
        first_due: u64,
        last_sent: u64,
        sent: u64,
        refused: u64,
        refused_wait_max: u64,
        observable: bool,
        disconnected: Option<(u32, u64)>,
        failed: u64,
        depths: Vec<Histogram<u64>>,
    },
    Stage {
        failed: (u64, u64),
    },
    Sink(Box<SinkReport>),
}

struct SinkReport {
    /// Which sink (0 unless fanning out).
    index: usize,
    verifier: Verifier,
    corrected: Histogram<u64>,
    uncorrected: Histogram<u64>,
    last_ns: u64,
    failed: u64,
}

/// Runs one open-loop sample of `messages` events (in total over the producers) through
/// `hops`, at the spec's rate.
pub(super) fn run<M, S, R>(
    hops: Vec<Endpoints<S, R>>,
    meta: Vec<HopMeta>,
    ordering: Ordering,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome
where
    M: Message,
    S: Sender<Stamped<M>>,
    R: Receiver<Stamped<M>>,
{
    let injectors = hops.first().map_or(0, |h| h.senders.len());
    let sinks = hops.last().map_or(0, |h| h.receivers.len());
    let threads = injectors + hops.len().saturating_sub(1) + sinks;
    let plan = placement::plan(threads, spec.pin);
    let place = plan.placement.clone();
    let Some(rate) = spec.pacing.rate() else {
        return SampleOutcome::status_only(
            SampleStatus::Invalid(
                "an open-loop sample needs a fixed rate (a ramp's steps are set by the session)"
                    .into(),
            ),
            place,
        );
    };
    let wait = match spec.pacer {
        PacerMode::Spin => Wait::Spin,
        PacerMode::Yield => Wait::Yield,
        PacerMode::Auto if place.oversubscribed => Wait::Yield,
        PacerMode::Auto => Wait::Spin,
    };
    let per = messages / injectors.max(1) as u64;
    let total = per * injectors as u64;
    let interval = Pacer::interval_ns(rate, injectors);
    let every = (rate / injectors.max(1) as u64 / DEPTH_SAMPLES_PER_S).max(1);

    let clock = Clock::start();
    let overhead = measure_overhead(&clock, OVERHEAD_ITERATIONS);
    let gauges: Arc<Vec<Gauge>> = Arc::new(
        hops.iter()
            .map(|h| Gauge::new(h.senders.len(), h.receivers.len()))
            .collect(),
    );
    let depth_caps: Vec<Option<u64>> = meta
        .iter()
        .map(|m| if m.latest { Some(1) } else { None })
        .collect();

    // Take the endpoints apart: injectors write hop 0, stage h reads hop h-1 and writes hop h,
    // the sinks read the last hop.
    let n_hops = hops.len();
    let mut writers: Vec<Vec<S>> = Vec::new();
    let mut readers: Vec<R> = Vec::new();
    let mut sink_readers: Vec<R> = Vec::new();
    for (i, h) in hops.into_iter().enumerate() {
        let Endpoints {
            senders,
            mut receivers,
        } = h;
        let wanted = if i + 1 == n_hops { spec.consumers } else { 1 };
        if receivers.len() != wanted {
            return SampleOutcome::status_only(
                SampleStatus::Crashed(format!(
                    "hop {}: adapter returned {} receivers, {wanted} were asked for",
                    i + 1,
                    receivers.len()
                )),
                place,
            );
        }
        writers.push(senders);
        if i + 1 == n_hops {
            sink_readers = receivers;
        } else {
            readers.push(receivers.pop().expect("one receiver"));
        }
    }

    let mut crew: Threads<Member> =
        Threads::planned(threads, plan, place.clone(), spec, Progress::for_sample());
    let mut first_writers = writers.remove(0).into_iter();
    for id in 0..injectors {
        let mut tx = first_writers.next().expect("one sender per injector");
        let clock = clock.clone();
        let gauges = gauges.clone();
        let depth_caps = depth_caps.clone();
        crew.spawn(&format!("injector-{id}"), move || {
            let stagger = interval * id as f64 / injectors as f64;
            let first_due = clock.now_ns() + stagger as u64;
            let pacer = Pacer::new(clock.clone(), first_due, interval, wait);
            let mut depths: Vec<Histogram<u64>> = if id == 0 {
                (0..gauges.len()).map(|_| depth_histogram()).collect()
            } else {
                Vec::new()
            };
            let counter = &gauges[0].sent[id];
            let (mut refused, mut observable, mut use_try) = (0u64, true, true);
            let mut refused_wait_max = 0u64;
            let mut disconnected = None;
            let mut last_sent = first_due;
            let mut sent = 0;
            for seq in 0..per {
                let mut msg = Stamped::<M>::build(id as u32, seq);
                let due = pacer.due(seq);
                msg.intended_ns = due;
                let now = pacer.wait_until(due);
                msg.sent_ns = now;
                let mut was_refused = false;
                let blocked = if use_try {
                    match tx.try_send(msg) {
                        Ok(()) => None,
                        Err(TrySendError::Full(m)) => {
                            refused += 1;
                            was_refused = true;
                            Some(m)
                        }
                        Err(TrySendError::Unsupported(m)) => {
                            observable = false;
                            use_try = false;
                            Some(m)
                        }
                        Err(TrySendError::Disconnected(_)) => {
                            disconnected = Some((id as u32, seq));
                            break;
                        }
                    }
                } else {
                    Some(msg)
                };
                if let Some(m) = blocked {
                    if tx.send(m).is_err() {
                        disconnected = Some((id as u32, seq));
                        break;
                    }
                    // Only a refused send pays this clock read.
                    if was_refused {
                        let waited = clock.now_ns().saturating_sub(now);
                        refused_wait_max = refused_wait_max.max(waited);
                    }
                }
                sent = seq + 1;
                counter.store(sent, AtomicOrdering::Relaxed);
                last_sent = now;
                if id == 0 && seq % every == 0 {
                    for ((g, h), cap) in gauges.iter().zip(&mut depths).zip(&depth_caps) {
                        let d = g.depth();
                        h.saturating_record(cap.map_or(d, |c| d.min(c)));
                    }
                }
            }
            let failed = tx.failed_attempts();
            drop(tx);
            Member::Injector {
                first_due,
                last_sent,
                sent,
                refused,
                refused_wait_max,
                observable,
                disconnected,
                failed,
                depths,
            }
        });
    }
    drop(first_writers);

    let work = spec.pipeline.as_ref().map_or(0, |p| p.stage_work_ns);
    let mut readers = readers.into_iter();
    for (h, mut out) in writers.into_iter().enumerate() {
        let mut rx = readers.next().expect("a reader per hop");
        let mut tx = out.pop().expect("one sender per stage");
        let gauges = gauges.clone();
        let clock = clock.clone();
        crew.spawn(&format!("stage-{}", h + 1), move || {
            let (mut received, mut sent) = (0u64, 0u64);
            while let Some(m) = rx.recv() {
                received += 1;
                gauges[h].received[0].store(received, AtomicOrdering::Relaxed);
                if work > 0 {
                    let until = clock.now_ns().saturating_add(work);
                    while clock.now_ns() < until {
                        std::hint::spin_loop();
                    }
                }
                if tx.send(m).is_err() {
                    break;
                }
                sent += 1;
                gauges[h + 1].sent[0].store(sent, AtomicOrdering::Relaxed);
            }
            let failed = (tx.failed_attempts(), rx.failed_attempts());
            drop(tx);
            Member::Stage { failed }
        });
    }

    debug_assert!(readers.next().is_none(), "every stage took its reader");
    for (index, mut rx) in sink_readers.into_iter().enumerate() {
        let sink_gauges = gauges.clone();
        let sink_clock = clock.clone();
        let progress = crew.progress().clone();
        let name = if sinks == 1 {
            "sink".to_string()
        } else {
            format!("sink-{index}")
        };
        crew.spawn(&name, move || {
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
            Member::Sink(Box::new(SinkReport {
                index,
                verifier,
                corrected,
                uncorrected,
                last_ns,
                failed: rx.failed_attempts(),
            }))
        });
    }

    let (members, place) = match sample::collect(crew, spec.watchdog(Some(rate)), total) {
        Ok(collected) => collected,
        Err(outcome) => return *outcome,
    };

    let mut achieved = 0.0;
    let (mut refused, mut observable, mut sent_total, mut failed_sends, mut failed_recvs) =
        (0, true, 0, 0, 0);
    let mut refused_wait_max_ns = 0;
    let mut first = u64::MAX;
    let mut disconnect = None;
    let mut depth_hists = Vec::new();
    let mut reports: Vec<SinkReport> = Vec::new();
    for m in members {
        match m {
            Member::Injector {
                first_due,
                last_sent,
                sent,
                refused: r,
                refused_wait_max: w,
                observable: o,
                disconnected,
                failed,
                depths,
            } => {
                achieved += pacer::achieved_rate(sent, first_due, last_sent, interval);
                refused += r;
                refused_wait_max_ns = refused_wait_max_ns.max(w);
                observable &= o;
                sent_total += sent;
                failed_sends += failed;
                first = first.min(first_due);
                disconnect = disconnect.or(disconnected);
                if !depths.is_empty() {
                    depth_hists = depths;
                }
            }
            Member::Stage { failed } => {
                failed_sends += failed.0;
                failed_recvs += failed.1;
            }
            Member::Sink(r) => {
                failed_recvs += r.failed;
                reports.push(*r);
            }
        }
    }
    reports.sort_by_key(|r| r.index);
    let mut corrected = histogram::new();
    let mut uncorrected = histogram::new();
    let mut last_ns = 0;
    // Each sink's stream is verified on its own: in a fan-out every consumer must see it whole.
    // The sample's count and digest are those of the whole stream as one consumer saw it, so
    // they agree with a one-consumer run; the first sink with a violation names the verdict.
    let mut verdict: Option<verify::Verdict> = None;
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
    let Some(verdict) = verdict else {
        return SampleOutcome::status_only(SampleStatus::Crashed("no sink reported".into()), place);
    };
    // The injector reads the clock after a blocking send returns, so a pause of its own right
    // then (preemption, a stalled vCPU) lands in the wait it measures. A refused message entered
    // the hop when its wait ended and was received later, so its wait is also at most its
    // latency from its actual send: the smaller of the two bounds is the one to report.
    let refused_wait_max_ns = refused_wait_max_ns.min(uncorrected.max());
    let hops = meta
        .iter()
        .zip(gauges.iter())
        .zip(depth_hists.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|((m, g), h)| HopFigures {
            transport: m.name.clone(),
            capacity: m.capacity,
            samples: h.map_or(0, |h| h.len()),
            mean: h.map_or(0.0, |h| h.mean()),
            p99: h.map_or(0, |h| h.value_at_quantile(0.99)),
            max: h.map_or(0, |h| h.max()),
            received: g.received(),
        })
        .collect();
    SampleOutcome {
        status: match verdict.violation {
            None => SampleStatus::Pass,
            Some(v) => SampleStatus::Fail(v),
        },
        messages: verdict.count,
        elapsed_ns: last_ns.saturating_sub(first.min(last_ns)),
        failed_sends,
        failed_recvs,
        digest: verdict.digest,
        latency: Some(histogram::encode(&corrected)),
        placement: place,
        paced: Some(Box::new(PacedFigures {
            requested_rate: rate,
            achieved_rate: achieved,
            refused,
            refused_wait_max_ns,
            refusals_observable: observable,
            pacer: match wait {
                Wait::Spin => "spin",
                Wait::Yield => "yield",
            }
            .into(),
            overhead,
            uncorrected: histogram::encode(&uncorrected),
            sent: sent_total,
            hops,
        })),
        same_worker: None,
        layout: None,
        memory: None,
    }
}

fn depth_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 1 << 40, 2).expect("valid depth histogram bounds")
}
