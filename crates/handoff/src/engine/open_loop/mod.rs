//! Open-loop runs over a chain of hops: `paced` (K producers -> one hop -> consumer) and
//! `pipeline` (injector -> hop -> stage -> hop -> … -> sink).
//!
//! Threads, all released together by the crew's start line:
//! * **injectors** (one per producer) send on a pacer's schedule ([`injector`]);
//! * a pipeline's **merge source**, if it has one, is an injector of its own rate that writes a
//!   middle hop beside the stage feeding it;
//! * **stages** receive from one hop, spin for the stage's work, and send into the next
//!   ([`stage`]);
//! * the **sinks** (one, or N in a fan-out) verify every event and fire the events their
//!   reactor strategy picks, recording each one's latency ([`sink`]).
//!
//! Depth is counted by the harness, not asked of the transport ([`gauge`]). Writers publish
//! with plain relaxed stores of a counter only they write.
//!
//! [`run`] takes the hops' endpoints apart, hands them to the threads, collects the threads'
//! reports under the watchdog (as every sample does, see [`super::sample::collect`]) and puts
//! the sample's figures together. The CPU time of the injectors (producer side) and of the
//! stages and sinks (consumer side) is recorded as every threaded sample's is (see
//! [`super::cpu`]).

pub(super) mod gauge;
pub(super) mod injector;
mod sink;
mod stage;
pub(super) mod windows;

use super::asynch::driver::{collect_slots, wrap_tasks, Task};
use super::cpu::Side;
use super::crew::Progress;
use super::hop::AsyncBoxedHop;
use super::sample::{self, Members, Threads};
use crate::driver::{DriverContext, TaskDriver};
use crate::engine::faults::{with_faults, FaultWindow};
use crate::histogram;
use crate::message::Message;
use crate::open_loop::clock::{measure_overhead, Clock};
use crate::open_loop::pacer::{Pacer, Wait};
use crate::open_loop::Stamped;
use crate::outcome::{HopFigures, PacedFigures, SampleOutcome, SampleStatus};
use crate::placement;
use crate::semantics::Ordering;
use crate::transport::{Endpoints, Receiver, Sender};
use crate::workload::{Messages, PacerMode, TrialSpec};
use gauge::Gauge;
use hdrhistogram::Histogram;
use injector::{Injected, Injector, InjectorReport};
use sink::{Sink, SinkReport};
pub(super) use stage::{Stage, StageReport};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use windows::{Mark, Probes, WindowClock, WindowSpec};

/// What the engine knows of a hop besides its endpoints.
#[derive(Clone, Debug)]
pub(super) struct HopMeta {
    /// Transport name.
    pub name: String,
    /// Capacity, if bounded.
    pub capacity: Option<usize>,
    /// The hop conflates (keeps only the newest value).
    pub latest: bool,
    /// How many times it delivers each message.
    pub delivery: crate::semantics::Delivery,
}

/// Depth samples at most this often per second (each reads every hop's counters, which other
/// cores are writing).
const DEPTH_SAMPLES_PER_S: u64 = 20_000;
/// Clock reads and records timed to measure the harness's own cost.
const OVERHEAD_ITERATIONS: u64 = 20_000;

/// What a member of the sample reports.
pub(super) enum Member {
    Injector(InjectorReport),
    /// The merge source.
    Source(InjectorReport),
    Stage(StageReport),
    Sink(Box<SinkReport>),
    /// The conductor of a sample whose stages and sinks are tasks: their reports, in order.
    Tasks(Vec<Member>),
}

/// A merge source as a sample runs it.
struct Merged {
    /// The hop it writes, from 0.
    hop: usize,
    /// Events it sends.
    per: u64,
    /// Nanoseconds between two of its sends.
    interval: f64,
}

