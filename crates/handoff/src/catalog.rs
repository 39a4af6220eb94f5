//! The catalog: every transport the harness knows, by name.
//!
//! [`Entry::pull`], [`Entry::callback`] and [`Entry::asynchronous`] erase a transport's generic parameters behind the
//! object-safe [`Runner`] trait once per *sample*: inside, the payload is matched to its concrete
//! message type and the engine runs fully monomorphised code, so no virtual call sits on the
//! per-message path.

use crate::open_loop::Stamped;
use crate::outcome::SampleOutcome;
use crate::payload::PayloadKind;
use crate::transport::{BuildError, CallbackTransport, ChannelConfig, Transport, TransportInfo};
use crate::transport_async::AsyncTransport;
use crate::workload::TrialSpec;
use std::any::Any;
use std::sync::Arc;

/// Runs samples of one transport (object safe).
pub trait Runner: Send + Sync {
    /// Runs one sample of `spec` moving `messages` messages (round trips for ping-pong).
    ///
    /// Never panics on a transport's failure: panics, hangs and violations become the outcome's
    /// status. A hang is detected after `spec.timeout_ms`; the stuck threads are left behind
    /// (running trials in a child process, as the CLI does, reclaims them).
    fn run_sample(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome;

    /// Builds one channel of stamped messages of `payload` with boxed endpoints, for a hop of a
    /// pipeline: a [`crate::engine::pipeline::BoxedHop`] of
    /// [`Stamped`](crate::open_loop::Stamped) messages, type-erased. Transports that cannot be
    /// a hop (callback consumers) refuse.
    fn hop(
        &self,
        payload: PayloadKind,
        cfg: &ChannelConfig,
    ) -> Result<Box<dyn Any + Send>, BuildError> {
        let _ = (payload, cfg);
        Err(BuildError::Unsupported(
            "this transport calls its consumer back; a pipeline hop needs a pull consumer".into(),
        ))
    }
}

struct PullRunner<T>(Arc<T>);
struct CallbackRunner<T>(Arc<T>);
struct AsyncRunner<T>(Arc<T>);

impl<T: Transport> Runner for PullRunner<T> {
    fn run_sample(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome {
        crate::engine::run_pull(&self.0, spec, messages)
    }

    fn hop(
        &self,
        payload: PayloadKind,
        cfg: &ChannelConfig,
    ) -> Result<Box<dyn Any + Send>, BuildError> {
        crate::with_payload!(payload, M => {
            let ends = self.0.channel::<Stamped<M>>(cfg)?;
            Ok(Box::new(crate::engine::pipeline::boxed(ends)) as Box<dyn Any + Send>)
        })
    }
}

impl<T: CallbackTransport> Runner for CallbackRunner<T> {
    fn run_sample(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome {
        crate::engine::run_callback(&self.0, spec, messages)
    }
}

impl<T: AsyncTransport> Runner for AsyncRunner<T> {
    fn run_sample(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome {
        crate::engine::run_async(&self.0, spec, messages)
    }

    /// An async channel as a hop: the open-loop engine's threads drive each send and receive
    /// with one `block_on` (see [`crate::async_blocking`]).
    fn hop(
        &self,
        payload: PayloadKind,
        cfg: &ChannelConfig,
    ) -> Result<Box<dyn Any + Send>, BuildError> {
        crate::with_payload!(payload, M => {
            let ends = crate::async_blocking::blocking(self.0.channel::<Stamped<M>>(cfg)?);
            Ok(Box::new(crate::engine::pipeline::boxed(ends)) as Box<dyn Any + Send>)
        })
    }
}

/// One transport in the catalog.
#[derive(Clone)]
pub struct Entry {
    info: TransportInfo,
    runner: Arc<dyn Runner>,
}

impl Entry {
    /// Wraps a pull-style transport.
    pub fn pull<T: Transport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(PullRunner(Arc::new(t))),
        }
    }

    /// Wraps a callback-style transport.
    pub fn callback<T: CallbackTransport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(CallbackRunner(Arc::new(t))),
        }
    }

    /// Wraps an async transport: it runs under every driver (tasks on a tokio runtime, or OS
    /// threads each driving its loop with one `block_on`).
    pub fn asynchronous<T: AsyncTransport>(t: T) -> Entry {
        Entry {
            info: t.info(),
            runner: Arc::new(AsyncRunner(Arc::new(t))),
        }
    }

    /// Name, description and semantics.
    pub fn info(&self) -> &TransportInfo {
        &self.info
    }

    /// The sample runner.
    pub fn runner(&self) -> &dyn Runner {
        &*self.runner
    }
}

/// A set of transports, looked up by name.
#[derive(Clone, Default)]
pub struct Catalog {
    entries: Vec<Entry>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Every transport shipped with handoff, including the test-only faulty ones.
    pub fn builtin() -> Catalog {
        let mut c = Catalog::new();
        crate::transports::register_all(&mut c);
        crate::faulty::register_all(&mut c);
        c
    }

    /// Adds a transport; a transport of the same name is replaced.
    pub fn register(&mut self, entry: Entry) {
        self.entries.retain(|e| e.info.name != entry.info.name);
        self.entries.push(entry);
    }

    /// The transport of that name.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.info.name == name)
    }

    /// The transport of that name, or an error naming the closest valid names.
    pub fn lookup(&self, name: &str) -> Result<&Entry, String> {
        self.get(name).ok_or_else(|| {
            crate::suggest::unknown(
                "transport",
                name,
                self.entries.iter().map(|e| e.info.name.as_str()),
            )
        })
    }

    /// Every transport, in registration order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
}
