//! Test-only transports that misbehave in *time*, for proving the open-loop measurements:
//!
//! | name           | behaviour                                                              |
//! |----------------|------------------------------------------------------------------------|
//! | `faulty-stall` | the producer's send of message [`STALL_AT`] delivers it, then blocks the producer for `stall_ms` (option, default 50) once |
//! | `faulty-knee`  | a bounded channel whose `try_send` refuses whenever the producer has sent more than `knee` messages per second (option, default 50000) allow over the time since its first send plus [`KNEE_SLACK`] |
//! | `faulty-degrade` | a channel whose consumer gets slower the longer it runs: after its n-th receive it spins n × `step_ns` (option, default 100) |
//!
//! A stall in the producer is the classic case of coordinated omission: the messages due during
//! the stall are sent late, and only latency measured from their *intended* send time shows it.
//! The knee plants a known saturation rate for the ramp to find. The degrading consumer plants a
//! drift for a soak's windows to show: at 2000 messages per second and 100 ns a step, it keeps
//! up for about 2.5 s, then falls further behind every window.

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::semantics::{
    Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
};
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionSpec, Receiver, Sender, Transport, TransportInfo,
    TrySendError,
};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The producer-side message index after whose send `faulty-stall` blocks.
pub const STALL_AT: u64 = 500;

/// Sends after which `faulty-knee` starts judging the producer's rate.
const KNEE_WARMUP: u64 = 100;

/// The time `faulty-knee` adds to the span since the first send when it judges the rate. A first
/// send that came late (the injector descheduled before it, on a busy machine) is made up by the
/// pacer at once, which over a short span reads as a rate above the schedule's: the slack keeps
/// that from being taken for a producer above the knee. A producer truly above the knee by
/// 9% (a ramp's finest step) exceeds its allowance after about 0.2 s at a 45 000/s knee.
pub const KNEE_SLACK: Duration = Duration::from_millis(20);

fn semantics(bound: Bound) -> Semantics {
    Semantics {
        producers: Arity::Many,
        consumers: Arity::One,
        ordering: Ordering::PerProducerFifo,
        bound,
        wait: WaitStrategy::Block,
        batch: false,
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
        delivery: handoff::semantics::Delivery::ExactlyOnce,
    }
}

fn number_option(cfg: &ChannelConfig, key: &str, default: u64) -> Result<u64, BuildError> {
    match cfg.option(key) {
        None => Ok(default),
        Some(v) => v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            BuildError::Invalid(format!(
                "option `{key}`: expected a positive integer, got `{v}`"
            ))
        }),
    }
}

/// `faulty-stall` (see the module docs).
pub struct Stall;

/// Producer side of `faulty-stall`.
pub struct StallTx<M> {
    tx: mpsc::Sender<M>,
    sent: u64,
    stall: Duration,
}

/// Consumer side of `faulty-stall` and `faulty-knee`.
pub struct PlainRx<M>(mpsc::Receiver<M>);

impl<M: Message> Sender<M> for StallTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.tx.send(msg).map_err(|e| e.0)?;
        self.sent += 1;
        if self.sent == STALL_AT {
            std::thread::sleep(self.stall);
        }
        Ok(())
    }
}

impl<M: Message> Receiver<M> for PlainRx<M> {
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

impl Transport for Stall {
    type Tx<M: Message> = StallTx<M>;
    type Rx<M: Message> = PlainRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "faulty-stall".into(),
            description: format!(
                "test-only: std channel whose producer blocks once, after message {STALL_AT}, for `stall_ms`"
            ),
            semantics: semantics(Bound::Unbounded),
            options: vec![OptionSpec {
                name: "stall_ms".into(),
                values: vec![],
                help: "how long the producer stalls (default 50)".into(),
                waits: vec![],
            }],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<StallTx<M>, PlainRx<M>>, BuildError> {
        let stall = Duration::from_millis(number_option(cfg, "stall_ms", 50)?);
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| StallTx {
                    tx: tx.clone(),
                    sent: 0,
                    stall,
                })
                .collect(),
            receivers: vec![PlainRx(rx)],
        })
    }
}

/// `faulty-knee` (see the module docs).
pub struct Knee;

