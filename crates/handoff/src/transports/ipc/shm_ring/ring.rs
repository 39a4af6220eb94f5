//! The ring itself: a bounded single-producer single-consumer queue of fixed-size slots in a
//! region of shared memory, laid out so that two processes can map it at different addresses.
//!
//! **Layout.** A [`Header`] (each side's fields on cache lines of their own), then `capacity`
//! slots. A slot is a tag (8 bytes) followed by the message's wire form, rounded up to 8 bytes.
//! Nothing in the region is a pointer.
//!
//! **Messages by tag, room by a lazy index.** Message `i` goes to slot `i & mask`, and the
//! slot's tag says which message it holds (`i + 1`; 0 before the first lap). The producer
//! writes the message, then stores the tag with `Release`; the consumer loads the tag with
//! `Acquire` and reads the message when the tag is the one it expects. So a consumer that has
//! caught up polls the very line the next message arrives in, and no index line moves per
//! message. The other way, the consumer publishes how many messages it has consumed
//! (`consumed`, `Release`) once per *span* of slots (eight cache lines' worth, see [`span`]),
//! and the producer, which keeps that figure cached, reloads it (`Acquire`) only when the
//! cached one says the ring is full. The consumer never writes a slot.
//!
//! Why: with a shared `head` written for every message (the classic design, this ring's first
//! version), a consumer that has caught up reads that line on every poll and takes it from the
//! producer, which then waits for it back before its next publication; and a producer at the
//! full end that polls slot tags the consumer clears trades each slot's line with it. Either
//! way the two fall into step at a cache-line transfer per message (measured: 3–5× below
//! `handoff-spsc` between two threads). Here the only lines that move per message are the
//! slots', which must.
//!
//! **Runs.** A batch is written slot by slot, each tag stored as its message is written, with
//! no system call and no fence; a run is received the same way, up to the first slot not yet
//! tagged.
//!
//! **Ends.** A side that drops its handle sets its `gone` flag (after its last publication), so
//! the other side can tell "empty for now" from "empty for good". A side whose *process* dies
//! without dropping anything is found by [`super::wait`]'s liveness check.

use super::side::SideState;
use super::wait::{self, Liveness, Waiting};
use crate::message::Message;
use crate::shared_memory::Region;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Marks an initialised header (`"hndfring"`).
const MAGIC: u64 = 0x686e_6466_7269_6e67;

/// A field alone on its cache lines (two, against the adjacent-line prefetcher).
#[repr(C, align(128))]
pub(super) struct Padded<T>(pub T);

/// The start of the region.
#[repr(C)]
pub(super) struct Header {
    magic: AtomicU64,
    capacity: u64,
    slot: u64,
    pub producer: Padded<SideState>,
    pub consumer: Padded<SideState>,
}

/// Bytes before the first slot.
const SLOTS_AT: usize = std::mem::size_of::<Header>();

/// Bytes of a slot's tag, before the message.
const TAG: usize = 8;

/// Bytes of slots the consumer frees at once: eight cache lines. Publishing `consumed` once per
/// span moves its line once per span instead of once per message; a full producer waits at most
/// a span longer for room (the ring's usable depth stays at least `capacity - span`).
const SPAN_BYTES: usize = 512;

/// The slots of a span for a ring of `capacity` (a power of two) slots of `slot` bytes: a power
/// of two, at least one, at most half the ring.
fn span(capacity: u64, slot: usize) -> u64 {
    let fit = ((SPAN_BYTES / slot) as u64).max(1);
    let fit = 1u64 << (63 - fit.leading_zeros());
    fit.min((capacity / 2).max(1))
}

/// The size of a slot for messages of `wire` bytes: the tag, then the message, rounded up so
/// that every tag is aligned.
pub(super) fn slot_size(wire: usize) -> usize {
    (TAG + wire).div_ceil(8) * 8
}

/// The region and where its parts are.
pub(crate) struct Shared {
    region: Region,
    mask: u64,
    slot: usize,
}

