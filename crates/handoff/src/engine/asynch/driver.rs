//! Running a sample's tasks under the trial's driver: one OS thread per task, or every task
//! handed to a registered [`TaskDriver`] by one conductor thread (see the
//! [parent module](super)).

use crate::driver::{DriverContext, DriverFailed, TaskDriver, TaskFuture};
use crate::engine::cpu::{CpuTally, Side};
use crate::engine::crew::{panic_message, Progress};
use crate::engine::sample::{Failure, Members, Threads};
use crate::placement::{self, Placement, Plan};
use crate::workload::TrialSpec;
use futures_lite::FutureExt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One producer's or consumer's whole loop.
pub(crate) type Task<R> = Pin<Box<dyn Future<Output = R> + Send>>;

/// Members as futures, each one producer's or consumer's whole loop, run under the trial's
/// driver when they are collected (see the [parent module](super)).
pub(super) struct Tasks<'a, R> {
    spec: &'a TrialSpec,
    run_on: &'a RunOn,
    tasks: Vec<(String, Side, Task<R>)>,
    progress: Arc<Progress>,
    cpu: Arc<CpuTally>,
}

impl<'a, R: Send + 'static> Tasks<'a, R> {
    /// No tasks yet, for a sample of `spec` run on `run_on`, whose members publish into
    /// `progress`.
    pub(super) fn new(
        spec: &'a TrialSpec,
        run_on: &'a RunOn,
        progress: Arc<Progress>,
    ) -> Tasks<'a, R> {
        Tasks {
            spec,
            run_on,
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
        drive(
            self.spec,
            self.run_on,
            self.tasks,
            self.progress,
            self.cpu,
            watchdog,
        )
    }
}

/// The start gate of tasks under a driver: every task counts itself in, the last one wakes the
/// opener, and all wait until the opener opens the gate. Built on tokio's `sync` primitives,
/// which need no runtime: the gate works under every driver.
struct Gate {
    arrived: AtomicUsize,
    expected: usize,
    all_in: tokio::sync::Notify,
    open: tokio::sync::watch::Sender<bool>,
    /// Tasks still running, and the opener's wake-up when none is.
    running: AtomicUsize,
    all_done: tokio::sync::Notify,
}

impl Gate {
    fn new(tasks: usize) -> Gate {
        Gate {
            arrived: AtomicUsize::new(0),
            expected: tasks,
            all_in: tokio::sync::Notify::new(),
            open: tokio::sync::watch::channel(false).0,
            running: AtomicUsize::new(tasks),
            all_done: tokio::sync::Notify::new(),
        }
    }

    async fn pass(&self) {
        // Subscribe before counting in, so the opening cannot be missed.
        let mut open = self.open.subscribe();
        if self.arrived.fetch_add(1, AtomicOrdering::AcqRel) + 1 == self.expected {
            // Stores a permit if the opener is not waiting yet.
            self.all_in.notify_one();
        }
        // The sender lives as long as the gate.
        let _ = open.wait_for(|o| *o).await;
    }

    fn finished(&self) {
        if self.running.fetch_sub(1, AtomicOrdering::AcqRel) == 1 {
            self.all_done.notify_one();
        }
    }
}

/// The driver a sample's tasks run under: `None` for `threads` (the harness's crew), else the
/// registered driver and the worker count it gets. Resolved once per sample, before anything is
/// built.
pub(crate) type RunOn = Option<(Arc<dyn TaskDriver>, Option<usize>)>;

/// Runs `tasks` under `spec.driver` and returns what they produced (in order) and where they ran.
fn drive<R: Send + 'static>(
    spec: &TrialSpec,
    run_on: &RunOn,
    tasks: Vec<(String, Side, Task<R>)>,
    progress: Arc<Progress>,
    tally: Arc<CpuTally>,
    watchdog: Duration,
) -> (Result<Vec<R>, Failure>, Placement) {
    let Some((driver, workers)) = run_on else {
        let mut threads = Threads::new(tasks.len(), spec, progress).counting(tally);
        for (name, side, task) in tasks {
            threads.spawn_as(side, &name, move || futures_lite::future::block_on(task));
        }
        return threads.run(watchdog);
    };
    let (conductor, slots) = conduct(spec, driver.clone(), *workers, tasks, progress, tally);
    let (r, place) = conductor.run(watchdog);
    let r = match r {
        Ok(mut v) => match v.pop() {
            Some(Ok(())) => collect_slots(&slots).map_err(Failure::Panicked),
            Some(Err(e)) => Err(Failure::Start(e.0)),
            None => Err(Failure::Panicked(
                "the conductor thread did not report".into(),
            )),
        },
        Err(Failure::Hung { quiet, .. }) => Err(Failure::Hung {
            what: format!("the tasks on the {} driver did not finish", spec.driver),
            quiet,
        }),
        Err(e) => Err(e),
    };
    (r, place)
}

