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
//! Sizes are compile-time so the message moves by value exactly as a user's would; the set of
//! N is fixed for that reason. [`with_payload!`](crate::with_payload) maps a [`PayloadKind`] to its type.

mod boxed;
mod bytes;
mod event488;
mod report64;
mod word;

pub use boxed::Boxed;
pub use bytes::Inline;
pub use event488::{Contract, Event488, TaggedEvent};
pub use report64::Report64;
pub use word::Word;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The sizes accepted by `bytes:N` and `boxed:N`.
pub const SIZES: [usize; 5] = [16, 64, 256, 1024, 4096];

/// A payload shape, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PayloadKind {
    /// `u64`.
    U64,
    /// `bytes:N`.
    Bytes(usize),
    /// `boxed:N`.
    Boxed(usize),
    /// `report64`.
    Report64,
    /// `event488` (tails = false) or `event488+tails`.
    Event488 {
        /// Heap tails allocated per event.
        tails: bool,
    },
}

impl PayloadKind {
    /// Every payload name, for listings and suggestions.
    pub fn all() -> Vec<PayloadKind> {
        let mut v = vec![PayloadKind::U64, PayloadKind::Report64];
        v.extend(SIZES.iter().map(|&n| PayloadKind::Bytes(n)));
        v.extend(SIZES.iter().map(|&n| PayloadKind::Boxed(n)));
        v.push(PayloadKind::Event488 { tails: false });
        v.push(PayloadKind::Event488 { tails: true });
        v
    }

    /// Bytes moved through the transport per message (the message's own size).
    pub fn wire_bytes(self) -> usize {
        match self {
            PayloadKind::U64 => 8,
            PayloadKind::Bytes(n) => n,
            PayloadKind::Boxed(_) => std::mem::size_of::<Boxed<1>>(),
            PayloadKind::Report64 => 64,
            PayloadKind::Event488 { .. } => 488,
        }
    }

    /// Bytes the consumer reads per message, including heap data reached through pointers.
    pub fn touched_bytes(self) -> usize {
        match self {
            PayloadKind::Boxed(n) => self.wire_bytes() + n,
            PayloadKind::Event488 { tails: true } => 488 + 32 + 24,
            other => other.wire_bytes(),
        }
    }

    /// One line describing the shape.
    pub fn description(self) -> String {
        match self {
            PayloadKind::U64 => "8-byte word: producer id and sequence, header only".into(),
            PayloadKind::Bytes(n) => format!("{n} bytes inline, moved by value"),
            PayloadKind::Boxed(n) => format!(
                "{n}-byte heap buffer moved by pointer (alloc in producer, free in consumer)"
            ),
            PayloadKind::Report64 => "64-byte report struct, one cache line".into(),
            PayloadKind::Event488 { tails: false } => {
                "488-byte repr(C) tagged event, no heap tails".into()
            }
            PayloadKind::Event488 { tails: true } => {
                "488-byte event plus a C string and a 32-byte vector allocated per event".into()
            }
        }
    }
}

impl fmt::Display for PayloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadKind::U64 => f.write_str("u64"),
            PayloadKind::Bytes(n) => write!(f, "bytes:{n}"),
            PayloadKind::Boxed(n) => write!(f, "boxed:{n}"),
            PayloadKind::Report64 => f.write_str("report64"),
            PayloadKind::Event488 { tails: false } => f.write_str("event488"),
            PayloadKind::Event488 { tails: true } => f.write_str("event488+tails"),
        }
    }
}

/// Why a payload's name does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// No payload of that name.
    #[error(transparent)]
    Unknown(#[from] crate::suggest::LookupError),
    /// `bytes:N` or `boxed:N` of a size not in [`SIZES`].
    #[error("`{prefix}:{size}`: supported sizes are {:?}", SIZES)]
    UnsupportedSize {
        /// `bytes` or `boxed`.
        prefix: &'static str,
        /// The size asked for.
        size: usize,
    },
    /// `bytes:` or `boxed:` followed by something other than a byte count.
    #[error("`{prefix}:{given}`: expected a byte count after `{prefix}:`")]
    BadSize {
        /// `bytes` or `boxed`.
        prefix: &'static str,
        /// What follows the colon.
        given: String,
    },
}

impl FromStr for PayloadKind {
    type Err = PayloadError;

    fn from_str(s: &str) -> Result<Self, PayloadError> {
        let sized = |prefix: &'static str, rest: &str, make: fn(usize) -> PayloadKind| {
            let size: usize = rest.parse().map_err(|_| PayloadError::BadSize {
                prefix,
                given: rest.to_string(),
            })?;
            if SIZES.contains(&size) {
                Ok(make(size))
            } else {
                Err(PayloadError::UnsupportedSize { prefix, size })
            }
        };
        match s {
            "u64" => Ok(PayloadKind::U64),
            "report64" => Ok(PayloadKind::Report64),
            "event488" => Ok(PayloadKind::Event488 { tails: false }),
            "event488+tails" => Ok(PayloadKind::Event488 { tails: true }),
            _ => {
                if let Some(rest) = s.strip_prefix("bytes:") {
                    sized("bytes", rest, PayloadKind::Bytes)
                } else if let Some(rest) = s.strip_prefix("boxed:") {
                    sized("boxed", rest, PayloadKind::Boxed)
                } else {
                    let names = [
                        "u64",
                        "report64",
                        "event488",
                        "event488+tails",
                        "bytes:64",
                        "boxed:64",
                    ];
                    Err(PayloadError::Unknown(
                        crate::suggest::LookupError::new(
                            crate::suggest::Thing::Payload,
                            s,
                            names.iter().copied(),
                        )
                        .otherwise(format!(
                            "one of u64, report64, event488, event488+tails, bytes:N, boxed:N with N in {SIZES:?}"
                        )),
                    ))
                }
            }
        }
    }
}

impl Serialize for PayloadKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PayloadKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

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
            __K::Boxed(16) => {
                type $M = $crate::payload::Boxed<2>;
                $body
            }
            __K::Boxed(64) => {
                type $M = $crate::payload::Boxed<8>;
                $body
            }
            __K::Boxed(256) => {
                type $M = $crate::payload::Boxed<32>;
                $body
            }
            __K::Boxed(1024) => {
                type $M = $crate::payload::Boxed<128>;
                $body
            }
            __K::Boxed(_) => {
                type $M = $crate::payload::Boxed<512>;
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
