//! Ping-pong: round trips over two channels of the same transport.
//!
//! The pinger sends request `i` and waits for its reply before sending `i + 1` (a dependency
//! chain: nothing overlaps). The ponger verifies each request and sends the same message back;
//! the pinger verifies that the reply is request `i`, intact, and records the round trip's time
//! in a full HdrHistogram.

use super::crew::{Cadence, Crew};
use super::stream::{build_failed, crew_failed};
use crate::histogram;
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement;
use crate::round_trip_timer::RoundTripTimer;
use crate::semantics::Ordering;
use crate::transport::{ChannelConfig, Endpoints, Receiver, Sender, Transport};
use crate::verify::{self, Verifier};
use crate::workload::TrialSpec;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::Instant;

enum Member {
    Pinger {
        start: Instant,
        end: Instant,
        verifier: Verifier,
        hist: hdrhistogram::Histogram<u64>,
        failed: (u64, u64),
    },
    Ponger {
        start: Instant,
        verifier: Verifier,
        failed: (u64, u64),
    },
}

/// Runs one ping-pong sample of `round_trips` round trips.
pub(super) fn run<T: Transport, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    round_trips: u64,
) -> SampleOutcome {
    let plan = placement::plan(2, spec.pin);
    let mut place = plan.placement.clone();
    let cfg = ChannelConfig {
        capacity: spec.capacity,
        producers: 1,
        consumers: 1,
        options: spec.options.clone(),
    };
    let there = match t.channel::<M>(&cfg) {
        Ok(e) => e,
        Err(e) => return build_failed(e, place),
    };
    let back = match t.channel::<M>(&cfg) {
        Ok(e) => e,
        Err(e) => return build_failed(e, place),
    };
    let (Some((req_tx, req_rx)), Some((rep_tx, rep_rx))) = (single(there), single(back)) else {
        return SampleOutcome::status_only(
            SampleStatus::Crashed("adapter returned the wrong number of endpoints".into()),
            place,
        );
    };

    let mut crew: Crew<Member> = Crew::new(2, plan).laid_out(spec.layout);
    let progress = crew.progress.clone();
    let hist = histogram::new();
    crew.spawn("pinger", move || {
        let mut tx = req_tx;
        let mut rx = rep_rx;
        let mut hist = hist;
        let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
        // The same timer, used the same way, as the stamped cache-line probe (`probes`).
        let timer = RoundTripTimer::new();
        let mut cadence = Cadence::new();
        let start = Instant::now();
        for i in 0..round_trips {
            let t0 = timer.stamp();
            if tx.send(M::build(0, i)).is_err() {
                verifier.note_disconnect(0, i);
                break;
            }
            let Some(reply) = rx.recv() else { break };
            let rtt = timer.elapsed_ns(t0);
            verifier.observe(&reply);
            drop(reply);
            histogram::record(&mut hist, rtt);
            // Round trips count as progress, published between two of them.
            if verifier.count() >= cadence.next() {
                cadence.publish(verifier.count(), &progress.delivered);
            }
            if verifier.count() != i + 1 {
                break;
            }
        }
        let end = Instant::now();
        cadence.finish(verifier.count(), &progress.delivered);
        let failed = (tx.failed_attempts(), rx.failed_attempts());
        drop(tx);
        Member::Pinger {
            start,
            end,
            verifier,
            hist,
            failed,
        }
    });
    crew.spawn("ponger", move || {
        let mut rx = req_rx;
        let mut tx = rep_tx;
        let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
        let start = Instant::now();
        while let Some(req) = rx.recv() {
            verifier.observe(&req);
            if tx.send(req).is_err() {
                break;
            }
        }
        Member::Ponger {
            start,
            verifier,
            failed: (tx.failed_attempts(), rx.failed_attempts()),
        }
    });
    let progress = crew.progress.clone();
    let members = match crew.collect(spec.watchdog(None)) {
        Ok(m) => m,
        Err(e) => {
            return crew_failed(
                e,
                &progress.delivered.load(AtomicOrdering::Relaxed),
                round_trips,
                spec.watchdog(None),
                place,
            )
        }
    };
    if progress.pin_failed.load(AtomicOrdering::Relaxed) {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
    }
    let mut it = members.into_iter();
    let (
        Some(Member::Pinger {
            start,
            end,
            verifier,
            hist,
            failed: f1,
        }),
        Some(Member::Ponger {
            start: s2,
            verifier: v2,
            failed: f2,
        }),
    ) = (it.next(), it.next())
    else {
        unreachable!("crew members come back in spawn order")
    };
    let requests = verify::merge(vec![v2]);
    let replies = verify::merge(vec![verifier]);
    let violation = requests.violation.or(replies.violation);
    SampleOutcome {
        status: match violation {
            None => SampleStatus::Pass,
            Some(v) => SampleStatus::Fail(v),
        },
        messages: replies.count,
        elapsed_ns: end.saturating_duration_since(start.min(s2)).as_nanos() as u64,
        failed_sends: f1.0 + f2.0,
        failed_recvs: f1.1 + f2.1,
        digest: replies.digest,
        latency: Some(histogram::encode(&hist)),
        placement: place,
        paced: None,
        same_worker: None,
        layout: None,
        memory: None,
    }
}

fn single<T, R>(e: Endpoints<T, R>) -> Option<(T, R)> {
    let Endpoints {
        mut senders,
        mut receivers,
    } = e;
    if senders.len() != 1 || receivers.len() != 1 {
        return None;
    }
    Some((senders.pop()?, receivers.pop()?))
}
