//! The shared-memory ring's integration tests in one test binary. Under `--cfg handoff_loom` it
//! holds the loom models only:
//! `RUSTFLAGS="--cfg handoff_loom" cargo test -p handoff-shm --release --test it`.

#[cfg(handoff_loom)]
mod loom;
#[cfg(not(handoff_loom))]
mod stress;
