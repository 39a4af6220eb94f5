//! handoff's own reference transports: `handoff-spsc` (a bounded SPSC ring with cached indices),
//! `handoff-mpsc` (a sharded MPSC ingress: one SPSC ring per producer) and `vyukov-mpsc`
//! (Vyukov's node-based MPSC queue), from the `handoff-spsc` and `handoff-mpsc` crates.
//!
//! Each takes a wait or wake option so that a queue's algorithm and its wake policy are measured
//! apart: `handoff-spsc` `wait=spin|spin-yield|block`; the MPSC ones `wake=spin|edge|every`
//! (`every` makes a wake-up call on every push, deliberately, as the baseline that shows what a
//! per-push syscall costs).

use crate::prelude::*;
use crate::transport::TrySendError;
use handoff_mpsc::{vyukov, Wake};
use handoff_spsc::Wait;

fn wait_option(cfg: &ChannelConfig) -> Wait {
    match cfg.option("wait") {
        Some("spin-yield") => Wait::SpinThenYield,
        Some("block") => Wait::Block,
        _ => Wait::Spin,
    }
}

fn wake_option(cfg: &ChannelConfig, default: Wake) -> Wake {
    match cfg.option("wake") {
        Some("spin") => Wake::Spin,
        Some("edge") => Wake::Edge,
        Some("every") => Wake::Every,
        _ => default,
    }
}

fn capacity_error(e: handoff_spsc::CapacityError) -> BuildError {
    BuildError::Invalid(e.to_string())
}

/// `handoff-spsc`: the reference bounded SPSC ring.
pub struct HandoffSpsc;

/// Producer handle of `handoff-spsc`.
pub struct SpscTx<M>(handoff_spsc::Producer<M>);
/// Consumer handle of `handoff-spsc`.
pub struct SpscRx<M>(handoff_spsc::Consumer<M>);

impl<M: Message> Sender<M> for SpscTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.push(msg)
    }

    #[inline]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        self.0.push_batch(msgs).map(|_| ())
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.0.is_abandoned() {
            return Err(TrySendError::Disconnected(msg));
        }
        self.0.try_push(msg).map_err(TrySendError::Full)
    }
}

impl<M: Message> Receiver<M> for SpscRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.pop()
    }

    #[inline]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, f: F) -> usize {
        self.0.pop_batch(max, f)
    }

    #[inline]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, f: F) -> usize {
        self.0.pop_slices(max, f)
    }
}

impl Transport for HandoffSpsc {
    type Tx<M: Message> = SpscTx<M>;
    type Rx<M: Message> = SpscRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "handoff-spsc".into(),
            description: "handoff's bounded SPSC ring: cached indices on separate cache lines, batch API, wait strategy per option".into(),
            semantics: Semantics {
                producers: Arity::One,
                consumers: Arity::One,
                ordering: Ordering::GlobalFifo,
                bound: Bound::Bounded { min_capacity: 1, power_of_two: true },
                wait: WaitStrategy::Spin,
                batch: true,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
            },
            options: vec![OptionSpec {
                name: "wait".into(),
                values: vec!["spin".into(), "spin-yield".into(), "block".into()],
                help: "spin (busy, yields after a bounded number of polls), spin-yield, block (sleeps; woken only on the empty->non-empty / full->not-full edge)".into(),
                waits: vec![WaitStrategy::Spin, WaitStrategy::SpinThenPark, WaitStrategy::SpinThenPark],
            }],
            test_only: false,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<SpscTx<M>, SpscRx<M>>, BuildError> {
        super::check_spsc(cfg)?;
        let (tx, rx) =
            handoff_spsc::channel(cfg.capacity, wait_option(cfg)).map_err(capacity_error)?;
        Ok(Endpoints {
            senders: vec![SpscTx(tx)],
            receivers: vec![SpscRx(rx)],
        })
    }
}

/// `handoff-mpsc`: the reference sharded MPSC ingress.
pub struct HandoffMpsc;

