//! `report64`: a 64-byte report struct, aligned to one cache line.

use crate::message::{body_word, key, Message};

/// A 64-byte, cache-line-aligned report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Report64 {
    seq: u64,
    producer: u32,
    kind: u32,
    timestamp: u64,
    value: u64,
    fields: [u64; 4],
}

const _: () = assert!(std::mem::size_of::<Report64>() == 64);

impl Message for Report64 {
    type Form = ();

    crate::message::plain_wire!();

    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        let k = key(producer, seq);
        Report64 {
            seq,
            producer,
            kind: (k >> 60) as u32,
            timestamp: body_word(k, 0),
            value: body_word(k, 1),
            fields: [
                body_word(k, 2),
                body_word(k, 3),
                body_word(k, 4),
                body_word(k, 5),
            ],
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
        let mut bad = (self.kind != (k >> 60) as u32) as u64;
        bad |= self.timestamp ^ body_word(k, 0);
        bad |= self.value ^ body_word(k, 1);
        for (i, f) in self.fields.iter().enumerate() {
            bad |= *f ^ body_word(k, 2 + i);
        }
        (bad == 0).then_some(k)
    }
}
