//! The ring's protocol: a bounded single-producer single-consumer queue of fixed-size slots.
//!
//! **Messages by tag, room by a lazy count.** Message `i` goes to slot `i & mask`, and the
//! slot's tag says which message it holds (`i + 1`; 0 before the first lap). The producer
//! writes the message, then stores the tag with `Release`; the consumer loads the tag with
//! `Acquire` and reads the message when the tag is the one it expects. So a consumer that has
//! caught up polls the very line the next message arrives in, and no index line moves per
//! message. The other way, the consumer publishes how many messages it has consumed
//! (`consumed`, `Release`) once per *span* of slots (eight cache lines' worth, see [`span`]),
//! and the producer, which keeps that figure cached, reloads it (`Acquire`) only when the
//! cached one says the ring is full. The consumer never writes a slot.
//!
//! Why: with a shared `head` written for every message (the classic design), a consumer that
//! has caught up reads that line on every poll and takes it from the producer, which then waits
//! for it back before its next publication; and a producer at the full end that polls slot tags
//! the consumer clears trades each slot's line with it. Either way the two fall into step at a
//! cache-line transfer per message (measured: 3–5× below `handoff-spsc` between two threads).
//! Here the only lines that move per message are the slots', which must.
//!
//! **Runs.** A batch is written slot by slot, each tag stored as its message is written, with
//! no system call and no fence; a run is received the same way, up to the first slot not yet
//! tagged, and looking at one tag for the whole run when its last message is there.
//!
//! **Ends.** A side that drops its handle sets its `gone` flag (after its last publication), so
//! the other side can tell "empty for now" from "empty for good". A side whose *process* dies
//! without dropping anything is found by [`crate::wait`]'s liveness check.
//!
//! The handles are byte-level: a message is written into its slot, and read out of it, by the
//! caller's function, given a pointer to the ring's wire size of bytes.

use crate::memory::{Geometry, Shared};
use crate::wait::{self, Liveness, Waiting};
use handoff_sync::sync::atomic::Ordering;
use std::sync::Arc;

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

/// The producer's end.
pub struct Producer {
    /// Keeps the memory alive.
    _shared: Arc<Shared>,
    ring: Geometry,
    /// The next message's number.
    head: u64,
    /// The consumer's `consumed`, as last read.
    cached_consumed: u64,
    waiting: Waiting,
    consumer: Liveness,
}

/// The consumer's end.
pub struct Consumer {
    /// Keeps the memory alive.
    _shared: Arc<Shared>,
    ring: Geometry,
    /// The next message's number.
    tail: u64,
    /// Slots freed at once ([`span`]), a power of two.
    span: u64,
    waiting: Waiting,
    producer: Liveness,
}

