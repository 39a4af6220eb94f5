//! The ring: shared state, producer and consumer.
//!
//! # Algorithm
//!
//! A classic Lamport ring with free-running indices, in the form popularized by rtrb and by
//! Rigtorp's `SPSCQueue`:
//!
//! * `tail` (written only by the producer) counts the messages ever pushed, `head` (written only
//!   by the consumer) counts the messages ever popped. Both wrap around `usize`; the slot of index
//!   `i` is `i & mask`, the ring holds `tail - head` messages, it is full when that equals the
//!   capacity (a power of two) and empty when `head == tail`.
//! * The producer writes a slot, then publishes it with `tail.store(Release)`; the consumer loads
//!   `tail` with `Acquire` before reading slots below it. Symmetrically the consumer releases a
//!   slot with `head.store(Release)` and the producer acquires `head` before overwriting it.
//! * Each side keeps a private copy of the other side's index (`head_cache`, `tail_cache`) and
//!   reloads the shared atomic only when the ring looks full (producer) or empty (consumer). In
//!   steady state a push therefore touches only the producer's own cache line and the slot, and a
//!   pop only the consumer's own line and the slot: the shared index lines move between cores
//!   once per lap rather than once per message.
//! * `head` and `tail` sit on separate 128-byte lines (`CachePadded`), so that the two sides do
//!   not false-share, including through the adjacent-line prefetcher.
//!
//! The batch operations write (or read) a run of slots and publish the index once for the whole
//! run, so the consumer sees the run at once and the index line moves once per run.

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::loom::sync::Arc;
use crate::wait::{Backoff, Wait, Waiter};
use crate::{CapacityError, TryPopError, TryPushError};
use crossbeam_utils::CachePadded;
use std::fmt;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ops::Deref;

type Slot<T> = UnsafeCell<MaybeUninit<T>>;

/// [`Link`]'s side: the producer's.
const PRODUCER: bool = true;
/// [`Link`]'s side: the consumer's.
const CONSUMER: bool = false;

/// A handle's share of the [`Shared`] state, which tells the other side when the handle is
/// dropped (sets its side's `*_gone` flag and wakes the other side, which may sleep waiting
/// for it).
///
/// # Why not an `Arc` and a `Drop` on the handle
///
/// Dropping a handle must never pass the handle's address to code the compiler does not inline
/// (and it does not inline drops on unwinding paths, where every call in a loop that may unwind
/// leads). Once the address of a value escapes, the compiler must keep the value in memory: the
/// caller's loop then stores the handle's position to the stack on every message, on top of the
/// stores to the slot and the shared index (three stores a message instead of two, measured in
/// the disassembly of a two-thread stream). Here the drop that is always inlined only moves the
/// `Arc` out, and the out-of-line part, [`leave`], takes it by value.
struct Link<T, const SIDE: bool> {
    shared: ManuallyDrop<Arc<Shared<T>>>,
}

impl<T, const SIDE: bool> Link<T, SIDE> {
    fn new(shared: Arc<Shared<T>>) -> Self {
        Link {
            shared: ManuallyDrop::new(shared),
        }
    }
}

impl<T, const SIDE: bool> Deref for Link<T, SIDE> {
    type Target = Shared<T>;

    #[inline(always)]
    fn deref(&self) -> &Shared<T> {
        &self.shared
    }
}

impl<T, const SIDE: bool> Drop for Link<T, SIDE> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `shared` is taken once, here, and the link is not used after its drop.
        let shared = unsafe { ManuallyDrop::take(&mut self.shared) };
        leave::<T, SIDE>(shared);
    }
}

/// A handle leaves: its side's flag is set, the other side woken (it may be asleep waiting for
/// a message or room that will never come), and the handle's reference released.
#[inline(never)]
fn leave<T, const SIDE: bool>(shared: Arc<Shared<T>>) {
    if SIDE == PRODUCER {
        shared.producer_gone.store(true, Ordering::Release);
        shared.consumer_waiter.notify();
    } else {
        shared.consumer_gone.store(true, Ordering::Release);
        shared.producer_waiter.notify();
    }
}

/// The largest capacity a ring can have: indices are compared with wrapping arithmetic, which
/// needs the capacity to stay well below `usize::MAX`.
pub const MAX_CAPACITY: usize = 1 << (usize::BITS - 2);

/// State shared by the two handles.
struct Shared<T> {
    /// Messages popped so far. Written by the consumer only.
    head: CachePadded<AtomicUsize>,
    /// Messages pushed so far. Written by the producer only.
    tail: CachePadded<AtomicUsize>,
    /// Where the consumer sleeps on an empty ring ([`Wait::Block`]).
    consumer_waiter: CachePadded<Waiter>,
    /// Where the producer sleeps on a full ring ([`Wait::Block`]).
    producer_waiter: CachePadded<Waiter>,
    /// Set once when the producer is dropped.
    producer_gone: AtomicBool,
    /// Set once when the consumer is dropped.
    consumer_gone: AtomicBool,
    buffer: Box<[Slot<T>]>,
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // Both handles are gone (this is the last `Arc`), so the indices are final and every
        // message in `head..tail` was written and never read: drop each exactly once.
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Relaxed);
        let n = tail.wrapping_sub(head);
        let start = head & (self.buffer.len() - 1);
        // SAFETY: the run `head..tail` holds initialized messages that nobody else can reach any
        // more (we are in the last owner's `drop`), and nothing reads them after this.
        unsafe { drop_run(self.buffer.as_ptr(), self.buffer.len(), start, n) };
    }
}

