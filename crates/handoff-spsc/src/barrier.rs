//! Asymmetric fences: a free fence for the hot path, a costly one for the side about to sleep.
//!
//! The wake protocol of [`Waiter`](crate::Waiter) is a Dekker-style handshake: the waker stores
//! (publishes), then loads the sleep flag; the sleeper stores the sleep flag, then loads what
//! the waker publishes. Each side needs a store→load barrier between its two accesses, and with
//! ordinary fences that is a full fence (a locked instruction on x86, tens of cycles) on *every*
//! push or pop of a ring whose other side may sleep, although sleeping is rare.
//!
//! The two sides are far from symmetric: the waker runs once per message, the sleeper once per
//! sleep, after it has already spun and yielded. So the pair is split unevenly:
//!
//! * [`light`], on the waker's hot path, only stops the compiler from reordering;
//! * [`heavy`], on the sleeper's slow path, asks the kernel to run a full memory barrier on every
//!   CPU currently running a thread of this process (Linux `membarrier(2)`,
//!   `MEMBARRIER_CMD_PRIVATE_EXPEDITED`). A thread that is not running at that moment has passed
//!   through a barrier anyway when it was switched out.
//!
//! Paired this way, a `light` and a `heavy` order memory as two `fence(SeqCst)` would: whichever
//! side's barrier comes later sees what the other side stored before its own. This is the same
//! construction as folly's `asymmetricLightBarrier` / `asymmetricHeavyBarrier` and the barrier
//! pair of C++ proposal P1202.
//!
//! # When the process registers, and what if the kernel refuses
//!
//! The expedited command needs a one-time registration of the process, a process-wide side
//! effect that rings which never sleep ([`Wait::Spin`](crate::Wait::Spin) and
//! [`SpinThenYield`](crate::Wait::SpinThenYield), the sharded MPSC's shard rings) must not have.
//! So nothing registers until a waiter first goes to sleep. One process-wide state decides which
//! pair of fences everybody uses; it only ever moves along these edges:
//!
//! ```text
//!   UNREGISTERED --(first sleep: registration accepted)--> ASYMMETRIC --(barrier refused)--> DEGRADED
//!        |
//!        +-------(first sleep: registration refused, old kernel, other system)--> SYMMETRIC
//! ```
//!
//! * [`light`] reads the state (relaxed: it needs no ordering of its own) and is a compiler
//!   fence only in `ASYMMETRIC`, a `fence(SeqCst)` in every other state.
//! * [`heavy`] registers first if nobody has (once per process, under a `OnceLock`), then issues
//!   `membarrier` in `ASYMMETRIC` and a `fence(SeqCst)` otherwise.
//!
//! Why both sides always agree: a waker's light barrier is a mere compiler fence only if it read
//! `ASYMMETRIC`, and the state never returns to `UNREGISTERED` or reaches `SYMMETRIC` from
//! there, so a sleeper's heavy barrier, which runs after the sleeper's own look at the state (or
//! its own registration), then finds `ASYMMETRIC` (and issues `membarrier`) or `DEGRADED`. A
//! waker that read anything else issued a full fence, which pairs with either heavy barrier.
//!
//! `DEGRADED` replaces the abort of a kernel that refuses a barrier after it accepted the
//! registration (a seccomp filter installed later, say). Wakers that read `ASYMMETRIC` before
//! may still be relying on a barrier that did not happen, so the sleeper cannot safely block
//! for them: [`heavy`] returns false, and from then on no waiter of the process blocks; it
//! yields between looks instead (a `Wait::Block` ring keeps working, as a yielding one).
//!
//! Under loom the state is always `SYMMETRIC`: loom has no model of a barrier executed on
//! another thread's behalf (a `membarrier`), so the model tests check the protocol with the
//! symmetric pair; the asymmetric pair is argued above and in [`Waiter`](crate::Waiter).
//!
//! Cost on the machine of `BENCHMARKS.md`: `heavy` takes about 11 µs when another thread of the
//! process is running (the kernel interrupts its CPU), about 0.3 µs when none is; `light` is
//! free (see BENCHMARKS.md §3).

use crate::loom::sync::atomic::{fence, Ordering};
// Not a synchronizing operation, so loom has no model of it; under loom the state is always
// `SYMMETRIC` and this is never reached.
use std::sync::atomic::compiler_fence;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize};
use std::sync::OnceLock;

/// Nobody has slept yet: nobody registered.
const UNREGISTERED: u8 = 0;
/// Registered: `light` is a compiler fence, `heavy` a `membarrier`.
const ASYMMETRIC: u8 = 1;
/// Registration refused or unavailable: both are `fence(SeqCst)`.
const SYMMETRIC: u8 = 2;
/// A barrier was refused after registration: nobody blocks any more.
const DEGRADED: u8 = 3;

