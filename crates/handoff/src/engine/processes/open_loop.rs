//! An open-loop sample across two processes: `paced`, each step of a `ramp`, and a `pipeline`
//! whose boundary lies across one of its hops.
//!
//! The boundary lies across the hop whose transport crosses processes (the only hop of `paced`
//! and `ramp`; in a pipeline the one hop that can, see `super::crossing`). The **peer** runs
//! everything upstream of it: the injectors, the stages before it, and the merge source if the
//! hop it writes is that one or an earlier one. The **worker** runs everything downstream: the
//! stages after it and the sinks, which verify every event and time its latency. Each process
//! builds the hops on its side inside itself; the worker listens on the crossing hop as its
//! receiver and the peer joins it as its writers. Injectors, stages and sinks are the same code
//! as between threads (`super::super::open_loop`), their endpoints boxed as there.
//!
//! A latency is the sink's reading minus the injector's stamp, taken in two processes, so both
//! read one [`SharedClock`] that the worker defines and sends in the order (the time-stamp
//! counter with one calibration where the kernel keeps it synchronised, else
//! `CLOCK_MONOTONIC`). Every hop's depth is counted as between threads, its counters in memory
//! both processes map ([`gauge::shared`]).

use super::line::SharedLine;
use super::peer::{self, OpenLoopOrder, Order, PeerCommand, Said};
use super::{cannot, collect_both, join_senders, local_plan, serve_threads, start_peer, Job};
use crate::engine::cpu::Side;
use crate::engine::crew::{Line, Progress};
use crate::engine::hop::{BoxedHop, HopPayload, HopSource};
use crate::engine::open_loop::windows::WindowClock;
use crate::engine::open_loop::{
    self, gauge, spawn_parts, take_apart, Held, Member, Setup, StageReport, NEEDS_RATE,
};
use crate::engine::pipeline::{chain, Chain};
use crate::engine::sample::{self, Members, Refused, Threads};
use crate::open_loop::clock::{Clock, SharedClock};
use crate::open_loop::Stamped;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement;
use crate::transport::{map_in_order, Endpoints, Receiver, Sender};
use crate::transport_cross::{CrossProcess, End};
use crate::workload::TrialSpec;
use std::sync::Arc;

/// A sender of a hop, boxed.
type Tx<M> = Box<dyn Sender<Stamped<M>>>;
/// A receiver of a hop, boxed.
type Rx<M> = Box<dyn Receiver<Stamped<M>>>;

/// A sample's chain split at hop `at`: what both processes plan alike.
struct Split<'s> {
    chain: Chain<'s>,
    /// Each hop's (writers, readers).
    counts: Vec<(usize, usize)>,
    /// Every thread of both processes: the worker's first.
    plan: placement::Plan,
    /// The worker's threads: the stages after the crossing hop, the sinks, and the merge
    /// source if it writes a later hop.
    worker: usize,
    /// The peer's threads: the injectors, the stages before the crossing hop, and the merge
    /// source if it writes that hop or an earlier one.
    peer: usize,
}

/// Splits `spec`'s chain at hop `at`, or the sample's outcome if it cannot cross there.
fn split<'s>(
    hops: &'s dyn HopSource,
    spec: &TrialSpec,
    at: usize,
) -> Result<Split<'s>, Box<SampleOutcome>> {
    let chain = chain(hops, spec)?;
    let unsupported = |why: String| {
        Box::new(SampleOutcome::status_only(
            SampleStatus::Unsupported(why),
            Default::default(),
        ))
    };
    if chain.run_on.is_some() {
        return Err(unsupported(format!(
            "driver {} does not run across processes yet (driver threads does)",
            spec.driver
        )));
    }
    let n = chain.links.len();
    let Some(crossing) = chain.links.get(at) else {
        return Err(unsupported(format!("no hop {} to cross at", at + 1)));
    };
    if crossing.cfg.consumers != 1 {
        return Err(unsupported(format!(
            "the hop that crosses processes (`{}`) is read by one sink (consumers = 1)",
            crossing.transport
        )));
    }
    if chain.meta[at].latest {
        return Err(unsupported(format!(
            "a conflating hop (`{}`) does not cross processes",
            crossing.transport
        )));
    }
    let counts: Vec<_> = chain.links.iter().map(|l| l.counts()).collect();
    let source = chain.merge.map(|m| m <= at);
    let worker = (n - 1 - at) + spec.consumers + usize::from(source == Some(false));
    let peer = spec.producers + at + usize::from(source == Some(true));
    let plan = placement::plan(worker + peer, spec.pin);
    Ok(Split {
        chain,
        counts,
        plan,
        worker,
        peer,
    })
}

