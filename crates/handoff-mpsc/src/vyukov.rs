//! Dmitry Vyukov's node-based multi-producer single-consumer queue, as an unbounded channel.
//!
//! # Algorithm
//!
//! Dmitry Vyukov, "Non-intrusive MPSC node-based queue"
//! (<https://www.1024cores.net/home/lock-free-algorithms/queues/non-intrusive-mpsc-node-based-queue>);
//! the same algorithm backed the standard library's `mpsc` channels before 1.67.
//!
//! The queue is a singly linked list of nodes, one per message, plus one node whose message has
//! already been taken (initially a *stub* with none):
//!
//! ```text
//!   tail (consumer)                               head (producers)
//!      |                                             |
//!   [taken] --next--> [msg 1] --next--> [msg 2] --next--> [msg 3] --next--> null
//! ```
//!
//! * **Push** (any producer): allocate a node with `next = null`, swap it into `head`
//!   (`AcqRel`), then link the previous head to it: `prev.next.store(node, Release)`. Two atomic
//!   operations and no loop: a push is wait-free.
//! * **Pop** (the consumer): read `tail.next` (`Acquire`). If it is a node, its message is the
//!   oldest: move it out, make that node the new `tail` (it now holds a taken message) and free
//!   the old tail. Only the consumer ever frees nodes, and a node is freed only once its
//!   successor is linked, after which no producer touches it again.
//!
//! # The inconsistent state
//!
//! Between a producer's swap and its link, `head` already points to the new node but the list
//! is cut before it: `tail.next` may be null although `head != tail`. The queue is then neither
//! empty nor ready: the message (and every message pushed after it, even if linked) is not
//! reachable until the producer stores the link, a few instructions later unless the producer
//! is preempted right there. The consumer tells this state from an empty queue by comparing
//! `head` with `tail`, and handles it as follows:
//!
//! * [`Receiver::try_recv`] reports [`TryPopError::Empty`]: the message is not received yet;
//! * [`Receiver::recv`] waits as for an empty queue: spinning, yielding (so that a preempted
//!   producer gets the core back to finish its link), and under [`Wake::Edge`] or
//!   [`Wake::Every`] sleeping, since the producer notifies the receiver after it links.
//!
//! A sender's pushes are complete before it is counted out, so the queue is never inconsistent
//! once every sender is gone, and end-of-stream detection never has to wait for a link.
//!
//! # Disconnection
//!
//! A live-sender count (clones count in, drops count out) ends the stream: when the receiver
//! finds the queue empty and reads a count of 0 (acquire), every push is visible, so one more
//! look decides. A flag tells senders that the receiver is gone.

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use crate::loom::sync::Arc;
use crate::wake::Wake;
use crate::TryPopError;
use crossbeam_utils::CachePadded;
use handoff_spsc::Waiter;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr;

struct Node<T> {
    next: AtomicPtr<Node<T>>,
    /// Initialized from the push until the consumer takes it; uninitialized in the stub.
    value: UnsafeCell<MaybeUninit<T>>,
}

impl<T> Node<T> {
    fn alloc(value: MaybeUninit<T>) -> *mut Node<T> {
        Box::into_raw(Box::new(Node {
            next: AtomicPtr::new(ptr::null_mut()),
            value: UnsafeCell::new(value),
        }))
    }
}

struct Shared<T> {
    /// The most recently pushed node. Producers swap themselves in here.
    head: CachePadded<AtomicPtr<Node<T>>>,
    /// The node whose message was taken last (or the stub). Only the receiver touches it.
    tail: CachePadded<UnsafeCell<*mut Node<T>>>,
    /// Where the receiver sleeps (`Edge` / `Every`).
    receiver: CachePadded<Waiter>,
    senders: AtomicUsize,
    receiver_alive: AtomicBool,
    wake: Wake,
}

// SAFETY: the list is shared through atomics (`head`, every `next`); a node's value is written
// before the node is published (swap `AcqRel` + link `Release`) and read by the receiver only
// after it acquired the link. `tail`, the `UnsafeCell`, is accessed only by the receiver, which
// needs `&mut Receiver` to do so, and by `drop` once nobody else is left. Messages move between
// threads, hence `T: Send`.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // Everyone else is gone: every push is complete (linked), so the list from `tail` holds
        // exactly the messages never received. Free the first node (taken or stub) and every
        // following one, dropping its message.
        let first = self.tail.with_mut(|tail| {
            // SAFETY: `&mut self`: nobody else accesses `tail`.
            unsafe { *tail }
        });
        // SAFETY: `first` came from `Node::alloc`, its message was taken (or it is the stub),
        // and the list after it is reachable only from here now.
        let mut rest = FreeList(unsafe { free_node(first, false) });
        while !rest.0.is_null() {
            let node = rest.0;
            // Advance before dropping the message: if its `drop` panics, `rest` (dropped while
            // unwinding) frees the nodes after it, so every message is dropped exactly once.
            // SAFETY: `node` is live (reachable only from here), so reading its link is sound.
            rest.0 = unsafe { (*node).next.load(Ordering::Acquire) };
            // SAFETY: `node` came from `Node::alloc` and holds a message not received yet; it
            // is no longer in `rest`, so this is its only free.
            unsafe { free_node(node, true) };
        }
    }
}

