//! The tokio drivers: `tokio-current` (every task on one current-thread runtime, driven by the
//! conductor's own thread) and `tokio-multi:N` (a multi-thread runtime of N workers; the
//! conductor sleeps in `block_on` until every task has finished).
//!
//! The runtime is built for each sample when [`TaskDriver::run`] is called, before any task has
//! reached the start gate, so its construction is outside the timed region; it is shut down in
//! the background once every task has finished (a task the watchdog gave up on is left
//! behind with it).

use super::{DriverContext, DriverFailed, DriverInfo, TaskDriver, TaskFuture};

/// Tasks on one tokio current-thread runtime: they take turns on the conductor's thread.
pub struct TokioCurrent;

/// Tasks on a tokio multi-thread runtime of N worker threads, pinned to distinct cores as they
/// start where there are enough.
pub struct TokioMulti;

impl TaskDriver for TokioCurrent {
    fn info(&self) -> DriverInfo {
        DriverInfo::new(
            "tokio-current",
            "tasks on one tokio current-thread runtime: producer and consumer take turns on one thread",
        )
    }

    fn os_threads(&self, _: Option<usize>) -> usize {
        1
    }

    fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| format!("could not build a tokio current-thread runtime: {e}"))?;
        // The conductor's thread is the one thread every task runs on.
        ctx.enter_worker();
        rt.block_on(join_all(tasks));
        rt.shutdown_background();
        Ok(())
    }
}

impl TaskDriver for TokioMulti {
    fn info(&self) -> DriverInfo {
        DriverInfo::new(
            "tokio-multi",
            "tasks on a tokio multi-thread runtime of N worker threads (tokio-multi:N)",
        )
        .with_workers(Some(
            std::thread::available_parallelism().map_or(1, |n| n.get()),
        ))
    }

    fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed> {
        let workers = ctx.workers().unwrap_or(1).max(1);
        let started = ctx.clone();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("tokio-worker")
            // Workers start first; a later (blocking-pool) thread is left unpinned.
            .on_thread_start(move || started.enter_worker())
            .build()
            .map_err(|e| format!("could not build a tokio multi-thread runtime: {e}"))?;
        // The conductor is not a worker: it sleeps until the tasks have finished.
        rt.block_on(join_all(tasks));
        rt.shutdown_background();
        Ok(())
    }
}

/// Spawns every task on the current runtime and waits for all of them.
async fn join_all(tasks: Vec<TaskFuture>) {
    let mut set = tokio::task::JoinSet::new();
    for t in tasks {
        set.spawn(t);
    }
    while set.join_next().await.is_some() {}
}
