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
#![deny(missing_docs)]

pub mod async_blocking;
pub mod catalog;
pub mod consecutive;
pub mod engine;
pub mod environment;
pub mod executor;
pub mod faulty;
pub mod faulty_timing;
pub mod histogram;
pub mod lints;
pub mod message;
pub mod open_loop;
pub mod outcome;
pub mod output;
pub mod payload;
pub mod placement;
pub mod plan;
pub mod probes;
pub mod report;
pub mod round_trip_timer;
pub mod semantics;
pub mod session;
pub mod stats;
pub mod suggest;
pub mod transport;
pub mod transport_async;
pub mod transports;
pub mod verify;
pub mod worker;
pub mod workload;

/// The names a transport adapter needs.
pub mod prelude {
    pub use crate::catalog::{Catalog, Entry};
    pub use crate::message::Message;
    pub use crate::semantics::{
        Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
    };
    pub use crate::transport::{
        BuildError, CallbackHandle, CallbackTransport, ChannelConfig, Endpoints, OptionSpec,
        Receiver, Sender, Sink, Transport, TransportInfo, TrySendError,
    };
    pub use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
}
