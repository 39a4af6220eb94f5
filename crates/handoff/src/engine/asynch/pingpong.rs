//! Async ping-pong: the pinger's and the ponger's tasks over two channels of the same transport,
//! under the trial's driver.

use super::driver::{RunOn, Tasks};
use crate::engine::cpu::Side;
use crate::engine::crew::{Cadence, Progress};
use crate::engine::same_worker::{Noter, Tally, Where};
use crate::engine::sample::{self, Engine, Members, Refused, Shape};
use crate::histogram;
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::semantics::Ordering;
use crate::transport::{ChannelConfig, Endpoints};
use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
use crate::verify::{self, Verdict, Verifier};
use crate::workload::TrialSpec;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

enum PingMember {
    Pinger {
        start: Instant,
        end: Instant,
        verifier: Verifier,
        hist: hdrhistogram::Histogram<u64>,
        tally: Tally,
    },
    Ponger {
        start: Instant,
        verifier: Verifier,
        tally: Tally,
    },
}

/// Runs one ping-pong sample of an async transport: request `i` goes out, its reply is awaited
/// and checked before request `i + 1`; each round trip's time goes into a full histogram.
pub(in crate::engine) fn run<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    run_on: &RunOn,
    round_trips: u64,
) -> SampleOutcome {
    let engine = PingPong::<T, M> {
        t,
        shape: RoundTrips {
            spec,
            run_on,
            round_trips,
        },
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// An async ping-pong's part of the skeleton ([`sample::run`]) for one transport and payload:
/// two channels, and the pinger's and the ponger's tasks over them.
struct PingPong<'a, T, M> {
    t: &'a Arc<T>,
    shape: RoundTrips<'a>,
    message: PhantomData<fn() -> M>,
}

/// An async ping-pong's [`Shape`]: the pinger's and the ponger's tasks under the trial's driver,
/// and the outcome from their reports.
#[derive(Clone, Copy)]
struct RoundTrips<'a> {
    spec: &'a TrialSpec,
    run_on: &'a RunOn,
    round_trips: u64,
}

/// A sender and a receiver of an async transport.
type Pair<T, M> = (<T as AsyncTransport>::Tx<M>, <T as AsyncTransport>::Rx<M>);

impl<'a, T: AsyncTransport, M: Message> Engine for PingPong<'a, T, M> {
    type Shape = RoundTrips<'a>;
    /// (request sender, reply receiver) for the pinger, (reply sender, request receiver) for the
    /// ponger.
    type Ends = (Pair<T, M>, Pair<T, M>);