/// Drops the `n` messages from slot number `start` on, wrapping around the end of the buffer
/// (two stretches then), each exactly once even if a message's `drop` panics: a panic in the
/// first stretch still drops the second (on the way out), and `drop_in_place` of a stretch
/// drops the rest of that stretch when one of its messages panics. A second panic while
/// unwinding aborts, as it always does.
///
/// # Safety
/// `buffer` points to `capacity` slots, `start < capacity`, `n <= capacity`, and the `n` slots
/// hold initialized messages that nobody reads, moves or drops afterwards.
unsafe fn drop_run<T>(buffer: *const Slot<T>, capacity: usize, start: usize, n: usize) {
    if n == 0 || !std::mem::needs_drop::<T>() {
        return;
    }
    let to_end = n.min(capacity - start);
    /// Drops the second stretch when dropped: after the first, or while unwinding from it.
    struct Second<T> {
        buffer: *const Slot<T>,
        len: usize,
    }
    impl<T> Drop for Second<T> {
        fn drop(&mut self) {
            // SAFETY: `drop_run`'s caller's guarantee, for the stretch at the start of the
            // buffer; this guard is its only dropper.
            unsafe { drop_stretch(self.buffer, 0, self.len) };
        }
    }
    let second = Second {
        buffer,
        len: n - to_end,
    };
    // SAFETY: the caller's guarantee, for the stretch from `start` to the end of the run or of
    // the buffer.
    unsafe { drop_stretch(buffer, start, to_end) };
    drop(second);
}

/// Drops the `len` messages from slot number `from` on, in place.
///
/// # Safety
/// `from + len <= capacity` of the buffer at `buffer`; the slots hold initialized messages that
/// nobody reads, moves or drops afterwards.
#[inline]
unsafe fn drop_stretch<T>(buffer: *const Slot<T>, from: usize, len: usize) {
    if len == 0 {
        return;
    }
    #[cfg(not(handoff_loom))]
    {
        // SAFETY: a slot is a `MaybeUninit<T>` in `UnsafeCell`s, all `repr(transparent)`, so
        // `len` consecutive slots are laid out as `[T; len]`, in bounds and initialized (the
        // caller's guarantee); the `UnsafeCell` allows writing through the shared pointer.
        // Dropping the slice drops every element, the later ones even if an earlier one panics.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                buffer.add(from).cast::<T>().cast_mut(),
                len,
            ));
        }
    }
    #[cfg(handoff_loom)]
    for slot in from..from + len {
        // Loom's cells are not laid out as an array: one at a time (the model tests do not
        // panic in a message's drop).
        // SAFETY: in bounds and initialized, per the caller's guarantee.
        let cell = unsafe { &*buffer.add(slot) };
        cell.with_mut(|p| unsafe { (*p).assume_init_drop() });
    }
}

/// Creates a ring of at least `capacity` slots and returns its two ends.
///
/// The capacity is rounded up to the next power of two ([`Producer::capacity`] tells the real
/// one). `wait` chooses how a side that cannot proceed waits (see [`Wait`]). All memory is
/// allocated here, and every page of it is written once, so that the kernel maps it now rather
/// than on the first lap; pushes and pops never allocate, nor take a page fault.
///
/// # Errors
/// [`CapacityError::Zero`] for a capacity of 0, [`CapacityError::TooLarge`] if the rounded
/// capacity exceeds [`MAX_CAPACITY`] or its buffer would exceed `isize::MAX` bytes.
///
/// # Example
/// ```
/// let (mut tx, mut rx) = handoff_spsc::channel::<u64>(1000, handoff_spsc::Wait::Spin).unwrap();
/// assert_eq!(tx.capacity(), 1024);
/// tx.push(7).unwrap();
/// assert_eq!(rx.pop(), Some(7));
/// ```
pub fn channel<T>(
    capacity: usize,
    wait: Wait,
) -> Result<(Producer<T>, Consumer<T>), CapacityError> {
    if capacity == 0 {
        return Err(CapacityError::Zero);
    }
    let rounded = match capacity.checked_next_power_of_two() {
        Some(c) if c <= MAX_CAPACITY => c,
        _ => {
            return Err(CapacityError::TooLarge {
                requested: capacity,
                max: MAX_CAPACITY,
            })
        }
    };
    let size = std::mem::size_of::<T>();
    if size != 0 && rounded > isize::MAX as usize / size {
        // The largest power of two whose buffer fits in `isize::MAX` bytes.
        let fits = isize::MAX as usize / size;
        let max = 1 << (usize::BITS - 1 - fits.leading_zeros());
        return Err(CapacityError::TooLarge {
            requested: capacity,
            max,
        });
    }

    #[allow(unused_mut)] // Written to only outside the model checker.
    let mut buffer: Box<[Slot<T>]> = (0..rounded)
        .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
        .collect();
    // Loom's cells are not laid out as an array, and the model has no pages to map.
    #[cfg(not(handoff_loom))]
    // SAFETY: the range is exactly the buffer, owned here; every slot is uninitialized, and a
    // slot is never read before a push writes it.
    unsafe {
        crate::pages::touch(buffer.as_mut_ptr().cast(), std::mem::size_of_val(&*buffer))
    };
    let shared = Arc::new(Shared {
        head: CachePadded::new(AtomicUsize::new(0)),
        tail: CachePadded::new(AtomicUsize::new(0)),
        consumer_waiter: CachePadded::new(Waiter::new()),
        producer_waiter: CachePadded::new(Waiter::new()),
        producer_gone: AtomicBool::new(false),
        consumer_gone: AtomicBool::new(false),
        buffer,
    });
    let buffer = shared.buffer.as_ptr();
    let mask = rounded - 1;
    let block = wait.sleeps();
    let producer = Producer {
        shared: Link::new(shared.clone()),
        buffer,
        mask,
        tail: 0,
        head_cache: 0,
        wait,
        block,
        failed_polls: 0,
        _own_lines: CachePadded::new(()),
    };
    let consumer = Consumer {
        shared: Link::new(shared),
        buffer,
        mask,
        head: 0,
        tail_cache: 0,
        wait,
        block,
        failed_polls: 0,
        _own_lines: CachePadded::new(()),
    };
    Ok((producer, consumer))
}

