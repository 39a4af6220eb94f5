//! The synchronization seam of `handoff-spsc`, `handoff-mpsc` and `handoff-shm`; internal, no
//! stable API.
//!
//! Everything those crates do to synchronize goes through this crate: atomics, `Arc`, `Mutex`,
//! the slots' `UnsafeCell`, spinning, yielding and the futex behind their blocking waits. In a
//! normal build these are the standard library's types (and the `atomic-wait` futex); built with
//! `RUSTFLAGS="--cfg handoff_loom"` they are [loom]'s, so that the crates' model tests
//! (`tests/it/loom.rs`) run the very code that ships under loom's exhaustive scheduler.
//!
//! The flag is `handoff_loom`, not `loom`: a crate that depends on these ones and runs its own
//! loom tests with `--cfg loom` gets them in their normal form, not switched to loom under it.
//!
//! Why a crate of its own: both crates need the same seam, and a source file shared by
//! `#[path]` from outside a crate's directory is not packaged by `cargo publish`. A tiny crate,
//! published alongside them, is the one copy both can depend on.
//!
//! The `UnsafeCell` wrapper mirrors loom's closure-based API (`with_mut`), so that loom can check
//! every access to a slot for data races; in a normal build it compiles to plain pointer
//! accesses.
//!
//! [loom]: https://docs.rs/loom

#![warn(unsafe_op_in_unsafe_fn)]

/// Atomics, `Arc` and `Mutex`.
#[cfg(not(handoff_loom))]
pub mod sync {
    pub use std::sync::{Arc, Mutex, MutexGuard};

    /// Atomics and fences.
    pub mod atomic {
        pub use std::sync::atomic::{
            fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }
}

/// Atomics, `Arc` and `Mutex`.
#[cfg(handoff_loom)]
pub mod sync {
    pub use loom::sync::{Arc, Mutex, MutexGuard};

    /// Atomics and fences.
    pub mod atomic {
        pub use loom::sync::atomic::{
            fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }
}

/// Runs the model `f` under loom over every interleaving up to `LOOM_MAX_PREEMPTIONS`
/// preemptions if set, else up to `bound` (what keeps a crate's models to seconds): the one
/// entry point of the crates' model tests.
#[cfg(handoff_loom)]
pub fn model(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(bound);
    }
    builder.check(f);
}

/// Whether this build is the model checker's (`--cfg handoff_loom`).
pub const LOOM: bool = cfg!(handoff_loom);

/// Locks `mutex`, ignoring poisoning: the data behind the channels' locks stays consistent
/// whatever panicked while holding them (a `Vec` push or drain).
pub fn lock<T>(mutex: &sync::Mutex<T>) -> sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `UnsafeCell` with loom's closure-based access API.
#[cfg(not(handoff_loom))]
pub mod cell {
    /// `core::cell::UnsafeCell` with loom's closure-based access API.
    #[derive(Debug)]
    #[repr(transparent)]
    pub struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        /// A cell holding `value`.
        #[inline(always)]
        pub const fn new(value: T) -> Self {
            UnsafeCell(core::cell::UnsafeCell::new(value))
        }

        /// Calls `f` with an exclusive raw pointer to the contents.
        #[inline(always)]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

/// `UnsafeCell` with loom's closure-based access API.
#[cfg(handoff_loom)]
pub mod cell {
    pub use loom::cell::UnsafeCell;
}

/// Spinning and yielding. Under loom a spin is a yield, so that the model checker can schedule
/// the thread that the spinner waits for.
pub mod thread {
    #[cfg(not(handoff_loom))]
    pub use std::hint::spin_loop;
    #[cfg(not(handoff_loom))]
    pub use std::thread::yield_now;

    #[cfg(handoff_loom)]
    pub use loom::thread::yield_now;

    /// A spin under loom: a yield.
    #[cfg(handoff_loom)]
    pub fn spin_loop() {
        loom::thread::yield_now();
    }
}

/// A 32-bit atomic a thread can sleep on until another thread changes it and wakes it.
#[cfg(all(not(handoff_loom), feature = "futex"))]
pub mod futex {
    use std::sync::atomic::AtomicU32;

    /// An `AtomicU32` with futex wait and wake (Linux futex, macOS `__ulock`, Windows
    /// `WaitOnAddress`, through the `atomic-wait` crate).
    #[derive(Debug)]
    pub struct Futex(AtomicU32);

    impl Futex {
        pub const fn new(value: u32) -> Self {
            Futex(AtomicU32::new(value))
        }

        /// The atomic itself.
        #[inline(always)]
        pub fn atomic(&self) -> &AtomicU32 {
            &self.0
        }

        /// Sleeps if the value is still `expected`, until a wake (or spuriously).
        #[inline]
        pub fn wait(&self, expected: u32) {
            atomic_wait::wait(&self.0, expected);
        }

        /// Wakes one thread sleeping in [`Futex::wait`], if any.
        #[inline]
        pub fn wake_one(&self) {
            atomic_wait::wake_one(&self.0);
        }
    }
}

/// Loom has no futex; this one is built from loom's mutex and condvar. The waker changes the
/// value first and then takes the mutex to notify, and the sleeper checks the value while holding
/// the mutex, so a wake can never slip in between the check and the sleep, which is the one
/// property of a futex the wake protocol relies on.
#[cfg(handoff_loom)]
pub mod futex {
    use loom::sync::atomic::{AtomicU32, Ordering};
    use loom::sync::{Condvar, Mutex};

    #[derive(Debug)]
    pub struct Futex {
        value: AtomicU32,
        lock: Mutex<()>,
        cond: Condvar,
    }

    impl Futex {
        pub fn new(value: u32) -> Self {
            Futex {
                value: AtomicU32::new(value),
                lock: Mutex::new(()),
                cond: Condvar::new(),
            }
        }

        pub fn atomic(&self) -> &AtomicU32 {
            &self.value
        }

        pub fn wait(&self, expected: u32) {
            let guard = self.lock.lock().unwrap();
            if self.value.load(Ordering::SeqCst) == expected {
                drop(self.cond.wait(guard).unwrap());
            }
        }

        pub fn wake_one(&self) {
            let _guard = self.lock.lock().unwrap();
            self.cond.notify_one();
        }
    }
}
