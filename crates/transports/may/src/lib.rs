//! `may-mpsc`: the `may` runtime's own channel (`may::sync::mpsc::channel()`), unbounded, many
//! producers and one consumer.
//!
//! Its waits are `may`'s: a receive that finds the channel empty parks the calling *coroutine*
//! (its worker thread runs other coroutines meanwhile) and a send unparks it; called from a plain
//! OS thread the same receive parks the thread. The adapter's futures therefore never return
//! pending: each completes in one poll, having waited inside if it had to. That is sound under
//! the `may` driver (the coroutine waits, as in a program written for `may`) and under `threads`
//! (the thread waits), and unsound under tokio, where it would block a worker thread that other
//! tasks need: the transport names the drivers it runs under
//! ([`AsyncTransport::drivers`]), and the others report its trials `unsupported`.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::prelude::*;
use handoff::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
use std::future::Future;

/// `may-mpsc`: `may::sync::mpsc::channel()`.
pub struct MayChannel;

/// Producer handle of `may-mpsc`.
pub struct MayTx<M>(may::sync::mpsc::Sender<M>);

/// Consumer handle of `may-mpsc`.
pub struct MayRx<M>(may::sync::mpsc::Receiver<M>);

impl<M: Message> AsyncSender<M> for MayTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send {
        let r = self.0.send(msg).map_err(|e| e.0);
        async move { r }
    }

    /// Unbounded: a send never waits, so it is never refused.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0
            .send(msg)
            .map_err(|e| TrySendError::Disconnected(e.0))
    }
}

impl<M: Message> AsyncReceiver<M> for MayRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> impl Future<Output = Option<M>> + Send {
        // Parks the coroutine (or thread) until a message or the end of the stream.
        let m = self.0.recv().ok();
        async move { m }
    }
}

impl AsyncTransport for MayChannel {
    type Tx<M: Message> = MayTx<M>;
    type Rx<M: Message> = MayRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "may-mpsc".into(),
            description: "may::sync::mpsc::channel(), unbounded; a wait parks the may coroutine (runs under may and threads)".into(),
            semantics: Semantics::mpsc()
                .wait(WaitStrategy::Async)
                .unbounded(),
            options: vec![],
            test_only: false,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<MayTx<M>, MayRx<M>>, BuildError> {
        if cfg.consumers != 1 {
            return Err(BuildError::Unsupported("may-mpsc has one consumer".into()));
        }
        let (tx, rx) = may::sync::mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| MayTx(tx.clone())).collect(),
            receivers: vec![MayRx(rx)],
        })
    }

    fn drivers(&self) -> Option<&'static [&'static str]> {
        Some(&["threads", "may"])
    }
}

/// Registers this crate's transports (MayChannel).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::asynchronous(MayChannel));
}
