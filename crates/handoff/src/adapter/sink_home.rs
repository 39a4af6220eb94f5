//! Handing a callback transport's sink back to the harness.
//!
//! A callback transport moves the harness's [`Sink`](crate::transport::Sink) to wherever its
//! consumer code runs (a processor thread's closure, a producer's handle). When that place is
//! dropped, a [`SinkGuard`] moves the sink into a shared [`SinkHome`], from which
//! [`CallbackHandle::finish`](crate::transport::CallbackHandle::finish) takes it. A guard dropped
//! while its thread is panicking (the sink itself may have panicked half-way through a message)
//! records the sink as lost instead, and `finish` returns `None`.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

enum Slot<S> {
    /// The sink is still in use.
    Out,
    /// The sink is back, waiting to be taken.
    Back(S),
    /// The sink's user panicked; it will not come back.
    Lost,
    /// `take` has already returned it.
    Taken,
}

/// Where a sink waits to be taken back by `finish`.
pub struct SinkHome<S> {
    slot: Mutex<Slot<S>>,
    returned: Condvar,
    lost: AtomicBool,
}

impl<S> SinkHome<S> {
    /// A home whose sink is out (in use).
    pub fn new() -> Arc<SinkHome<S>> {
        Arc::new(SinkHome {
            slot: Mutex::new(Slot::Out),
            returned: Condvar::new(),
            lost: AtomicBool::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Slot<S>> {
        // Nothing panics while the lock is held; if something did, the slot is still consistent.
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn settle(&self, slot: Slot<S>) {
        *self.lock() = slot;
        self.returned.notify_all();
    }

    /// Whether the sink was lost: its consumer died and will never run again.
    #[inline]
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Takes the sink if it is back; `None` if it was lost or already taken. Waits while the sink
    /// is still out.
    pub fn wait_take(&self) -> Option<S> {
        let mut slot = self.lock();
        while matches!(*slot, Slot::Out) {
            slot = self
                .returned
                .wait(slot)
                .unwrap_or_else(PoisonError::into_inner);
        }
        match std::mem::replace(&mut *slot, Slot::Taken) {
            Slot::Back(sink) => Some(sink),
            Slot::Lost => {
                *slot = Slot::Lost;
                None
            }
            Slot::Taken | Slot::Out => None,
        }
    }
}

/// Owns a sink while a callback transport uses it; sends it home when dropped.
pub struct SinkGuard<S> {
    sink: ManuallyDrop<S>,
    home: Arc<SinkHome<S>>,
}

impl<S> SinkGuard<S> {
    /// Guards `sink`, which goes back to `home` when the guard is dropped.
    pub fn new(sink: S, home: Arc<SinkHome<S>>) -> SinkGuard<S> {
        SinkGuard {
            sink: ManuallyDrop::new(sink),
            home,
        }
    }
}

impl<S> Deref for SinkGuard<S> {
    type Target = S;

    #[inline]
    fn deref(&self) -> &S {
        &self.sink
    }
}

impl<S> DerefMut for SinkGuard<S> {
    #[inline]
    fn deref_mut(&mut self) -> &mut S {
        &mut self.sink
    }
}

impl<S> Drop for SinkGuard<S> {
    fn drop(&mut self) {
        // SAFETY: `drop` runs once, and the field is not used after this line.
        let sink = unsafe { ManuallyDrop::take(&mut self.sink) };
        if std::thread::panicking() {
            self.home.lost.store(true, Ordering::Release);
            self.home.settle(Slot::Lost);
            drop(sink);
        } else {
            self.home.settle(Slot::Back(sink));
        }
    }
}
