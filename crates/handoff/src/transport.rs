//! The transport traits: how the harness talks to a channel, queue, ring or callback.
//!
//! A transport is a *family* of channels: the harness asks it for a channel of a concrete message
//! type (one per payload), so adapters are generic over the message and every hand-off is
//! statically dispatched; no virtual call sits on the hot path of a measured transport.
//!
//! There are two shapes:
//!
//! * [`Transport`]: the harness's consumer thread *pulls* messages (`recv`). Channels, queues and
//!   rings are of this shape.
//! * [`CallbackTransport`]: the transport *calls* the harness's consumer ([`Sink`]) on a thread of
//!   its own choosing: its own consumer thread (a Disruptor-style ring) or the producer's thread
//!   itself (a direct callback, declared same-thread).
//!
//! Both are wrapped for the catalog by [`crate::catalog::Entry`], which erases the generic
//! parameters once per trial, not once per message.
//!
//! # Disconnection
//! The stream ends when every [`Sender`] has been dropped: `recv` then drains what is left and
//! returns `None`. Transports without a native notion of disconnection (plain lock-free queues)
//! implement it in their adapter, typically with a count of live senders checked when the queue
//! looks empty. The harness relies on this to detect *lost* messages: a consumer that sees the
//! end of the stream before every message arrived reports exactly which ones are missing.

use crate::message::Message;
use crate::semantics::{Semantics, WaitStrategy};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The parameters a channel is created with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelConfig {
    /// Requested capacity in messages (ignored by unbounded transports).
    pub capacity: usize,
    /// Number of [`Sender`]s to create.
    pub producers: usize,
    /// Number of receivers (or callback consumers) to create.
    pub consumers: usize,
    /// Transport-specific options (`wake = "edge"`, …), checked against
    /// [`TransportInfo::options`] before the channel is created.
    pub options: BTreeMap<String, String>,
}

impl ChannelConfig {
    /// A configuration with no transport-specific options.
    pub fn new(capacity: usize, producers: usize, consumers: usize) -> Self {
        ChannelConfig {
            capacity,
            producers,
            consumers,
            options: BTreeMap::new(),
        }
    }

    /// The value of a transport option, if given.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }
}

/// An option a transport accepts, with the values it allows (shown by `handoff list`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionSpec {
    /// The option's name, e.g. `wake`.
    pub name: String,
    /// Allowed values; the first is the default.
    pub values: Vec<String>,
    /// What the option changes.
    pub help: String,
    /// The wait strategy each value gives, in the order of `values`, for an option that chooses
    /// how the transport waits (such as `wait` or `wake`); empty otherwise. Reports show the
    /// strategy of the value a trial ran with instead of the declared default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waits: Vec<WaitStrategy>,
}

impl OptionSpec {
    /// The wait strategy that `value` of this option gives, if the option chooses one.
    pub fn wait_for(&self, value: &str) -> Option<WaitStrategy> {
        let i = self.values.iter().position(|v| v == value)?;
        self.waits.get(i).copied()
    }
}

/// An option stated once: its name, help, and for each value the text accepted on the command
/// line, what the adapter makes of it and, for an option that chooses how the transport waits,
/// the wait strategy it gives. [`OptionTable::spec`] is what the transport declares,
/// [`OptionTable::get`] what its `channel` reads, so the two cannot disagree.
///
/// ```
/// use handoff::prelude::*;
/// use handoff::transport::OptionTable;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Mode { Fast, Safe }
///
/// const MODE: OptionTable<Mode> = OptionTable {
///     name: "mode",
///     help: "fast or safe",
///     values: &[("fast", Mode::Fast), ("safe", Mode::Safe)],
///     waits: &[],
/// };
/// let mut cfg = ChannelConfig::new(8, 1, 1);
/// assert_eq!(MODE.get(&cfg), Mode::Fast); // the first value is the default
/// cfg.options.insert("mode".into(), "safe".into());
/// assert_eq!(MODE.get(&cfg), Mode::Safe);
/// assert_eq!(MODE.spec().values, ["fast", "safe"]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OptionTable<T: 'static> {
    /// The option's name, e.g. `wake`.
    pub name: &'static str,
    /// What the option changes.
    pub help: &'static str,
    /// Each allowed value and what it means to the adapter; the first is the default.
    pub values: &'static [(&'static str, T)],
    /// The wait strategy each value gives, in the order of `values`, or empty (see
    /// [`OptionSpec::waits`]).
    pub waits: &'static [WaitStrategy],
}

