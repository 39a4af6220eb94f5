//! `event488` and `event488+tails`: the streaming scenario's event.
//!
//! A 448-byte `repr(C)` tagged event (three variants, each embedding a 32-byte [`Contract`]), plus
//! an optional C string and an optional byte vector: 488 bytes on x86_64. Without tails both
//! options are `None`; with tails (`TAILS = true`) the producer allocates both for every event and
//! the consumer drops them, so two allocations and two cross-thread frees ride on every hand-off.

use crate::message::{body_word, key, Message};
use std::ffi::CString;

/// A 32-byte instrument description embedded in every event variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Contract {
    /// Instrument id.
    pub id: u64,
    /// Exchange code.
    pub exchange: u32,
    /// Currency code (ASCII).
    pub currency: [u8; 4],
    /// Symbol (ASCII, zero padded).
    pub symbol: [u8; 16],
}

/// The header common to every variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct EventHeader {
    /// Sequence number within the producer's stream.
    pub seq: u64,
    /// Producer id.
    pub producer: u32,
    /// Variant-independent flags derived from the key.
    pub flags: u32,
}

/// A trade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Trade {
    /// Header.
    pub header: EventHeader,
    /// Instrument.
    pub contract: Contract,
    /// Price in ticks.
    pub price: u64,
    /// Quantity.
    pub quantity: u64,
    /// Further attributes.
    pub extra: [u64; 47],
}

/// A quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Quote {
    /// Header.
    pub header: EventHeader,
    /// Instrument.
    pub contract: Contract,
    /// Bid and ask prices and quantities.
    pub book: [u64; 4],
    /// Further attributes.
    pub extra: [u64; 45],
}

/// A status change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Status {
    /// Header.
    pub header: EventHeader,
    /// Instrument.
    pub contract: Contract,
    /// Status code.
    pub code: u64,
    /// Status text (ASCII, zero padded).
    pub text: [u8; 64],
    /// Further attributes.
    pub extra: [u64; 40],
}

/// The 448-byte tagged event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, u32)]
pub enum TaggedEvent {
    /// A trade.
    Trade(Trade),
    /// A quote.
    Quote(Quote),
    /// A status change.
    Status(Status),
}

/// The whole message: tagged event plus optional heap tails.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Event488<const TAILS: bool> {
    event: TaggedEvent,
    name: Option<CString>,
    blob: Option<Vec<u8>>,
}

const _: () = assert!(std::mem::size_of::<TaggedEvent>() == 448);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Event488<false>>() == 488);

/// Bytes of the tagged event.
const EVENT: usize = std::mem::size_of::<TaggedEvent>();
/// Bytes of the event's wire form: the tagged event, then zeros where the tails lie.
const WIRE: usize = 488;

/// Reads an event without tails from its wire form (see `write_wire`). A block whose tag is not
/// one of the three variants, or whose tail bytes are not zero, gives an event that fails its
/// check (a `Trade` with the block's header and zeros elsewhere, or the block's event with a
/// name tail it must not have), so the verifier reports it as corrupted.
///
/// # Safety
/// `block` is valid for WIRE bytes of reads.
unsafe fn from_wire<const TAILS: bool>(block: *const u8) -> Event488<TAILS> {
    // SAFETY (every read below): within the WIRE bytes the caller gives; integers and arrays of
    // integers accept any bits; the tagged event is read only once its tag is known valid.
    let tag = unsafe { std::ptr::read_unaligned(block.cast::<u32>()) };
    let tails_zero = (EVENT..WIRE).all(|i| unsafe { *block.add(i) } == 0);
    let event = if tag <= 2 {
        unsafe { std::ptr::read_unaligned(block.cast::<TaggedEvent>()) }
    } else {
        // The header sits at offset 8 in every variant (after the tag, 8-aligned).
        let header = unsafe { std::ptr::read_unaligned(block.add(8).cast::<EventHeader>()) };
        TaggedEvent::Trade(Trade {
            header,
            contract: Contract {
                id: 0,
                exchange: 0,
                currency: [0; 4],
                symbol: [0; 16],
            },
            price: 0,
            quantity: 0,
            extra: [0; 47],
        })
    };
    let damaged = tag > 2 || !tails_zero;
    Event488 {
        event,
        name: damaged.then(|| CString::new("damaged on the wire").expect("no NUL")),
        blob: None,
    }
}

fn contract(k: u64) -> Contract {
    let mut symbol = [0u8; 16];
    for (i, b) in symbol.iter_mut().take(8).enumerate() {
        *b = b'A' + ((k >> (i * 5)) % 26) as u8;
    }
    Contract {
        id: body_word(k, 0),
        exchange: (k >> 32) as u32,
        currency: *b"USD\0",
        symbol,
    }
}

fn fill<const N: usize>(k: u64, from: usize) -> [u64; N] {
    let mut a = [0u64; N];
    for (i, w) in a.iter_mut().enumerate() {
        *w = body_word(k, from + i);
    }
    a
}

