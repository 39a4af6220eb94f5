//! `planted-delay`: a transport whose per-message cost a test can raise without changing what
//! the run measures, for proving that a comparison catches a regression.
//!
//! An unbounded std channel whose consumer, after each receive, spins for a fixed piece of work
//! ([`BASE_WORK_NS`]) plus a planted delay read from the environment variable
//! [`DELAY_VAR`] (nanoseconds, default 0). Unbounded, so that the producer never blocks and the
//! consumer seldom finds it empty: a bounded channel here wakes a blocked producer on every
//! receive, and those wake-ups, which cost more or less with the machine's moment, moved the
//! rate by up to 25% from one run to the next; without them it moves by about 2%. The delay is not an option on purpose: an option is
//! part of a result's identity, and a regression is the same measurement getting slower, as
//! when a change to the code under test adds work to every hand-off. The fixed work makes the
//! per-message cost large and steady, so that a planted 25% longer cost (a 20% lower rate) is a
//! change the machine's noise does not hide.

use crate::catalog::{Catalog, Entry};
use crate::message::Message;
use crate::semantics::{Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy};
use crate::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Sender, Transport, TransportInfo,
};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The name of the transport.
pub const NAME: &str = "planted-delay";

/// The environment variable holding the planted delay per message, nanoseconds.
pub const DELAY_VAR: &str = "HANDOFF_PLANTED_DELAY_NS";

/// The consumer's fixed work per message, nanoseconds.
pub const BASE_WORK_NS: u64 = 2_000;

/// `planted-delay` (see the module docs).
pub struct Planted;

/// Producer side: a plain std sender.
pub struct PlantedTx<M>(mpsc::Sender<M>);

/// Consumer side: a std receiver that works a fixed time per message.
pub struct PlantedRx<M> {
    rx: mpsc::Receiver<M>,
    work: Duration,
}

impl<M: Message> Sender<M> for PlantedTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

impl<M: Message> Receiver<M> for PlantedRx<M> {
    fn recv(&mut self) -> Option<M> {
        let m = self.rx.recv().ok()?;
        let until = Instant::now() + self.work;
        while Instant::now() < until {
            std::hint::spin_loop();
        }
        Some(m)
    }
}

impl Transport for Planted {
    type Tx<M: Message> = PlantedTx<M>;
    type Rx<M: Message> = PlantedRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: NAME.into(),
            description: format!(
                "test-only: unbounded std channel whose consumer works {BASE_WORK_NS} ns per message plus ${DELAY_VAR} ns"
            ),
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
            options: vec![],
            test_only: true,
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PlantedTx<M>, PlantedRx<M>>, BuildError> {
        let planted = match std::env::var(DELAY_VAR) {
            Err(_) => 0,
            Ok(v) => v.trim().parse::<u64>().map_err(|_| {
                BuildError::Invalid(format!(
                    "{DELAY_VAR}: expected a whole number of nanoseconds, got `{v}`"
                ))
            })?,
        };
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| PlantedTx(tx.clone())).collect(),
            receivers: vec![PlantedRx {
                rx,
                work: Duration::from_nanos(BASE_WORK_NS + planted),
            }],
        })
    }
}

/// Registers `planted-delay`.
pub fn register_all(c: &mut Catalog) {
    c.register(Entry::pull(Planted));
}
