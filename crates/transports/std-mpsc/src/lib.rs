//! `std-mpsc`, `std-mpsc-poll` and `std-sync-channel`: the standard library's channels.
//!
//! Since Rust 1.67 `std::sync::mpsc` is a port of crossbeam-channel: `channel()` is its unbounded
//! list flavor, `sync_channel(n)` its array flavor (the zero flavor for `n = 0`). A blocked side
//! spins and yields a little (crossbeam's backoff) before parking, hence `spin-then-park`.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{handles, refused, transport};

use handoff::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// How long a `std-mpsc-poll` consumer waits per poll.
pub const POLL_TIMEOUT: Duration = Duration::from_millis(100);

refused! { mpsc::TrySendError { Full, Disconnected } }

handles! {
    /// Producer handle of `std-mpsc` and `std-mpsc-poll`.
    StdTx(mpsc::Sender<M>): Sender {
        #[inline(always)] send(tx, msg) => tx.send(msg).map_err(|e| e.0);
        // Unbounded: never full.
        #[inline(always)] try_send(tx, msg) => tx.send(msg).map_err(|e| TrySendError::Disconnected(e.0));
    }

    /// Producer handle of `std-sync-channel`.
    StdSyncTx(mpsc::SyncSender<M>): Sender {
        #[inline(always)] send(tx, msg) => tx.send(msg).map_err(|e| e.0);
        #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }

    /// Consumer handle of `std-mpsc` and `std-sync-channel` (blocking `recv`).
    StdRx(mpsc::Receiver<M>): Receiver {
        #[inline(always)] recv(rx) => rx.recv().ok();
    }

    /// Consumer handle of `std-mpsc-poll` (`recv_timeout` in a loop).
    StdPollRx(mpsc::Receiver<M>): Receiver {
        #[inline(always)] recv(rx) => loop {
            match rx.recv_timeout(POLL_TIMEOUT) {
                Ok(m) => return Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        };
    }
}

transport! {
    /// `std-mpsc`: `std::sync::mpsc::channel` (unbounded), consumer blocking in `recv`.
    StdMpsc("std-mpsc"): Transport<StdTx<M>, StdRx<M>> {
        description: "std::sync::mpsc::channel (unbounded); consumer blocks in recv",
        semantics: Semantics::mpsc().unbounded(),
        channel(cfg) => Ok(Endpoints::single_consumer(cfg, mpsc::channel(), StdTx, StdRx)),
    }

    /// `std-mpsc-poll`: the same channel, consumer polling with a 100 ms `recv_timeout`.
    StdMpscPoll("std-mpsc-poll"): Transport<StdTx<M>, StdPollRx<M>> {
        description: "std::sync::mpsc::channel (unbounded); consumer polls with recv_timeout(100 ms)",
        semantics: Semantics::mpsc().unbounded(),
        channel(cfg) => Ok(Endpoints::single_consumer(cfg, mpsc::channel(), StdTx, StdPollRx)),
    }

    /// `std-sync-channel`: `std::sync::mpsc::sync_channel(capacity)` (bounded; 0 is a rendezvous).
    StdSyncChannel("std-sync-channel"): Transport<StdSyncTx<M>, StdRx<M>> {
        description: "std::sync::mpsc::sync_channel(capacity) (bounded; 0 = rendezvous); both sides block",
        semantics: Semantics::mpsc().bounded(0, false),
        channel(cfg) => {
            let ends = mpsc::sync_channel(cfg.capacity);
            Ok(Endpoints::single_consumer(cfg, ends, StdSyncTx, StdRx))
        }
    }
}

/// Registers this crate's transports (StdMpsc, StdMpscPoll, StdSyncChannel).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(StdMpsc));
    catalog.register(Entry::pull(StdMpscPoll));
    catalog.register(Entry::pull(StdSyncChannel));
}