fn blob(k: u64) -> Vec<u8> {
    (0..32).map(|i| (body_word(k, i) >> 56) as u8).collect()
}

fn name(producer: u32, seq: u64) -> CString {
    CString::new(format!("evt-{producer}-{seq}")).expect("no interior NUL")
}

fn expected_event(producer: u32, seq: u64) -> (u64, TaggedEvent) {
    let k = key(producer, seq);
    let header = EventHeader {
        seq,
        producer,
        flags: k as u32,
    };
    let contract = contract(k);
    let ev = match seq % 3 {
        0 => TaggedEvent::Trade(Trade {
            header,
            contract,
            price: body_word(k, 1),
            quantity: body_word(k, 2),
            extra: fill(k, 3),
        }),
        1 => TaggedEvent::Quote(Quote {
            header,
            contract,
            book: fill(k, 1),
            extra: fill(k, 5),
        }),
        _ => {
            let mut text = [0u8; 64];
            text[..6].copy_from_slice(b"HALTED");
            TaggedEvent::Status(Status {
                header,
                contract,
                code: body_word(k, 1),
                text,
                extra: fill(k, 2),
            })
        }
    };
    (k, ev)
}

impl<const TAILS: bool> Event488<TAILS> {
    fn header(&self) -> &EventHeader {
        match &self.event {
            TaggedEvent::Trade(t) => &t.header,
            TaggedEvent::Quote(q) => &q.header,
            TaggedEvent::Status(s) => &s.header,
        }
    }
}

impl<const TAILS: bool> Message for Event488<TAILS> {
    type Form = ();

    /// Without tails the event is its 448-byte tagged body and 40 zero bytes (where the two empty
    /// tails lie); with tails it has heap parts and no wire form.
    const WIRE_SIZE: Option<usize> = if TAILS { None } else { Some(WIRE) };

    unsafe fn write_wire(&self, out: *mut u8) {
        // SAFETY: the caller gives room for WIRE bytes. The tails' bytes are zeroed, then the
        // tagged event is copied over the first 448 (its padding bytes are copied as they are,
        // raw memory to raw memory).
        unsafe {
            std::ptr::write_bytes(out, 0, WIRE);
            std::ptr::copy_nonoverlapping(
                (&self.event as *const TaggedEvent).cast::<u8>(),
                out,
                EVENT,
            );
        }
    }

    unsafe fn read_wire(block: *const u8) -> Self {
        // SAFETY: the caller gives WIRE readable bytes.
        unsafe { from_wire(block) }
    }
    fn build(producer: u32, seq: u64) -> Self {
        let (k, event) = expected_event(producer, seq);
        if TAILS {
            Event488 {
                event,
                name: Some(name(producer, seq)),
                blob: Some(blob(k)),
            }
        } else {
            Event488 {
                event,
                name: None,
                blob: None,
            }
        }
    }
    #[inline]
    fn producer(&self) -> u32 {
        self.header().producer
    }
    #[inline]
    fn seq(&self) -> u64 {
        self.header().seq
    }
    fn check(&self) -> Option<u64> {
        let h = self.header();
        let (k, expected) = expected_event(h.producer, h.seq);
        if self.event != expected {
            return None;
        }
        let tails_ok = if TAILS {
            // Compare without allocating: the name is re-rendered into a stack buffer and the
            // blob byte by byte.
            let mut buf = [0u8; 48];
            let mut cursor = std::io::Cursor::new(&mut buf[..]);
            let _ = std::io::Write::write_fmt(
                &mut cursor,
                format_args!("evt-{}-{}", h.producer, h.seq),
            );
            let len = cursor.position() as usize;
            let name_ok = self.name.as_deref().map(|n| n.to_bytes()) == Some(&buf[..len]);
            let blob_ok = self.blob.as_deref().is_some_and(|b| {
                b.len() == 32
                    && b.iter()
                        .enumerate()
                        .all(|(i, x)| *x == (body_word(k, i) >> 56) as u8)
            });
            name_ok && blob_ok
        } else {
            self.name.is_none() && self.blob.is_none()
        };
        tails_ok.then_some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_checks_and_corruption_is_caught() {
        for seq in 0..3 {
            let m = Event488::<true>::build(2, seq);
            assert_eq!(m.check(), Some(key(2, seq)));
            let mut bad = Event488::<true>::build(2, seq);
            bad.blob.as_mut().unwrap()[7] ^= 0xff;
            assert!(bad.check().is_none());
            let mut bad = Event488::<false>::build(2, seq);
            if let TaggedEvent::Trade(t) = &mut bad.event {
                t.extra[46] = 0;
            } else if let TaggedEvent::Quote(q) = &mut bad.event {
                q.book[0] = 0;
            } else if let TaggedEvent::Status(s) = &mut bad.event {
                s.text[0] = b'X';
            }
            assert!(bad.check().is_none());
        }
    }
}