/// What every open-loop sample sets up before its members start, whoever runs its stages.
pub(super) struct Setup {
    pub(super) injectors: usize,
    merge: Option<Merged>,
    /// Each producer's stream length: the injectors', then the merge source's.
    lens: Vec<u64>,
    sinks: usize,
    n_hops: usize,
    pub(super) rate: u64,
    wait: Wait,
    per: u64,
    pub(super) total: u64,
    interval: f64,
    every: u64,
    clock: Clock,
    overhead: crate::open_loop::clock::Overhead,
    gauges: Arc<Vec<Gauge>>,
    depth_caps: Vec<Option<u64>>,
    /// A soak's windows, if the sample is one.
    windows: Option<WindowSpec>,
    /// How many times the chain delivers each event (its weakest hop's guarantee).
    delivery: crate::semantics::Delivery,
}

impl Setup {
    /// The setup of a sample of `messages` events over hops of these `writers` and `readers`
    /// counts, placed as `place` says; `None` without a fixed rate. Its threads share this
    /// process's clock and counters.
    fn new(
        spec: &TrialSpec,
        meta: &[HopMeta],
        counts: &[(usize, usize)],
        place: &placement::Placement,
        messages: u64,
    ) -> Option<Setup> {
        let gauges = counts.iter().map(|&(w, r)| Gauge::new(w, r)).collect();
        Setup::with(spec, meta, counts, place, messages, Clock::start(), gauges)
    }

    /// As [`Setup::new`], reading `clock` and counting with `gauges` (one per hop of
    /// `counts`): a sample across processes passes the ones both processes share.
    pub(super) fn with(
        spec: &TrialSpec,
        meta: &[HopMeta],
        counts: &[(usize, usize)],
        place: &placement::Placement,
        messages: u64,
        clock: Clock,
        gauges: Vec<Gauge>,
    ) -> Option<Setup> {
        let injectors = counts.first().map_or(0, |h| h.0);
        let sinks = counts.last().map_or(0, |h| h.1);
        let rate = spec.pacing.rate()?;
        let wait = match spec.pacer {
            PacerMode::Spin => Wait::Spin,
            PacerMode::Yield => Wait::Yield,
            PacerMode::Auto if place.oversubscribed => Wait::Yield,
            PacerMode::Auto => Wait::Spin,
        };
        let per = messages / injectors.max(1) as u64;
        let merge = spec
            .pipeline
            .as_ref()
            .and_then(|p| p.merge)
            .map(|m| Merged {
                hop: m.hop - 1,
                per: m.events(per * injectors as u64, rate),
                interval: Pacer::interval_ns(m.rate, 1),
            });
        let mut lens = vec![per; injectors];
        lens.extend(merge.as_ref().map(|m| m.per));
        let overhead = measure_overhead(&clock, OVERHEAD_ITERATIONS);
        Some(Setup {
            injectors,
            total: lens.iter().sum(),
            merge,
            lens,
            sinks,
            n_hops: counts.len(),
            rate,
            wait,
            per,
            interval: Pacer::interval_ns(rate, injectors),
            every: (rate / injectors.max(1) as u64 / DEPTH_SAMPLES_PER_S).max(1),
            clock,
            overhead,
            gauges: Arc::new(gauges),
            depth_caps: meta
                .iter()
                .map(|m| if m.latest { Some(1) } else { None })
                .collect(),
            delivery: meta
                .iter()
                .fold(Default::default(), |d: crate::semantics::Delivery, m| {
                    d.then(m.delivery)
                }),
            windows: match spec.messages {
                Messages::Soak {
                    duration_ms,
                    window_ms,
                } => Some(WindowSpec::new(window_ms, duration_ms)),
                _ => None,
            },
        })
    }

    /// Injector `id`, which waits for `ready` (if any) before its first send is due.
    pub(super) fn injector(&self, id: usize, ready: Option<Arc<AtomicBool>>) -> Injector {
        Injector {
            id,
            hop: 0,
            slot: id,
            samples_depths: id == 0,
            per: self.per,
            interval: self.interval,
            stagger: self.interval * id as f64 / self.injectors.max(1) as f64,
            wait: self.wait,
            every: self.every,
            clock: self.clock.clone(),
            gauges: self.gauges.clone(),
            depth_caps: self.depth_caps.clone(),
            ready,
            start: self.windows.clone().filter(|_| id == 0),
        }
    }

