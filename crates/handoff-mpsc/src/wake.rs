//! The wake policy: how an idle receiver waits and how senders wake it.

use handoff_spsc::{Backoff, Wait, Waiter};

/// How the receiver waits for messages, and how senders wake it. Chosen when the channel is
/// created; it also decides how a sharded sender waits on a full ring.
///
/// | policy | idle receiver | cost per send | sender on a full ring (sharded) |
/// |---|---|---|---|
/// | [`Spin`](Wake::Spin) | polls, yields every 256 polls | nothing | polls, yields every 256 polls |
/// | [`Edge`](Wake::Edge) | spins briefly, then sleeps | a load of the receiver's (rarely written) sleep flag, behind a fence that is free on Linux (see [`Waiter`](handoff_spsc::Waiter)); a system call only when the receiver sleeps | spins briefly, then sleeps until the receiver frees a slot |
/// | [`Every`](Wake::Every) | as `Edge` | a fence and a futex wake system call, every time | as `Edge` |
///
/// `Edge` and `Every` exist with the `block` feature (on by default); without it only `Spin`
/// does, and the crate needs neither a futex nor `libc`. The enum is `non_exhaustive` so that
/// code written without the feature still compiles when another crate turns it on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Wake {
    /// Nobody ever sleeps: the receiver and the senders of full rings busy-poll, yielding to the
    /// scheduler once every [`SPIN_YIELD_EVERY`](handoff_spsc::Backoff::SPIN_YIELD_EVERY)
    /// (256) failed polls so that oversubscribed threads make progress.
    /// Lowest latency when every thread has a core; burns the cores otherwise. The default
    /// without the `block` feature.
    #[cfg_attr(not(feature = "block"), default)]
    Spin,
    /// The receiver sleeps once a short spin finds every ring empty, after announcing it with a
    /// flag and re-checking the rings (see [`Waiter`] for the handshake). A sender wakes it only
    /// if it sees that flag after its send, i.e. on the empty→non-empty edge; in steady state
    /// no send makes a system call. Senders sleep on full rings the same way, woken by the
    /// receiver on the full→not-full edge.
    #[cfg_attr(feature = "block", default)]
    #[cfg(feature = "block")]
    Edge,
    /// Like `Edge`, except that every send makes a futex wake system call whether or not the
    /// receiver sleeps. Provided on purpose, as the baseline that shows what a wake-up per
    /// message costs (a common accident in hand-written channels); never the right choice
    /// otherwise.
    #[cfg(feature = "block")]
    Every,
}

impl Wake {
    /// A backoff for a wait under this policy: `Spin` never sleeps, the others end up asleep.
    #[inline]
    pub(crate) fn backoff(self) -> Backoff {
        Backoff::new(match self {
            Wake::Spin => Wait::Spin,
            #[cfg(feature = "block")]
            Wake::Edge | Wake::Every => Wait::Block,
        })
    }

    /// Called by a sender after publishing a message: wakes the receiver as the policy says.
    #[inline(always)]
    #[cfg_attr(not(feature = "block"), allow(unused_variables))]
    pub(crate) fn after_send(self, receiver: &Waiter) {
        match self {
            Wake::Spin => {}
            #[cfg(feature = "block")]
            Wake::Edge => receiver.notify(),
            #[cfg(feature = "block")]
            Wake::Every => receiver.notify_always(),
        }
    }

    /// Whether anyone may sleep under this policy (and so must be notified).
    #[inline(always)]
    pub(crate) fn sleeps(self) -> bool {
        self != Wake::Spin
    }
}
