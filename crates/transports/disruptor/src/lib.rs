//! `disruptor`: a ring of the `disruptor` crate (an LMAX Disruptor port) whose processor thread
//! calls the harness's sink.
//!
//! The ring's slots are `Option<M>`, created as `None`. A producer claims a slot, stores
//! `Some(msg)` in it and publishes the sequence; the processor thread hands `&msg` to the sink.
//! The message then stays in its slot until a producer reuses the slot one lap later and drops
//! it there, so with heap payloads the *producer* frees the message of `capacity` sends ago.
//!
//! One producer gets the crate's `SingleProducer`; more get cloned `MultiProducer`s (the crate
//! requires at least 64 slots for those). Producers spin on `try_publish` with [`Backoff`],
//! counting each full ring as a failed attempt (the crate's own `publish` spins without a hint
//! or yield); the processor thread busy-spins too, yielding after a run of empty polls (see
//! [`SpinYield`]).
//!
//! Shutdown follows the crate: dropping the last producer handle marks the end of the stream and
//! joins the processor thread once it has drained the ring. So that a producer thread never waits
//! for the consumer, a dropped [`DisruptorTx`] parks its producer handle instead, and
//! [`CallbackHandle::finish`] drops the parked handles (joining the processor thread), after which
//! the processor's closure has been dropped and has handed the sink back.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use disruptor::{
    build_multi_producer, build_single_producer, MultiProducer, Producer as _, Sequence,
    SingleConsumerBarrier, SingleProducer,
};
use handoff::adapter::Backoff;
use handoff::adapter::{SinkGuard, SinkHome};
use handoff::prelude::*;
use handoff::transport::handles;
use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// `disruptor`: a `disruptor` crate ring whose processor thread calls the sink.
pub struct Disruptor;

/// The multi-producer ring of the `disruptor` crate needs at least this many slots.
pub const MIN_MULTI_PRODUCER_CAPACITY: usize = 64;

/// One ring slot: the message last published into it.
struct Slot<M>(Option<M>);

// SAFETY: the crate asks for `Sync` events because its processor threads read slots through
// shared references. This ring has a single processor, and the crate's sequence barriers give
// each slot to one thread at a time: the producer that claimed the sequence writes the slot and
// publishes the sequence (release), the processor acquires it, reads the slot, and advances its
// cursor (release), which a producer acquires before it claims the slot again. A slot is thus
// never accessed by two threads at once, only handed from one to the next with a happens-before
// edge, so `M: Send` suffices (the argument that makes `Mutex<T>: Sync` for `T: Send`).
unsafe impl<M: Send> Sync for Slot<M> {}

/// The processor thread's wait strategy: a busy spin that yields the time slice after
/// [`SPINS_BEFORE_YIELD`](super::SPINS_BEFORE_YIELD) empty polls in a row for the same sequence,
/// through the same [`Backoff`] as every spinning adapter.
#[derive(Clone, Copy, Debug)]
pub struct SpinYield;

impl disruptor::wait_strategies::WaitStrategy for SpinYield {
    #[inline]
    fn wait_for(&self, sequence: Sequence) {
        thread_local! {
            // The sequence being waited for, and the backoff of that run of polls.
            static WAITING: Cell<(Sequence, Backoff)> = const { Cell::new((-1, Backoff::new())) };
        }
        WAITING.with(|w| {
            let (waited, mut backoff) = w.get();
            if waited != sequence {
                backoff = Backoff::new();
            }
            backoff.snooze();
            w.set((sequence, backoff));
        });
    }
}

enum Publisher<M> {
    Single(SingleProducer<Slot<M>, SingleConsumerBarrier>),
    Multi(MultiProducer<Slot<M>, SingleConsumerBarrier>),
}

impl<M> Publisher<M> {
    /// Publishes `msg` (leaving `None` behind) if a slot is free; leaves it in place otherwise.
    #[inline]
    fn try_publish(&mut self, msg: &mut Option<M>) -> bool {
        let update = |slot: &mut Slot<M>| slot.0 = msg.take();
        match self {
            Publisher::Single(p) => p.try_publish(update).is_ok(),
            Publisher::Multi(p) => p.try_publish(update).is_ok(),
        }
    }
}

/// Producer handles parked by dropped senders, waiting for `finish` (or the last owner) to drop
/// them.
struct Parking<M> {
    publishers: Mutex<Vec<Publisher<M>>>,
    all_parked: Condvar,
    senders: usize,
}

