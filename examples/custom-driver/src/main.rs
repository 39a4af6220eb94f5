//! Running handoff's trials on an async runtime of your own, without changing handoff.
//!
//! A *driver* runs the tasks of a trial over an async transport: the harness hands it every
//! producer's and consumer's whole loop as one future, already wrapped in everything the
//! measurement needs (the start gate, the clock reads, the verifier), and the driver runs them
//! all to completion. `OneThread` stands for the runtime of your own crate: a complete
//! single-threaded executor, written out by hand with no executor crate:
//!
//! * a run queue of task indices behind a mutex, and the tasks themselves in slots owned by the
//!   executor's loop;
//! * one [`Wake`] implementation per task, which puts the task's index back on the queue and
//!   unparks the executor's thread;
//! * a loop on the harness's conductor thread that polls the task at the head of the queue and,
//!   when the queue is empty, parks the thread until a waker unparks it.
//!
//! A task is polled once to start it and after that only when it has been woken: never in turn,
//! never on a timer. A task that cannot go on waits in its transport's waker list, and the
//! thread sleeps while every task does. `OneThread` implements `handoff::driver::TaskDriver`, is
//! registered next to the built-in catalog under the name `one-thread`, and the stock command
//! line runs it, here side by side with tokio's current-thread runtime (which also runs every
//! task on one thread):
//!
//! ```sh
//! cargo run --release -p custom-driver -- \
//!     run -w spsc -t tokio-mpsc-bounded --driver one-thread,tokio-current --messages 100000 --samples 3
//! ```
//!
//! Trials run in child processes started from this same executable, so the driver is known
//! there too, and every handoff feature (watchdog, verification, the same-worker share, all
//! output formats) applies to trials on it. It runs any async transport whose futures need no
//! runtime of their own. As one thread runs every task, every hand-off stays on that thread: the
//! trial's same-worker share is 100%.

use handoff::catalog::Catalog;
use handoff::driver::{DriverContext, DriverFailed, DriverInfo, TaskDriver, TaskFuture};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Wake, Waker};
use std::thread::{self, Thread};

/// The driver: every task on the conductor's own thread, each polled when it is woken.
struct OneThread;

impl TaskDriver for OneThread {
    fn info(&self) -> DriverInfo {
        // No `with_workers`: it takes no worker count (`one-thread:2` is refused).
        DriverInfo::new(
            "one-thread",
            "example: a hand-written single-threaded executor that parks its thread between wake-ups",
        )
    }

    /// One OS thread runs the tasks: the conductor's.
    fn os_threads(&self, _: Option<usize>) -> usize {
        1
    }

    fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed> {
        // The conductor's thread is the one thread every task runs on: it is declared (pinned
        // where the trial planned, its CPU time counted) before any task is polled.
        ctx.enter_worker();
        run_to_completion(tasks);
        Ok(())
    }
}

/// What the executor's loop and the tasks' wakers share.
struct Shared {
    /// The run queue.
    ready: Mutex<Ready>,
    /// The executor's thread, unparked when a task is queued.
    executor: Thread,
}

/// The tasks to poll.
struct Ready {
    /// Indices of the tasks to poll, in the order they were woken.
    queue: VecDeque<usize>,
    /// Whether each task is in `queue` already: a task woken twice before it is polled is polled
    /// once, and the queue never holds more than one entry per task.
    queued: Vec<bool>,
}

impl Shared {
    /// The run queue, locked. Nothing panics while it is held, so a poisoned lock still guards
    /// a consistent queue.
    fn ready(&self) -> MutexGuard<'_, Ready> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The waker of the task at `index`.
struct TaskWaker {
    index: usize,
    shared: Arc<Shared>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut ready = self.shared.ready();
        if ready.queued[self.index] {
            // Queued already, and not yet polled: that poll will see whatever this wake is for.
            return;
        }
        ready.queued[self.index] = true;
        ready.queue.push_back(self.index);
        drop(ready);
        // Unparked after the push, so that no wake-up is lost: if the executor found the queue
        // empty just before the push and has not parked yet, this leaves the thread's token and
        // its `park` returns at once. (A wake after every task is done, from a channel that kept
        // a waker, queues a task that is gone and can make a later `park` of that thread return
        // early: a spurious return that every caller of `park` must expect anyway.)
        self.shared.executor.unpark();
    }
}