/// The sending end of a ring. Created by [`channel`].
///
/// # Threads
///
/// A producer can move to another thread (for messages that are `Send`):
///
/// ```
/// use handoff_spsc::{channel, Wait};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<u32>(4, Wait::Spin).unwrap();
/// send(tx);
/// ```
///
/// It cannot be shared between threads (it is not `Sync`), so that only one thread pushes:
///
/// ```compile_fail,E0277
/// use handoff_spsc::{channel, Wait};
/// fn share<S: Sync>(_: &S) {}
/// let (tx, rx) = channel::<u32>(4, Wait::Spin).unwrap();
/// share(&tx);
/// ```
///
/// Nor can it move to another thread with messages that may not (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_spsc::{channel, Wait};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<std::rc::Rc<u32>>(4, Wait::Spin).unwrap();
/// send(tx);
/// ```
///
/// # Placement
///
/// Each handle keeps its side's position and writes it on every message, so the two handles
/// must never share a cache line: if they did, every message would also move that line between
/// the cores (false sharing), at whatever speed the user's placement of the handles decided.
/// Both [`Producer`] and [`Consumer`] are therefore aligned to, and fill, whole cache-line pairs
/// (128 bytes on x86-64, the unit the adjacent-line prefetcher moves): wherever a program keeps
/// them (two boxed closures one after the other, two fields of one struct), they stay apart.
/// `examples/handle_placement.rs` measures what it prevents.
pub struct Producer<T> {
    shared: Link<T, PRODUCER>,
    /// `shared.buffer`, copied here to save an indirection on the hot path.
    buffer: *const Slot<T>,
    mask: usize,
    /// Private copy of `shared.tail` (this side is its only writer).
    tail: usize,
    /// Last value of `shared.head` seen; `<=` the real one.
    head_cache: usize,
    wait: Wait,
    /// `wait == Wait::Block`: the consumer may sleep, so every publication must notify.
    block: bool,
    /// See [`Producer::failed_polls`].
    failed_polls: u64,
    /// Aligns the handle to a cache-line pair (see the type's docs on placement).
    _own_lines: CachePadded<()>,
}

// SAFETY: a `Producer` is the only handle that writes slots and `tail`; moving it to another
// thread moves that role with it. The messages it sends cross threads, hence `T: Send`. The raw
// `buffer` pointer points into the `Arc`-owned shared state, which outlives the handle.
unsafe impl<T: Send> Send for Producer<T> {}

/// The receiving end of a ring. Created by [`channel`].
///
/// # Threads
///
/// A consumer can move to another thread (for messages that are `Send`):
///
/// ```
/// use handoff_spsc::{channel, Wait};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<u32>(4, Wait::Spin).unwrap();
/// send(rx);
/// ```
///
/// It cannot be shared between threads (it is not `Sync`), so that only one thread pops:
///
/// ```compile_fail,E0277
/// use handoff_spsc::{channel, Wait};
/// fn share<S: Sync>(_: &S) {}
/// let (tx, rx) = channel::<u32>(4, Wait::Spin).unwrap();
/// share(&rx);
/// ```
///
/// Nor can it move to another thread with messages that may not (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_spsc::{channel, Wait};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<std::rc::Rc<u32>>(4, Wait::Spin).unwrap();
/// send(rx);
/// ```
pub struct Consumer<T> {
    shared: Link<T, CONSUMER>,
    /// `shared.buffer`, copied here to save an indirection on the hot path.
    buffer: *const Slot<T>,
    mask: usize,
    /// Private copy of `shared.head` (this side is its only writer).
    head: usize,
    /// Last value of `shared.tail` seen; `<=` the real one.
    tail_cache: usize,
    wait: Wait,
    /// `wait == Wait::Block`: the producer may sleep, so every release of slots must notify.
    block: bool,
    /// See [`Consumer::failed_polls`].
    failed_polls: u64,
    /// Aligns the handle to a cache-line pair (see [`Producer`]'s docs on placement).
    _own_lines: CachePadded<()>,
}

// SAFETY: a `Consumer` is the only handle that reads slots and writes `head`; moving it to
// another thread moves that role with it. The messages it receives cross threads, hence
// `T: Send`. The raw `buffer` pointer points into the `Arc`-owned shared state.
unsafe impl<T: Send> Send for Consumer<T> {}

