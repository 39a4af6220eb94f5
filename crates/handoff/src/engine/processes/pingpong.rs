//! Ping-pong across two processes: the pinger (which times every round trip) in the worker, the
//! ponger in the peer, the same code on both sides as between threads
//! (`super::super::pingpong`). Each direction is a channel of its own: the requests' channel
//! is joined by the peer as its receiver, the replies' as its sender.

use super::clock::Anchor;
use super::line::SharedLine;
use super::peer::PeerCommand;
use super::peer::{self, Order, Said};
use super::{collect_both, local_plan, serve_threads, start_peer, Job};
use crate::engine::cpu::Side;
use crate::engine::crew::{Line, Progress};
use crate::engine::pingpong::{ping, pong, Member, RoundTrips};
use crate::engine::sample::{self, Members, Refused, Shape, Threads};
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::transport_cross::{CrossProcess, End};
use crate::workload::TrialSpec;
use std::sync::Arc;

/// Runs one ping-pong sample with the ponger in a peer process started by `cmd`.
pub(super) fn run<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    round_trips: u64,
    cmd: &PeerCommand,
) -> SampleOutcome {
    let cfg = sample::config(spec, 1, 1);
    let plan = crate::placement::plan(2, spec.pin);
    let place = plan.placement.clone();
    let status = |s: SampleStatus| SampleOutcome::status_only(s, place.clone());
    let listened = t
        .listen::<M>(End::Sender, &cfg)
        .and_then(|requests| Ok((requests, t.listen::<M>(End::Receiver, &cfg)?)));
    let ((requests, at_requests), (replies, at_replies)) = match listened {
        Ok(l) => l,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let watchdog = spec.watchdog(None);
    let rendezvous = vec![at_requests, at_replies];
    let (line, mut peer) = match start_peer(cmd, spec, round_trips, rendezvous, &plan, 1, None) {
        Ok(started) => started,
        Err(s) => return status(s),
    };
    let ends = t
        .accept_sender::<M>(requests, &cfg)
        .and_then(|tx| Ok((tx, t.accept_receiver::<M>(replies, &cfg)?)));
    let (tx, rx) = match ends {
        Ok(e) => e,
        Err(e) => return sample::refused(Refused::Build(e), place),
    };
    let mut threads = Threads::planned(
        1,
        local_plan(&plan, 1),
        place.clone(),
        spec,
        Progress::for_sample(),
    )
    .on_line(line as Arc<dyn Line>);
    let form = M::form(spec.payload);
    let progress = threads.progress().clone();
    threads.spawn_as(Side::Producer, "pinger", move || {
        ping::<M, _, _>(tx, rx, form, round_trips, &progress)
    });
    let tally = threads.cpu();
    let (mut reports, place, members) =
        match collect_both(threads, &mut peer, watchdog, round_trips) {
            Ok(collected) => collected,
            Err(outcome) => return *outcome,
        };
    let anchor = Anchor::now();
    let Some(peer::Member::Ponger {
        start_ns,
        requests,
        failed,
        cpu_ns,
    }) = members.into_iter().next()
    else {
        return status(SampleStatus::Crashed(
            "the peer process reported no ponger".into(),
        ));
    };
    if let Some(tally) = &tally {
        tally.add(Side::Consumer, Some(0), cpu_ns);
    }
    reports.push(Member::Ponger {
        start: anchor.instant(start_ns),
        requests,
        failed,
    });
    let shape = RoundTrips { spec, round_trips };
    sample::with_cpu(shape.finish(reports, place), tally.as_deref())
}

/// The peer's side: joins the requests' channel as its receiver and the replies' as their
/// sender, meets the pinger at the start line, echoes every request, and reports.
pub(super) fn serve<T: CrossProcess, M: Message>(
    t: &Arc<T>,
    order: &Order,
    say: &mut dyn FnMut(&Said),
) -> Said {
    let spec = &order.trial;
    let cfg = sample::config(spec, 1, 1);
    let line = match SharedLine::open(&order.line) {
        Ok(l) => l,
        Err(e) => return Said::Failed(format!("shared start line: {e}")),
    };
    let [at_requests, at_replies] = order.rendezvous.as_slice() else {
        return Said::Failed("ping-pong needs two channels".into());
    };
    let ends = t
        .join_receiver::<M>(at_requests, &cfg)
        .and_then(|rx| Ok((rx, t.join_senders::<M>(at_replies, &cfg)?)));
    let (rx, tx) = match ends {
        Ok((rx, mut txs)) if txs.len() == 1 => (rx, txs.pop().expect("one sender")),
        Ok(_) => return Said::Failed("joined the replies with other than one sender".into()),
        Err(e) => return Said::Failed(e.to_string()),
    };
    say(&Said::Joined);
    let anchor = Anchor::now();
    let round_trips = order.messages;
    let ponger = Job::new("the ponger".into(), move || {
        match pong::<M, T::Rx<M>, T::Tx<M>>(rx, tx, round_trips) {
            Member::Ponger {
                start,
                requests,
                failed,
            } => peer::Member::Ponger {
                start_ns: anchor.ns_at(start),
                requests,
                failed,
                cpu_ns: None,
            },
            Member::Pinger { .. } => panic!("the ponger reported as a pinger"),
        }
    });
    serve_threads(vec![ponger], order, &line)
}
