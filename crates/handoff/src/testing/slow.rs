//! `faulty-slow`: a transport that is slow but never stuck, for proving that the watchdog judges
//! progress, not speed.
//!
//! A std channel whose consumer sleeps `delay_us` microseconds (option, default 1000) before
//! each receive, so it delivers about a thousand messages per second at most: a sample of a few
//! thousand messages runs for seconds, longer than a short watchdog interval, while a message
//! arrives every millisecond or so. It must pass (with a `slow` lint when its median sample
//! outlasts the interval), never be reported `hung`.

use crate::catalog::{Catalog, Entry};
use crate::message::Message;
use crate::semantics::{Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy};
use crate::transport::{
    BuildError, ChannelConfig, Endpoints, OptionSpec, Receiver, Sender, Transport, TransportInfo,
};
use std::sync::mpsc;
use std::time::Duration;

/// The name of the transport.
pub const NAME: &str = "faulty-slow";

/// The consumer's pause before each receive when the option does not set one, microseconds.
pub const DEFAULT_DELAY_US: u64 = 1_000;

/// `faulty-slow` (see the module docs).
pub struct Slow;

/// Producer side: a plain std sender.
pub struct SlowTx<M>(mpsc::Sender<M>);

/// Consumer side: a std receiver that pauses before each receive.
pub struct SlowRx<M> {
    rx: mpsc::Receiver<M>,
    delay: Duration,
}

impl<M: Message> Sender<M> for SlowTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

impl<M: Message> Receiver<M> for SlowRx<M> {
    fn recv(&mut self) -> Option<M> {
        std::thread::sleep(self.delay);
        self.rx.recv().ok()
    }
}

impl Transport for Slow {
    type Tx<M: Message> = SlowTx<M>;
    type Rx<M: Message> = SlowRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: NAME.into(),
            description: "test-only: std channel whose consumer pauses `delay_us` before each receive (slow, never stuck)".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::One,
                ordering: Ordering::PerProducerFifo,
                bound: Bound::Unbounded,
                wait: WaitStrategy::Block,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
            },
            options: vec![OptionSpec {
                name: "delay_us".into(),
                values: vec![],
                help: format!(
                    "the consumer's pause before each receive, microseconds (default {DEFAULT_DELAY_US})"
                ),
                waits: vec![],
            }],
            test_only: true,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<SlowTx<M>, SlowRx<M>>, BuildError> {
        let delay = match cfg.option("delay_us") {
            None => DEFAULT_DELAY_US,
            Some(v) => v.parse::<u64>().map_err(|_| {
                BuildError::Invalid(format!(
                    "option `delay_us`: expected a whole number of microseconds, got `{v}`"
                ))
            })?,
        };
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| SlowTx(tx.clone())).collect(),
            receivers: vec![SlowRx {
                rx,
                delay: Duration::from_micros(delay),
            }],
        })
    }
}

/// Registers `faulty-slow`.
pub fn register_all(c: &mut Catalog) {
    c.register(Entry::pull(Slow));
}