impl<T: Copy> OptionTable<T> {
    /// The option as declared in [`TransportInfo::options`].
    pub fn spec(&self) -> OptionSpec {
        OptionSpec {
            name: self.name.into(),
            values: self.values.iter().map(|(v, _)| v.to_string()).collect(),
            help: self.help.into(),
            waits: self.waits.to_vec(),
        }
    }

    /// What the value `cfg` gives this option means; the default (the first value) when the
    /// option is not given. The harness has already refused values not in the table; one that
    /// reaches an adapter anyway is read as the default.
    pub fn get(&self, cfg: &ChannelConfig) -> T {
        let given = cfg.option(self.name);
        let (_, meaning) = self
            .values
            .iter()
            .find(|(v, _)| Some(*v) == given)
            .unwrap_or(&self.values[0]);
        *meaning
    }
}

/// Static description of a transport: its name, what it is, and its declared semantics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportInfo {
    /// The name used on the command line and in suite files (e.g. `crossbeam-bounded`).
    pub name: String,
    /// One line on what is measured.
    pub description: String,
    /// The declared semantics.
    pub semantics: Semantics,
    /// Options accepted in [`ChannelConfig::options`].
    pub options: Vec<OptionSpec>,
    /// Only meant for the harness's own tests (a deliberately faulty transport); hidden from
    /// listings unless asked for.
    pub test_only: bool,
    /// Where the transport comes from: its language, the plugin that provides it, and whether it
    /// could be built here.
    #[serde(default, skip_serializing_if = "Origin::is_default")]
    pub origin: Origin,
}

pub use handoff_model::origin::Origin;

impl TransportInfo {
    /// A transport's description with no options, not test-only, written in Rust.
    pub fn new(name: &str, description: &str, semantics: Semantics) -> TransportInfo {
        TransportInfo {
            name: name.into(),
            description: description.into(),
            semantics,
            options: Vec::new(),
            test_only: false,
            origin: Origin::default(),
        }
    }

    /// The same, written in `language`.
    pub fn in_language(mut self, language: &str) -> TransportInfo {
        self.origin.language = language.into();
        self
    }

    /// The same, accepting one more option.
    pub fn with_option(mut self, option: OptionSpec) -> TransportInfo {
        self.options.push(option);
        self
    }
}

/// Why a channel could not be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The configuration asks for something the transport cannot do (verdict `unsupported`).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The configuration is invalid for this transport (e.g. capacity not a power of two).
    #[error("invalid parameters: {0}")]
    Invalid(String),
}

/// The producer side of a channel.
///
/// `send` completes one hand-off: it returns only when the message is in the transport (or the
/// consumer has run, for a same-thread callback). A transport that spins on a full queue counts
/// its failed `try_*` attempts and reports them through [`Sender::failed_attempts`]; they are
/// shown apart from completed hand-offs and never counted as throughput.
pub trait Sender<M>: Send + 'static {
    /// Hands one message over, waiting as the transport's wait strategy says while it is full.
    /// Returns the message back if every consumer is gone.
    fn send(&mut self, msg: M) -> Result<(), M>;

    /// Hands over a run of messages. Transports with native batch operations override this to
    /// publish once per run; the default sends one at a time.
    ///
    /// Generic (statically dispatched) so the run is inlined into the producer loop.
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M>
    where
        Self: Sized,
    {
        for m in msgs {
            self.send(m)?;
        }
        Ok(())
    }

    /// Hands one message over only if that can be done without waiting.
    ///
    /// Open-loop workloads use this to count *refused* sends (the transport was full at the
    /// moment the message was due). The default says the transport cannot tell
    /// ([`TrySendError::Unsupported`]), and those workloads then fall back to `send`.
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        Err(TrySendError::Unsupported(msg))
    }

    /// Failed non-blocking attempts (queue full) made while sending, since creation.
    fn failed_attempts(&self) -> u64 {
        0
    }
}

