//! Where the ring lives: its layout, and the one seam between the real ring and its model.
//!
//! **Layout.** A [`Header`] (each side's fields on cache lines of their own), then `capacity`
//! slots. A slot is a tag (8 bytes) followed by the message's wire form, rounded up to 8 bytes.
//! Nothing in the memory is a pointer, so two processes can map it at different addresses.
//!
//! **The seam.** In a normal build the ring is bytes: a mapping both processes share (handed in
//! by [`Shared::create_in`] / [`Shared::open_in`]) or a block of this process's heap
//! ([`Shared::heap`]), its header and tags reached as atomics at their offsets. Under
//! `--cfg handoff_loom` the same header and tags are loom's atomics and each slot's body is a
//! loom cell, so the model tests run the ring's protocol (`ring.rs`, `wait.rs`: the very code
//! that ships) with every access to a slot checked for races. [`Geometry`] is what the
//! protocol sees of either: a header, a tag per message, and a body to write or read.

use crate::wait::SideState;
use handoff_sync::sync::atomic::{AtomicU64, Ordering};

/// Marks an initialised header (`"hndfring"`).
const MAGIC: u64 = 0x686e_6466_7269_6e67;

/// A field alone on its cache lines (two, against the adjacent-line prefetcher).
#[repr(C, align(128))]
pub(crate) struct Padded<T>(pub T);

/// The start of the memory.
#[repr(C)]
pub(crate) struct Header {
    magic: AtomicU64,
    capacity: AtomicU64,
    slot: AtomicU64,
    pub producer: Padded<SideState>,
    pub consumer: Padded<SideState>,
}

impl Header {
    /// Bytes of a slot.
    pub(crate) fn slot_bytes(&self) -> usize {
        self.slot.load(Ordering::Relaxed) as usize
    }
}

/// Bytes before the first slot.
const SLOTS_AT: usize = std::mem::size_of::<Header>();

/// Bytes of a slot's tag, before the message.
const TAG: usize = 8;

/// The size of a slot for messages of `wire` bytes: the tag, then the message, rounded up so
/// that every tag is aligned.
pub fn slot_size(wire: usize) -> usize {
    (TAG + wire).div_ceil(8) * 8
}

/// Bytes of memory a ring of `capacity` slots for messages of `wire` bytes takes.
pub fn bytes_for(capacity: usize, wire: usize) -> usize {
    SLOTS_AT + capacity * slot_size(wire)
}

/// Why a ring cannot be made or opened.
fn invalid(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what)
}

/// The ring's memory (a normal build: bytes at a fixed address, kept alive by `_keep`).
#[cfg(not(handoff_loom))]
pub struct Shared {
    base: *mut u8,
    mask: u64,
    slot: usize,
    /// What keeps the memory alive: the caller's mapping, or the heap block.
    _keep: Box<dyn Send + Sync>,
}

// SAFETY: the memory is reached through the header's atomics and through slots whose ownership
// the tags and the consumer's count hand from one side to the other (see `ring.rs`); `_keep`
// is Send + Sync.
#[cfg(not(handoff_loom))]
unsafe impl Send for Shared {}
// SAFETY: as above.
#[cfg(not(handoff_loom))]
unsafe impl Sync for Shared {}

