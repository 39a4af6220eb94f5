//! One side's part of the ring's shared header: what the other side (in another process,
//! perhaps) reads of it, and the word it sleeps on.

use std::sync::atomic::{AtomicU32, AtomicU64};

/// One side's shared state.
#[repr(C)]
pub(super) struct SideState {
    /// The consumer's: messages consumed, published once per span. Unused for the producer.
    pub consumed: AtomicU64,
    /// The process id of the side, once it has taken its end (0 before).
    pub pid: AtomicU32,
    /// The side has dropped its end: it will publish nothing more.
    pub gone: AtomicU32,
    /// The side is asleep on `futex` (or about to be): the other side must wake it.
    pub sleeping: AtomicU32,
    /// The word the side sleeps on; the other side bumps it to wake it.
    pub futex: AtomicU32,
}