/// Polls every task to completion on the calling thread and returns when all are done. Each task
/// is polled once to start it, then only after its waker was called; while no task is ready the
/// thread is parked.
fn run_to_completion(tasks: Vec<TaskFuture>) {
    let n = tasks.len();
    let shared = Arc::new(Shared {
        // Every task starts queued, to be polled once, in order.
        ready: Mutex::new(Ready {
            queue: (0..n).collect(),
            queued: vec![true; n],
        }),
        executor: thread::current(),
    });
    let wakers: Vec<Waker> = (0..n)
        .map(|index| {
            Waker::from(Arc::new(TaskWaker {
                index,
                shared: shared.clone(),
            }))
        })
        .collect();
    let mut slots: Vec<Option<TaskFuture>> = tasks.into_iter().map(Some).collect();
    let mut running = n;
    while running > 0 {
        let next = {
            let mut ready = shared.ready();
            let next = ready.queue.pop_front();
            if let Some(i) = next {
                // From here on a wake queues the task again, even one that comes while it is
                // being polled below: no wake is missed.
                ready.queued[i] = false;
            }
            next
        };
        let Some(i) = next else {
            // Nothing is ready: sleep until a waker unparks the thread. A wake between the look
            // at the queue above and this park is not lost (its unpark follows its push, and
            // leaves the token if the thread is not parked yet). `park` may also return for no
            // reason at all: either way the loop looks at the queue again.
            thread::park();
            continue;
        };
        // A task that has finished may still be woken (by a channel that kept its waker).
        let Some(task) = slots[i].as_mut() else {
            continue;
        };
        if task
            .as_mut()
            .poll(&mut Context::from_waker(&wakers[i]))
            .is_ready()
        {
            // Dropped here, on the thread that ran it.
            slots[i] = None;
            running -= 1;
        }
    }
}

/// The built-in catalog, and the `one-thread` driver.
fn catalog() -> Catalog {
    let mut catalog = handoff_transports::builtin();
    catalog.register_driver(OneThread);
    catalog
}

