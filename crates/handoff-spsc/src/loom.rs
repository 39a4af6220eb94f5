//! The loom seam.
//!
//! Everything in this crate that synchronizes goes through this module: atomics, `Arc`, the
//! slots' `UnsafeCell`, spinning, yielding and the futex behind [`Wait::Block`]. In a normal build
//! these are the standard library's types (and the `atomic-wait` futex); built with
//! `RUSTFLAGS="--cfg loom"` they are [loom]'s, so the model tests in `tests/loom.rs` run the very
//! same ring and wake protocol under loom's exhaustive scheduler.
//!
//! The `UnsafeCell` wrapper mirrors loom's closure-based API (`with_mut`), so that loom
//! can check every access to a slot for data races; in a normal build it compiles to plain
//! pointer accesses.
//!
//! [`Wait::Block`]: crate::Wait::Block
//! [loom]: https://docs.rs/loom

#[cfg(not(loom))]
pub(crate) mod sync {
    pub(crate) use std::sync::Arc;

    pub(crate) mod atomic {
        pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
    }
}

#[cfg(loom)]
pub(crate) mod sync {
    pub(crate) use loom::sync::Arc;

    pub(crate) mod atomic {
        pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
    }
}

#[cfg(not(loom))]
pub(crate) mod cell {
    /// `core::cell::UnsafeCell` with loom's closure-based access API.
    #[derive(Debug)]
    #[repr(transparent)]
    pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        #[inline(always)]
        pub(crate) const fn new(value: T) -> Self {
            UnsafeCell(core::cell::UnsafeCell::new(value))
        }

        /// Calls `f` with an exclusive raw pointer to the contents.
        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

#[cfg(loom)]
pub(crate) mod cell {
    pub(crate) use loom::cell::UnsafeCell;
}

/// Spinning and yielding. Under loom a spin is a yield, so that the model checker can schedule
/// the thread that the spinner waits for.
pub(crate) mod thread {
    #[cfg(not(loom))]
    pub(crate) use std::hint::spin_loop;
    #[cfg(not(loom))]
    pub(crate) use std::thread::yield_now;

    #[cfg(loom)]
    pub(crate) use loom::thread::yield_now;

    #[cfg(loom)]
    pub(crate) fn spin_loop() {
        loom::thread::yield_now();
    }
}

/// A 32-bit atomic a thread can sleep on until another thread changes it and wakes it.
#[cfg(not(loom))]
pub(crate) mod futex {
    use std::sync::atomic::AtomicU32;

    /// An `AtomicU32` with futex wait and wake (Linux futex, macOS `__ulock`, Windows
    /// `WaitOnAddress`, through the `atomic-wait` crate).
    #[derive(Debug)]
    pub(crate) struct Futex(AtomicU32);

    impl Futex {
        pub(crate) const fn new(value: u32) -> Self {
            Futex(AtomicU32::new(value))
        }

        /// The atomic itself.
        #[inline(always)]
        pub(crate) fn atomic(&self) -> &AtomicU32 {
            &self.0
        }

        /// Sleeps if the value is still `expected`, until a wake (or spuriously).
        #[inline]
        pub(crate) fn wait(&self, expected: u32) {
            atomic_wait::wait(&self.0, expected);
        }

        /// Wakes one thread sleeping in [`Futex::wait`], if any.
        #[inline]
        pub(crate) fn wake_one(&self) {
            atomic_wait::wake_one(&self.0);
        }
    }
}

/// Loom has no futex; this one is built from loom's mutex and condvar. The waker changes the
/// value first and then takes the mutex to notify, and the sleeper checks the value while holding
/// the mutex, so a wake can never slip in between the check and the sleep, which is the one
/// property of a futex the wake protocol relies on.
#[cfg(loom)]
pub(crate) mod futex {
    use loom::sync::atomic::{AtomicU32, Ordering};
    use loom::sync::{Condvar, Mutex};

    #[derive(Debug)]
    pub(crate) struct Futex {
        value: AtomicU32,
        lock: Mutex<()>,
        cond: Condvar,
    }

    impl Futex {
        pub(crate) fn new(value: u32) -> Self {
            Futex {
                value: AtomicU32::new(value),
                lock: Mutex::new(()),
                cond: Condvar::new(),
            }
        }

        pub(crate) fn atomic(&self) -> &AtomicU32 {
            &self.value
        }

        pub(crate) fn wait(&self, expected: u32) {
            let guard = self.lock.lock().unwrap();
            if self.value.load(Ordering::SeqCst) == expected {
                drop(self.cond.wait(guard).unwrap());
            }
        }

        pub(crate) fn wake_one(&self) {
            let _guard = self.lock.lock().unwrap();
            self.cond.notify_one();
        }
    }
}
