//! Every transport shipped with handoff, gathered: [`builtin`] is the catalog the `handoff` command
//! starts from, [`register_all`] adds them to a catalog of one's own.
//!
//! # One crate per adapter
//! Each adapter (one file before, now one crate under `crates/transports/`) is compiled apart,
//! with the engine's code instantiated for it inside its own crate: the compiler partitions,
//! inlines and optimises each transport's trials without seeing any other transport, so an edit
//! to one adapter, or to the queue it wraps, changes no other transport's machine code. (In one
//! crate of all adapters, a one-line edit to one ring moved how the whole catalog was split into
//! codegen units and inlined, and an untouched transport's figures with it.) Transports that share
//! an adapter crate (the crossbeam channels, the std channels, the reference queues) are compiled
//! together and can move together; a comparison of two builds says per transport whether its
//! code changed (see `docs/compare.md`).
//!
//! # The adapters
//! Adapters for third-party and standard-library transports, all alike: a unit struct naming the transport, thin producer and consumer handles, and
//! a [`TransportInfo`](handoff::transport::TransportInfo) that declares the semantics honestly.
//!
//! Every pull and async transport is stated in one shape (see [`handoff::adapter`]): a row with its name,
//! description, semantics (a `const` [`Semantics`](handoff::semantics::Semantics) built from
//! `spsc()`, `mpsc()` or `mpmc()`), options, handle types and channel creation. Handles that
//! only wrap a crate's channel ends are rows too, one expression per operation. Handles with
//! logic of their own are written out: the spinning queues and rings (sharing the retry loops of
//! [`handoff::adapter`]), the mutex-deque baseline, the latest-value cell, tokio's broadcast, watch and
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
//! are in the `handoff-transport-ipc` crate, with their own table.
//!
//! The async transports (the last eight) implement
//! [`AsyncTransport`](handoff::transport_async::AsyncTransport) and run under every driver: tasks
//! on a tokio runtime, or OS threads each driving its loop with one `block_on`.
//!
//! # Spinning
//! Adapters that spin on `try_*` operations count every failed attempt in a plain `u64` of the
//! handle (reported by `failed_attempts()`, never as throughput) and wait between attempts with
//! one shared [`Backoff`](handoff::adapter::Backoff): a spin-loop hint, and a yield of the time slice after
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
//! adapter (see `handoff-transport-crossbeam-queue`); rings use their crate's "abandoned" / "held" flags. In
//! every case a consumer that sees the producers gone looks at the queue once more before ending
//! the stream, so a message sent just before the last sender was dropped is never lost.

#![deny(missing_docs)]

use handoff::catalog::Catalog;

pub use handoff_transport_async_channels::{AsyncChannelBounded, FlumeAsync, KanalAsync};
pub use handoff_transport_bus::BusBroadcast;
pub use handoff_transport_crossbeam_channel::{CrossbeamBounded, CrossbeamUnbounded};
pub use handoff_transport_crossbeam_fanout::CrossbeamFanout;
pub use handoff_transport_crossbeam_queue::{CrossbeamArrayQueue, CrossbeamSegQueue, SpinQueue};
pub use handoff_transport_direct_callback::DirectCallback;
pub use handoff_transport_disruptor::{Disruptor, MIN_MULTI_PRODUCER_CAPACITY};
pub use handoff_transport_flume::{FlumeBounded, FlumeUnbounded};
/// The operating system's byte channels and the shared-memory rings, between threads and between
/// two processes.
#[cfg(target_os = "linux")]
pub use handoff_transport_ipc as ipc;
pub use handoff_transport_kanal::KanalBounded;
pub use handoff_transport_latest_cell::LatestCell;
pub use handoff_transport_may::MayChannel;
pub use handoff_transport_mutex_deque::MutexDeque;
pub use handoff_transport_reference::{HandoffMpsc, HandoffSpsc, VyukovMpsc};
pub use handoff_transport_ringbuf::Ringbuf;
pub use handoff_transport_rtrb::Rtrb;
pub use handoff_transport_std_mpsc::{StdMpsc, StdMpscPoll, StdSyncChannel};
pub use handoff_transport_tokio::{
    TokioBroadcast, TokioMpscBounded, TokioMpscUnbounded, TokioOneshot, TokioWatch,
};

/// Every transport shipped with handoff, in a catalog of its own. The test-only faulty
/// transports are not among them: they are in the `handoff-testing` crate.
pub fn builtin() -> Catalog {
    let mut c = Catalog::new();
    register_all(&mut c);
    c
}

/// Registers every shipped transport, in the order `handoff list` shows them.
pub fn register_all(catalog: &mut Catalog) {
    handoff_transport_std_mpsc::register(catalog);
    handoff_transport_crossbeam_channel::register(catalog);
    handoff_transport_crossbeam_queue::register(catalog);
    handoff_transport_flume::register(catalog);
    handoff_transport_kanal::register(catalog);
    handoff_transport_rtrb::register(catalog);
    handoff_transport_ringbuf::register(catalog);
    handoff_transport_mutex_deque::register(catalog);
    handoff_transport_disruptor::register(catalog);
    handoff_transport_direct_callback::register(catalog);
    handoff_transport_reference::register(catalog);
    handoff_transport_latest_cell::register(catalog);
    handoff_transport_bus::register(catalog);
    handoff_transport_crossbeam_fanout::register(catalog);
    #[cfg(target_os = "linux")]
    handoff_transport_ipc::register(catalog);
    handoff_transport_tokio::register(catalog);
    handoff_transport_async_channels::register(catalog);
    handoff_transport_may::register(catalog);
}