    /// The merge source, if the pipeline has one: producer `injectors`, the second writer of
    /// its hop, its first send due half an injector interval after the injectors' first (so
    /// the two schedules never coincide by construction).
    pub(super) fn source(&self, ready: Option<Arc<AtomicBool>>) -> Option<Injector> {
        let m = self.merge.as_ref()?;
        Some(Injector {
            id: self.injectors,
            hop: m.hop,
            slot: 1,
            samples_depths: false,
            per: m.per,
            interval: m.interval,
            stagger: self.interval / 2.0,
            start: None,
            ..self.injector(0, ready)
        })
    }

    /// The stage reading hop `h`.
    pub(super) fn stage(&self, h: usize, spec: &TrialSpec) -> Stage {
        Stage {
            h,
            work: spec.pipeline.as_ref().map_or(0, |p| p.stage_work_ns),
            gauges: self.gauges.clone(),
            clock: self.clock.clone(),
        }
    }

    /// Sink `index`, verifying a stream delivered in `ordering`.
    pub(super) fn sink(
        &self,
        index: usize,
        spec: &TrialSpec,
        ordering: Ordering,
        progress: Arc<Progress>,
    ) -> Sink {
        let pipe = spec.pipeline.as_ref();
        Sink {
            index,
            lens: self.lens.clone(),
            timed: self.injectors as u32,
            reactor: pipe.map(|p| p.reactor).unwrap_or_default(),
            work: pipe.map_or(0, |p| p.reactor_work_ns),
            ordering,
            gauges: self.gauges.clone(),
            n_hops: self.n_hops,
            clock: self.clock.clone(),
            progress,
            windows: self.windows.clone(),
            delivery: self.delivery,
        }
    }

    /// Starts a soak's window clock, if the sample is one and the thread can be made (a soak
    /// whose clock could not start is measured as a whole), reading `probes` as well.
    pub(super) fn window_clock(&self, probes: Probes) -> Option<WindowClock> {
        let spec = self.windows.clone()?;
        let merge = self.merge.as_ref().map(|m| m.hop);
        WindowClock::start(spec, self.clock.clone(), self.gauges.clone(), merge, probes).ok()
    }

    /// The probes of the brokers among `hops` (one per hop whose first receiver has one), if
    /// the sample is a soak: asked for before the sample starts, outside its timed region.
    pub(super) fn probes<M, S, R: Receiver<Stamped<M>>>(&self, hops: &[Held<S, R>]) -> Probes {
        if self.windows.is_none() {
            return Vec::new();
        }
        hops.iter()
            .filter_map(|h| h.ends.receivers.first()?.uncommitted_probe())
            .collect()
    }

    /// The name of sink `index`.
    pub(super) fn sink_name(&self, index: usize) -> String {
        if self.sinks == 1 {
            "sink".to_string()
        } else {
            format!("sink-{index}")
        }
    }
}

/// An open-loop sample that cannot start.
pub(super) fn invalid(why: &str, place: placement::Placement) -> SampleOutcome {
    SampleOutcome::status_only(SampleStatus::Invalid(why.into()), place)
}

/// The rate a sample needs.
pub(super) const NEEDS_RATE: &str =
    "an open-loop sample needs a fixed rate (a ramp's steps are set by the session)";

/// The index of the hop a pipeline's merge source writes, if it has one.
fn merge_hop(spec: &TrialSpec) -> Option<usize> {
    spec.pipeline.as_ref()?.merge.map(|m| m.hop - 1)
}

/// Each hop's (writers, readers).
fn writers_and_readers<S, R>(hops: &[Endpoints<S, R>]) -> Vec<(usize, usize)> {
    hops.iter()
        .map(|h| (h.senders.len(), h.receivers.len()))
        .collect()
}

