//! Drivers: what runs a trial's producers and consumers as tasks. An extension point beside
//! transports: a [`TaskDriver`] is registered with the catalog
//! ([`Catalog::register_driver`](crate::catalog::Catalog::register_driver)), listed by
//! `handoff list`, and chosen per trial by name (`--driver NAME[:N]`, `driver = [...]` in a
//! suite; see [`Driver`]).
//!
//! A driver is small on purpose. The harness hands it the sample's tasks, each one producer's,
//! consumer's or pipeline stage's whole loop as a future, already wrapped in everything the
//! measurement needs (the start gate, the clock reads, the verifier, the panic capture, the
//! same-worker notes); the driver runs them all to completion and returns. The harness calls
//! [`TaskDriver::run`] on a *conductor* thread of its own, under the sample's watchdog, after the
//! channel is built; the sample's time starts only when every task has reached the start gate,
//! so whatever the driver does first (building a runtime, spawning its threads) is outside the
//! timed region. The driver tells the harness which OS threads run tasks by calling
//! [`DriverContext::enter_worker`] on each as it starts: that pins the thread to the next core
//! the trial's placement planned and counts its CPU time for the sample.
//!
//! The built-in drivers: `threads` is the harness's own crew (one pinned OS thread per member,
//! released by the spinning start line), which every blocking transport also runs on, so it is
//! not a [`TaskDriver`]; `tokio-current` and `tokio-multi:N` ([`tokio`]) and `may:N` ([`may`])
//! are. Under every driver but `threads` the harness runs async transports only: their futures
//! must not need a particular runtime (see [`crate::transport_async`]); a transport that needs
//! its own says so ([`AsyncTransport::drivers`](crate::transport_async::AsyncTransport::drivers)).
//!
//! # Writing a driver
//! ```
//! use handoff::driver::{DriverContext, DriverFailed, DriverInfo, TaskDriver, TaskFuture};
//!
//! /// Runs every task on the conductor's own thread, polling them round-robin.
//! struct RoundRobin;
//!
//! impl TaskDriver for RoundRobin {
//!     fn info(&self) -> DriverInfo {
//!         DriverInfo::new("round-robin", "tasks polled in turn on one thread")
//!     }
//!
//!     fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed> {
//!         ctx.enter_worker(); // the conductor's thread runs every task
//!         let mut tasks: Vec<Option<TaskFuture>> = tasks.into_iter().map(Some).collect();
//!         let waker = std::task::Waker::noop();
//!         let mut cx = std::task::Context::from_waker(waker);
//!         while tasks.iter().any(Option::is_some) {
//!             for slot in tasks.iter_mut() {
//!                 if let Some(t) = slot {
//!                     if t.as_mut().poll(&mut cx).is_ready() {
//!                         *slot = None;
//!                     }
//!                 }
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut catalog = handoff_transports::builtin();
//! catalog.register_driver(RoundRobin);
//! assert!(catalog.driver("round-robin").is_ok());
//! ```
//! `examples/custom-driver` is a complete one (a single-threaded executor that parks its thread
//! between wake-ups), run by the test command.

pub mod may;
pub mod tokio;

use crate::engine::cpu::ThreadClock;
use crate::engine::crew::Progress;
use crate::placement;
use crate::suggest::{LookupError, Thing};
use crate::workload::Driver;
use core_affinity::CoreId;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One task: a producer's, consumer's or stage's whole loop, wrapped by the harness. It never
/// panics (the harness catches a panic inside and reports it).
pub type TaskFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// What a driver says of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverInfo {
    /// The name trials choose it by (lowercase letters, digits and `-`).
    pub name: String,
    /// One line for `handoff list`.
    pub description: String,
    /// Whether it takes a worker count (`name:N`), and whether it needs one.
    pub workers: Workers,
}

impl DriverInfo {
    /// A driver that takes no worker count.
    pub fn new(name: &str, description: &str) -> DriverInfo {
        DriverInfo {
            name: name.into(),
            description: description.into(),
            workers: Workers::None,
        }
    }

    /// This driver taking a worker count: `None` asks for one (`name:N`), `Some(n)` is the
    /// count used when none is written.
    pub fn with_workers(mut self, default: Option<usize>) -> DriverInfo {
        self.workers = match default {
            Some(n) => Workers::Optional { default: n },
            None => Workers::Required,
        };
        self
    }
}

/// Whether a driver takes a worker count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workers {
    /// It runs its tasks on a fixed set of threads (one, usually).
    None,
    /// `name:N` is required.
    Required,
    /// `name:N` may be written; without it, `default` workers.
    Optional {
        /// Workers when none is written.
        default: usize,
    },
}