/// Boxed senders (the hops of a pipeline, whose transports differ) are senders too.
impl<M: 'static> Sender<M> for Box<dyn Sender<M>> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        (**self).send(msg)
    }
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        (**self).try_send(msg)
    }
    fn failed_attempts(&self) -> u64 {
        (**self).failed_attempts()
    }
}

/// Why [`Sender::try_send`] did not hand the message over; the message comes back.
#[derive(Debug, PartialEq, Eq)]
pub enum TrySendError<M> {
    /// The transport is full right now.
    Full(M),
    /// Every consumer is gone.
    Disconnected(M),
    /// The transport has no non-blocking send.
    Unsupported(M),
}

/// The consumer side of a pull-style channel.
pub trait Receiver<M>: Send + 'static {
    /// Waits for the next message. Returns `None` once every sender is gone and nothing is left.
    fn recv(&mut self) -> Option<M>;

    /// Receives up to `max` messages, calling `f` on each, and returns how many were received;
    /// 0 means the stream has ended. Transports with native batch reads override this to claim a
    /// run of slots at once; the default receives one message.
    ///
    /// Generic (statically dispatched) so `f`, the harness's verifier, is inlined into the
    /// transport's read loop.
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize
    where
        Self: Sized,
    {
        let _ = max;
        match self.recv() {
            Some(m) => {
                f(m);
                1
            }
            None => 0,
        }
    }

    /// Receives up to `max` messages and lends them to `f` in runs, oldest first, then drops
    /// them; returns how many were received, 0 meaning the stream has ended. Transports that can
    /// show a run of their slots in place (rings) override this to lend one or two slices per
    /// call, which the verifier checks without a branch per message; the default lends each
    /// message of a [`recv_batch`](Receiver::recv_batch) as a run of one.
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize
    where
        Self: Sized,
    {
        self.recv_batch(max, |m| f(std::slice::from_ref(&m)))
    }

    /// Failed non-blocking attempts (queue empty) made while receiving, since creation.
    fn failed_attempts(&self) -> u64 {
        0
    }

    /// The consumer is done with every message received so far (a pipeline's reactor has run
    /// on them). A transport that acknowledges to its source (a broker's offset commit, an
    /// explicit ack) may do it here, once per run of the consumer's work rather than once per
    /// message; the default does nothing. Called on the consumer's thread, outside no timed
    /// region of its own: its cost is part of the consumer's.
    fn processed(&mut self) {}

    /// How many messages the next receives return without waiting, as far as this receiver
    /// can tell without waiting: those a broker client has already fetched, say. `None` (the
    /// default) when it cannot tell; the harness then counts what was sent into the hop and not
    /// yet received, which is right for a queue whose sent messages are in it as soon as the
    /// send returns, and wrong for a broker, whose messages spend a network trip getting there.
    /// A pipeline's accumulating reactors (`latest`, `batch`) drain what this says is there
    /// before they run their work.
    fn pending(&mut self) -> Option<usize> {
        None
    }

    /// A probe that asks the source of this receiver's messages, on a connection of its own,
    /// how many it still holds for this consumer unfinished (see [`UncommittedProbe`]); `None`
    /// (the default) for a transport that keeps no such account. A soak's window clock takes it
    /// before the sample starts and reads it at the end of every window.
    fn uncommitted_probe(&self) -> Option<Box<dyn UncommittedProbe>> {
        None
    }
}

/// A broker's own account of a consumer's progress: the messages it holds for the consumer
/// that the consumer has not yet committed or acknowledged (Kafka: the partitions' end offsets
/// less the group's committed offsets; Redis Streams: entries not yet delivered to the group
/// plus those delivered and not acknowledged; JetStream: the consumer's pending plus its
/// acknowledgements outstanding). It differs from the harness's backlog (sent and not yet
/// received) by what was received and not yet committed: a consumer whose commits fall behind
/// shows here first. Read on the window clock's thread, never on the consumer's.
pub trait UncommittedProbe: Send {
    /// The count now; `None` when the broker did not answer this time.
    fn uncommitted(&mut self) -> Option<u64>;
}