/// A chain of hops taken apart (see [`take_apart`]).
pub(super) struct Parts<S, R> {
    /// The injectors' senders (hop 0's).
    pub injectors: Vec<S>,
    /// Per stage, the hop it reads, its receiver of that hop and its sender into the next.
    pub stages: Vec<(usize, R, S)>,
    /// The sinks' receivers (the last hop's).
    pub sinks: Vec<R>,
    /// The merge source's sender, into its hop beside the stage's.
    pub source: Option<S>,
}

/// What one hop of a chain holds: its endpoints and how many of each are expected (an
/// adapter that returns others is reported, not trusted).
pub(super) struct Held<S, R> {
    pub ends: Endpoints<S, R>,
    /// Senders expected.
    pub writers: usize,
    /// Receivers expected.
    pub readers: usize,
}

impl<S, R> Held<S, R> {
    /// A hop whose endpoints are all here, as many as `counts` says.
    pub fn whole(ends: Endpoints<S, R>, (writers, readers): (usize, usize)) -> Held<S, R> {
        Held {
            ends,
            writers,
            readers,
        }
    }
}

/// Takes a contiguous run of a chain's hops apart into [`Parts`]: `hops[0]` is the chain's hop
/// `first`, the hop at chain index `merge` (if any) gives a second sender to the merge source.
/// Only the endpoints held are taken: a process holding one end of the hop that crosses to
/// another holds that hop's senders (its last) or its receivers (its first) alone. Errs if an
/// adapter returned other endpoints than those asked for.
pub(super) fn take_apart<S, R>(
    hops: Vec<Held<S, R>>,
    first: usize,
    merge: Option<usize>,
) -> Result<Parts<S, R>, String> {
    let mut writers: Vec<Vec<S>> = Vec::new();
    let mut readers: Vec<Vec<R>> = Vec::new();
    for (i, h) in hops.into_iter().enumerate() {
        let (senders, receivers) = (h.ends.senders, h.ends.receivers);
        if receivers.len() != h.readers || senders.len() != h.writers {
            return Err(format!(
                "hop {}: adapter returned {} senders and {} receivers, {} and {} were asked for",
                first + i + 1,
                senders.len(),
                receivers.len(),
                h.writers,
                h.readers
            ));
        }
        writers.push(senders);
        readers.push(receivers);
    }
    let injectors = if writers.is_empty() {
        Vec::new()
    } else {
        writers.remove(0)
    };
    let sinks = readers.pop().unwrap_or_default();
    let mut stages = Vec::new();
    let mut source = None;
    for (i, (mut rx, mut out)) in readers.into_iter().zip(writers).enumerate() {
        let h = first + i;
        let few = || format!("hop {}: too few endpoints for its stage", h + 2);
        if merge == Some(h + 1) {
            source = Some(out.pop().ok_or_else(few)?);
        }
        let tx = out.pop().ok_or_else(few)?;
        stages.push((h, rx.pop().ok_or_else(few)?, tx));
    }
    Ok(Parts {
        injectors,
        stages,
        sinks,
        source,
    })
}

/// Spawns the injectors (one per sender of the first hop) and the merge source (if it has a
/// sender) on the producer side of `crew`, each waiting for `ready` if given.
fn spawn_sources<M: Message, S: Sender<Stamped<M>>>(
    crew: &mut Threads<Member>,
    setup: &Setup,
    injectors: Vec<S>,
    source: Option<S>,
    ready: Option<Arc<AtomicBool>>,
    spec: &TrialSpec,
) {
    let form = M::form(spec.payload);
    for (id, tx) in injectors.into_iter().enumerate() {
        let injector = setup.injector(id, ready.clone());
        crew.spawn_as(Side::Producer, &format!("injector-{id}"), move || {
            Member::Injector(injector.run::<M, S>(tx, form))
        });
    }
    if let (Some(source), Some(tx)) = (setup.source(ready), source) {
        crew.spawn_as(Side::Producer, "source", move || {
            Member::Source(source.run::<M, S>(tx, form))
        });
    }
}

