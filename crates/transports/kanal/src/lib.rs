//! `kanal-bounded`: kanal's bounded channel through its sync API.
//!
//! kanal keeps a queue behind a spin lock and hands values directly to a waiting peer; a blocked
//! side yields a few hundred times before parking (`spin-then-park`). Capacity 0 is a rendezvous
//! channel: a send waits until a receiver takes the value. Both handles are cloneable: MPMC.
//!
//! kanal's `send` drops the value when every receiver is gone instead of returning it. Every
//! message's body is a pure function of its header, so the adapter reads the header before the
//! send and, on that failure path only, returns an identical message rebuilt from it.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, transport};

use handoff::prelude::*;

handles! {
    /// Producer handle of `kanal-bounded`.
    KanalTx(kanal::Sender<M>): Sender {
        #[inline(always)] send(tx, msg) => {
            let (producer, seq) = (msg.producer(), msg.seq());
            tx.send(msg).map_err(|_| M::build(producer, seq))
        };
        #[inline(always)] try_send(tx, msg) => {
            let mut slot = Some(msg);
            let sent = tx.try_send_option(&mut slot);
            try_send_outcome(sent, slot)
        };
    }

    /// Consumer handle of `kanal-bounded`.
    KanalRx(kanal::Receiver<M>): Receiver {
        #[inline(always)] recv(rx) => rx.recv().ok();
    }
}

/// The outcome of kanal's `try_send_option` on `slot`, for its sync and async senders alike:
/// the value is left in place when the channel is full (or closed before taking it).
pub fn try_send_outcome<M>(
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

transport! {
    /// `kanal-bounded`: `kanal::bounded(capacity)`.
    KanalBounded("kanal-bounded"): Transport<KanalTx<M>, KanalRx<M>> {
        description: "kanal::bounded(capacity), sync send/recv (0 = rendezvous)",
        semantics: Semantics::mpmc().bounded(0, false),
        channel(cfg) => Ok(Endpoints::cloned(cfg, kanal::bounded(cfg.capacity), KanalTx, KanalRx)),
    }
}

/// Registers this crate's transports (KanalBounded).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(KanalBounded));
}
