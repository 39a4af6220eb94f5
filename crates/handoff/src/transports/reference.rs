//! handoff's own reference transports: `handoff-spsc` (a bounded SPSC ring with cached indices),
//! `handoff-mpsc` (a sharded MPSC ingress: one SPSC ring per producer) and `vyukov-mpsc`
//! (Vyukov's node-based MPSC queue), from the `handoff-spsc` and `handoff-mpsc` crates.
//!
//! Each takes a wait or wake option so that a queue's algorithm and its wake policy are measured
//! apart: `handoff-spsc` `wait=spin|spin-yield|block`; the MPSC ones `wake=spin|edge|every`
//! (`every` makes a wake-up call on every push, deliberately, as the baseline that shows what a
//! per-push syscall costs).

use super::shape::{check_spsc, Refused, WAKE};
use crate::prelude::*;
use crate::transport::OptionTable;
use handoff_mpsc::vyukov;
use handoff_spsc::Wait;

/// The `wait` option of `handoff-spsc`.
const WAIT: OptionTable<Wait> = OptionTable {
    name: "wait",
    help: "spin (busy, yields after a bounded number of polls), spin-yield, block (sleeps; woken only on the empty->non-empty / full->not-full edge)",
    values: &[
        ("spin", Wait::Spin),
        ("spin-yield", Wait::SpinThenYield),
        ("block", Wait::Block),
    ],
    waits: &[
        WaitStrategy::Spin,
        WaitStrategy::SpinThenPark,
        WaitStrategy::SpinThenPark,
    ],
};

fn capacity_error(e: handoff_spsc::CapacityError) -> BuildError {
    BuildError::Invalid(e.to_string())
}

/// Refuses a second consumer, for the MPSC queues.
fn check_single_consumer(cfg: &ChannelConfig) -> Result<(), BuildError> {
    if cfg.consumers != 1 {
        return Err(BuildError::Unsupported("single consumer only".into()));
    }
    Ok(())
}

refused! { handoff_mpsc::TrySendError { Full, Disconnected } }

handles! {
    /// Producer handle of `handoff-spsc`.
    SpscTx(handoff_spsc::Producer<M>): Sender {
        #[inline] send(tx, msg) => tx.push(msg);
        #[inline] send_batch(tx, msgs) => tx.push_batch(msgs).map(|_| ());
        try_send(tx, msg) => {
            if tx.is_abandoned() {
                return Err(TrySendError::Disconnected(msg));
            }
            tx.try_push(msg).map_err(TrySendError::Full)
        };
    }
    /// Consumer handle of `handoff-spsc`.
    SpscRx(handoff_spsc::Consumer<M>): Receiver {
        #[inline] recv(rx) => rx.pop();
        #[inline] recv_batch(rx, max, f) => rx.pop_batch(max, f);
        #[inline] recv_runs(rx, max, f) => rx.pop_slices(max, f);
    }

    /// Producer handle of `handoff-mpsc` (owns one shard).
    MpscTx(handoff_mpsc::Sender<M>): Sender {
        #[inline] send(tx, msg) => tx.send(msg);
        #[inline] send_batch(tx, msgs) => tx.send_batch(msgs).map(|_| ());
        try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
    }
    /// Consumer handle of `handoff-mpsc`.
    MpscRx(handoff_mpsc::Receiver<M>): Receiver {
        #[inline] recv(rx) => rx.recv();
        #[inline] recv_batch(rx, max, f) => rx.recv_batch(max, f);
        #[inline] recv_runs(rx, max, f) => rx.recv_slices(max, f);
    }

    /// Producer handle of `vyukov-mpsc`.
    VyukovTx(vyukov::Sender<M>): Sender {
        #[inline] send(tx, msg) => tx.send(msg);
        // Unbounded: never full.
        try_send(tx, msg) => tx.send(msg).map_err(TrySendError::Disconnected);
    }
    /// Consumer handle of `vyukov-mpsc`.
    VyukovRx(vyukov::Receiver<M>): Receiver {
        #[inline] recv(rx) => rx.recv();
        #[inline] recv_batch(rx, max, f) => rx.recv_batch(max, f);
    }
}

transport! {
    /// `handoff-spsc`: the reference bounded SPSC ring.
    HandoffSpsc("handoff-spsc"): Transport<SpscTx<M>, SpscRx<M>> {
        description: "handoff's bounded SPSC ring: cached indices on separate cache lines, batch API, wait strategy per option",
        semantics: Semantics::spsc().bounded(1, true).batch(),
        options: [WAIT.spec()],
        channel(cfg) => {
            check_spsc(cfg)?;
            let (tx, rx) = handoff_spsc::channel(cfg.capacity, WAIT.get(cfg)).map_err(capacity_error)?;
            Ok(Endpoints::one(SpscTx(tx), SpscRx(rx)))
        }
    }

    /// `handoff-mpsc`: the reference sharded MPSC ingress.
    HandoffMpsc("handoff-mpsc"): Transport<MpscTx<M>, MpscRx<M>> {
        description: "handoff's sharded MPSC ingress: one SPSC ring per producer (capacity is per shard), fair drain, edge wake",
        semantics: Semantics::mpsc().bounded(1, true).batch(),
        options: [WAKE.spec()],
        channel(cfg) => {
            check_single_consumer(cfg)?;
            let ends = handoff_mpsc::channel(cfg.capacity, WAKE.get(cfg)).map_err(capacity_error)?;
            Ok(Endpoints::single_consumer(cfg, ends, MpscTx, MpscRx))
        }
    }

    /// `vyukov-mpsc`: Vyukov's node-based MPSC queue (one allocation per message), unbounded.
    VyukovMpsc("vyukov-mpsc"): Transport<VyukovTx<M>, VyukovRx<M>> {
        description: "Vyukov's node-based MPSC queue (atomic swap on the head; a node per message), unbounded; wake policy per option",
        semantics: Semantics::mpsc().unbounded(),
        options: [WAKE.spec()],
        channel(cfg) => {
            check_single_consumer(cfg)?;
            let ends = vyukov::channel(WAKE.get(cfg));
            Ok(Endpoints::single_consumer(cfg, ends, VyukovTx, VyukovRx))
        }
    }
}
