//! `iceoryx2`: the zero-copy IPC crate most often cited, as a handoff transport — its
//! publish-subscribe pattern over shared memory, between two threads of one process and, with
//! `placement = processes`, between two processes, every message verified.
//!
//! Built with this crate's `iceoryx2` feature (iceoryx2 0.10 needs rustc 1.89, and libclang for
//! its build: `scripts/install-peers`). The `handoff` command has it with its own `iceoryx2`
//! feature, which the test command turns on; without it the transport is listed, as
//! unavailable, with the reason.
//!
//! How it is driven, kept as close to the crate's own use as a verified stream allows:
//!
//! * one service per channel, `publish_subscribe::<[u8]>()`, a message crossing as its wire form
//!   in a loaned sample (`loan_slice_uninit`, written in place, `send`): no copy beyond the
//!   harness's own encoding;
//! * nothing may be lost: the service does not overflow (`enable_safe_overflow(false)`), the
//!   subscriber buffers `capacity` samples, and the publisher's backpressure is
//!   `RetryUntilDelivered` (it waits, inside iceoryx2, while the subscriber is full);
//! * the subscriber polls `receive()` with the harness's shared spin (a spin-loop hint per empty
//!   poll, a yield every 64), so it is a spinning transport like `shm-ring` with `wait=spin`;
//! * the stream ends when the service has no publisher left and nothing is buffered.
//!
//! Each channel's nodes live in an iceoryx2 domain of its own (`domain`), removed when its last
//! node is gone, so a run leaves nothing in `/dev/shm` or the temporary directory and never
//! touches the default domain other iceoryx2 programs share; a domain a `SIGKILL` left behind
//! is swept by the next channel opened.

use handoff::catalog::{Catalog, Entry};
use handoff::semantics::{Semantics, WaitStrategy};
use handoff::transport::TransportInfo;

/// The transport's name.
pub const NAME: &str = "iceoryx2";

/// Name, description and declared semantics.
pub fn info() -> TransportInfo {
    TransportInfo::new(
        NAME,
        "iceoryx2 0.10 publish-subscribe over shared memory: a loaned sample per message written in place, no overflow, RetryUntilDelivered backpressure, subscriber polled with the harness's spin",
        Semantics::spsc()
            .bounded(1, false)
            .wait(WaitStrategy::Spin),
    )
}

/// Registers `iceoryx2`: the transport when built with the `iceoryx2` feature, else an
/// unavailable entry saying how to build it.
pub fn register(catalog: &mut Catalog) {
    #[cfg(feature = "iceoryx2")]
    catalog.register(Entry::cross_process(transport::Iceoryx2));
    #[cfg(not(feature = "iceoryx2"))]
    catalog.register(handoff::plugin::unavailable(
        info(),
        "built without the `iceoryx2` feature (cargo run --release -p handoff-cli --features iceoryx2 --bin handoff -- run …; needs rustc 1.89 and libclang, see scripts/install-peers)",
    ));
}

#[cfg(feature = "iceoryx2")]
mod domain;
#[cfg(feature = "iceoryx2")]
mod transport;

#[cfg(not(feature = "iceoryx2"))]
#[allow(unused_imports)]
use Entry as _;