impl<M> Parking<M> {
    fn lock(&self) -> MutexGuard<'_, Vec<Publisher<M>>> {
        // Pushing to a Vec is all that happens under this lock.
        self.publishers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Drops producer handles; returns false if that panicked, which the crate does when the
/// processor thread it joins had panicked.
fn drop_publishers<M>(publishers: Vec<Publisher<M>>) -> bool {
    panic::catch_unwind(AssertUnwindSafe(move || drop(publishers))).is_ok()
}

impl<M> Drop for Parking<M> {
    fn drop(&mut self) {
        // Reached only if `finish` was never called: still join the processor thread, without
        // letting its panic escape a destructor.
        let publishers = std::mem::take(
            self.publishers
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        drop_publishers(publishers);
    }
}

/// Producer handle of `disruptor`.
pub struct DisruptorTx<M, S> {
    publisher: ManuallyDrop<Publisher<M>>,
    parking: Arc<Parking<M>>,
    home: Arc<SinkHome<S>>,
    failed: u64,
}

/// The running processor of `disruptor`.
pub struct DisruptorHandle<M, S> {
    parking: Arc<Parking<M>>,
    home: Arc<SinkHome<S>>,
}

impl<M: Message, S: Sink<M>> Sender<M> for DisruptorTx<M, S> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let mut msg = Some(msg);
        let mut backoff = Backoff::new();
        loop {
            if self.publisher.try_publish(&mut msg) {
                return Ok(());
            }
            if self.home.is_lost() {
                // The processor died: the ring will never drain.
                return Err(msg.take().expect("an unpublished message stays in place"));
            }
            self.failed += 1;
            backoff.snooze();
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M, S> Drop for DisruptorTx<M, S> {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once, and the field is not used after this line.
        let publisher = unsafe { ManuallyDrop::take(&mut self.publisher) };
        self.parking.lock().push(publisher);
        self.parking.all_parked.notify_all();
    }
}

impl<M: Message, S: Sink<M>> CallbackHandle<S> for DisruptorHandle<M, S> {
    fn finish(self) -> Option<S> {
        let publishers = {
            let mut parked = self.parking.lock();
            while parked.len() < self.parking.senders {
                parked = self
                    .parking
                    .all_parked
                    .wait(parked)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            std::mem::take(&mut *parked)
        };
        // Dropping the last producer handle marks the end of the stream and joins the processor
        // thread, whose closure (and with it the sink's guard) is dropped before the join returns.
        let joined = drop_publishers(publishers);
        let sink = self.home.wait_take();
        sink.filter(|_| joined)
    }
}

impl CallbackTransport for Disruptor {
    type Tx<M: Message, S: Sink<M>> = DisruptorTx<M, S>;
    type Handle<M: Message, S: Sink<M>> = DisruptorHandle<M, S>;

    fn info(&self) -> TransportInfo {
        const SEMANTICS: Semantics = Semantics::mpsc()
            .ordering(Ordering::GlobalFifo)
            .bounded(1, true)
            .wait(WaitStrategy::Spin)
            .callback();
        TransportInfo::new(
            "disruptor",
            "disruptor crate ring (2^n slots of Option<M>; multi-producer needs >= 64), processor thread \
             calls the sink; producers drop the message a lap old when reusing its slot; busy spin",
            SEMANTICS,
        )
    }

    fn connect<M: Message, S: Sink<M>>(
        &self,
        cfg: &ChannelConfig,
        sink: S,
    ) -> Result<(Vec<DisruptorTx<M, S>>, DisruptorHandle<M, S>), BuildError> {
        if cfg.consumers != 1 {
            return Err(BuildError::Unsupported(
                "the disruptor adapter runs exactly one processor".into(),
            ));
        }
        if cfg.producers == 0 {
            return Err(BuildError::Invalid(
                "at least one producer is needed".into(),
            ));
        }
        if !cfg.capacity.is_power_of_two() {
            return Err(BuildError::Invalid(format!(
                "capacity {} is not a power of two",
                cfg.capacity
            )));
        }
        if cfg.producers > 1 && cfg.capacity < MIN_MULTI_PRODUCER_CAPACITY {
            return Err(BuildError::Invalid(format!(
                "the multi-producer disruptor needs a capacity of at least {MIN_MULTI_PRODUCER_CAPACITY}"
            )));
        }

        let home = SinkHome::new();
        let mut guard = SinkGuard::new(sink, Arc::clone(&home));
        let processor = move |slot: &Slot<M>, _: Sequence, _: bool| {
            if let Some(msg) = &slot.0 {
                guard.accept(msg);
            }
        };
        let factory = || Slot(None);
        let publishers = if cfg.producers == 1 {
            vec![Publisher::Single(
                build_single_producer(cfg.capacity, factory, SpinYield)
                    .handle_events_with(processor)
                    .build(),
            )]
        } else {
            let first = build_multi_producer(cfg.capacity, factory, SpinYield)
                .handle_events_with(processor)
                .build();
            handles(cfg.producers, first, Publisher::Multi)
        };

        let parking = Arc::new(Parking {
            publishers: Mutex::new(Vec::new()),
            all_parked: Condvar::new(),
            senders: publishers.len(),
        });
        let senders = publishers
            .into_iter()
            .map(|p| DisruptorTx {
                publisher: ManuallyDrop::new(p),
                parking: Arc::clone(&parking),
                home: Arc::clone(&home),
                failed: 0,
            })
            .collect();
        Ok((senders, DisruptorHandle { parking, home }))
    }
}

/// Registers this crate's transports (Disruptor).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::callback(Disruptor));
}
