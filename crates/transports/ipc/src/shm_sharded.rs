//! `shm-sharded`: the shared-memory ring's MPSC form: one `shm-ring` per producer, all in one
//! shared region, and one consumer that drains them in turn.
//!
//! Several writers of one ring across processes would need a claim protocol that survives a
//! writer dying between its claim and its publication (the consumer would wait for that slot
//! forever). Sharding avoids the question: each producer owns its ring whole, exactly as
//! `shm-ring`'s single producer does (the same protocol, the same model tests), and what the
//! rings share is the consumer. Order is per producer (each ring is FIFO); capacity is per
//! producer, as for `handoff-mpsc`'s shards.
//!
//! The consumer stays on a ring while it has messages and moves to the next when it is empty,
//! so a steady producer is read in runs; every ring is looked at at least once per pass over
//! them, so no producer waits on another. The stream ends when every producer has left (dropped
//! its end, or its process died) and every ring is empty. A consumer that finds nothing spins
//! with the catalog's backoff; there is no blocking wait (one consumer sleeping on K rings
//! would need a wake word of its own, which this form leaves out).

use super::shm_ring::{read, Rings, ShmTx};
use handoff::adapter::Backoff;
use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::semantics::{Semantics, WaitStrategy};
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Transport, TransportInfo,
};
use handoff::transport_cross::{CrossProcess, End};
use handoff_shm::{Consumer, Producer, Shared, Waiting};
use std::sync::Arc;

/// `shm-sharded`.
pub struct ShmSharded;

impl ShmSharded {
    /// The rings of `cfg`, one per producer, for `M`.
    fn rings<M: Message>(cfg: &ChannelConfig) -> Result<Rings, BuildError> {
        if cfg.consumers != 1 || cfg.producers == 0 {
            return Err(BuildError::Unsupported(format!(
                "shm-sharded takes one consumer and at least one producer ({} producers, {} consumers asked)",
                cfg.producers, cfg.consumers
            )));
        }
        Rings::of::<M>("shm-sharded", cfg.capacity, cfg.producers)
    }

    /// New rings for `cfg`, one per producer, and the region's rendezvous.
    fn create<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<(Vec<Arc<Shared>>, String), BuildError> {
        Self::rings::<M>(cfg)?.create()
    }

    /// The rings another process created at `rendezvous` for `cfg`.
    fn open<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<Arc<Shared>>, BuildError> {
        Self::rings::<M>(cfg)?.open(rendezvous)
    }
}

/// Each ring's producer end.
fn senders<M: Message>(rings: &[Arc<Shared>]) -> Vec<ShmTx<M>> {
    rings
        .iter()
        .map(|r| ShmTx::new(Producer::take(r.clone(), Waiting::Spin)))
        .collect()
}

impl Transport for ShmSharded {
    type Tx<M: Message> = ShmTx<M>;
    type Rx<M: Message> = ShardedRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "shm-sharded",
            "the shared-memory ring's MPSC form: one shm-ring per producer in one memfd both processes map (capacity is per producer), one consumer draining them in turn; spins",
            Semantics::mpsc()
                .bounded(2, true)
                .wait(WaitStrategy::Spin)
                .batch(),
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let (rings, _) = self.create::<M>(cfg)?;
        Ok(Endpoints {
            senders: senders(&rings),
            receivers: vec![ShardedRx::new(&rings)],
        })
    }
}

impl CrossProcess for ShmSharded {
    type Listener = Vec<Arc<Shared>>;

    fn listen<M: Message>(
        &self,
        _end: End,
        cfg: &ChannelConfig,
    ) -> Result<(Self::Listener, String), BuildError> {
        self.create::<M>(cfg)
    }

    fn accept_receiver<M: Message>(
        &self,
        rings: Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<ShardedRx<M>, BuildError> {
        Ok(ShardedRx::new(&rings))
    }

    fn accept_sender<M: Message>(
        &self,
        rings: Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<ShmTx<M>, BuildError> {
        match senders(&rings).pop() {
            Some(tx) if rings.len() == 1 => Ok(tx),
            _ => Err(BuildError::Unsupported(format!(
                "shm-sharded: one sender accepted, {} rings made",
                rings.len()
            ))),
        }
    }

    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<ShmTx<M>>, BuildError> {
        Ok(senders(&self.open::<M>(rendezvous, cfg)?))
    }

    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<ShardedRx<M>, BuildError> {
        Ok(ShardedRx::new(&self.open::<M>(rendezvous, cfg)?))
    }
}

/// The consumer's handle: every ring's consumer end, the ring it is on, which rings are done
/// (producer gone, ring empty), the failed attempts it counted and a run's messages (reused).
pub struct ShardedRx<M: Message> {
    ends: Vec<Consumer>,
    on: usize,
    done: Vec<bool>,
    failed: u64,
    run: Vec<M>,
}

impl<M: Message> ShardedRx<M> {
    fn new(rings: &[Arc<Shared>]) -> ShardedRx<M> {
        ShardedRx {
            ends: rings
                .iter()
                .map(|r| Consumer::take(r.clone(), Waiting::Spin))
                .collect(),
            on: 0,
            done: vec![false; rings.len()],
            failed: 0,
            run: Vec::new(),
        }
    }

    /// Takes from the ring it is on, else from the next ones in turn, with `take` (which
    /// returns how many it took from one ring, 0 if none); marks rings done on the way.
    /// Returns how many it took, or `None` when every ring is done.
    #[inline(always)]
    fn poll(
        &mut self,
        take: &mut impl FnMut(&mut Consumer, &mut Vec<M>) -> usize,
    ) -> Option<usize> {
        let k = self.ends.len();
        let mut open = 0;
        for step in 0..k {
            let i = (self.on + step) % k;
            if self.done[i] {
                continue;
            }
            let mut n = take(&mut self.ends[i], &mut self.run);
            // Whatever its producer published before it left was taken above, or is taken by
            // the look after the flag (which it sets after its last publication); a ring done
            // is one empty after that look.
            if n == 0 && self.ends[i].producer_gone(false) {
                n = take(&mut self.ends[i], &mut self.run);
                if n == 0 {
                    self.done[i] = true;
                    continue;
                }
            }
            if n > 0 {
                self.on = i;
                return Some(n);
            }
            open += 1;
        }
        (open > 0).then_some(0)
    }

    /// Polls until something is taken (`Some(n)`) or every ring is done (`None`).
    #[inline(always)]
    fn wait_for(
        &mut self,
        mut take: impl FnMut(&mut Consumer, &mut Vec<M>) -> usize,
    ) -> Option<usize> {
        let mut backoff = Backoff::new();
        loop {
            match self.poll(&mut take) {
                Some(0) => {
                    self.failed += 1;
                    backoff.snooze();
                }
                other => return other,
            }
        }
    }
}

impl<M: Message> Receiver<M> for ShardedRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let mut got = None;
        self.wait_for(|end, _| {
            got = end.try_pop(read::<M>);
            usize::from(got.is_some())
        })?;
        got
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        self.wait_for(|end, _| end.pop_each(max, read::<M>, &mut f))
            .unwrap_or(0)
    }

    #[inline(always)]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        self.wait_for(|end, run| {
            run.clear();
            let n = end.pop_each(max, read::<M>, &mut |m| run.push(m));
            if n > 0 {
                f(run);
                run.clear();
            }
            n
        })
        .unwrap_or(0)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

/// Registers `shm-sharded`.
pub(crate) fn register(c: &mut Catalog) {
    c.register(Entry::cross_process(ShmSharded));
}
