//! Adapters for third-party and standard-library transports, one file each (or one per crate
//! family), all alike: a unit struct naming the transport, thin producer and consumer handles, and
//! a [`TransportInfo`](crate::transport::TransportInfo) that declares the semantics honestly.
//!
//! Every pull and async transport is stated in one shape (see `shape.rs`): a row with its name,
//! description, semantics (a `const` [`Semantics`](crate::semantics::Semantics) built from
//! `spsc()`, `mpsc()` or `mpmc()`), options, handle types and channel creation. Handles that
//! only wrap a crate's channel ends are rows too, one expression per operation. Handles with
//! logic of their own are written out: the spinning queues and rings (sharing the retry loops of
//! `spin.rs`), the mutex-deque baseline, the latest-value cell, tokio's broadcast, watch and
//! oneshot, the crossbeam fan-out, the bus, and the two callback transports (the disruptor and
//! the direct callback), which use the same semantics builder and helpers.
//!
//! | name                    | what                                              | declared semantics                                   |
//! |-------------------------|---------------------------------------------------|------------------------------------------------------|
//! | `std-mpsc`              | `std::sync::mpsc::channel`, blocking `recv`       | MPSC, per-producer FIFO, unbounded, spin-then-park   |
//! | `std-mpsc-poll`         | the same, consumer polling `recv_timeout(100 ms)` | MPSC, per-producer FIFO, unbounded, spin-then-park   |
//! | `std-sync-channel`      | `std::sync::mpsc::sync_channel(capacity)`         | MPSC, per-producer FIFO, bounded ≥ 0, spin-then-park |
//! | `crossbeam-bounded`     | `crossbeam_channel::bounded(capacity)`            | MPMC, per-producer FIFO, bounded ≥ 0, spin-then-park |
//! | `crossbeam-unbounded`   | `crossbeam_channel::unbounded()`                  | MPMC, per-producer FIFO, unbounded, spin-then-park   |
//! | `crossbeam-array-queue` | `crossbeam_queue::ArrayQueue`, spinning           | MPMC, FIFO, bounded ≥ 1, spin                        |
//! | `crossbeam-seg-queue`   | `crossbeam_queue::SegQueue`, spinning             | MPMC, FIFO, unbounded, spin                          |
//! | `flume-bounded`         | `flume::bounded(capacity)`                        | MPMC, per-producer FIFO, bounded ≥ 0, block          |
//! | `flume-unbounded`       | `flume::unbounded()`                              | MPMC, per-producer FIFO, unbounded, block            |
//! | `kanal-bounded`         | `kanal::bounded(capacity)`                        | MPMC, per-producer FIFO, bounded ≥ 0, spin-then-park |
//! | `rtrb`                  | `rtrb::RingBuffer`, spinning, chunked batches     | SPSC, FIFO, bounded ≥ 1, spin, batch                 |
//! | `ringbuf`               | `ringbuf::HeapRb`, spinning                       | SPSC, FIFO, bounded ≥ 1, spin                        |
//! | `mutex-deque`           | `Mutex<VecDeque>` + two `Condvar`s (`wake` option)| MPMC, FIFO, bounded ≥ 1, block                       |
//! | `disruptor`             | `disruptor` ring; its thread calls the sink       | MPSC, FIFO, bounded 2^n ≥ 1, spin, callback          |
//! | `direct-callback`       | `send` calls the sink via a C-ABI fn pointer      | SPSC, FIFO, same-thread, no wait, callback           |
//! | `handoff-spsc`          | handoff's own SPSC ring (`wait` option)           | SPSC, FIFO, bounded 2^n, spin, batch                 |
//! | `handoff-mpsc`          | handoff's sharded MPSC ingress (`wake` option)    | MPSC, per-producer FIFO, bounded 2^n per shard, batch|
//! | `vyukov-mpsc`           | Vyukov's node-based MPSC queue (`wake` option)    | MPSC, per-producer FIFO, unbounded                   |
//! | `latest-cell`           | handoff's conflating single slot                  | SPSC, latest value, one slot, block                  |
//! | `bus`                   | `bus::Bus`, every reader gets every message       | SPMC broadcast, FIFO, bounded ≥ 1, spin-then-park    |
//! | `crossbeam-fanout`      | one `crossbeam_channel` per consumer, copied into | MPMC broadcast, per-producer FIFO, bounded ≥ 1       |
//! | `tokio-mpsc-bounded`    | `tokio::sync::mpsc::channel(capacity)`            | MPSC, per-producer FIFO, bounded ≥ 1, async          |
//! | `tokio-mpsc-unbounded`  | `tokio::sync::mpsc::unbounded_channel()`          | MPSC, per-producer FIFO, unbounded, async            |
//! | `tokio-broadcast`       | `tokio::sync::broadcast` of `Arc`, lag = failure  | MPMC broadcast, per-producer FIFO, bounded 2^n, overwrites, async|
//! | `tokio-watch`           | `tokio::sync::watch`, latest value                | MPSC, latest value (conflating), async               |
//! | `tokio-oneshot`         | a fresh `tokio::sync::oneshot` per message        | SPSC, FIFO, unbounded, async                         |
//! | `async-channel-bounded` | `async_channel::bounded(capacity)`                | MPMC, per-producer FIFO, bounded ≥ 1, async          |
//! | `flume-async`           | `flume::bounded(capacity)`, async API             | MPMC, per-producer FIFO, bounded ≥ 0, async          |
//! | `kanal-async`           | `kanal::bounded_async(capacity)`                  | MPMC, per-producer FIFO, bounded ≥ 0, async          |
//!
//! The operating system's byte channels (`uds-stream`, `uds-seqpacket`, `tcp-loopback`, `pipe`)
//! are in `ipc/`, with their own table.
//!
//! The async transports (the last eight) implement
//! [`AsyncTransport`](crate::transport_async::AsyncTransport) and run under every driver: tasks
//! on a tokio runtime, or OS threads each driving its loop with one `block_on`.
//!
//! # Spinning
//! Adapters that spin on `try_*` operations count every failed attempt in a plain `u64` of the
//! handle (reported by `failed_attempts()`, never as throughput) and wait between attempts with
//! one shared [`Backoff`]: a spin-loop hint, and a yield of the time slice after
//! `SPINS_BEFORE_YIELD` failures in a row, so that they keep making progress when a trial runs
//! more threads than there are cores. That is every adapter that busy-waits: `rtrb`, `ringbuf`,
//! the crossbeam queues, the disruptor's producers, `mutex-deque` `wake=spin` and the reference
//! transports' spinning modes (`handoff-spsc` `wait=spin`, `handoff-mpsc` and `vyukov-mpsc`
//! `wake=spin`), which go through their crates' non-waiting operations. The other values of
//! the reference transports' `wait` / `wake` options choose the queue's *own* wait, which is
//! then what is measured (the option's help says so); the crates count those waits' failed
//! polls by the same rule, so failed sends and receives mean the same thing in every row: a look
//! that found the queue full (empty) and was followed by a wait. Transports that wait inside a
//! third-party crate (crossbeam's channels, flume, kanal, std) report none: their failed polls
//! are not visible from outside.
//!
//! # Disconnection
//! Channels use their own notion of disconnection. Lock-free queues without one get it from their
//! adapter (see `crossbeam_queues.rs`); rings use their crate's "abandoned" / "held" flags. In
//! every case a consumer that sees the producers gone looks at the queue once more before ending
//! the stream, so a message sent just before the last sender was dropped is never lost.

