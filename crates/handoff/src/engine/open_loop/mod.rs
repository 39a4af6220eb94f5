//! Open-loop runs over a chain of hops: `paced` (K producers -> one hop -> consumer) and
//! `pipeline` (injector -> hop -> stage -> hop -> … -> sink).
//!
//! Threads, all released together by the crew's start line:
//! * **injectors** (one per producer) send on a pacer's schedule ([`injector`]);
//! * **stages** receive from one hop, spin for the stage's work, and send into the next
//!   ([`stage`]);
//! * the **sinks** (one, or N in a fan-out) verify every event and record its latency
//!   ([`sink`]).
//!
//! Depth is counted by the harness, not asked of the transport ([`gauge`]). Writers publish
//! with plain relaxed stores of a counter only they write.
//!
//! [`run`] takes the hops' endpoints apart, hands them to the threads, collects the threads'
//! reports under the watchdog (as every sample does, see [`super::sample::collect`]) and puts
//! the sample's figures together. The CPU time of the injectors (producer side) and of the
//! stages and sinks (consumer side) is recorded as every threaded sample's is (see
//! [`super::cpu`]).

mod gauge;
mod injector;
mod sink;
mod stage;

use super::cpu::Side;
use super::crew::Progress;
use super::sample::{self, Members, Threads};
use crate::histogram;
use crate::message::Message;
use crate::open_loop::clock::{measure_overhead, Clock};
use crate::open_loop::pacer::{Pacer, Wait};
use crate::open_loop::Stamped;
use crate::outcome::{HopFigures, PacedFigures, SampleOutcome, SampleStatus};
use crate::placement;
use crate::semantics::Ordering;
use crate::transport::{Endpoints, Receiver, Sender};
use crate::workload::{PacerMode, TrialSpec};
use gauge::Gauge;
use hdrhistogram::Histogram;
use injector::{Injected, Injector, InjectorReport};
use sink::{Sink, SinkReport};
use stage::{Stage, StageReport};
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

/// What a thread of the sample reports.
enum Member {
    Injector(InjectorReport),
    Stage(StageReport),
    Sink(Box<SinkReport>),
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
    let form = M::form(spec.payload);
    for id in 0..injectors {
        let tx = first_writers.next().expect("one sender per injector");
        let injector = Injector {
            id,
            injectors,
            per,
            interval,
            wait,
            every,
            clock: clock.clone(),
            gauges: gauges.clone(),
            depth_caps: depth_caps.clone(),
        };
        crew.spawn_as(Side::Producer, &format!("injector-{id}"), move || {
            Member::Injector(injector.run::<M, S>(tx, form))
        });
    }
    drop(first_writers);

    let work = spec.pipeline.as_ref().map_or(0, |p| p.stage_work_ns);
    let mut readers = readers.into_iter();
    for (h, mut out) in writers.into_iter().enumerate() {
        let rx = readers.next().expect("a reader per hop");
        let tx = out.pop().expect("one sender per stage");
        let stage = Stage {
            h,
            work,
            gauges: gauges.clone(),
            clock: clock.clone(),
        };
        crew.spawn_as(Side::Consumer, &format!("stage-{}", h + 1), move || {
            Member::Stage(stage.run(rx, tx))
        });
    }

    debug_assert!(readers.next().is_none(), "every stage took its reader");
    for (index, rx) in sink_readers.into_iter().enumerate() {
        let sink = Sink {
            index,
            injectors,
            per,
            ordering,
            gauges: gauges.clone(),
            n_hops,
            clock: clock.clone(),
            progress: crew.progress().clone(),
        };
        let name = if sinks == 1 {
            "sink".to_string()
        } else {
            format!("sink-{index}")
        };
        crew.spawn_as(Side::Consumer, &name, move || {
            Member::Sink(Box::new(sink.run::<M, R>(rx)))
        });
    }

    let cpu = crew.cpu();
    let (members, place) = match sample::collect(crew, spec.watchdog(Some(rate)), total) {
        Ok(collected) => collected,
        Err(outcome) => return *outcome,
    };

    let mut injected = Injected::new();
    let (mut failed_sends, mut failed_recvs) = (0, 0);
    let mut reports: Vec<SinkReport> = Vec::new();
    for m in members {
        match m {
            Member::Injector(r) => injected.add(r, interval),
            Member::Stage(r) => {
                failed_sends += r.failed.0;
                failed_recvs += r.failed.1;
            }
            Member::Sink(r) => {
                failed_recvs += r.failed;
                reports.push(*r);
            }
        }
    }
    let Some(delivered) = sink::delivered(reports, injected.disconnect, sinks) else {
        return SampleOutcome::status_only(SampleStatus::Crashed("no sink reported".into()), place);
    };
    let sink::Delivered {
        verdict,
        corrected,
        uncorrected,
        last_ns,
    } = delivered;
    // The injector reads the clock after a blocking send returns, so a pause of its own right
    // then (preemption, a stalled vCPU) lands in the wait it measures. A refused message entered
    // the hop when its wait ended and was received later, so its wait is also at most its
    // latency from its actual send: the smaller of the two bounds is the one to report.
    let refused_wait_max_ns = injected.refused_wait_max_ns.min(uncorrected.max());
    let elapsed_ns = last_ns.saturating_sub(injected.first.min(last_ns));
    let outcome = SampleOutcome {
        failed_sends: injected.failed + failed_sends,
        failed_recvs,
        latency: Some(histogram::encode(&corrected)),
        paced: Some(Box::new(PacedFigures {
            requested_rate: rate,
            achieved_rate: injected.achieved,
            refused: injected.refused,
            refused_wait_max_ns,
            refusals_observable: injected.observable,
            pacer: match wait {
                Wait::Spin => "spin",
                Wait::Yield => "yield",
            }
            .into(),
            overhead,
            uncorrected: histogram::encode(&uncorrected),
            sent: injected.sent,
            hops: hop_figures(&meta, &gauges, &injected.depths),
        })),
        ..sample::measured(verdict, elapsed_ns, place)
    };
    sample::with_cpu(outcome, cpu.as_deref())
}

/// Each hop's figures: its depth as injector 0 sampled it (`depths`, one histogram per hop) and
/// what its readers received.
fn hop_figures(meta: &[HopMeta], gauges: &[Gauge], depths: &[Histogram<u64>]) -> Vec<HopFigures> {
    meta.iter()
        .zip(gauges.iter())
        .zip(depths.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|((m, g), h)| HopFigures {
            transport: m.name.clone(),
            capacity: m.capacity,
            samples: h.map_or(0, |h| h.len()),
            mean: h.map_or(0.0, |h| h.mean()),
            p99: h.map_or(0, |h| h.value_at_quantile(0.99)),
            max: h.map_or(0, |h| h.max()),
            received: g.received(),
        })
        .collect()
}