/// Producer handle of `handoff-mpsc` (owns one shard).
pub struct MpscTx<M>(handoff_mpsc::Sender<M>);
/// Consumer handle of `handoff-mpsc`.
pub struct MpscRx<M>(handoff_mpsc::Receiver<M>);

impl<M: Message> Sender<M> for MpscTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg)
    }

    #[inline]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        self.0.send_batch(msgs).map(|_| ())
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg).map_err(|e| match e {
            handoff_mpsc::TrySendError::Full(m) => TrySendError::Full(m),
            handoff_mpsc::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })
    }
}

impl<M: Message> Receiver<M> for MpscRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.recv()
    }

    #[inline]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, f: F) -> usize {
        self.0.recv_batch(max, f)
    }

    #[inline]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, f: F) -> usize {
        self.0.recv_slices(max, f)
    }
}

impl Transport for HandoffMpsc {
    type Tx<M: Message> = MpscTx<M>;
    type Rx<M: Message> = MpscRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "handoff-mpsc".into(),
            description: "handoff's sharded MPSC ingress: one SPSC ring per producer (capacity is per shard), fair drain, edge wake".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::One,
                ordering: Ordering::PerProducerFifo,
                bound: Bound::Bounded { min_capacity: 1, power_of_two: true },
                wait: WaitStrategy::SpinThenPark,
                batch: true,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
            },
            options: vec![super::wake_spec("edge")],
            test_only: false,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<MpscTx<M>, MpscRx<M>>, BuildError> {
        if cfg.consumers != 1 {
            return Err(BuildError::Unsupported("single consumer only".into()));
        }
        let (tx, rx) = handoff_mpsc::channel(cfg.capacity, wake_option(cfg, Wake::Edge))
            .map_err(capacity_error)?;
        let mut senders: Vec<MpscTx<M>> = (1..cfg.producers).map(|_| MpscTx(tx.clone())).collect();
        senders.push(MpscTx(tx));
        Ok(Endpoints {
            senders,
            receivers: vec![MpscRx(rx)],
        })
    }
}

/// `vyukov-mpsc`: Vyukov's node-based MPSC queue (one allocation per message), unbounded.
pub struct VyukovMpsc;

/// Producer handle of `vyukov-mpsc`.
pub struct VyukovTx<M>(vyukov::Sender<M>);
/// Consumer handle of `vyukov-mpsc`.
pub struct VyukovRx<M>(vyukov::Receiver<M>);

impl<M: Message> Sender<M> for VyukovTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg)
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        // Unbounded: never full.
        self.0.send(msg).map_err(TrySendError::Disconnected)
    }
}

impl<M: Message> Receiver<M> for VyukovRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        self.0.recv()
    }

    #[inline]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, f: F) -> usize {
        self.0.recv_batch(max, f)
    }
}

impl Transport for VyukovMpsc {
    type Tx<M: Message> = VyukovTx<M>;
    type Rx<M: Message> = VyukovRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "vyukov-mpsc".into(),
            description: "Vyukov's node-based MPSC queue (atomic swap on the head; a node per message), unbounded; wake policy per option".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::One,
                ordering: Ordering::PerProducerFifo,
                bound: Bound::Unbounded,
                wait: WaitStrategy::SpinThenPark,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
            },
            options: vec![super::wake_spec("edge")],
            test_only: false,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<VyukovTx<M>, VyukovRx<M>>, BuildError> {
        if cfg.consumers != 1 {
            return Err(BuildError::Unsupported("single consumer only".into()));
        }
        let (tx, rx) = vyukov::channel(wake_option(cfg, Wake::Edge));
        let mut senders: Vec<VyukovTx<M>> =
            (1..cfg.producers).map(|_| VyukovTx(tx.clone())).collect();
        senders.push(VyukovTx(tx));
        Ok(Endpoints {
            senders,
            receivers: vec![VyukovRx(rx)],
        })
    }
}
