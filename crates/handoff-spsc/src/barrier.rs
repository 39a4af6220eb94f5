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
//! So nothing registers until a waiter first goes to sleep. But a ring whose other side *may*
//! sleep must not pay a full fence per message while nobody has slept yet either (a busy
//! `Wait::Block` ring may never sleep at all: measured, that was 0.23× the spinning ring's rate,
//! `examples/block_cost.rs`). So the first [`light`] of the process asks the kernel, with the
//! side-effect-free `MEMBARRIER_CMD_QUERY`, whether expedited barriers are available, and from
//! then on wakers use the free barrier although the registration is still to come: the sleeper
//! registers before its first barrier, and a barrier after registration reaches every thread of
//! the process, whatever those threads read before. One process-wide state decides which pair of
//! fences everybody uses; it only ever moves along these edges:
//!
//! ```text
//!   UNKNOWN --(first light or heavy: query says yes)--> AVAILABLE --(first sleep: registered)--> ASYMMETRIC
//!      |                                                    |                                      |
//!      |                                                    +--(registration refused)--> DEGRADED <-+--(barrier refused)
//!      +--(query says no: old kernel, not Linux)--> SYMMETRIC
//! ```
//!
//! * [`light`] reads the state (relaxed: it needs no ordering of its own) and is a compiler
//!   fence only in `AVAILABLE` and `ASYMMETRIC`, a `fence(SeqCst)` in `SYMMETRIC` and
//!   `DEGRADED`; in `UNKNOWN` it has the question answered first (once per process, under a
//!   `OnceLock`, a cold path).
//! * [`heavy`] has the question answered if nobody has, registers if nobody has (once per
//!   process, under a `OnceLock`), then issues `membarrier` in `ASYMMETRIC` and a
//!   `fence(SeqCst)` otherwise.
//!
//! Why both sides always agree. The query's answer is decided once, so no thread ever sees
//! `SYMMETRIC` if any thread saw `AVAILABLE`, and the reverse. A waker's light barrier is a mere
//! compiler fence only if it read `AVAILABLE` or `ASYMMETRIC`; a sleeper's heavy barrier, which
//! runs after its own look at the state, then finds `AVAILABLE` (and registers, then issues
//! `membarrier`), `ASYMMETRIC` (and issues `membarrier`) or `DEGRADED` (and does not block). A
//! waker that read anything else issued a full fence, which pairs with either heavy barrier.
//!
//! `DEGRADED` replaces the abort of a kernel that refuses the registration or a barrier after
//! the query said yes (a seccomp filter installed later, say). Wakers that read `AVAILABLE` or
//! `ASYMMETRIC` may be relying on a barrier that did not happen, so the sleeper cannot safely
//! block for them: [`heavy`] returns false, and from then on no waiter of the process blocks; it
//! yields between looks instead (a `Wait::Block` ring keeps working, as a yielding one).
//!
//! Under loom the state is always `SYMMETRIC`: loom has no model of a barrier executed on
//! another thread's behalf (a `membarrier`), so the model tests check the protocol with the
//! symmetric pair; the asymmetric pair is argued above and in [`Waiter`](crate::Waiter), and
//! `tests/it/barrier/switch.rs` runs sleeps and wake-ups across the switch on real hardware.
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

/// Set in the states where wakers use the free (compiler-only) barrier.
const FREE: u8 = 0x80;
/// Nobody has asked the kernel yet.
const UNKNOWN: u8 = 0;
/// Expedited barriers are available, nobody registered yet: `light` is a compiler fence, the
/// first `heavy` registers.
const AVAILABLE: u8 = FREE | 1;
/// Registered: `light` is a compiler fence, `heavy` a `membarrier`.
const ASYMMETRIC: u8 = FREE | 2;
/// Expedited barriers unavailable: both are `fence(SeqCst)`.
const SYMMETRIC: u8 = 3;
/// The registration or a barrier was refused after the query said yes: nobody blocks any more.
const DEGRADED: u8 = 4;

/// The process-wide state (see the module docs). Always `SYMMETRIC` under loom.
static STATE: AtomicU8 = AtomicU8::new(if cfg!(handoff_loom) {
    SYMMETRIC
} else {
    UNKNOWN
});
/// How many times this process asked the kernel to register it (0 or 1), for tests.
static REGISTRATIONS: AtomicUsize = AtomicUsize::new(0);
/// Set by tests: the kernel is taken to have no expedited barriers, as an old kernel.
static REFUSE: AtomicBool = AtomicBool::new(false);
/// Set by tests: the kernel offers expedited barriers but refuses to register the process.
static REFUSE_REGISTER: AtomicBool = AtomicBool::new(false);