/// The process-wide state (see the module docs). Always `SYMMETRIC` under loom.
static STATE: AtomicU8 = AtomicU8::new(if cfg!(handoff_loom) {
    SYMMETRIC
} else {
    UNREGISTERED
});
/// How many times this process asked the kernel to register it (0 or 1), for tests.
static REGISTRATIONS: AtomicUsize = AtomicUsize::new(0);
/// Set by tests: the next registration is refused, as by an old kernel.
static REFUSE: AtomicBool = AtomicBool::new(false);

/// The waker's half: between its publication and its load of the sleep flag.
#[inline(always)]
pub(crate) fn light() {
    if STATE.load(Ordering::Relaxed) == ASYMMETRIC {
        compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
}

/// The sleeper's half: between its announcement of the sleep and its re-check. Registers the
/// process the first time. Returns whether the caller may block after its re-check (false once
/// the state is `DEGRADED`: then it must yield and look again instead).
#[cold]
pub(crate) fn heavy() -> bool {
    let mut state = STATE.load(Ordering::Acquire);
    if state == UNREGISTERED {
        state = register();
    }
    match state {
        ASYMMETRIC => {
            // The caller's own accesses are ordered by ordinary fences around the call; the
            // system call orders everybody else's.
            fence(Ordering::SeqCst);
            let done = membarrier::private_expedited();
            if !done {
                STATE.store(DEGRADED, Ordering::Release);
            }
            fence(Ordering::SeqCst);
            done
        }
        SYMMETRIC => {
            fence(Ordering::SeqCst);
            true
        }
        _ => {
            fence(Ordering::SeqCst);
            false
        }
    }
}

/// Registers the process for expedited barriers, once; returns the state that results.
#[cold]
fn register() -> u8 {
    static DONE: OnceLock<u8> = OnceLock::new();
    *DONE.get_or_init(|| {
        REGISTRATIONS.fetch_add(1, Ordering::Relaxed);
        let state = if !REFUSE.load(Ordering::Relaxed) && membarrier::register() {
            ASYMMETRIC
        } else {
            SYMMETRIC
        };
        STATE.store(state, Ordering::Release);
        state
    })
}

/// Whether wakers use the free light barrier now.
pub(crate) fn is_asymmetric() -> bool {
    STATE.load(Ordering::Relaxed) == ASYMMETRIC
}

/// Hooks for the crate's tests; not part of the API.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// The process-wide barrier state: `"unregistered"`, `"asymmetric"`, `"symmetric"` or
    /// `"degraded"`.
    pub fn state() -> &'static str {
        match STATE.load(Ordering::Acquire) {
            UNREGISTERED => "unregistered",
            ASYMMETRIC => "asymmetric",
            SYMMETRIC => "symmetric",
            _ => "degraded",
        }
    }

    /// How many times the process asked to register (0 or 1).
    pub fn registrations() -> usize {
        REGISTRATIONS.load(Ordering::Relaxed)
    }

    /// Makes the registration refused, as by a kernel without expedited barriers (only before
    /// the first sleep of the process).
    pub fn refuse_registration() {
        REFUSE.store(true, Ordering::Relaxed);
    }
}

#[cfg(all(target_os = "linux", not(handoff_loom), not(miri)))]
mod membarrier {
    // Commands of membarrier(2), from the kernel's uapi header `linux/membarrier.h`.
    const CMD_QUERY: libc::c_int = 0;
    const CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    fn call(cmd: libc::c_int) -> libc::c_long {
        // SAFETY: membarrier(cmd, flags = 0, cpu_id = 0) takes no pointers and touches no memory
        // of ours; an unsupported command or a kernel without the call returns -1.
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                cmd,
                0 as libc::c_int,
                0 as libc::c_int,
            )
        }
    }

    /// Registers the process for expedited private barriers; false if the kernel cannot.
    pub(super) fn register() -> bool {
        let supported = call(CMD_QUERY);
        let needed = (CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED) as libc::c_long;
        supported >= 0 && supported & needed == needed && call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
    }

    /// A full memory barrier on every CPU running a thread of this process; false if the kernel
    /// refuses it.
    pub(super) fn private_expedited() -> bool {
        if call(CMD_PRIVATE_EXPEDITED) == 0 {
            return true;
        }
        // Registration belongs to the address space, and a child forked (without exec) after it
        // may not inherit it (EPERM). Register this process and try once more.
        call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0 && call(CMD_PRIVATE_EXPEDITED) == 0
    }
}

#[cfg(not(all(target_os = "linux", not(handoff_loom), not(miri))))]
mod membarrier {
    pub(super) fn register() -> bool {
        false
    }

    pub(super) fn private_expedited() -> bool {
        false
    }
}
