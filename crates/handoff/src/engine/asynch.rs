//! Async transports under every driver: OS threads, a tokio current-thread runtime, or a tokio
//! multi-thread runtime.
//!
//! Each producer and consumer is one future (its whole loop). How the futures run:
//!
//! * **threads**: a [`Crew`] thread per future, pinned and released by the spinning start line
//!   like every other trial; the thread drives its future with one `block_on`
//!   (`futures_lite::future::block_on`: it parks the thread while the future is pending and is
//!   unparked by the waker). One `block_on` per thread and sample, never one per message.
//! * **tokio-current / tokio-multi:N**: the runtime is built before the sample (outside the timed
//!   region; multi-thread workers are pinned to distinct cores as they start, where there are
//!   enough). One *conductor* thread, under the usual watchdog, enters the runtime with
//!   `block_on` once: it spawns every future as a task, waits until every task has reached the
//!   start gate (tasks count themselves in, the last one wakes the conductor), then opens the gate
//!   (a `watch` channel flipped to `true`) and waits for the tasks. On a current-thread runtime
//!   the conductor's thread is the one thread every task runs on: producer and consumer take
//!   turns on it, and the result is labelled *same-thread-cooperative*. On a multi-thread
//!   runtime the conductor is not a worker; it sleeps until the tasks finish. The runtime is shut
//!   down after the sample, outside the timed region.
//!
//! Under every driver each task also notes which OS thread it runs on, so that the result can
//! say how many hand-offs stayed on one thread (see `same_worker.rs`): a sender notes its thread
//! before each send (a store only when it changed), a receiver compares its own with its sender's
//! after each receive, in counts of its own. On a multi-thread runtime the scheduler often runs
//! a woken task on the worker that woke it; such a result is labelled *same-worker* when most of
//! its hand-offs stayed on one thread.
//!
//! In both cases each future reads the clock as it starts (after the start line or gate); the
//! sample runs from the earliest of those reads to the moment the consumer received the last
//! expected message, as in the thread engine. Every message is verified by the consumer
//! ([`Verifier`]); a receiver that lost messages by lagging ([`AsyncReceiver::lost`]) fails the
//! sample. A task that panics makes the sample `crashed` with its message, a sample in which no
//! message is delivered for the watchdog interval `hung` (the consumers publish their progress as
//! the thread engine's do; the watchdog watches the crew of threads or the conductor).

use super::crew::{panic_message, Cadence, Progress};
use super::same_worker::{Noter, Tally, Where};
use super::sample::{self, Engine, Failure, Members, Refused, Threads};
use crate::histogram;
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::{self, Placement, Plan};
use crate::semantics::{Ordering, Semantics};
use crate::transport::{ChannelConfig, Endpoints};
use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
use crate::verify::{self, Verdict, Verifier};
use crate::workload::{Driver, TrialSpec};
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One producer's or consumer's whole loop.
type Task<R> = Pin<Box<dyn Future<Output = R> + Send>>;

// ---------------------------------------------------------------------------------------------
// Running a set of tasks under a driver.

/// Members as futures, each one producer's or consumer's whole loop, run under the trial's
/// driver when they are collected (see the module docs).
pub(super) struct Tasks<'a, R> {
    spec: &'a TrialSpec,
    tasks: Vec<(String, Task<R>)>,
    progress: Arc<Progress>,
}

impl<'a, R: Send + 'static> Tasks<'a, R> {
    /// No tasks yet, for a sample of `spec` whose members publish into `progress`.
    fn new(spec: &'a TrialSpec, progress: Arc<Progress>) -> Tasks<'a, R> {
        Tasks {
            spec,
            tasks: Vec::new(),
            progress,
        }
    }

    /// Adds a member: the task `task`, named `name`.
    fn push(&mut self, name: String, task: impl Future<Output = R> + Send + 'static) {
        self.tasks.push((name, Box::pin(task)));
    }
}

impl<R: Send + 'static> Members<R> for Tasks<'_, R> {
    fn progress(&self) -> &Arc<Progress> {
        &self.progress
    }

    /// Where the tasks run is known once the driver has placed them.
    fn placement(&self) -> Placement {
        Placement::default()
    }

    fn run(self, watchdog: Duration) -> (Result<Vec<R>, Failure>, Placement) {
        drive(self.spec, self.tasks, self.progress, watchdog)
    }
}

/// The start gate of tasks on a runtime: every task counts itself in, the last one wakes the
/// conductor, and all wait until the conductor opens the gate.
struct Gate {
    arrived: AtomicUsize,
    expected: usize,
    all_in: tokio::sync::Notify,
    open: tokio::sync::watch::Sender<bool>,
}

impl Gate {
    async fn pass(&self) {
        // Subscribe before counting in, so the opening cannot be missed.
        let mut open = self.open.subscribe();
        if self.arrived.fetch_add(1, AtomicOrdering::AcqRel) + 1 == self.expected {
            // Stores a permit if the conductor is not waiting yet.
            self.all_in.notify_one();
        }
        // The sender lives in the conductor until every task has finished.
        let _ = open.wait_for(|o| *o).await;
    }
}

