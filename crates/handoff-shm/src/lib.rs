//! handoff's shared-memory ring (`shm-ring`): a bounded single-producer single-consumer queue
//! of fixed-size slots in memory that two processes map, with spinning and cross-process futex
//! waits, and each side able to tell when the other's process has died.
//!
//! * [`Shared`]: the ring's memory: laid out in a mapping the caller shares between processes
//!   ([`Shared::create_in`], [`Shared::open_in`]) or in this process's heap ([`Shared::heap`]),
//!   and mapped into the process whole as a side creates or opens it (Linux 5.14 and later), so
//!   that the ring's first lap takes no page faults;
//! * [`Producer`] and [`Consumer`]: its two ends, byte-level (a message is written into its slot
//!   and read out of it by the caller's function);
//! * [`Waiting`]: how a side that cannot proceed waits.
//!
//! The protocol is described in `ring.rs` and `wait.rs`. Built with
//! `RUSTFLAGS="--cfg handoff_loom"`, the ring's atomics, slots and futex are loom's
//! (`memory.rs` is the seam) and `tests/it/loom.rs` checks the protocol over every interleaving:
//!
//! ```text
//! RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-shm --release --test it
//! ```
//!
//! Linux only (the futex and pidfd system calls).

#![warn(unsafe_op_in_unsafe_fn)]

mod memory;
mod ring;
mod wait;

pub use memory::{bytes_for, slot_size, Shared};
pub use ring::{Consumer, Producer};
pub use wait::{Waiting, CHECK_EVERY, NAP, SPINS_BEFORE_YIELD};
