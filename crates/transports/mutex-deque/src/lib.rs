//! `mutex-deque`: the baseline every other transport is measured against, a
//! `Mutex<VecDeque<M>>` with two condition variables.
//!
//! One lock guards the queue and the counts of live handles and of waiting threads. A producer
//! waits on `not_full` while the queue holds `capacity` messages; a consumer waits on `not_empty`
//! while it is empty. A side signals the other's condition variable only when a thread is
//! recorded as waiting on it, so an uncontended hand-off makes no wake-up system call. Every
//! message passes through the one lock, so the order is a single FIFO.
//!
//! The `wake` option separates the queue from its wake policy: `edge` (the default, as above:
//! a producer signals only when a consumer sleeps, which it does only on an empty queue),
//! `every` (a producer signals `not_empty` on every push, whether anyone sleeps or not: the
//! per-push wake-up call some queues make) and `spin` (nobody sleeps: a consumer facing an empty
//! queue, or a producer facing a full one, releases the lock, waits with the shared
//! [`Backoff`](handoff::adapter::Backoff) of every spinning adapter and looks again, counting each such
//! look as a failed attempt).
//!
//! Disconnection: dropping the last sender wakes every waiting consumer, which drains the queue
//! and then sees the stream end; dropping the last receiver wakes every waiting producer, whose
//! `send` then returns the message.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::prelude::*;
use handoff::transport::OptionTable;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Who wakes a waiting side: the same three policies as the reference MPSC queues' `wake`, declared
/// here so that this baseline depends on no other transport's crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wake {
    /// A waiting side sleeps; it is signalled only when one sleeps.
    Edge,
    /// Nobody sleeps: the harness's shared spin.
    Spin,
    /// As `Edge`, with a signal on every push.
    Every,
}

struct State<M> {
    queue: VecDeque<M>,
    senders: usize,
    receivers: usize,
    /// Producers waiting on `not_full`.
    waiting_senders: usize,
    /// Consumers waiting on `not_empty`.
    waiting_receivers: usize,
}

struct Shared<M> {
    /// The consumer wake policy (option `wake`).
    wake: Wake,
    state: Mutex<State<M>>,
    not_empty: Condvar,
    not_full: Condvar,
    capacity: usize,
}