    fn shape(&self) -> RoundTrips<'a> {
        self.shape
    }

    fn build(&mut self, cfg: &ChannelConfig, _: &Arc<Progress>) -> Result<Self::Ends, Refused> {
        let there = self.t.channel::<M>(cfg)?;
        let back = self.t.channel::<M>(cfg)?;
        match single_pair(there, back) {
            (Some(pinger), Some(ponger)) => Ok((pinger, ponger)),
            _ => Err(Refused::Endpoints(
                "adapter returned the wrong number of endpoints".into(),
            )),
        }
    }

    fn spawn(&mut self, ends: Self::Ends, tasks: &mut Tasks<'a, PingMember>) {
        let ((mut req_tx, mut rep_rx), (mut rep_tx, mut req_rx)) = ends;
        let round_trips = self.shape.round_trips;
        let form = M::form(self.shape.spec.payload);
        let mut hist = histogram::new();
        let clock = quanta::Clock::new();
        let prog = tasks.progress().clone();
        // Where the pinger and the ponger last ran: each compares its thread, on every receive,
        // with the one the other side sent from.
        let wheres: Arc<[Where; 2]> = Arc::new([Where::default(), Where::default()]);
        let (pinger_wheres, ponger_wheres) = (wheres.clone(), wheres);
        tasks.push("pinger".to_string(), Side::Producer, async move {
            let [mine, theirs] = &*pinger_wheres;
            let mut noter = Noter::new(mine);
            let mut tally = Tally::default();
            let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
            let mut cadence = Cadence::new();
            let start = Instant::now();
            for i in 0..round_trips {
                noter.note();
                let t0 = clock.raw();
                if req_tx.send(M::build_in(form, 0, i)).await.is_err() {
                    verifier.note_disconnect(0, i);
                    break;
                }
                let Some(reply) = rep_rx.recv().await else {
                    break;
                };
                let t1 = clock.raw();
                tally.received_from(theirs);
                verifier.observe(&reply);
                drop(reply);
                let rtt = clock.delta_as_nanos(t0, t1);
                histogram::record(&mut hist, rtt);
                // Round trips count as progress, published between two of them (by count or by
                // time).
                if cadence.timed(rtt, verifier.count()) {
                    cadence.publish(verifier.count(), &prog.delivered);
                }
                if verifier.count() != i + 1 {
                    break;
                }
            }
            let end = Instant::now();
            cadence.finish(verifier.count(), &prog.delivered);
            drop(req_tx);
            PingMember::Pinger {
                start,
                end,
                verifier,
                hist,
                tally,
            }
        });
        tasks.push("ponger".to_string(), Side::Consumer, async move {
            let [theirs, mine] = &*ponger_wheres;
            let mut noter = Noter::new(mine);
            let mut tally = Tally::default();
            let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
            let start = Instant::now();
            while let Some(req) = req_rx.recv().await {
                tally.received_from(theirs);
                verifier.observe(&req);
                noter.note();
                if rep_tx.send(req).await.is_err() {
                    break;
                }
            }
            PingMember::Ponger {
                start,
                verifier,
                tally,
            }
        });
    }
}

impl<'a> Shape for RoundTrips<'a> {
    type Report = PingMember;
    type Members = Tasks<'a, PingMember>;

    fn topology(&self) -> (usize, usize) {
        (1, 1)
    }

    fn total(&self) -> u64 {
        self.round_trips
    }

    fn members(&self, progress: Arc<Progress>) -> Tasks<'a, PingMember> {
        Tasks::new(self.spec, self.run_on, progress)
    }

    fn finish(self, members: Vec<PingMember>, place: Placement) -> SampleOutcome {
        let mut it = members.into_iter();
        let (
            Some(PingMember::Pinger {
                start,
                end,
                verifier,
                hist,
                tally,
            }),
            Some(PingMember::Ponger {
                start: s2,
                verifier: v2,
                tally: t2,
            }),
        ) = (it.next(), it.next())
        else {
            return SampleOutcome::status_only(
                SampleStatus::Crashed("the pinger and ponger did not both report".into()),
                place,
            );
        };
        let requests = verify::merge(vec![v2]);
        let replies = verify::merge(vec![verifier]);
        let verdict = Verdict {
            violation: requests.violation.or(replies.violation),
            ..replies
        };
        let elapsed_ns = end.saturating_duration_since(start.min(s2)).as_nanos() as u64;
        SampleOutcome {
            latency: Some(histogram::encode(&hist)),
            same_worker: Some(Tally::share([tally, t2])),
            ..sample::measured(verdict, elapsed_ns, place)
        }
    }
}

/// The single sender and receiver of each of two channels, as (request sender, reply receiver)
/// and (reply sender, request receiver).
#[allow(clippy::type_complexity)]
fn single_pair<T, R>(
    there: Endpoints<T, R>,
    back: Endpoints<T, R>,
) -> (Option<(T, R)>, Option<(T, R)>) {
    fn one<X>(mut v: Vec<X>) -> Option<X> {
        if v.len() == 1 {
            v.pop()
        } else {
            None
        }
    }
    let (Some(req_tx), Some(req_rx), Some(rep_tx), Some(rep_rx)) = (
        one(there.senders),
        one(there.receivers),
        one(back.senders),
        one(back.receivers),
    ) else {
        return (None, None);
    };
    (Some((req_tx, rep_rx)), Some((rep_tx, req_rx)))
}
