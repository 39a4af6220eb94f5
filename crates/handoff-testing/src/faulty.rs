//! Deliberately faulty transports, for proving that the harness catches every kind of failure.
//!
//! Each wraps a std channel and misbehaves once, at the consumer's [`FAULT_AT`]-th message:
//!
//! | name             | fault                                          | expected verdict |
//! |------------------|------------------------------------------------|------------------|
//! | `faulty-drop`    | loses one message                              | fail (order)     |
//! | `faulty-dup`     | delivers one message twice                     | fail (duplicate) |
//! | `faulty-reorder` | swaps two consecutive messages                 | fail (order)     |
//! | `faulty-hang`    | stops delivering and blocks forever            | hung             |
//! | `faulty-panic`   | panics inside `recv`                           | crashed          |
//! | `faulty-abort`   | aborts the whole process                       | crashed (only survivable when trials run in a child process) |
//! | `faulty-stale`   | declares `latest` delivery, then delivers an older value after a newer one | fail (stale) |
//! | `faulty-fanout`  | declares broadcast (one std channel per consumer, each sent a copy); the last consumer loses one message | fail (order, naming that consumer in a fan-out) |
//! | `faulty-shuffle` | declares no order, then swaps two consecutive messages | **pass**; fails consensus |
//! | `faulty-dup-mpmc` | declares several consumers sharing one FIFO stream; the consumer that takes its tenth message gets it twice | fail (duplicate) |
//! | `faulty-dup-unordered` | declares no order, then delivers one message twice | fail (duplicate) |
//! | `faulty-dup-latest` | declares `latest` delivery, then delivers one value twice | fail (duplicate) |
//!
//! The three `faulty-dup-*` transports put a duplicate before each of the verifier's modes
//! (see [`handoff::verify`]): several consumers (bitmap and per-producer increase), no order
//! (bitmap), conflating (newest value); `faulty-dup` is the one-consumer FIFO case.
//!
//! `faulty-shuffle` is the one whose own verification passes: it keeps what it declares (every
//! message exactly once and intact, in no promised order), and its count is right. Its stream
//! still is not the one a FIFO transport delivers: a message arrives after a later one of its
//! producer, which the digest records ([`handoff::verify`]). Run beside FIFO transports under
//! consensus, it is named as the transport that delivered another stream.
//!
//! Two more misbehave in time rather than in content, for the open-loop workloads: see
//! [`super::faulty_timing`] (`faulty-stall`, `faulty-knee`).
//!
//! They are marked test-only: hidden from `handoff list` unless asked for, never in default suites,
//! and registered only by the test builds (`handoff-cli`'s `testing` feature).

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::semantics::{
    Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
};
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Sender, Transport, TransportInfo,
};
use std::sync::{mpsc, Arc, Mutex};

/// The consumer-side message index at which each faulty transport misbehaves.
pub const FAULT_AT: u64 = 10;

/// The fault a [`Faulty`] transport injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Lose one message.
    Drop,
    /// Deliver one message twice.
    Duplicate,
    /// Swap two consecutive messages.
    Reorder,
    /// Block forever.
    Hang,
    /// Panic.
    Panic,
    /// Abort the process.
    Abort,
    /// Declare conflating (`latest`) delivery, then deliver a value older than one already
    /// delivered.
    Stale,
    /// Declare broadcast delivery, then lose one message on the last consumer's copy of the
    /// stream only.
    FanoutDrop,
    /// Declare no ordering, then swap two consecutive messages: verification passes, the
    /// delivered stream differs from a FIFO transport's.
    Shuffle,
    /// Declare several consumers sharing one FIFO stream, then deliver one message twice to the
    /// consumer that takes it.
    DuplicateShared,
    /// Declare no ordering, then deliver one message twice.
    DuplicateUnordered,
    /// Declare conflating (`latest`) delivery, then deliver one value twice.
    DuplicateLatest,
}

impl Fault {
    /// Every fault.
    pub const ALL: [Fault; 12] = [
        Fault::Drop,
        Fault::Duplicate,
        Fault::Reorder,
        Fault::Hang,
        Fault::Panic,
        Fault::Abort,
        Fault::Stale,
        Fault::FanoutDrop,
        Fault::Shuffle,
        Fault::DuplicateShared,
        Fault::DuplicateUnordered,
        Fault::DuplicateLatest,
    ];

    /// The transport name.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Drop => "faulty-drop",
            Fault::Duplicate => "faulty-dup",
            Fault::Reorder => "faulty-reorder",
            Fault::Hang => "faulty-hang",
            Fault::Panic => "faulty-panic",
            Fault::Abort => "faulty-abort",
            Fault::Stale => "faulty-stale",
            Fault::FanoutDrop => "faulty-fanout",
            Fault::Shuffle => "faulty-shuffle",
            Fault::DuplicateShared => "faulty-dup-mpmc",
            Fault::DuplicateUnordered => "faulty-dup-unordered",
            Fault::DuplicateLatest => "faulty-dup-latest",
        }
    }
}