/// The nodes from this one on (each holding a message not received yet), freed with their
/// messages when dropped: the rest of `Shared::drop`'s walk if a message's `drop` panics.
struct FreeList<T>(*mut Node<T>);

impl<T> Drop for FreeList<T> {
    fn drop(&mut self) {
        while !self.0.is_null() {
            let node = self.0;
            // SAFETY: as in `Shared::drop`: every node of the list is live, reachable only from
            // here, and holds a message not received yet; it leaves the list before it is freed.
            unsafe {
                self.0 = (*node).next.load(Ordering::Acquire);
                free_node(node, true);
            }
        }
    }
}

/// Frees `node`, dropping its message if `full`; returns its successor (read before anything
/// is dropped). The node is freed even if the message's `drop` panics.
///
/// # Safety
/// `node` came from `Node::alloc`, nobody else can reach it, and it holds a message iff `full`.
unsafe fn free_node<T>(node: *mut Node<T>, full: bool) -> *mut Node<T> {
    // SAFETY: the caller's guarantee: the node is live and ours alone.
    let boxed = unsafe { Box::from_raw(node) };
    let next = boxed.next.load(Ordering::Acquire);
    if full {
        // SAFETY: the node holds an initialized message (the caller's guarantee), dropped once
        // here; `boxed` frees the node afterwards, also while unwinding from this drop.
        boxed.value.with_mut(|v| unsafe { (*v).assume_init_drop() });
    }
    next
}

