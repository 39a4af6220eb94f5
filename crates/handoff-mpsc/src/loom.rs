//! The loom seam (shared with `handoff-spsc` through `handoff-sync`): the standard library's
//! types in a normal build, [loom]'s under `RUSTFLAGS="--cfg handoff_loom"`, so that
//! `tests/it/loom.rs` model-checks the very code that ships. The rings and the
//! [`Waiter`](handoff_spsc::Waiter) come from `handoff-spsc`, which switches under the same flag.
//!
//! [loom]: https://docs.rs/loom

pub(crate) use handoff_sync::{cell, lock, sync};