/// A zeroed heap block aligned to a page, freed when dropped.
#[cfg(not(handoff_loom))]
struct HeapBlock {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: the block is plain memory owned by this value; nothing about it is tied to a thread.
#[cfg(not(handoff_loom))]
unsafe impl Send for HeapBlock {}
// SAFETY: as above; the block is only freed in `drop`, through `&mut self`.
#[cfg(not(handoff_loom))]
unsafe impl Sync for HeapBlock {}

#[cfg(not(handoff_loom))]
impl Drop for HeapBlock {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated with `layout` by `alloc_zeroed` and is freed once, here.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Maps every page of the `len` bytes at `base` into this process now, writable, without
/// changing a byte of them (Linux's `MADV_POPULATE_WRITE`), so that the ring's first lap takes no
/// page fault in this process: a fault costs a kernel entry and, for memory never touched, a
/// zeroed page, on the order of a microsecond, once per page the lap reaches. Done when a side
/// creates or opens the ring, never on its hot path. Best effort: a kernel older than 5.14
/// refuses the advice, and pages are then mapped on first touch as before.
///
/// # Safety
/// The `len` bytes at `base` are mapped in this process (for any use: the advice neither reads
/// nor writes them).
#[cfg(all(target_os = "linux", not(handoff_loom)))]
unsafe fn populate(base: *mut u8, len: usize) {
    // SAFETY: `sysconf` reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = usize::try_from(page)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096);
    let start = base as usize & !(page - 1);
    let end = base as usize + len;
    // SAFETY: the range starts at the page holding `base` and ends with the caller's range,
    // all of it mapped (a page is mapped whole); the advice changes no byte of memory, and a
    // refusal (an old kernel) is harmless, so its result is not needed.
    let _ = unsafe {
        libc::madvise(
            start as *mut libc::c_void,
            end - start,
            libc::MADV_POPULATE_WRITE,
        )
    };
}

/// Mapping pages ahead: not done on this system; they are mapped on first touch.
#[cfg(all(not(target_os = "linux"), not(handoff_loom)))]
unsafe fn populate(_base: *mut u8, _len: usize) {}

#[cfg(not(handoff_loom))]
impl Shared {
    /// Lays a new ring of `capacity` (a power of two, at least 2) slots for messages of `wire`
    /// bytes out in the memory at `base`, `len` bytes long, which `keep` keeps alive.
    ///
    /// # Safety
    /// `base` is valid for reads and writes of `len` bytes for as long as `keep` lives, aligned
    /// to 128 bytes, zeroed, and reached by nothing else until this returns; afterwards only
    /// through rings of this crate (in any process).
    pub unsafe fn create_in(
        base: *mut u8,
        len: usize,
        capacity: usize,
        wire: usize,
        keep: Box<dyn Send + Sync>,
    ) -> std::io::Result<Shared> {
        if capacity < 2 || !capacity.is_power_of_two() {
            return Err(invalid(format!(
                "a ring of {capacity} slots: not a power of two of at least 2"
            )));
        }
        if len < bytes_for(capacity, wire) || base as usize % 128 != 0 {
            return Err(invalid(format!(
                "{len} B at {base:p} do not hold a ring of {capacity} slots of {} B",
                slot_size(wire)
            )));
        }
        // SAFETY: the caller vouches for the `len` bytes at `base`.
        unsafe { populate(base, len) };
        let shared = Shared {
            base,
            mask: capacity as u64 - 1,
            slot: slot_size(wire),
            _keep: keep,
        };
        let h = shared.header();
        h.capacity.store(capacity as u64, Ordering::Relaxed);
        h.slot.store(shared.slot as u64, Ordering::Relaxed);
        h.magic.store(MAGIC, Ordering::Release);
        Ok(shared)
    }

    /// The ring another process laid out (with [`Shared::create_in`]) in the memory at `base`,
    /// `len` bytes long, which `keep` keeps alive, for messages of `wire` bytes.
    ///
    /// # Safety
    /// `base` is valid for reads and writes of `len` bytes for as long as `keep` lives, aligned
    /// to 128 bytes, and reached only through rings of this crate (in any process).
    pub unsafe fn open_in(
        base: *mut u8,
        len: usize,
        wire: usize,
        keep: Box<dyn Send + Sync>,
    ) -> std::io::Result<Shared> {
        if len < SLOTS_AT || base as usize % 128 != 0 {
            return Err(invalid(format!("{len} B are too small for a ring")));
        }
        let mut shared = Shared {
            base,
            mask: 0,
            slot: slot_size(wire),
            _keep: keep,
        };
        let h = shared.header();
        if h.magic.load(Ordering::Acquire) != MAGIC {
            return Err(invalid("the memory holds no ring".into()));
        }
        let (capacity, have) = (
            h.capacity.load(Ordering::Relaxed),
            h.slot.load(Ordering::Relaxed),
        );
        if have != shared.slot as u64 {
            return Err(invalid(format!(
                "the ring's slots are {have} B, messages {} B",
                shared.slot
            )));
        }
        if capacity < 2 || !capacity.is_power_of_two() || len < bytes_for(capacity as usize, wire) {
            return Err(invalid("the memory is shorter than its ring".into()));
        }
        shared.mask = capacity - 1;
        // SAFETY: the caller vouches for the `len` bytes at `base`.
        unsafe { populate(base, len) };
        Ok(shared)
    }

