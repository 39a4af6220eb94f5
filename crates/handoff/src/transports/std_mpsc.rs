//! `std-mpsc`, `std-mpsc-poll` and `std-sync-channel`: the standard library's channels.
//!
//! Since Rust 1.67 `std::sync::mpsc` is a port of crossbeam-channel: `channel()` is its unbounded
//! list flavor, `sync_channel(n)` its array flavor (the zero flavor for `n = 0`). A blocked side
//! spins and yields a little (crossbeam's backoff) before parking, hence `spin-then-park`.

use crate::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// `std-mpsc`: `std::sync::mpsc::channel` (unbounded), consumer blocking in `recv`.
pub struct StdMpsc;

/// `std-mpsc-poll`: the same channel, consumer polling with a 100 ms `recv_timeout`.
pub struct StdMpscPoll;

/// `std-sync-channel`: `std::sync::mpsc::sync_channel(capacity)` (bounded; 0 is a rendezvous).
pub struct StdSyncChannel;

/// How long a `std-mpsc-poll` consumer waits per poll.
pub const POLL_TIMEOUT: Duration = Duration::from_millis(100);

/// Producer handle of `std-mpsc` and `std-mpsc-poll`.
pub struct StdTx<M>(mpsc::Sender<M>);

/// Producer handle of `std-sync-channel`.
pub struct StdSyncTx<M>(mpsc::SyncSender<M>);

/// Consumer handle of `std-mpsc` and `std-sync-channel` (blocking `recv`).
pub struct StdRx<M>(mpsc::Receiver<M>);

/// Consumer handle of `std-mpsc-poll` (`recv_timeout` in a loop).
pub struct StdPollRx<M>(mpsc::Receiver<M>);

impl<M: Message> Sender<M> for StdTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        // Unbounded: never full.
        self.0
            .send(msg)
            .map_err(|e| TrySendError::Disconnected(e.0))
    }
}

impl<M: Message> Sender<M> for StdSyncTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            mpsc::TrySendError::Full(m) => TrySendError::Full(m),
            mpsc::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> Receiver<M> for StdRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

impl<M: Message> Receiver<M> for StdPollRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        loop {
            match self.0.recv_timeout(POLL_TIMEOUT) {
                Ok(m) => return Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

fn semantics(bound: Bound) -> Semantics {
    Semantics {
        producers: Arity::Many,
        consumers: Arity::One,
        ordering: Ordering::PerProducerFifo,
        bound,
        wait: WaitStrategy::SpinThenPark,
        batch: false,
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
    }
}

fn info(name: &str, description: &str, bound: Bound) -> TransportInfo {
    TransportInfo {
        name: name.into(),
        description: description.into(),
        semantics: semantics(bound),
        options: vec![],
        test_only: false,
    }
}

impl Transport for StdMpsc {
    type Tx<M: Message> = StdTx<M>;
    type Rx<M: Message> = StdRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "std-mpsc",
            "std::sync::mpsc::channel (unbounded); consumer blocks in recv",
            Bound::Unbounded,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<StdTx<M>, StdRx<M>>, BuildError> {
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| StdTx(tx.clone())).collect(),
            receivers: vec![StdRx(rx)],
        })
    }
}

impl Transport for StdMpscPoll {
    type Tx<M: Message> = StdTx<M>;
    type Rx<M: Message> = StdPollRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "std-mpsc-poll",
            "std::sync::mpsc::channel (unbounded); consumer polls with recv_timeout(100 ms)",
            Bound::Unbounded,
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<StdTx<M>, StdPollRx<M>>, BuildError> {
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| StdTx(tx.clone())).collect(),
            receivers: vec![StdPollRx(rx)],
        })
    }
}

impl Transport for StdSyncChannel {
    type Tx<M: Message> = StdSyncTx<M>;
    type Rx<M: Message> = StdRx<M>;

    fn info(&self) -> TransportInfo {
        info(
            "std-sync-channel",
            "std::sync::mpsc::sync_channel(capacity) (bounded; 0 = rendezvous); both sides block",
            Bound::Bounded {
                min_capacity: 0,
                power_of_two: false,
            },
        )
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<StdSyncTx<M>, StdRx<M>>, BuildError> {
        let (tx, rx) = mpsc::sync_channel(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| StdSyncTx(tx.clone())).collect(),
            receivers: vec![StdRx(rx)],
        })
    }
}