/// The waker's half: between its publication and its load of the sleep flag.
#[inline(always)]
pub(crate) fn light() {
    let state = STATE.load(Ordering::Relaxed);
    if state & FREE != 0 {
        compiler_fence(Ordering::SeqCst);
    } else {
        light_slow(state);
    }
}

/// [`light`] outside the free states: the question answered first if nobody has, then the
/// barrier the answer calls for. It cannot unwind, for the reason given at `Waiter::wake` (an
/// `extern "C"` function aborts on a panic; nothing here panics), except under loom, whose
/// failed checks unwind.
#[cold]
#[inline(never)]
#[cfg(not(handoff_loom))]
extern "C" fn light_slow(state: u8) {
    light_slow_now(state);
}

/// Under loom, an ordinary function (see above).
#[cold]
#[inline(never)]
#[cfg(handoff_loom)]
fn light_slow(state: u8) {
    light_slow_now(state);
}

#[inline(always)]
fn light_slow_now(mut state: u8) {
    if state == UNKNOWN {
        state = decide();
    }
    if state & FREE != 0 {
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
    if state == UNKNOWN {
        state = decide();
    }
    if state == AVAILABLE {
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

/// Asks the kernel, once, whether expedited barriers are available (no side effect); returns
/// the state that results (`AVAILABLE` or `SYMMETRIC`, or a later one if the process has moved
/// on since).
#[cold]
fn decide() -> u8 {
    static ASKED: OnceLock<()> = OnceLock::new();
    ASKED.get_or_init(|| {
        let state = if !REFUSE.load(Ordering::Relaxed) && membarrier::available() {
            AVAILABLE
        } else {
            SYMMETRIC
        };
        // Only from UNKNOWN: every later state moves on from the answer.
        let _ = STATE.compare_exchange(UNKNOWN, state, Ordering::AcqRel, Ordering::Acquire);
    });
    STATE.load(Ordering::Acquire)
}

/// Registers the process for expedited barriers, once; returns the state that results
/// (`ASYMMETRIC`, or `DEGRADED` if the kernel refused).
#[cold]
fn register() -> u8 {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        REGISTRATIONS.fetch_add(1, Ordering::Relaxed);
        let state = if !REFUSE_REGISTER.load(Ordering::Relaxed) && membarrier::register() {
            ASYMMETRIC
        } else {
            DEGRADED
        };
        let _ = STATE.compare_exchange(AVAILABLE, state, Ordering::AcqRel, Ordering::Acquire);
    });
    STATE.load(Ordering::Acquire)
}

/// Whether wakers use the free light barrier now.
pub(crate) fn is_asymmetric() -> bool {
    STATE.load(Ordering::Relaxed) & FREE != 0
}

/// Hooks for the crate's tests; not part of the API.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// The process-wide barrier state: `"unknown"`, `"available"`, `"asymmetric"`,
    /// `"symmetric"` or `"degraded"`.
    pub fn state() -> &'static str {
        match STATE.load(Ordering::Acquire) {
            UNKNOWN => "unknown",
            AVAILABLE => "available",
            ASYMMETRIC => "asymmetric",
            SYMMETRIC => "symmetric",
            _ => "degraded",
        }
    }

    /// How many times the process asked to register (0 or 1).
    pub fn registrations() -> usize {
        REGISTRATIONS.load(Ordering::Relaxed)
    }

    /// Makes the kernel look as if it had no expedited barriers, as an old kernel (only before
    /// the process first asks, i.e. before any ring whose side may sleep has moved a message).
    pub fn refuse_registration() {
        REFUSE.store(true, Ordering::Relaxed);
    }

    /// Makes the kernel answer the query with yes and then refuse the registration (a seccomp
    /// filter that allows one command and not the other, say; only before the first sleep).
    pub fn refuse_registration_after_query() {
        REFUSE_REGISTER.store(true, Ordering::Relaxed);
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

    /// Whether the kernel offers expedited private barriers. A query: no side effect.
    pub(super) fn available() -> bool {
        let supported = call(CMD_QUERY);
        let needed = (CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED) as libc::c_long;
        supported >= 0 && supported & needed == needed
    }

    /// Registers the process for expedited private barriers; false if the kernel refuses.
    pub(super) fn register() -> bool {
        call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
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
    pub(super) fn available() -> bool {
        false
    }

    pub(super) fn register() -> bool {
        false
    }

    pub(super) fn private_expedited() -> bool {
        false
    }
}
