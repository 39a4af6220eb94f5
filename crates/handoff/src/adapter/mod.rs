//! What a transport adapter is made of, shared by every adapter crate: the one row shape every
//! adapter is stated in (the `transport!`, `handles!` and `refused!` macros, [`check_spsc`]), the retry loops and [`Backoff`] of every spinning adapter, and the
//! [`SinkHome`] of the callback transports.
//!
//! The shipped adapters live in crates of their own (`crates/transports/*`, gathered by the
//! `handoff-transports` crate), each compiled apart: a transport's trials are instantiated in
//! its adapter's crate, so an edit to one adapter, or to the queue it wraps, changes no other
//! transport's machine code. Everything here is generic or inlined into those crates; none of it
//! is code of one transport.

mod shape;
mod sink_home;
mod spin;

pub use self::shape::check_spsc;
pub use self::sink_home::{SinkGuard, SinkHome};
pub use self::spin::{
    recv_spinning, retry, send_batch_spinning, send_spinning, Backoff, SPINS_BEFORE_YIELD,
};
