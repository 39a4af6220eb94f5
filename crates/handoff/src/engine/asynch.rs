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
//! In both cases each future reads the clock as it starts (after the start line or gate); the
//! sample runs from the earliest of those reads to the moment the consumer received the last
//! expected message, as in the thread engine. Every message is verified by the consumer
//! ([`Verifier`]); a receiver that lost messages by lagging ([`AsyncReceiver::lost`]) fails the
//! sample. A task that panics makes the sample `crashed` with its message, a sample that does not
//! end before the watchdog `hung`.

use super::crew::{panic_message, Crew, CrewError, Progress, PROGRESS_EVERY};
use super::stream::build_failed;
use crate::histogram;
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::{self, Placement, Plan};
use crate::semantics::{Ordering, Semantics};
use crate::transport::{ChannelConfig, Endpoints};
use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
use crate::verify::{self, Verifier};
use crate::workload::{Driver, TrialSpec};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One producer's or consumer's whole loop.
type Task<R> = Pin<Box<dyn Future<Output = R> + Send>>;

// ---------------------------------------------------------------------------------------------
// Running a set of tasks under a driver.

/// Why the tasks did not all finish.
enum DriveError {
    /// The runtime could not be built.
    Runtime(String),
    /// A thread or task failed or the watchdog fired.
    Crew(CrewError),
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
) -> (Result<Vec<R>, DriveError>, Placement) {
    let deadline = |spec: &TrialSpec| Instant::now() + Duration::from_millis(spec.timeout_ms);
    match spec.driver {
        Driver::Threads => {
            let plan = placement::plan(tasks.len(), spec.pin);
            let mut place = plan.placement.clone();
            let mut crew: Crew<R> = Crew::new(tasks.len(), plan).laid_out(spec.layout);
            crew.progress = progress.clone();
            for (name, task) in tasks {
                crew.spawn(&name, move || futures_lite::future::block_on(task));
            }
            let r = crew.collect(deadline(spec)).map_err(DriveError::Crew);
            note_pins(&mut place, &progress);
            (r, place)
        }
        Driver::TokioCurrent | Driver::TokioMulti { .. } => {
            let (rt, crew_plan, mut place) = match runtime(spec, &progress) {
                Ok(x) => x,
                Err(e) => return (Err(DriveError::Runtime(e)), Placement::default()),
            };
            let gate = Arc::new(Gate {
                arrived: AtomicUsize::new(0),
                expected: tasks.len(),
                all_in: tokio::sync::Notify::new(),
                open: tokio::sync::watch::channel(false).0,
            });
            let mut crew: Crew<Result<Vec<R>, String>> =
                Crew::new(1, crew_plan).laid_out(spec.layout);
            crew.progress = progress.clone();
            crew.spawn("conductor", move || {
                let out = rt.block_on(conduct(tasks, gate));
                rt.shutdown_background();
                out
            });
            let r = match crew.collect(deadline(spec)) {
                Ok(mut v) => match v.pop() {
                    Some(Ok(members)) => Ok(members),
                    Some(Err(panic)) => Err(DriveError::Crew(CrewError::Panicked(panic))),
                    None => Err(DriveError::Crew(CrewError::Panicked(
                        "the conductor thread did not report".into(),
                    ))),
                },
                Err(e) => Err(DriveError::Crew(e)),
            };
            note_pins(&mut place, &progress);
            (r, place)
        }
    }
}