/// Builds the hops `range` of `split`'s chain inside this process.
fn build_local<M: HopPayload>(
    split: &Split<'_>,
    range: std::ops::Range<usize>,
) -> Result<Vec<Held<Tx<M>, Rx<M>>>, Box<SampleOutcome>> {
    range
        .map(|i| {
            let hop: BoxedHop<Stamped<M>> = split.chain.links[i].build::<M>(i)?;
            Ok(Held::whole(hop, split.counts[i]))
        })
        .collect()
}

/// Runs one open-loop sample whose upstream side runs in a peer process started by `cmd`, the
/// boundary across hop `at` (of transport `T`).
pub(super) fn run<T: CrossProcess, M: HopPayload>(
    t: &Arc<T>,
    hops: &dyn HopSource,
    spec: &TrialSpec,
    at: usize,
    messages: u64,
    cmd: &PeerCommand,
) -> SampleOutcome {
    let split = match split(hops, spec, at) {
        Ok(s) => s,
        Err(o) => return *o,
    };
    let place = split.plan.placement.clone();
    let status = |s: SampleStatus| SampleOutcome::status_only(s, place.clone());
    let (gauges, gauges_at) = match gauge::shared(&split.counts) {
        Ok(g) => g,
        Err(e) => return status(SampleStatus::Crashed(format!("shared counters: {e}"))),
    };
    let def = SharedClock::define();
    let meta = &split.chain.meta;
    let clock = Clock::shared(def);
    let Some(setup) = Setup::with(spec, meta, &split.counts, &place, messages, clock, gauges)
    else {
        return open_loop::invalid(NEEDS_RATE, place);
    };
    let downstream = match build_local::<M>(&split, at + 1..split.counts.len()) {
        Ok(h) => h,
        Err(o) => return *o,
    };
    let cfg = &split.chain.links[at].cfg;
    let (listener, rendezvous) = match t.listen::<Stamped<M>>(End::Receiver, cfg) {
        Ok(l) => l,
        Err(e) => return split.chain.links[at].refused(at, e),
    };
    let shared = OpenLoopOrder {
        clock: def,
        gauges: gauges_at,
    };
    let (worker, plan) = (split.worker, &split.plan);
    let started = start_peer(
        cmd,
        spec,
        messages,
        vec![rendezvous],
        plan,
        worker,
        Some(shared),
    );
    let (line, mut peer) = match started {
        Ok(started) => started,
        Err(s) => return status(s),
    };
    let rx = match t.accept_receiver::<Stamped<M>>(listener, cfg) {
        Ok(rx) => Box::new(rx) as Rx<M>,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let crossing = Held {
        ends: Endpoints {
            senders: Vec::new(),
            receivers: vec![rx],
        },
        writers: 0,
        readers: 1,
    };
    let held: Vec<_> = std::iter::once(crossing).chain(downstream).collect();
    let probes = setup.probes(&held);
    let parts = match take_apart(held, at, split.chain.merge) {
        Ok(parts) => parts,
        Err(why) => return status(SampleStatus::Crashed(why)),
    };
    let mut crew: Threads<Member> = Threads::planned(
        worker,
        local_plan(plan, worker),
        place.clone(),
        spec,
        Progress::for_sample(),
    )
    .on_line(line as Arc<dyn Line>);
    spawn_parts::<M, Tx<M>, Rx<M>>(&mut crew, &setup, parts, split.chain.ordering, spec);
    let tally = crew.cpu();
    let watchdog = spec.watchdog(Some(setup.rate));
    let window_clock = setup.window_clock(probes);
    let collected = collect_both(crew, &mut peer, watchdog, setup.total);
    let marks = window_clock.map(WindowClock::stop).unwrap_or_default();
    let (mut members, place, theirs) = match collected {
        Ok(collected) => collected,
        Err(outcome) => return *outcome,
    };
    let reported = theirs.len();
    for m in theirs {
        let (side, member, cpu_ns) = match m {
            peer::Member::Injector { report, cpu_ns } => {
                (Side::Producer, Member::Injector(*report), cpu_ns)
            }
            peer::Member::Source { report, cpu_ns } => {
                (Side::Producer, Member::Source(*report), cpu_ns)
            }
            peer::Member::Stage { h, failed, cpu_ns } => {
                let report = StageReport {
                    h,
                    failed,
                    wakeups: None,
                };
                (Side::Consumer, Member::Stage(report), cpu_ns)
            }
            peer::Member::Producer { .. } | peer::Member::Ponger { .. } => {
                return SampleOutcome::status_only(
                    SampleStatus::Crashed(
                        "the peer process reported a member of another workload".into(),
                    ),
                    place,
                )
            }
        };
        if let Some(tally) = &tally {
            tally.add(side, Some(0), cpu_ns);
        }
        members.push(member);
    }
    if reported != split.peer {
        return SampleOutcome::status_only(
            SampleStatus::Crashed(format!(
                "the peer process reported {reported} of its {} members",
                split.peer
            )),
            place,
        );
    }
    let outcome = open_loop::figures(members, place, &setup, meta, &marks);
    sample::with_cpu(outcome, tally.as_deref())
}

/// The peer's side: builds the hops before the crossing one, joins that one as its writers,
/// meets the worker's threads at the start line, injects every event on the shared clock's
/// schedule and passes it on through its stages, and reports.
pub(super) fn serve<T: CrossProcess, M: HopPayload>(
    t: &Arc<T>,
    hops: &dyn HopSource,
    order: &Order,
    at: usize,
    say: &mut dyn FnMut(&Said),
) -> Said {
    let spec = &order.trial;
    let failed = |o: Box<SampleOutcome>| cannot(o.status);
    let Some(shared) = &order.open_loop else {
        return Said::Failed("an open-loop order without its clock and counters".into());
    };
    let split = match split(hops, spec, at) {
        Ok(s) => s,
        Err(o) => return failed(o),
    };
    let gauges = match gauge::open_shared(&shared.gauges, &split.counts) {
        Ok(g) => g,
        Err(e) => return Said::Failed(format!("shared counters: {e}")),
    };
    let place = &split.plan.placement;
    let clock = Clock::shared(shared.clock);
    let meta = &split.chain.meta;
    let counts = &split.counts;
    let Some(setup) = Setup::with(spec, meta, counts, place, order.messages, clock, gauges) else {
        return Said::Failed(NEEDS_RATE.into());
    };
    let line = match SharedLine::open(&order.line) {
        Ok(l) => l,
        Err(e) => return Said::Failed(format!("shared start line: {e}")),
    };
    let mut held = match build_local::<M>(&split, 0..at) {
        Ok(h) => h,
        Err(o) => return failed(o),
    };
    let cfg = &split.chain.links[at].cfg;
    let senders = match join_senders::<T, Stamped<M>>(t, order, cfg, "writers") {
        Ok(s) => s,
        Err(said) => return said,
    };
    held.push(Held {
        ends: Endpoints {
            senders: map_in_order(senders, |s| Box::new(s) as Tx<M>),
            receivers: Vec::new(),
        },
        writers: cfg.producers,
        readers: 0,
    });
    let parts = match take_apart(held, 0, split.chain.merge) {
        Ok(parts) => parts,
        Err(why) => return Said::Failed(why),
    };
    say(&Said::Joined);
    let form = M::form(spec.payload);
    let setup = &setup;
    let mut jobs = Vec::new();
    for (id, tx) in parts.injectors.into_iter().enumerate() {
        jobs.push(Job::new(format!("injector {id}"), move || {
            let report = setup.injector(id, None).run::<M, Tx<M>>(tx, form);
            peer::Member::Injector {
                report: Box::new(report),
                cpu_ns: None,
            }
        }));
    }
    if let (Some(source), Some(tx)) = (setup.source(None), parts.source) {
        jobs.push(Job::new("the merge source".into(), move || {
            peer::Member::Source {
                report: Box::new(source.run::<M, Tx<M>>(tx, form)),
                cpu_ns: None,
            }
        }));
    }
    for (h, rx, tx) in parts.stages {
        let stage = setup.stage(h, spec);
        jobs.push(Job::new(format!("stage {}", h + 1), move || {
            let report = stage.run(rx, tx);
            peer::Member::Stage {
                h: report.h,
                failed: report.failed,
                cpu_ns: None,
            }
        }));
    }
    serve_threads(jobs, order, &line)
}
