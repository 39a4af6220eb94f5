//! The hops of an open-loop run, as the engine receives them: boxed endpoints of stamped
//! messages, built by whoever knows the transports by name (the catalog) through [`HopSource`].
//!
//! Hops of different transports have different endpoint types, so each hop's endpoints are
//! boxed ([`BoxedHop`]); the open-loop engine is compiled once per payload, not once per
//! transport and payload.
//!
//! The payload is chosen at run time and the transport sits behind a trait object, yet the hop's
//! message type is checked at compile time: a transport's hop builder implements
//! [`BuildHop<M>`] for every payload type `M` (collected in [`HopBuilder`], an object-safe trait
//! whose supertraits name each payload type once), and [`HopPayload`] picks the right one for a
//! payload type. A payload type missing from that list does not compile where the pipeline is
//! instantiated for it (`with_payload!`), rather than failing a trial.

use crate::message::Message;
use crate::open_loop::Stamped;
use crate::payload::{Boxed, Event488, Inline, Report64, Word};
use crate::transport::{
    map_in_order, BuildError, ChannelConfig, Endpoints, Receiver, Sender, TransportInfo,
    TrySendError,
};
use crate::transport_async::{AsyncReceiver, AsyncSender};
use crate::workload::Driver;
use std::future::Future;
use std::pin::Pin;

/// A hop's endpoints, boxed.
pub type BoxedHop<M> = Endpoints<Box<dyn Sender<M>>, Box<dyn Receiver<M>>>;

/// Boxes a hop's endpoints.
pub(crate) fn boxed<M: 'static, S: Sender<M>, R: Receiver<M>>(e: Endpoints<S, R>) -> BoxedHop<M> {
    Endpoints {
        senders: map_in_order(e.senders, |s| Box::new(s) as Box<dyn Sender<M>>),
        receivers: map_in_order(e.receivers, |r| Box::new(r) as Box<dyn Receiver<M>>),
    }
}

/// A boxed future of a hop's async endpoint, borrowing the endpoint.
pub type HopFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The producer side of an async hop, object safe: each send is a boxed future (one allocation
/// per send, small next to the clock reads and histogram records of every open-loop event).
pub trait DynAsyncSender<M>: Send + 'static {
    /// [`AsyncSender::send`], boxed.
    fn send_boxed(&mut self, msg: M) -> HopFuture<'_, Result<(), M>>;
    /// [`AsyncSender::try_send`].
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>>;
}

/// The consumer side of an async hop, object safe, counting its wake-ups: a receive whose first
/// poll found nothing (the task had to wait) and that later completed with a message, after
/// being woken.
pub trait DynAsyncReceiver<M>: Send + 'static {
    /// [`AsyncReceiver::recv`], boxed and counted.
    fn recv_boxed(&mut self) -> HopFuture<'_, Option<M>>;
    /// Receives that had to wait and were woken, since creation.
    fn wakeups(&self) -> u64;
}

/// A hop's async endpoints, boxed: the hops of a pipeline whose stages are tasks.
pub type AsyncBoxedHop<M> = Endpoints<Box<dyn DynAsyncSender<M>>, Box<dyn DynAsyncReceiver<M>>>;

/// An async sender as a [`DynAsyncSender`].
struct DynTx<S>(S);

/// An async receiver as a [`DynAsyncReceiver`], with its wake-up count.
struct DynRx<R> {
    rx: R,
    wakeups: u64,
}

impl<M: Message, S: AsyncSender<M>> DynAsyncSender<M> for DynTx<S> {
    fn send_boxed(&mut self, msg: M) -> HopFuture<'_, Result<(), M>> {
        Box::pin(self.0.send(msg))
    }
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg)
    }
}

impl<M: Message, R: AsyncReceiver<M>> DynAsyncReceiver<M> for DynRx<R> {
    fn recv_boxed(&mut self) -> HopFuture<'_, Option<M>> {
        let DynRx { rx, wakeups } = self;
        Box::pin(async move {
            let mut recv = std::pin::pin!(rx.recv());
            let mut waited = false;
            let m = std::future::poll_fn(|cx| {
                let p = recv.as_mut().poll(cx);
                waited |= p.is_pending();
                p
            })
            .await;
            // The end of the stream is no message: its wait is not counted.
            *wakeups += u64::from(waited && m.is_some());
            m
        })
    }
    fn wakeups(&self) -> u64 {
        self.wakeups
    }
}

