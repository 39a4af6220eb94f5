//! `crossbeam-array-queue` and `crossbeam-seg-queue`: crossbeam-queue's lock-free MPMC queues,
//! driven by spinning on `push` / `pop`.
//!
//! `ArrayQueue` is Vyukov's bounded MPMC queue (a ring of stamped slots); `SegQueue` an unbounded
//! queue of linked segments. Both are linearizable FIFO queues. Neither knows about
//! disconnection, so the adapter adds it: the handles share live-sender and live-receiver counts,
//! on a cache line of their own (they are written only when a handle is dropped).
//!
//! * A receiver that finds the queue empty checks the sender count; once it reads 0 (an acquire
//!   load that synchronises with every sender's release decrement, hence with every push) it pops
//!   once more, and only if that pop also finds nothing does the stream end. Without the second
//!   pop a message pushed just before the last sender was dropped could be lost.
//! * A sender checks the receiver count when the queue is full (`ArrayQueue`), or before every
//!   push for the unbounded `SegQueue`, whose producer would otherwise fill memory after its
//!   consumer died.
//!
//! Failed pushes (full) and failed pops (empty) are counted as failed attempts; between attempts
//! both sides wait with [`Backoff`](handoff::adapter::Backoff).
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use crossbeam_queue::{ArrayQueue, SegQueue};
use crossbeam_utils::CachePadded;
use handoff::adapter::{recv_spinning, send_spinning};
use handoff::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

/// A non-blocking MPMC queue that a spinning adapter can drive (`QueueTx` / `QueueRx`).
pub trait SpinQueue<M>: Send + Sync + 'static {
    /// Whether `try_push` can fail because the queue is full.
    const BOUNDED: bool;
    /// Pushes `msg`, or returns it if the queue is full.
    fn try_push(&self, msg: M) -> Result<(), M>;
    /// Pops the oldest message, if any.
    fn try_pop(&self) -> Option<M>;
}

impl<M: Send + 'static> SpinQueue<M> for ArrayQueue<M> {
    const BOUNDED: bool = true;

    #[inline]
    fn try_push(&self, msg: M) -> Result<(), M> {
        self.push(msg)
    }

    #[inline]
    fn try_pop(&self) -> Option<M> {
        self.pop()
    }
}

impl<M: Send + 'static> SpinQueue<M> for SegQueue<M> {
    const BOUNDED: bool = false;

    #[inline]
    fn try_push(&self, msg: M) -> Result<(), M> {
        self.push(msg);
        Ok(())
    }

    #[inline]
    fn try_pop(&self) -> Option<M> {
        self.pop()
    }
}

/// Live handle counts, for disconnection.
struct Ends {
    senders: AtomicUsize,
    receivers: AtomicUsize,
}

struct Shared<Q> {
    queue: Q,
    ends: CachePadded<Ends>,
}

/// Producer handle of a [`SpinQueue`]: spins while the queue is full.
pub struct QueueTx<Q> {
    shared: Arc<Shared<Q>>,
    failed: u64,
}

/// Consumer handle of a [`SpinQueue`]: spins while the queue is empty.
pub struct QueueRx<Q> {
    shared: Arc<Shared<Q>>,
    failed: u64,
}

impl<M: Message, Q: SpinQueue<M>> Sender<M> for QueueTx<Q> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let shared = &*self.shared;
        if !Q::BOUNDED && shared.ends.receivers.load(AtomicOrdering::Relaxed) == 0 {
            return Err(msg);
        }
        let push = |s: &mut &Shared<Q>, m| s.queue.try_push(m);
        let gone = |s: &&Shared<Q>| s.ends.receivers.load(AtomicOrdering::Relaxed) == 0;
        send_spinning(&mut &*shared, &mut self.failed, msg, push, gone)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        let shared = &*self.shared;
        if shared.ends.receivers.load(AtomicOrdering::Relaxed) == 0 {
            return Err(TrySendError::Disconnected(msg));
        }
        shared.queue.try_push(msg).map_err(TrySendError::Full)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M: Message, Q: SpinQueue<M>> Receiver<M> for QueueRx<Q> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        // The acquire load synchronises with every sender's release decrement, hence with every
        // push: the pop after it sees whatever is left.
        let pop = |s: &mut &Shared<Q>| s.queue.try_pop();
        let gone = |s: &&Shared<Q>| s.ends.senders.load(AtomicOrdering::Acquire) == 0;
        recv_spinning(&mut &*self.shared, &mut self.failed, pop, gone)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<Q> Drop for QueueTx<Q> {
    fn drop(&mut self) {
        self.shared
            .ends
            .senders
            .fetch_sub(1, AtomicOrdering::Release);
    }
}

impl<Q> Drop for QueueRx<Q> {
    fn drop(&mut self) {
        self.shared
            .ends
            .receivers
            .fetch_sub(1, AtomicOrdering::Release);
    }
}

fn endpoints<Q>(queue: Q, cfg: &ChannelConfig) -> Endpoints<QueueTx<Q>, QueueRx<Q>> {
    let ends = Ends {
        senders: AtomicUsize::new(cfg.producers),
        receivers: AtomicUsize::new(cfg.consumers),
    };
    let shared = Arc::new(Shared {
        queue,
        ends: CachePadded::new(ends),
    });
    let tx = |shared| QueueTx { shared, failed: 0 };
    let rx = |shared| QueueRx { shared, failed: 0 };
    Endpoints::cloned(cfg, (Arc::clone(&shared), shared), tx, rx)
}

const QUEUES: Semantics = Semantics::mpmc()
    .ordering(Ordering::GlobalFifo)
    .wait(WaitStrategy::Spin);

transport! {
    /// `crossbeam-array-queue`: `crossbeam_queue::ArrayQueue` (bounded), spinning.
    CrossbeamArrayQueue("crossbeam-array-queue"): Transport<QueueTx<ArrayQueue<M>>, QueueRx<ArrayQueue<M>>> {
        description: "crossbeam_queue::ArrayQueue (bounded MPMC ring), spinning on push/pop; disconnection by handle counts",
        semantics: QUEUES,
        channel(cfg) => {
            if cfg.capacity == 0 {
                return Err(BuildError::Invalid(
                    "ArrayQueue needs a capacity of at least 1".into(),
                ));
            }
            Ok(endpoints(ArrayQueue::new(cfg.capacity), cfg))
        }
    }

    /// `crossbeam-seg-queue`: `crossbeam_queue::SegQueue` (unbounded), spinning.
    CrossbeamSegQueue("crossbeam-seg-queue"): Transport<QueueTx<SegQueue<M>>, QueueRx<SegQueue<M>>> {
        description: "crossbeam_queue::SegQueue (unbounded MPMC, linked segments), spinning on pop; disconnection by handle counts",
        semantics: QUEUES.unbounded(),
        channel(cfg) => Ok(endpoints(SegQueue::new(), cfg)),
    }
}

/// Registers this crate's transports (CrossbeamArrayQueue, CrossbeamSegQueue).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(CrossbeamArrayQueue));
    catalog.register(Entry::pull(CrossbeamSegQueue));
}
