//! tokio's `sync` channels, through their async API: `tokio-mpsc-bounded`,
//! `tokio-mpsc-unbounded`, `tokio-broadcast`, `tokio-watch` and `tokio-oneshot`.
//!
//! tokio's channels are runtime-agnostic: their futures are woken through the waker they are
//! polled with, so they run under any [`Driver`](handoff::workload::Driver).
//!
//! * `tokio-mpsc-bounded`: `mpsc::channel(capacity)`; a full channel suspends the sender (a
//!   semaphore of `capacity` permits). Capacity 0 is refused by tokio, so the minimum is 1.
//! * `tokio-mpsc-unbounded`: `mpsc::unbounded_channel()`; `send` never waits.
//! * `tokio-broadcast`: `broadcast::channel(capacity)`, where every receiver sees every message
//!   (declared a broadcast: with several consumers it runs as a fan-out).
//!   tokio's broadcast needs `Clone` values, so each message travels in an `Arc` (one allocation
//!   per message, part of what is measured) around a `Mutex`. The last receiver to read a slot
//!   takes the message out of its then unique `Arc` without locking; the others (in a fan-out)
//!   copy it. The ring never applies backpressure: a sender overwrites the oldest slot, and a
//!   receiver that fell more than `capacity` behind gets `Lagged`. The adapter then ends its
//!   stream and reports the lost messages ([`AsyncReceiver::lost`]), which the harness turns into
//!   a failing verdict. Declared a broadcast: with several consumers each sees every message, so
//!   it runs as an open-loop fan-out, never as the exactly-once partition the `mpmc` workload
//!   verifies. tokio rounds the capacity up to a power of two, so the declared bound asks for one.
//! * `tokio-watch`: `watch::channel`, a latest-value cell: a send overwrites the value, a receiver
//!   sees the newest one when it looks. Declared [`Ordering::Latest`] (conflating), so workloads
//!   that count every message refuse it; it runs as the conflating hop of a `latest` pipeline. The
//!   value sits behind a `Mutex` (readers share it); the consumer verifies it in place
//!   ([`AsyncReceiver::recv_with`]), and `recv` hands out a copy (every byte, send stamps
//!   included).
//! * `tokio-oneshot`: a stream made of one fresh `oneshot` channel per message: each message
//!   carries the receiver of the next oneshot, so the consumer always awaits the oneshot the
//!   previous message handed it. Used in ping-pong, every request and every reply crosses through
//!   a oneshot created for it (inside the timed region: creating the oneshot is part of the
//!   pattern measured). Single producer, single consumer, FIFO; the sender never waits.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, refused, transport};

use handoff::adapter::check_spsc;
use handoff::prelude::*;
use handoff::transport::handles;
use std::future::Future;
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

/// What every tokio channel here shares: one consumer, async waits.
const TOKIO: Semantics = Semantics::mpsc().wait(WaitStrategy::Async);

// ---------------------------------------------------------------------------------------------
// mpsc

refused! { mpsc::error::TrySendError { Full, Closed } }