/// A std channel that misbehaves once (see the module docs).
pub struct Faulty(pub Fault);

/// Producer side: a plain std sender per consumer (one unless broadcasting), each sent a copy.
pub struct FaultyTx<M>(Vec<mpsc::Sender<M>>);

/// Consumer side: a std receiver that injects the fault (or, for the consumers of
/// `faulty-fanout` other than the last, none). The consumers of `faulty-dup-mpmc` share one
/// receiver.
pub struct FaultyRx<M> {
    rx: Arc<Mutex<mpsc::Receiver<M>>>,
    fault: Option<Fault>,
    received: u64,
    held: Option<M>,
}

impl<M: Message> Sender<M> for FaultyTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        let (first, rest) = self.0.split_first().expect("at least one consumer");
        for lane in rest {
            lane.send(msg.clone()).map_err(|e| e.0)?;
        }
        first.send(msg).map_err(|e| e.0)
    }
}

impl<M> FaultyRx<M> {
    /// The next message of the stream (of the shared stream, for `faulty-dup-mpmc`).
    fn take(&self) -> Option<M> {
        let rx = self.rx.lock().unwrap_or_else(|e| e.into_inner());
        rx.recv().ok()
    }
}

impl<M: Message> Receiver<M> for FaultyRx<M> {
    fn recv(&mut self) -> Option<M> {
        if let Some(m) = self.held.take() {
            return Some(m);
        }
        let m = self.take()?;
        self.received += 1;
        let Some(fault) = self.fault.filter(|_| self.received == FAULT_AT) else {
            return Some(m);
        };
        match fault {
            Fault::Drop | Fault::FanoutDrop => {
                drop(m);
                self.take()
            }
            Fault::Duplicate
            | Fault::DuplicateShared
            | Fault::DuplicateUnordered
            | Fault::DuplicateLatest => {
                self.held = Some(m.clone());
                Some(m)
            }
            Fault::Reorder | Fault::Shuffle => match self.take() {
                Some(next) => {
                    self.held = Some(m);
                    Some(next)
                }
                None => Some(m),
            },
            Fault::Hang => loop {
                std::thread::park();
            },
            Fault::Panic => panic!("faulty-panic: injected panic at message {FAULT_AT}"),
            Fault::Abort => {
                eprintln!("faulty-abort: aborting the process at message {FAULT_AT}");
                std::process::abort()
            }
            Fault::Stale => {
                // Deliver this value, then one two older (rebuilt from its header) after it.
                let (p, seq) = (m.producer(), m.seq());
                if seq >= 2 {
                    self.held = Some(M::build(p, seq - 2));
                }
                Some(m)
            }
        }
    }
}

impl Transport for Faulty {
    type Tx<M: Message> = FaultyTx<M>;
    type Rx<M: Message> = FaultyRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: self.0.name().into(),
            description: format!(
                "test-only: std channel that injects a fault ({:?}) at message {FAULT_AT}",
                self.0
            ),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: match self.0 {
                    Fault::FanoutDrop => Arity::Broadcast,
                    Fault::DuplicateShared => Arity::Many,
                    _ => Arity::One,
                },
                ordering: match self.0 {
                    Fault::Stale | Fault::DuplicateLatest => Ordering::Latest,
                    Fault::Shuffle | Fault::DuplicateUnordered => Ordering::None,
                    _ => Ordering::PerProducerFifo,
                },
                bound: Bound::Unbounded,
                wait: WaitStrategy::Block,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
                delivery: handoff::semantics::Delivery::ExactlyOnce,
            },
            options: vec![],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<FaultyTx<M>, FaultyRx<M>>, BuildError> {
        let lanes = if self.0 == Fault::FanoutDrop {
            cfg.consumers.max(1)
        } else {
            1
        };
        let (txs, rxs): (Vec<_>, Vec<_>) = (0..lanes)
            .map(|_| {
                let (tx, rx) = mpsc::channel();
                (tx, Arc::new(Mutex::new(rx)))
            })
            .unzip();
        let receivers = if self.0 == Fault::DuplicateShared {
            // Every consumer takes from the one stream; each may misbehave at its tenth.
            (0..cfg.consumers.max(1))
                .map(|_| FaultyRx {
                    rx: rxs[0].clone(),
                    fault: Some(self.0),
                    received: 0,
                    held: None,
                })
                .collect()
        } else {
            rxs.into_iter()
                .enumerate()
                .map(|(i, rx)| FaultyRx {
                    rx,
                    // Only the last consumer's copy of the stream is damaged.
                    fault: (i + 1 == lanes).then_some(self.0),
                    received: 0,
                    held: None,
                })
                .collect()
        };
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| FaultyTx(txs.clone())).collect(),
            receivers,
        })
    }
}

/// Registers every faulty transport of this module.
pub fn register_all(c: &mut Catalog) {
    for f in Fault::ALL {
        c.register(Entry::pull(Faulty(f)));
    }
}