// SAFETY: the region is reached through the header's atomics and through slots whose ownership
// the indices hand from one side to the other (see the module docs).
unsafe impl Send for Shared {}
// SAFETY: a geometry points into a region its handle keeps mapped; a handle moves to another
// thread whole, with its `Arc<Shared>`.
unsafe impl Send for Geometry {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

impl Shared {
    /// A new ring of `capacity` (a power of two) slots for messages of `wire` bytes.
    pub fn create(capacity: usize, wire: usize) -> std::io::Result<Shared> {
        debug_assert!(capacity.is_power_of_two());
        let slot = slot_size(wire);
        let len = SLOTS_AT + capacity * slot;
        let region = Region::create("handoff-shm-ring", len)?;
        // SAFETY: the region is fresh, page-aligned and at least `SLOTS_AT` bytes long; nobody
        // else has it yet. All zeroes is a valid header, which this fills in.
        unsafe {
            let h = region.as_ptr() as *mut Header;
            std::ptr::addr_of_mut!((*h).capacity).write(capacity as u64);
            std::ptr::addr_of_mut!((*h).slot).write(slot as u64);
            (*h).magic.store(MAGIC, Ordering::Release);
        }
        Ok(Shared {
            region,
            mask: capacity as u64 - 1,
            slot,
        })
    }

    /// The ring another process created, found at `path`, for messages of `wire` bytes.
    pub fn open(path: &str, wire: usize) -> std::io::Result<Shared> {
        let slot = slot_size(wire);
        let region = Region::open(path)?;
        let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        if region.len() < SLOTS_AT {
            return Err(bad(format!("{path} is too small for a ring")));
        }
        // SAFETY: the region is at least a header long and page-aligned.
        let h = unsafe { &*(region.as_ptr() as *const Header) };
        if h.magic.load(Ordering::Acquire) != MAGIC {
            return Err(bad(format!("{path} is not a ring")));
        }
        let (capacity, have) = (h.capacity, h.slot as usize);
        if have != slot {
            return Err(bad(format!(
                "the ring's slots are {have} B, messages {slot} B"
            )));
        }
        if !capacity.is_power_of_two() || region.len() < SLOTS_AT + capacity as usize * slot {
            return Err(bad(format!("{path} is shorter than its ring")));
        }
        Ok(Shared {
            region,
            mask: capacity - 1,
            slot,
        })
    }

    /// The path another process opens this ring by.
    pub(super) fn path(&self) -> String {
        self.region.path()
    }

    pub(super) fn header(&self) -> &Header {
        // SAFETY: a header was written at the start of the region before it was shared, and
        // the region lives as long as `self`.
        unsafe { &*(self.region.as_ptr() as *const Header) }
    }

    /// The first byte of message `i`'s slot.
    fn slot_ptr(&self, i: u64) -> *mut u8 {
        // SAFETY: `i & mask` is below the capacity, and the region holds `capacity` slots
        // after the header (checked when it was created or opened).
        unsafe {
            self.region
                .as_ptr()
                .add(SLOTS_AT + (i & self.mask) as usize * self.slot)
        }
    }
}

/// Where a handle finds the ring, read once from its [`Shared`] (which the handle keeps alive)
/// so the hot path reaches header and slots without a chain of pointers.
struct Geometry {
    header: *const Header,
    slots: *mut u8,
    mask: u64,
    slot: usize,
}

impl Geometry {
    fn of(shared: &Shared) -> Geometry {
        Geometry {
            header: shared.header(),
            slots: shared.slot_ptr(0),
            mask: shared.mask,
            slot: shared.slot,
        }
    }

    #[inline(always)]
    fn header(&self) -> &Header {
        // SAFETY: the header lives in the region, which the handle's `Arc<Shared>` keeps
        // mapped for as long as the handle (and so this geometry) exists.
        unsafe { &*self.header }
    }

    /// The first byte of message `i`'s slot (its tag).
    #[inline(always)]
    fn slot_ptr(&self, i: u64) -> *mut u8 {
        // SAFETY: `i & mask` is below the capacity and the region holds that many slots after
        // the header (checked when it was created or opened).
        unsafe { self.slots.add((i & self.mask) as usize * self.slot) }
    }

    /// The tag of message `i`'s slot.
    #[inline(always)]
    fn tag(&self, i: u64) -> &AtomicU64 {
        // SAFETY: a slot starts with an 8-byte tag, 8-aligned (slots are multiples of 8 bytes
        // from a 128-aligned start), inside the mapping the handle keeps alive; it is only
        // accessed atomically.
        unsafe { &*(self.slot_ptr(i) as *const AtomicU64) }
    }