/// Runs a sample's tasks (see the [module docs](self)).
pub trait TaskDriver: Send + Sync + 'static {
    /// Name, description, worker count.
    fn info(&self) -> DriverInfo;

    /// OS threads the driver runs tasks on when given `workers` (the count written after its
    /// name, or its default): used to plan the placement and to label an oversubscribed trial.
    fn os_threads(&self, workers: Option<usize>) -> usize {
        workers.unwrap_or(1)
    }

    /// Runs every task to completion; returns when all have. Called on the harness's conductor
    /// thread, once per sample. `Err` says why the tasks could not be run (a runtime that could
    /// not be built); a task's own failure is the harness's to report.
    ///
    /// The driver calls [`DriverContext::enter_worker`] on every OS thread that will run tasks
    /// (the conductor's own, if it runs them there) before it runs any.
    fn run(&self, tasks: Vec<TaskFuture>, ctx: &DriverContext) -> Result<(), DriverFailed>;
}

/// Why a driver could not run a sample's tasks, in the driver's own words (for example, a
/// runtime that could not be built). The sample is then `crashed` with this message.
///
/// `?` turns a `String` or `&str` into one:
/// ```
/// # use handoff::driver::DriverFailed;
/// fn build() -> Result<(), DriverFailed> {
///     Err(format!("could not build a runtime: {}", "out of memory"))?
/// }
/// assert_eq!(build().unwrap_err().to_string(), "could not build a runtime: out of memory");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DriverFailed(pub String);

impl From<String> for DriverFailed {
    fn from(why: String) -> DriverFailed {
        DriverFailed(why)
    }
}

impl From<&str> for DriverFailed {
    fn from(why: &str) -> DriverFailed {
        DriverFailed(why.into())
    }
}

/// A trial's driver the catalog cannot run as written ([`Drivers::check`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// No driver of that name (the error names the closest).
    #[error(transparent)]
    Unknown(#[from] LookupError),
    /// A worker count written for a driver that takes none.
    #[error("driver `{written}`: `{name}` takes no worker count (write `{name}`)")]
    TakesNoWorkers {
        /// The driver as the trial wrote it (`name:N`).
        written: String,
        /// The driver's name.
        name: String,
    },
    /// No worker count for a driver that needs one.
    #[error("driver `{name}` needs a worker count, e.g. `{name}:2`")]
    NeedsWorkers {
        /// The driver's name.
        name: String,
    },
}

/// What the harness tells a driver for one sample, and what the driver tells the harness back
/// (which threads run tasks). Cheap to clone; a clone may move into the driver's threads.
#[derive(Clone)]
pub struct DriverContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    workers: Option<usize>,
    cores: Vec<Option<CoreId>>,
    next: AtomicUsize,
    clocks: Mutex<Vec<(std::thread::ThreadId, Option<ThreadClock>)>>,
    progress: Arc<Progress>,
}

impl DriverContext {
    /// A context for a driver given `workers`, whose threads are pinned to `cores` in the
    /// order they enter (`None`: left where the OS puts it); a refused pin is noted in
    /// `progress`.
    pub(crate) fn new(
        workers: Option<usize>,
        cores: Vec<Option<CoreId>>,
        progress: Arc<Progress>,
    ) -> DriverContext {
        DriverContext {
            inner: Arc::new(ContextInner {
                workers,
                cores,
                next: AtomicUsize::new(0),
                clocks: Mutex::default(),
                progress,
            }),
        }
    }

    /// The worker count the trial gave the driver (`name:N`), or the driver's default.
    pub fn workers(&self) -> Option<usize> {
        self.inner.workers
    }

    /// Declares the calling OS thread one that runs tasks: pins it to the next core the trial
    /// planned (threads beyond the plan stay where the OS puts them) and counts its CPU time
    /// for the sample. Calling it again on the same thread does nothing.
    pub fn enter_worker(&self) {
        let me = std::thread::current().id();
        let mut clocks = self.inner.clocks.lock().unwrap_or_else(|p| p.into_inner());
        if clocks.iter().any(|(id, _)| *id == me) {
            return;
        }
        clocks.push((me, ThreadClock::of_this_thread()));
        drop(clocks);
        let i = self.inner.next.fetch_add(1, Ordering::Relaxed);
        if !placement::apply(self.inner.cores.get(i).copied().flatten()) {
            self.inner
                .progress
                .pin_failed
                .store(true, Ordering::Relaxed);
        }
    }

    /// The CPU time so far of every thread that entered, one entry per thread in the order they
    /// entered; `None` for a clock that cannot be read.
    pub(crate) fn read_clocks(&self) -> Vec<Option<u64>> {
        self.inner
            .clocks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(_, c)| c.and_then(ThreadClock::read))
            .collect()
    }
}

/// The drivers a catalog knows beyond `threads`, by name.
#[derive(Clone)]
pub struct Drivers {
    drivers: Vec<Arc<dyn TaskDriver>>,
}

impl Default for Drivers {
    /// The built-in drivers: `tokio-current`, `tokio-multi`, `may`.
    fn default() -> Drivers {
        let mut d = Drivers {
            drivers: Vec::new(),
        };
        d.register(tokio::TokioCurrent);
        d.register(tokio::TokioMulti);
        d.register(may::May);
        d
    }
}

