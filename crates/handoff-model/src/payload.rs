//! Payload shapes by name (`u64`, `bytes:N`, `boxed:N`, `report64`, `event488`,
//! `event488+tails`): what each message carries besides its header. The message types
//! themselves are the harness's (`handoff::payload`).
//!
//! `bytes:N` and `boxed:N` take any N from [`MIN_BYTES`] to [`MAX_BYTES`] (a plain count, or
//! with a `KiB` or `MiB` suffix). `bytes:N` moves the message by value when N is one of the
//! [`INLINE_SIZES`], which are compiled in as inline types; at any other N no type of that size
//! exists, so the N bytes travel in a heap buffer moved by pointer, exactly as `boxed:N` does, and
//! every view says so ([`PayloadKind::is_inline`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Bytes a `boxed:N` message moves through the transport: its sequence number, producer id
/// and the pointer to its heap buffer (checked against the message type in `handoff::payload`).
pub const BOXED_WIRE_BYTES: usize = 24;

/// The sizes at which `bytes:N` is an inline type, moved by value; the sizes listed for
/// `boxed:N` too.
pub const INLINE_SIZES: [usize; 5] = [16, 64, 256, 1024, 4096];

/// The smallest body `bytes:N` and `boxed:N` accept.
pub const MIN_BYTES: usize = 8;

/// The largest body `bytes:N` and `boxed:N` accept (1 MiB).
pub const MAX_BYTES: usize = 1 << 20;

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
        v.extend(INLINE_SIZES.iter().map(|&n| PayloadKind::Bytes(n)));
        v.extend(INLINE_SIZES.iter().map(|&n| PayloadKind::Boxed(n)));
        v.push(PayloadKind::Event488 { tails: false });
        v.push(PayloadKind::Event488 { tails: true });
        v
    }

    /// Whether the whole message moves by value: false for `boxed:N`, for `event488+tails`
    /// (whose tails stay on the heap) and for `bytes:N` at a size not in [`INLINE_SIZES`].
    pub fn is_inline(self) -> bool {
        match self {
            PayloadKind::Bytes(n) => INLINE_SIZES.contains(&n),
            PayloadKind::Boxed(_) | PayloadKind::Event488 { tails: true } => false,
            _ => true,
        }
    }

    /// The length of the heap body that travels by pointer: N for `boxed:N` and for a
    /// `bytes:N` that is not inline; `None` for every other payload.
    pub fn heap_body(self) -> Option<usize> {
        match self {
            PayloadKind::Boxed(n) => Some(n),
            PayloadKind::Bytes(n) if !INLINE_SIZES.contains(&n) => Some(n),
            _ => None,
        }
    }

    /// Bytes moved through the transport per message (the message's own size).
    pub fn wire_bytes(self) -> usize {
        if self.heap_body().is_some() {
            return BOXED_WIRE_BYTES;
        }
        match self {
            PayloadKind::U64 => 8,
            PayloadKind::Bytes(n) | PayloadKind::Boxed(n) => n,
            PayloadKind::Report64 => 64,
            PayloadKind::Event488 { .. } => 488,
        }
    }

    /// Bytes the consumer reads per message, including heap data reached through pointers.
    pub fn touched_bytes(self) -> usize {
        if let Some(n) = self.heap_body() {
            return self.wire_bytes() + n;
        }
        match self {
            PayloadKind::Event488 { tails: true } => 488 + 32 + 24,
            other => other.wire_bytes(),
        }
    }

    /// One line describing the shape.
    pub fn description(self) -> String {
        match self {
            PayloadKind::U64 => "8-byte word: producer id and sequence, header only".into(),
            PayloadKind::Bytes(n) if self.is_inline() => {
                format!("{n} bytes inline, moved by value")
            }
            PayloadKind::Bytes(n) => format!(
                "{n} bytes in a heap buffer moved by pointer (only {} are compiled inline)",
                sizes_text()
            ),
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
    /// `bytes:N` or `boxed:N` of a size outside [`MIN_BYTES`]..=[`MAX_BYTES`].
    #[error("`{prefix}:{size}`: a size from {MIN_BYTES} bytes to 1 MiB ({MAX_BYTES}) is needed")]
    UnsupportedSize {
        /// `bytes` or `boxed`.
        prefix: &'static str,
        /// The size asked for.
        size: usize,
    },
    /// `bytes:` or `boxed:` followed by something other than a byte count.
    #[error("`{prefix}:{given}`: expected a byte count after `{prefix}:` (such as 150000, 64KiB or 1MiB)")]
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
            let size = byte_count(rest).ok_or_else(|| PayloadError::BadSize {
                prefix,
                given: rest.to_string(),
            })?;
            if (MIN_BYTES..=MAX_BYTES).contains(&size) {
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
                            "one of u64, report64, event488, event488+tails, bytes:N, boxed:N with N from {MIN_BYTES} to {MAX_BYTES}"
                        )),
                    ))
                }
            }
        }
    }
}

/// The inline sizes as text: "16, 64, 256, 1024 and 4096".
fn sizes_text() -> String {
    let (last, rest) = INLINE_SIZES.split_last().expect("inline sizes");
    let rest: Vec<String> = rest.iter().map(|n| n.to_string()).collect();
    format!("{} and {last}", rest.join(", "))
}

/// A byte count: digits, optionally followed by `KiB` or `MiB`.
fn byte_count(text: &str) -> Option<usize> {
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits.parse().ok()?;
    let unit = match unit {
        "" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        _ => return None,
    };
    n.checked_mul(unit)
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
