//! `flume-bounded` and `flume-unbounded`: flume's channels through its blocking (sync) API.
//!
//! flume keeps its queue behind a lock and parks a blocked side at once (`thread::park`) until
//! the other side signals it. Both handles are cloneable: MPMC. `bounded(0)` is a rendezvous
//! channel.

use crate::prelude::*;

/// `flume-bounded`: `flume::bounded(capacity)`.
pub struct FlumeBounded;

/// `flume-unbounded`: `flume::unbounded()`.
pub struct FlumeUnbounded;

/// Producer handle of the flume channels.
pub struct FlumeTx<M>(flume::Sender<M>);

/// Consumer handle of the flume channels.
pub struct FlumeRx<M>(flume::Receiver<M>);

impl<M: Message> Sender<M> for FlumeTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            flume::TrySendError::Full(m) => TrySendError::Full(m),
            flume::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> Receiver<M> for FlumeRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

fn info(name: &str, description: &str, bound: Bound) -> TransportInfo {
    TransportInfo {
        name: name.into(),
        description: description.into(),
        semantics: Semantics {
            producers: Arity::Many,
            consumers: Arity::Many,
            ordering: Ordering::PerProducerFifo,
            bound,
            wait: WaitStrategy::Block,
            batch: false,
            locality: Locality::CrossThread,
            consumer_style: ConsumerStyle::Pull,
        },
        options: vec![],
        test_only: false,
    }
}

fn endpoints<M>(
    cfg: &ChannelConfig,
    (tx, rx): (flume::Sender<M>, flume::Receiver<M>),
) -> Endpoints<FlumeTx<M>, FlumeRx<M>> {
    Endpoints {
        senders: (0..cfg.producers).map(|_| FlumeTx(tx.clone())).collect(),
        receivers: (0..cfg.consumers).map(|_| FlumeRx(rx.clone())).collect(),
    }
}

impl Transport for FlumeBounded {
    type Tx<M: Message> = FlumeTx<M>;
    type Rx<M: Message> = FlumeRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "flume-bounded",
            "flume::bounded(capacity), blocking send/recv (0 = rendezvous)",
            Bound::Bounded {
                min_capacity: 0,
                power_of_two: false,
            },
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<FlumeTx<M>, FlumeRx<M>>, BuildError> {
        Ok(endpoints(cfg, flume::bounded(cfg.capacity)))
    }
}

impl Transport for FlumeUnbounded {
    type Tx<M: Message> = FlumeTx<M>;
    type Rx<M: Message> = FlumeRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "flume-unbounded",
            "flume::unbounded(), blocking recv",
            Bound::Unbounded,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<FlumeTx<M>, FlumeRx<M>>, BuildError> {
        Ok(endpoints(cfg, flume::unbounded()))
    }
}
