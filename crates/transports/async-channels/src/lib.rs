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
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, refused, transport};

use handoff::prelude::*;
use handoff_transport_kanal::try_send_outcome;

const ASYNC: Semantics = Semantics::mpmc().wait(WaitStrategy::Async);

refused! {
    async_channel::TrySendError { Full, Closed }
    flume::TrySendError { Full, Disconnected }
}

handles! {
    /// Producer handle of `async-channel-bounded`.
    AsyncChannelTx(async_channel::Sender<M>): AsyncSender {
        #[inline(always)] send(tx, msg) => tx.send(msg).await.map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of `async-channel-bounded`.
    AsyncChannelRx(async_channel::Receiver<M>): AsyncReceiver {
        #[inline(always)] recv(rx) => rx.recv().await.ok();
    }

    /// Producer handle of `flume-async`.
    FlumeAsyncTx(flume::Sender<M>): AsyncSender {
        #[inline(always)] send(tx, msg) => tx.send_async(msg).await.map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of `flume-async`.
    FlumeAsyncRx(flume::Receiver<M>): AsyncReceiver {
        #[inline(always)] recv(rx) => rx.recv_async().await.ok();
    }

    /// Producer handle of `kanal-async`.
    KanalAsyncTx(kanal::AsyncSender<M>): AsyncSender {
        #[inline(always)] send(tx, msg) => {
            let (producer, seq) = (msg.producer(), msg.seq());
            tx.send(msg).await.map_err(|_| M::build(producer, seq))
        };
        #[inline(always)] try_send(tx, msg) => {
            let mut slot = Some(msg);
            let sent = tx.try_send_option(&mut slot);
            try_send_outcome(sent, slot)
        };
    }

    /// Consumer handle of `kanal-async`.
    KanalAsyncRx(kanal::AsyncReceiver<M>): AsyncReceiver {
        #[inline(always)] recv(rx) => rx.recv().await.ok();
    }
}

transport! {
    /// `async-channel-bounded`: `async_channel::bounded(capacity)`.
    AsyncChannelBounded("async-channel-bounded"): AsyncTransport<AsyncChannelTx<M>, AsyncChannelRx<M>> {
        description: "async_channel::bounded(capacity), async send/recv",
        semantics: ASYNC,
        channel(cfg) => {
            let ends = async_channel::bounded(cfg.capacity);
            Ok(Endpoints::cloned(cfg, ends, AsyncChannelTx, AsyncChannelRx))
        }
    }

    /// `flume-async`: `flume::bounded(capacity)` through its async API.
    FlumeAsync("flume-async"): AsyncTransport<FlumeAsyncTx<M>, FlumeAsyncRx<M>> {
        description: "flume::bounded(capacity), send_async/recv_async (0 = rendezvous)",
        semantics: ASYNC.bounded(0, false),
        channel(cfg) => {
            let ends = flume::bounded(cfg.capacity);
            Ok(Endpoints::cloned(cfg, ends, FlumeAsyncTx, FlumeAsyncRx))
        }
    }

    /// `kanal-async`: `kanal::bounded_async(capacity)`.
    KanalAsync("kanal-async"): AsyncTransport<KanalAsyncTx<M>, KanalAsyncRx<M>> {
        description: "kanal::bounded_async(capacity), async send/recv (0 = rendezvous)",
        semantics: ASYNC.bounded(0, false),
        channel(cfg) => {
            let ends = kanal::bounded_async(cfg.capacity);
            Ok(Endpoints::cloned(cfg, ends, KanalAsyncTx, KanalAsyncRx))
        }
    }
}

/// Registers this crate's transports (AsyncChannelBounded, FlumeAsync, KanalAsync).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::asynchronous(AsyncChannelBounded));
    catalog.register(Entry::asynchronous(FlumeAsync));
    catalog.register(Entry::asynchronous(KanalAsync));
}
