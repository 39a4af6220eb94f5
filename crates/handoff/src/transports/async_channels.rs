//! Runtime-agnostic async channels: `async-channel-bounded`, `flume-async` and `kanal-async`.
//!
//! * `async-channel-bounded`: `async_channel::bounded(capacity)` (smol's channel: a
//!   `concurrent-queue` plus `event-listener` wake-ups). MPMC; capacity 0 is refused by the
//!   crate, so the minimum is 1.
//! * `flume-async`: `flume::bounded(capacity)` through `send_async` / `recv_async`, the same
//!   channel as `flume-bounded` with task wakers instead of parked threads. 0 is a rendezvous.
//! * `kanal-async`: `kanal::bounded_async(capacity)`. kanal's async `send` drops the value when
//!   every receiver is gone; as in `kanal-bounded`, the adapter reads the header first and, on
//!   that failure path only, returns an identical message rebuilt from it. 0 is a rendezvous.

use crate::prelude::*;
use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};

fn info(name: &str, description: &str, min_capacity: usize) -> TransportInfo {
    TransportInfo {
        name: name.into(),
        description: description.into(),
        semantics: Semantics {
            producers: Arity::Many,
            consumers: Arity::Many,
            ordering: Ordering::PerProducerFifo,
            bound: Bound::Bounded {
                min_capacity,
                power_of_two: false,
            },
            wait: WaitStrategy::Async,
            batch: false,
            locality: Locality::CrossThread,
            consumer_style: ConsumerStyle::Pull,
        },
        options: vec![],
        test_only: false,
    }
}

// ---------------------------------------------------------------------------------------------
// async-channel

/// `async-channel-bounded`: `async_channel::bounded(capacity)`.
pub struct AsyncChannelBounded;

/// Producer handle of `async-channel-bounded`.
pub struct AsyncChannelTx<M>(async_channel::Sender<M>);

/// Consumer handle of `async-channel-bounded`.
pub struct AsyncChannelRx<M>(async_channel::Receiver<M>);

impl<M: Message> AsyncSender<M> for AsyncChannelTx<M> {
    #[inline]
    async fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).await.map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            async_channel::TrySendError::Full(m) => TrySendError::Full(m),
            async_channel::TrySendError::Closed(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> AsyncReceiver<M> for AsyncChannelRx<M> {
    #[inline]
    async fn recv(&mut self) -> Option<M> {
        self.0.recv().await.ok()
    }
}

impl AsyncTransport for AsyncChannelBounded {
    type Tx<M: Message> = AsyncChannelTx<M>;
    type Rx<M: Message> = AsyncChannelRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "async-channel-bounded",
            "async_channel::bounded(capacity), async send/recv",
            1,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<AsyncChannelTx<M>, AsyncChannelRx<M>>, BuildError> {
        let (tx, rx) = async_channel::bounded(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| AsyncChannelTx(tx.clone()))
                .collect(),
            receivers: (0..cfg.consumers)
                .map(|_| AsyncChannelRx(rx.clone()))
                .collect(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// flume

/// `flume-async`: `flume::bounded(capacity)` through its async API.
pub struct FlumeAsync;

/// Producer handle of `flume-async`.
pub struct FlumeAsyncTx<M>(flume::Sender<M>);

/// Consumer handle of `flume-async`.
pub struct FlumeAsyncRx<M>(flume::Receiver<M>);

impl<M: Message> AsyncSender<M> for FlumeAsyncTx<M> {
    #[inline]
    async fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send_async(msg).await.map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            flume::TrySendError::Full(m) => TrySendError::Full(m),
            flume::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> AsyncReceiver<M> for FlumeAsyncRx<M> {
    #[inline]
    async fn recv(&mut self) -> Option<M> {
        self.0.recv_async().await.ok()
    }
}

impl AsyncTransport for FlumeAsync {
    type Tx<M: Message> = FlumeAsyncTx<M>;
    type Rx<M: Message> = FlumeAsyncRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "flume-async",
            "flume::bounded(capacity), send_async/recv_async (0 = rendezvous)",
            0,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<FlumeAsyncTx<M>, FlumeAsyncRx<M>>, BuildError> {
        let (tx, rx) = flume::bounded(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| FlumeAsyncTx(tx.clone()))
                .collect(),
            receivers: (0..cfg.consumers)
                .map(|_| FlumeAsyncRx(rx.clone()))
                .collect(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// kanal

/// `kanal-async`: `kanal::bounded_async(capacity)`.
pub struct KanalAsync;

/// Producer handle of `kanal-async`.
pub struct KanalAsyncTx<M>(kanal::AsyncSender<M>);

/// Consumer handle of `kanal-async`.
pub struct KanalAsyncRx<M>(kanal::AsyncReceiver<M>);

impl<M: Message> AsyncSender<M> for KanalAsyncTx<M> {
    #[inline]
    async fn send(&mut self, msg: M) -> Result<(), M> {
        let (producer, seq) = (msg.producer(), msg.seq());
        self.0.send(msg).await.map_err(|_| M::build(producer, seq))
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        let mut slot = Some(msg);
        let sent = self.0.try_send_option(&mut slot);
        super::kanal_channel::try_send_outcome(sent, slot)
    }
}

impl<M: Message> AsyncReceiver<M> for KanalAsyncRx<M> {
    #[inline]
    async fn recv(&mut self) -> Option<M> {
        self.0.recv().await.ok()
    }
}

impl AsyncTransport for KanalAsync {
    type Tx<M: Message> = KanalAsyncTx<M>;
    type Rx<M: Message> = KanalAsyncRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "kanal-async",
            "kanal::bounded_async(capacity), async send/recv (0 = rendezvous)",
            0,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<KanalAsyncTx<M>, KanalAsyncRx<M>>, BuildError> {
        let (tx, rx) = kanal::bounded_async(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| KanalAsyncTx(tx.clone()))
                .collect(),
            receivers: (0..cfg.consumers)
                .map(|_| KanalAsyncRx(rx.clone()))
                .collect(),
        })
    }
}
