//! Open-loop measurement: a calibrated clock, messages stamped with their intended and actual
//! send times, a pacer that keeps a schedule without coarse sleeps, and the search for the
//! highest rate a transport sustains.
//!
//! Why open loop: a closed-loop producer that stalls with the transport stops *offering* load
//! during the stall, so the messages that should have been sent then are never measured waiting
//! (coordinated omission). Here every message has an intended send time fixed by the schedule
//! before the run starts; latency measured from it includes any time the producer spent blocked,
//! and the latency from the actual send is kept beside it so the difference is visible.

pub mod clock;
pub(crate) mod pacer;
pub mod ramp;
pub mod stamped;

pub(crate) use clock::Clock;
pub use handoff_model::open_loop::SoakWindow;
pub use stamped::Stamped;