use crate::catalog::{Catalog, Entry};

#[macro_use]
mod shape;

mod async_channels;
mod bus_broadcast;
mod crossbeam_channels;
mod crossbeam_fanout;
mod crossbeam_queues;
mod direct_callback;
mod disruptor_ring;
mod flume_channels;
#[cfg(target_os = "linux")]
pub(crate) mod ipc;
mod kanal_channel;
mod latest_cell;
mod may_channel;
mod mutex_deque;
mod reference;
mod ringbuf_ring;
mod rtrb_ring;
mod sink_home;
mod spin;
mod std_mpsc;
mod tokio_channels;

pub use self::async_channels::{AsyncChannelBounded, FlumeAsync, KanalAsync};
pub use self::bus_broadcast::BusBroadcast;
pub use self::crossbeam_channels::{CrossbeamBounded, CrossbeamUnbounded};
pub use self::crossbeam_fanout::CrossbeamFanout;
pub use self::crossbeam_queues::{CrossbeamArrayQueue, CrossbeamSegQueue, SpinQueue};
pub use self::direct_callback::DirectCallback;
pub use self::disruptor_ring::{Disruptor, MIN_MULTI_PRODUCER_CAPACITY};
pub use self::flume_channels::{FlumeBounded, FlumeUnbounded};
pub use self::kanal_channel::KanalBounded;
pub use self::latest_cell::LatestCell;
pub use self::may_channel::MayChannel;
pub use self::mutex_deque::MutexDeque;
pub use self::reference::{HandoffMpsc, HandoffSpsc, VyukovMpsc};
pub use self::ringbuf_ring::Ringbuf;
pub use self::rtrb_ring::Rtrb;
pub use self::spin::Backoff;
pub use self::std_mpsc::{StdMpsc, StdMpscPoll, StdSyncChannel};
pub use self::tokio_channels::{
    TokioBroadcast, TokioMpscBounded, TokioMpscUnbounded, TokioOneshot, TokioWatch,
};

