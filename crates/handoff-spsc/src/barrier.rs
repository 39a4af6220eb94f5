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
//! The expedited command needs a one-time registration of the process. [`Mode::detect`] does it
//! (once per process) when a waiter is created; where it is unavailable (other systems, older
//! kernels, seccomp filters, Miri, loom) the mode is [`Mode::Symmetric`] and both sides issue a
//! plain `fence(SeqCst)`. A waiter fixes its mode at creation, so its two sides always agree.
//!
//! Cost on the machine of `BENCHMARKS.md`: `heavy` takes about 11 µs when another thread of the
//! process is running (the kernel interrupts its CPU), about 0.3 µs when none is; `light` is free.

use crate::loom::sync::atomic::{fence, Ordering};
// Not a synchronizing operation, so loom has no model of it; under loom the mode is always
// `Symmetric` and this is never reached.
use std::sync::atomic::compiler_fence;

/// Which pair of fences a [`Waiter`](crate::Waiter) uses. Fixed when the waiter is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `light` is a compiler fence, `heavy` a process-wide barrier (`membarrier`).
    Asymmetric,
    /// Both are `fence(SeqCst)`.
    Symmetric,
}

impl Mode {
    /// The best mode this process supports; registers the process for expedited barriers the
    /// first time it is called.
    pub(crate) fn detect() -> Mode {
        if membarrier::available() {
            Mode::Asymmetric
        } else {
            Mode::Symmetric
        }
    }

    /// The waker's half: between its publication and its load of the sleep flag.
    #[inline(always)]
    pub(crate) fn light(self) {
        match self {
            Mode::Asymmetric => compiler_fence(Ordering::SeqCst),
            Mode::Symmetric => fence(Ordering::SeqCst),
        }
    }

    /// The sleeper's half: between its announcement of the sleep and its re-check.
    #[cold]
    pub(crate) fn heavy(self) {
        match self {
            Mode::Asymmetric => {
                // The caller's own accesses are ordered by ordinary fences around the call; the
                // system call orders everybody else's.
                fence(Ordering::SeqCst);
                membarrier::private_expedited();
                fence(Ordering::SeqCst);
            }
            Mode::Symmetric => fence(Ordering::SeqCst),
        }
    }
}

#[cfg(all(target_os = "linux", not(handoff_loom), not(miri)))]
mod membarrier {
    use std::sync::OnceLock;

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

    /// Whether expedited private barriers work in this process (registered on the first call).
    pub(super) fn available() -> bool {
        static REGISTERED: OnceLock<bool> = OnceLock::new();
        *REGISTERED.get_or_init(|| {
            let supported = call(CMD_QUERY);
            let needed = (CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED) as libc::c_long;
            supported >= 0
                && supported & needed == needed
                && call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
        })
    }

    /// A full memory barrier on every CPU running a thread of this process.
    pub(super) fn private_expedited() {
        if call(CMD_PRIVATE_EXPEDITED) == 0 {
            return;
        }
        // Registration belongs to the address space, and a child forked (without exec) after it
        // may not inherit it (EPERM). Register this process and try once more.
        if call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0 && call(CMD_PRIVATE_EXPEDITED) == 0 {
            return;
        }
        // The kernel refuses a barrier it accepted before: the wake protocol would be unsound
        // without it, so stopping is the only safe answer.
        let error = std::io::Error::last_os_error();
        eprintln!("handoff-spsc: membarrier failed after registration: {error}");
        std::process::abort();
    }
}

#[cfg(not(all(target_os = "linux", not(handoff_loom), not(miri))))]
mod membarrier {
    pub(super) fn available() -> bool {
        false
    }

    pub(super) fn private_expedited() {
        unreachable!("membarrier is never chosen where it is unavailable")
    }
}