/// Boxed receivers (the hops of a pipeline) are receivers too.
impl<M: 'static> Receiver<M> for Box<dyn Receiver<M>> {
    fn recv(&mut self) -> Option<M> {
        (**self).recv()
    }
    fn processed(&mut self) {
        (**self).processed()
    }
    fn pending(&mut self) -> Option<usize> {
        (**self).pending()
    }
    fn uncommitted_probe(&self) -> Option<Box<dyn UncommittedProbe>> {
        (**self).uncommitted_probe()
    }
    fn failed_attempts(&self) -> u64 {
        (**self).failed_attempts()
    }
}

/// The endpoints of one pull-style channel.
pub struct Endpoints<T, R> {
    /// One sender per producer.
    pub senders: Vec<T>,
    /// One receiver per consumer.
    pub receivers: Vec<R>,
}

impl<T, R> Endpoints<T, R> {
    /// The endpoints of a channel whose two ends can both be cloned: `cfg.producers` senders and
    /// `cfg.consumers` receivers, each made by `tx` or `rx` from its own handle (see [`handles`]).
    pub fn cloned<A: Clone, B: Clone>(
        cfg: &ChannelConfig,
        (a, b): (A, B),
        tx: impl FnMut(A) -> T,
        rx: impl FnMut(B) -> R,
    ) -> Self {
        Endpoints {
            senders: handles(cfg.producers, a, tx),
            receivers: handles(cfg.consumers, b, rx),
        }
    }

    /// The endpoints of a channel with one receiver and a sender that can be cloned:
    /// `cfg.producers` senders made by `tx` (see [`handles`]) and the receiver made by `rx`.
    pub fn single_consumer<A: Clone, B>(
        cfg: &ChannelConfig,
        (a, b): (A, B),
        tx: impl FnMut(A) -> T,
        rx: impl FnOnce(B) -> R,
    ) -> Self {
        Endpoints {
            senders: handles(cfg.producers, a, tx),
            receivers: vec![rx(b)],
        }
    }

    /// The endpoints of a single-producer, single-consumer channel.
    pub fn one(sender: T, receiver: R) -> Self {
        Endpoints {
            senders: vec![sender],
            receivers: vec![receiver],
        }
    }
}

/// `n` handles made by `wrap` from `n - 1` clones of `end` and then `end` itself (none, dropping
/// `end`, if `n` is 0): one handle per producer or consumer of a channel whose end can be cloned.
pub fn handles<E: Clone, H>(n: usize, end: E, mut wrap: impl FnMut(E) -> H) -> Vec<H> {
    // Plain pushes, not an iterator chain: see `each_from_last`.
    let mut all = Vec::with_capacity(n);
    if n > 0 {
        for _ in 1..n {
            all.push(wrap(end.clone()));
        }
        all.push(wrap(end));
    }
    all
}

/// Calls `f` with the index and the value of each element of `v`, the last element first.
///
/// Endpoints are handed out once per sample, but that code is compiled for every transport,
/// payload and engine: written with `pop`, it instantiates none of the iterator adapters
/// (`into_iter`, `enumerate`, `map`, in-place `collect`) or slice reversal whose copies for
/// every element type made a large share of the crate's build (see BENCHMARKS.md, "Build
/// time"). Each endpoint keeps its index (and so its producer id and thread name); only the
/// order of spawning changes, which under pinning decides which of the symmetric ids lands on
/// which core.
#[inline]
pub(crate) fn each_from_last<X>(mut v: Vec<X>, mut f: impl FnMut(usize, X)) {
    while let Some(x) = v.pop() {
        f(v.len(), x);
    }
}

/// `v` with `f` applied to each element, in order (see [`each_from_last`]).
#[inline]
pub(crate) fn map_in_order<X, Y>(v: Vec<X>, mut f: impl FnMut(X) -> Y) -> Vec<Y> {
    let mut out = Vec::with_capacity(v.len());
    each_from_last(v, |_, x| out.push(f(x)));
    out.reverse();
    out
}

