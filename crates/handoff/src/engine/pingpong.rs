//! Ping-pong: round trips over two channels of the same transport.
//!
//! The pinger sends request `i` and waits for its reply before sending `i + 1` (a dependency
//! chain: nothing overlaps). The ponger verifies each request and sends the same message back;
//! the pinger verifies that the reply is request `i`, intact, and records the round trip's time
//! in a full HdrHistogram.

use super::cpu::Side;
use super::crew::{Cadence, Progress};
use super::sample::{self, Engine, Members, Refused, Shape, Threads};
use crate::histogram;
use crate::message::Message;
use crate::outcome::SampleOutcome;
use crate::placement::Placement;
use crate::round_trip_timer::RoundTripTimer;
use crate::semantics::Ordering;
use crate::transport::{ChannelConfig, Endpoints, Receiver, Sender, Transport};
use crate::verify::{self, Verdict, Verifier};
use crate::workload::TrialSpec;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

/// What a member of a ping-pong sample reports (once per sample: the pinger's histogram and
/// verifier are moved, not copied, so the variants' sizes do not matter).
#[allow(clippy::large_enum_variant)]
pub(super) enum Member {
    Pinger {
        start: Instant,
        end: Instant,
        verifier: Verifier,
        hist: hdrhistogram::Histogram<u64>,
        failed: (u64, u64),
    },
    Ponger {
        start: Instant,
        /// What its verifier concluded of the requests.
        requests: Verdict,
        failed: (u64, u64),
    },
}

/// Runs one ping-pong sample of `round_trips` round trips.
pub(super) fn run<T: Transport, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    round_trips: u64,
) -> SampleOutcome {
    let engine = PingPong::<T, M> {
        t,
        shape: RoundTrips { spec, round_trips },
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// A ping-pong sample's part of the skeleton ([`sample::run`]) for one transport and payload:
/// two channels, and the pinger's and the ponger's work over them.
struct PingPong<'a, T, M> {
    t: &'a Arc<T>,
    shape: RoundTrips<'a>,
    message: PhantomData<fn() -> M>,
}

/// A ping-pong sample's [`Shape`]: the pinger's and the ponger's threads, and the outcome from
/// their reports.
#[derive(Clone, Copy)]
pub(super) struct RoundTrips<'a> {
    pub spec: &'a TrialSpec,
    pub round_trips: u64,
}

/// A channel's one sender and one receiver.
type Pair<T, M> = (<T as Transport>::Tx<M>, <T as Transport>::Rx<M>);

impl<'a, T: Transport, M: Message> Engine for PingPong<'a, T, M> {
    type Shape = RoundTrips<'a>;
    /// The requests' channel, then the replies'.
    type Ends = (Pair<T, M>, Pair<T, M>);

    fn shape(&self) -> RoundTrips<'a> {
        self.shape
    }

    fn build(&mut self, cfg: &ChannelConfig, _: &Arc<Progress>) -> Result<Self::Ends, Refused> {
        let there = self.t.channel::<M>(cfg)?;
        let back = self.t.channel::<M>(cfg)?;
        match (single(there), single(back)) {
            (Some(requests), Some(replies)) => Ok((requests, replies)),
            _ => Err(Refused::Endpoints(
                "adapter returned the wrong number of endpoints".into(),
            )),
        }
    }

    fn spawn(&mut self, ends: Self::Ends, crew: &mut Threads<Member>) {
        let ((req_tx, req_rx), (rep_tx, rep_rx)) = ends;
        let round_trips = self.shape.round_trips;
        let form = M::form(self.shape.spec.payload);
        let progress = crew.progress().clone();
        crew.spawn_as(Side::Producer, "pinger", move || {
            ping::<M, _, _>(req_tx, rep_rx, form, round_trips, &progress)
        });
        crew.spawn_as(Side::Consumer, "ponger", move || {
            pong::<M, _, _>(req_rx, rep_tx, round_trips)
        });
    }
}

/// The pinger: sends `round_trips` requests built in `form` on `tx`, each after the reply to
/// the one before has come back on `rx`, and times every round trip.
pub(super) fn ping<M: Message, S: Sender<M>, R: Receiver<M>>(
    mut tx: S,
    mut rx: R,
    form: M::Form,
    round_trips: u64,
    progress: &Progress,
) -> Member {
    let mut hist = histogram::new();
    let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
    // The same timer, used the same way, as the stamped cache-line probe (`probes`).
    let timer = RoundTripTimer::new();
    let mut cadence = Cadence::new();
    let start = Instant::now();
    for i in 0..round_trips {
        let t0 = timer.stamp();
        if tx.send(M::build_in(form, 0, i)).is_err() {
            verifier.note_disconnect(0, i);
            break;
        }
        let Some(reply) = rx.recv() else { break };
        let rtt = timer.elapsed_ns(t0);
        verifier.observe(&reply);
        drop(reply);
        histogram::record(&mut hist, rtt);
        // Round trips count as progress, published between two of them (by count or by time).
        if cadence.timed(rtt, verifier.count()) {
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
}

/// The ponger: verifies each request from `rx` and sends it back on `tx`, until the requests
/// end.
pub(super) fn pong<M: Message, R: Receiver<M>, S: Sender<M>>(
    mut rx: R,
    mut tx: S,
    round_trips: u64,
) -> Member {
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
        requests: verify::merge(vec![verifier]),
        failed: (tx.failed_attempts(), rx.failed_attempts()),
    }
}

impl Shape for RoundTrips<'_> {
    type Report = Member;
    type Members = Threads<Member>;

    fn topology(&self) -> (usize, usize) {
        (1, 1)
    }

    fn total(&self) -> u64 {
        self.round_trips
    }

    fn members(&self, progress: Arc<Progress>) -> Threads<Member> {
        Threads::new(2, self.spec, progress)
    }

    fn finish(self, members: Vec<Member>, place: Placement) -> SampleOutcome {
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
                requests,
                failed: f2,
            }),
        ) = (it.next(), it.next())
        else {
            unreachable!("crew members come back in spawn order")
        };
        let replies = verify::merge(vec![verifier]);
        let verdict = Verdict {
            violation: requests.violation.or(replies.violation),
            ..replies
        };
        let elapsed_ns = end.saturating_duration_since(start.min(s2)).as_nanos() as u64;
        SampleOutcome {
            failed_sends: f1.0 + f2.0,
            failed_recvs: f1.1 + f2.1,
            latency: Some(histogram::encode(&hist)),
            ..sample::measured(verdict, elapsed_ns, place)
        }
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
