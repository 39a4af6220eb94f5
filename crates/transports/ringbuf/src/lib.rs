//! `ringbuf`: the `ringbuf` crate's heap-allocated SPSC ring (`HeapRb`), driven by spinning.
//!
//! The endpoints are ringbuf's caching producer and consumer, which re-read the other side's
//! index only when their cached view says full or empty. Disconnection is ringbuf's own: each
//! endpoint "holds" its end of the ring and releases it when dropped, visible to the other side
//! through `write_is_held()` / `read_is_held()`. A receiver that sees the write end released
//! reads the ring once more before ending the stream; a sender only notices a released read end
//! when the ring is full.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::adapter::check_spsc;
use handoff::adapter::{recv_spinning, send_spinning};
use handoff::prelude::*;
use ringbuf::traits::{Consumer as _, Observer as _, Producer as _, Split as _};
use ringbuf::{HeapCons, HeapProd, HeapRb};

/// Producer handle of `ringbuf`.
pub struct RingbufTx<M> {
    producer: HeapProd<M>,
    failed: u64,
}

/// Consumer handle of `ringbuf`.
pub struct RingbufRx<M> {
    consumer: HeapCons<M>,
    failed: u64,
}

impl<M: Message> Sender<M> for RingbufTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let push = |p: &mut HeapProd<M>, m| p.try_push(m);
        let gone = |p: &HeapProd<M>| !p.read_is_held();
        send_spinning(&mut self.producer, &mut self.failed, msg, push, gone)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        match self.producer.try_push(msg) {
            Ok(()) => Ok(()),
            Err(m) if !self.producer.read_is_held() => Err(TrySendError::Disconnected(m)),
            Err(m) => Err(TrySendError::Full(m)),
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M: Message> Receiver<M> for RingbufRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let pop = |c: &mut HeapCons<M>| c.try_pop();
        let gone = |c: &HeapCons<M>| !c.write_is_held();
        recv_spinning(&mut self.consumer, &mut self.failed, pop, gone)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

transport! {
    /// `ringbuf`: `ringbuf::HeapRb` (bounded SPSC), spinning.
    Ringbuf("ringbuf"): Transport<RingbufTx<M>, RingbufRx<M>> {
        description: "ringbuf::HeapRb (bounded SPSC, caching endpoints), spinning on try_push/try_pop",
        semantics: Semantics::spsc(),
        channel(cfg) => {
            check_spsc(cfg)?;
            let rb = HeapRb::<M>::try_new(cfg.capacity)
                .map_err(|e| BuildError::Invalid(format!("ringbuf: {e}")))?;
            let (producer, consumer) = rb.split();
            Ok(Endpoints::one(
                RingbufTx { producer, failed: 0 },
                RingbufRx { consumer, failed: 0 },
            ))
        }
    }
}

/// Registers this crate's transports (Ringbuf).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(Ringbuf));
}
