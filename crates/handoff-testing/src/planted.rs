//! `planted-delay`: a transport whose per-message cost a test can raise without changing what
//! the run measures, for proving that a comparison catches a regression.
//!
//! The paused channel ([`super::paused`]) whose consumer, after each receive, spins for a
//! fixed piece of work ([`BASE_WORK_NS`]) plus a planted delay read from the environment
//! variable [`DELAY_VAR`] (nanoseconds, default 0). The channel is unbounded: a bounded one
//! wakes a blocked producer on every receive, and those wake-ups, which cost more or less with
//! the machine's moment, moved the rate by up to 25% from one run to the next; without them it
//! moves by about 2%. The delay is not an option on purpose: an option is
//! part of a result's identity, and a regression is the same measurement getting slower, as
//! when a change to the code under test adds work to every hand-off. The fixed work makes the
//! per-message cost large and steady, so that a planted 25% longer cost (a 20% lower rate) is a
//! change the machine's noise does not hide.

use super::paused::{self, Pause, PausedRx, PausedTx};
use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{BuildError, ChannelConfig, Endpoints, Transport, TransportInfo};
use std::time::Duration;

/// The name of the transport.
pub const NAME: &str = "planted-delay";

/// The environment variable holding the planted delay per message, nanoseconds.
pub const DELAY_VAR: &str = "HANDOFF_PLANTED_DELAY_NS";

/// The consumer's fixed work per message, nanoseconds.
pub const BASE_WORK_NS: u64 = 2_000;

/// `planted-delay` (see the module docs).
pub struct Planted;

impl Transport for Planted {
    type Tx<M: Message> = PausedTx<M>;
    type Rx<M: Message> = PausedRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: NAME.into(),
            description: format!(
                "test-only: unbounded std channel whose consumer works {BASE_WORK_NS} ns per message plus ${DELAY_VAR} ns"
            ),
            semantics: paused::SEMANTICS,
            options: vec![],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PausedTx<M>, PausedRx<M>>, BuildError> {
        let planted = match std::env::var(DELAY_VAR) {
            Err(_) => 0,
            Ok(v) => v.trim().parse::<u64>().map_err(|_| {
                BuildError::Invalid(format!(
                    "{DELAY_VAR}: expected a whole number of nanoseconds, got `{v}`"
                ))
            })?,
        };
        Ok(paused::endpoints(
            cfg,
            Pause::SpinAfter(Duration::from_nanos(BASE_WORK_NS + planted)),
        ))
    }
}

/// Registers `planted-delay`.
pub fn register_all(c: &mut Catalog) {
    // Its speed is set from outside its code (the environment), so two builds with the same
    // code can differ in it: it declares no code identity, and comparisons judge it as they
    // judge any row whose code is unknown.
    c.register(Entry::pull(Planted).without_code_identity());
}
