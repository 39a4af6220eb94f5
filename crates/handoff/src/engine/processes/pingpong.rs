//! Ping-pong across two processes: the pinger (which times every round trip) in the worker, the
//! ponger in the peer, the same code on both sides as between threads
//! (`super::super::pingpong`). Each direction is a channel of its own: the requests' channel
//! is joined by the peer as its receiver, the replies' as its sender.

use super::clock::Anchor;
use super::line::SharedLine;
use super::peer::PeerCommand;
use super::peer::{self, Order, Report, Said};
use super::{local_plan, peer_first, pin, start_peer, with_peer_pins};
use crate::engine::cpu::{self, Side};
use crate::engine::crew::{panic_message, Line, Progress};
use crate::engine::pingpong::{ping, pong, Member, RoundTrips};
use crate::engine::sample::{self, Members, Refused, Shape, Threads};
use crate::executor::GRACE;
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::transport_cross::{CrossProcess, End};
use crate::workload::TrialSpec;
use std::panic::{catch_unwind, AssertUnwindSafe};
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
    let (mut reports, place) = match sample::collect(threads, watchdog, round_trips) {
        Ok(r) => r,
        Err(outcome) => return peer_first(&mut peer, *outcome),
    };
    let report = match peer.report(watchdog + GRACE) {
        Ok(r) => r,
        Err(s) => return status(s),
    };
    let place = with_peer_pins(place, &report);
    let anchor = Anchor::now();
    let Some(peer::Member::Ponger {
        start_ns,
        requests,
        failed,
        cpu_ns,
    }) = report.members.into_iter().next()
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
    let core = order.cores.first().copied().flatten();
    let round_trips = order.messages;
    let pinned = std::sync::atomic::AtomicBool::new(true);
    let out = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                pinned.store(pin(core), std::sync::atomic::Ordering::Relaxed);
                line.arrive();
                let cpu_start = cpu::thread_cpu_ns();
                let out = catch_unwind(AssertUnwindSafe(|| {
                    pong::<M, T::Rx<M>, T::Tx<M>>(rx, tx, round_trips)
                }));
                let cpu_ns = cpu::thread_cpu_ns()
                    .zip(cpu_start)
                    .map(|(end, start)| end.saturating_sub(start));
                (out, cpu_ns)
            })
            .join()
    });
    match out {
        Ok((
            Ok(Member::Ponger {
                start,
                requests,
                failed,
            }),
            cpu_ns,
        )) => Said::Done(Report {
            members: vec![peer::Member::Ponger {
                start_ns: anchor.ns_at(start),
                requests,
                failed,
                cpu_ns,
            }],
            pin_failed: !pinned.load(std::sync::atomic::Ordering::Relaxed),
        }),
        Ok((Ok(Member::Pinger { .. }), _)) => {
            Said::Failed("the ponger reported as a pinger".into())
        }
        Ok((Err(e), _)) | Err(e) => {
            Said::Failed(format!("the ponger panicked: {}", panic_message(&*e)))
        }
    }
}
