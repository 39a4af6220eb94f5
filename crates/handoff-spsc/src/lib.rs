//! A bounded single-producer single-consumer ring.
//!
//! # Guarantees
//!
//! * **Exactly once, in order.** Every message pushed is popped exactly once, in the order it was
//!   pushed, or, if the ring is dropped with messages still inside, dropped exactly once with it.
//! * **Bounded, no allocation after creation.** [`channel`] allocates the ring once and writes
//!   to every page of it, so the kernel maps the memory then; pushes and pops never allocate,
//!   and the first lap takes no page faults. The capacity is rounded up to a power of two (0 and absurdly large
//!   capacities are rejected with a [`CapacityError`]).
//! * **Lock-free hot path.** A push or pop is a handful of instructions: each side keeps a cached
//!   copy of the other side's index and reloads the shared one only when the ring looks full
//!   (producer) or empty (consumer); the indices sit on separate 128-byte cache lines, and each
//!   handle fills whole line pairs of its own, so that no placement of the two handles in the
//!   user's memory makes them false-share (see [`Producer`], Placement). Acquire/release
//!   ordering only. With [`Wait::Block`] each operation also loads the other
//!   side's sleep flag, behind a fence that costs nothing on Linux (the sleeping side pays for
//!   both with a process-wide `membarrier`) and is a full fence elsewhere.
//! * **Batches publish once.** [`Producer::push_batch`] writes a run of slots and publishes the
//!   tail once; [`Consumer::pop_batch`] reads a run and releases the head once, and
//!   [`Consumer::pop_slices`] does the same without moving the messages: it lends the run where
//!   it lies, as one slice or two, then drops it.
//! * **Disconnection is observable.** Dropping one end is seen by the other:
//!   [`Consumer::pop`] returns `None` once the producer is gone and the ring is drained,
//!   [`Producer::push`] returns the message back instead of waiting forever for a dead consumer,
//!   and both ends have `is_abandoned`.
//! * **Waiting is the user's choice** ([`Wait`]): busy [`Spin`](Wait::Spin),
//!   [`SpinThenYield`](Wait::SpinThenYield), or [`Block`](Wait::Block), which sleeps and is woken
//!   only on the empty→non-empty and full→not-full edges, never by a system call per message.
//!   Every strategy keeps making progress when threads outnumber cores: spinning always yields to
//!   the scheduler after a bounded number of failed polls.
//!
//! # Features
//!
//! * `block` (default): [`Wait::Block`] and [`Waiter`], with a futex (the `atomic-wait` crate)
//!   and, on Linux, `libc` for `membarrier`. Without it the crate depends on neither and
//!   [`Wait`] has the two spinning strategies.
//!
//! The code is checked by the [loom] model checker (`tests/it/loom.rs`), including the sleep and
//! wake-up protocol of [`Wait::Block`].
//!
//! # Examples
//!
//! One message at a time:
//!
//! ```
//! use handoff_spsc::{channel, Wait};
//! use std::thread;
//!
//! let (mut tx, mut rx) = channel::<u64>(1024, Wait::Block)?;
//! let producer = thread::spawn(move || {
//!     for i in 0..10_000 {
//!         tx.push(i).unwrap();
//!     }
//!     // Dropping the producer ends the stream.
//! });
//! let mut expected = 0;
//! while let Some(i) = rx.pop() {
//!     assert_eq!(i, expected);
//!     expected += 1;
//! }
//! assert_eq!(expected, 10_000);
//! producer.join().unwrap();
//! # Ok::<(), handoff_spsc::CapacityError>(())
//! ```
//!
//! In batches, publishing once per run of slots:
//!
//! ```
//! use handoff_spsc::{channel, Wait};
//! use std::thread;
//!
//! let (mut tx, mut rx) = channel::<u32>(256, Wait::SpinThenYield)?;
//! let producer = thread::spawn(move || {
//!     tx.push_batch(&mut (0..100_000)).unwrap();
//! });
//! let mut sum = 0u64;
//! let mut received = 0;
//! loop {
//!     // Waits for at least one message; 0 means the producer is gone and the ring is empty.
//!     let n = rx.pop_batch(64, |v| sum += u64::from(v));
//!     if n == 0 {
//!         break;
//!     }
//!     received += n;
//! }
//! assert_eq!(received, 100_000);
//! assert_eq!(sum, (0..100_000u64).sum());
//! producer.join().unwrap();
//! # Ok::<(), handoff_spsc::CapacityError>(())
//! ```
//!
//! Without waiting:
//!
//! ```
//! use handoff_spsc::{channel, TryPopError, TryPushError, Wait};
//!
//! let (mut tx, mut rx) = channel::<&str>(2, Wait::Spin)?;
//! assert_eq!(tx.try_push("a"), Ok(()));
//! assert_eq!(tx.try_push("b"), Ok(()));
//! assert_eq!(tx.try_push("c"), Err(TryPushError::Full("c")));
//! assert_eq!(rx.try_pop(), Ok("a"));
//! drop(tx);
//! assert_eq!(rx.try_pop(), Ok("b")); // what was pushed is still delivered
//! assert_eq!(rx.try_pop(), Err(TryPopError::Disconnected));
//! # Ok::<(), handoff_spsc::CapacityError>(())
//! ```
//!
//! The crate's `examples/` directory has programs to run (`cargo run -p handoff-spsc --release
//! --example NAME`): `pipeline` (two rings in a row, a stage between them), `spsc_throughput` (a
//! quick look at each wait strategy, one at a time and in batches), `ping_pong` (a round trip
//! over two rings against one and two bare cache lines, timed in bulk) and `edge_policies` (one
//! message at a time against a consumer that slips, a producer that gathers room, and rtrb).
//!
//! [loom]: https://docs.rs/loom