/// Registers every adapter in this module.
pub fn register_all(catalog: &mut Catalog) {
    catalog.register(Entry::pull(StdMpsc));
    catalog.register(Entry::pull(StdMpscPoll));
    catalog.register(Entry::pull(StdSyncChannel));
    catalog.register(Entry::pull(CrossbeamBounded));
    catalog.register(Entry::pull(CrossbeamUnbounded));
    catalog.register(Entry::pull(CrossbeamArrayQueue));
    catalog.register(Entry::pull(CrossbeamSegQueue));
    catalog.register(Entry::pull(FlumeBounded));
    catalog.register(Entry::pull(FlumeUnbounded));
    catalog.register(Entry::pull(KanalBounded));
    catalog.register(Entry::pull(Rtrb));
    catalog.register(Entry::pull(Ringbuf));
    catalog.register(Entry::pull(MutexDeque));
    catalog.register(Entry::callback(Disruptor));
    catalog.register(Entry::callback(DirectCallback));
    catalog.register(Entry::pull(HandoffSpsc));
    catalog.register(Entry::pull(HandoffMpsc));
    catalog.register(Entry::pull(VyukovMpsc));
    catalog.register(Entry::pull(LatestCell));
    catalog.register(Entry::pull(BusBroadcast));
    catalog.register(Entry::pull(CrossbeamFanout));
    #[cfg(target_os = "linux")]
    ipc::register(catalog);
    register_async(catalog);
}

/// Registers the async transports.
fn register_async(catalog: &mut Catalog) {
    catalog.register(Entry::asynchronous(TokioMpscBounded));
    catalog.register(Entry::asynchronous(TokioMpscUnbounded));
    catalog.register(Entry::asynchronous(TokioBroadcast));
    catalog.register(Entry::asynchronous(TokioWatch));
    catalog.register(Entry::asynchronous(TokioOneshot));
    catalog.register(Entry::asynchronous(AsyncChannelBounded));
    catalog.register(Entry::asynchronous(FlumeAsync));
    catalog.register(Entry::asynchronous(MayChannel));
    catalog.register(Entry::asynchronous(KanalAsync));
}