/// Producer side of `faulty-knee`.
pub struct KneeTx<M> {
    tx: mpsc::SyncSender<M>,
    knee: f64,
    first: Option<Instant>,
    sent: u64,
}

impl<M: Message> KneeTx<M> {
    fn note_sent(&mut self) {
        self.first.get_or_insert_with(Instant::now);
        self.sent += 1;
    }

    /// The producer's average rate over its sends so far, if judged yet.
    fn too_fast(&self) -> bool {
        match self.first {
            Some(first) if self.sent >= KNEE_WARMUP => {
                let secs = (first.elapsed() + KNEE_SLACK).as_secs_f64();
                // `sent` sends span `sent - 1` intervals; the one being attempted makes `sent`.
                self.sent as f64 > self.knee * secs
            }
            _ => false,
        }
    }
}

impl<M: Message> Sender<M> for KneeTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.tx.send(msg).map_err(|e| e.0)?;
        self.note_sent();
        Ok(())
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.too_fast() {
            return Err(TrySendError::Full(msg));
        }
        self.tx.try_send(msg).map_err(|e| match e {
            mpsc::TrySendError::Full(m) => TrySendError::Full(m),
            mpsc::TrySendError::Disconnected(m) => TrySendError::Disconnected(m),
        })?;
        self.note_sent();
        Ok(())
    }
}

impl Transport for Knee {
    type Tx<M: Message> = KneeTx<M>;
    type Rx<M: Message> = PlainRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "faulty-knee".into(),
            description:
                "test-only: bounded std channel that refuses sends above a planted rate (`knee`)"
                    .into(),
            semantics: semantics(Bound::Bounded {
                min_capacity: 1,
                power_of_two: false,
            }),
            options: vec![OptionSpec {
                name: "knee".into(),
                values: vec![],
                help: "the rate above which sends are refused, per second (default 50000)".into(),
                waits: vec![],
            }],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<KneeTx<M>, PlainRx<M>>, BuildError> {
        let knee = number_option(cfg, "knee", 50_000)? as f64;
        let (tx, rx) = mpsc::sync_channel(cfg.capacity.max(1));
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| KneeTx {
                    tx: tx.clone(),
                    knee,
                    first: None,
                    sent: 0,
                })
                .collect(),
            receivers: vec![PlainRx(rx)],
        })
    }
}

/// `faulty-degrade` (see the module docs).
pub struct Degrade;

/// Consumer side of `faulty-degrade`.
pub struct DegradeRx<M> {
    rx: mpsc::Receiver<M>,
    received: u64,
    step_ns: u64,
}

impl<M: Message> Receiver<M> for DegradeRx<M> {
    fn recv(&mut self) -> Option<M> {
        let m = self.rx.recv().ok()?;
        self.received += 1;
        let cost = Duration::from_nanos(self.received.saturating_mul(self.step_ns));
        let start = Instant::now();
        while start.elapsed() < cost {
            std::hint::spin_loop();
        }
        Some(m)
    }
}

impl Transport for Degrade {
    type Tx<M: Message> = PlainTx<M>;
    type Rx<M: Message> = DegradeRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "faulty-degrade".into(),
            description: "test-only: std channel whose consumer spins n × `step_ns` after its n-th receive (slower the longer it runs)".into(),
            semantics: semantics(Bound::Unbounded),
            options: vec![OptionSpec {
                name: "step_ns".into(),
                values: vec![],
                help: "how much longer each receive takes than the one before, ns (default 100)"
                    .into(),
                waits: vec![],
            }],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PlainTx<M>, DegradeRx<M>>, BuildError> {
        let step_ns = number_option(cfg, "step_ns", 100)?;
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| PlainTx(tx.clone())).collect(),
            receivers: vec![DegradeRx {
                rx,
                received: 0,
                step_ns,
            }],
        })
    }
}

/// Producer side of `faulty-degrade`: a plain unbounded send.
pub struct PlainTx<M>(mpsc::Sender<M>);

impl<M: Message> Sender<M> for PlainTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

/// Registers all three.
pub fn register_all(c: &mut Catalog) {
    c.register(Entry::pull(Stall));
    c.register(Entry::pull(Knee));
    c.register(Entry::pull(Degrade));
}
