//! Catalog entries: a transport's declared info and its sample runner.
//!
//! [`Entry::pull`], [`Entry::callback`] and [`Entry::asynchronous`] erase a transport's generic
//! parameters behind the object-safe [`Runner`] trait once per *sample*: inside, the payload is
//! matched to its concrete message type and the engine runs fully monomorphised code, so no
//! virtual call sits on the per-message path. A runner also builds the transport's hops for the
//! open-loop engine ([`HopBuilder`]), typed by payload at compile time.
//!
//! This module depends on the engine and the transport traits only; the catalog
//! ([`crate::catalog`], which re-exports [`Entry`] and [`Runner`]) holds entries, and the
//! transports register theirs in it.

use crate::driver::Drivers;
use crate::engine::hop::{boxed, AsyncBoxedHop, BoxedHop, BuildHop, HopBuilder, HopPayload};
use crate::message::Message;
use crate::open_loop::Stamped;
use crate::outcome::SampleOutcome;
use crate::transport::{BuildError, CallbackTransport, ChannelConfig, Transport, TransportInfo};
use crate::transport_async::AsyncTransport;
use crate::workload::Driver;
use crate::workload::TrialSpec;
use std::sync::Arc;

/// Runs samples of one transport (object safe).
pub trait Runner: Send + Sync {
    /// Runs one sample of `spec` moving `messages` messages (round trips for ping-pong).
    ///
    /// Never panics on a transport's failure: panics, hangs and violations become the outcome's
    /// status. A hang is detected when nothing is delivered for the watchdog interval
    /// ([`TrialSpec::watchdog`]); the stuck threads are left behind (running trials in a child
    /// process, as the CLI does, reclaims them).
    ///
    /// Under a driver other than `threads`, the task driver is one of the built-in ones; a
    /// catalog's own drivers are used by [`Runner::run_sample_with`].
    fn run_sample(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome {
        self.run_sample_with(spec, messages, &Drivers::default())
    }

    /// [`Runner::run_sample`], the task driver looked up in `drivers` (a catalog's,
    /// [`Catalog::drivers`](crate::catalog::Catalog::drivers)).
    fn run_sample_with(&self, spec: &TrialSpec, messages: u64, drivers: &Drivers) -> SampleOutcome;

    /// Builds this transport's hops of a pipeline, for every payload. Transports that cannot be
    /// a hop (callback consumers) refuse when asked to build one.
    fn hops(&self) -> &dyn HopBuilder;
}

impl<'r> dyn Runner + 'r {
    /// Builds one channel of stamped messages of payload `M` with boxed endpoints, for a hop of
    /// a pipeline.
    pub fn hop<M: HopPayload>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<BoxedHop<Stamped<M>>, BuildError> {
        M::build_hop(self.hops(), cfg)
    }
}

struct PullRunner<T>(Arc<T>);
struct CallbackRunner<T>(Arc<T>);
struct AsyncRunner<T>(Arc<T>);

/// The hop builder of a transport that cannot be a hop.
struct NoHops;

/// The runner of every catalog entry in the crate's own unit tests, which check what the
/// catalog says of its transports (semantics, plans, hops' declared orderings) and never run
/// one: wrapping a transport in a real runner would compile the whole engine for it and every
/// payload (the unit tests' handful of transports doubled the time their build took). Runs are
/// the integration tests' (`tests/`), which use the crate as built.
#[cfg(test)]
struct Described;

#[cfg(test)]
impl Runner for Described {
    fn run_sample_with(&self, spec: &TrialSpec, _: u64, _: &Drivers) -> SampleOutcome {
        panic!(
            "{}: the unit tests' catalog entries describe transports and run none; run it in an integration test",
            spec.transport
        )
    }

    fn hops(&self) -> &dyn HopBuilder {
        self
    }
}

#[cfg(test)]
impl<M: Message> BuildHop<M> for Described {
    fn build_hop(&self, _: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError> {
        panic!("the unit tests' catalog entries describe transports and build no hop")
    }
}

impl<T: Transport> Runner for PullRunner<T> {
    fn run_sample_with(&self, spec: &TrialSpec, messages: u64, _: &Drivers) -> SampleOutcome {
        crate::engine::run_pull(&self.0, spec, messages)
    }