    /// A new ring in this process's heap (both ends in one process).
    pub fn heap(capacity: usize, wire: usize) -> std::io::Result<Shared> {
        let len = bytes_for(capacity.max(2), wire);
        let layout = std::alloc::Layout::from_size_align(len, 4096)
            .map_err(|e| invalid(format!("a ring of {len} B: {e}")))?;
        // SAFETY: the layout has a non-zero size (at least a header).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(std::io::Error::from(std::io::ErrorKind::OutOfMemory));
        }
        let block = Box::new(HeapBlock { ptr, layout });
        // SAFETY: a fresh zeroed block of `len` bytes, page-aligned, owned by `block`.
        unsafe { Shared::create_in(ptr, len, capacity, wire, block) }
    }

    /// The header.
    pub(crate) fn header(&self) -> &Header {
        // SAFETY: the memory starts with a header (zeroed is a valid one), 128-aligned, alive
        // as long as `self`.
        unsafe { &*(self.base as *const Header) }
    }

    /// Slots in the ring.
    pub fn capacity(&self) -> usize {
        self.mask as usize + 1
    }
}

/// What a handle reads of its ring on the hot path, fetched once so that header and slots are
/// reached without a chain of pointers (the handle keeps the [`Shared`] alive).
#[cfg(not(handoff_loom))]
pub(crate) struct Geometry {
    header: *const Header,
    slots: *mut u8,
    pub mask: u64,
    slot: usize,
}

// SAFETY: a geometry points into memory its handle keeps alive; a handle moves to another
// thread whole, with its `Arc<Shared>`.
#[cfg(not(handoff_loom))]
unsafe impl Send for Geometry {}

#[cfg(not(handoff_loom))]
impl Geometry {
    pub fn of(shared: &Shared) -> Geometry {
        Geometry {
            header: shared.header(),
            // SAFETY: the slots follow the header inside the memory.
            slots: unsafe { shared.base.add(SLOTS_AT) },
            mask: shared.mask,
            slot: shared.slot,
        }
    }

    #[inline(always)]
    pub fn header(&self) -> &Header {
        // SAFETY: the header lives as long as the handle's `Arc<Shared>`, and so this geometry.
        unsafe { &*self.header }
    }

    /// The first byte of message `i`'s slot (its tag).
    #[inline(always)]
    fn slot_ptr(&self, i: u64) -> *mut u8 {
        // SAFETY: `i & mask` is below the capacity and the memory holds that many slots after
        // the header (checked when it was laid out or opened).
        unsafe { self.slots.add((i & self.mask) as usize * self.slot) }
    }

    /// The tag of message `i`'s slot.
    #[inline(always)]
    pub fn tag(&self, i: u64) -> &AtomicU64 {
        // SAFETY: a slot starts with an 8-byte tag, 8-aligned (slots are multiples of 8 bytes
        // from a 128-aligned start), inside memory the handle keeps alive; it is only accessed
        // atomically.
        unsafe { &*(self.slot_ptr(i) as *const AtomicU64) }
    }

    /// Writes message `i`'s body with `f`, given a pointer valid for the ring's wire size.
    ///
    /// # Safety
    /// The caller owns slot `i` (the producer, with room for message `i`).
    #[inline(always)]
    pub unsafe fn write<R>(&self, i: u64, f: impl FnOnce(*mut u8) -> R) -> R {
        // SAFETY: the body follows the tag inside the slot.
        f(unsafe { self.slot_ptr(i).add(TAG) })
    }

