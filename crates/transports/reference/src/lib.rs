//! handoff's own reference transports: `handoff-spsc` (a bounded SPSC ring with cached indices),
//! `handoff-mpsc` (a sharded MPSC ingress: one SPSC ring per producer) and `vyukov-mpsc`
//! (Vyukov's node-based MPSC queue), from the `handoff-spsc` and `handoff-mpsc` crates.
//!
//! Each takes a wait or wake option so that a queue's algorithm and its wait policy are measured
//! apart: `handoff-spsc` `wait=spin|spin-yield|block`; the MPSC ones `wake=spin|edge|every`
//! (`every` makes a wake-up call on every push, deliberately, as the baseline that shows what a
//! per-push syscall costs).
//!
//! Who waits depends on that option, and the option's help says which:
//!
//! * **spin** (`wait=spin`, `wake=spin`): the harness's shared spin. The adapters drive the
//!   crates' non-waiting operations (`try_push`, `try_pop`, their batch forms) through the
//!   retry loops of `spin.rs`, exactly as `rtrb` and `ringbuf` are driven, so spinning
//!   transports differ in their queue only, never in the backoff.
//! * **the queue's own wait** (`wait=spin-yield|block`, `wake=edge|every`): that wait is what
//!   the option measures, so the adapters call the crates' waiting operations.
//!
//! Either way every failed attempt is counted by one rule, a look at the queue that found it
//! full (empty) and was followed by a wait: in the handle for the harness's spin, by the crate
//! (`failed_polls`) for its own wait. Both are reported as failed sends and receives.
//!
//! The per-message and batch operations are always inlined into the engine's loop, as a user's
//! own calls to the ring would be. Each carries both waits (the branch on who waits is decided
//! per channel), which makes it too large for the compiler to inline by itself: out of line, a
//! call per message passes the handle by address, so its indices go through memory on every
//! message, which a user's loop and the other rings' adapters (one wait each) do not pay.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::{refused, transport};

use handoff::adapter::check_spsc;
use handoff::adapter::{recv_spinning, retry, send_batch_spinning, send_spinning};
use handoff::prelude::*;
use handoff::transport::OptionTable;
use handoff_mpsc::{vyukov, Wake};
use handoff_spsc::{TryPopError, TryPushError, Wait};

/// The `wake` option of the reference MPSC queues, whose wake policy can be chosen: `edge` (the
/// default: the queue's own wait, which spins briefly, then sleeps and is woken only on the
/// empty -> non-empty edge), `spin` (the harness's shared spin over the queue's non-waiting
/// operations: it never sleeps) and `every` (as `edge`, with a wake-up call on every push,
/// whether anyone sleeps or not). Measuring one queue under each separates its algorithm from
/// its wake policy.
const WAKE: OptionTable<Wake> = OptionTable {
    name: "wake",
    help: "consumer wake policy: edge (the queue's own wait: spins briefly, then sleeps; woken only on empty->non-empty), spin (the harness's shared spin: spin-loop hints, a yield every 64 failed polls; never sleeps), every (as edge, with a wake call on every push)",
    values: &[("edge", Wake::Edge), ("spin", Wake::Spin), ("every", Wake::Every)],
    waits: &[
        WaitStrategy::SpinThenPark,
        WaitStrategy::Spin,
        WaitStrategy::SpinThenPark,
    ],
};

