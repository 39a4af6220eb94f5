//! Payload shapes: what each message carries besides its header.
//!
//! | name              | type                  | size        | notes                                   |
//! |-------------------|-----------------------|-------------|-----------------------------------------|
//! | `u64`             | [`Word`]              | 8 B         | header only                             |
//! | `bytes:N`         | [`Inline`]            | N B inline  | N in 16, 64, 256, 1024, 4096            |
//! | `boxed:N`         | [`Boxed`]             | 24 B + N B on the heap | allocated by the producer, freed by the consumer |
//! | `report64`        | [`Report64`]          | 64 B        | one cache line, 64-byte aligned         |
//! | `event488`        | [`Event488<false>`]   | 488 B       | tagged repr(C) event, no tails          |
//! | `event488+tails`  | [`Event488<true>`]    | 488 B + 2 heap tails | a C string and a 32-byte vector per event |
//!
//! Inline sizes are compile-time so the message moves by value exactly as a user's would; the
//! set of N is fixed for that reason. A boxed body's length is a runtime value (the message's
//! [`Form`](crate::message::Message::Form)): what moves is the same 24-byte header and pointer
//! for every N. [`with_payload!`](crate::with_payload) maps a [`PayloadKind`] to its type.

mod boxed;
mod bytes;
mod event488;
mod report64;
mod word;

pub use boxed::{BodyWords, Boxed};
pub use bytes::Inline;
pub use event488::{Contract, Event488, TaggedEvent};
pub use report64::Report64;
pub use word::Word;

pub use handoff_model::payload::{PayloadError, PayloadKind, SIZES};

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
            __K::Bytes(_) => {
                type $M = $crate::payload::Inline<510>;
                $body
            }
            __K::Boxed(_) => {
                type $M = $crate::payload::Boxed;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes_match() {
        for k in PayloadKind::all() {
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
                assert!(
                    matches!(
                        kind,
                        PayloadKind::Boxed(_) | PayloadKind::Event488 { tails: true }
                    ),
                    "{kind}"
                );
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
        for k in PayloadKind::all() {
            crate::with_payload!(k, M => round_trip::<M>(k));
        }
    }

    #[test]
    fn bad_sizes_and_names_are_explained() {
        let e = "bytes:100".parse::<PayloadKind>().unwrap_err();
        assert!(
            matches!(e, PayloadError::UnsupportedSize { size: 100, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("supported sizes"), "{e}");
        match "report46".parse::<PayloadKind>().unwrap_err() {
            PayloadError::Unknown(e) => assert_eq!(e.suggestions[0], "report64"),
            e => panic!("{e:?}"),
        }
    }
}
