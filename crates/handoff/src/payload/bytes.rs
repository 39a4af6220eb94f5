//! `bytes:N`: an N-byte message held inline (moved by value through the transport).
//!
//! Layout: 8-byte sequence, 4-byte producer, 4 spare bytes, then `W = N/8 - 2` body words, so the
//! whole message is exactly N bytes.

use crate::message::{body_word, key, Message, BODY_STEP};

/// An inline message of `16 + 8 * W` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Inline<const W: usize> {
    seq: u64,
    producer: u32,
    spare: u32,
    body: [u64; W],
}

impl<const W: usize> Message for Inline<W> {
    type Form = ();

    crate::message::plain_wire!();

    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        let k = key(producer, seq);
        let mut body = [0u64; W];
        let mut e = body_word(k, 0);
        for w in body.iter_mut() {
            *w = e;
            e = e.wrapping_add(BODY_STEP);
        }
        Inline {
            seq,
            producer,
            spare: k as u32,
            body,
        }
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
        let mut bad = (self.spare != k as u32) as u64;
        let mut e = body_word(k, 0);
        for w in self.body.iter() {
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
    fn size_is_n_and_corruption_is_caught() {
        assert_eq!(std::mem::size_of::<Inline<6>>(), 64);
        let mut m = Inline::<6>::build(3, 99);
        assert!(m.check().is_some());
        m.body[5] ^= 1;
        assert!(m.check().is_none());
    }
}