handles! {
    /// Producer handle of `tokio-mpsc-bounded`.
    TokioMpscTx(mpsc::Sender<M>): AsyncSender {
        #[inline(always)] send(tx, msg) => tx.send(msg).await.map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of `tokio-mpsc-bounded`.
    TokioMpscRx(mpsc::Receiver<M>): AsyncReceiver {
        #[inline(always)] recv_future(rx) => rx.recv();
    }

    /// Producer handle of `tokio-mpsc-unbounded`.
    TokioUnboundedTx(mpsc::UnboundedSender<M>): AsyncSender {
        #[inline(always)] send_ready(tx, msg) => tx.send(msg).map_err(|e| e.0);
        /// Unbounded: a send never waits, so it is never refused.
        #[inline(always)] try_send(tx, msg) => tx.send(msg).map_err(|e| TrySendError::Disconnected(e.0));
    }

    /// Consumer handle of `tokio-mpsc-unbounded`.
    TokioUnboundedRx(mpsc::UnboundedReceiver<M>): AsyncReceiver {
        #[inline(always)] recv_future(rx) => rx.recv();
    }
}

/// tokio's documented limit on a bounded mpsc channel's capacity: `mpsc::channel` panics above
/// `Semaphore::MAX_PERMITS` (`usize::MAX >> 3`).
const MPSC_MAX_CAPACITY: usize = usize::MAX >> 3;

transport! {
    /// `tokio-mpsc-bounded`: `tokio::sync::mpsc::channel(capacity)`.
    TokioMpscBounded("tokio-mpsc-bounded"): AsyncTransport<TokioMpscTx<M>, TokioMpscRx<M>> {
        description: "tokio::sync::mpsc::channel(capacity), async send/recv",
        semantics: TOKIO,
        channel(cfg) => {
            if cfg.capacity > MPSC_MAX_CAPACITY {
                return Err(BuildError::Invalid(format!(
                    "capacity {} is above tokio's limit of {MPSC_MAX_CAPACITY}",
                    cfg.capacity
                )));
            }
            let ends = mpsc::channel(cfg.capacity);
            Ok(Endpoints::single_consumer(cfg, ends, TokioMpscTx, TokioMpscRx))
        }
    }

    /// `tokio-mpsc-unbounded`: `tokio::sync::mpsc::unbounded_channel()`.
    TokioMpscUnbounded("tokio-mpsc-unbounded"): AsyncTransport<TokioUnboundedTx<M>, TokioUnboundedRx<M>> {
        description: "tokio::sync::mpsc::unbounded_channel(), send never waits, async recv",
        semantics: TOKIO.unbounded(),
        channel(cfg) => {
            let ends = mpsc::unbounded_channel();
            Ok(Endpoints::single_consumer(cfg, ends, TokioUnboundedTx, TokioUnboundedRx))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// broadcast

/// Producer handle of `tokio-broadcast`.
pub struct BroadcastTx<M>(broadcast::Sender<Arc<Mutex<M>>>);

/// Consumer handle of `tokio-broadcast`.
pub struct BroadcastRx<M> {
    rx: Option<broadcast::Receiver<Arc<Mutex<M>>>>,
    lost: u64,
}

/// The message out of its `Arc`: once every receiver has read the slot the ring's copy is gone,
/// so the last receiver to take it gets it without a copy and no lock is taken; the others (a
/// fan-out) copy it under the lock.
fn unwrap_arc<M: Message>(a: Arc<Mutex<M>>) -> M {
    match Arc::try_unwrap(a) {
        Ok(m) => m.into_inner().unwrap_or_else(|e| e.into_inner()),
        Err(a) => a.lock().unwrap_or_else(|e| e.into_inner()).clone(),
    }
}

impl<M: Message> AsyncSender<M> for BroadcastTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send {
        let r = self
            .0
            .send(Arc::new(Mutex::new(msg)))
            .map(|_| ())
            .map_err(|e| unwrap_arc(e.0));
        std::future::ready(r)
    }

    /// A broadcast send never waits (it overwrites), so it is never refused.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0
            .send(Arc::new(Mutex::new(msg)))
            .map(|_| ())
            .map_err(|e| TrySendError::Disconnected(unwrap_arc(e.0)))
    }
}

impl<M: Message> BroadcastRx<M> {
    /// The next message's `Arc`; on `Lagged`, records the loss and ends the stream (the receiver
    /// is dropped, so senders see the consumer gone).
    async fn next(&mut self) -> Option<Arc<Mutex<M>>> {
        let rx = self.rx.as_mut()?;
        match rx.recv().await {
            Ok(a) => Some(a),
            Err(broadcast::error::RecvError::Lagged(n)) => {
                self.lost += n;
                self.rx = None;
                None
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

impl<M: Message> AsyncReceiver<M> for BroadcastRx<M> {
    async fn recv(&mut self) -> Option<M> {
        self.next().await.map(unwrap_arc)
    }

    async fn recv_with<F: FnOnce(&M) + Send>(&mut self, f: F) -> bool {
        match self.next().await {
            Some(a) => {
                f(&unwrap_arc(a));
                true
            }
            None => false,
        }
    }

    fn lost(&self) -> u64 {
        self.lost
    }
}

transport! {
    /// `tokio-broadcast`: `tokio::sync::broadcast::channel(capacity)` of `Arc<M>`.
    TokioBroadcast("tokio-broadcast"): AsyncTransport<BroadcastTx<M>, BroadcastRx<M>> {
        description: "tokio::sync::broadcast::channel(capacity) of Arc<M>; every receiver gets every message; no backpressure: a lagging receiver loses messages (reported as a failure)",
        semantics: TOKIO.bounded(1, true).overwriting().broadcast(),
        channel(cfg) => {
            // tokio panics above this.
            if cfg.capacity > usize::MAX >> 1 {
                return Err(BuildError::Invalid(format!(
                    "capacity {} is above tokio's broadcast limit of {}",
                    cfg.capacity,
                    usize::MAX >> 1
                )));
            }
            let (tx, rx) = broadcast::channel(cfg.capacity);
            // Every receiver subscribes before the first send, so each sees the whole stream.
            let rx = std::iter::once(rx).chain((1..cfg.consumers).map(|_| tx.subscribe()));
            let receivers = rx.map(|rx| BroadcastRx { rx: Some(rx), lost: 0 }).collect();
            let senders = handles(cfg.producers, tx, BroadcastTx);
            Ok(Endpoints { senders, receivers })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// watch

/// Producer handle of `tokio-watch`.
pub struct WatchTx<M>(watch::Sender<Option<Mutex<M>>>);

/// Consumer handle of `tokio-watch`.
pub struct WatchRx<M>(watch::Receiver<Option<Mutex<M>>>);

impl<M: Message> AsyncSender<M> for WatchTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send {
        let r = match self.0.send(Some(Mutex::new(msg))) {
            Ok(()) => Ok(()),
            Err(e) => match e.0 {
                Some(m) => Err(m.into_inner().unwrap_or_else(|e| e.into_inner())),
                None => unreachable!("the value just sent is `Some`"),
            },
        };
        std::future::ready(r)
    }

    /// The send never waits (its future is ready at once), so it is never refused.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        futures_lite::future::block_on(AsyncSender::send(self, msg))
            .map_err(TrySendError::Disconnected)
    }
}

impl<M: Message> WatchRx<M> {
    /// Waits for a value not seen yet and applies `f` to it in place.
    async fn next<R>(&mut self, f: impl FnOnce(&M) -> R) -> Option<R> {
        loop {
            // A value changed before the sender was dropped is reported before the end.
            self.0.changed().await.ok()?;
            let seen = self.0.borrow_and_update();
            if let Some(m) = seen.as_ref() {
                return Some(f(&m.lock().unwrap_or_else(|e| e.into_inner())));
            }
        }
    }
}

impl<M: Message> AsyncReceiver<M> for WatchRx<M> {
    fn recv(&mut self) -> impl Future<Output = Option<M>> + Send {
        // A copy of every byte: a corrupt body stays corrupt, and an open-loop message keeps its
        // send stamps.
        self.next(M::clone)
    }

    async fn recv_with<F: FnOnce(&M) + Send>(&mut self, f: F) -> bool {
        self.next(f).await.is_some()
    }
}

transport! {
    /// `tokio-watch`: `tokio::sync::watch::channel`, a latest-value cell.
    TokioWatch("tokio-watch"): AsyncTransport<WatchTx<M>, WatchRx<M>> {
        description: "tokio::sync::watch::channel: one value, a send overwrites it (no backpressure); latest value only, for conflating use",
        semantics: TOKIO.ordering(Ordering::Latest).unbounded(),
        channel(cfg) => Ok(Endpoints::single_consumer(cfg, watch::channel(None), WatchTx, WatchRx)),
    }
}

// ---------------------------------------------------------------------------------------------
// oneshot

/// One message and the receiver of the oneshot that will carry the next.
struct Link<M> {
    msg: M,
    next: oneshot::Receiver<Link<M>>,
}

/// Producer handle of `tokio-oneshot`.
pub struct OneshotTx<M>(Option<oneshot::Sender<Link<M>>>);

/// Consumer handle of `tokio-oneshot`.
pub struct OneshotRx<M>(Option<oneshot::Receiver<Link<M>>>);

impl<M: Message> AsyncSender<M> for OneshotTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> impl Future<Output = Result<(), M>> + Send {
        let r = match self.0.take() {
            None => Err(msg),
            Some(tx) => {
                let (next_tx, next) = oneshot::channel();
                match tx.send(Link { msg, next }) {
                    Ok(()) => {
                        self.0 = Some(next_tx);
                        Ok(())
                    }
                    Err(link) => Err(link.msg),
                }
            }
        };
        std::future::ready(r)
    }

    /// The send never waits (its future is ready at once), so it is never refused.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        futures_lite::future::block_on(AsyncSender::send(self, msg))
            .map_err(TrySendError::Disconnected)
    }
}

impl<M: Message> AsyncReceiver<M> for OneshotRx<M> {
    async fn recv(&mut self) -> Option<M> {
        let rx = self.0.as_mut()?;
        match rx.await {
            Ok(Link { msg, next }) => {
                self.0 = Some(next);
                Some(msg)
            }
            Err(_) => {
                self.0 = None;
                None
            }
        }
    }
}

transport! {
    /// `tokio-oneshot`: a stream of messages, each through a oneshot channel of its own.
    TokioOneshot("tokio-oneshot"): AsyncTransport<OneshotTx<M>, OneshotRx<M>> {
        description: "a fresh tokio::sync::oneshot per message (each carries the next one's receiver); in ping-pong every reply comes through a new oneshot",
        semantics: Semantics::spsc().wait(WaitStrategy::Async).unbounded(),
        channel(cfg) => {
            check_spsc(cfg)?;
            let (tx, rx) = oneshot::channel();
            Ok(Endpoints::one(OneshotTx(Some(tx)), OneshotRx(Some(rx))))
        }
    }
}

/// Registers this crate's transports (TokioBroadcast, TokioMpscBounded, TokioMpscUnbounded, TokioOneshot, TokioWatch).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::asynchronous(TokioMpscBounded));
    catalog.register(Entry::asynchronous(TokioMpscUnbounded));
    catalog.register(Entry::asynchronous(TokioBroadcast));
    catalog.register(Entry::asynchronous(TokioWatch));
    catalog.register(Entry::asynchronous(TokioOneshot));
}
