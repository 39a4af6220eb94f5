//! `boxed:N`: an N-byte heap buffer moved by pointer. The producer allocates it, the consumer
//! drops it, so the allocator's cross-thread free path is part of what is measured.

use crate::message::{body_word, key, Message, BODY_STEP};

/// A header plus a boxed body of `8 * W` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boxed<const W: usize> {
    seq: u64,
    producer: u32,
    body: Box<[u64; W]>,
}

impl<const W: usize> Message for Boxed<W> {
    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        let k = key(producer, seq);
        let mut body = Box::new([0u64; W]);
        let mut e = body_word(k, 0);
        for w in body.iter_mut() {
            *w = e;
            e = e.wrapping_add(BODY_STEP);
        }
        Boxed {
            seq,
            producer,
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
        let mut bad = 0;
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
    fn boxed_roundtrip_and_corruption() {
        let mut m = Boxed::<8>::build(1, 2);
        assert_eq!(m.check(), Some(key(1, 2)));
        m.body[0] = 0;
        assert!(m.check().is_none());
    }
}
