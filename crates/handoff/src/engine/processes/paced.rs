//! An open-loop sample across two processes (`paced`, and each step of a `ramp`): the
//! injectors in the peer, pacing and stamping as between threads, the sink in the worker,
//! verifying every event and timing its latency (`super::super::open_loop`).
//!
//! A latency is the sink's reading minus the injector's stamp, taken in two processes, so both
//! read one [`SharedClock`] that the worker defines and sends in the order (the time-stamp
//! counter with one calibration where the kernel keeps it synchronised, else
//! `CLOCK_MONOTONIC`). The hop's depth is counted as between threads, its counters in memory
//! both processes map ([`gauge::shared`]).

use super::line::SharedLine;
use super::peer::{self, OpenLoopOrder, Order, PeerCommand, Said};
use super::{join_senders, local_plan, peer_first, serve_senders, start_peer, with_peer_pins};
use crate::engine::cpu::Side;
use crate::engine::crew::{Line, Progress};
use crate::engine::open_loop::{self, gauge, HopMeta, Member, Setup, NEEDS_RATE};
use crate::engine::sample::{self, Members, Refused, Threads};
use crate::executor::GRACE;
use crate::message::Message;
use crate::open_loop::clock::{Clock, SharedClock};
use crate::open_loop::Stamped;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement;
use crate::semantics::{Ordering as Delivery, Semantics};
use crate::transport_cross::{CrossProcess, End};
use crate::workload::TrialSpec;
use std::sync::Arc;

/// The one hop's writers and readers: every producer, one sink.
fn counts(spec: &TrialSpec) -> [(usize, usize); 1] {
    [(spec.producers, 1)]
}

/// What the sink verifies: the transport's own order, per producer.
fn ordering(sem: &Semantics) -> Delivery {
    if sem.ordering.is_fifo() {
        Delivery::PerProducerFifo
    } else {
        Delivery::None
    }
}

/// The hop as the sample's figures name it.
fn meta(spec: &TrialSpec, sem: &Semantics) -> Vec<HopMeta> {
    vec![HopMeta {
        name: spec.transport.clone(),
        capacity: sem.bound.has_capacity().then_some(spec.capacity),
        latest: false,
    }]
}

/// The placement both processes plan alike: every injector and the sink.
fn plan(spec: &TrialSpec) -> placement::Plan {
    placement::plan(spec.producers + 1, spec.pin)
}

/// Runs one open-loop sample with its injectors in a peer process started by `cmd`.
pub(super) fn run<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
    cmd: &PeerCommand,
) -> SampleOutcome {
    let plan = plan(spec);
    let place = plan.placement.clone();
    let status = |s: SampleStatus| SampleOutcome::status_only(s, place.clone());
    if spec.consumers != 1 {
        return status(SampleStatus::Unsupported(
            "an open-loop sample across processes has one sink (consumers = 1)".into(),
        ));
    }
    if sem.ordering == Delivery::Latest {
        return status(SampleStatus::Unsupported(
            "a conflating hop does not run open-loop across processes".into(),
        ));
    }
    let counts = counts(spec);
    let (gauges, gauges_at) = match gauge::shared(&counts) {
        Ok(g) => g,
        Err(e) => return status(SampleStatus::Crashed(format!("shared counters: {e}"))),
    };
    let def = SharedClock::define();
    let meta = meta(spec, sem);
    let clock = Clock::shared(def);
    let Some(setup) = Setup::with(spec, &meta, &counts, &place, messages, clock, gauges) else {
        return open_loop::invalid(NEEDS_RATE, place);
    };
    let cfg = sample::config(spec, spec.producers, 1);
    let (listener, rendezvous) = match t.listen::<Stamped<M>>(End::Receiver, &cfg) {
        Ok(l) => l,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let shared = OpenLoopOrder {
        clock: def,
        gauges: gauges_at,
    };
    let (line, mut peer) = match start_peer(
        cmd,
        spec,
        messages,
        vec![rendezvous],
        &plan,
        1,
        Some(shared),
    ) {
        Ok(started) => started,
        Err(s) => return status(s),
    };
    let rx = match t.accept_receiver::<Stamped<M>>(listener, &cfg) {
        Ok(rx) => rx,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let mut crew: Threads<Member> = Threads::planned(
        1,
        local_plan(&plan, 1),
        place.clone(),
        spec,
        Progress::for_sample(),
    )
    .on_line(line as Arc<dyn Line>);
    let sink = setup.sink(0, spec, ordering(sem), crew.progress().clone());
    crew.spawn_as(Side::Consumer, &setup.sink_name(0), move || {
        Member::Sink(Box::new(sink.run::<M, T::Rx<Stamped<M>>>(rx)))
    });
    let tally = crew.cpu();
    let watchdog = spec.watchdog(Some(setup.rate));
    let (mut members, collected_place) = match sample::collect(crew, watchdog, setup.total) {
        Ok(collected) => collected,
        Err(outcome) => return peer_first(&mut peer, *outcome),
    };
    let report = match peer.report(watchdog + GRACE) {
        Ok(r) => r,
        Err(s) => return status(s),
    };
    let place = with_peer_pins(collected_place, &report);
    for m in report.members {
        if let peer::Member::Injector { report, cpu_ns } = m {
            if let Some(tally) = &tally {
                tally.add(Side::Producer, Some(0), cpu_ns);
            }
            members.push(Member::Injector(*report));
        }
    }
    if members.len() != setup.injectors + 1 {
        return status(SampleStatus::Crashed(format!(
            "the peer process reported {} of {} injectors",
            members.len() - 1,
            setup.injectors
        )));
    }
    let outcome = open_loop::figures(members, place, &setup, &meta);
    sample::with_cpu(outcome, tally.as_deref())
}

/// The peer's side: joins as the injectors, meets the worker's sink at the start line, sends
/// every event on the shared clock's schedule, and reports.
pub(super) fn serve<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    order: &Order,
    say: &mut dyn FnMut(&Said),
) -> Said {
    let spec = &order.trial;
    let Some(shared) = &order.open_loop else {
        return Said::Failed("an open-loop order without its clock and counters".into());
    };
    let counts = counts(spec);
    let gauges = match gauge::open_shared(&shared.gauges, &counts) {
        Ok(g) => g,
        Err(e) => return Said::Failed(format!("shared counters: {e}")),
    };
    let place = plan(spec).placement;
    let clock = Clock::shared(shared.clock);
    let meta = meta(spec, sem);
    let Some(setup) = Setup::with(spec, &meta, &counts, &place, order.messages, clock, gauges)
    else {
        return Said::Failed(NEEDS_RATE.into());
    };
    let line = match SharedLine::open(&order.line) {
        Ok(l) => l,
        Err(e) => return Said::Failed(format!("shared start line: {e}")),
    };
    let cfg = sample::config(spec, spec.producers, 1);
    let senders = match join_senders::<T, Stamped<M>>(t, order, &cfg, "injectors") {
        Ok(s) => s,
        Err(said) => return said,
    };
    say(&Said::Joined);
    let form = M::form(spec.payload);
    serve_senders(
        senders,
        order,
        &line,
        "injector",
        |id, tx| {
            setup
                .injector(id, None)
                .run::<M, T::Tx<Stamped<M>>>(tx, form)
        },
        |report, cpu_ns| peer::Member::Injector {
            report: Box::new(report),
            cpu_ns,
        },
    )
}
