//! `ringbuf`: the `ringbuf` crate's heap-allocated SPSC ring (`HeapRb`), driven by spinning.
//!
//! The endpoints are ringbuf's caching producer and consumer, which re-read the other side's
//! index only when their cached view says full or empty. Disconnection is ringbuf's own: each
//! endpoint "holds" its end of the ring and releases it when dropped, visible to the other side
//! through `write_is_held()` / `read_is_held()`. A receiver that sees the write end released
//! reads the ring once more before ending the stream; a sender only notices a released read end
//! when the ring is full.

use super::spin::Backoff;
use crate::prelude::*;
use ringbuf::traits::{Consumer as _, Observer as _, Producer as _, Split as _};
use ringbuf::{HeapCons, HeapProd, HeapRb};

/// `ringbuf`: `ringbuf::HeapRb` (bounded SPSC), spinning.
pub struct Ringbuf;

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
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let mut msg = msg;
        let mut backoff = Backoff::new();
        loop {
            match self.producer.try_push(msg) {
                Ok(()) => return Ok(()),
                Err(m) => msg = m,
            }
            if !self.producer.read_is_held() {
                return Err(msg);
            }
            self.failed += 1;
            backoff.snooze();
        }
    }

    #[inline]
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
    #[inline]
    fn recv(&mut self) -> Option<M> {
        let mut backoff = Backoff::new();
        loop {
            if let Some(m) = self.consumer.try_pop() {
                return Some(m);
            }
            if !self.consumer.write_is_held() {
                // The producer's last pushes happened before it released its end: one more pop
                // sees them.
                return self.consumer.try_pop();
            }
            self.failed += 1;
            backoff.snooze();
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl Transport for Ringbuf {
    type Tx<M: Message> = RingbufTx<M>;
    type Rx<M: Message> = RingbufRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "ringbuf".into(),
            description:
                "ringbuf::HeapRb (bounded SPSC, caching endpoints), spinning on try_push/try_pop"
                    .into(),
            semantics: Semantics {
                producers: Arity::One,
                consumers: Arity::One,
                ordering: Ordering::GlobalFifo,
                bound: Bound::Bounded {
                    min_capacity: 1,
                    power_of_two: false,
                },
                wait: WaitStrategy::Spin,
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
    ) -> Result<Endpoints<RingbufTx<M>, RingbufRx<M>>, BuildError> {
        super::check_spsc(cfg)?;
        let rb = HeapRb::<M>::try_new(cfg.capacity)
            .map_err(|e| BuildError::Invalid(format!("ringbuf: {e}")))?;
        let (producer, consumer) = rb.split();
        Ok(Endpoints {
            senders: vec![RingbufTx {
                producer,
                failed: 0,
            }],
            receivers: vec![RingbufRx {
                consumer,
                failed: 0,
            }],
        })
    }
}
