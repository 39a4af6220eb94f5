//! `boxed:N`, and `bytes:N` at a size that is not compiled inline: an N-byte heap buffer moved
//! by pointer. The producer allocates it, the consumer drops it, so the allocator's cross-thread
//! free path is part of what is measured.
//!
//! One type serves every N: the body's length is the message's [`Form`](Message::Form), taken
//! from the trial's payload, and travels in the header (a 24-byte value, as a `Box<[u8]>` with
//! the header would be). The catalog is therefore compiled once for every size, not once per
//! size; what is moved and allocated is the same. The body is the run of words the message's
//! key gives (see [`body_word`]) in little-endian order, cut at N bytes, and every byte of it is
//! checked.

use crate::message::{body_word, key, Message, BODY_STEP};
use crate::payload::PayloadKind;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// The length of a heap body in bytes (the [`Form`](Message::Form) of [`Boxed`]); the default
/// is 64 bytes (`boxed:64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyLen(u32);

impl BodyLen {
    /// A body of `bytes` bytes (at least one).
    pub fn new(bytes: u32) -> BodyLen {
        BodyLen(bytes.max(1))
    }

    /// The body's length in bytes.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl Default for BodyLen {
    fn default() -> BodyLen {
        BodyLen(64)
    }
}

/// A header plus a heap body of `len` bytes, owned like a `Box<[u8]>` whose length is kept
/// beside the header rather than in a fat pointer.
pub struct Boxed {
    seq: u64,
    producer: u32,
    len: u32,
    body: NonNull<u8>,
}

// SAFETY: a `Boxed` owns its body exclusively (as a `Box<[u8]>` does) and hands out only shared
// references to it through `&self`; `u8` is `Send + Sync`.
unsafe impl Send for Boxed {}
// SAFETY: as above: `&Boxed` only reads the body.
unsafe impl Sync for Boxed {}

impl Boxed {
    /// Takes ownership of `body` (never empty).
    #[inline(always)]
    fn own(producer: u32, seq: u64, body: Box<[u8]>) -> Boxed {
        let len = body.len() as u32;
        let ptr = Box::into_raw(body).cast::<u8>();
        Boxed {
            seq,
            producer,
            len,
            // SAFETY: `Box::into_raw` never returns null.
            body: unsafe { NonNull::new_unchecked(ptr) },
        }
    }

    /// The body's bytes.
    #[inline(always)]
    pub fn body(&self) -> &[u8] {
        // SAFETY: `body` points to `len` initialised bytes this value owns (see `own`), alive as
        // long as `self`.
        unsafe { std::slice::from_raw_parts(self.body.as_ptr(), self.len as usize) }
    }

    /// The body's bytes, mutably (a test damages a message with it).
    #[cfg(test)]
    fn body_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `body`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.body.as_ptr(), self.len as usize) }
    }
}

impl Drop for Boxed {
    #[inline(always)]
    fn drop(&mut self) {
        let body = std::ptr::slice_from_raw_parts_mut(self.body.as_ptr(), self.len as usize);
        // SAFETY: `body` is the `Box<[u8]>` given to `own` (same pointer and length), dropped
        // once, here.
        drop(unsafe { Box::from_raw(body) });
    }
}

impl Clone for Boxed {
    fn clone(&self) -> Boxed {
        Boxed::own(self.producer, self.seq, self.body().into())
    }
}

impl PartialEq for Boxed {
    fn eq(&self, other: &Boxed) -> bool {
        self.seq == other.seq && self.producer == other.producer && self.body() == other.body()
    }
}

impl Eq for Boxed {}

impl fmt::Debug for Boxed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Boxed")
            .field("seq", &self.seq)
            .field("producer", &self.producer)
            .field("body", &self.body())
            .finish()
    }
}

/// Writes the first `to.len()` (at most 8) bytes of `word`, little-endian first.
#[inline(always)]
fn write_bytes(to: &mut [MaybeUninit<u8>], word: u64) {
    for (to, from) in to.iter_mut().zip(word.to_le_bytes()) {
        to.write(from);
    }
}

impl Message for Boxed {
    type Form = BodyLen;

    fn form(kind: PayloadKind) -> BodyLen {
        match kind.heap_body() {
            Some(bytes) => BodyLen::new(bytes as u32),
            None => BodyLen::default(),
        }
    }

    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        Boxed::build_in(BodyLen::default(), producer, seq)
    }

    #[inline(always)]
    fn build_in(form: BodyLen, producer: u32, seq: u64) -> Self {
        let k = key(producer, seq);
        let len = form.get() as usize;
        let mut body: Vec<u8> = Vec::with_capacity(len);
        let mut e = body_word(k, 0);
        let mut words = body.spare_capacity_mut()[..len].chunks_exact_mut(8);
        for w in &mut words {
            write_bytes(w, e);
            e = e.wrapping_add(BODY_STEP);
        }
        write_bytes(words.into_remainder(), e);
        // SAFETY: the first `len` bytes were written above (whole words, then the tail), and
        // the capacity is at least `len`.
        unsafe { body.set_len(len) };
        let body = body.into_boxed_slice();
        Boxed::own(producer, seq, body)
    }

    #[inline(always)]
    fn producer(&self) -> u32 {
        self.producer
    }

    #[inline(always)]
    fn seq(&self) -> u64 {
        self.seq
    }

    #[inline(always)]
    fn check(&self) -> Option<u64> {
        let k = key(self.producer, self.seq);
        let mut bad = 0;
        let mut e = body_word(k, 0);
        let mut words = self.body().chunks_exact(8);
        for w in &mut words {
            bad |= u64::from_le_bytes(w.try_into().expect("8 bytes")) ^ e;
            e = e.wrapping_add(BODY_STEP);
        }
        for (got, want) in words.remainder().iter().zip(e.to_le_bytes()) {
            bad |= u64::from(got ^ want);
        }
        (bad == 0).then_some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_roundtrip_and_corruption() {
        let mut m = Boxed::build(1, 2);
        assert_eq!(m.check(), Some(key(1, 2)));
        m.body_mut()[0] ^= 1;
        assert!(m.check().is_none());
    }

    #[test]
    fn every_size_has_its_length_and_survives_a_clone() {
        let sizes = crate::payload::INLINE_SIZES.map(PayloadKind::Boxed);
        let odd = [8, 9, 100, 150_000, 1 << 20].map(PayloadKind::Bytes);
        for kind in sizes.into_iter().chain(odd) {
            let m = Boxed::build_in(Boxed::form(kind), 3, 9);
            assert_eq!(Some(m.body().len()), kind.heap_body(), "{kind}");
            assert_eq!(m.check(), Some(key(3, 9)));
            let c = m.clone();
            assert_eq!(c, m);
            drop(m);
            assert_eq!(c.check(), Some(key(3, 9)));
        }
        assert_eq!(std::mem::size_of::<Boxed>(), 24);
    }

    /// Every byte counts, the tail of a body that is not a whole number of words included.
    #[test]
    fn a_damaged_byte_anywhere_is_caught() {
        for len in [8u32, 13, 100] {
            for at in 0..len as usize {
                let mut m = Boxed::build_in(BodyLen::new(len), 2, 77);
                m.body_mut()[at] ^= 0x10;
                assert!(m.check().is_none(), "len {len}, byte {at}");
            }
        }
    }
}
