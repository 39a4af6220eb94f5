//! Multi-producer single-consumer channels.
//!
//! Two designs, with the same wake policies ([`Wake`]) and the same shape of API:
//!
//! * the **sharded** channel at the crate root ([`channel`], [`Sender`], [`Receiver`]): every
//!   sender owns a bounded single-producer ring of its own (a [`handoff_spsc`] ring), and the
//!   receiver drains the rings in turn. Producers never contend with each other, so throughput
//!   scales with the number of producers;
//! * [`vyukov`]: Dmitry Vyukov's unbounded node-based MPSC queue, where producers share one
//!   atomic list head: one allocation and one atomic swap per message.
//!
//! # Guarantees
//!
//! * **Exactly once, per-producer FIFO.** Every message sent is received exactly once, and the
//!   messages of one sender arrive in the order it sent them. There is **no global order**
//!   between senders: two messages from different senders may be received in either order,
//!   whatever the order of the `send` calls.
//! * **No loss at shutdown.** [`Receiver::recv`] returns `None` only once every sender has been
//!   dropped and everything they sent has been received. Messages still in a channel when its
//!   receiver and last sender are gone are dropped exactly once.
//! * **Sharded: bounded, with backpressure per sender.** Each sender's ring holds
//!   `shard_capacity` messages (rounded up to a power of two). A full ring makes only its own
//!   sender wait; the others go on. Sending never takes a lock and never allocates; cloning a
//!   sender allocates its ring and takes a lock once to register it.
//! * **Sharded: fair.** The receiver takes turns over the rings, at most
//!   [`SHARD_TURN`] messages from one ring per turn, so a hot sender cannot starve the others.
//! * **Vyukov: unbounded.** `send` never waits (and never fails while the receiver lives); it
//!   allocates one node per message.
//! * **Wake-ups as asked.** With [`Wake::Edge`] an idle receiver sleeps and a sender makes a
//!   wake-up system call only when it finds the receiver asleep, i.e. on the empty→non-empty
//!   edge, never once per message. What the sender does pay for the check is a load of the
//!   receiver's sleep flag; on Linux the store→load barrier that makes the check safe costs the
//!   sender nothing, because the receiver pays for both sides with one `membarrier` system call
//!   before it sleeps (see [`handoff_spsc::Waiter`]). [`Wake::Spin`] never sleeps; [`Wake::Every`]
//!   wakes on every send, deliberately (a baseline for measuring what per-message wake-ups cost).
//! * **Progress under oversubscription.** Nothing spins unboundedly: every spin loop yields to
//!   the scheduler after a bounded number of failed polls, so the channels keep moving with
//!   more threads than cores.
//!
//! The protocols (registration, retirement, the sleep/wake handshake, the Vyukov links) are
//! model-checked with [loom] in `tests/it/loom.rs`.
//!
//! # Examples
//!
//! Sharded, one sender per thread:
//!
//! ```
//! use handoff_mpsc::{channel, Wake};
//! use std::thread;
//!
//! let (tx, mut rx) = channel::<(usize, u64)>(256, Wake::Edge)?;
//! let handles: Vec<_> = (0..4)
//!     .map(|p| {
//!         let mut tx = tx.clone(); // registers a new ring
//!         thread::spawn(move || {
//!             for seq in 0..1000 {
//!                 tx.send((p, seq)).unwrap();
//!             }
//!         })
//!     })
//!     .collect();
//! drop(tx); // the original sender sends nothing
//!
//! let mut next = [0u64; 4];
//! while let Some((p, seq)) = rx.recv() {
//!     assert_eq!(seq, next[p]); // in order per producer
//!     next[p] += 1;
//! }
//! assert_eq!(next, [1000; 4]);
//! for h in handles {
//!     h.join().unwrap();
//! }
//! # Ok::<(), handoff_mpsc::CapacityError>(())
//! ```
//!
//! Draining in batches:
//!
//! ```
//! use handoff_mpsc::{channel, Wake};
//! use std::thread;
//!
//! let (mut tx, mut rx) = channel::<u32>(64, Wake::Spin)?;
//! let producer = thread::spawn(move || {
//!     for i in 0..10_000 {
//!         tx.send(i).unwrap();
//!     }
//! });
//! let mut sum = 0u64;
//! // Waits for at least one message; 0 means every sender is gone and all was received.
//! while rx.recv_batch(256, |v| sum += u64::from(v)) > 0 {}
//! // (`recv_slices` does the same, lending each ring's run in place as a slice.)
//! assert_eq!(sum, (0..10_000u64).sum());
//! producer.join().unwrap();
//! # Ok::<(), handoff_mpsc::CapacityError>(())
//! ```
//!
//! The Vyukov queue:
//!
//! ```
//! use handoff_mpsc::{vyukov, Wake};
//! use std::thread;
//!
//! let (tx, mut rx) = vyukov::channel::<u64>(Wake::Edge);
//! let handles: Vec<_> = (0..2)
//!     .map(|_| {
//!         let tx = tx.clone();
//!         thread::spawn(move || {
//!             for i in 0..1000 {
//!                 tx.send(i).unwrap();
//!             }
//!         })
//!     })
//!     .collect();
//! drop(tx);
//! let mut count = 0;
//! while rx.recv().is_some() {
//!     count += 1;
//! }
//! assert_eq!(count, 2000);
//! for h in handles {
//!     h.join().unwrap();
//! }
//! ```
//!
//! [loom]: https://docs.rs/loom

#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "block"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod loom;
mod sharded;
pub mod vyukov;
mod wake;

// One vocabulary for both crates: a refused push (`try_send`) returns the message in a
// `TryPushError`, a pop that found nothing (`try_recv`) says why with a `TryPopError`.
pub use handoff_spsc::{CapacityError, TryPopError, TryPushError};
pub use sharded::{channel, Receiver, Sender, SHARD_TURN};
pub use wake::Wake;