/// Runs one open-loop sample of `messages` events (in total over the producers) through
/// `hops`, at the spec's rate: every member on an OS thread of its own.
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
    let counts = writers_and_readers(&hops);
    let injectors = counts.first().map_or(0, |h| h.0);
    let sinks = counts.last().map_or(0, |h| h.1);
    let merge = merge_hop(spec);
    let threads = injectors + usize::from(merge.is_some()) + hops.len().saturating_sub(1) + sinks;
    let plan = placement::plan(threads, spec.pin);
    let place = plan.placement.clone();
    let Some(setup) = Setup::new(spec, &meta, &counts, &place, messages) else {
        return invalid(NEEDS_RATE, place);
    };
    let held = whole(hops, spec.consumers);
    let probes = setup.probes(&held);
    let parts = match take_apart(held, 0, merge) {
        Ok(parts) => parts,
        Err(why) => return SampleOutcome::status_only(SampleStatus::Crashed(why), place),
    };
    let mut crew: Threads<Member> =
        Threads::planned(threads, plan, place, spec, Progress::for_sample());
    spawn_parts::<M, S, R>(&mut crew, &setup, parts, ordering, spec);
    finish(crew, setup, &meta, spec, probes)
}

/// A whole chain's hops as held by one process, the last hop read by `consumers` sinks.
fn whole<S, R>(hops: Vec<Endpoints<S, R>>, consumers: usize) -> Vec<Held<S, R>> {
    let n = hops.len();
    hops.into_iter()
        .enumerate()
        .map(|(i, ends)| {
            let writers = ends.senders.len();
            let readers = if i + 1 == n { consumers } else { 1 };
            Held::whole(ends, (writers, readers))
        })
        .collect()
}

/// Spawns every member `parts` holds on `crew`, each on an OS thread of its own: the injectors
/// and the merge source (producer side), the stages and the sinks (consumer side).
pub(super) fn spawn_parts<M, S, R>(
    crew: &mut Threads<Member>,
    setup: &Setup,
    parts: Parts<S, R>,
    ordering: Ordering,
    spec: &TrialSpec,
) where
    M: Message,
    S: Sender<Stamped<M>>,
    R: Receiver<Stamped<M>>,
{
    spawn_sources::<M, S>(crew, setup, parts.injectors, parts.source, None, spec);
    for (h, rx, tx) in parts.stages {
        let stage = setup.stage(h, spec);
        crew.spawn_as(Side::Consumer, &format!("stage-{}", h + 1), move || {
            Member::Stage(stage.run(rx, tx))
        });
    }
    for (index, rx) in parts.sinks.into_iter().enumerate() {
        let sink = setup.sink(index, spec, ordering, crew.progress().clone());
        crew.spawn_as(Side::Consumer, &setup.sink_name(index), move || {
            Member::Sink(Box::new(sink.run::<M, R>(rx)))
        });
    }
}

