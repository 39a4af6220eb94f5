//! `u64`: a bare 8-byte word, header only. Producer id in the top 16 bits, sequence in the low 48.

use crate::message::Message;

/// An 8-byte message: `producer << 48 | seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Word(pub u64);

impl Message for Word {
    type Form = ();

    crate::message::plain_wire!();

    #[inline(always)]
    fn build(producer: u32, seq: u64) -> Self {
        Word(((producer as u64) << 48) | (seq & crate::message::MAX_SEQ))
    }
    #[inline(always)]
    fn producer(&self) -> u32 {
        (self.0 >> 48) as u32
    }
    #[inline(always)]
    fn seq(&self) -> u64 {
        self.0 & crate::message::MAX_SEQ
    }
    #[inline(always)]
    fn check(&self) -> Option<u64> {
        // The word is all header: there is no body that could be corrupted independently.
        Some(self.0)
    }
    #[inline(always)]
    fn header(&self) -> u64 {
        // Already packed as `crate::message::header` packs it.
        self.0
    }
    #[inline(always)]
    fn headers_only(run: &[Self]) -> Option<&[u64]> {
        // SAFETY: `Word` is `repr(transparent)` over `u64` (same size, alignment and valid
        // values), so a slice of words is a slice of `u64`s of the same length, borrowed as long.
        Some(unsafe { std::slice::from_raw_parts(run.as_ptr().cast::<u64>(), run.len()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks() {
        let w = Word::build(65_535, crate::message::MAX_SEQ);
        assert_eq!(w.producer(), 65_535);
        assert_eq!(w.seq(), crate::message::MAX_SEQ);
        assert_eq!(std::mem::size_of::<Word>(), 8);
    }
}
