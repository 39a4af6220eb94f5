//! Adapters for third-party and standard-library transports, one file each (or one per crate
//! family), all alike: a unit struct naming the transport, thin producer and consumer handles, and
//! a [`TransportInfo`](crate::transport::TransportInfo) that declares the semantics honestly.
//!
//! | name                    | what                                              | declared semantics                                   |
//! |-------------------------|---------------------------------------------------|------------------------------------------------------|
//! | `std-mpsc`              | `std::sync::mpsc::channel`, blocking `recv`       | MPSC, per-producer FIFO, unbounded, spin-then-park   |
//! | `std-mpsc-poll`         | the same, consumer polling `recv_timeout(100 ms)` | MPSC, per-producer FIFO, unbounded, spin-then-park   |
//! | `std-sync-channel`      | `std::sync::mpsc::sync_channel(capacity)`         | MPSC, per-producer FIFO, bounded ≥ 0, spin-then-park |
//! | `crossbeam-bounded`     | `crossbeam_channel::bounded(capacity)`            | MPMC, per-producer FIFO, bounded ≥ 0, spin-then-park |
//! | `crossbeam-unbounded`   | `crossbeam_channel::unbounded()`                  | MPMC, per-producer FIFO, unbounded, spin-then-park   |
//! | `flume-bounded`         | `flume::bounded(capacity)`                        | MPMC, per-producer FIFO, bounded ≥ 0, block          |
//! | `flume-unbounded`       | `flume::unbounded()`                              | MPMC, per-producer FIFO, unbounded, block            |
//! | `kanal-bounded`         | `kanal::bounded(capacity)`                        | MPMC, per-producer FIFO, bounded ≥ 0, spin-then-park |

use crate::catalog::{Catalog, Entry};

mod crossbeam_channels;
mod flume_channels;
mod kanal_channel;
mod std_mpsc;

pub use self::crossbeam_channels::{
    CrossbeamBounded, CrossbeamRx, CrossbeamTx, CrossbeamUnbounded,
};
pub use self::flume_channels::{FlumeBounded, FlumeRx, FlumeTx, FlumeUnbounded};
pub use self::kanal_channel::{KanalBounded, KanalRx, KanalTx};
pub use self::std_mpsc::{
    StdMpsc, StdMpscPoll, StdPollRx, StdRx, StdSyncChannel, StdSyncTx, StdTx, POLL_TIMEOUT,
};

/// Registers every adapter in this module.
pub fn register_all(catalog: &mut Catalog) {
    catalog.register(Entry::pull(StdMpsc));
    catalog.register(Entry::pull(StdMpscPoll));
    catalog.register(Entry::pull(StdSyncChannel));
    catalog.register(Entry::pull(CrossbeamBounded));
    catalog.register(Entry::pull(CrossbeamUnbounded));
    catalog.register(Entry::pull(FlumeBounded));
    catalog.register(Entry::pull(FlumeUnbounded));
    catalog.register(Entry::pull(KanalBounded));
}
