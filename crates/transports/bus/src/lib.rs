//! `bus`: the `bus` crate's broadcast ring, one producer and any number of readers, every reader
//! receiving every message.
//!
//! A slot is free again once every reader has read it, so the slowest reader applies
//! backpressure: `broadcast` waits (spinning with an exponential back-off, then parking for up to
//! 100 µs at a time) and `try_broadcast` refuses. Each read clones the value out of its slot.
//! Wake-ups go through an unparking thread the bus starts for itself, one more thread than the
//! trial's own (the placement's oversubscription count does not see it).
//!
//! A bus is never "disconnected" for its producer (it broadcasts into the void when every reader
//! is gone), so the adapter counts departed readers itself: each reader handle bumps a shared
//! counter when dropped, and a send first loads it (one relaxed load of a line written only when
//! a reader leaves). Readers see the end of the stream once the bus is dropped and they have read
//! everything.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

/// Producer handle of `bus`.
pub struct BusTx<M> {
    bus: bus::Bus<M>,
    readers: usize,
    gone: Arc<AtomicUsize>,
}

/// Consumer handle of `bus`.
pub struct BusRx<M> {
    reader: bus::BusReader<M>,
    gone: Arc<AtomicUsize>,
}

impl<M> BusTx<M> {
    /// Every reader has been dropped: nothing sent from now on would be received.
    #[inline]
    fn abandoned(&self) -> bool {
        self.gone.load(AtomicOrdering::Relaxed) == self.readers
    }
}

impl<M: Message> Sender<M> for BusTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        if self.abandoned() {
            return Err(msg);
        }
        self.bus.broadcast(msg);
        Ok(())
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.abandoned() {
            return Err(TrySendError::Disconnected(msg));
        }
        self.bus.try_broadcast(msg).map_err(TrySendError::Full)
    }
}

impl<M: Message> Receiver<M> for BusRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        self.reader.recv().ok()
    }
}

impl<M> Drop for BusRx<M> {
    fn drop(&mut self) {
        self.gone.fetch_add(1, AtomicOrdering::Relaxed);
    }
}

transport! {
    /// `bus` (see the module docs).
    BusBroadcast("bus"): Transport<BusTx<M>, BusRx<M>> {
        description: "bus::Bus(capacity): broadcast ring, every reader gets a clone of every message; the slowest reader applies backpressure; wakes via the bus's own unparking thread",
        semantics: Semantics::spsc()
            .broadcast()
            .wait(WaitStrategy::SpinThenPark),
        channel(cfg) => {
            let mut bus = bus::Bus::new(cfg.capacity);
            let gone = Arc::new(AtomicUsize::new(0));
            // Readers must exist before the first broadcast: a reader added later would not see it.
            let receivers = (0..cfg.consumers)
                .map(|_| BusRx {
                    reader: bus.add_rx(),
                    gone: gone.clone(),
                })
                .collect();
            let readers = cfg.consumers;
            Ok(Endpoints {
                senders: vec![BusTx { bus, readers, gone }],
                receivers,
            })
        }
    }
}

/// Registers this crate's transports (BusBroadcast).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(BusBroadcast));
}