/// Records a refused pin request in the placement.
fn note_pins(place: &mut Placement, progress: &Progress) {
    if progress.pin_failed.load(AtomicOrdering::Relaxed) {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
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

/// The outcome when the tasks did not all finish.
fn drive_failed(
    e: DriveError,
    progress: &Progress,
    total: u64,
    spec: &TrialSpec,
    place: Placement,
) -> SampleOutcome {
    let delivered = progress.delivered.load(AtomicOrdering::Relaxed);
    let status = match e {
        DriveError::Runtime(why) => SampleStatus::Crashed(why),
        DriveError::Crew(CrewError::Panicked(msg)) => SampleStatus::Crashed(msg),
        DriveError::Crew(CrewError::Hung {
            finished,
            total: members,
        }) => {
            let what = match spec.driver {
                Driver::Threads => format!("{finished} of {members} threads finished"),
                d => format!("the tasks on the {d} runtime did not finish"),
            };
            SampleStatus::Hung(format!(
                "no end after {} ms: {what}, about {delivered} of {total} messages delivered",
                spec.timeout_ms
            ))
        }
    };
    SampleOutcome::status_only(status, place)
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
}

enum Member {
    Producer(ProducerReport),
    Consumer(ConsumerReport),
}

async fn produce<M: Message, S: AsyncSender<M>>(mut tx: S, id: u32, per: u64) -> ProducerReport {
    let start = Instant::now();
    let mut refused_after = None;
    for seq in 0..per {
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
) -> ConsumerReport {
    let start = Instant::now();
    let mut end = None;
    {
        let mut s = v.stream();
        while rx.recv_with(|m| s.observe(m)).await {
            let n = s.count();
            if n % PROGRESS_EVERY == 0 {
                progress.delivered.store(n, AtomicOrdering::Relaxed);
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
    progress.delivered.store(v.count(), AtomicOrdering::Relaxed);
    ConsumerReport {
        start,
        end,
        verifier: v,
    }
}

/// Runs one streaming sample (`spsc`, `mpsc`, `mpmc`) of an async transport.
pub(super) fn stream<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let producers = spec.producers;
    let consumers = spec.consumers;
    let per = (messages / producers as u64).max(1);
    let total = per * producers as u64;
    let cfg = ChannelConfig {
        capacity: spec.capacity,
        producers,
        consumers,
        options: spec.options.clone(),
    };
    let Endpoints { senders, receivers } = match t.channel::<M>(&cfg) {
        Ok(e) => e,
        Err(e) => return build_failed(e, Placement::default()),
    };
    if senders.len() != producers || receivers.len() != consumers {
        let why = format!(
            "adapter returned {} senders and {} receivers for {producers} and {consumers}",
            senders.len(),
            receivers.len()
        );
        return SampleOutcome::status_only(SampleStatus::Crashed(why), Placement::default());
    }

    let progress = Arc::new(Progress::default());
    let mut tasks: Vec<(String, Task<Member>)> = Vec::with_capacity(producers + consumers);
    for (c, rx) in receivers.into_iter().enumerate() {
        let verifier = Verifier::new(producers, per, sem.ordering, consumers);
        let progress = progress.clone();
        tasks.push((
            format!("consumer-{c}"),
            Box::pin(async move {
                Member::Consumer(
                    consume::<M, T::Rx<M>>(rx, verifier, total, consumers == 1, progress).await,
                )
            }),
        ));
    }
    for (p, tx) in senders.into_iter().enumerate() {
        tasks.push((
            format!("producer-{p}"),
            Box::pin(
                async move { Member::Producer(produce::<M, T::Tx<M>>(tx, p as u32, per).await) },
            ),
        ));
    }

    let (members, place) = drive(spec, tasks, progress.clone());
    let members = match members {
        Ok(m) => m,
        Err(e) => return drive_failed(e, &progress, total, spec, place),
    };
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
    let mut verifiers: Vec<Verifier> = cons.into_iter().map(|c| c.verifier).collect();
    if let (Some(p), Some(v)) = (
        prods.iter().find(|p| p.refused_after.is_some()),
        verifiers.first_mut(),
    ) {
        v.note_disconnect(p.producer, p.refused_after.unwrap_or(0));
    }
    let verdict = verify::merge(verifiers);
    SampleOutcome {
        status: match verdict.violation {
            None => SampleStatus::Pass,
            Some(v) => SampleStatus::Fail(v),
        },
        messages: verdict.count,
        elapsed_ns: end.saturating_duration_since(start).as_nanos() as u64,
        failed_sends: 0,
        failed_recvs: 0,
        digest: verdict.digest,
        latency: None,
        placement: place,
        paced: None,
        layout: None,
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
    },
    Ponger {
        start: Instant,
        verifier: Verifier,
    },
}

/// Runs one ping-pong sample of an async transport: request `i` goes out, its reply is awaited
/// and checked before request `i + 1`; each round trip's time goes into a full histogram.
pub(super) fn pingpong<T: AsyncTransport, M: Message>(
    t: &Arc<T>,
    spec: &TrialSpec,
    round_trips: u64,
) -> SampleOutcome {
    let cfg = ChannelConfig {
        capacity: spec.capacity,
        producers: 1,
        consumers: 1,
        options: spec.options.clone(),
    };
    let there = match t.channel::<M>(&cfg) {
        Ok(e) => e,
        Err(e) => return build_failed(e, Placement::default()),
    };
    let back = match t.channel::<M>(&cfg) {
        Ok(e) => e,
        Err(e) => return build_failed(e, Placement::default()),
    };
    let (Some((mut req_tx, mut rep_rx)), Some((mut rep_tx, mut req_rx))) = single_pair(there, back)
    else {
        return SampleOutcome::status_only(
            SampleStatus::Crashed("adapter returned the wrong number of endpoints".into()),
            Placement::default(),
        );
    };

    let progress = Arc::new(Progress::default());
    let mut hist = histogram::new();
    let clock = quanta::Clock::new();
    let prog = progress.clone();
    let pinger: Task<PingMember> = Box::pin(async move {
        let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
        let start = Instant::now();
        for i in 0..round_trips {
            let t0 = clock.raw();
            if req_tx.send(M::build(0, i)).await.is_err() {
                verifier.note_disconnect(0, i);
                break;
            }
            let Some(reply) = rep_rx.recv().await else {
                break;
            };
            let t1 = clock.raw();
            verifier.observe(&reply);
            drop(reply);
            histogram::record(&mut hist, clock.delta_as_nanos(t0, t1));
            if verifier.count() % PROGRESS_EVERY == 0 {
                prog.delivered
                    .store(verifier.count(), AtomicOrdering::Relaxed);
            }
            if verifier.count() != i + 1 {
                break;
            }
        }
        let end = Instant::now();
        drop(req_tx);
        PingMember::Pinger {
            start,
            end,
            verifier,
            hist,
        }
    });
    let ponger: Task<PingMember> = Box::pin(async move {
        let mut verifier = Verifier::new(1, round_trips, Ordering::PerProducerFifo, 1);
        let start = Instant::now();
        while let Some(req) = req_rx.recv().await {
            verifier.observe(&req);
            if rep_tx.send(req).await.is_err() {
                break;
            }
        }
        PingMember::Ponger { start, verifier }
    });

    let tasks = vec![
        ("pinger".to_string(), pinger),
        ("ponger".to_string(), ponger),
    ];
    let (members, place) = drive(spec, tasks, progress.clone());
    let members = match members {
        Ok(m) => m,
        Err(e) => return drive_failed(e, &progress, round_trips, spec, place),
    };
    let mut it = members.into_iter();
    let (
        Some(PingMember::Pinger {
            start,
            end,
            verifier,
            hist,
        }),
        Some(PingMember::Ponger {
            start: s2,
            verifier: v2,
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
    let violation = requests.violation.or(replies.violation);
    SampleOutcome {
        status: match violation {
            None => SampleStatus::Pass,
            Some(v) => SampleStatus::Fail(v),
        },
        messages: replies.count,
        elapsed_ns: end.saturating_duration_since(start.min(s2)).as_nanos() as u64,
        failed_sends: 0,
        failed_recvs: 0,
        digest: replies.digest,
        latency: Some(histogram::encode(&hist)),
        placement: place,
        paced: None,
        layout: None,
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
