//! Async streams (`spsc`, `mpsc`, `mpmc`): a producer task per sender, a consumer task per
//! receiver, under the trial's driver.

use super::driver::{RunOn, Tasks};
use crate::engine::cpu::Side;
use crate::engine::crew::{Cadence, Progress};
use crate::engine::same_worker::{Noter, Tally, Where};
use crate::engine::sample::{self, Engine, Flow, Members, Refused, Shape};
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::semantics::Semantics;
use crate::transport::{each_from_last, ChannelConfig, Endpoints};
use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
use crate::verify::{self, Verifier};
use crate::workload::TrialSpec;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

struct ProducerReport {
    start: Instant,
    /// When its last send returned.
    end: Instant,
    refused_after: Option<u64>,
    producer: u32,
}

struct ConsumerReport {
    start: Instant,
    end: Instant,
    verifier: Verifier,
    tally: Tally,
}

enum Member {
    Producer(ProducerReport),
    Consumer(ConsumerReport),
}

async fn produce<M: Message, S: AsyncSender<M>>(
    mut tx: S,
    form: M::Form,
    id: u32,
    per: u64,
    senders: Arc<[Where]>,
) -> ProducerReport {
    let mut noter = Noter::new(&senders[id as usize]);
    let start = Instant::now();
    let mut refused_after = None;
    for seq in 0..per {
        noter.note();
        if tx.send(M::build_in(form, id, seq)).await.is_err() {
            refused_after = Some(seq);
            break;
        }
    }
    let end = Instant::now();
    drop(tx);
    ProducerReport {
        start,
        end,
        refused_after,
        producer: id,
    }
}

async fn consume<M: Message, R: AsyncReceiver<M>>(
    mut rx: R,
    mut v: Verifier,
    total: u64,
    single: bool,
    progress: Arc<Progress>,
    senders: Arc<[Where]>,
) -> ConsumerReport {
    let mut tally = Tally::default();
    let start = Instant::now();
    let mut end = None;
    let mut cadence = Cadence::new();
    {
        let mut s = v.stream();
        let tally = &mut tally;
        let senders = &*senders;
        while rx
            .recv_with(|m| {
                s.observe(m);
                // A corrupt header is the verifier's to report; it is not counted here.
                if let Some(from) = senders.get(m.producer() as usize) {
                    tally.received_from(from);
                }
            })
            .await
        {
            let n = s.count();
            if n >= cadence.next() {
                cadence.publish(n, &progress.delivered);
            }
            if single && n == total {
                end = Some(Instant::now());
            }
        }
    }
    let end = end.unwrap_or_else(Instant::now);
    let lost = rx.lost();
    if lost > 0 {
        v.note_lagged(lost);
    }
    cadence.finish(v.count(), &progress.delivered);
    ConsumerReport {
        start,
        end,
        verifier: v,
        tally,
    }
}

/// Runs one streaming sample (`spsc`, `mpsc`, `mpmc`) of an async transport.
pub(in crate::engine) fn run<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    run_on: &RunOn,
    messages: u64,
) -> SampleOutcome {
    let engine = Stream::<T, M> {
        t,
        shape: Streams(Flow::new(sem, spec, messages), run_on),
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// An async stream's part of the skeleton ([`sample::run`]) for one transport and payload: the
/// channel, and a consumer task per receiver and a producer task per sender.
struct Stream<'a, T, M> {
    t: &'a Arc<T>,
    shape: Streams<'a>,
    message: PhantomData<fn() -> M>,
}

/// An async stream's [`Shape`]: its tasks under the trial's driver, and the outcome from their
/// reports.
#[derive(Clone, Copy)]
struct Streams<'a>(Flow<'a>, &'a RunOn);

impl<'a, T: AsyncTransport, M: Message> Engine for Stream<'a, T, M> {
    type Shape = Streams<'a>;
    type Ends = Endpoints<T::Tx<M>, T::Rx<M>>;

    fn shape(&self) -> Streams<'a> {
        self.shape
    }

    fn build(&mut self, cfg: &ChannelConfig, _: &Arc<Progress>) -> Result<Self::Ends, Refused> {
        sample::endpoints(self.t.channel::<M>(cfg)?, cfg.producers, cfg.consumers)
    }

    fn spawn(&mut self, ends: Self::Ends, tasks: &mut Tasks<'a, Member>) {
        let Endpoints { senders, receivers } = ends;
        let Flow {
            sem,
            spec,
            per,
            total,
        } = self.shape.0;
        let (producers, consumers) = (spec.producers, spec.consumers);
        let form = M::form(spec.payload);
        // Where each producer last ran, for the same-worker count.
        let wheres: Arc<[Where]> = (0..producers).map(|_| Where::default()).collect();
        each_from_last(receivers, |c, rx| {
            let verifier =
                Verifier::new(producers, per, sem.ordering, consumers).delivering(sem.delivery);
            let progress = tasks.progress().clone();
            let wheres = wheres.clone();
            tasks.push(format!("consumer-{c}"), Side::Consumer, async move {
                Member::Consumer(
                    consume::<M, T::Rx<M>>(rx, verifier, total, consumers == 1, progress, wheres)
                        .await,
                )
            });
        });
        each_from_last(senders, |p, tx| {
            let wheres = wheres.clone();
            tasks.push(format!("producer-{p}"), Side::Producer, async move {
                Member::Producer(produce::<M, T::Tx<M>>(tx, form, p as u32, per, wheres).await)
            });
        });
    }
}

impl<'a> Shape for Streams<'a> {
    type Report = Member;
    type Members = Tasks<'a, Member>;

    fn topology(&self) -> (usize, usize) {
        (self.0.spec.producers, self.0.spec.consumers)
    }

    fn total(&self) -> u64 {
        self.0.total
    }

    fn members(&self, progress: Arc<Progress>) -> Tasks<'a, Member> {
        Tasks::new(self.0.spec, self.1, progress)
    }

    fn finish(self, members: Vec<Member>, place: Placement) -> SampleOutcome {
        let mut prods = Vec::new();
        let mut cons = Vec::new();
        for m in members {
            match m {
                Member::Producer(p) => prods.push(p),
                Member::Consumer(c) => cons.push(c),
            }
        }
        let Some(start) = prods
            .iter()
            .map(|p| p.start)
            .chain(cons.iter().map(|c| c.start))
            .min()
        else {
            return SampleOutcome::status_only(
                SampleStatus::Crashed("no producer or consumer reported".into()),
                place,
            );
        };
        let end = cons.iter().map(|c| c.end).max().unwrap_or(start);
        let same_worker = Tally::share(cons.iter().map(|c| c.tally));
        let mut verifiers: Vec<Verifier> = cons.into_iter().map(|c| c.verifier).collect();
        if let (Some(p), Some(v)) = (
            prods.iter().find(|p| p.refused_after.is_some()),
            verifiers.first_mut(),
        ) {
            v.note_disconnect(p.producer, p.refused_after.unwrap_or(0));
        }
        let verdict = verify::merge(verifiers);
        let elapsed_ns = end.saturating_duration_since(start).as_nanos() as u64;
        SampleOutcome {
            same_worker: Some(same_worker),
            submit_ns: sample::submitted(prods.iter().map(|p| p.end), start),
            ..sample::measured(verdict, elapsed_ns, place)
        }
    }
}