/// A boxed async sender used from a thread (an injector writing the first hop of a pipeline
/// whose stages are tasks): `try_send` as the transport's, a blocking send driven by one
/// `block_on`.
impl<M: 'static> Sender<M> for Box<dyn DynAsyncSender<M>> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        futures_lite::future::block_on(self.send_boxed(msg))
    }
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        (**self).try_send(msg)
    }
}

/// Boxes an async channel's endpoints, counting its receivers' wake-ups.
pub(crate) fn boxed_async<M: Message, S: AsyncSender<M>, R: AsyncReceiver<M>>(
    e: Endpoints<S, R>,
) -> AsyncBoxedHop<M> {
    Endpoints {
        senders: map_in_order(e.senders, |s| {
            Box::new(DynTx(s)) as Box<dyn DynAsyncSender<M>>
        }),
        receivers: map_in_order(e.receivers, |rx| {
            Box::new(DynRx { rx, wakeups: 0 }) as Box<dyn DynAsyncReceiver<M>>
        }),
    }
}

/// Builds hops of one transport carrying stamped messages of payload `M`.
pub trait BuildHop<M: Message> {
    /// One channel of [`Stamped<M>`] for a hop configured by `cfg`, its endpoints boxed.
    /// Transports that cannot be a hop (callback consumers) refuse.
    fn build_hop(&self, cfg: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError>;

    /// One channel for a hop whose stages are tasks under `driver`, its async endpoints boxed.
    /// Only async transports can be awaited; the others refuse, as do async transports that do
    /// not run under `driver`.
    fn build_async_hop(
        &self,
        cfg: &ChannelConfig,
        driver: Driver,
    ) -> Result<AsyncBoxedHop<Stamped<M>>, BuildError> {
        let _ = cfg;
        Err(BuildError::Unsupported(format!(
            "a blocking transport cannot be awaited by a task: under driver {driver} every hop must be an async transport (run it with driver threads)"
        )))
    }
}

/// The source of a pipeline's hops: the transports of its hops, by name. The catalog
/// implements it.
pub trait HopSource {
    /// The transport named `name`: its declared info and its hop builder; or an error naming
    /// the closest valid names.
    fn hop_transport(
        &self,
        name: &str,
    ) -> Result<(&TransportInfo, &dyn HopBuilder), crate::suggest::LookupError>;

    /// The drivers a pipeline's stages can run under (the built-in ones unless overridden).
    fn drivers(&self) -> &crate::driver::Drivers {
        static BUILTIN: std::sync::OnceLock<crate::driver::Drivers> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(Default::default)
    }
}

/// A payload type a [`HopBuilder`] builds hops for: every message type of
/// [`with_payload!`](crate::with_payload).
pub trait HopPayload: Message {
    /// Builds one hop of `builder`'s transport carrying stamped messages of this payload.
    fn build_hop(
        builder: &dyn HopBuilder,
        cfg: &ChannelConfig,
    ) -> Result<BoxedHop<Stamped<Self>>, BuildError>;

    /// Builds one async hop of `builder`'s transport for tasks under `driver`.
    fn build_async_hop(
        builder: &dyn HopBuilder,
        cfg: &ChannelConfig,
        driver: Driver,
    ) -> Result<AsyncBoxedHop<Stamped<Self>>, BuildError>;
}

/// Declares [`HopBuilder`] over the payload types, and [`HopPayload`] for each of them.
macro_rules! hop_payloads {
    ($($M:ty),* $(,)?) => {
        /// Builds hops of one transport for every payload type (object safe): one
        /// [`BuildHop`] supertrait per payload type. Implemented by everything that implements
        /// each of them.
        pub trait HopBuilder: $(BuildHop<$M> +)* {}

        impl<T: ?Sized $(+ BuildHop<$M>)*> HopBuilder for T {}

        $(
            impl HopPayload for $M {
                fn build_hop(
                    builder: &dyn HopBuilder,
                    cfg: &ChannelConfig,
                ) -> Result<BoxedHop<Stamped<Self>>, BuildError> {
                    BuildHop::<$M>::build_hop(builder, cfg)
                }

                fn build_async_hop(
                    builder: &dyn HopBuilder,
                    cfg: &ChannelConfig,
                    driver: Driver,
                ) -> Result<AsyncBoxedHop<Stamped<Self>>, BuildError> {
                    BuildHop::<$M>::build_async_hop(builder, cfg, driver)
                }
            }
        )*
    };
}

hop_payloads!(
    Word,
    Report64,
    Event488<false>,
    Event488<true>,
    Inline<0>,
    Inline<6>,
    Inline<30>,
    Inline<126>,
    Inline<510>,
    Boxed,
);
