//! Async transports under every driver: OS threads, a tokio current-thread runtime, or a tokio
//! multi-thread runtime.
//!
//! Each producer and consumer is one future (its whole loop). How the futures run:
//!
//! * **threads**: a [`Crew`](super::crew::Crew) thread per future, pinned and released by the
//!   spinning start line like every other trial; the thread drives its future with one `block_on`
//!   (`futures_lite::future::block_on`: it parks the thread while the future is pending and is
//!   unparked by the waker). One `block_on` per thread and sample, never one per message.
//! * **tokio-current / tokio-multi:N**: the runtime is built before the sample (outside the timed
//!   region; multi-thread workers are pinned to distinct cores as they start, where there are
//!   enough). One *conductor* thread, under the usual watchdog, enters the runtime with
//!   `block_on` once: it spawns every future as a task, waits until every task has reached the
//!   start gate (tasks count themselves in, the last one wakes the conductor), then opens the gate
//!   (a `watch` channel flipped to `true`) and waits for the tasks. On a current-thread runtime
//!   the conductor's thread is the one thread every task runs on: producer and consumer take
//!   turns on it, and the result is labelled *same-thread-cooperative*. On a multi-thread
//!   runtime the conductor is not a worker; it sleeps until the tasks finish. The runtime is shut
//!   down after the sample, outside the timed region.
//!
//! Under every driver each task also notes which OS thread it runs on, so that the result can
//! say how many hand-offs stayed on one thread (see `same_worker.rs`): a sender notes its thread
//! before each send (a store only when it changed), a receiver compares its own with its sender's
//! after each receive, in counts of its own. On a multi-thread runtime the scheduler often runs
//! a woken task on the worker that woke it; such a result is labelled *same-worker* when most of
//! its hand-offs stayed on one thread.
//!
//! In both cases each future reads the clock as it starts (after the start line or gate); the
//! sample runs from the earliest of those reads to the moment the consumer received the last
//! expected message, as in the thread engine. Every message is verified by the consumer
//! ([`Verifier`](crate::verify::Verifier)); a receiver that lost messages by lagging
//! ([`AsyncReceiver::lost`](crate::transport_async::AsyncReceiver::lost)) fails the sample. A
//! task that panics makes the sample `crashed` with its message, a sample in which no message is
//! delivered for the watchdog interval `hung` (the consumers publish their progress as the thread
//! engine's do; the watchdog watches the crew of threads or the conductor).
//!
//! No sample under an async driver records its CPU time (see [`super::cpu`]): a task's CPU time
//! cannot be read, and under the threads driver the members are spawned on no side, so that
//! every driver of an async transport reports the same figures.
//!
//! [`driver`] runs a sample's tasks under the driver; [`stream`] and [`pingpong`] are the
//! engines, each filling in the sample skeleton ([`super::sample`]).

pub(crate) mod driver;
pub(super) mod pingpong;
pub(super) mod stream;
