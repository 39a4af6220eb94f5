//! The message contract: every message carries its producer id and sequence number, and a body
//! derived from them, so the consumer can check exactly-once delivery, order and integrity with
//! O(1) work and no allocation.

use crate::payload::PayloadKind;

/// A message type the harness can send through a transport.
///
/// Implementations are the payload shapes of [`crate::payload`]; a transport adapter never looks
/// inside a message, it only moves it.
///
/// `Clone + Sync` because a broadcast transport (fan-out) gives every consumer a message of its
/// own: it copies the one it was sent (a deep copy for payloads with heap parts, as broadcasting
/// an owned value costs), or lets several readers look at one copy.
pub trait Message: Clone + Send + Sync + 'static {
    /// What building a message needs besides its producer and sequence number: `()` for a
    /// payload whose size is its type's; the body's length for [`Boxed`](crate::payload::Boxed),
    /// one type for every `boxed:N`. An engine takes it from the trial's payload once per sample
    /// ([`Message::form`]) and builds every message in it ([`Message::build_in`]).
    type Form: Copy + Default + Send + Sync + std::fmt::Debug + 'static;

    /// The form of the messages of payload `kind` (of which this type is the message type).
    #[inline]
    fn form(kind: PayloadKind) -> Self::Form {
        let _ = kind;
        Self::Form::default()
    }

    /// Builds message number `seq` of producer `producer` in the default form; the body is a
    /// pure function of both.
    fn build(producer: u32, seq: u64) -> Self;

    /// Builds message number `seq` of producer `producer` in `form` (see [`Message::Form`]).
    #[inline(always)]
    fn build_in(form: Self::Form, producer: u32, seq: u64) -> Self {
        let _ = form;
        Self::build(producer, seq)
    }
    /// The producer id carried in the header.
    fn producer(&self) -> u32;
    /// The sequence number carried in the header.
    fn seq(&self) -> u64;
    /// Checks the body against the header. Returns the message's key (see [`key`]) if the body is
    /// intact, `None` if any byte differs from what [`Message::build`] wrote.
    fn check(&self) -> Option<u64>;
    /// The header packed into one word (see [`header`]): the verifier's common case compares
    /// it with the one header it expects next, in a single comparison. A payload that stores
    /// its header packed returns it as is.
    #[inline(always)]
    fn header(&self) -> u64 {
        header(self.producer(), self.seq())
    }
    /// The run's packed headers, if this payload is nothing but its packed header: every
    /// message's [`check`](Message::check) is `Some(header)` and its [`header`](Message::header)
    /// is the message itself. The verifier then checks a run as a slice of words, with no call
    /// per message. Payloads with a body keep the default, `None`.
    #[inline(always)]
    fn headers_only(run: &[Self]) -> Option<&[u64]> {
        let _ = run;
        None
    }

    /// The message's size as a plain block of bytes, for transports that move bytes rather than
    /// Rust values (plugins behind the C ABI, see [`crate::plugin`]); `None` for a payload with
    /// heap parts, which such a transport cannot carry.
    const WIRE_SIZE: Option<usize> = None;

    /// Writes the message as a block of [`WIRE_SIZE`](Message::WIRE_SIZE) bytes at `out`.
    ///
    /// # Safety
    /// `WIRE_SIZE` is `Some(n)` and `out` is valid for `n` bytes of writes.
    #[inline(always)]
    unsafe fn write_wire(&self, out: *mut u8) {
        let _ = out;
        unreachable!("write_wire on a payload without a wire form")
    }

    /// Reads a message back from a block of [`WIRE_SIZE`](Message::WIRE_SIZE) bytes. The block
    /// may have been damaged by a faulty transport: any bytes give a value (never undefined
    /// behaviour), whose [`check`](Message::check) fails unless the block is one that
    /// [`write_wire`](Message::write_wire) wrote.
    ///
    /// # Safety
    /// `WIRE_SIZE` is `Some(n)` and `block` is valid for `n` bytes of reads.
    #[inline(always)]
    unsafe fn read_wire(block: *const u8) -> Self {
        let _ = block;
        unreachable!("read_wire on a payload without a wire form")
    }
}