/// Creates an unbounded Vyukov MPSC channel with the given wake policy.
///
/// ```
/// use handoff_mpsc::{vyukov, TryPopError, Wake};
///
/// let (tx, mut rx) = vyukov::channel::<u32>(Wake::Spin);
/// tx.send(1).unwrap();
/// tx.clone().send(2).unwrap();
/// assert_eq!(rx.try_recv(), Ok(1));
/// assert_eq!(rx.try_recv(), Ok(2));
/// assert_eq!(rx.try_recv(), Err(TryPopError::Empty));
/// drop(tx);
/// assert_eq!(rx.try_recv(), Err(TryPopError::Disconnected));
/// ```
pub fn channel<T>(wake: Wake) -> (Sender<T>, Receiver<T>) {
    let stub = Node::alloc(MaybeUninit::uninit());
    let shared = Arc::new(Shared {
        head: CachePadded::new(AtomicPtr::new(stub)),
        tail: CachePadded::new(UnsafeCell::new(stub)),
        receiver: CachePadded::new(Waiter::new()),
        senders: AtomicUsize::new(1),
        receiver_alive: AtomicBool::new(true),
        wake,
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver {
            shared,
            failed_polls: 0,
            _not_sync: PhantomData,
        },
    )
}

/// A producer handle of a Vyukov channel. Cheap to clone; can be shared between threads.
///
/// # Threads
///
/// A sender can move to another thread and be shared between threads (for messages that are
/// `Send`): [`send`](Sender::send) takes `&self`.
///
/// ```
/// use handoff_mpsc::{vyukov, Wake};
///
/// let (tx, mut rx) = vyukov::channel::<u32>(Wake::Spin);
/// std::thread::scope(|s| {
///     for i in 0..4 {
///         let tx = &tx;
///         s.spawn(move || tx.send(i).unwrap());
///     }
/// });
/// let clone = tx.clone();
/// std::thread::spawn(move || clone.send(4).unwrap()).join().unwrap();
/// drop(tx);
/// let mut all = Vec::new();
/// while let Some(i) = rx.recv() {
///     all.push(i);
/// }
/// all.sort();
/// assert_eq!(all, [0, 1, 2, 3, 4]);
/// ```
///
/// Not with messages that may not move between threads (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{vyukov, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = vyukov::channel::<std::rc::Rc<u32>>(Wake::Spin);
/// send(tx);
/// ```
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    /// Sends `value`. Never waits: the queue is unbounded (one allocation per message).
    ///
    /// Returns the message back if the receiver is gone. (A send racing with the receiver's
    /// drop may still succeed; the message is then dropped with the channel.)
    #[inline]
    pub fn send(&self, value: T) -> Result<(), T> {
        let shared = &*self.shared;
        if !shared.receiver_alive.load(Ordering::Relaxed) {
            return Err(value);
        }
        let node = Node::alloc(MaybeUninit::new(value));
        // Acquire: we are about to write into `prev`, whose initialization (by its producer)
        // must be visible. Release: publishes our node's contents to the next producer.
        let prev = shared.head.swap(node, Ordering::AcqRel);
        // Inconsistent window: `head` is our node but `prev.next` is still null.
        // SAFETY: `prev` is live: the consumer frees a node only after reading its `next` as
        // non-null, and only we (who swapped it out of `head`) ever set `prev.next`.
        unsafe { (*prev).next.store(node, Ordering::Release) };
        shared.wake.after_send(&shared.receiver);
        Ok(())
    }

    /// Whether the receiver has been dropped.
    pub fn is_disconnected(&self) -> bool {
        !self.shared.receiver_alive.load(Ordering::Acquire)
    }

    /// The channel's wake policy.
    pub fn wake(&self) -> Wake {
        self.shared.wake
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.senders.fetch_add(1, Ordering::Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // Release: our pushes (complete, linked) happen before the receiver sees the count at 0.
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last sender: a sleeping receiver must wake up to see the end of the stream.
            self.shared.receiver.notify();
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("vyukov::Sender")
            .field("wake", &self.shared.wake)
            .finish_non_exhaustive()
    }
}

/// The consumer handle of a Vyukov channel.
///
/// # Threads
///
/// A receiver can move to another thread (for messages that are `Send`):
///
/// ```
/// use handoff_mpsc::{vyukov, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = vyukov::channel::<u32>(Wake::Spin);
/// send(rx);
/// ```
///
/// It cannot be shared between threads (it is not `Sync`), so that only one thread receives:
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{vyukov, Wake};
/// fn share<S: Sync>(_: &S) {}
/// let (tx, rx) = vyukov::channel::<u32>(Wake::Spin);
/// share(&rx);
/// ```
///
/// Nor can it move to another thread with messages that may not (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{vyukov, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = vyukov::channel::<std::rc::Rc<u32>>(Wake::Spin);
/// send(rx);
/// ```
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// See [`Receiver::failed_polls`].
    failed_polls: u64,
    /// Not `Sync`: the receiver reads the list's `tail` through `&self` (in `sleep`), which is
    /// sound only because no other thread can hold a `&Receiver` at the same time.
    _not_sync: PhantomData<Cell<()>>,
}

/// What a look at the queue found.
enum Pop<T> {
    Data(T),
    Empty,
    /// A push is half done (see the module docs).
    Inconsistent,
}

impl<T> Receiver<T> {
    /// Receives a message without waiting. A message whose push is still in progress (see
    /// [the inconsistent state](self#the-inconsistent-state)) is not received yet.
    ///
    /// # Errors
    /// [`TryPopError::Empty`] if no message is ready, [`TryPopError::Disconnected`] if every
    /// sender is gone and everything was received.
    #[inline]
    pub fn try_recv(&mut self) -> Result<T, TryPopError> {
        match self.pop() {
            Pop::Data(value) => Ok(value),
            Pop::Inconsistent => Err(TryPopError::Empty),
            Pop::Empty => self.empty(),
        }
    }

    /// After a pop found the queue empty: is it the end?
    #[cold]
    fn empty(&mut self) -> Result<T, TryPopError> {
        if self.shared.senders.load(Ordering::Acquire) != 0 {
            return Err(TryPopError::Empty);
        }
        // Every sender is gone and its pushes are complete and visible: one more look decides.
        match self.pop() {
            Pop::Data(value) => Ok(value),
            Pop::Empty | Pop::Inconsistent => Err(TryPopError::Disconnected),
        }
    }

    /// Receives a message, waiting as the channel's [`Wake`] policy says while there is none
    /// (or while the next one is half pushed). Returns `None` once every sender is gone and
    /// everything was received.
    #[inline]
    pub fn recv(&mut self) -> Option<T> {
        match self.try_recv() {
            Ok(value) => Some(value),
            Err(TryPopError::Disconnected) => None,
            Err(TryPopError::Empty) => self.recv_slow(),
        }
    }

    #[cold]
    #[inline(never)]
    fn recv_slow(&mut self) -> Option<T> {
        let mut backoff = self.shared.wake.backoff();
        loop {
            // The last look found no message ready.
            self.failed_polls += 1;
            if backoff.snooze() {
                self.sleep();
            }
            match self.try_recv() {
                Ok(value) => return Some(value),
                Err(TryPopError::Disconnected) => return None,
                Err(TryPopError::Empty) => {}
            }
        }
    }