    /// Where message `i`'s wire form goes.
    #[inline(always)]
    fn body(&self, i: u64) -> *mut u8 {
        // SAFETY: the message follows the tag inside the slot.
        unsafe { self.slot_ptr(i).add(TAG) }
    }
}

/// The producer's end.
pub(crate) struct Producer<M> {
    /// Keeps the region mapped.
    _shared: Arc<Shared>,
    ring: Geometry,
    /// The next message's number.
    head: u64,
    /// The consumer's `consumed`, as last read.
    cached_consumed: u64,
    waiting: Waiting,
    consumer: Liveness,
    _m: PhantomData<fn(M)>,
}

/// The consumer's end.
pub(crate) struct Consumer<M> {
    /// Keeps the region mapped.
    _shared: Arc<Shared>,
    ring: Geometry,
    /// The next message's number.
    tail: u64,
    /// Slots freed at once ([`span`]), a power of two.
    span: u64,
    waiting: Waiting,
    producer: Liveness,
    /// A run's messages, decoded (reused).
    run: Vec<M>,
}

impl<M: Message> Producer<M> {
    /// Takes the producer's end of `shared` (a fresh ring), waiting as `waiting` says.
    pub fn take(shared: Arc<Shared>, waiting: Waiting) -> Producer<M> {
        let h = shared.header();
        h.producer
            .0
            .pid
            .store(std::process::id(), Ordering::Release);
        Producer {
            ring: Geometry::of(&shared),
            _shared: shared,
            head: 0,
            cached_consumed: 0,
            waiting,
            consumer: Liveness::default(),
            _m: PhantomData,
        }
    }

    /// Whether the slot of the next message is free: by the consumer's count as last read,
    /// reloaded only when that says the ring is full.
    #[inline(always)]
    fn has_room(&mut self) -> bool {
        let capacity = self.ring.mask + 1;
        if self.head - self.cached_consumed < capacity {
            return true;
        }
        self.cached_consumed = self
            .ring
            .header()
            .consumer
            .0
            .consumed
            .load(Ordering::Acquire);
        self.head - self.cached_consumed < capacity
    }

    /// Writes the next message into its slot (free, checked by the caller) and tags it.
    #[inline(always)]
    fn put(&mut self, m: &M) {
        // SAFETY: the slot is free (the consumer has consumed the message a lap before, by its
        // count loaded with Acquire) and holds the message's wire size after its tag.
        unsafe { m.write_wire(self.ring.body(self.head)) };
        self.ring
            .tag(self.head)
            .store(self.head + 1, Ordering::Release);
        self.head += 1;
    }

    /// Writes `m` if there is room.
    #[inline]
    pub fn try_push(&mut self, m: &M) -> bool {
        if !self.has_room() {
            return false;
        }
        self.put(m);
        self.woke();
        true
    }

    /// Writes as many of `run`'s messages as there is room for; returns how many (0 when the
    /// ring is full). `next` is the message left over from a previous call, written first.
    #[inline]
    pub fn push_run(&mut self, next: &mut Option<M>, run: &mut impl Iterator<Item = M>) -> usize {
        let mut n = 0;
        while self.has_room() {
            let Some(m) = next.take().or_else(|| run.next()) else {
                break;
            };
            self.put(&m);
            n += 1;
        }
        if n > 0 {
            self.woke();
        }
        n
    }

    /// After a publication: wakes the consumer if it sleeps.
    #[inline(always)]
    fn woke(&self) {
        if self.waiting.blocks() {
            wait::wake(&self.ring.header().consumer.0);
        }
    }

    /// Whether the consumer has left: dropped its end, or its process died (looked at now and
    /// then; at once when `now`, after a sleep).
    pub fn consumer_gone(&mut self, now: bool) -> bool {
        let s = &self.ring.header().consumer.0;
        s.gone.load(Ordering::Acquire) != 0
            || if now {
                self.consumer.died_now(s)
            } else {
                self.consumer.died(s)
            }
    }

    /// Waits once for room, after the `round`-th failed attempt (see [`wait::pause`]);
    /// returns whether it slept.
    pub fn pause(&self, round: &mut u32) -> bool {
        let h = self.ring.header();
        let (capacity, head) = (self.ring.mask + 1, self.head);
        wait::pause(self.waiting, round, &h.producer.0, || {
            head - h.consumer.0.consumed.load(Ordering::SeqCst) < capacity
        })
    }
}

impl<M> Drop for Producer<M> {
    fn drop(&mut self) {
        let h = self.ring.header();
        h.producer.0.gone.store(1, Ordering::Release);
        wait::wake_always(&h.consumer.0);
    }
}

impl<M: Message> Consumer<M> {
    /// Takes the consumer's end of `shared` (a fresh ring), waiting as `waiting` says.
    pub fn take(shared: Arc<Shared>, waiting: Waiting) -> Consumer<M> {
        let h = shared.header();
        h.consumer
            .0
            .pid
            .store(std::process::id(), Ordering::Release);
        let span = span(shared.mask + 1, shared.slot);
        Consumer {
            ring: Geometry::of(&shared),
            _shared: shared,
            tail: 0,
            span,
            waiting,
            producer: Liveness::default(),
            run: Vec::new(),
        }
    }