/// What each task produced, in order: `None` while it runs, its panic's message if it panicked.
pub(crate) type Slots<R> = Arc<Mutex<Vec<Option<Result<R, String>>>>>;

/// The tasks' results, in order, or the first panic among them.
pub(crate) fn collect_slots<R>(slots: &Slots<R>) -> Result<Vec<R>, String> {
    let mut slots = slots.lock().unwrap_or_else(|p| p.into_inner());
    let mut out = Vec::with_capacity(slots.len());
    for s in slots.iter_mut() {
        match s.take() {
            Some(Ok(r)) => out.push(r),
            Some(Err(panic)) => return Err(panic),
            None => return Err("a task ended without a result".into()),
        }
    }
    Ok(out)
}

/// Sets up the conductor: one unpinned thread of the crew, under the watchdog, that hands the
/// wrapped tasks ([`wrap_tasks`]) to `driver` (see the [parent module](super)).
fn conduct<R: Send + 'static>(
    spec: &TrialSpec,
    driver: Arc<dyn TaskDriver>,
    workers: Option<usize>,
    tasks: Vec<(String, Side, Task<R>)>,
    progress: Arc<Progress>,
    tally: Arc<CpuTally>,
) -> (Threads<Result<(), DriverFailed>>, Slots<R>) {
    let plan = placement::plan(driver.os_threads(workers), spec.pin);
    let ctx = DriverContext::new(workers, plan.cores.clone(), progress.clone());
    let tasks = tasks.into_iter().map(|(_, _, t)| t).collect();
    let (bodies, slots) = wrap_tasks(tasks, &ctx, &progress, tally, || {});
    // The conductor is not one of the driver's workers unless the driver makes it one.
    let conductor_plan = Plan {
        cores: vec![None],
        placement: plan.placement.clone(),
    };
    let mut conductor = Threads::planned(1, conductor_plan, plan.placement, spec, progress);
    conductor.spawn("conductor", move || driver.run(bodies, &ctx));
    (conductor, slots)
}

/// Wraps a sample's tasks for a driver. Each task passes the start gate, runs with its panic
/// caught into its slot (and noted in `progress`, for the watchdog), and counts itself out; one
/// more task, the opener, opens the gate once every task is in (calling `on_open` first) and
/// adds to `tally` the CPU time the driver's threads spent from then until the last task
/// finished.
pub(crate) fn wrap_tasks<R: Send + 'static>(
    tasks: Vec<Task<R>>,
    ctx: &DriverContext,
    progress: &Arc<Progress>,
    tally: Arc<CpuTally>,
    on_open: impl FnOnce() + Send + 'static,
) -> (Vec<TaskFuture>, Slots<R>) {
    let n = tasks.len();
    let gate = Arc::new(Gate::new(n));
    let slots: Slots<R> = Arc::new(Mutex::new((0..n).map(|_| None).collect()));
    let mut bodies: Vec<TaskFuture> = Vec::with_capacity(n + 1);
    for (i, task) in tasks.into_iter().enumerate() {
        let (gate, slots, progress) = (gate.clone(), slots.clone(), progress.clone());
        bodies.push(Box::pin(async move {
            gate.pass().await;
            let r = AssertUnwindSafe(task)
                .catch_unwind()
                .await
                .map_err(|p| panic_message(&*p));
            if let Err(msg) = &r {
                progress.note_panic(msg);
            }
            slots.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            gate.finished();
        }));
    }
    let opener_ctx = ctx.clone();
    bodies.push(Box::pin(async move {
        if n > 0 {
            gate.all_in.notified().await;
        }
        let start = opener_ctx.read_clocks();
        on_open();
        gate.open.send_replace(true);
        if n > 0 {
            gate.all_done.notified().await;
        }
        tally.add_runtime(runtime_ns(&start, &opener_ctx.read_clocks()));
    }));
    (bodies, slots)
}

/// The CPU time the driver's threads spent between the reads `start` and `end`: a thread that
/// entered after the first read counts from its start. `None` if a clock could not be read.
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