impl<T> fmt::Debug for Producer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Producer")
            .field("capacity", &self.capacity())
            .field("wait", &self.wait)
            .field("pushed", &self.tail)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Consumer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer")
            .field("capacity", &self.capacity())
            .field("wait", &self.wait)
            .field("popped", &self.head)
            .finish_non_exhaustive()
    }
}

impl<T> Producer<T> {
    /// Pushes `value` if there is a free slot, without waiting.
    ///
    /// A push can succeed after the consumer has been dropped (the message is then dropped with
    /// the ring); use [`is_abandoned`](Producer::is_abandoned) to ask.
    ///
    /// # Errors
    /// [`TryPushError::Full`] with the value if the ring is full,
    /// [`TryPushError::Disconnected`] if moreover the consumer has been dropped (the ring will
    /// never have room again).
    #[inline]
    pub fn try_push(&mut self, value: T) -> Result<(), TryPushError<T>> {
        match self.push_now(value) {
            Ok(()) => Ok(()),
            Err(value) => Err(self.full_error(value)),
        }
    }

    /// Pushes `value` if there is a free slot; returns it back if the ring is full.
    #[inline(always)]
    fn push_now(&mut self, value: T) -> Result<(), T> {
        if self.looks_full() && !self.refresh_has_room() {
            return Err(value);
        }
        // SAFETY: the slot at `tail` is free: `tail - head < capacity` was established above
        // against a `head` loaded with Acquire, so the consumer is done with it, and it will not
        // read it before we publish it below.
        unsafe { self.write(self.tail, value) };
        self.publish(self.tail.wrapping_add(1));
        Ok(())
    }

    /// Why a push found the ring full.
    #[cold]
    fn full_error(&self, value: T) -> TryPushError<T> {
        if self.is_abandoned() {
            TryPushError::Disconnected(value)
        } else {
            TryPushError::Full(value)
        }
    }

    /// Pushes `value`, waiting according to the ring's [`Wait`] strategy while the ring is full.
    ///
    /// Returns the value back if the consumer has been dropped while the ring is full. As with
    /// [`try_push`](Producer::try_push), a push that finds a free slot succeeds even if the
    /// consumer is already gone.
    #[inline]
    pub fn push(&mut self, value: T) -> Result<(), T> {
        // One write of the slot, inline, after the wait if there is one: a waiting path that
        // took the message (out of line, so through memory) put every message through the
        // stack, as `Consumer::pop` explains.
        if !self.has_room() && !self.wait_for_room() {
            return Err(value);
        }
        // SAFETY: a slot is free: `tail - head < capacity` against a `head` loaded with
        // Acquire (in `has_room` or `wait_for_room`), so the consumer is done with it, and it
        // will not read it before we publish it below.
        unsafe { self.write(self.tail, value) };
        self.publish(self.tail.wrapping_add(1));
        Ok(())
    }

    /// Pushes every item of `items`, waiting while the ring is full, and returns how many were
    /// pushed.
    ///
    /// Items are written straight into free slots and the whole run of slots that is free is
    /// published at once (one release store of the tail, and with [`Wait::Block`] one fence), so
    /// the cost of publication is paid once per run rather than once per message. An item is
    /// taken from the iterator only when there is room for it (or, if the ring is full, just
    /// before waiting for room).
    ///
    /// Returns `Err(item)` with the item in hand if the consumer is dropped while the ring is
    /// full; the items before it were pushed, the rest are still in the iterator.
    #[inline]
    pub fn push_batch<I>(&mut self, items: &mut I) -> Result<usize, T>
    where
        I: Iterator<Item = T> + ?Sized,
    {
        let mut pushed = 0;
        loop {
            let Some(first) = items.next() else {
                return Ok(pushed);
            };
            if self.looks_full() && !self.refresh_has_room() && !self.wait_for_room() {
                return Err(first);
            }
            pushed += self.fill(Some(first), items);
        }
    }

    /// Pushes items of `items` while there are free slots, without waiting, publishing them
    /// once. Returns how many were pushed. No item is taken from the iterator unless there is a
    /// slot for it.
    #[inline]
    pub fn try_push_batch<I>(&mut self, items: &mut I) -> usize
    where
        I: Iterator<Item = T> + ?Sized,
    {
        if self.looks_full() && !self.refresh_has_room() {
            return 0;
        }
        self.fill(None, items)
    }

