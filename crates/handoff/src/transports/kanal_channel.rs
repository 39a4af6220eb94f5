//! `kanal-bounded`: kanal's bounded channel through its sync API.
//!
//! kanal keeps a queue behind a spin lock and hands values directly to a waiting peer; a blocked
//! side yields a few hundred times before parking (`spin-then-park`). Capacity 0 is a rendezvous
//! channel: a send waits until a receiver takes the value. Both handles are cloneable: MPMC.
//!
//! kanal's `send` drops the value when every receiver is gone instead of returning it. Every
//! message's body is a pure function of its header, so the adapter reads the header before the
//! send and, on that failure path only, returns an identical message rebuilt from it.

use crate::prelude::*;

/// `kanal-bounded`: `kanal::bounded(capacity)`.
pub struct KanalBounded;

/// Producer handle of `kanal-bounded`.
pub struct KanalTx<M>(kanal::Sender<M>);

/// Consumer handle of `kanal-bounded`.
pub struct KanalRx<M>(kanal::Receiver<M>);

impl<M: Message> Sender<M> for KanalTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let (producer, seq) = (msg.producer(), msg.seq());
        self.0.send(msg).map_err(|_| M::build(producer, seq))
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        let mut slot = Some(msg);
        let sent = self.0.try_send_option(&mut slot);
        try_send_outcome(sent, slot)
    }
}

/// The outcome of kanal's `try_send_option` on `slot`, for its sync and async senders alike:
/// the value is left in place when the channel is full (or closed before taking it).
pub(super) fn try_send_outcome<M>(
    sent: Result<bool, kanal::SendError>,
    slot: Option<M>,
) -> Result<(), TrySendError<M>> {
    match (sent, slot) {
        (Ok(true), _) | (Err(_), None) => Ok(()),
        (Ok(false), Some(m)) => Err(TrySendError::Full(m)),
        (Ok(false), None) => unreachable!("kanal keeps the value when the channel is full"),
        (Err(_), Some(m)) => Err(TrySendError::Disconnected(m)),
    }
}

impl<M: Message> Receiver<M> for KanalRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

impl Transport for KanalBounded {
    type Tx<M: Message> = KanalTx<M>;
    type Rx<M: Message> = KanalRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "kanal-bounded".into(),
            description: "kanal::bounded(capacity), sync send/recv (0 = rendezvous)".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::Many,
                ordering: Ordering::PerProducerFifo,
                bound: Bound::Bounded {
                    min_capacity: 0,
                    power_of_two: false,
                },
                wait: WaitStrategy::SpinThenPark,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
            },
            options: vec![],
            test_only: false,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<KanalTx<M>, KanalRx<M>>, BuildError> {
        let (tx, rx) = kanal::bounded(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| KanalTx(tx.clone())).collect(),
            receivers: (0..cfg.consumers).map(|_| KanalRx(rx.clone())).collect(),
        })
    }
}