    fn hops(&self) -> &dyn HopBuilder {
        self
    }
}

impl<T: Transport, M: Message> BuildHop<M> for PullRunner<T> {
    fn build_hop(&self, cfg: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError> {
        Ok(boxed(self.0.channel::<Stamped<M>>(cfg)?))
    }
}

impl<T: CallbackTransport> Runner for CallbackRunner<T> {
    fn run_sample_with(&self, spec: &TrialSpec, messages: u64, _: &Drivers) -> SampleOutcome {
        crate::engine::run_callback(&self.0, spec, messages)
    }

    fn hops(&self) -> &dyn HopBuilder {
        &NoHops
    }
}

impl<M: Message> BuildHop<M> for NoHops {
    fn build_hop(&self, _: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError> {
        Err(BuildError::Unsupported(
            "this transport calls its consumer back; a pipeline hop needs a pull consumer".into(),
        ))
    }
}

impl<T: AsyncTransport> Runner for AsyncRunner<T> {
    fn run_sample_with(&self, spec: &TrialSpec, messages: u64, drivers: &Drivers) -> SampleOutcome {
        crate::engine::run_async(&self.0, spec, messages, drivers)
    }

    fn hops(&self) -> &dyn HopBuilder {
        self
    }
}

/// An async channel as a hop: the open-loop engine's threads drive each send and receive with
/// one `block_on` (see [`crate::async_blocking`]).
impl<T: AsyncTransport, M: Message> BuildHop<M> for AsyncRunner<T> {
    fn build_hop(&self, cfg: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError> {
        let ends = self.0.channel::<Stamped<M>>(cfg)?;
        Ok(boxed(crate::async_blocking::blocking(ends)))
    }

    /// An async channel as a hop awaited by tasks, where the transport runs under `driver`.
    fn build_async_hop(
        &self,
        cfg: &ChannelConfig,
        driver: Driver,
    ) -> Result<AsyncBoxedHop<Stamped<M>>, BuildError> {
        if let Some(only) = self.0.drivers() {
            if !only.contains(&driver.name()) {
                return Err(BuildError::Unsupported(format!(
                    "runs under the drivers {} only (driver {driver} requested)",
                    only.join(", ")
                )));
            }
        }
        Ok(crate::engine::hop::boxed_async(
            self.0.channel::<Stamped<M>>(cfg)?,
        ))
    }
}

/// One transport in the catalog.
#[derive(Clone)]
pub struct Entry {
    info: TransportInfo,
    runner: Arc<dyn Runner>,
    /// How it runs across two processes, if it can.
    #[cfg(target_os = "linux")]
    remote: Option<Arc<dyn crate::engine::processes::Remote>>,
    /// The entry points of its trials' code, as addresses in this process: what the code
    /// identity of this transport is digested from (see [`crate::code`]).
    roots: Vec<usize>,
    /// The crate its trials are compiled in (the crate of the transport's type, which
    /// instantiates the engine for it): every function compiled for it is part of its code.
    code_crate: &'static str,
}

/// The crate that defines `T` (the first segment of its type name).
fn crate_of<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.split("::").next().unwrap_or(name)
}

/// The entry points of the code a runner of type `R` runs: its sample runner and its hop
/// builder, from which every instantiation of the engine for its transport is reached.
fn roots<R: Runner>() -> Vec<usize> {
    vec![
        <R as Runner>::run_sample_with as *const () as usize,
        <R as Runner>::hops as *const () as usize,
    ]
}

impl Entry {
    /// Wraps a pull-style transport.
    #[cfg(not(test))]
    pub fn pull<T: Transport>(t: T) -> Entry {
        Entry::running_pull(t)
    }

    /// [`Entry::pull`] with the runner that runs it (in the unit tests, only compiled).
    #[cfg_attr(test, allow(dead_code))]
    fn running_pull<T: Transport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(PullRunner(Arc::new(t))),
            #[cfg(target_os = "linux")]
            remote: None,
            roots: roots::<PullRunner<T>>(),
            code_crate: crate_of::<T>(),
        }
    }

    /// Wraps a callback-style transport.
    #[cfg(not(test))]
    pub fn callback<T: CallbackTransport>(t: T) -> Entry {
        Entry::running_callback(t)
    }

    /// [`Entry::callback`] with the runner that runs it (in the unit tests, only compiled).
    #[cfg_attr(test, allow(dead_code))]
    fn running_callback<T: CallbackTransport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(CallbackRunner(Arc::new(t))),
            #[cfg(target_os = "linux")]
            remote: None,
            roots: roots::<CallbackRunner<T>>(),
            code_crate: crate_of::<T>(),
        }
    }