    /// Writes `first` (the caller has made sure a slot is free for it) and then items into the
    /// free slots (by the cached head, refreshed once if that shows fewer than the iterator
    /// promises), and publishes them all at once.
    ///
    /// Always inlined: out of line it takes the caller's iterator by address, so the iterator
    /// lives in memory and each item taken from it costs a store of its position and a reload of
    /// whatever it captured, on top of the slot's own stores (seen in the emitted code of a
    /// `(a..b).map(..)` run of 64-byte messages).
    #[inline(always)]
    fn fill<I>(&mut self, first: Option<T>, items: &mut I) -> usize
    where
        I: Iterator<Item = T> + ?Sized,
    {
        let mut free = self.capacity() - self.tail.wrapping_sub(self.head_cache);
        if free <= items.size_hint().0 {
            self.refresh_has_room();
            free = self.capacity() - self.tail.wrapping_sub(self.head_cache);
        }
        debug_assert!(first.is_none() || free > 0, "no slot for the first item");
        // The free slots are at most two stretches of the buffer: from the tail's slot up to the
        // end, then from the start. Walking them by slot number saves wrapping every index.
        let start = self.tail & self.mask;
        let to_end = free.min(self.capacity() - start);
        // Publishes what was written even if the iterator panics, so nothing leaks.
        let mut run = PushRun {
            producer: self,
            written: 0,
        };
        let mut skip = 0;
        if let Some(item) = first {
            // SAFETY: as below; the caller made sure there is a free slot (`to_end >= 1`).
            unsafe { run.producer.write_slot(start, item) };
            run.written = 1;
            skip = 1;
        }
        for (from, len) in [(start + skip, to_end - skip), (0, free - to_end)] {
            for slot in from..from + len {
                let Some(item) = items.next() else {
                    return run.written;
                };
                // SAFETY: `slot` is one of the `free` slots after the tail (`free` was counted
                // against `head_cache`, loaded with Acquire), so the consumer is done with it;
                // it is published only by `PushRun::drop`.
                unsafe { run.producer.write_slot(slot, item) };
                run.written += 1;
            }
        }
        run.written
    }

    /// Number of free slots right now (reloads the consumer's index).
    pub fn slots(&self) -> usize {
        self.capacity()
            - self
                .tail
                .wrapping_sub(self.shared.head.load(Ordering::Acquire))
    }

    /// Whether the ring is full right now (reloads the consumer's index).
    pub fn is_full(&self) -> bool {
        self.slots() == 0
    }

    /// Whether the next push would find a free slot: by the consumer's index as last seen,
    /// reloaded only when that says the ring is full, as a push itself does. Unlike
    /// [`is_full`](Producer::is_full), which reloads the index every time, it keeps what it
    /// loaded, so a push right after costs nothing more.
    ///
    /// For code that waits its own way before pushing (a policy of its own, a sleep elsewhere):
    /// checking for room first and pushing once there is some keeps the message out of the
    /// waiting path, which is then free to be out of line without the message going through
    /// memory on every push.
    ///
    /// ```
    /// let (mut tx, mut rx) = handoff_spsc::channel::<u32>(2, handoff_spsc::Wait::Spin)?;
    /// tx.push_batch(&mut (0..2)).unwrap();
    /// assert!(!tx.has_room());
    /// rx.pop();
    /// assert!(tx.has_room());
    /// assert!(tx.try_push(2).is_ok());
    /// # Ok::<(), handoff_spsc::CapacityError>(())
    /// ```
    #[inline(always)]
    pub fn has_room(&mut self) -> bool {
        !self.looks_full() || self.refresh_has_room()
    }

    /// The number of slots of the ring (a power of two).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// The wait strategy the ring was created with.
    pub fn wait_strategy(&self) -> Wait {
        self.wait
    }

    /// How many times, since creation, this producer found the ring full and then waited (a
    /// spin, a yield or a sleep, as its [`Wait`] says) before looking again: the failed polls of
    /// the waiting operations ([`push`](Producer::push), [`push_batch`](Producer::push_batch)).
    /// A statistic for benchmarks, kept in the handle (no shared write); the `try_*` operations
    /// never wait and do not count.
    pub fn failed_polls(&self) -> u64 {
        self.failed_polls
    }

    /// Whether the consumer has been dropped. Nothing pushed from now on will be received.
    pub fn is_abandoned(&self) -> bool {
        self.shared.consumer_gone.load(Ordering::Acquire)
    }

    /// Full by the cached head (it may not be any more).
    #[inline(always)]
    fn looks_full(&self) -> bool {
        self.tail.wrapping_sub(self.head_cache) > self.mask
    }

    /// Reloads the consumer's index; true if a slot is free.
    #[inline]
    fn refresh_has_room(&mut self) -> bool {
        self.head_cache = self.shared.head.load(Ordering::Acquire);
        self.tail.wrapping_sub(self.head_cache) <= self.mask
    }

    /// Waits for a free slot per the wait strategy. False if the consumer is gone (and the ring
    /// still full).
    #[cold]
    fn wait_for_room(&mut self) -> bool {
        let mut backoff = Backoff::new(self.wait);
        loop {
            if self.refresh_has_room() {
                return true;
            }
            if self.is_abandoned() {
                return false;
            }
            self.failed_polls += 1;
            if backoff.snooze() {
                let shared = &*self.shared;
                let (tail, mask) = (self.tail, self.mask);
                // The consumer notifies `producer_waiter` after every release of slots and when
                // it is dropped.
                shared.producer_waiter.sleep_unless(|| {
                    tail.wrapping_sub(shared.head.load(Ordering::Acquire)) <= mask
                        || shared.consumer_gone.load(Ordering::Acquire)
                });
            }
        }
    }

    /// Writes `value` into the slot of `index`.
    ///
    /// # Safety
    /// The slot must be free (consumed, or never written) and unpublished.
    #[inline(always)]
    unsafe fn write(&self, index: usize, value: T) {
        // SAFETY: `index & mask` is a slot number; the caller's guarantee carries over.
        unsafe { self.write_slot(index & self.mask, value) }
    }

