//! `crossbeam-bounded` and `crossbeam-unbounded`: crossbeam-channel's array and list flavors.
//!
//! Both are MPMC; a blocked side spins and yields for a while (crossbeam's `Backoff`) and then
//! parks. `bounded(0)` is a rendezvous channel.

use crate::prelude::*;

/// `crossbeam-bounded`: `crossbeam_channel::bounded(capacity)`.
pub struct CrossbeamBounded;

/// `crossbeam-unbounded`: `crossbeam_channel::unbounded()`.
pub struct CrossbeamUnbounded;

/// Producer handle of the crossbeam channels.
pub struct CrossbeamTx<M>(crossbeam_channel::Sender<M>);

/// Consumer handle of the crossbeam channels.
pub struct CrossbeamRx<M>(crossbeam_channel::Receiver<M>);

impl<M: Message> Sender<M> for CrossbeamTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            crossbeam_channel::TrySendError::Full(m) => TrySendError::Full(m),
            crossbeam_channel::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> Receiver<M> for CrossbeamRx<M> {
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
            wait: WaitStrategy::SpinThenPark,
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
    (tx, rx): (crossbeam_channel::Sender<M>, crossbeam_channel::Receiver<M>),
) -> Endpoints<CrossbeamTx<M>, CrossbeamRx<M>> {
    Endpoints {
        senders: (0..cfg.producers)
            .map(|_| CrossbeamTx(tx.clone()))
            .collect(),
        receivers: (0..cfg.consumers)
            .map(|_| CrossbeamRx(rx.clone()))
            .collect(),
    }
}

impl Transport for CrossbeamBounded {
    type Tx<M: Message> = CrossbeamTx<M>;
    type Rx<M: Message> = CrossbeamRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "crossbeam-bounded",
            "crossbeam_channel::bounded(capacity) (array flavor; 0 = rendezvous)",
            Bound::Bounded {
                min_capacity: 0,
                power_of_two: false,
            },
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<CrossbeamTx<M>, CrossbeamRx<M>>, BuildError> {
        Ok(endpoints(cfg, crossbeam_channel::bounded(cfg.capacity)))
    }
}

impl Transport for CrossbeamUnbounded {
    type Tx<M: Message> = CrossbeamTx<M>;
    type Rx<M: Message> = CrossbeamRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "crossbeam-unbounded",
            "crossbeam_channel::unbounded() (linked list of blocks)",
            Bound::Unbounded,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<CrossbeamTx<M>, CrossbeamRx<M>>, BuildError> {
        Ok(endpoints(cfg, crossbeam_channel::unbounded()))
    }
}