fn main() -> std::process::ExitCode {
    handoff_cli::main_with(catalog())
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::driver::Workers;
    use handoff::outcome::SampleStatus;
    use handoff::payload::PayloadKind;
    use handoff::workload::{Driver, Messages, TrialSpec, WorkloadKind};
    use std::collections::BTreeMap;
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::task::Poll;

    /// Messages per sample.
    const N: u64 = 20_000;

    #[test]
    fn the_catalog_knows_the_driver_by_name() {
        let catalog = catalog();
        let driver = catalog.driver("one-thread").expect("registered");
        assert_eq!(driver.info().name, "one-thread");
        assert_eq!(driver.info().workers, Workers::None);
        assert_eq!(driver.os_threads(None), 1);
        // As a trial names it, it is accepted; with a worker count it is refused.
        let named: Driver = "one-thread".parse().unwrap();
        assert_eq!(catalog.drivers().check(named), Ok(()));
        let counted: Driver = "one-thread:2".parse().unwrap();
        assert!(catalog.drivers().check(counted).is_err());
        // The built-in drivers are still there.
        assert!(catalog.driver("tokio-current").is_ok());
    }

    fn spec(workload: WorkloadKind) -> TrialSpec {
        TrialSpec {
            transport: "tokio-mpsc-bounded".into(),
            workload,
            driver: "one-thread".parse().unwrap(),
            payload: PayloadKind::U64,
            capacity: 64,
            producers: 1,
            consumers: 1,
            messages: Messages::Fixed(N),
            batch: None,
            options: BTreeMap::new(),
            samples: 1,
            warmup: 0,
            // Only a sample that stops delivering for this long is ended: generous, so that a
            // slow machine still passes.
            timeout_ms: 60_000,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing: Default::default(),
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        }
    }

    #[test]
    fn a_sample_on_one_thread_passes_with_exact_counts() {
        let catalog = catalog();
        let entry = catalog.lookup("tokio-mpsc-bounded").unwrap();
        // Each round trip of a ping-pong is two hand-offs, one each way.
        for (workload, handoffs) in [(WorkloadKind::Spsc, N), (WorkloadKind::PingPong, 2 * N)] {
            let spec = spec(workload);
            let label = spec.label();
            let outcome = entry.runner().run_sample_with(&spec, N, catalog.drivers());
            assert_eq!(outcome.status, SampleStatus::Pass, "{label}");
            assert_eq!(outcome.messages, N, "{label}");
            // One thread runs every task: every hand-off stays on it.
            let share = outcome.same_worker.expect("recorded under every driver");
            assert_eq!(share.observed, handoffs, "{label}");
            assert_eq!(share.same, share.observed, "{label}");
        }
    }

    /// Pends `left` times, waking itself (twice) before each, and counts its polls.
    struct Yields {
        left: usize,
        polls: Arc<AtomicUsize>,
    }

    impl Future for Yields {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::Relaxed);
            if self.left == 0 {
                return Poll::Ready(());
            }
            self.left -= 1;
            cx.waker().wake_by_ref();
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn a_task_is_polled_once_per_wake_up() {
        let polls: Vec<Arc<AtomicUsize>> = (0..3).map(|_| Arc::default()).collect();
        let tasks: Vec<TaskFuture> = polls
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Box::pin(Yields {
                    left: 10 * i,
                    polls: p.clone(),
                }) as TaskFuture
            })
            .collect();
        run_to_completion(tasks);
        // Once to start, once after each wake-up (the second wake of each pair finds the task
        // queued already).
        let got: Vec<usize> = polls.iter().map(|p| p.load(Ordering::Relaxed)).collect();
        assert_eq!(got, [1, 11, 21]);
    }

    /// Pends `rounds` times, each time handing its waker to another thread, which notes the
    /// round and wakes it; checks on every poll that it was woken for it.
    struct WokenElsewhere {
        rounds: usize,
        polls: usize,
        to_helper: mpsc::Sender<Waker>,
        woken: Arc<AtomicUsize>,
    }

    impl Future for WokenElsewhere {
        type Output = usize;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            // Every poll after the first follows one wake from the helper: never more polls.
            assert_eq!(self.woken.load(Ordering::Acquire), self.polls);
            self.polls += 1;
            if self.polls > self.rounds {
                return Poll::Ready(self.polls);
            }
            self.to_helper.send(cx.waker().clone()).unwrap();
            Poll::Pending
        }
    }

    #[test]
    fn wake_ups_from_another_thread_are_never_lost() {
        const ROUNDS: usize = 10_000;
        let woken = Arc::new(AtomicUsize::new(0));
        let (to_helper, wakers) = mpsc::channel::<Waker>();
        let helper = {
            let woken = woken.clone();
            thread::spawn(move || {
                for waker in wakers {
                    woken.fetch_add(1, Ordering::Release);
                    waker.wake();
                }
            })
        };
        let polls = Arc::new(AtomicUsize::new(0));
        let out = polls.clone();
        let task = WokenElsewhere {
            rounds: ROUNDS,
            polls: 0,
            to_helper,
            woken,
        };
        // The executor parks after each round until the helper's wake; a lost wake-up would
        // leave it parked for good.
        run_to_completion(vec![Box::pin(async move {
            out.store(task.await, Ordering::Relaxed);
        })]);
        assert_eq!(polls.load(Ordering::Relaxed), ROUNDS + 1);
        helper.join().unwrap();
    }

    #[test]
    fn no_tasks_return_at_once() {
        run_to_completion(Vec::new());
    }
}
