//! The async transport trait: channels whose sides are awaited (tokio's, async-channel, the
//! async halves of flume and kanal).
//!
//! Shaped like [`Transport`](crate::transport::Transport): a family of channels, one per message
//! type, with generic associated endpoint types, so every `send` and `recv` is statically
//! dispatched and inlined into the harness's task. The methods return futures that are `Send`,
//! so the harness can spawn its producers and consumers on a multi-thread runtime.
//!
//! An async transport runs under every [`Driver`](crate::workload::Driver):
//!
//! * `tokio-current` / `tokio-multi:N`: each producer and consumer is a task on a tokio runtime
//!   built before the sample (outside the timed region);
//! * `threads`: each producer and consumer is an OS thread that drives its whole loop with one
//!   lightweight `block_on` (the thread parks while its future is pending). There is one
//!   `block_on` per thread and sample, never one per message.
//!
//! Async transports declare [`WaitStrategy::Async`](crate::semantics::WaitStrategy::Async).
//! Their futures must not need a particular runtime to make progress (tokio's `sync` module,
//! async-channel, flume and kanal are all runtime-agnostic), since the `threads` driver polls
//! them without one.
//!
//! # Disconnection
//! As for [`Transport`](crate::transport::Transport): once every sender is dropped, `recv`
//! drains what is left and then returns `None`.
//!
//! # Example
//! ```
//! use handoff::prelude::*;
//! use handoff::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
//! use std::future::Future;
//!
//! /// tokio's bounded mpsc, as a user would wrap an async channel.
//! struct MyAsyncQueue;
//! struct Tx<M>(tokio::sync::mpsc::Sender<M>);
//! struct Rx<M>(tokio::sync::mpsc::Receiver<M>);
//!
//! impl<M: Message> AsyncSender<M> for Tx<M> {
//!     fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send {
//!         async move { self.0.send(msg).await.map_err(|e| e.0) }
//!     }
//! }
//! impl<M: Message> AsyncReceiver<M> for Rx<M> {
//!     fn recv(&mut self) -> impl Future<Output = Option<M>> + Send {
//!         self.0.recv()
//!     }
//! }
//!
//! impl AsyncTransport for MyAsyncQueue {
//!     type Tx<M: Message> = Tx<M>;
//!     type Rx<M: Message> = Rx<M>;
//!
//!     fn info(&self) -> TransportInfo {
//!         TransportInfo {
//!             name: "my-async-queue".into(),
//!             description: "tokio mpsc, wrapped by a user".into(),
//!             semantics: Semantics {
//!                 producers: Arity::Many,
//!                 consumers: Arity::One,
//!                 ordering: Ordering::PerProducerFifo,
//!                 bound: Bound::Bounded { min_capacity: 1, power_of_two: false },
//!                 wait: WaitStrategy::Async,
//!                 batch: false,
//!                 locality: Locality::CrossThread,
//!                 consumer_style: ConsumerStyle::Pull,
//!                 delivery: Delivery::ExactlyOnce,
//!             },
//!             options: vec![],
//!             test_only: false,
//!             origin: Default::default(),
//!         }
//!     }
//!
//!     fn channel<M: Message>(&self, cfg: &ChannelConfig) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
//!         let (tx, rx) = tokio::sync::mpsc::channel(cfg.capacity);
//!         Ok(Endpoints {
//!             senders: (0..cfg.producers).map(|_| Tx(tx.clone())).collect(),
//!             receivers: vec![Rx(rx)],
//!         })
//!     }
//! }
//!
//! let mut catalog = handoff_transports::builtin();
//! catalog.register(Entry::asynchronous(MyAsyncQueue));
//! assert!(catalog.get("my-async-queue").is_some());
//! ```

use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Endpoints, TransportInfo, TrySendError};
use std::future::Future;

/// The producer side of an async channel.
pub trait AsyncSender<M>: Send + 'static {
    /// Hands one message over, suspending the task while the channel is full. Resolves to the
    /// message back if every consumer is gone.
    fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send;

    /// Hands one message over only if that can be done without waiting, from any context (no
    /// runtime needed). Open-loop workloads, which drive async transports from threads, use it
    /// to count refused sends. The default says the transport cannot tell
    /// ([`TrySendError::Unsupported`]); a transport whose `send` never waits returns what `send`
    /// would.
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        Err(TrySendError::Unsupported(msg))
    }
}

/// The consumer side of an async channel.
pub trait AsyncReceiver<M>: Send + 'static {
    /// Waits for the next message. `None` once every sender is gone and nothing is left.
    fn recv(&mut self) -> impl Future<Output = Option<M>> + Send;

    /// Waits for the next message and lets `f` look at it in place; `false` once the stream has
    /// ended. The harness's consumer uses this. Transports that cannot hand a message out by value
    /// (a latest-value cell that keeps it, a broadcast ring that shares it) override it to verify
    /// the message where it lies; the default receives it and drops it after `f`.
    fn recv_with<F: FnOnce(&M) + Send>(&mut self, f: F) -> impl Future<Output = bool> + Send
    where
        Self: Sized,
    {
        async move {
            match self.recv().await {
                Some(m) => {
                    f(&m);
                    true
                }
                None => false,
            }
        }
    }

    /// Messages the transport dropped before this receiver could see them because it fell
    /// behind (a broadcast ring that overwrote them), since creation. Any is a verification
    /// failure: the harness reports it, it never hides it.
    fn lost(&self) -> u64 {
        0
    }
}

/// A family of async channels (see the module docs).
pub trait AsyncTransport: Send + Sync + 'static {
    /// The producer handle for messages of type `M`.
    type Tx<M: Message>: AsyncSender<M>;
    /// The consumer handle for messages of type `M`.
    type Rx<M: Message>: AsyncReceiver<M>;

    /// Name, description and declared semantics (`wait` is [`WaitStrategy::Async`]).
    ///
    /// [`WaitStrategy::Async`]: crate::semantics::WaitStrategy::Async
    fn info(&self) -> TransportInfo;

    /// Creates one channel with `cfg.producers` senders and `cfg.consumers` receivers, outside the
    /// timed region and outside any runtime (it must not need one to be created).
    #[allow(clippy::type_complexity)]
    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError>;

    /// The drivers this transport runs under, by name, if not every one: a transport whose
    /// futures block in a particular runtime's primitives (the `may` channel, whose waits park
    /// a `may` coroutine and would stall a tokio worker) names the drivers where that is sound.
    /// Under any other driver its trials are `unsupported`, with the reason. The default, `None`,
    /// is every driver (the futures need no particular runtime).
    fn drivers(&self) -> Option<&'static [&'static str]> {
        None
    }
}