    /// Wraps an async transport: it runs under every driver (tasks on a tokio runtime, or OS
    /// threads each driving its loop with one `block_on`).
    #[cfg(not(test))]
    pub fn asynchronous<T: AsyncTransport>(t: T) -> Entry {
        Entry::running_asynchronous(t)
    }

    /// [`Entry::asynchronous`] with the runner that runs it (in the unit tests, only compiled).
    #[cfg_attr(test, allow(dead_code))]
    fn running_asynchronous<T: AsyncTransport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(AsyncRunner(Arc::new(t))),
            #[cfg(target_os = "linux")]
            remote: None,
            roots: roots::<AsyncRunner<T>>(),
            code_crate: crate_of::<T>(),
        }
    }

    /// In the crate's own unit tests, an entry describes its transport and never runs it (see
    /// [`Described`]).
    #[cfg(test)]
    pub fn pull<T: Transport>(t: T) -> Entry {
        Entry::described(t.info(), crate_of::<T>())
    }

    /// As [`Entry::pull`] in the unit tests.
    #[cfg(test)]
    pub fn callback<T: CallbackTransport>(t: T) -> Entry {
        Entry::described(t.info(), crate_of::<T>())
    }

    /// As [`Entry::pull`] in the unit tests.
    #[cfg(test)]
    pub fn asynchronous<T: AsyncTransport>(t: T) -> Entry {
        Entry::described(t.info(), crate_of::<T>())
    }

    /// A transport's description with a runner that runs nothing.
    #[cfg(test)]
    fn described(info: TransportInfo, code_crate: &'static str) -> Entry {
        Entry {
            info,
            runner: Arc::new(Described),
            #[cfg(target_os = "linux")]
            remote: None,
            roots: Vec::new(),
            code_crate,
        }
    }

    /// Wraps a pull-style transport that can also run across two processes (see
    /// [`crate::transport_cross`]).
    #[cfg(target_os = "linux")]
    pub fn cross_process<T: crate::transport_cross::CrossProcess>(t: T) -> Entry {
        let t = Arc::new(t);
        Entry {
            info: t.info(),
            runner: Arc::new(PullRunner(t.clone())),
            remote: Some(Arc::new(crate::engine::processes::RemoteRunner(t))),
            roots: {
                let mut r = roots::<PullRunner<T>>();
                r.push(<crate::engine::processes::RemoteRunner<T> as crate::engine::processes::Remote>::run as *const () as usize);
                r
            },
            code_crate: crate_of::<T>(),
        }
    }

    /// How it runs across two processes, if it can.
    #[cfg(target_os = "linux")]
    pub(crate) fn remote(&self) -> Option<&dyn crate::engine::processes::Remote> {
        self.remote.as_deref()
    }

    /// Whether it can run across two processes (`placement = processes`).
    pub fn crosses_processes(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.remote.is_some();
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Name, description and semantics.
    pub fn info(&self) -> &TransportInfo {
        &self.info
    }

    /// The sample runner.
    pub fn runner(&self) -> &dyn Runner {
        &*self.runner
    }

    /// Makes its code identity the functions its trials call through pointers known only at
    /// run time (a plugin's table), whose addresses this process knows, and what its runner
    /// calls: not the whole crate of its type, which for a plugin is the harness itself, where
    /// every transport's engine is named.
    pub fn with_code_roots(mut self, extra: Vec<usize>) -> Entry {
        if !self.roots.is_empty() {
            self.roots.extend(extra);
            self.code_crate = "";
        }
        self
    }

    /// Declares that its code cannot be identified in this process (its code is loaded
    /// elsewhere, or it cannot run here): comparisons then say its code is unknown.
    pub fn without_code_identity(mut self) -> Entry {
        self.roots.clear();
        self
    }

    /// The addresses, in this process, of the functions its trials enter: the roots of its
    /// code identity (see [`crate::code`]).
    pub fn code_roots(&self) -> &[usize] {
        &self.roots
    }

    /// The crate its trials are compiled in: every function compiled for it is part of its
    /// code identity (see [`crate::code`]); empty for a plugin's transport.
    pub fn code_crate(&self) -> &'static str {
        self.code_crate
    }
}