    /// Whether the next message is in its slot.
    #[inline(always)]
    fn is_ready(&self) -> bool {
        self.ring.tag(self.tail).load(Ordering::Acquire) == self.tail + 1
    }

    /// Reads the next message (ready, checked by the caller); at the end of a span, frees
    /// the span's slots.
    #[inline(always)]
    fn take_next(&mut self) -> M {
        // SAFETY: the slot's tag, loaded with Acquire, says it holds message `tail`, whose
        // wire form the producer wrote before the tag; any bytes give a value.
        let m = unsafe { M::read_wire(self.ring.body(self.tail)) };
        self.tail += 1;
        if self.tail & (self.span - 1) == 0 {
            self.free();
        }
        m
    }

    /// Publishes the messages consumed, freeing their slots, and wakes the producer if it
    /// sleeps.
    #[cold]
    fn free(&self) {
        let h = self.ring.header();
        h.consumer.0.consumed.store(self.tail, Ordering::Release);
        if self.waiting.blocks() {
            wait::wake(&h.producer.0);
        }
    }

    /// The next message, if one is ready.
    #[inline]
    pub fn try_pop(&mut self) -> Option<M> {
        if !self.is_ready() {
            return None;
        }
        Some(self.take_next())
    }

    /// How many of the next `max` messages are ready (at most the ring's capacity): all of
    /// them if the last one's tag says so (the producer tags in order, each tag stored with
    /// `Release` after its message, so the last tag loaded with `Acquire` covers every message
    /// before it: one tag looked at for a whole run), else counted slot by slot.
    #[inline(always)]
    fn ready_run(&self, max: usize) -> u64 {
        let max = (max.max(1) as u64).min(self.ring.mask + 1);
        let last = self.tail + max - 1;
        if self.ring.tag(last).load(Ordering::Acquire) == last + 1 {
            return max;
        }
        let mut n = 0;
        while n < max && self.ring.tag(self.tail + n).load(Ordering::Acquire) == self.tail + n + 1 {
            n += 1;
        }
        n
    }

    /// Hands up to `max` ready messages to `f` as one run; returns how many (0 if none is
    /// ready).
    #[inline]
    pub fn pop_run(&mut self, max: usize, f: &mut impl FnMut(&[M])) -> usize {
        let n = self.ready_run(max);
        if n == 0 {
            return 0;
        }
        self.run.clear();
        self.run.reserve(n as usize);
        for _ in 0..n {
            let m = self.take_next();
            self.run.push(m);
        }
        f(&self.run);
        self.run.clear();
        n as usize
    }

    /// Hands up to `max` ready messages to `f` one by one; returns how many (0 if none is
    /// ready).
    #[inline]
    pub fn pop_each(&mut self, max: usize, f: &mut impl FnMut(M)) -> usize {
        let n = self.ready_run(max);
        for _ in 0..n {
            f(self.take_next());
        }
        n as usize
    }

    /// Whether the producer has left for good: its `gone` flag (set after its last
    /// publication), or its process died (looked at now and then; at once when `now`, after a
    /// sleep). Messages it published before may still be ready.
    pub fn producer_gone(&mut self, now: bool) -> bool {
        let s = &self.ring.header().producer.0;
        s.gone.load(Ordering::Acquire) != 0
            || if now {
                self.producer.died_now(s)
            } else {
                self.producer.died(s)
            }
    }

    /// Waits once for a message, after the `round`-th failed attempt (see [`wait::pause`]);
    /// returns whether it slept.
    pub fn pause(&self, round: &mut u32) -> bool {
        let (tag, want) = (self.ring.tag(self.tail), self.tail + 1);
        wait::pause(self.waiting, round, &self.ring.header().consumer.0, || {
            tag.load(Ordering::SeqCst) == want
        })
    }
}

impl<M> Drop for Consumer<M> {
    fn drop(&mut self) {
        let h = self.ring.header();
        h.consumer.0.gone.store(1, Ordering::Release);
        wait::wake_always(&h.producer.0);
    }
}
