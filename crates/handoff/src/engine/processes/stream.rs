//! A stream across two processes: the producers in the peer, the consumer in the worker, the
//! same code on both sides as between threads (`super::super::stream`).

use super::clock::Anchor;
use super::line::SharedLine;
use super::peer::PeerCommand;
use super::peer::{self, Order, Said};
use super::{collect_both, join_senders, local_plan, serve_senders, start_peer};
use crate::engine::cpu::Side;
use crate::engine::crew::{Line, Progress};
use crate::engine::sample::{self, Flow, Members, Refused, Shape, Threads};
use crate::engine::stream::{consume, produce, Member, ProducerReport, Streams};
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::semantics::Semantics;
use crate::transport_cross::{CrossProcess, End};
use crate::verify::Verifier;
use crate::workload::TrialSpec;
use std::sync::Arc;

/// Runs one streaming sample with its producers in a peer process started by `cmd`.
pub(super) fn run<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
    cmd: &PeerCommand,
) -> SampleOutcome {
    let flow = Flow::new(sem, spec, messages);
    let (producers, consumers) = (spec.producers, spec.consumers);
    let cfg = sample::config(spec, producers, consumers);
    let plan = crate::placement::plan(producers + consumers, spec.pin);
    let place = plan.placement.clone();
    let status = |s: SampleStatus| SampleOutcome::status_only(s, place.clone());
    let (listener, rendezvous) = match t.listen::<M>(End::Receiver, &cfg) {
        Ok(l) => l,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let watchdog = spec.watchdog(None);
    let (line, mut peer) = match start_peer(
        cmd,
        spec,
        messages,
        vec![rendezvous],
        &plan,
        consumers,
        None,
    ) {
        Ok(started) => started,
        Err(s) => return status(s),
    };
    let rx = match t.accept_receiver::<M>(listener, &cfg) {
        Ok(rx) => rx,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let progress = Progress::for_sample();
    let mut threads = Threads::planned(
        consumers,
        local_plan(&plan, consumers),
        place.clone(),
        spec,
        progress,
    )
    .on_line(line as Arc<dyn Line>);
    let verifier =
        Verifier::new(producers, flow.per, sem.ordering, consumers).delivering(sem.delivery);
    let delivered = threads.progress().clone();
    let (total, batch) = (flow.total, spec.batch);
    threads.spawn_as(Side::Consumer, "consumer-0", move || {
        Member::Consumer(consume::<M, T::Rx<M>>(
            rx,
            verifier,
            total,
            true,
            batch,
            &delivered.delivered,
        ))
    });
    let tally = threads.cpu();
    let (mut reports, place, members) = match collect_both(threads, &mut peer, watchdog, flow.total)
    {
        Ok(collected) => collected,
        Err(outcome) => return *outcome,
    };
    let anchor = Anchor::now();
    for m in members {
        if let peer::Member::Producer {
            producer,
            start_ns,
            end_ns,
            failed,
            refused_after,
            cpu_ns,
        } = m
        {
            if let Some(tally) = &tally {
                tally.add(Side::Producer, Some(0), cpu_ns);
            }
            reports.push(Member::Producer(ProducerReport {
                start: anchor.instant(start_ns),
                end: anchor.instant(end_ns),
                failed,
                refused_after,
                producer,
            }));
        }
    }
    sample::with_cpu(Streams(flow).finish(reports, place), tally.as_deref())
}

/// The peer's side: joins as the producers, meets the worker's consumer at the start line,
/// sends its share, and reports.
pub(super) fn serve<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    order: &Order,
    say: &mut dyn FnMut(&Said),
) -> Said {
    let spec = &order.trial;
    let flow = Flow::new(sem, spec, order.messages);
    let cfg = sample::config(spec, spec.producers, spec.consumers);
    let line = match SharedLine::open(&order.line) {
        Ok(l) => l,
        Err(e) => return Said::Failed(format!("shared start line: {e}")),
    };
    let senders = match join_senders::<T, M>(t, order, &cfg, "producers") {
        Ok(s) => s,
        Err(said) => return said,
    };
    say(&Said::Joined);
    let form = M::form(spec.payload);
    let (per, batch) = (flow.per, spec.batch);
    let anchor = Anchor::now();
    serve_senders(
        senders,
        order,
        &line,
        "producer",
        |p, tx| produce::<M, T::Tx<M>>(tx, form, p as u32, per, batch),
        |r| peer::Member::Producer {
            producer: r.producer,
            start_ns: anchor.ns_at(r.start),
            end_ns: anchor.ns_at(r.end),
            failed: r.failed,
            refused_after: r.refused_after,
            cpu_ns: None,
        },
    )
}
