//! The values a plan is written with, read alike from a suite file and from command-line flags.
//!
//! Each kind of value is one type with one set of rules: [`Int`] (an integer within bounds),
//! [`Count`] (`"auto"` or a count), [`Batch`] (`"none"` or a size), [`Rate`] (`"ramp"` or a
//! rate), [`Parsed`] (a name, parsed by the named type's `FromStr`, which suggests the closest
//! name on a typo) and [`OptValue`] (a transport option's value). Every one implements both
//! `Deserialize` (for TOML, where an error carries the position of the offending value) and
//! `FromStr` (for flags), through the `Scalar` trait, so a rule is never written twice.
//! `Text` (a suite's `name` or `description`, of bounded length) is read from a file only.
//!
//! [`List`] is "one value or a non-empty list of them", and [`At`] remembers where a value was
//! written ([`Origin`]): a span of the suite file or a flag.
//!
//! A value refused is a [`ValueError`], whose kind says why (the wrong type, out of range, an
//! unknown name). Read from a suite file, it reaches serde as text; the last one refused is kept
//! aside (`refused`) so that the plan's error says its kind too.

use super::bounds;
use crate::suggest::LookupError;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::str::FromStr;

/// Why a value is refused, and what is said.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A value of another type than the key takes: `expected an integer from 1 to 10000, found
    /// "big"`, `2.5 is not an integer; …`.
    #[error("{0}")]
    WrongType(String),
    /// A number outside the key's range: `must be at most 1024, got 2000`.
    #[error("{0}")]
    OutOfRange(String),
    /// A name that names nothing, with the closest valid names.
    #[error(transparent)]
    Unknown(#[from] LookupError),
    /// A value refused for another reason: an empty list, `ramp = false`, a ramp whose start is
    /// above its max.
    #[error("{0}")]
    Invalid(String),
}

impl From<crate::workload::DriverError> for ValueError {
    fn from(e: crate::workload::DriverError) -> ValueError {
        use crate::workload::DriverError;
        match e {
            DriverError::Unknown(l) => ValueError::Unknown(l),
            DriverError::NoWorkers(_) | DriverError::TooManyWorkers { .. } => {
                ValueError::OutOfRange(e.to_string())
            }
            DriverError::BadWorkerCount(_) => ValueError::WrongType(e.to_string()),
            _ => ValueError::Invalid(e.to_string()),
        }
    }
}

impl From<crate::payload::PayloadError> for ValueError {
    fn from(e: crate::payload::PayloadError) -> ValueError {
        use crate::payload::PayloadError;
        match e {
            PayloadError::Unknown(l) => ValueError::Unknown(l),
            PayloadError::UnsupportedSize { .. } => ValueError::OutOfRange(e.to_string()),
            _ => ValueError::WrongType(e.to_string()),
        }
    }
}

thread_local! {
    /// The last value refused while a suite file was deserialized on this thread.
    static REFUSED: RefCell<Option<ValueError>> = const { RefCell::new(None) };
}

/// Takes (and clears) the last value refused while a suite file was deserialized on this
/// thread. The schema has no alternatives (no untagged enum, no fallback), so a refusal ends the
/// deserialization: after it fails, this is its cause, if the schema's own rules refused it.
pub(super) fn refused() -> Option<ValueError> {
    REFUSED.with(|r| r.borrow_mut().take())
}

/// `e` as serde's error, kept aside for [`refused`].
fn refuse<E: de::Error>(e: ValueError) -> E {
    let error = E::custom(&e);
    REFUSED.with(|r| *r.borrow_mut() = Some(e));
    error
}

/// Where a value was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Byte offsets in the suite file.
    File(Range<usize>),
    /// A command-line flag, e.g. `--capacity`.
    Flag(&'static str),
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub origin: Origin,
}