/// Runs one open-loop sample whose stages and sinks are tasks under the trial's driver
/// (`driver`, given `workers`), awaiting async hops. The injectors stay OS threads outside the
/// driver, pacing as under `threads`, and offer each event to the first hop with `try_send`
/// (a refused one is then sent with one `block_on`, its wait in its latency): the schedule does
/// not depend on the driver. They wait until every task has reached the start gate before their
/// first event is due, so the driver's start-up is outside the timed schedule.
pub(super) fn run_tasks<M: Message>(
    hops: Vec<AsyncBoxedHop<Stamped<M>>>,
    meta: Vec<HopMeta>,
    ordering: Ordering,
    spec: &TrialSpec,
    messages: u64,
    driver: Arc<dyn TaskDriver>,
    workers: Option<usize>,
) -> SampleOutcome {
    let counts = writers_and_readers(&hops);
    let merge = merge_hop(spec);
    // The injectors and the merge source: OS threads outside the driver.
    let outside = counts.first().map_or(0, |h| h.0) + usize::from(merge.is_some());
    // Their cores first, then the driver's workers'; the conductor sleeps unpinned.
    let os_threads = driver.os_threads(workers);
    let plan = placement::plan(outside + os_threads, spec.pin);
    let place = plan.placement.clone();
    let Some(setup) = Setup::new(spec, &meta, &counts, &place, messages) else {
        return invalid(NEEDS_RATE, place);
    };
    let parts = match take_apart(whole(hops, spec.consumers), 0, merge) {
        Ok(parts) => parts,
        Err(why) => return SampleOutcome::status_only(SampleStatus::Crashed(why), place),
    };
    let mut crew_cores: Vec<_> = plan.cores.iter().take(outside).copied().collect();
    crew_cores.resize(outside, None);
    crew_cores.push(None);
    let worker_cores: Vec<_> = plan.cores.iter().skip(outside).copied().collect();
    let crew_plan = placement::Plan {
        cores: crew_cores,
        placement: place.clone(),
    };
    let mut crew: Threads<Member> =
        Threads::planned(outside + 1, crew_plan, place, spec, Progress::for_sample());
    let progress = crew.progress().clone();
    let tally = crew.cpu().unwrap_or_default();
    let ready = Arc::new(AtomicBool::new(false));
    spawn_sources::<M, _>(
        &mut crew,
        &setup,
        parts.injectors,
        parts.source,
        Some(ready.clone()),
        spec,
    );
    let mut tasks: Vec<Task<Member>> = Vec::new();
    for (h, rx, tx) in parts.stages {
        let stage = setup.stage(h, spec);
        tasks.push(Box::pin(async move {
            Member::Stage(stage.run_async(rx, tx).await)
        }));
    }
    for (index, rx) in parts.sinks.into_iter().enumerate() {
        let sink = setup.sink(index, spec, ordering, progress.clone());
        tasks.push(Box::pin(async move {
            Member::Sink(Box::new(sink.run_async::<M>(rx).await))
        }));
    }
    let ctx = DriverContext::new(workers, worker_cores, progress.clone());
    let (bodies, slots) = wrap_tasks(tasks, &ctx, &progress, tally, move || {
        ready.store(true, AtomicOrdering::Release)
    });
    crew.spawn("conductor", move || {
        if let Err(why) = driver.run(bodies, &ctx) {
            progress.note_panic(&why.0);
        }
        match collect_slots(&slots) {
            Ok(members) => Member::Tasks(members),
            Err(why) => {
                progress.note_panic(&why);
                Member::Tasks(Vec::new())
            }
        }
    });
    finish(crew, setup, &meta, spec, Vec::new())
}

/// Collects the members of a sample under the watchdog and puts its figures together; a
/// soak's window clock reads `probes` too.
fn finish(
    crew: Threads<Member>,
    setup: Setup,
    meta: &[HopMeta],
    spec: &TrialSpec,
    probes: Probes,
) -> SampleOutcome {
    let cpu = crew.cpu();
    let window_clock = setup.window_clock(probes);
    let faults = FaultWindow::open();
    let collected = sample::collect(crew, spec.watchdog(Some(setup.rate)), setup.total);
    let faults = faults.close();
    let marks = window_clock.map(WindowClock::stop).unwrap_or_default();
    let (members, place) = match collected {
        Ok(collected) => collected,
        Err(outcome) => return *outcome,
    };
    let outcome = figures(members, place, &setup, meta, &marks);
    with_faults(sample::with_cpu(outcome, cpu.as_deref()), faults)
}

