//! `faulty-slow`: a transport that is slow but never stuck, for proving that the watchdog judges
//! progress, not speed.
//!
//! The paused channel ([`super::paused`]) whose consumer sleeps `delay_us` microseconds (an
//! option, default 1000) before each receive, so it delivers about a thousand messages per second at most: a sample of a few
//! thousand messages runs for seconds, longer than a short watchdog interval, while a message
//! arrives every millisecond or so. It must pass (with a `slow` lint when its median sample
//! outlasts the interval), never be reported `hung`.

use super::paused::{self, Pause, PausedRx, PausedTx};
use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionSpec, Transport, TransportInfo,
};
use std::time::Duration;

/// The name of the transport.
pub const NAME: &str = "faulty-slow";

/// The consumer's pause before each receive when the option does not set one, microseconds.
pub const DEFAULT_DELAY_US: u64 = 1_000;

/// `faulty-slow` (see the module docs).
pub struct Slow;

impl Transport for Slow {
    type Tx<M: Message> = PausedTx<M>;
    type Rx<M: Message> = PausedRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: NAME.into(),
            description: "test-only: std channel whose consumer pauses `delay_us` before each receive (slow, never stuck)".into(),
            semantics: paused::SEMANTICS,
            options: vec![OptionSpec {
                name: "delay_us".into(),
                values: vec![],
                help: format!(
                    "the consumer's pause before each receive, microseconds (default {DEFAULT_DELAY_US})"
                ),
                waits: vec![],
            }],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PausedTx<M>, PausedRx<M>>, BuildError> {
        let delay = match cfg.option("delay_us") {
            None => DEFAULT_DELAY_US,
            Some(v) => v.parse::<u64>().map_err(|_| {
                BuildError::Invalid(format!(
                    "option `delay_us`: expected a whole number of microseconds, got `{v}`"
                ))
            })?,
        };
        Ok(paused::endpoints(
            cfg,
            Pause::SleepBefore(Duration::from_micros(delay)),
        ))
    }
}

/// Registers `faulty-slow`.
pub fn register_all(c: &mut Catalog) {
    c.register(Entry::pull(Slow));
}