/// Runs `tasks` under `spec.driver` and returns what they produced (in order) and where they ran.
fn drive<R: Send + 'static>(
    spec: &TrialSpec,
    tasks: Vec<(String, Task<R>)>,
    progress: Arc<Progress>,
    watchdog: Duration,
) -> (Result<Vec<R>, Failure>, Placement) {
    match spec.driver {
        Driver::Threads => {
            let mut threads = Threads::new(tasks.len(), spec, progress);
            for (name, task) in tasks {
                threads.spawn(&name, move || futures_lite::future::block_on(task));
            }
            threads.run(watchdog)
        }
        driver @ (Driver::TokioCurrent | Driver::TokioMulti { .. }) => {
            let (rt, crew_plan, place) = match runtime(spec, &progress) {
                Ok(x) => x,
                Err(e) => return (Err(Failure::Start(e)), Placement::default()),
            };
            let gate = Arc::new(Gate {
                arrived: AtomicUsize::new(0),
                expected: tasks.len(),
                all_in: tokio::sync::Notify::new(),
                open: tokio::sync::watch::channel(false).0,
            });
            let mut conductor: Threads<Result<Vec<R>, String>> =
                Threads::planned(1, crew_plan, place, spec, progress);
            conductor.spawn("conductor", move || {
                let out = rt.block_on(conduct(tasks, gate));
                rt.shutdown_background();
                out
            });
            let (r, place) = conductor.run(watchdog);
            let r = match r {
                Ok(mut v) => match v.pop() {
                    Some(Ok(members)) => Ok(members),
                    Some(Err(panic)) => Err(Failure::Panicked(panic)),
                    None => Err(Failure::Panicked(
                        "the conductor thread did not report".into(),
                    )),
                },
                Err(Failure::Hung { quiet, .. }) => Err(Failure::Hung {
                    what: format!("the tasks on the {driver} runtime did not finish"),
                    quiet,
                }),
                Err(e) => Err(e),
            };
            (r, place)
        }
    }
}

/// Builds the runtime of `spec.driver` (outside the timed region). Returns it with the plan of
/// the conductor thread and the placement of the threads the tasks run on.
fn runtime(
    spec: &TrialSpec,
    progress: &Arc<Progress>,
) -> Result<(tokio::runtime::Runtime, Plan, Placement), String> {
    match spec.driver {
        Driver::TokioMulti { workers } => {
            let plan = placement::plan(workers, spec.pin);
            let cores = plan.cores.clone();
            let next = Arc::new(AtomicUsize::new(0));
            let progress = progress.clone();
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .thread_name("tokio-worker")
                .on_thread_start(move || {
                    // Workers start first; any later (blocking-pool) thread is left unpinned.
                    let i = next.fetch_add(1, AtomicOrdering::Relaxed);
                    if !placement::apply(cores.get(i).copied().flatten()) {
                        progress.pin_failed.store(true, AtomicOrdering::Relaxed);
                    }
                })
                .build()
                .map_err(|e| format!("could not build a tokio multi-thread runtime: {e}"))?;
            // The conductor is not a worker: it sleeps while the tasks run.
            let conductor = Plan {
                cores: vec![None],
                placement: Placement::default(),
            };
            Ok((rt, conductor, plan.placement))
        }
        _ => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .map_err(|e| format!("could not build a tokio current-thread runtime: {e}"))?;
            // The conductor's thread is the one thread every task runs on.
            let plan = placement::plan(1, spec.pin);
            let place = plan.placement.clone();
            Ok((rt, plan, place))
        }
    }
}

/// The conductor: spawns the tasks, opens the gate once all are in, collects them in order.
async fn conduct<R: Send + 'static>(
    tasks: Vec<(String, Task<R>)>,
    gate: Arc<Gate>,
) -> Result<Vec<R>, String> {
    let n = tasks.len();
    let mut set = tokio::task::JoinSet::new();
    for (i, (_, task)) in tasks.into_iter().enumerate() {
        let gate = gate.clone();
        set.spawn(async move {
            gate.pass().await;
            (i, task.await)
        });
    }
    if n > 0 {
        gate.all_in.notified().await;
    }
    gate.open.send_replace(true);
    let mut out: Vec<Option<R>> = (0..n).map(|_| None).collect();
    while let Some(done) = set.join_next().await {
        match done {
            Ok((i, r)) => out[i] = Some(r),
            // Dropping the set aborts the other tasks (they may be stranded by the panic).
            Err(e) if e.is_panic() => return Err(panic_message(&*e.into_panic())),
            Err(e) => return Err(format!("a task ended without a result: {e}")),
        }
    }
    Ok(out.into_iter().flatten().collect())
}

// ---------------------------------------------------------------------------------------------
// Streams.