/// The figures of a sample whose `members` have all reported, placed as `place` says (its CPU
/// time not added yet); a soak's window clock read `marks`.
pub(super) fn figures(
    members: Vec<Member>,
    place: placement::Placement,
    setup: &Setup,
    meta: &[HopMeta],
    marks: &[Mark],
) -> SampleOutcome {
    let mut injected = Injected::new();
    let (mut failed_sends, mut failed_recvs) = (0, 0);
    let mut reports: Vec<SinkReport> = Vec::new();
    let mut wakeups: Vec<Option<u64>> = vec![None; setup.n_hops];
    let mut members: Vec<Member> = members;
    while let Some(m) = members.pop() {
        match m {
            Member::Injector(r) => injected.add(r, setup.interval),
            Member::Source(r) => injected.add_source(r),
            Member::Stage(r) => {
                failed_sends += r.failed.0;
                failed_recvs += r.failed.1;
                if let Some(w) = r.wakeups {
                    let h = r.h;
                    wakeups[h] = Some(wakeups[h].unwrap_or(0) + w);
                }
            }
            Member::Sink(r) => {
                failed_recvs += r.failed;
                if let Some(w) = r.wakeups {
                    let h = setup.n_hops - 1;
                    wakeups[h] = Some(wakeups[h].unwrap_or(0) + w);
                }
                reports.push(*r);
            }
            Member::Tasks(inner) => members.extend(inner),
        }
    }
    let latency_windows = reports
        .iter_mut()
        .find(|r| r.index == 0)
        .map(|r| std::mem::take(&mut r.windows))
        .unwrap_or_default();
    let Some(delivered) = sink::delivered(reports, injected.disconnect, setup.sinks) else {
        return SampleOutcome::status_only(SampleStatus::Crashed("no sink reported".into()), place);
    };
    let sink::Delivered {
        verdict,
        corrected,
        uncorrected,
        last_ns,
        fires,
    } = delivered;
    // The injector reads the clock after a blocking send returns, so a pause of its own right
    // then (preemption, a stalled vCPU) lands in the wait it measures. A refused message entered
    // the hop when its wait ended and was received later, so its wait is also at most its
    // latency from its actual send: the smaller of the two bounds is the one to report.
    let refused_wait_max_ns = injected.refused_wait_max_ns.min(uncorrected.max());
    let elapsed_ns = last_ns.saturating_sub(injected.first.min(last_ns));
    SampleOutcome {
        failed_sends: injected.failed + failed_sends,
        failed_recvs,
        latency: Some(histogram::encode(&corrected)),
        paced: Some(Box::new(PacedFigures {
            requested_rate: setup.rate,
            achieved_rate: injected.achieved,
            refused: injected.refused,
            refused_wait_max_ns,
            refusals_observable: injected.observable,
            pacer: match setup.wait {
                Wait::Spin => "spin",
                Wait::Yield => "yield",
            }
            .into(),
            overhead: setup.overhead,
            uncorrected: histogram::encode(&uncorrected),
            sent: injected.sent,
            fires,
            hops: hop_figures(meta, &setup.gauges, &injected.depths, &wakeups),
            windows: setup.windows.as_ref().map_or_else(Vec::new, |w| {
                windows::assemble(w, marks, &latency_windows, last_ns)
            }),
        })),
        ..sample::measured(verdict, elapsed_ns, place)
    }
}

/// Each hop's figures: its depth as injector 0 sampled it (`depths`, one histogram per hop) and
/// what its readers received.
fn hop_figures(
    meta: &[HopMeta],
    gauges: &[Gauge],
    depths: &[Histogram<u64>],
    wakeups: &[Option<u64>],
) -> Vec<HopFigures> {
    meta.iter()
        .zip(gauges.iter())
        .zip(depths.iter().map(Some).chain(std::iter::repeat(None)))
        .zip(wakeups)
        .map(|(((m, g), h), w)| HopFigures {
            transport: m.name.clone(),
            capacity: m.capacity,
            samples: h.map_or(0, |h| h.len()),
            mean: h.map_or(0.0, |h| h.mean()),
            p99: h.map_or(0, |h| h.value_at_quantile(0.99)),
            max: h.map_or(0, |h| h.max()),
            received: g.received(),
            wakeups: *w,
        })
        .collect()
}