impl<T> At<T> {
    /// A value given by a command-line flag.
    pub fn flag(flag: &'static str, value: T) -> At<T> {
        At {
            value,
            origin: Origin::Flag(flag),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for At<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = toml::Spanned::<T>::deserialize(d)?;
        let span = s.span();
        Ok(At {
            value: s.into_inner(),
            origin: Origin::File(span),
        })
    }
}

/// One value or a non-empty list of values: `capacity = 1024` or `capacity = [256, 1024]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct One<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for One<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value or a list of values")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                if out.is_empty() {
                    return Err(refuse(ValueError::Invalid(
                        "an empty list: give at least one value".into(),
                    )));
                }
                Ok(List(out))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<List<T>, E> {
                one(de::value::I64Deserializer::new(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<List<T>, E> {
                one(de::value::U64Deserializer::new(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<List<T>, E> {
                one(de::value::F64Deserializer::new(v))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<List<T>, E> {
                one(de::value::I128Deserializer::new(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<List<T>, E> {
                one(de::value::U128Deserializer::new(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<List<T>, E> {
                one(de::value::BoolDeserializer::new(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<List<T>, E> {
                one(de::value::StrDeserializer::new(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<List<T>, A::Error> {
                Err(refuse(ValueError::WrongType(
                    "found a table where a value or a list is expected (an array of tables is written with double brackets, e.g. `[[benchmark]]`)".into(),
                )))
            }
        }
        fn one<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<List<T>, D::Error> {
            T::deserialize(d).map(|x| List(vec![x]))
        }
        d.deserialize_any(One(PhantomData))
    }
}

/// What the builder checks of every parameter's value, single or a list: how many values it
/// holds, and the first one written twice.
pub trait Values {
    /// How many values (1 for a single value).
    fn count(&self) -> usize {
        1
    }
    /// The first value written twice, as it reads.
    fn repeated(&self) -> Option<String> {
        None
    }
}

impl<T: fmt::Display> Values for List<T> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn repeated(&self) -> Option<String> {
        let mut seen = std::collections::HashSet::new();
        self.0
            .iter()
            .map(|v| v.to_string())
            .find(|v| !seen.insert(v.clone()))
    }
}

impl<const MIN: u64, const MAX: u64> Values for Int<MIN, MAX> {}
impl<T> Values for Parsed<T> {}
impl Values for bool {}
impl Values for Ramp {}
impl<const MIN: u64, const MAX: u64> Values for Span<MIN, MAX> {}
impl Values for RateValue {}

/// A value written as an integer, a word or a boolean, with one set of rules for a suite file
/// and for the command line.
pub(crate) trait Scalar: Sized {
    /// What is expected, for type errors ("an integer from 1 to 10000", "\"auto\" or a count
    /// …"), with its range.
    fn expected() -> String;
    /// From an integer.
    fn from_int(n: i128) -> Result<Self, ValueError> {
        Err(ValueError::WrongType(format!(
            "expected {}, found the integer {n}",
            Self::expected()
        )))
    }
    /// From a word (a TOML string, or a flag's value that is not an integer).
    fn from_word(s: &str) -> Result<Self, ValueError> {
        Err(ValueError::WrongType(format!(
            "expected {}, found \"{s}\"",
            Self::expected()
        )))
    }
    /// From a boolean.
    fn from_bool(b: bool) -> Result<Self, ValueError> {
        Err(ValueError::WrongType(format!(
            "expected {}, found {b}",
            Self::expected()
        )))
    }
    /// From a floating-point number (TOML `2.5`, `1e30`): never a count, so an error saying so.
    fn from_float(f: f64) -> Result<Self, ValueError> {
        let whole = if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
            format!(" (write it {f:.0}, without a decimal point or exponent)")
        } else {
            String::new()
        };
        Err(ValueError::WrongType(format!(
            "{f:?} is not an integer; expected {}{whole}",
            Self::expected()
        )))
    }
    /// From a flag's text: an integer if it reads as one (`_` separators allowed), else a word.
    fn from_flag(s: &str) -> Result<Self, ValueError> {
        let s = s.trim();
        let digits = s.replace('_', "");
        match digits.parse::<i128>() {
            Ok(n) => Self::from_int(n),
            Err(_) if is_integer(&digits) => Err(ValueError::OutOfRange(format!(
                "{s} is far too large: expected {}",
                Self::expected()
            ))),
            Err(_) => match digits.parse::<f64>() {
                Ok(f)
                    if f.is_finite()
                        && digits
                            .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') =>
                {
                    Self::from_float(f)
                }
                _ => Self::from_word(s),
            },
        }
    }
}

/// Whether `s` is written as an integer (digits, perhaps signed), whatever its size.
fn is_integer(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

struct ScalarVisitor<T>(PhantomData<T>);

impl<T: Scalar> Visitor<'_> for ScalarVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&T::expected())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_float(v).map_err(refuse)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<T, E> {
        T::from_int(v).map_err(refuse)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<T, E> {
        T::from_int(i128::try_from(v).unwrap_or(i128::MAX)).map_err(refuse)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_int(v.into()).map_err(refuse)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_int(v.into()).map_err(refuse)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_word(v).map_err(refuse)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        T::from_bool(v).map_err(refuse)
    }
}

/// `Deserialize` and `FromStr` for a [`Scalar`].
macro_rules! scalar_io {
    ($ty:ty) => {
        scalar_io!(generic [] $ty);
    };
    (generic [$($gen:tt)*] $ty:ty) => {
        impl<'de, $($gen)*> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(ScalarVisitor::<Self>(PhantomData))
            }
        }
        impl<$($gen)*> FromStr for $ty {
            type Err = ValueError;
            fn from_str(s: &str) -> Result<Self, ValueError> {
                <Self as Scalar>::from_flag(s)
            }
        }
    };
}

/// An integer from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int<const MIN: u64, const MAX: u64>(pub u64);

impl<const MIN: u64, const MAX: u64> Scalar for Int<MIN, MAX> {
    fn expected() -> String {
        range::<MIN, MAX>()
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        if n < i128::from(MIN) {
            Err(ValueError::OutOfRange(format!(
                "must be at least {MIN}, got {n}"
            )))
        } else if n > i128::from(MAX) {
            Err(ValueError::OutOfRange(format!(
                "must be at most {MAX}, got {n}"
            )))
        } else {
            Ok(Int(n as u64))
        }
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        let quoted = if is_integer(s.trim()) {
            ": write the number without quotes"
        } else {
            ""
        };
        Err(ValueError::WrongType(format!(
            "expected {}, found \"{s}\"{quoted}",
            Self::expected()
        )))
    }
}
scalar_io!(generic [const MIN: u64, const MAX: u64] Int<MIN, MAX>);

impl<const MIN: u64, const MAX: u64> Int<MIN, MAX> {
    /// The value as a `usize` (every bound used for sizes fits one).
    pub fn size(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

impl<const MIN: u64, const MAX: u64> fmt::Display for Int<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// "an integer from 1 to 10000", or "an integer of at least 1" when unbounded above.
fn range<const MIN: u64, const MAX: u64>() -> String {
    if MAX == u64::MAX {
        format!("an integer of at least {MIN}")
    } else {
        format!("an integer from {MIN} to {MAX}")
    }
}

/// A producer or consumer count, or a runtime's worker count (see `bounds::MAX_THREADS`).
pub type ThreadCount = Int<1, { bounds::MAX_THREADS }>;
/// A capacity: 0 (a rendezvous, where a transport takes it) to 2^32.
pub type Capacity = Int<0, { bounds::MAX_CAPACITY }>;
/// A pipeline hop's capacity: 1 to 2^32.
pub type HopCapacity = Int<1, { bounds::MAX_CAPACITY }>;
/// Timed samples.
pub type Samples = Int<1, { bounds::MAX_SAMPLES }>;
/// Warm-up samples.
pub type Warmup = Int<0, { bounds::MAX_WARMUP }>;
/// The watchdog interval, milliseconds.
pub type TimeoutMs = Int<1, { bounds::MAX_TIMEOUT_MS }>;
/// An `auto` sample's target duration, milliseconds.
pub(crate) type TargetMs = Int<1, { bounds::MAX_TARGET_MS }>;
/// `min_messages`.
pub(crate) type MinMessages = Int<0, { bounds::MAX_MESSAGES }>;
/// `max_messages` (and a fixed count).
pub(crate) type MaxMessages = Int<1, { bounds::MAX_MESSAGES }>;
/// A pipeline stage's busy work per event, nanoseconds.
pub type StageWorkNs = Int<0, { bounds::MAX_STAGE_WORK_NS }>;
/// The hop a pipeline's merge source feeds: 2 (the first hop is the injectors') to the most hops.
pub type MergeHop = Int<2, { bounds::MAX_HOPS as u64 }>;
/// The trial limit (`--max-trials`).
pub type MaxTrials = Int<1, { bounds::MAX_TRIALS_CEILING }>;

/// Messages per sample: `"auto"` (calibrated to a duration) or a count of at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Calibrated so that a sample lasts about `target_ms`.
    Auto,
    /// This many.
    Fixed(u64),
}

impl Scalar for Count {
    fn expected() -> String {
        format!(
            "\"auto\" or a count of messages from 1 to {} (2^48 - 1, what a message header's sequence number holds)",
            bounds::MAX_MESSAGES
        )
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        if n > i128::from(bounds::MAX_MESSAGES) {
            return Err(ValueError::OutOfRange(format!(
                "must be at most {} (2^48 - 1, the most a message header's sequence number counts), got {n}",
                bounds::MAX_MESSAGES
            )));
        }
        MaxMessages::from_int(n).map(|c| Count::Fixed(c.0))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        match s {
            "auto" => Ok(Count::Auto),
            _ => Err(ValueError::WrongType(format!(
                "expected {}, found \"{s}\"",
                Self::expected()
            ))),
        }
    }
}
scalar_io!(Count);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Auto => f.write_str("auto"),
            Count::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// Which producer count a scaling gate compares with one producer: `"cores"`, `"top"` or a
/// count of at least 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpToValue(pub handoff_model::gate::UpTo);

impl Scalar for UpToValue {
    fn expected() -> String {
        format!(
            "\"cores\" (the most producers that fit the machine), \"top\" (the most swept) or a producer count from 2 to {}",
            bounds::MAX_THREADS
        )
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        use handoff_model::gate::UpTo;
        Int::<2, { bounds::MAX_THREADS }>::from_int(n)
            .map(|c| UpToValue(UpTo::Producers(c.0 as usize)))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        use handoff_model::gate::UpTo;
        match s {
            "cores" => Ok(UpToValue(UpTo::Cores)),
            "top" => Ok(UpToValue(UpTo::Top)),
            _ => Err(ValueError::WrongType(format!(
                "expected {}, found \"{s}\"",
                Self::expected()
            ))),
        }
    }
}
scalar_io!(UpToValue);

/// A batch size of at least 1, or `"none"` (one message at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch(pub Option<usize>);

impl Scalar for Batch {
    fn expected() -> String {
        format!("a batch size from 1 to {} or \"none\"", bounds::MAX_BATCH)
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        Int::<1, { bounds::MAX_BATCH }>::from_int(n).map(|b| Batch(Some(b.size())))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        match s {
            "none" => Ok(Batch(None)),
            _ => Err(ValueError::WrongType(format!(
                "expected {}, found \"{s}\"",
                Self::expected()
            ))),
        }
    }
}
scalar_io!(Batch);

impl fmt::Display for Batch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("none"),
            Some(n) => write!(f, "{n}"),
        }
    }
}

/// An open-loop rate: messages per second (at least 1), or `"ramp"` to search the highest one
/// sustained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// This many messages per second in total.
    Fixed(u64),
    /// Search the highest sustained rate.
    Ramp,
}

impl Scalar for Rate {
    fn expected() -> String {
        format!(
            "messages per second from 1 to {} (such as 1000, 2.5k or 1M) or \"ramp\"",
            bounds::MAX_RATE
        )
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        RateValue::from_int(n).map(|r| Rate::Fixed(r.0))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        match s {
            "ramp" => Ok(Rate::Ramp),
            _ if per_second(s).is_some() => RateValue::from_word(s).map(|r| Rate::Fixed(r.0)),
            _ => Err(ValueError::WrongType(format!(
                "expected {}, found \"{s}\"",
                Self::expected()
            ))),
        }
    }
}
scalar_io!(Rate);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::Ramp => f.write_str("ramp"),
            Rate::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// A length of time written with its unit (`"500ms"`, `"90s"`, `"5m"`, `"1h"`, or units
/// together, `"1m30s"`), in milliseconds, within `[MIN, MAX]`: a soak's `duration` and
/// `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span<const MIN: u64, const MAX: u64>(pub u64);

impl<const MIN: u64, const MAX: u64> Scalar for Span<MIN, MAX> {
    fn expected() -> String {
        format!(
            "a length of time such as \"5m\", \"90s\" or \"500ms\", from {} to {}",
            handoff_model::fmt::span_ms(MIN),
            handoff_model::fmt::span_ms(MAX)
        )
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        Err(ValueError::WrongType(format!(
            "expected {}, found the integer {n} (write its unit: \"{n}s\")",
            Self::expected()
        )))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        let ms = parse_span_ms(s.trim()).ok_or_else(|| {
            ValueError::WrongType(format!("expected {}, found \"{s}\"", Self::expected()))
        })?;
        if ms < MIN {
            Err(ValueError::OutOfRange(format!(
                "must be at least {}, got {s}",
                handoff_model::fmt::span_ms(MIN)
            )))
        } else if ms > MAX {
            Err(ValueError::OutOfRange(format!(
                "must be at most {}, got {s}",
                handoff_model::fmt::span_ms(MAX)
            )))
        } else {
            Ok(Span(ms))
        }
    }
}
scalar_io!(generic [const MIN: u64, const MAX: u64] Span<MIN, MAX>);

impl<const MIN: u64, const MAX: u64> fmt::Display for Span<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&handoff_model::fmt::span_ms(self.0))
    }
}

/// Milliseconds in `s`: numbers each followed by a unit (`h`, `m`, `s`, `ms`), largest first
/// or not; `None` if it does not read so.
fn parse_span_ms(s: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, len) = if rest.starts_with("ms") {
            (1, 2)
        } else if rest.starts_with('h') {
            (3_600_000, 1)
        } else if rest.starts_with('m') {
            (60_000, 1)
        } else if rest.starts_with('s') {
            (1_000, 1)
        } else {
            return None;
        };
        rest = &rest[len..];
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    Some(total)
}

/// A soak's duration.
pub type SoakSpan = Span<{ bounds::SOAK_MS.0 }, { bounds::SOAK_MS.1 }>;
/// A soak's window.
pub type WindowSpan = Span<{ bounds::WINDOW_MS.0 }, { bounds::WINDOW_MS.1 }>;

/// Messages per second: a rate, and a ramp's `start` and `max`. An integer, or a word in the
/// one rate syntax every rate the command takes shares ([`per_second`]: `2.5k`, `1M`, `1000/s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateValue(pub u64);

impl Scalar for RateValue {
    fn expected() -> String {
        format!(
            "messages per second from 1 to {}, such as 1000, 2.5k or 1M (a `/s` may follow)",
            bounds::MAX_RATE
        )
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        Int::<1, { bounds::MAX_RATE }>::from_int(n).map(|i| RateValue(i.0))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        match per_second(s) {
            Some(r) if r.round() < 1.0 => Err(ValueError::OutOfRange(format!(
                "must be at least 1, got {s}"
            ))),
            Some(r) if r.round() > bounds::MAX_RATE as f64 => Err(ValueError::OutOfRange(format!(
                "must be at most {}, got {s}",
                bounds::MAX_RATE
            ))),
            Some(r) => Ok(RateValue(r.round() as u64)),
            None => Err(ValueError::WrongType(format!(
                "expected {}, found \"{s}\"",
                Self::expected()
            ))),
        }
    }
}
scalar_io!(RateValue);

impl fmt::Display for RateValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A rate in messages per second as written: `1000`, `1000/s`, `2.5k`, `1M`, `1G` (`k` or `K`
/// thousands, `M` millions, `G` billions); `None` if it does not read so, or is not a finite
/// positive number. The one syntax of `--rate`, a suite's `rate`, `merge_rate` and ramp
/// bounds, and `recommend --rate`.
pub fn per_second(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = t.strip_suffix("/s").unwrap_or(t).trim_end();
    let (number, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M')) => (&t[..i], 1e6),
        Some((i, 'G')) => (&t[..i], 1e9),
        _ => (t, 1.0),
    };
    // Digits and at most one point: no sign, exponent, `inf` or `nan`.
    let plain = !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
        && number.chars().filter(|&c| c == '.').count() <= 1
        && number.chars().any(|c| c.is_ascii_digit());
    let r = number.parse::<f64>().ok().filter(|_| plain)? * scale;
    (r.is_finite() && r > 0.0).then_some(r)
}

/// A name, parsed by `T`'s own `FromStr` (which suggests the closest names on a typo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed<T>(pub T);

impl<T: FromStr<Err: Into<ValueError>>> Scalar for Parsed<T> {
    fn expected() -> String {
        "a name".into()
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        s.parse().map(Parsed).map_err(Into::into)
    }
    fn from_flag(s: &str) -> Result<Self, ValueError> {
        Self::from_word(s.trim())
    }
}
scalar_io!(generic [T: FromStr<Err: Into<ValueError>>] Parsed<T>);

impl<T: fmt::Display> fmt::Display for Parsed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A transport option's value: a non-empty word, an integer or a boolean, kept as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptValue(pub String);

impl Scalar for OptValue {
    fn expected() -> String {
        "a string, an integer or a boolean".into()
    }
    fn from_int(n: i128) -> Result<Self, ValueError> {
        Ok(OptValue(n.to_string()))
    }
    fn from_word(s: &str) -> Result<Self, ValueError> {
        if s.is_empty() {
            Err(ValueError::Invalid(
                "an option value cannot be empty".into(),
            ))
        } else {
            Ok(OptValue(s.to_string()))
        }
    }
    fn from_bool(b: bool) -> Result<Self, ValueError> {
        Ok(OptValue(b.to_string()))
    }
    fn from_flag(s: &str) -> Result<Self, ValueError> {
        Self::from_word(s.trim())
    }
}
scalar_io!(OptValue);

impl fmt::Display for OptValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A text of at most `MAX` characters: a suite's `name` (kept with every run of the suite) and
/// `description`. A value of another type is refused as any string key refuses it; a longer one
/// is refused with its length and the limit, at the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Text<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match handoff_model::foreign::too_long(&s, MAX) {
            Some(why) => Err(refuse(ValueError::Invalid(why))),
            None => Ok(Text(s)),
        }
    }
}

/// The steps of a rate search: `ramp = true` (the defaults) or a table of the keys to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ramp(pub crate::workload::RampSpec);

/// The keys of a `ramp` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RampTable {
    start: Option<RateValue>,
    max: Option<RateValue>,
    factor: Option<Int<2, { bounds::MAX_RAMP_FACTOR }>>,
    refine: Option<Int<0, { bounds::MAX_REFINE }>>,
    step_ms: Option<Int<1, { bounds::MAX_STEP_MS }>>,
    p99_bound_us: Option<Int<0, { bounds::MAX_P99_BOUND_US }>>,
}

/// The keys of a `ramp` table.
pub(super) fn ramp_keys() -> &'static [&'static str] {
    super::fields::keys_of::<RampTable>()
}

impl<'de> Deserialize<'de> for Ramp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ramp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or a table such as `{ start = 1000, factor = 2 }`")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Ramp, E> {
                if v {
                    Ok(Ramp(Default::default()))
                } else {
                    Err(refuse(ValueError::Invalid(
                        "`ramp = false` means nothing: leave `ramp` out, or give `true` or a table"
                            .into(),
                    )))
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<Ramp, A::Error> {
                let t = RampTable::deserialize(de::value::MapAccessDeserializer::new(m))?;
                let mut r = crate::workload::RampSpec::default();
                if let Some(v) = t.start {
                    r.start = v.0;
                }
                if let Some(v) = t.max {
                    r.max = v.0;
                }
                if let Some(v) = t.step_ms {
                    r.step_ms = v.0;
                }
                if let Some(f) = t.factor {
                    r.factor = f.0;
                }
                if let Some(n) = t.refine {
                    r.refine = n.0 as u32;
                }
                if let Some(us) = t.p99_bound_us {
                    if us.0 == 0 {
                        return Err(refuse(ValueError::OutOfRange(
                            "`p99_bound_us = 0` could never be met (no latency is 0 µs), so no rate would be sustained: give a bound of at least 1 µs, or leave it out".into(),
                        )));
                    }
                    r.p99_bound_ns = Some(us.0 * 1000);
                }
                if r.start > r.max {
                    return Err(refuse(ValueError::Invalid(format!(
                        "start ({}/s) is above max ({}/s)",
                        r.start, r.max
                    ))));
                }
                Ok(Ramp(r))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_words_follow_one_rule() {
        assert_eq!("1_000".parse::<Int<1, { u64::MAX }>>(), Ok(Int(1000)));
        let e = "0".parse::<Int<1, { u64::MAX }>>().unwrap_err();
        assert!(
            matches!(&e, ValueError::OutOfRange(m) if m.contains("at least 1")),
            "{e:?}"
        );
        let e = "many".parse::<Int<0, { u64::MAX }>>().unwrap_err();
        assert!(
            matches!(&e, ValueError::WrongType(m) if m.contains("integer")),
            "{e:?}"
        );
        assert_eq!("auto".parse::<Count>(), Ok(Count::Auto));
        assert_eq!("5".parse::<Count>(), Ok(Count::Fixed(5)));
        assert_eq!("none".parse::<Batch>(), Ok(Batch(None)));
        assert_eq!("ramp".parse::<Rate>(), Ok(Rate::Ramp));
        assert_eq!("5m".parse::<SoakSpan>(), Ok(Span(300_000)));
        assert_eq!("1m30s".parse::<SoakSpan>(), Ok(Span(90_000)));
        assert_eq!("250ms".parse::<WindowSpan>(), Ok(Span(250)));
        assert!(matches!(
            "2h".parse::<WindowSpan>(),
            Err(ValueError::OutOfRange(_))
        ));
        assert!("5 minutes".parse::<SoakSpan>().is_err());
        assert!("300"
            .parse::<SoakSpan>()
            .unwrap_err()
            .to_string()
            .contains("\"300s\""));
        assert!("fast"
            .parse::<Rate>()
            .unwrap_err()
            .to_string()
            .contains("\"ramp\""));
        assert!("65537".parse::<ThreadCount>().is_err());
        assert_eq!("edge".parse::<OptValue>(), Ok(OptValue("edge".into())));
    }

    #[test]
    fn every_rate_takes_the_one_rate_syntax() {
        for (text, want) in [
            ("1000", 1000),
            ("1000/s", 1000),
            ("2.5k", 2500),
            ("10k/s", 10_000),
            ("10K", 10_000),
            ("1M", 1_000_000),
            ("1G", 1_000_000_000),
        ] {
            assert_eq!(text.parse::<Rate>(), Ok(Rate::Fixed(want)), "{text}");
            assert_eq!(text.parse::<RateValue>(), Ok(RateValue(want)), "{text}");
        }
        // The same words in a suite file, as TOML strings.
        let v: RateValue =
            toml::from_str::<std::collections::BTreeMap<String, RateValue>>("rate = \"2.5k\"")
                .unwrap()["rate"];
        assert_eq!(v, RateValue(2500));
        for bad in ["1e6", "k", "1.5.2", "fast", "inf", "1m", "", "-2.5k"] {
            let e = bad.parse::<RateValue>().unwrap_err().to_string();
            assert!(e.contains("such as 1000, 2.5k or 1M"), "{bad}: {e}");
        }
        let e = "-5".parse::<RateValue>().unwrap_err().to_string();
        assert!(e.contains("must be at least 1, got -5"), "{e}");
        let e = "0.2".parse::<RateValue>().unwrap_err().to_string();
        assert!(e.contains("0.2 is not an integer"), "{e}");
        let e = "0.0002k".parse::<RateValue>().unwrap_err().to_string();
        assert!(e.contains("must be at least 1, got 0.0002k"), "{e}");
        let e = "2G".parse::<Rate>().unwrap_err().to_string();
        assert!(e.contains("must be at most 1000000000, got 2G"), "{e}");
    }
}