    /// Receives up to `max` messages without waiting, calling `f` on each. Returns how many
    /// were received (at least one).
    ///
    /// # Errors
    /// As [`try_recv`](Receiver::try_recv) when no message is ready (and `max > 0`).
    #[inline]
    pub fn try_recv_batch<F>(&mut self, max: usize, mut f: F) -> Result<usize, TryPopError>
    where
        F: FnMut(T),
    {
        if max == 0 {
            return Ok(0);
        }
        f(self.try_recv()?);
        Ok(1 + self.drain(max - 1, &mut f))
    }

    /// Receives up to `max` messages, calling `f` on each, waiting as the channel's [`Wake`]
    /// policy says until there is at least one. Returns how many were received: 0 only when
    /// `max` is 0, or once every sender is gone and everything was received.
    #[inline]
    pub fn recv_batch<F>(&mut self, max: usize, mut f: F) -> usize
    where
        F: FnMut(T),
    {
        if max == 0 {
            return 0;
        }
        match self.recv() {
            Some(value) => f(value),
            None => return 0,
        }
        1 + self.drain(max - 1, &mut f)
    }

    /// Whether every sender has been dropped. Messages may still be waiting to be received.
    pub fn is_disconnected(&self) -> bool {
        self.shared.senders.load(Ordering::Acquire) == 0
    }

    /// The channel's wake policy.
    pub fn wake(&self) -> Wake {
        self.shared.wake
    }

    /// How many times, since creation, this receiver found no message ready and then waited (a
    /// spin, a yield or a sleep, as the [`Wake`] policy says) before looking again: the failed
    /// polls of the waiting operations ([`recv`](Receiver::recv),
    /// [`recv_batch`](Receiver::recv_batch)). A statistic for benchmarks, kept in the handle (no
    /// shared write); the `try_*` operations never wait and do not count.
    pub fn failed_polls(&self) -> u64 {
        self.failed_polls
    }

    /// Receives the messages that are ready, up to `max`.
    fn drain(&mut self, max: usize, f: &mut impl FnMut(T)) -> usize {
        let mut n = 0;
        while n < max {
            match self.pop() {
                Pop::Data(value) => {
                    n += 1;
                    f(value);
                }
                Pop::Empty | Pop::Inconsistent => break,
            }
        }
        n
    }

    /// One step of Vyukov's pop.
    #[inline]
    fn pop(&mut self) -> Pop<T> {
        let shared = &*self.shared;
        shared.tail.with_mut(|tail_ptr| {
            // SAFETY: only the receiver accesses `tail`, and we hold `&mut self`.
            let tail = unsafe { *tail_ptr };
            // SAFETY: `tail` is live: only the receiver frees nodes, and never its `tail`.
            let next = unsafe { (*tail).next.load(Ordering::Acquire) };
            if !next.is_null() {
                // SAFETY: `next` was linked with `Release` after its message was written (and
                // we acquired the link); its message was not taken yet. After this, `next` is
                // the new tail (a taken message), and the old tail is unreachable: no producer
                // touches it again since its `next` is already set, so we free it.
                unsafe {
                    *tail_ptr = next;
                    let value = (*next).value.with_mut(|v| (*v).assume_init_read());
                    drop(Box::from_raw(tail));
                    return Pop::Data(value);
                }
            }
            if shared.head.load(Ordering::Acquire) == tail {
                Pop::Empty
            } else {
                Pop::Inconsistent
            }
        })
    }

    /// Sleeps until a sender may have linked a message or gone away.
    fn sleep(&self) {
        let shared = &*self.shared;
        // Senders notify `receiver` after linking, and the last one when it goes. In the
        // inconsistent state we sleep too: the half-done push notifies once it links.
        shared.receiver.sleep_unless(|| {
            shared.senders.load(Ordering::Acquire) == 0
                || shared.tail.with_mut(|tail| {
                    // SAFETY: `tail` is only accessed by the receiver (us, through `&self` here
                    // while no `&mut` method runs); the node it points to is live (see `pop`).
                    unsafe { !(**tail).next.load(Ordering::Acquire).is_null() }
                })
        });
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.receiver_alive.store(false, Ordering::Release);
        // Free what is ready now; whatever a racing send adds later is freed with the channel.
        while let Pop::Data(value) = self.pop() {
            drop(value);
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("vyukov::Receiver")
            .field("wake", &self.shared.wake)
            .finish_non_exhaustive()
    }
}
