//! The values a plan is written with, read alike from a suite file and from command-line flags.
//!
//! Each kind of value is one type with one set of rules: [`Int`] (an integer within bounds),
//! [`Count`] (`"auto"` or a count), [`Batch`] (`"none"` or a size), [`Rate`] (`"ramp"` or a
//! rate), [`Parsed`] (a name, parsed by the named type's `FromStr`, which suggests the closest
//! name on a typo) and [`OptValue`] (a transport option's value). Every one implements both
//! `Deserialize` (for TOML, where an error carries the position of the offending value) and
//! `FromStr` (for flags), through the [`Scalar`] trait, so a rule is never written twice.
//!
//! [`List`] is "one value or a non-empty list of them", and [`At`] remembers where a value was
//! written ([`Origin`]): a span of the suite file or a flag.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::str::FromStr;

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
                    return Err(de::Error::custom("an empty list: give at least one value"));
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
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<List<T>, E> {
                one(de::value::BoolDeserializer::new(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<List<T>, E> {
                one(de::value::StrDeserializer::new(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<List<T>, A::Error> {
                Err(de::Error::custom(
                    "found a table where a value or a list is expected (an array of tables is written with double brackets, e.g. `[[benchmark]]`)",
                ))
            }
        }
        fn one<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<List<T>, D::Error> {
            T::deserialize(d).map(|x| List(vec![x]))
        }
        d.deserialize_any(One(PhantomData))
    }
}

/// A value written as an integer, a word or a boolean, with one set of rules for a suite file
/// and for the command line.
pub trait Scalar: Sized {
    /// What is expected, for type errors ("an integer", "\"auto\" or a count").
    const EXPECTED: &'static str;
    /// From an integer.
    fn from_int(n: i128) -> Result<Self, String> {
        Err(format!(
            "expected {}, found the integer {n}",
            Self::EXPECTED
        ))
    }
    /// From a word (a TOML string, or a flag's value that is not an integer).
    fn from_word(s: &str) -> Result<Self, String> {
        Err(format!("expected {}, found \"{s}\"", Self::EXPECTED))
    }
    /// From a boolean.
    fn from_bool(b: bool) -> Result<Self, String> {
        Err(format!("expected {}, found {b}", Self::EXPECTED))
    }
    /// From a flag's text: an integer if it reads as one (`_` separators allowed), else a word.
    fn from_flag(s: &str) -> Result<Self, String> {
        let s = s.trim();
        match s.replace('_', "").parse::<i128>() {
            Ok(n) => Self::from_int(n),
            Err(_) => Self::from_word(s),
        }
    }
}

struct ScalarVisitor<T>(PhantomData<T>);

impl<T: Scalar> Visitor<'_> for ScalarVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_int(v.into()).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_int(v.into()).map_err(E::custom)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_word(v).map_err(E::custom)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        T::from_bool(v).map_err(E::custom)
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
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                <Self as Scalar>::from_flag(s)
            }
        }
    };
}

/// An integer from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int<const MIN: u64, const MAX: u64>(pub u64);

impl<const MIN: u64, const MAX: u64> Scalar for Int<MIN, MAX> {
    const EXPECTED: &'static str = "an integer";
    fn from_int(n: i128) -> Result<Self, String> {
        if n < i128::from(MIN) {
            Err(format!("must be at least {MIN}, got {n}"))
        } else if n > i128::from(MAX) {
            Err(format!("must be at most {MAX}, got {n}"))
        } else {
            Ok(Int(n as u64))
        }
    }
}
scalar_io!(generic [const MIN: u64, const MAX: u64] Int<MIN, MAX>);

impl<const MIN: u64, const MAX: u64> Int<MIN, MAX> {
    /// The value as a `usize` (every bound used for sizes fits one).
    pub fn size(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

/// Any integer of at least 0.
pub type Natural = Int<0, { u64::MAX }>;
/// Any integer of at least 1.
pub type Positive = Int<1, { u64::MAX }>;
/// A producer count: at least 1, at most what a message header can name.
pub type ProducerCount = Int<1, { crate::message::MAX_PRODUCERS as u64 }>;

/// Messages per sample: `"auto"` (calibrated to a duration) or a count of at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Calibrated so that a sample lasts about `target_ms`.
    Auto,
    /// This many.
    Fixed(u64),
}

impl Scalar for Count {
    const EXPECTED: &'static str = "\"auto\" or a count";
    fn from_int(n: i128) -> Result<Self, String> {
        Positive::from_int(n).map(|c| Count::Fixed(c.0))
    }
    fn from_word(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Count::Auto),
            _ => Err(format!("expected \"auto\" or a count, found \"{s}\"")),
        }
    }
}
scalar_io!(Count);

