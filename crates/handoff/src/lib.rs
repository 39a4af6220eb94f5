//! # handoff
//!
//! Verified benchmarks of producer-to-consumer hand-offs.
//!
//! Guarantees first:
//! * every delivered message is verified on the consumer side (exactly once, declared order,
//!   intact body) with O(1) work and no allocation per message; verification cannot be turned off;
//! * only completed hand-offs are counted; failed `try_*` attempts are reported apart;
//! * setup (channel creation, thread spawn, pinning) stays outside the timed region;
//! * each transport declares its semantics and results carry them, so a same-thread callback is
//!   never silently ranked with a cross-thread queue.
//!
//! The crate is the engine; the `handoff` command-line tool lives in `handoff-cli`. To measure a
//! transport of your own, implement [`transport::Transport`] (see its example) or, for an async
//! channel, [`transport_async::AsyncTransport`], register it in a
//! [`catalog::Catalog`] and hand that to `handoff_cli::main_with`.
//!
//! # The library's API
//!
//! What a program needs to benchmark its own transport or to embed the harness:
//! * [`prelude`]: the traits a transport implements ([`mod@transport`], [`transport_async`]), the
//!   [`message::Message`] it carries and the [`semantics::Semantics`] it declares;
//! * [`catalog`]: the transports by name (the shipped ones are in the `handoff-transports`
//!   crate, each adapter compiled in a crate of its own; [`adapter`] is what they are made of),
//!   and [`payload`] the message types;
//! * [`bench::run`]: a checked plan ([`plan::Plan`]) run to a judged report, with the semantic
//!   preflight ([`preflight`]) and the gates ([`gates`]); [`session`] for its progress events;
//! * [`report`] (the result model, from `handoff-model`): what a run produces and every view,
//!   the store and a comparison read.
//!
//! The other public modules (the executor and its worker protocol, plugins, probes, the views,
//! the comparison) are what `handoff-cli` builds on: public so that the command line can be a
//! crate of its own, documented, but shaped by the command line's needs rather than kept
//! stable for other callers. Everything else is private to the crate.
#![deny(missing_docs)]

// The unit tests compile a few adapters' sources, which name this crate `handoff`.
#[cfg(test)]
extern crate self as handoff;

pub mod adapter;
pub(crate) mod async_blocking;
pub mod bench;
pub mod catalog;
pub mod code;
pub mod compare;
pub(crate) mod consecutive;
pub mod consensus;
pub(crate) mod crossover;
pub mod driver;
pub mod engine;
pub mod environment;
pub mod executor;
pub mod gates;
pub(crate) mod groups;
pub mod histogram;
pub use handoff_model as model;
pub use handoff_model::identity;
pub mod layout;
pub(crate) mod lints;
pub(crate) mod memory;
pub mod message;
pub mod open_loop;
pub mod outcome;
pub mod output;
pub mod payload;
pub mod placement;
pub mod plan;
pub mod plugin;
pub mod preflight;
pub mod prelude;
pub mod probes;
pub mod recommend;
pub use handoff_model::report;
pub(crate) mod round_trip_timer;
mod runner;
pub use handoff_model::semantics;
pub mod session;
#[cfg(target_os = "linux")]
pub mod shared_memory;
pub(crate) mod sweep;
pub use handoff_model::stats;
pub use handoff_model::suggest;
pub use handoff_model::time;
pub(crate) mod table_key;
#[cfg(test)]
mod test_catalog;
pub mod transport;
pub mod transport_async;
pub mod transport_cross;
pub mod verify;
pub mod worker;
pub use handoff_model::workload;
