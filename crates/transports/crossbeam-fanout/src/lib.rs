//! `crossbeam-fanout`: fan-out by copying, the way many systems broadcast without a broadcast
//! queue: one `crossbeam_channel::bounded(capacity)` per consumer, and each send puts a copy of
//! the message into every consumer's channel (the original into the first).
//!
//! So a send costs one channel hand-off per consumer, and a full channel of any consumer blocks
//! the producer: the slowest consumer applies backpressure. `try_send` refuses when any
//! consumer's channel is full; with one producer that check is exact (room only grows while the
//! producer is not sending), with several a racing producer can fill a channel between the check
//! and the send, and that copy is then sent blocking rather than refused.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::prelude::*;
use handoff::transport::handles;

/// Producer handle of `crossbeam-fanout`: a sender into every consumer's channel.
pub struct FanoutTx<M> {
    lanes: Vec<crossbeam_channel::Sender<M>>,
}

/// Consumer handle of `crossbeam-fanout`: its own channel.
pub struct FanoutRx<M>(crossbeam_channel::Receiver<M>);

impl<M: Message> FanoutTx<M> {
    /// Sends to every lane, blocking; copies for all but the first lane, which gets `msg`.
    fn send_all(&mut self, msg: M) -> Result<(), M> {
        let (first, rest) = self.lanes.split_first().expect("at least one consumer");
        for lane in rest {
            lane.send(msg.clone()).map_err(|e| e.0)?;
        }
        first.send(msg).map_err(|e| e.0)
    }
}

impl<M: Message> Sender<M> for FanoutTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.send_all(msg)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.lanes.iter().any(|l| l.is_full()) {
            return Err(TrySendError::Full(msg));
        }
        self.send_all(msg).map_err(TrySendError::Disconnected)
    }
}

impl<M: Message> Receiver<M> for FanoutRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

transport! {
    /// `crossbeam-fanout` (see the module docs).
    CrossbeamFanout("crossbeam-fanout"): Transport<FanoutTx<M>, FanoutRx<M>> {
        description: "one crossbeam_channel::bounded(capacity) per consumer; a send copies the message into each (fan-out by copying)",
        semantics: Semantics::mpmc().broadcast(),
        channel(cfg) => {
            let (lanes, receivers): (Vec<_>, Vec<_>) = (0..cfg.consumers.max(1))
                .map(|_| {
                    let (tx, rx) = crossbeam_channel::bounded(cfg.capacity);
                    (tx, FanoutRx(rx))
                })
                .unzip();
            Ok(Endpoints {
                senders: handles(cfg.producers, lanes, |lanes| FanoutTx { lanes }),
                receivers,
            })
        }
    }
}

/// Registers this crate's transports (CrossbeamFanout).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(CrossbeamFanout));
}
