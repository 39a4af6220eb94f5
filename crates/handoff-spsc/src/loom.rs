//! The loom seam: every synchronizing primitive this crate uses, from `handoff-sync`, which
//! takes them from the standard library in a normal build and from [loom] under
//! `RUSTFLAGS="--cfg handoff_loom"`, so that `tests/it/loom.rs` model-checks the very ring and wake
//! protocol that ship. (The flag is scoped to these crates: a dependent's own `--cfg loom` run
//! leaves them as they are.)
//!
//! [loom]: https://docs.rs/loom

#[cfg(feature = "block")]
pub(crate) use handoff_sync::futex;
pub(crate) use handoff_sync::{cell, sync, thread};