/// The wire form of a plain payload: a `repr(C)` or `repr(transparent)` struct of integers with
/// no padding, for which every bit pattern is a valid value, moved as its own bytes. Used inside
/// an `impl Message` block.
macro_rules! plain_wire {
    () => {
        const WIRE_SIZE: Option<usize> = Some(std::mem::size_of::<Self>());

        #[inline(always)]
        unsafe fn write_wire(&self, out: *mut u8) {
            // SAFETY: the caller gives room for `size_of::<Self>()` bytes; `Self` has no padding
            // (every byte is initialised), and the two regions cannot overlap (`self` is a Rust
            // value, `out` the transport's block).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    (self as *const Self).cast::<u8>(),
                    out,
                    std::mem::size_of::<Self>(),
                )
            }
        }

        #[inline(always)]
        unsafe fn read_wire(block: *const u8) -> Self {
            // SAFETY: the caller gives `size_of::<Self>()` readable bytes; every bit pattern is a
            // valid `Self` (integers only); the block may be less aligned than `Self`.
            unsafe { std::ptr::read_unaligned(block.cast::<Self>()) }
        }
    };
}
pub(crate) use plain_wire;

/// The largest producer id a message can carry (the `u64` payload packs it into 16 bits).
pub const MAX_PRODUCERS: usize = 1 << 16;
/// The largest sequence number a message can carry (the `u64` payload packs it into 48 bits).
pub const MAX_SEQ: u64 = (1 << 48) - 1;

/// A header no message of a valid stream carries: it would be sequence number [`MAX_SEQ`], and
/// a stream has at most [`MAX_SEQ`] messages per producer (numbered from 0). [`header`] returns
/// it for every (producer, seq) that does not fit the packing.
pub const NO_HEADER: u64 = u64::MAX;

/// `producer << 48 | seq`, the packed header of message `seq` of `producer`, or [`NO_HEADER`] if
/// either is out of range. Packed headers of one producer's consecutive messages are consecutive
/// integers.
#[inline(always)]
pub fn header(producer: u32, seq: u64) -> u64 {
    if (producer as usize) < MAX_PRODUCERS && seq <= MAX_SEQ {
        ((producer as u64) << 48) | seq
    } else {
        NO_HEADER
    }
}

/// The key of a message: a well-mixed 64-bit function of (producer, seq) from which every body
/// byte is derived. Two transports that deliver the same multiset of intact messages produce the
/// same sum of keys, which is how the digest shows they agree.
#[inline(always)]
pub fn key(producer: u32, seq: u64) -> u64 {
    mix(((producer as u64) << 48) ^ seq)
}

/// A cheap bijective 64-bit mixer (a multiply-xorshift finaliser).
#[inline(always)]
pub fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

/// The difference between consecutive body words (an odd constant, so every word differs).
pub const BODY_STEP: u64 = 0xD6E8_FEB8_6659_FD93;

/// The word at position `i` of a body derived from `key`: `key + i * BODY_STEP`. Loops over a
/// whole body add [`BODY_STEP`] instead of multiplying.
#[inline(always)]
pub fn body_word(key: u64, i: usize) -> u64 {
    key.wrapping_add((i as u64).wrapping_mul(BODY_STEP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_pack_or_say_they_cannot() {
        assert_eq!(header(3, 5), (3 << 48) | 5);
        assert_eq!(header(0, MAX_SEQ), MAX_SEQ);
        assert_eq!(header(MAX_PRODUCERS as u32, 0), NO_HEADER);
        assert_eq!(header(0, MAX_SEQ + 1), NO_HEADER);
        // Consecutive messages of one producer have consecutive headers.
        assert_eq!(header(7, 41) + 1, header(7, 42));
        // The u64 payload's own word is its packed header, as the default would compute it.
        let w = crate::payload::Word::build(9, 1234);
        assert_eq!(w.header(), header(w.producer(), w.seq()));
        let r = crate::payload::Report64::build(9, 1234);
        assert_eq!(r.header(), header(9, 1234));
    }

    #[test]
    fn keys_differ_between_producers_and_sequences() {
        let mut seen = std::collections::HashSet::new();
        for p in 0..8 {
            for s in 0..1000 {
                assert!(seen.insert(key(p, s)), "collision at {p}/{s}");
            }
        }
    }
}