#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "block")]
mod barrier;
#[cfg(feature = "block")]
#[doc(hidden)]
pub use barrier::testing as __barrier;
mod loom;
#[cfg(not(handoff_loom))]
mod pages;
mod ring;
pub mod wait;

pub use ring::{channel, Consumer, Producer, MAX_CAPACITY};
#[cfg(feature = "block")]
pub use wait::Waiter;
// The stand-in without `block`, for `handoff-mpsc`'s spinning channels; not part of the API.
#[cfg(not(feature = "block"))]
#[doc(hidden)]
pub use wait::Waiter;
pub use wait::{Backoff, Wait};

use std::fmt;

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "block"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Why [`channel`] could not create a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapacityError {
    /// A capacity of 0 was asked for; a ring needs at least one slot.
    Zero,
    /// The capacity, rounded up to a power of two, is larger than `max`.
    TooLarge {
        /// The capacity asked for.
        requested: usize,
        /// The largest capacity possible for this message type.
        max: usize,
    },
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapacityError::Zero => f.write_str("a ring needs a capacity of at least 1"),
            CapacityError::TooLarge { requested, max } => {
                write!(
                    f,
                    "capacity {requested} is too large (at most {max} for this message type)"
                )
            }
        }
    }
}

impl std::error::Error for CapacityError {}

/// Why a non-waiting push or send refused a message: [`Producer::try_push`] here,
/// `Sender::try_send` in `handoff-mpsc`. Carries the message back.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum TryPushError<T> {
    /// No room for now: the ring (a sharded sender's own ring) is full.
    Full(T),
    /// No room, and the receiving side has been dropped: there never will be.
    Disconnected(T),
}

impl<T> TryPushError<T> {
    /// The message that was refused.
    pub fn into_inner(self) -> T {
        match self {
            TryPushError::Full(value) | TryPushError::Disconnected(value) => value,
        }
    }

    /// Whether the message was refused for want of room only.
    pub fn is_full(&self) -> bool {
        matches!(self, TryPushError::Full(_))
    }

    /// Whether the receiving side is gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, TryPushError::Disconnected(_))
    }
}

// By hand, so that errors of messages without `Debug` can still be unwrapped.
impl<T> fmt::Debug for TryPushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryPushError::Full(_) => f.write_str("Full(..)"),
            TryPushError::Disconnected(_) => f.write_str("Disconnected(..)"),
        }
    }
}

impl<T> fmt::Display for TryPushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryPushError::Full(_) => f.write_str("the ring is full"),
            TryPushError::Disconnected(_) => {
                f.write_str("the ring is full and its receiver is gone")
            }
        }
    }
}

impl<T> std::error::Error for TryPushError<T> {}

/// Why a non-waiting pop or receive returned no message: [`Consumer::try_pop`] and the batch
/// forms here, the `try_recv` family in `handoff-mpsc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TryPopError {
    /// Nothing to take for now.
    Empty,
    /// Nothing to take, and the sending side has been dropped (every sender, for a
    /// multi-producer channel) after everything it sent was taken: nothing will ever come.
    Disconnected,
}

impl fmt::Display for TryPopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryPopError::Empty => f.write_str("the channel is empty"),
            TryPopError::Disconnected => {
                f.write_str("the channel is empty and its sending side is gone")
            }
        }
    }
}

impl std::error::Error for TryPopError {}