struct ProducerReport {
    start: Instant,
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
    id: u32,
    per: u64,
    senders: Arc<[Where]>,
) -> ProducerReport {
    let mut noter = Noter::new(&senders[id as usize]);
    let start = Instant::now();
    let mut refused_after = None;
    for seq in 0..per {
        noter.note();
        if tx.send(M::build(id, seq)).await.is_err() {
            refused_after = Some(seq);
            break;
        }
    }
    drop(tx);
    ProducerReport {
        start,
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
pub(super) fn stream<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let per = (messages / spec.producers as u64).max(1);
    let engine = Stream::<T, M> {
        t,
        sem,
        spec,
        per,
        total: per * spec.producers as u64,
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// An async stream's part of the skeleton ([`sample::run`]): a consumer task per receiver, a
/// producer task per sender.
struct Stream<'a, T, M> {
    t: &'a Arc<T>,
    sem: &'a Semantics,
    spec: &'a TrialSpec,
    /// Messages per producer.
    per: u64,
    /// Messages in all.
    total: u64,
    message: PhantomData<fn() -> M>,
}

impl<'a, T: AsyncTransport, M: Message> Engine for Stream<'a, T, M> {
    type Ends = Endpoints<T::Tx<M>, T::Rx<M>>;
    type Report = Member;
    type Members = Tasks<'a, Member>;

    fn topology(&self) -> (usize, usize) {
        (self.spec.producers, self.spec.consumers)
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn members(&self, progress: Arc<Progress>) -> Tasks<'a, Member> {
        Tasks::new(self.spec, progress)
    }

    fn build(&mut self, cfg: &ChannelConfig, _: &Arc<Progress>) -> Result<Self::Ends, Refused> {
        sample::endpoints(self.t.channel::<M>(cfg)?, cfg.producers, cfg.consumers)
    }

    fn spawn(&mut self, ends: Self::Ends, tasks: &mut Tasks<'a, Member>) {
        let Endpoints { senders, receivers } = ends;
        let (producers, consumers) = (self.spec.producers, self.spec.consumers);
        let (per, total) = (self.per, self.total);
        // Where each producer last ran, for the same-worker count.
        let wheres: Arc<[Where]> = (0..producers).map(|_| Where::default()).collect();
        for (c, rx) in receivers.into_iter().enumerate() {
            let verifier = Verifier::new(producers, per, self.sem.ordering, consumers);
            let progress = tasks.progress().clone();
            let wheres = wheres.clone();
            tasks.push(format!("consumer-{c}"), async move {
                Member::Consumer(
                    consume::<M, T::Rx<M>>(rx, verifier, total, consumers == 1, progress, wheres)
                        .await,
                )
            });
        }
        for (p, tx) in senders.into_iter().enumerate() {
            let wheres = wheres.clone();
            tasks.push(format!("producer-{p}"), async move {
                Member::Producer(produce::<M, T::Tx<M>>(tx, p as u32, per, wheres).await)
            });
        }
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
            ..sample::measured(verdict, elapsed_ns, place)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Ping-pong.

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
pub(super) fn pingpong<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    round_trips: u64,
) -> SampleOutcome {
    let engine = PingPong::<T, M> {
        t,
        spec,
        round_trips,
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// An async ping-pong's part of the skeleton ([`sample::run`]): the pinger's and the ponger's
/// tasks over two channels.
struct PingPong<'a, T, M> {
    t: &'a Arc<T>,
    spec: &'a TrialSpec,
    round_trips: u64,
    message: PhantomData<fn() -> M>,
}

/// A sender and a receiver of an async transport.
type Pair<T, M> = (<T as AsyncTransport>::Tx<M>, <T as AsyncTransport>::Rx<M>);

impl<'a, T: AsyncTransport, M: Message> Engine for PingPong<'a, T, M> {
    /// (request sender, reply receiver) for the pinger, (reply sender, request receiver) for the
    /// ponger.
    type Ends = (Pair<T, M>, Pair<T, M>);
    type Report = PingMember;
    type Members = Tasks<'a, PingMember>;

    fn topology(&self) -> (usize, usize) {
        (1, 1)
    }

    fn total(&self) -> u64 {
        self.round_trips
    }

    fn members(&self, progress: Arc<Progress>) -> Tasks<'a, PingMember> {
        Tasks::new(self.spec, progress)
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
        let round_trips = self.round_trips;
        let mut hist = histogram::new();
        let clock = quanta::Clock::new();
        let prog = tasks.progress().clone();
        // Where the pinger and the ponger last ran: each compares its thread, on every receive,
        // with the one the other side sent from.
        let wheres: Arc<[Where; 2]> = Arc::new([Where::default(), Where::default()]);
        let (pinger_wheres, ponger_wheres) = (wheres.clone(), wheres);
        tasks.push("pinger".to_string(), async move {
            let [mine, theirs] = &*pinger_wheres;
            let mut noter = Noter::new(mine);
            let mut tally = Tally::default();
            let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
            let mut cadence = Cadence::new();
            let start = Instant::now();
            for i in 0..round_trips {
                noter.note();
                let t0 = clock.raw();
                if req_tx.send(M::build(0, i)).await.is_err() {
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
                histogram::record(&mut hist, clock.delta_as_nanos(t0, t1));
                // Round trips count as progress, published between two of them.
                if verifier.count() >= cadence.next() {
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
        tasks.push("ponger".to_string(), async move {
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