    /// Writes `value` into slot number `slot` (an index already wrapped to the buffer).
    ///
    /// # Safety
    /// `slot < capacity`, and the slot must be free (consumed, or never written) and unpublished.
    #[inline(always)]
    unsafe fn write_slot(&self, slot: usize, value: T) {
        debug_assert!(slot <= self.mask);
        // SAFETY: `slot` is in bounds of the buffer, which the `Arc` keeps alive; the caller
        // guarantees that nobody else accesses the slot.
        let slot = unsafe { &*self.buffer.add(slot) };
        slot.with_mut(|p| unsafe { (*p).write(value) });
    }

    /// Publishes every slot below `tail` to the consumer.
    #[inline(always)]
    fn publish(&mut self, tail: usize) {
        self.tail = tail;
        self.shared.tail.store(tail, Ordering::Release);
        if self.block {
            self.shared.consumer_waiter.notify();
        }
    }
}

/// Publishes the slots written so far by a batch push, also on unwinding.
struct PushRun<'a, T> {
    producer: &'a mut Producer<T>,
    written: usize,
}

impl<T> Drop for PushRun<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if self.written > 0 {
            let tail = self.producer.tail.wrapping_add(self.written);
            self.producer.publish(tail);
        }
    }
}

impl<T> Consumer<T> {
    /// Pops the oldest message without waiting.
    ///
    /// # Errors
    /// [`TryPopError::Empty`] if the ring is empty, [`TryPopError::Disconnected`] if it is empty
    /// and the producer has been dropped (no message will ever come).
    #[inline]
    pub fn try_pop(&mut self) -> Result<T, TryPopError> {
        if self.looks_empty() && !self.refresh_has_items() {
            return Err(self.empty_error());
        }
        // SAFETY: `head < tail` was established against a `tail` loaded with Acquire, so the
        // slot holds a published message; we are the only reader.
        let value = unsafe { self.read(self.head) };
        self.release(self.head.wrapping_add(1));
        Ok(value)
    }