/// A family of pull-style channels (see the module docs).
///
/// # Example: measuring your own queue
/// ```
/// use handoff::prelude::*;
/// use std::sync::mpsc;
///
/// /// A bounded std channel, as a user would wrap their own queue.
/// struct MyQueue;
///
/// struct Tx<M>(mpsc::SyncSender<M>);
/// struct Rx<M>(mpsc::Receiver<M>);
///
/// impl<M: Message> Sender<M> for Tx<M> {
///     fn send(&mut self, msg: M) -> Result<(), M> {
///         self.0.send(msg).map_err(|e| e.0)
///     }
/// }
/// impl<M: Message> Receiver<M> for Rx<M> {
///     fn recv(&mut self) -> Option<M> {
///         self.0.recv().ok()
///     }
/// }
///
/// impl Transport for MyQueue {
///     type Tx<M: Message> = Tx<M>;
///     type Rx<M: Message> = Rx<M>;
///
///     fn info(&self) -> TransportInfo {
///         TransportInfo {
///             name: "my-queue".into(),
///             description: "std sync_channel, wrapped by a user".into(),
///             semantics: Semantics {
///                 producers: Arity::Many,
///                 consumers: Arity::One,
///                 ordering: Ordering::PerProducerFifo,
///                 bound: Bound::Bounded { min_capacity: 0, power_of_two: false },
///                 wait: WaitStrategy::Block,
///                 batch: false,
///                 locality: Locality::CrossThread,
///                 consumer_style: ConsumerStyle::Pull,
///                 delivery: Delivery::ExactlyOnce,
///             },
///             options: vec![],
///             test_only: false,
///             origin: Default::default(),
///         }
///     }
///
///     fn channel<M: Message>(&self, cfg: &ChannelConfig) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
///         let (tx, rx) = mpsc::sync_channel(cfg.capacity);
///         Ok(Endpoints {
///             senders: (0..cfg.producers).map(|_| Tx(tx.clone())).collect(),
///             receivers: vec![Rx(rx)],
///         })
///     }
/// }
///
/// let mut catalog = handoff_transports::builtin();
/// catalog.register(Entry::pull(MyQueue));
/// assert!(catalog.get("my-queue").is_some());
/// ```
pub trait Transport: Send + Sync + 'static {
    /// The producer handle for messages of type `M`.
    type Tx<M: Message>: Sender<M>;
    /// The consumer handle for messages of type `M`.
    type Rx<M: Message>: Receiver<M>;

    /// Name, description and declared semantics.
    fn info(&self) -> TransportInfo;

    /// Creates one channel with `cfg.producers` senders and `cfg.consumers` receivers.
    ///
    /// Called outside the timed region. The harness has already checked `cfg` against the
    /// declared semantics (arity, capacity bounds), so an adapter only checks what it alone knows.
    #[allow(clippy::type_complexity)]
    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError>;
}

/// The harness's consumer, as seen by a callback transport.
///
/// `accept` is called once per delivered message, by reference: the transport keeps ownership
/// of the message (a Disruptor reuses its slots; a direct callback drops the message after the
/// call returns).
pub trait Sink<M>: Send + 'static {
    /// Consumes one message.
    fn accept(&mut self, msg: &M);
}

/// The running consumer side of a callback transport.
pub trait CallbackHandle<S>: Send + 'static {
    /// Waits until the consumer has seen the end of the stream (every sender dropped) and returns
    /// the sink; `None` if the consumer thread died (panicked).
    fn finish(self) -> Option<S>;
}

/// A family of callback-style channels (see the module docs).
pub trait CallbackTransport: Send + Sync + 'static {
    /// The producer handle.
    type Tx<M: Message, S: Sink<M>>: Sender<M>;
    /// The running consumer.
    type Handle<M: Message, S: Sink<M>>: CallbackHandle<S>;

    /// Name, description and declared semantics.
    fn info(&self) -> TransportInfo;

    /// Creates one channel whose consumer calls `sink`, with `cfg.producers` senders.
    #[allow(clippy::type_complexity)]
    fn connect<M: Message, S: Sink<M>>(
        &self,
        cfg: &ChannelConfig,
        sink: S,
    ) -> Result<(Vec<Self::Tx<M, S>>, Self::Handle<M, S>), BuildError>;
}