/// The `wait` option of `handoff-spsc`.
const WAIT: OptionTable<Wait> = OptionTable {
    name: "wait",
    help: "spin: the harness's shared spin over the ring's non-waiting operations (spin-loop hints, a yield every 64 failed polls; never sleeps); spin-yield: the ring's own wait (growing pauses, then a yield on every failed poll; never sleeps); block: the ring's own wait (spins and yields briefly, then sleeps; woken only on the empty->non-empty / full->not-full edge)",
    values: &[
        ("spin", Wait::Spin),
        ("spin-yield", Wait::SpinThenYield),
        ("block", Wait::Block),
    ],
    waits: &[
        WaitStrategy::Spin,
        WaitStrategy::SpinThenYield,
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

// The one refusal of both reference crates (`handoff-mpsc` re-exports it).
refused! { handoff_spsc::TryPushError { Full, Disconnected } }

/// One end of a reference channel, with who waits for it and the harness's count of failed
/// attempts (the crate counts those of its own waits).
pub struct ReferenceHandle<E> {
    end: E,
    /// The harness's shared spin waits (`wait=spin`, `wake=spin`), not the queue.
    spin: bool,
    failed: u64,
}

impl<E> ReferenceHandle<E> {
    fn new(end: E, spin: bool) -> Self {
        ReferenceHandle {
            end,
            spin,
            failed: 0,
        }
    }
}

/// Producer handle of `handoff-spsc`.
pub type SpscTx<M> = ReferenceHandle<handoff_spsc::Producer<M>>;
/// Consumer handle of `handoff-spsc`.
pub type SpscRx<M> = ReferenceHandle<handoff_spsc::Consumer<M>>;
/// Producer handle of `handoff-mpsc` (owns one shard).
pub type MpscTx<M> = ReferenceHandle<handoff_mpsc::Sender<M>>;
/// Consumer handle of `handoff-mpsc`.
pub type MpscRx<M> = ReferenceHandle<handoff_mpsc::Receiver<M>>;
/// Producer handle of `vyukov-mpsc` (never waits: the queue is unbounded).
pub type VyukovTx<M> = ReferenceHandle<vyukov::Sender<M>>;
/// Consumer handle of `vyukov-mpsc`.
pub type VyukovRx<M> = ReferenceHandle<vyukov::Receiver<M>>;

impl<M: Message> Sender<M> for SpscTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        if !self.spin {
            return self.end.push(msg);
        }
        let push =
            |p: &mut handoff_spsc::Producer<M>, m| p.try_push(m).map_err(TryPushError::into_inner);
        let gone = |p: &handoff_spsc::Producer<M>| p.is_abandoned();
        send_spinning(&mut self.end, &mut self.failed, msg, push, gone)
    }

    #[inline(always)]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        if !self.spin {
            return self.end.push_batch(msgs).map(|_| ());
        }
        let run = |p: &mut handoff_spsc::Producer<M>, ms: &mut I| p.try_push_batch(ms);
        let push =
            |p: &mut handoff_spsc::Producer<M>, m| p.try_push(m).map_err(TryPushError::into_inner);
        let gone = |p: &handoff_spsc::Producer<M>| p.is_abandoned();
        send_batch_spinning(&mut self.end, &mut self.failed, msgs, run, push, gone)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.end.is_abandoned() {
            return Err(TrySendError::Disconnected(msg));
        }
        self.end.try_push(msg).map_err(Refused::refused)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed + self.end.failed_polls()
    }
}

/// What a non-waiting batch receive of `handoff-spsc` means to [`retry`]: a count, the end (0),
/// or nothing yet.
#[inline(always)]
fn spsc_taken(r: Result<usize, TryPopError>) -> Option<usize> {
    match r {
        Ok(n) => Some(n),
        Err(TryPopError::Disconnected) => Some(0),
        Err(TryPopError::Empty) => None,
    }
}

impl<M: Message> Receiver<M> for SpscRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        if !self.spin {
            return self.end.pop();
        }
        let pop = |c: &mut handoff_spsc::Consumer<M>| c.try_pop().ok();
        let gone = |c: &handoff_spsc::Consumer<M>| c.is_abandoned();
        recv_spinning(&mut self.end, &mut self.failed, pop, gone)
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        if !self.spin {
            return self.end.pop_batch(max, f);
        }
        retry(&mut self.end, &mut self.failed, |c| {
            spsc_taken(c.try_pop_batch(max, &mut f))
        })
    }

    #[inline(always)]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        if !self.spin {
            return self.end.pop_slices(max, f);
        }
        retry(&mut self.end, &mut self.failed, |c| {
            spsc_taken(c.try_pop_slices(max, &mut f))
        })
    }

    fn failed_attempts(&self) -> u64 {
        self.failed + self.end.failed_polls()
    }
}

impl<M: Message> Sender<M> for MpscTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        if !self.spin {
            return self.end.send(msg);
        }
        let push =
            |t: &mut handoff_mpsc::Sender<M>, m| t.try_send(m).map_err(TryPushError::into_inner);
        let gone = |t: &handoff_mpsc::Sender<M>| t.is_disconnected();
        send_spinning(&mut self.end, &mut self.failed, msg, push, gone)
    }

    #[inline(always)]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        if !self.spin {
            return self.end.send_batch(msgs).map(|_| ());
        }
        let run = |t: &mut handoff_mpsc::Sender<M>, ms: &mut I| t.try_send_batch(ms);
        let push =
            |t: &mut handoff_mpsc::Sender<M>, m| t.try_send(m).map_err(TryPushError::into_inner);
        let gone = |t: &handoff_mpsc::Sender<M>| t.is_disconnected();
        send_batch_spinning(&mut self.end, &mut self.failed, msgs, run, push, gone)
    }

    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.end.try_send(msg).map_err(Refused::refused)
    }

    fn failed_attempts(&self) -> u64 {
        self.failed + self.end.failed_polls()
    }
}