    /// Pops the oldest message, waiting according to the ring's [`Wait`] strategy while the
    /// ring is empty. Returns `None` once the producer has been dropped and the ring is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        // One read of the slot, inline, after the wait if there is one. A waiting path that
        // returned the message itself (out of line, so through memory) put every message
        // through the stack, waited for or not, and for a 64-byte message the caller's loads of
        // its fields then missed store forwarding (a third of a verifying consumer's time).
        if self.looks_empty() && !self.refresh_has_items() && !self.wait_for_items() {
            return None;
        }
        // SAFETY: `head < tail` was established against a `tail` loaded with Acquire (above or
        // in `wait_for_items`), so the slot holds a published message; we are the only reader.
        let value = unsafe { self.read(self.head) };
        self.release(self.head.wrapping_add(1));
        Some(value)
    }

    /// Pops up to `max` messages without waiting, calling `f` on each in order, and releases
    /// their slots to the producer at once (one release store of the head, and with
    /// [`Wait::Block`] one fence). Returns how many were popped (at least one).
    ///
    /// # Errors
    /// As [`try_pop`](Consumer::try_pop) when no message is available (and `max > 0`).
    #[inline]
    pub fn try_pop_batch<F>(&mut self, max: usize, f: F) -> Result<usize, TryPopError>
    where
        F: FnMut(T),
    {
        if max == 0 {
            return Ok(0);
        }
        if !self.has_ready(max) {
            return Err(self.empty_error());
        }
        Ok(self.drain(max, f))
    }

    /// Pops up to `max` messages, calling `f` on each in order, waiting according to the ring's
    /// [`Wait`] strategy until at least one is available. Releases the slots at once, as
    /// [`try_pop_batch`](Consumer::try_pop_batch). Returns how many were popped: 0 only when
    /// `max` is 0, or when the producer has been dropped and the ring is empty.
    #[inline]
    pub fn pop_batch<F>(&mut self, max: usize, f: F) -> usize
    where
        F: FnMut(T),
    {
        if max == 0 || !(self.has_ready(max) || self.wait_for_items()) {
            return 0;
        }
        self.drain(max, f)
    }

    /// Pops up to `max` messages without waiting, lending them to `f` where they lie, as one
    /// slice, or two when the run wraps around the end of the buffer (oldest first); then
    /// drops them and releases their slots at once, as [`try_pop_batch`]. Returns how many
    /// were popped (at least one).
    ///
    /// # Errors
    /// As [`try_pop`](Consumer::try_pop) when no message is available (and `max > 0`).
    ///
    /// [`try_pop_batch`]: Consumer::try_pop_batch
    #[inline]
    pub fn try_pop_slices<F>(&mut self, max: usize, f: F) -> Result<usize, TryPopError>
    where
        F: FnMut(&[T]),
    {
        if max == 0 {
            return Ok(0);
        }
        if !self.has_ready(max) {
            return Err(self.empty_error());
        }
        Ok(self.lend(max, f))
    }

    /// Pops up to `max` messages, waiting according to the ring's [`Wait`] strategy until at
    /// least one is available, and lends them to `f` where they lie, as one or two slices in
    /// order (two when the run wraps around the end of the buffer). Once `f` returns (or
    /// unwinds) the messages are dropped and their slots released at once.
    ///
    /// Nothing is moved: a consumer that only reads its messages (sums, checks, copies them
    /// elsewhere) sees each run as the array it is, which the compiler can process several
    /// messages per instruction, where [`pop_batch`](Consumer::pop_batch) hands over one
    /// message per call. Returns how many were popped: 0 only when `max` is 0, or when the
    /// producer has been dropped and the ring is empty.
    ///
    /// ```
    /// use handoff_spsc::{channel, Wait};
    ///
    /// let (mut tx, mut rx) = channel::<u64>(8, Wait::Spin)?;
    /// // Six messages, then two more: the second run wraps around the end of the buffer.
    /// tx.push_batch(&mut (0..6)).unwrap();
    /// assert_eq!(rx.pop_slices(6, |_| {}), 6);
    /// tx.push_batch(&mut (6..10)).unwrap();
    /// let mut runs = Vec::new();
    /// assert_eq!(rx.pop_slices(8, |run| runs.push(run.to_vec())), 4);
    /// assert_eq!(runs, [vec![6, 7], vec![8, 9]]);
    /// # Ok::<(), handoff_spsc::CapacityError>(())
    /// ```
    #[inline]
    pub fn pop_slices<F>(&mut self, max: usize, f: F) -> usize
    where
        F: FnMut(&[T]),
    {
        if max == 0 || !(self.has_ready(max) || self.wait_for_items()) {
            return 0;
        }
        self.lend(max, f)
    }

    /// Number of messages ready to pop right now (reloads the producer's index).
    pub fn slots(&self) -> usize {
        self.shared
            .tail
            .load(Ordering::Acquire)
            .wrapping_sub(self.head)
    }

    /// Whether the ring is empty right now (reloads the producer's index).
    pub fn is_empty(&self) -> bool {
        self.slots() == 0
    }

    /// The number of slots of the ring (a power of two).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// The wait strategy the ring was created with.
    pub fn wait_strategy(&self) -> Wait {
        self.wait
    }

    /// How many times, since creation, this consumer found the ring empty and then waited (a
    /// spin, a yield or a sleep, as its [`Wait`] says) before looking again: the failed polls of
    /// the waiting operations ([`pop`](Consumer::pop), [`pop_batch`](Consumer::pop_batch),
    /// [`pop_slices`](Consumer::pop_slices)). A statistic for benchmarks, kept in the handle (no
    /// shared write); the `try_*` operations never wait and do not count.
    pub fn failed_polls(&self) -> u64 {
        self.failed_polls
    }

    /// Whether the producer has been dropped. Messages already in the ring can still be popped.
    pub fn is_abandoned(&self) -> bool {
        self.shared.producer_gone.load(Ordering::Acquire)
    }

    /// Empty by the cached tail (it may not be any more).
    #[inline(always)]
    fn looks_empty(&self) -> bool {
        self.head == self.tail_cache
    }

    /// True if a message is ready for a run of up to `max`: the producer's index is reloaded
    /// only when the cached one shows fewer than `max`, so that runs are not cut short.
    #[inline(always)]
    fn has_ready(&mut self, max: usize) -> bool {
        self.tail_cache.wrapping_sub(self.head) >= max || self.refresh_has_items()
    }

    /// Reloads the producer's index; true if a message is ready.
    #[inline]
    fn refresh_has_items(&mut self) -> bool {
        self.tail_cache = self.shared.tail.load(Ordering::Acquire);
        self.head != self.tail_cache
    }

    /// Why nothing could be popped, after a refresh found the ring empty.
    #[cold]
    fn empty_error(&mut self) -> TryPopError {
        // The producer's last publication happens before it sets `producer_gone`, so once the
        // flag is seen (Acquire) one more reload of `tail` is final.
        if self.is_abandoned() && !self.refresh_has_items() {
            TryPopError::Disconnected
        } else {
            TryPopError::Empty
        }
    }

    /// Waits for a message per the wait strategy. False if the producer is gone and the ring
    /// empty.
    #[cold]
    fn wait_for_items(&mut self) -> bool {
        let mut backoff = Backoff::new(self.wait);
        loop {
            if self.refresh_has_items() {
                return true;
            }
            if self.is_abandoned() {
                return self.refresh_has_items();
            }
            self.failed_polls += 1;
            if backoff.snooze() {
                let shared = &*self.shared;
                let head = self.head;
                // The producer notifies `consumer_waiter` after every publication and when it
                // is dropped.
                shared.consumer_waiter.sleep_unless(|| {
                    shared.tail.load(Ordering::Acquire) != head
                        || shared.producer_gone.load(Ordering::Acquire)
                });
            }
        }
    }

    /// Pops up to `max` of the messages known to be ready (`tail_cache`), then releases them.
    #[inline]
    fn drain<F>(&mut self, max: usize, mut f: F) -> usize
    where
        F: FnMut(T),
    {
        let n = self.tail_cache.wrapping_sub(self.head).min(max);
        // The run is at most two stretches of the buffer: from the head's slot up to the end,
        // then from the start. Walking them by slot number saves wrapping every index.
        let start = self.head & self.mask;
        let to_end = n.min(self.capacity() - start);
        // Releases the slots read so far even if `f` panics, so that no message is dropped
        // twice (once by the unwinding `f`, once more by the ring).
        let mut run = PopRun {
            consumer: self,
            read: 0,
        };
        for (from, len) in [(start, to_end), (0, n - to_end)] {
            for slot in from..from + len {
                // SAFETY: `slot` is one of the `n` slots after the head, below `tail_cache`:
                // published; it is released only by `PopRun::drop`, after this read, and
                // counted as read before `f` can unwind.
                let value = unsafe { run.consumer.read_slot(slot) };
                run.read += 1;
                f(value);
            }
        }
        n
    }

    /// Lends up to `max` of the messages known to be ready (`tail_cache`) to `f`, as one or
    /// two slices, then drops them and releases their slots.
    #[inline]
    fn lend<F>(&mut self, max: usize, mut f: F) -> usize
    where
        F: FnMut(&[T]),
    {
        let n = self.tail_cache.wrapping_sub(self.head).min(max);
        let start = self.head & self.mask;
        let to_end = n.min(self.capacity() - start);
        // Drops the lent messages and releases their slots when `f` is done with them, also if
        // it unwinds: they count as popped either way.
        let run = LentRun {
            consumer: self,
            start,
            n,
        };
        // SAFETY: both stretches are slots among the `n` after the head, below `tail_cache`
        // (loaded with Acquire): published, not read yet, and released only by `run`'s drop,
        // after `f` has returned.
        unsafe {
            run.consumer.lend_stretch(start, to_end, &mut f);
            run.consumer.lend_stretch(0, n - to_end, &mut f);
        }
        n
    }

    /// Calls `f` on the `len` published messages from slot number `from` on, as one slice
    /// (under loom, whose cells cannot be viewed as an array, one slice per slot). Calls
    /// nothing if `len` is 0.
    ///
    /// # Safety
    /// `from + len <= capacity`; the slots must hold published messages not read yet, which
    /// nobody moves or drops until `f` returns.
    #[inline(always)]
    unsafe fn lend_stretch<F>(&self, from: usize, len: usize, f: &mut F)
    where
        F: FnMut(&[T]),
    {
        if len == 0 {
            return;
        }
        debug_assert!(from + len <= self.capacity());
        #[cfg(not(handoff_loom))]
        {
            // SAFETY: a slot is a `MaybeUninit<T>` in `UnsafeCell`s, both `repr(transparent)`,
            // so `len` consecutive slots are laid out as `[T; len]`; they are in bounds and
            // initialized (the caller's guarantee), and only read while the slice lives.
            let run = unsafe { std::slice::from_raw_parts(self.buffer.add(from).cast::<T>(), len) };
            f(run);
        }
        #[cfg(handoff_loom)]
        for slot in from..from + len {
            // SAFETY: in bounds and initialized, per the caller's guarantee; the `Arc` keeps the
            // buffer alive.
            let cell = unsafe { &*self.buffer.add(slot) };
            cell.with_mut(|p| f(std::slice::from_ref(unsafe { (*p).assume_init_ref() })));
        }
    }

    /// Moves the message out of the slot of `index`.
    ///
    /// # Safety
    /// The slot must hold a published message not read yet, and be released right after.
    #[inline(always)]
    unsafe fn read(&self, index: usize) -> T {
        // SAFETY: `index & mask` is a slot number; the caller's guarantee carries over.
        unsafe { self.read_slot(index & self.mask) }
    }

    /// Moves the message out of slot number `slot` (an index already wrapped to the buffer).
    ///
    /// # Safety
    /// `slot < capacity`; the slot must hold a published message not read yet, and be released
    /// right after.
    #[inline(always)]
    unsafe fn read_slot(&self, slot: usize) -> T {
        debug_assert!(slot <= self.mask);
        // SAFETY: `slot` is in bounds of the buffer, which the `Arc` keeps alive; the caller
        // guarantees that the slot is initialized and that nobody else accesses it.
        let slot = unsafe { &*self.buffer.add(slot) };
        slot.with_mut(|p| unsafe { (*p).assume_init_read() })
    }

    /// Hands every slot below `head` back to the producer.
    #[inline(always)]
    fn release(&mut self, head: usize) {
        self.head = head;
        self.shared.head.store(head, Ordering::Release);
        if self.block {
            self.shared.producer_waiter.notify();
        }
    }
}

