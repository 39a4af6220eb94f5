//! `crossbeam-bounded` and `crossbeam-unbounded`: crossbeam-channel's array and list flavors.
//!
//! Both are MPMC; a blocked side spins and yields for a while (crossbeam's `Backoff`) and then
//! parks. `bounded(0)` is a rendezvous channel.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, refused, transport};

use handoff::prelude::*;

refused! { crossbeam_channel::TrySendError { Full, Disconnected } }

handles! {
    /// Producer handle of the crossbeam channels.
    CrossbeamTx(crossbeam_channel::Sender<M>): Sender {
        #[inline(always)] send(tx, msg) => tx.send(msg).map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of the crossbeam channels.
    CrossbeamRx(crossbeam_channel::Receiver<M>): Receiver {
        #[inline(always)] recv(rx) => rx.recv().ok();
    }
}

const CROSSBEAM: Semantics = Semantics::mpmc();

transport! {
    /// `crossbeam-bounded`: `crossbeam_channel::bounded(capacity)`.
    CrossbeamBounded("crossbeam-bounded"): Transport<CrossbeamTx<M>, CrossbeamRx<M>> {
        description: "crossbeam_channel::bounded(capacity) (array flavor; 0 = rendezvous)",
        semantics: CROSSBEAM.bounded(0, false),
        channel(cfg) => {
            let ends = crossbeam_channel::bounded(cfg.capacity);
            Ok(Endpoints::cloned(cfg, ends, CrossbeamTx, CrossbeamRx))
        }
    }

    /// `crossbeam-unbounded`: `crossbeam_channel::unbounded()`.
    CrossbeamUnbounded("crossbeam-unbounded"): Transport<CrossbeamTx<M>, CrossbeamRx<M>> {
        description: "crossbeam_channel::unbounded() (linked list of blocks)",
        semantics: CROSSBEAM.unbounded(),
        channel(cfg) => {
            let ends = crossbeam_channel::unbounded();
            Ok(Endpoints::cloned(cfg, ends, CrossbeamTx, CrossbeamRx))
        }
    }
}

/// Registers this crate's transports (CrossbeamBounded, CrossbeamUnbounded).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(CrossbeamBounded));
    catalog.register(Entry::pull(CrossbeamUnbounded));
}
