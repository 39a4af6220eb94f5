//! Payload shapes by name (`u64`, `bytes:N`, `boxed:N`, `report64`, `event488`,
//! `event488+tails`): what each message carries besides its header. The message types
//! themselves are the harness's (`handoff::payload`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Bytes a `boxed:N` message moves through the transport: its sequence number, producer id
/// and the pointer to its heap buffer (checked against the message type in `handoff::payload`).
pub const BOXED_WIRE_BYTES: usize = 24;

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
            PayloadKind::Boxed(_) => BOXED_WIRE_BYTES,
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