/// What a non-waiting receive of the MPSC queues means to [`retry`]: a result, the end, or
/// nothing yet.
#[inline(always)]
fn mpsc_taken<R>(r: Result<R, TryPopError>, end: R) -> Option<R> {
    match r {
        Ok(x) => Some(x),
        Err(TryPopError::Disconnected) => Some(end),
        Err(TryPopError::Empty) => None,
    }
}

impl<M: Message> Receiver<M> for MpscRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        if !self.spin {
            return self.end.recv();
        }
        retry(&mut self.end, &mut self.failed, |r| {
            mpsc_taken(r.try_recv().map(Some), None)
        })
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        if !self.spin {
            return self.end.recv_batch(max, f);
        }
        retry(&mut self.end, &mut self.failed, |r| {
            mpsc_taken(r.try_recv_batch(max, &mut f), 0)
        })
    }

    #[inline(always)]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        if !self.spin {
            return self.end.recv_slices(max, f);
        }
        retry(&mut self.end, &mut self.failed, |r| {
            mpsc_taken(r.try_recv_slices(max, &mut f), 0)
        })
    }

    fn failed_attempts(&self) -> u64 {
        self.failed + self.end.failed_polls()
    }
}

impl<M: Message> Sender<M> for VyukovTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.end.send(msg)
    }

    // Unbounded: never full.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.end.send(msg).map_err(TrySendError::Disconnected)
    }
}

impl<M: Message> Receiver<M> for VyukovRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        if !self.spin {
            return self.end.recv();
        }
        retry(&mut self.end, &mut self.failed, |r| {
            mpsc_taken(r.try_recv().map(Some), None)
        })
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        if !self.spin {
            return self.end.recv_batch(max, f);
        }
        retry(&mut self.end, &mut self.failed, |r| {
            mpsc_taken(r.try_recv_batch(max, &mut f), 0)
        })
    }

    fn failed_attempts(&self) -> u64 {
        self.failed + self.end.failed_polls()
    }
}

transport! {
    /// `handoff-spsc`: the reference bounded SPSC ring.
    HandoffSpsc("handoff-spsc"): Transport<SpscTx<M>, SpscRx<M>> {
        description: "handoff's bounded SPSC ring: cached indices on separate cache lines, batch API; wait=spin is the harness's shared spin, the other waits are the ring's own",
        semantics: Semantics::spsc().bounded(1, true).batch(),
        options: [WAIT.spec()],
        channel(cfg) => {
            check_spsc(cfg)?;
            let wait = WAIT.get(cfg);
            let (tx, rx) = handoff_spsc::channel(cfg.capacity, wait).map_err(capacity_error)?;
            let spin = wait == Wait::Spin;
            Ok(Endpoints::one(ReferenceHandle::new(tx, spin), ReferenceHandle::new(rx, spin)))
        }
    }

    /// `handoff-mpsc`: the reference sharded MPSC ingress.
    HandoffMpsc("handoff-mpsc"): Transport<MpscTx<M>, MpscRx<M>> {
        description: "handoff's sharded MPSC ingress: one SPSC ring per producer (capacity is per shard), fair drain; wake=spin is the harness's shared spin, the other policies the queue's own",
        semantics: Semantics::mpsc().bounded(1, true).batch(),
        options: [WAKE.spec()],
        channel(cfg) => {
            check_single_consumer(cfg)?;
            let wake = WAKE.get(cfg);
            let ends = handoff_mpsc::channel(cfg.capacity, wake).map_err(capacity_error)?;
            let spin = wake == Wake::Spin;
            Ok(Endpoints::single_consumer(
                cfg,
                ends,
                |tx| ReferenceHandle::new(tx, spin),
                |rx| ReferenceHandle::new(rx, spin),
            ))
        }
    }

    /// `vyukov-mpsc`: Vyukov's node-based MPSC queue (one allocation per message), unbounded.
    VyukovMpsc("vyukov-mpsc"): Transport<VyukovTx<M>, VyukovRx<M>> {
        description: "Vyukov's node-based MPSC queue (atomic swap on the head; a node per message), unbounded; wake=spin is the harness's shared spin, the other policies the queue's own",
        semantics: Semantics::mpsc().unbounded(),
        options: [WAKE.spec()],
        channel(cfg) => {
            check_single_consumer(cfg)?;
            let wake = WAKE.get(cfg);
            let ends = vyukov::channel(wake);
            let spin = wake == Wake::Spin;
            Ok(Endpoints::single_consumer(
                cfg,
                ends,
                |tx| ReferenceHandle::new(tx, spin),
                |rx| ReferenceHandle::new(rx, spin),
            ))
        }
    }
}

/// Registers this crate's transports (HandoffMpsc, HandoffSpsc, VyukovMpsc).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::pull(HandoffSpsc));
    catalog.register(Entry::pull(HandoffMpsc));
    catalog.register(Entry::pull(VyukovMpsc));
}
