//! handoff-mpsc's integration tests in one test binary. Under `--cfg handoff_loom` it holds the
//! loom models only: `RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-mpsc --release --test it`.
//! Everything here uses the blocking wake-ups, so it needs the `block` feature (on by default).

#[cfg(all(handoff_loom, feature = "block"))]
mod loom;
#[cfg(all(not(handoff_loom), feature = "block"))]
mod panics;
#[cfg(all(not(handoff_loom), feature = "block"))]
mod stress;
