//! `boxed:N`: an N-byte heap buffer moved by pointer. The producer allocates it, the consumer
//! drops it, so the allocator's cross-thread free path is part of what is measured.
//!
//! One type serves every N: the body's length is the message's [`Form`](Message::Form), taken
//! from the trial's payload, and travels in the header (a 24-byte value, as a `Box<[u64; W]>`
//! with the header would be). The catalog is therefore compiled once for the five sizes, not
//! once per size; what is moved and allocated is the same.

use crate::message::{body_word, key, Message, BODY_STEP};
use crate::payload::PayloadKind;
use std::fmt;
use std::ptr::NonNull;

/// The length of a boxed body in 8-byte words (the [`Form`](Message::Form) of [`Boxed`]); the
/// default is 8 words (`boxed:64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyWords(u32);

impl BodyWords {
    /// A body of `words` words (at least one).
    pub fn new(words: u32) -> BodyWords {
        BodyWords(words.max(1))
    }

    /// The body's length in words.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl Default for BodyWords {
    fn default() -> BodyWords {
        BodyWords(8)
    }
}

/// A header plus a heap body of `8 * words` bytes, owned like a `Box<[u64]>` whose length is
/// kept beside the header rather than in a fat pointer.
pub struct Boxed {
    seq: u64,
    producer: u32,
    words: u32,
    body: NonNull<u64>,
}

// SAFETY: a `Boxed` owns its body exclusively (as a `Box<[u64]>` does) and hands out only shared
// references to it through `&self`; `u64` is `Send + Sync`.
unsafe impl Send for Boxed {}
// SAFETY: as above: `&Boxed` only reads the body.
unsafe impl Sync for Boxed {}

impl Boxed {
    /// Takes ownership of `body` (never empty).
    #[inline(always)]
    fn own(producer: u32, seq: u64, body: Box<[u64]>) -> Boxed {
        let words = body.len() as u32;
        let ptr = Box::into_raw(body).cast::<u64>();
        Boxed {
            seq,
            producer,
            words,
            // SAFETY: `Box::into_raw` never returns null.
            body: unsafe { NonNull::new_unchecked(ptr) },
        }
    }

    /// The body's words.
    #[inline(always)]
    pub fn body(&self) -> &[u64] {
        // SAFETY: `body` points to `words` initialised words this value owns (see `own`), alive
        // as long as `self`.
        unsafe { std::slice::from_raw_parts(self.body.as_ptr(), self.words as usize) }
    }

    /// The body's words, mutably (a test damages a message with it).
    #[cfg(test)]
    fn body_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `body`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.body.as_ptr(), self.words as usize) }
    }
}

impl Drop for Boxed {
    #[inline(always)]
    fn drop(&mut self) {
        let body = std::ptr::slice_from_raw_parts_mut(self.body.as_ptr(), self.words as usize);
        // SAFETY: `body` is the `Box<[u64]>` given to `own` (same pointer and length), dropped
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

impl Message for Boxed {
    type Form = BodyWords;

    fn form(kind: PayloadKind) -> BodyWords {
        match kind {
            PayloadKind::Boxed(bytes) => BodyWords::new((bytes / 8) as u32),
            _ => BodyWords::default(),
        }
    }

    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        Boxed::build_in(BodyWords::default(), producer, seq)
    }

    #[inline(always)]
    fn build_in(form: BodyWords, producer: u32, seq: u64) -> Self {
        let k = key(producer, seq);
        let mut e = body_word(k, 0);
        let body: Box<[u64]> = (0..form.get())
            .map(|_| {
                let w = e;
                e = e.wrapping_add(BODY_STEP);
                w
            })
            .collect();
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
        for w in self.body() {
            bad |= *w ^ e;
            e = e.wrapping_add(BODY_STEP);
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
        m.body_mut()[0] = 0;
        assert!(m.check().is_none());
    }

    #[test]
    fn every_size_has_its_length_and_survives_a_clone() {
        for n in crate::payload::SIZES {
            let kind = PayloadKind::Boxed(n);
            let m = Boxed::build_in(Boxed::form(kind), 3, 9);
            assert_eq!(m.body().len() * 8, n, "{kind}");
            assert_eq!(m.check(), Some(key(3, 9)));
            let c = m.clone();
            assert_eq!(c, m);
            drop(m);
            assert_eq!(c.check(), Some(key(3, 9)));
        }
        assert_eq!(std::mem::size_of::<Boxed>(), 24);
    }
}
