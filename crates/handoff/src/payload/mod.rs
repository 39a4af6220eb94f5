//! Payload shapes: what each message carries besides its header.
//!
//! | name              | type                  | size        | notes                                   |
//! |-------------------|-----------------------|-------------|-----------------------------------------|
//! | `u64`             | [`Word`]              | 8 B         | header only                             |
//! | `bytes:N`         | [`Inline`]            | N B inline  | N in 16, 64, 256, 1024, 4096            |
//! | `bytes:N`         | [`Boxed`]             | 24 B + N B on the heap | any other N from 8 B to 1 MiB |
//! | `boxed:N`         | [`Boxed`]             | 24 B + N B on the heap | allocated by the producer, freed by the consumer; N from 8 B to 1 MiB |
//! | `report64`        | [`Report64`]          | 64 B        | one cache line, 64-byte aligned         |
//! | `event488`        | [`Event488<false>`]   | 488 B       | tagged repr(C) event, no tails          |
//! | `event488+tails`  | [`Event488<true>`]    | 488 B + 2 heap tails | a C string and a 32-byte vector per event |
//!
//! Inline sizes are compile-time so the message moves by value exactly as a user's would; the
//! set of inline N is fixed for that reason (each is another copy of the whole catalog in the
//! build). A heap body's length is a runtime value (the message's
//! [`Form`](crate::message::Message::Form)): what moves is the same 24-byte header and pointer
//! for every N, so `bytes:N` at any other size is that message, and every view says
//! "moved by pointer" ([`PayloadKind::is_inline`]). [`with_payload!`](crate::with_payload) maps a [`PayloadKind`] to its type.

mod boxed;
mod bytes;
mod event488;
mod report64;
mod word;

pub use boxed::{BodyLen, Boxed};
pub use bytes::Inline;
pub use event488::{Contract, Event488, TaggedEvent};
pub use report64::Report64;
pub use word::Word;

pub use handoff_model::payload::{PayloadError, PayloadKind, INLINE_SIZES, MAX_BYTES, MIN_BYTES};

/// Runs `$body` with `$M` bound to the message type of a [`PayloadKind`].
///
/// ```
/// use handoff::payload::PayloadKind;
/// let size = handoff::with_payload!(PayloadKind::Report64, M => std::mem::size_of::<M>());
/// assert_eq!(size, 64);
/// ```
#[macro_export]
macro_rules! with_payload {
    ($kind:expr, $M:ident => $body:expr) => {{
        use $crate::payload::PayloadKind as __K;
        match $kind {
            __K::U64 => {
                type $M = $crate::payload::Word;
                $body
            }
            __K::Report64 => {
                type $M = $crate::payload::Report64;
                $body
            }
            __K::Event488 { tails: false } => {
                type $M = $crate::payload::Event488<false>;
                $body
            }
            __K::Event488 { tails: true } => {
                type $M = $crate::payload::Event488<true>;
                $body
            }
            __K::Bytes(16) => {
                type $M = $crate::payload::Inline<0>;
                $body
            }
            __K::Bytes(64) => {
                type $M = $crate::payload::Inline<6>;
                $body
            }
            __K::Bytes(256) => {
                type $M = $crate::payload::Inline<30>;
                $body
            }
            __K::Bytes(1024) => {
                type $M = $crate::payload::Inline<126>;
                $body
            }
            __K::Bytes(4096) => {
                type $M = $crate::payload::Inline<510>;
                $body
            }
            __K::Bytes(_) | __K::Boxed(_) => {
                type $M = $crate::payload::Boxed;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed payload, and `bytes:N` at sizes that are not compiled inline.
    fn every_kind() -> Vec<PayloadKind> {
        let mut kinds = PayloadKind::all();
        kinds.extend([8, 100, 150_000, MAX_BYTES].map(PayloadKind::Bytes));
        kinds.push(PayloadKind::Boxed(MIN_BYTES + 5));
        kinds
    }

    #[test]
    fn names_round_trip_and_sizes_match() {
        for k in every_kind() {
            let parsed: PayloadKind = k.to_string().parse().unwrap();
            assert_eq!(parsed, k);
            let size = crate::with_payload!(k, M => std::mem::size_of::<M>());
            assert_eq!(size, k.wire_bytes(), "{k}");
        }
    }

    /// Every payload without heap parts crosses as a block of its own size and comes back equal;
    /// a flipped byte in the body, or a block of garbage, never passes the check unnoticed.
    #[test]
    fn plain_payloads_round_trip_through_their_wire_form() {
        fn round_trip<M: crate::message::Message + PartialEq + std::fmt::Debug>(kind: PayloadKind) {
            let Some(n) = M::WIRE_SIZE else {
                assert!(!kind.is_inline(), "{kind}");
                return;
            };
            assert_eq!(n, kind.wire_bytes(), "{kind}");
            let m = M::build(3, 1001);
            let mut block = vec![0u8; n];
            // SAFETY: the block holds the wire size.
            let back = unsafe {
                m.write_wire(block.as_mut_ptr());
                M::read_wire(block.as_ptr())
            };
            assert_eq!(back, m, "{kind}");
            assert!(back.check().is_some(), "{kind}");
            if n > 16 {
                // A body byte (past the 16-byte header) damaged in transit.
                block[n - 1] ^= 0x5a;
                // SAFETY: as above.
                let bad = unsafe { M::read_wire(block.as_ptr()) };
                assert!(bad.check().is_none(), "{kind}");
            }
            let garbage = vec![0xa5u8; n];
            // SAFETY: as above.
            let junk = unsafe { M::read_wire(garbage.as_ptr()) };
            assert!(
                junk.check().is_none() || (junk.producer(), junk.seq()) != (3, 1001),
                "{kind}"
            );
        }
        for k in every_kind() {
            crate::with_payload!(k, M => round_trip::<M>(k));
        }
    }

    #[test]
    fn bad_sizes_and_names_are_explained() {
        for (text, size) in [("bytes:4", 4), ("boxed:2MiB", 2 << 20), ("bytes:0", 0)] {
            let e = text.parse::<PayloadKind>().unwrap_err();
            assert!(
                matches!(e, PayloadError::UnsupportedSize { size: s, .. } if s == size),
                "{e:?}"
            );
            assert!(e.to_string().contains("from 8 bytes to 1 MiB"), "{e}");
        }
        for text in ["bytes:64k", "bytes:", "boxed:1.5MiB", "bytes:-8"] {
            let e = text.parse::<PayloadKind>().unwrap_err();
            assert!(matches!(e, PayloadError::BadSize { .. }), "{text}: {e:?}");
            assert!(e.to_string().contains("expected a byte count"), "{e}");
        }
        assert_eq!("bytes:1MiB".parse(), Ok(PayloadKind::Bytes(MAX_BYTES)));
        assert_eq!("boxed:64KiB".parse(), Ok(PayloadKind::Boxed(65536)));
        assert_eq!(PayloadKind::Bytes(150_000).to_string(), "bytes:150000");
        assert!(PayloadKind::Bytes(1024).is_inline());
        assert!(!PayloadKind::Bytes(1000).is_inline());
        assert!(PayloadKind::Bytes(1000)
            .description()
            .contains("moved by pointer"));
        assert_eq!(PayloadKind::Bytes(1000).touched_bytes(), 1024);
        match "report46".parse::<PayloadKind>().unwrap_err() {
            PayloadError::Unknown(e) => assert_eq!(e.suggestions[0], "report64"),
            e => panic!("{e:?}"),
        }
    }
}
