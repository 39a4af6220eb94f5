//! `may:N`: every task is a stackful coroutine on the `may` runtime's scheduler of N worker
//! threads (green threads, the closest public stand-in for the green-thread runtime an
//! actor-runtime comparison sets against tokio).
//!
//! Each task runs in a coroutine of its own, which polls the task's future and, while it is
//! pending, parks the coroutine (not its worker thread) until the future's waker unparks it: an
//! async transport runs on `may` as it runs on tokio. The `may-mpsc` transport's own waits park
//! the coroutine directly, its futures never pending (see
//! `handoff_transports::MayChannel`).
//!
//! `may`'s scheduler is process-wide and its worker count is fixed when it first starts: the first
//! `may:N` trial of a process sets it, and a later trial asking for another count in the same
//! process is refused with the reason (each trial runs in a worker process of its own under the
//! command line, so this happens only to a library caller mixing counts). The coroutines' stacks
//! are 256 KiB (the default 32 KiB is too tight for the harness's verifier and histograms).
//! `may`'s own worker pinning is off: the first coroutine to run on a worker thread pins that
//! thread through [`DriverContext::enter_worker`], as the trial's placement planned.

use super::{DriverContext, DriverFailed, DriverInfo, TaskDriver, TaskFuture};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Wake, Waker};

/// Tasks as coroutines on `may`'s scheduler of N worker threads.
pub struct May;

/// Stack of each coroutine, in bytes.
const STACK_BYTES: usize = 256 * 1024;

/// The worker count `may`'s scheduler was configured with in this process.
static CONFIGURED: OnceLock<usize> = OnceLock::new();

impl TaskDriver for May {
    fn info(&self) -> DriverInfo {
        DriverInfo::new(
            "may",
            "tasks as stackful coroutines (green threads) on the may runtime's N worker threads (may:N)",
        )
        .with_workers(Some(
            std::thread::available_parallelism().map_or(1, |n| n.get()),
        ))
    }

    fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed> {
        let workers = ctx.workers().unwrap_or(1).max(1);
        let configured = *CONFIGURED.get_or_init(|| {
            may::config()
                .set_workers(workers)
                .set_stack_size(STACK_BYTES / std::mem::size_of::<usize>())
                .set_worker_pin(false);
            workers
        });
        if configured != workers {
            return Err(format!(
                "may's scheduler is process-wide and already runs {configured} workers in this process; a trial on may:{workers} needs a process of its own"
            )
            .into());
        }
        let mut handles = Vec::with_capacity(tasks.len());
        for task in tasks {
            let ctx = ctx.clone();
            // SAFETY: `may` marks spawning unsafe because a coroutine may move between worker
            // threads at a yield, so a reference into a thread-local held across a yield would
            // dangle, and because its stack is fixed-size. The task holds no thread-local
            // reference across a yield (the harness's thread-local reads return by value), and
            // its stack is sized above for the harness's frames.
            let h = unsafe {
                may::coroutine::Builder::new()
                    .stack_size(STACK_BYTES / std::mem::size_of::<usize>())
                    .spawn(move || {
                        ctx.enter_worker();
                        block_on(task);
                    })
            }
            .map_err(|e| format!("could not spawn a may coroutine: {e}"))?;
            handles.push(h);
        }
        for h in handles {
            h.join()
                .map_err(|_| "a may coroutine ended in a panic".to_string())?;
        }
        Ok(())
    }
}

/// Unparks the coroutine (or thread) that is polling a future.
struct Unpark(Arc<may::sync::Blocker>);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `task` to completion on the calling coroutine, parking the coroutine while it is
/// pending (an unpark that comes first leaves a permit, so no wake-up is lost).
pub(crate) fn block_on(mut task: TaskFuture) {
    let blocker = may::sync::Blocker::current();
    let waker = Waker::from(Arc::new(Unpark(blocker.clone())));
    let mut cx = Context::from_waker(&waker);
    while task.as_mut().poll(&mut cx).is_pending() {
        let _ = blocker.park(None);
    }
}
