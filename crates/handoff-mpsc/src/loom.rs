//! The loom seam (see `handoff-spsc`'s for the idea): the standard library's types in a normal
//! build, [loom]'s under `RUSTFLAGS="--cfg loom"`, so that `tests/loom.rs` model-checks the
//! very code that ships. The rings and the [`Waiter`](handoff_spsc::Waiter) come from
//! `handoff-spsc`, which switches to loom under the same flag.
//!
//! [loom]: https://docs.rs/loom

#[cfg(not(loom))]
pub(crate) mod sync {
    pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

    pub(crate) mod atomic {
        pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
    }
}

#[cfg(loom)]
pub(crate) mod sync {
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

    pub(crate) mod atomic {
        pub(crate) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
    }
}

/// Locks `mutex`, ignoring poisoning: the data behind the channel's locks stays consistent
/// whatever panicked while holding them (a `Vec` push or drain).
pub(crate) fn lock<T>(mutex: &sync::Mutex<T>) -> sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
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
