//! `rtrb`: the real-time-safe SPSC ring buffer of the `rtrb` crate, driven by spinning.
//!
//! Single messages go through `push` / `pop`. Runs go through rtrb's chunk API: `send_batch`
//! fills every free slot it can get from the iterator with one `write_chunk_uninit` and publishes
//! the write index once; `recv_batch` moves up to `max` messages out of one `read_chunk` and
//! releases their slots at once, and `recv_runs` lends that chunk's slices in place. Either side
//! reloads the other's index when its cached count would cut a run short. Disconnection is
//! rtrb's own: `is_abandoned()` once the other end is dropped. A receiver that sees the producer
//! gone reads the ring once more before ending the stream; a sender only notices a dropped
//! consumer when the ring is full (rtrb accepts pushes into an abandoned ring while there is
//! room).
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::adapter::check_spsc;
use handoff::adapter::{recv_spinning, send_spinning, Backoff};
use handoff::prelude::*;

/// Producer handle of `rtrb`.
pub struct RtrbTx<M> {
    producer: rtrb::Producer<M>,
    failed: u64,
}

/// Consumer handle of `rtrb`.
pub struct RtrbRx<M> {
    consumer: rtrb::Consumer<M>,
    failed: u64,
}

impl<M: Message> Sender<M> for RtrbTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let push = |p: &mut rtrb::Producer<M>, m| p.push(m).map_err(|rtrb::PushError::Full(m)| m);
        let gone = |p: &rtrb::Producer<M>| p.is_abandoned();
        send_spinning(&mut self.producer, &mut self.failed, msg, push, gone)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        match self.producer.push(msg) {
            Ok(()) => Ok(()),
            Err(rtrb::PushError::Full(m)) if self.producer.is_abandoned() => {
                Err(TrySendError::Disconnected(m))
            }
            Err(rtrb::PushError::Full(m)) => Err(TrySendError::Full(m)),
        }
    }

    #[inline(always)]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        while let Some(first) = msgs.next() {
            let mut backoff = Backoff::new();
            // As handoff-spsc does: the cached count of free slots is trusted only if it holds
            // the whole run the iterator promises, else the consumer's index is reloaded, so a
            // nearly exhausted cache does not cut the run into small chunks.
            let want = msgs.size_hint().0.saturating_add(1);
            let free = loop {
                let free = match self.producer.cached_slots() {
                    n if n >= want => n,
                    _ => self.producer.slots(),
                };
                if free > 0 {
                    break free;
                }
                if self.producer.is_abandoned() {
                    return Err(first);
                }
                self.failed += 1;
                backoff.snooze();
            };
            // Only this producer writes, so the `free` slots it has seen stay free.
            let mut chunk = self
                .producer
                .write_chunk_uninit(free)
                .expect("free slots are writable");
            // Written slot by slot rather than with `fill_from_iter`, which the compiler keeps
            // out of line here and which would have to be handed `first` through a chained
            // iterator: a loop over the chunk's own slices is what a user of rtrb would write.
            let (head, tail) = chunk.as_mut_slices();
            head[0].write(first);
            let mut written = 1;
            'fill: for stretch in [&mut head[1..], tail] {
                for slot in stretch {
                    let Some(m) = msgs.next() else {
                        break 'fill;
                    };
                    slot.write(m);
                    written += 1;
                }
            }
            // SAFETY: the first `written` slots of the chunk (the first slice, then the second)
            // were initialized just above. Should the iterator panic, the chunk is dropped
            // uncommitted and the messages written so far leak, which is safe.
            unsafe { chunk.commit(written) };
        }
        Ok(())
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M: Message> Receiver<M> for RtrbRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let pop = |c: &mut rtrb::Consumer<M>| c.pop().ok();
        let gone = |c: &rtrb::Consumer<M>| c.is_abandoned();
        recv_spinning(&mut self.consumer, &mut self.failed, pop, gone)
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        let Some(chunk) = self.ready_chunk(max) else {
            return 0;
        };
        let n = chunk.len();
        chunk.into_iter().for_each(&mut f);
        n
    }

    #[inline(always)]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        let Some(chunk) = self.ready_chunk(max) else {
            return 0;
        };
        let n = chunk.len();
        let (first, second) = chunk.as_slices();
        f(first);
        if !second.is_empty() {
            f(second);
        }
        // Drops the messages and hands the slots back with one index store.
        chunk.commit_all();
        n
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M: Message> RtrbRx<M> {
    /// Waits until a message is ready and claims the ready run, at most `max` messages (at
    /// least one); `None` once the producer is gone and the ring is empty.
    #[inline]
    fn ready_chunk(&mut self, max: usize) -> Option<rtrb::chunks::ReadChunk<'_, M>> {
        let max = max.max(1);
        let mut backoff = Backoff::new();
        loop {
            // The cached count is trusted only if it fills the whole run, else the producer's
            // index is reloaded (as handoff-spsc does), so runs are not cut short.
            let ready = match self.consumer.cached_slots() {
                n if n >= max => n,
                _ => self.consumer.slots(),
            };
            if ready > 0 {
                // Only this consumer reads, so the slots it has seen stay readable.
                let chunk = self.consumer.read_chunk(ready.min(max));
                return Some(chunk.expect("ready slots are readable"));
            }
            if self.consumer.is_abandoned() && self.consumer.slots() == 0 {
                return None;
            }
            self.failed += 1;
            backoff.snooze();
        }
    }
}

transport! {
    /// `rtrb`: `rtrb::RingBuffer` (bounded SPSC), spinning.
    Rtrb("rtrb"): Transport<RtrbTx<M>, RtrbRx<M>> {
        description: "rtrb::RingBuffer (bounded SPSC), spinning; batches through write/read chunks",
        semantics: Semantics::spsc().batch(),
        channel(cfg) => {
            check_spsc(cfg)?;
            if cfg.capacity == 0 {
                return Err(BuildError::Invalid(
                    "rtrb needs a capacity of at least 1".into(),
                ));
            }
            let (producer, consumer) = rtrb::RingBuffer::new(cfg.capacity);
            Ok(Endpoints::one(
                RtrbTx { producer, failed: 0 },
                RtrbRx { consumer, failed: 0 },
            ))
        }
    }
}

/// Registers this crate's transports (Rtrb).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(Rtrb));
}