impl<M> Shared<M> {
    fn lock(&self) -> MutexGuard<'_, State<M>> {
        // No code panics while holding the lock except, at worst, an allocation failure inside
        // `VecDeque`, which leaves the state consistent: poisoning carries no information here.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Producer handle of `mutex-deque`.
pub struct MutexDequeTx<M> {
    shared: Arc<Shared<M>>,
    /// Full looks followed by a wait (`wake=spin` only: the others sleep on the condition
    /// variable instead).
    failed: u64,
}

/// Consumer handle of `mutex-deque`.
pub struct MutexDequeRx<M> {
    shared: Arc<Shared<M>>,
    /// Empty looks followed by a wait (`wake=spin` only: the others sleep on the condition
    /// variable instead).
    failed: u64,
}

/// The `wake` option of `mutex-deque`: the same three policies as the reference MPSC queues,
/// over a lock and condition variables.
const WAKE: OptionTable<Wake> = OptionTable {
    name: "wake",
    help: "wake policy: edge (a waiting side sleeps on a condition variable, signalled only when one sleeps), spin (the harness's shared spin: nobody sleeps; a waiting side releases the lock, spin-loop hints, a yield every 64 failed looks), every (as edge, with a signal on every push)",
    values: &[("edge", Wake::Edge), ("spin", Wake::Spin), ("every", Wake::Every)],
    waits: &[WaitStrategy::Block, WaitStrategy::Spin, WaitStrategy::Block],
};

impl<M: Message> Sender<M> for MutexDequeTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        let mut backoff = handoff::adapter::Backoff::new();
        while state.queue.len() >= shared.capacity && state.receivers > 0 {
            if shared.wake == Wake::Spin {
                drop(state);
                self.failed += 1;
                backoff.snooze();
                state = shared.lock();
                continue;
            }
            state.waiting_senders += 1;
            state = shared
                .not_full
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.waiting_senders -= 1;
        }
        if state.receivers == 0 {
            return Err(msg);
        }
        state.queue.push_back(msg);
        let waiting = state.waiting_receivers;
        drop(state);
        Self::wake_after_push(shared, waiting);
        Ok(())
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        if state.receivers == 0 {
            return Err(TrySendError::Disconnected(msg));
        }
        if state.queue.len() >= shared.capacity {
            return Err(TrySendError::Full(msg));
        }
        state.queue.push_back(msg);
        let waiting = state.waiting_receivers;
        drop(state);
        Self::wake_after_push(shared, waiting);
        Ok(())
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M: Message> MutexDequeTx<M> {
    fn wake_after_push(shared: &Shared<M>, waiting_receivers: usize) {
        let wake = match shared.wake {
            Wake::Edge => waiting_receivers > 0,
            Wake::Every => true,
            // `Spin`, and any policy a later version adds: no wake-ups it was not asked for.
            _ => false,
        };
        if wake {
            shared.not_empty.notify_one();
        }
    }
}

impl<M: Message> Receiver<M> for MutexDequeRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        let mut backoff = handoff::adapter::Backoff::new();
        loop {
            if let Some(m) = state.queue.pop_front() {
                let wake = state.waiting_senders > 0;
                drop(state);
                if wake {
                    shared.not_full.notify_one();
                }
                return Some(m);
            }
            if state.senders == 0 {
                return None;
            }
            if shared.wake == Wake::Spin {
                drop(state);
                self.failed += 1;
                backoff.snooze();
                state = shared.lock();
                continue;
            }
            state.waiting_receivers += 1;
            state = shared
                .not_empty
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.waiting_receivers -= 1;
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M> Drop for MutexDequeTx<M> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.senders -= 1;
        let last = state.senders == 0;
        drop(state);
        if last {
            self.shared.not_empty.notify_all();
        }
    }
}

impl<M> Drop for MutexDequeRx<M> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receivers -= 1;
        let last = state.receivers == 0;
        drop(state);
        if last {
            self.shared.not_full.notify_all();
        }
    }
}

transport! {
    /// `mutex-deque`: `Mutex<VecDeque<M>>` + two `Condvar`s, bounded, MPMC.
    MutexDeque("mutex-deque"): Transport<MutexDequeTx<M>, MutexDequeRx<M>> {
        description: "Mutex<VecDeque> + not-empty/not-full Condvars (baseline), bounded, MPMC",
        semantics: Semantics::mpmc()
            .ordering(Ordering::GlobalFifo)
            .wait(WaitStrategy::Block),
        options: [WAKE.spec()],
        channel(cfg) => {
            let wake = WAKE.get(cfg);
            if cfg.capacity == 0 {
                return Err(BuildError::Invalid(
                    "mutex-deque needs a capacity of at least 1".into(),
                ));
            }
            let state = State {
                queue: VecDeque::with_capacity(cfg.capacity),
                senders: cfg.producers,
                receivers: cfg.consumers,
                waiting_senders: 0,
                waiting_receivers: 0,
            };
            let shared = Arc::new(Shared {
                wake,
                state: Mutex::new(state),
                not_empty: Condvar::new(),
                not_full: Condvar::new(),
                capacity: cfg.capacity,
            });
            let ends = (Arc::clone(&shared), shared);
            let rx = |shared| MutexDequeRx { shared, failed: 0 };
            let tx = |shared| MutexDequeTx { shared, failed: 0 };
            Ok(Endpoints::cloned(cfg, ends, tx, rx))
        }
    }
}

/// Registers this crate's transports (MutexDeque).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(MutexDeque));
}