impl Drivers {
    /// Adds a driver; one of the same name is replaced. `threads` cannot be replaced.
    pub fn register(&mut self, driver: impl TaskDriver) {
        let name = driver.info().name;
        self.drivers.retain(|d| d.info().name != name);
        self.drivers.push(Arc::new(driver));
    }

    /// Every registered driver, in registration order.
    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn TaskDriver>> {
        self.drivers.iter()
    }

    /// Every driver name, `threads` first.
    pub fn names(&self) -> Vec<String> {
        std::iter::once("threads".to_string())
            .chain(self.drivers.iter().map(|d| d.info().name))
            .collect()
    }

    /// The driver named `name`, or an error naming the closest.
    pub fn lookup(&self, name: &str) -> Result<&Arc<dyn TaskDriver>, LookupError> {
        self.drivers
            .iter()
            .find(|d| d.info().name == name)
            .ok_or_else(|| {
                let names = self.names();
                LookupError::new(Thing::Driver, name, names.iter().map(String::as_str))
                    .otherwise("`handoff list` names every driver")
            })
    }

    /// Checks a trial's driver: its name is known, and a worker count is written where the
    /// driver needs one and only where it takes one. The message says what was expected.
    pub fn check(&self, driver: Driver) -> Result<(), DriverError> {
        let Driver::Registered { name, workers } = driver else {
            return Ok(());
        };
        let d = self.lookup(name.as_str())?;
        match (d.info().workers, workers) {
            (Workers::None, Some(_)) => Err(DriverError::TakesNoWorkers {
                written: driver.to_string(),
                name: name.to_string(),
            }),
            (Workers::Required, None) => Err(DriverError::NeedsWorkers {
                name: name.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// The driver that runs tasks under `driver` and the worker count it gets; `None` for
    /// `threads` (the harness's own crew).
    pub(crate) fn resolve(
        &self,
        driver: Driver,
    ) -> Result<Option<(Arc<dyn TaskDriver>, Option<usize>)>, DriverError> {
        if driver == Driver::Threads {
            return Ok(None);
        }
        self.check(driver)?;
        let d = self.lookup(driver.name())?.clone();
        let workers = match (driver.workers(), d.info().workers) {
            (Some(n), _) => Some(n),
            (None, Workers::Optional { default }) => Some(default),
            (None, _) => None,
        };
        Ok(Some((d, workers)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver that runs nothing, declaring the worker count it was made with.
    struct Idle(Workers);

    impl TaskDriver for Idle {
        fn info(&self) -> DriverInfo {
            let name = match self.0 {
                Workers::None => "idle-fixed",
                Workers::Required => "idle-counted",
                Workers::Optional { .. } => "idle-optional",
            };
            DriverInfo {
                workers: self.0,
                ..DriverInfo::new(name, "runs nothing")
            }
        }

        fn run(&self, _: Vec<TaskFuture>, _: &DriverContext) -> Result<(), DriverFailed> {
            Err("nothing runs here".into())
        }
    }

    fn drivers() -> Drivers {
        let mut d = Drivers::default();
        d.register(Idle(Workers::None));
        d.register(Idle(Workers::Required));
        d.register(Idle(Workers::Optional { default: 2 }));
        d
    }

    fn check(written: &str) -> Result<(), DriverError> {
        drivers().check(written.parse().expect("a driver name"))
    }

    #[test]
    fn a_driver_as_written_is_checked_by_kind() {
        assert_eq!(check("idle-fixed"), Ok(()));
        assert_eq!(check("idle-counted:3"), Ok(()));
        assert_eq!(check("idle-optional"), Ok(()));
        assert_eq!(check("idle-optional:4"), Ok(()));
        let e = check("idle-fixed:2").unwrap_err();
        assert!(
            matches!(&e, DriverError::TakesNoWorkers { name, written } if name == "idle-fixed" && written == "idle-fixed:2"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "driver `idle-fixed:2`: `idle-fixed` takes no worker count (write `idle-fixed`)"
        );
        let e = check("idle-counted").unwrap_err();
        assert_eq!(
            e,
            DriverError::NeedsWorkers {
                name: "idle-counted".into()
            }
        );
        assert!(e.to_string().contains("e.g. `idle-counted:2`"), "{e}");
        let e = check("idle-fixd").unwrap_err();
        assert!(matches!(e, DriverError::Unknown(_)), "{e:?}");
        assert!(e.to_string().contains("did you mean `idle-fixed`"), "{e}");
    }

    #[test]
    fn a_driver_s_failure_reads_as_its_own_words() {
        let driver = Idle(Workers::None);
        let progress = Arc::new(Progress::default());
        let ctx = DriverContext::new(None, Vec::new(), progress);
        let e = driver.run(Vec::new(), &ctx).unwrap_err();
        assert_eq!(e, DriverFailed("nothing runs here".into()));
        assert_eq!(e.to_string(), "nothing runs here");
    }
}