    /// Reads message `i`'s body with `f`, given a pointer valid for the ring's wire size.
    ///
    /// # Safety
    /// The caller owns slot `i` (the consumer, its tag loaded with `Acquire` naming message `i`).
    #[inline(always)]
    pub unsafe fn read<R>(&self, i: u64, f: impl FnOnce(*const u8) -> R) -> R {
        // SAFETY: the body follows the tag inside the slot.
        f(unsafe { self.slot_ptr(i).add(TAG) })
    }
}

/// One slot of the model's ring.
#[cfg(handoff_loom)]
struct Slot {
    tag: AtomicU64,
    body: handoff_sync::cell::UnsafeCell<Vec<u8>>,
}

/// The ring's memory (the model: loom's atomics and cells on the heap).
#[cfg(handoff_loom)]
pub struct Shared {
    header: Header,
    slots: Box<[Slot]>,
    mask: u64,
}

// SAFETY: as in a normal build: the slots' bodies are handed from one side to the other by the
// tags and the consumer's count (which is what loom checks).
#[cfg(handoff_loom)]
unsafe impl Send for Shared {}
// SAFETY: as above.
#[cfg(handoff_loom)]
unsafe impl Sync for Shared {}

#[cfg(handoff_loom)]
impl Shared {
    /// A new ring of `capacity` (a power of two, at least 2) slots for messages of `wire` bytes.
    pub fn heap(capacity: usize, wire: usize) -> std::io::Result<Shared> {
        if capacity < 2 || !capacity.is_power_of_two() {
            return Err(invalid(format!("a ring of {capacity} slots")));
        }
        let slots = (0..capacity)
            .map(|_| Slot {
                tag: AtomicU64::new(0),
                body: handoff_sync::cell::UnsafeCell::new(vec![0; wire]),
            })
            .collect();
        Ok(Shared {
            header: Header {
                magic: AtomicU64::new(MAGIC),
                capacity: AtomicU64::new(capacity as u64),
                slot: AtomicU64::new(slot_size(wire) as u64),
                producer: Padded(SideState::new()),
                consumer: Padded(SideState::new()),
            },
            slots,
            mask: capacity as u64 - 1,
        })
    }

    pub(crate) fn header(&self) -> &Header {
        &self.header
    }

    /// Slots in the ring.
    pub fn capacity(&self) -> usize {
        self.mask as usize + 1
    }
}

/// What a handle reads of its ring (the model: the ring itself).
#[cfg(handoff_loom)]
pub(crate) struct Geometry {
    shared: std::sync::Arc<Shared>,
    pub mask: u64,
}

#[cfg(handoff_loom)]
impl Geometry {
    pub fn of(shared: &std::sync::Arc<Shared>) -> Geometry {
        Geometry {
            shared: shared.clone(),
            mask: shared.mask,
        }
    }

    pub fn header(&self) -> &Header {
        &self.shared.header
    }

    fn slot(&self, i: u64) -> &Slot {
        &self.shared.slots[(i & self.mask) as usize]
    }

    pub fn tag(&self, i: u64) -> &AtomicU64 {
        &self.slot(i).tag
    }

    /// # Safety
    /// As in a normal build (loom checks it).
    pub unsafe fn write<R>(&self, i: u64, f: impl FnOnce(*mut u8) -> R) -> R {
        // SAFETY: loom checks that no other access to the body overlaps this one.
        self.slot(i)
            .body
            .with_mut(|b| f(unsafe { (*b).as_mut_ptr() }))
    }

    /// # Safety
    /// As in a normal build (loom checks it).
    pub unsafe fn read<R>(&self, i: u64, f: impl FnOnce(*const u8) -> R) -> R {
        // SAFETY: loom checks that no write to the body overlaps this read.
        self.slot(i).body.with(|b| f(unsafe { (*b).as_ptr() }))
    }
}
