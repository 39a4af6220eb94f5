//! A catalog of real transports for the crate's own unit tests.
//!
//! The shipped adapters are crates of their own above this one (`crates/transports/*`), which
//! the unit tests cannot depend on without a second copy of this crate. The few adapters whose
//! semantics the unit tests rely on (a spinning ring, a blocking channel, a fan-out, a
//! broadcast that overwrites, a conflating cell) are compiled into the test build from their
//! crates' own sources instead, so the tests read the shipped declarations, not stand-ins. In
//! the unit tests a catalog entry describes its transport and runs nothing (`runner::Described`):
//! the engine is not compiled for these adapters here; their runs are the integration tests'.

#[path = "../../transports/bus/src/lib.rs"]
mod bus;
#[path = "../../transports/crossbeam-channel/src/lib.rs"]
mod crossbeam_channel;
#[path = "../../transports/crossbeam-fanout/src/lib.rs"]
mod crossbeam_fanout;
#[path = "../../transports/kanal/src/lib.rs"]
mod kanal;
#[path = "../../transports/latest-cell/src/lib.rs"]
mod latest_cell;
#[path = "../../transports/rtrb/src/lib.rs"]
mod rtrb;
#[path = "../../transports/tokio/src/lib.rs"]
mod tokio;

pub(crate) use self::tokio::TokioMpscBounded;
use crate::catalog::Catalog;

/// Those adapters in a catalog.
pub(crate) fn catalog() -> Catalog {
    let mut c = Catalog::new();
    crossbeam_channel::register(&mut c);
    kanal::register(&mut c);
    rtrb::register(&mut c);
    latest_cell::register(&mut c);
    bus::register(&mut c);
    crossbeam_fanout::register(&mut c);
    tokio::register(&mut c);
    c
}
