//! Running a sample's tasks under the trial's driver: one OS thread per task, or every task on
//! a tokio runtime under one conductor thread (see the [parent module](super)).

use crate::engine::cpu::{self, CpuTally, Side, ThreadClock};
use crate::engine::crew::{panic_message, Progress};
use crate::engine::sample::{Failure, Members, Threads};
use crate::placement::{self, Placement, Plan};
use crate::workload::{Driver, TrialSpec};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One producer's or consumer's whole loop.
type Task<R> = Pin<Box<dyn Future<Output = R> + Send>>;

/// Members as futures, each one producer's or consumer's whole loop, run under the trial's
/// driver when they are collected (see the [parent module](super)).
pub(super) struct Tasks<'a, R> {
    spec: &'a TrialSpec,
    tasks: Vec<(String, Side, Task<R>)>,
    progress: Arc<Progress>,
    cpu: Arc<CpuTally>,
}

impl<'a, R: Send + 'static> Tasks<'a, R> {
    /// No tasks yet, for a sample of `spec` whose members publish into `progress`.
    pub(super) fn new(spec: &'a TrialSpec, progress: Arc<Progress>) -> Tasks<'a, R> {
        Tasks {
            spec,
            tasks: Vec::new(),
            progress,
            cpu: Arc::default(),
        }
    }

    /// Adds a member on `side`: the task `task`, named `name`.
    pub(super) fn push(
        &mut self,
        name: String,
        side: Side,
        task: impl Future<Output = R> + Send + 'static,
    ) {
        self.tasks.push((name, side, Box::pin(task)));
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

    fn cpu(&self) -> Option<Arc<CpuTally>> {
        Some(self.cpu.clone())
    }

    fn run(self, watchdog: Duration) -> (Result<Vec<R>, Failure>, Placement) {
        drive(self.spec, self.tasks, self.progress, self.cpu, watchdog)
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
    tasks: Vec<(String, Side, Task<R>)>,
    progress: Arc<Progress>,
    tally: Arc<CpuTally>,
    watchdog: Duration,
) -> (Result<Vec<R>, Failure>, Placement) {
    match spec.driver {
        Driver::Threads => {
            let mut threads = Threads::new(tasks.len(), spec, progress).counting(tally);
            for (name, side, task) in tasks {
                threads.spawn_as(side, &name, move || futures_lite::future::block_on(task));
            }
            threads.run(watchdog)
        }
        driver @ (Driver::TokioCurrent | Driver::TokioMulti { .. }) => {
            let (rt, crew_plan, place, clocks) = match runtime(spec, &progress) {
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
                let out = rt.block_on(conduct(tasks, gate, clocks, tally));
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

/// The CPU clocks of a multi-thread runtime's threads, each added as its thread starts.
type Clocks = Arc<Mutex<Vec<Option<ThreadClock>>>>;

/// Builds the runtime of `spec.driver` (outside the timed region). Returns it with the plan of
/// the conductor thread, the placement of the threads the tasks run on, and the CPU clocks of
/// the runtime's threads (`None`: the conductor's own thread is the runtime's one thread).
fn runtime(
    spec: &TrialSpec,
    progress: &Arc<Progress>,
) -> Result<(tokio::runtime::Runtime, Plan, Placement, Option<Clocks>), String> {
    match spec.driver {
        Driver::TokioMulti { workers } => {
            let plan = placement::plan(workers, spec.pin);
            let cores = plan.cores.clone();
            let next = Arc::new(AtomicUsize::new(0));
            let progress = progress.clone();
            let clocks = Clocks::default();
            let started = clocks.clone();
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .thread_name("tokio-worker")
                .on_thread_start(move || {
                    started
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(ThreadClock::of_this_thread());
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
            Ok((rt, conductor, plan.placement, Some(clocks)))
        }
        _ => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .map_err(|e| format!("could not build a tokio current-thread runtime: {e}"))?;
            // The conductor's thread is the one thread every task runs on.
            let plan = placement::plan(1, spec.pin);
            let place = plan.placement.clone();
            Ok((rt, plan, place, None))
        }
    }
}

/// The CPU time of a runtime's threads so far, one entry per thread; `None` for a thread whose
/// clock cannot be read.
fn read_clocks(clocks: &Option<Clocks>) -> Vec<Option<u64>> {
    match clocks {
        Some(c) => c
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|c| c.and_then(ThreadClock::read))
            .collect(),
        // The conductor runs the current-thread runtime on its own thread.
        None => vec![cpu::thread_cpu_ns()],
    }
}

/// The CPU time the runtime's threads spent between the reads `start` and `end`: a thread that
/// started after the first read counts from its start. `None` if a clock could not be read.
fn runtime_ns(start: &[Option<u64>], end: &[Option<u64>]) -> Option<u64> {
    let mut ns = 0u64;
    for (i, e) in end.iter().enumerate() {
        let from = match start.get(i) {
            Some(s) => (*s)?,
            None => 0,
        };
        ns = ns.saturating_add((*e)?.saturating_sub(from));
    }
    (!end.is_empty()).then_some(ns)
}

/// The conductor: spawns the tasks, opens the gate once all are in, collects them in order, and
/// adds the CPU time the runtime's threads spent from the opening to the last task's end.
async fn conduct<R: Send + 'static>(
    tasks: Vec<(String, Side, Task<R>)>,
    gate: Arc<Gate>,
    clocks: Option<Clocks>,
    tally: Arc<CpuTally>,
) -> Result<Vec<R>, String> {
    let n = tasks.len();
    let mut set = tokio::task::JoinSet::new();
    for (i, (_, _, task)) in tasks.into_iter().enumerate() {
        let gate = gate.clone();
        set.spawn(async move {
            gate.pass().await;
            (i, task.await)
        });
    }
    if n > 0 {
        gate.all_in.notified().await;
    }
    let start = read_clocks(&clocks);
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
    tally.add_runtime(runtime_ns(&start, &read_clocks(&clocks)));
    Ok(out.into_iter().flatten().collect())
}
