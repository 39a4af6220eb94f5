//! handoff-spsc's integration tests in one test binary. Under `--cfg handoff_loom` it holds the
//! loom models only: `RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-spsc --release --test it`.
//! What uses `Wait::Block` needs the `block` feature (on by default); the rest also runs without.

#[cfg(all(not(handoff_loom), feature = "block"))]
mod barrier;
#[cfg(all(handoff_loom, feature = "block"))]
mod loom;
#[cfg(not(handoff_loom))]
mod panics;
#[cfg(not(handoff_loom))]
mod placement;
#[cfg(all(not(handoff_loom), feature = "block"))]
mod stress;