/// Releases the slots read so far by a batch pop, also on unwinding.
struct PopRun<'a, T> {
    consumer: &'a mut Consumer<T>,
    read: usize,
}

impl<T> Drop for PopRun<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if self.read > 0 {
            let head = self.consumer.head.wrapping_add(self.read);
            self.consumer.release(head);
        }
    }
}

/// Drops the messages of a run lent by `pop_slices` and releases their slots, also on
/// unwinding.
struct LentRun<'a, T> {
    consumer: &'a mut Consumer<T>,
    /// Slot number of the run's first message.
    start: usize,
    /// Messages in the run.
    n: usize,
}

impl<T> Drop for LentRun<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if self.n == 0 {
            return;
        }
        /// Releases the run's slots when dropped: after the messages are dropped, or while
        /// unwinding from a message's `drop`. Either way every message of the run has then been
        /// dropped once (see `drop_run`), so the slots must never be read again.
        struct Release<'a, T> {
            consumer: &'a mut Consumer<T>,
            n: usize,
        }
        impl<T> Drop for Release<'_, T> {
            #[inline]
            fn drop(&mut self) {
                let head = self.consumer.head.wrapping_add(self.n);
                self.consumer.release(head);
            }
        }
        let release = Release {
            consumer: &mut *self.consumer,
            n: self.n,
        };
        let (buffer, capacity) = (release.consumer.buffer, release.consumer.capacity());
        // SAFETY: the run's slots hold published messages that were only lent, never moved out;
        // they are dropped here once and released right after (also on unwinding) by `release`,
        // so nobody reads them again.
        unsafe { drop_run(buffer, capacity, self.start, self.n) };
        drop(release);
    }
}