impl Producer {
    /// Takes the producer's end of `shared` (a fresh ring, in this process or another),
    /// waiting as `waiting` says. A ring has one producer: take it once.
    pub fn take(shared: Arc<Shared>, waiting: Waiting) -> Producer {
        shared
            .header()
            .producer
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

    /// Writes the next message into its slot (free, checked by the caller) with `write`, and
    /// tags it.
    #[inline(always)]
    fn put(&mut self, write: impl FnOnce(*mut u8)) {
        // SAFETY: the slot is free: the consumer has consumed the message a lap before, by its
        // count loaded with Acquire.
        unsafe { self.ring.write(self.head, write) };
        self.ring
            .tag(self.head)
            .store(self.head + 1, Ordering::Release);
        self.head += 1;
    }

    /// Writes one message with `write` (given a pointer valid for writes of the ring's wire
    /// size, 8-aligned) if there is room; returns whether it did.
    #[inline]
    pub fn try_push(&mut self, write: impl FnOnce(*mut u8)) -> bool {
        if !self.has_room() {
            return false;
        }
        self.put(write);
        self.woke();
        true
    }

    /// Writes as many of `run`'s items as there is room for, each with `write` (as in
    /// [`Producer::try_push`]); returns how many (0 when the ring is full). `next` is the item
    /// left over from a previous call, written first.
    #[inline]
    pub fn push_run<T>(
        &mut self,
        next: &mut Option<T>,
        run: &mut impl Iterator<Item = T>,
        write: impl Fn(&T, *mut u8),
    ) -> usize {
        let mut n = 0;
        while self.has_room() {
            let Some(m) = next.take().or_else(|| run.next()) else {
                break;
            };
            self.put(|at| write(&m, at));
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
        self.consumer.left(&self.ring.header().consumer.0, now)
    }

    /// Waits once for room, after the `round`-th failed attempt (see [`Waiting`]); returns
    /// whether it slept. A sleep ends at room or at the consumer's leaving: the consumer's
    /// `gone` is part of what the sleeper checks after announcing its sleep, or a consumer
    /// leaving just before would leave it asleep until its nap ends (the model tests found
    /// that one).
    pub fn pause(&self, round: &mut u32) -> bool {
        let h = self.ring.header();
        let (capacity, head) = (self.ring.mask + 1, self.head);
        let consumer = &h.consumer.0;
        wait::pause(self.waiting, round, &h.producer.0, || {
            head - consumer.consumed.load(Ordering::SeqCst) < capacity
                || consumer.gone.load(Ordering::SeqCst) != 0
        })
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        let h = self.ring.header();
        h.producer.0.gone.store(1, Ordering::Release);
        wait::wake_always(&h.consumer.0);
    }
}

impl Consumer {
    /// Takes the consumer's end of `shared` (a fresh ring, in this process or another),
    /// waiting as `waiting` says. A ring has one consumer: take it once.
    pub fn take(shared: Arc<Shared>, waiting: Waiting) -> Consumer {
        let h = shared.header();
        h.consumer
            .0
            .pid
            .store(std::process::id(), Ordering::Release);
        let slot = h.slot_bytes();
        let span = span(shared.capacity() as u64, slot);
        Consumer {
            ring: Geometry::of(&shared),
            _shared: shared,
            tail: 0,
            span,
            waiting,
            producer: Liveness::default(),
        }
    }

    /// Whether the next message is in its slot.
    #[inline(always)]
    fn is_ready(&self) -> bool {
        self.ring.tag(self.tail).load(Ordering::Acquire) == self.tail + 1
    }

    /// Reads the next message (ready, checked by the caller) with `read`; at the end of a span,
    /// frees the span's slots.
    #[inline(always)]
    fn take_next<T>(&mut self, read: impl FnOnce(*const u8) -> T) -> T {
        // SAFETY: the slot's tag, loaded with Acquire, says it holds message `tail`, which the
        // producer wrote before the tag.
        let m = unsafe { self.ring.read(self.tail, read) };
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

    /// The next message, read with `read` (given a pointer valid for reads of the ring's wire
    /// size, 8-aligned), if one is ready.
    #[inline]
    pub fn try_pop<T>(&mut self, read: impl FnOnce(*const u8) -> T) -> Option<T> {
        if !self.is_ready() {
            return None;
        }
        Some(self.take_next(read))
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

    /// Reads up to `max` ready messages with `read` (as in [`Consumer::try_pop`]) and hands
    /// each to `f`; returns how many (0 if none is ready).
    #[inline]
    pub fn pop_each<T>(
        &mut self,
        max: usize,
        read: impl Fn(*const u8) -> T,
        f: &mut impl FnMut(T),
    ) -> usize {
        let n = self.ready_run(max);
        for _ in 0..n {
            f(self.take_next(&read));
        }
        n as usize
    }

    /// Whether the producer has left for good: its `gone` flag (set after its last
    /// publication), or its process died (looked at now and then; at once when `now`, after a
    /// sleep). Messages it published before may still be ready.
    pub fn producer_gone(&mut self, now: bool) -> bool {
        self.producer.left(&self.ring.header().producer.0, now)
    }

    /// Waits once for a message, after the `round`-th failed attempt (see [`Waiting`]);
    /// returns whether it slept. A sleep ends at the next message or at the producer's leaving
    /// (see [`Producer::pause`]).
    pub fn pause(&self, round: &mut u32) -> bool {
        let (tag, want) = (self.ring.tag(self.tail), self.tail + 1);
        let h = self.ring.header();
        wait::pause(self.waiting, round, &h.consumer.0, || {
            tag.load(Ordering::SeqCst) == want || h.producer.0.gone.load(Ordering::SeqCst) != 0
        })
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        let h = self.ring.header();
        h.consumer.0.gone.store(1, Ordering::Release);
        wait::wake_always(&h.producer.0);
    }
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn a_span_is_a_power_of_two_of_at_most_half_the_ring() {
        assert_eq!(span(1024, 16), 32);
        assert_eq!(span(1024, 72), 4);
        assert_eq!(span(1024, 4104), 1);
        assert_eq!(span(4, 16), 2);
        assert_eq!(span(2, 16), 1);
    }
}
