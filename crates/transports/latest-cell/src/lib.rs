//! `latest-cell`: a conflating single-slot channel ("latest value"), handoff's own.
//!
//! A send puts its value in the one slot, replacing (and dropping) a value the consumer has not
//! taken yet; `recv` takes whatever the slot holds, waiting while it is empty. So the consumer
//! always gets the newest value, values it was too slow for are skipped, and the last value sent
//! is always delivered (the stream ends only once the slot is empty and the producer is gone).
//! One producer: with several, one producer's final value could be replaced by another's.
//!
//! The slot is a mutex-protected `Option`; the consumer parks on a condition variable and is
//! woken only when a send finds it waiting (the empty -> full edge).
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::transport;

use handoff::prelude::*;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

struct State<M> {
    value: Option<M>,
    sender_alive: bool,
    receiver_alive: bool,
    receiver_waiting: bool,
}

struct Shared<M> {
    state: Mutex<State<M>>,
    filled: Condvar,
}

impl<M> Shared<M> {
    fn lock(&self) -> MutexGuard<'_, State<M>> {
        // Nothing panics while the lock is held; poisoning carries no information here.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Producer handle of `latest-cell`.
pub struct LatestTx<M>(Arc<Shared<M>>);

/// Consumer handle of `latest-cell`.
pub struct LatestRx<M>(Arc<Shared<M>>);

impl<M: Message> Sender<M> for LatestTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let mut state = self.0.lock();
        if !state.receiver_alive {
            return Err(msg);
        }
        let replaced = state.value.replace(msg);
        let wake = state.receiver_waiting;
        drop(state);
        if wake {
            self.0.filled.notify_one();
        }
        // Dropped outside the lock: a large value's destructor is not the consumer's wait.
        drop(replaced);
        Ok(())
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        // Never full: a send replaces.
        self.send(msg).map_err(TrySendError::Disconnected)
    }
}

impl<M> Drop for LatestTx<M> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.sender_alive = false;
        let wake = state.receiver_waiting;
        drop(state);
        if wake {
            self.0.filled.notify_one();
        }
    }
}

impl<M: Message> Receiver<M> for LatestRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let mut state = self.0.lock();
        loop {
            if let Some(v) = state.value.take() {
                return Some(v);
            }
            if !state.sender_alive {
                return None;
            }
            state.receiver_waiting = true;
            state = self
                .0
                .filled
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.receiver_waiting = false;
        }
    }
}

impl<M> Drop for LatestRx<M> {
    fn drop(&mut self) {
        self.0.lock().receiver_alive = false;
    }
}

transport! {
    /// `latest-cell` (see the module docs).
    LatestCell("latest-cell"): Transport<LatestTx<M>, LatestRx<M>> {
        description: "handoff's conflating single slot: a send replaces an untaken value (latest-value delivery; pipeline hops)",
        semantics: Semantics::spsc()
            .ordering(Ordering::Latest)
            .bounded(0, false)
            .wait(WaitStrategy::Block),
        channel(cfg) => {
            if cfg.producers != 1 {
                return Err(BuildError::Unsupported(
                    "latest-cell takes one producer".into(),
                ));
            }
            let shared = Arc::new(Shared {
                state: Mutex::new(State {
                    value: None,
                    sender_alive: true,
                    receiver_alive: true,
                    receiver_waiting: false,
                }),
                filled: Condvar::new(),
            });
            Ok(Endpoints::one(LatestTx(shared.clone()), LatestRx(shared)))
        }
    }
}

/// Registers this crate's transports (LatestCell).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(LatestCell));
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::payload::Word;

    #[test]
    fn keeps_only_the_newest_value_and_delivers_the_last() {
        let Endpoints {
            mut senders,
            mut receivers,
        } = LatestCell
            .channel::<Word>(&ChannelConfig::new(1, 1, 1))
            .unwrap();
        let (mut tx, mut rx) = (senders.pop().unwrap(), receivers.pop().unwrap());
        for s in 0..5 {
            tx.send(Word::build(0, s)).unwrap();
        }
        assert_eq!(rx.recv().map(|m| m.seq()), Some(4));
        tx.send(Word::build(0, 5)).unwrap();
        drop(tx);
        assert_eq!(rx.recv().map(|m| m.seq()), Some(5));
        assert!(rx.recv().is_none());
    }
}