/// A batch size of at least 1, or `"none"` (one message at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch(pub Option<usize>);

impl Scalar for Batch {
    const EXPECTED: &'static str = "a batch size or \"none\"";
    fn from_int(n: i128) -> Result<Self, String> {
        Positive::from_int(n).map(|b| Batch(Some(b.size())))
    }
    fn from_word(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Batch(None)),
            _ => Err(format!("expected a batch size or \"none\", found \"{s}\"")),
        }
    }
}
scalar_io!(Batch);

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
    const EXPECTED: &'static str = "messages per second or \"ramp\"";
    fn from_int(n: i128) -> Result<Self, String> {
        Positive::from_int(n).map(|r| Rate::Fixed(r.0))
    }
    fn from_word(s: &str) -> Result<Self, String> {
        match s {
            "ramp" => Ok(Rate::Ramp),
            _ => Err(format!(
                "expected messages per second or \"ramp\", found \"{s}\""
            )),
        }
    }
}
scalar_io!(Rate);

/// A name, parsed by `T`'s own `FromStr` (which suggests the closest names on a typo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed<T>(pub T);

impl<T: FromStr<Err = String>> Scalar for Parsed<T> {
    const EXPECTED: &'static str = "a name";
    fn from_word(s: &str) -> Result<Self, String> {
        s.parse().map(Parsed)
    }
    fn from_flag(s: &str) -> Result<Self, String> {
        Self::from_word(s.trim())
    }
}
scalar_io!(generic [T: FromStr<Err = String>] Parsed<T>);

/// A transport option's value: a non-empty word, an integer or a boolean, kept as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptValue(pub String);

impl Scalar for OptValue {
    const EXPECTED: &'static str = "a string";
    fn from_int(n: i128) -> Result<Self, String> {
        Ok(OptValue(n.to_string()))
    }
    fn from_word(s: &str) -> Result<Self, String> {
        if s.is_empty() {
            Err("an option value cannot be empty".into())
        } else {
            Ok(OptValue(s.to_string()))
        }
    }
    fn from_bool(b: bool) -> Result<Self, String> {
        Ok(OptValue(b.to_string()))
    }
    fn from_flag(s: &str) -> Result<Self, String> {
        Self::from_word(s.trim())
    }
}
scalar_io!(OptValue);

/// The steps of a rate search: `ramp = true` (the defaults) or a table of the keys to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ramp(pub crate::workload::RampSpec);

/// The keys of a `ramp` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RampTable {
    start: Option<Positive>,
    max: Option<Positive>,
    factor: Option<Int<2, { u64::MAX }>>,
    refine: Option<Int<0, 20>>,
    step_ms: Option<Positive>,
    p99_bound_us: Option<Natural>,
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
                    Err(E::custom(
                        "`ramp = false` means nothing: leave `ramp` out, or give `true` or a table",
                    ))
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<Ramp, A::Error> {
                let t = RampTable::deserialize(de::value::MapAccessDeserializer::new(m))?;
                let mut r = crate::workload::RampSpec::default();
                let set = |slot: &mut u64, v: Option<Int<1, { u64::MAX }>>| {
                    if let Some(v) = v {
                        *slot = v.0;
                    }
                };
                set(&mut r.start, t.start);
                set(&mut r.max, t.max);
                set(&mut r.step_ms, t.step_ms);
                if let Some(f) = t.factor {
                    r.factor = f.0;
                }
                if let Some(n) = t.refine {
                    r.refine = n.0 as u32;
                }
                if let Some(us) = t.p99_bound_us {
                    r.p99_bound_ns = Some(us.0.saturating_mul(1000));
                }
                if r.start > r.max {
                    return Err(de::Error::custom(format!(
                        "start ({}/s) is above max ({}/s)",
                        r.start, r.max
                    )));
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
        assert_eq!("1_000".parse::<Positive>(), Ok(Int(1000)));
        assert!("0".parse::<Positive>().unwrap_err().contains("at least 1"));
        assert!("many".parse::<Natural>().unwrap_err().contains("integer"));
        assert_eq!("auto".parse::<Count>(), Ok(Count::Auto));
        assert_eq!("5".parse::<Count>(), Ok(Count::Fixed(5)));
        assert_eq!("none".parse::<Batch>(), Ok(Batch(None)));
        assert_eq!("ramp".parse::<Rate>(), Ok(Rate::Ramp));
        assert!("fast".parse::<Rate>().unwrap_err().contains("\"ramp\""));
        assert!("65537".parse::<ProducerCount>().is_err());
        assert_eq!("edge".parse::<OptValue>(), Ok(OptValue("edge".into())));
    }
}
