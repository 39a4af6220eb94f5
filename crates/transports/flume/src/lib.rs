//! `flume-bounded` and `flume-unbounded`: flume's channels through its blocking (sync) API.
//!
//! flume keeps its queue behind a lock and parks a blocked side at once (`thread::park`) until
//! the other side signals it. Both handles are cloneable: MPMC. `bounded(0)` is a rendezvous
//! channel.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, refused, transport};

use handoff::prelude::*;

refused! { flume::TrySendError { Full, Disconnected } }

handles! {
    /// Producer handle of the flume channels.
    FlumeTx(flume::Sender<M>): Sender {
        #[inline(always)] send(tx, msg) => tx.send(msg).map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of the flume channels.
    FlumeRx(flume::Receiver<M>): Receiver {
        #[inline(always)] recv(rx) => rx.recv().ok();
    }
}

const FLUME: Semantics = Semantics::mpmc().wait(WaitStrategy::Block);

transport! {
    /// `flume-bounded`: `flume::bounded(capacity)`.
    FlumeBounded("flume-bounded"): Transport<FlumeTx<M>, FlumeRx<M>> {
        description: "flume::bounded(capacity), blocking send/recv (0 = rendezvous)",
        semantics: FLUME.bounded(0, false),
        channel(cfg) => Ok(Endpoints::cloned(cfg, flume::bounded(cfg.capacity), FlumeTx, FlumeRx)),
    }

    /// `flume-unbounded`: `flume::unbounded()`.
    FlumeUnbounded("flume-unbounded"): Transport<FlumeTx<M>, FlumeRx<M>> {
        description: "flume::unbounded(), blocking recv",
        semantics: FLUME.unbounded(),
        channel(cfg) => Ok(Endpoints::cloned(cfg, flume::unbounded(), FlumeTx, FlumeRx)),
    }
}

/// Registers this crate's transports (FlumeBounded, FlumeUnbounded).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(FlumeBounded));
    catalog.register(Entry::pull(FlumeUnbounded));
}
