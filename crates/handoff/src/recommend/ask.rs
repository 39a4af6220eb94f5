//! What a recommendation is asked: the user's constraints (`--rate`, `--p99`, `--payload`,
//! `--producers`, `--consumers`, `--cpu`, `--require`) and what to prefer among the transports
//! that meet them, with the parsing of each value and a specific error for each bad one.

use crate::payload::PayloadKind;
use crate::semantics::{Bound, Ordering, Semantics, WaitStrategy};
use crate::suggest::{LookupError, Thing};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The constraints of one question.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// Messages per second, over every producer, the hand-off must carry.
    pub rate: Option<u64>,
    /// The largest 99th-percentile latency allowed at that rate, ns.
    pub p99_ns: Option<u64>,
    /// The payload moved.
    pub payload: Option<PayloadKind>,
    /// Producers.
    pub producers: Option<usize>,
    /// Consumers.
    pub consumers: Option<usize>,
    /// The cores the hand-off may keep busy (see [`crate::recommend`] for which side counts).
    pub cpu: Option<f64>,
    /// Semantics the transport must have.
    pub require: Vec<Requirement>,
    /// What decides among the transports that meet every constraint; by default the latency
    /// when a rate is given, else the throughput.
    pub prefer: Option<Objective>,
}

impl Ask {
    /// What decides: [`Ask::prefer`], or its default.
    pub fn objective(&self) -> Objective {
        self.prefer
            .unwrap_or(if self.rate.is_some() || self.p99_ns.is_some() {
                Objective::Latency
            } else {
                Objective::Throughput
            })
    }

    /// The constraints as one line: `rate 1000/s, p99 ≤ 100 µs, CPU ≤ 0.5 cores, bounded`.
    pub fn summary(&self) -> String {
        use handoff_model::fmt;
        let mut parts = Vec::new();
        if let Some(r) = self.rate {
            parts.push(format!("rate {r}/s"));
        }
        if let Some(p) = self.p99_ns {
            parts.push(format!("p99 ≤ {}", fmt::duration(p as f64)));
        }
        if let Some(c) = self.cpu {
            parts.push(format!("CPU ≤ {c} cores"));
        }
        if let Some(p) = self.payload {
            parts.push(format!("payload {p}"));
        }
        if let Some(p) = self.producers {
            parts.push(fmt::plural(p, "producer"));
        }
        if let Some(c) = self.consumers {
            parts.push(fmt::plural(c, "consumer"));
        }
        for r in &self.require {
            parts.push(r.name().to_string());
        }
        if parts.is_empty() {
            "no constraints".into()
        } else {
            parts.join(", ")
        }
    }
}

/// A semantic the transport must have (`--require`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Holds at most its capacity and pushes back when full.
    Bounded,
    /// Grows without limit: a producer is never held up.
    Unbounded,
    /// Each producer's messages arrive in the order sent.
    Fifo,
    /// One order over every producer's messages.
    GlobalFifo,
    /// Every message is delivered: no conflating, no overwriting.
    Lossless,
    /// A waiting side sleeps (in the kernel, or as a suspended task) rather than polling
    /// forever.
    Blocking,
    /// Native batch operations.
    Batch,
}

impl Requirement {
    /// Every requirement, for listings and suggestions.
    pub const ALL: [Requirement; 7] = [
        Requirement::Bounded,
        Requirement::Unbounded,
        Requirement::Fifo,
        Requirement::GlobalFifo,
        Requirement::Lossless,
        Requirement::Blocking,
        Requirement::Batch,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Requirement::Bounded => "bounded",
            Requirement::Unbounded => "unbounded",
            Requirement::Fifo => "fifo",
            Requirement::GlobalFifo => "global-fifo",
            Requirement::Lossless => "lossless",
            Requirement::Blocking => "blocking",
            Requirement::Batch => "batch",
        }
    }

    /// What it asks for, as a sentence says it: `if you need {}`.
    pub fn wanted(self) -> &'static str {
        match self {
            Requirement::Bounded => "a bound",
            Requirement::Unbounded => "no bound",
            Requirement::Fifo => "each producer's messages in order",
            Requirement::GlobalFifo => "one order over every producer",
            Requirement::Lossless => "every message delivered",
            Requirement::Blocking => "blocking waits (a waiting side sleeps)",
            Requirement::Batch => "batch operations",
        }
    }

    /// Whether a transport of semantics `s` has it.
    pub fn met_by(self, s: &Semantics) -> bool {
        match self {
            Requirement::Bounded => matches!(s.bound, Bound::Bounded { .. }),
            Requirement::Unbounded => s.bound == Bound::Unbounded,
            Requirement::Fifo => s.ordering.is_fifo(),
            Requirement::GlobalFifo => s.ordering == Ordering::GlobalFifo,
            Requirement::Lossless => {
                !s.ordering.is_conflating() && !matches!(s.bound, Bound::Overwriting { .. })
            }
            Requirement::Blocking => matches!(
                s.wait,
                WaitStrategy::Block | WaitStrategy::SpinThenPark | WaitStrategy::Async
            ),
            Requirement::Batch => s.batch,
        }
    }

    /// Why a transport of semantics `s` lacks it: `unbounded`, `spins: a waiting side never
    /// sleeps`.
    pub fn lacking(self, s: &Semantics) -> String {
        match self {
            Requirement::Bounded | Requirement::Unbounded => match s.bound {
                Bound::Bounded { .. } => "bounded".into(),
                Bound::Overwriting { .. } => "overwrites its oldest message when full".into(),
                Bound::Unbounded => "unbounded".into(),
            },
            Requirement::Fifo | Requirement::GlobalFifo => format!("order: {}", s.ordering),
            Requirement::Lossless => "may drop messages (conflates or overwrites)".into(),
            Requirement::Blocking => format!("waits by `{}`: a waiting side never sleeps", s.wait),
            Requirement::Batch => "no native batch operations".into(),
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Requirement {
    type Err = LookupError;

    fn from_str(s: &str) -> Result<Requirement, LookupError> {
        by_name(&Requirement::ALL, Requirement::name, s, "requirement")
    }
}

/// What decides among the transports that meet every constraint (`--prefer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// The lowest 99th-percentile latency at the rate.
    Latency,
    /// The fewest cores kept busy.
    Cpu,
    /// The most messages per second.
    Throughput,
}

impl Objective {
    /// Every objective.
    pub const ALL: [Objective; 3] = [Objective::Latency, Objective::Cpu, Objective::Throughput];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Latency => "latency",
            Objective::Cpu => "cpu",
            Objective::Throughput => "throughput",
        }
    }
}

impl FromStr for Objective {
    type Err = LookupError;

    fn from_str(s: &str) -> Result<Objective, LookupError> {
        by_name(&Objective::ALL, Objective::name, s, "objective")
    }
}

/// The one of `all` called `s`, or an error naming the closest and listing them all.
fn by_name<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
    what: &str,
) -> Result<T, LookupError> {
    all.iter().copied().find(|x| name(*x) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|x| name(*x)).collect();
        LookupError::new(Thing::Other(what.into()), s, names.iter().copied())
            .otherwise(format!("one of {}", names.join(", ")))
    })
}

/// A value that does not parse, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{given}`: {expected}")]
pub struct BadValue {
    /// The text given.
    pub given: String,
    /// What was expected instead.
    pub expected: String,
}

/// A rate in messages per second, in the syntax of every rate the command takes
/// ([`crate::plan::value::per_second`]: `1000`, `1000/s`, `2.5k`, `1M`); positive.
pub fn parse_rate(text: &str) -> Result<u64, BadValue> {
    let bad = || BadValue {
        given: text.to_string(),
        expected: "a rate in messages per second, such as 1000, 2.5k or 1M (a `/s` may follow)"
            .into(),
    };
    let r = crate::plan::value::per_second(text).ok_or_else(bad)?;
    if !(1.0..1e12).contains(&r) {
        return Err(bad());
    }
    Ok(r.round() as u64)
}

/// A duration: a number and a unit, `250ns`, `100us` (or `µs`), `1.5ms`, `2s`; positive.
pub fn parse_duration_ns(text: &str) -> Result<u64, BadValue> {
    let bad = || BadValue {
        given: text.to_string(),
        expected: "a duration with its unit, such as 250ns, 100us, 1.5ms or 2s".into(),
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(bad)?;
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return Err(bad()),
    };
    let x: f64 = number.parse().map_err(|_| bad())?;
    let ns = x * scale;
    if !(1.0..1e15).contains(&ns) {
        return Err(bad());
    }
    Ok(ns.round() as u64)
}

/// A CPU budget in cores: a positive number, `0.5`.
pub fn parse_cores(text: &str) -> Result<f64, BadValue> {
    let c: f64 = text.trim().parse().map_err(|_| BadValue {
        given: text.to_string(),
        expected: "a number of cores, such as 0.5 or 2".into(),
    })?;
    if !(c.is_finite() && c > 0.0) {
        return Err(BadValue {
            given: text.to_string(),
            expected: "a positive number of cores, such as 0.5 or 2".into(),
        });
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_durations_and_cores_parse_and_bad_ones_say_what_was_expected() {
        assert_eq!(parse_rate("1000"), Ok(1000));
        assert_eq!(parse_rate("1000/s"), Ok(1000));
        assert_eq!(parse_rate("2.5k"), Ok(2500));
        assert_eq!(parse_rate("1M"), Ok(1_000_000));
        for bad in ["", "fast", "0", "-5", "1x"] {
            let e = parse_rate(bad).unwrap_err();
            assert!(e.to_string().contains("messages per second"), "{bad}: {e}");
        }
        assert_eq!(parse_duration_ns("100us"), Ok(100_000));
        assert_eq!(parse_duration_ns("100µs"), Ok(100_000));
        assert_eq!(parse_duration_ns("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_duration_ns("250ns"), Ok(250));
        assert_eq!(parse_duration_ns("2s"), Ok(2_000_000_000));
        for bad in ["100", "ms", "1.2.3ms", "5 weeks", "0ns"] {
            let e = parse_duration_ns(bad).unwrap_err();
            assert!(e.to_string().contains("with its unit"), "{bad}: {e}");
        }
        assert_eq!(parse_cores("0.5"), Ok(0.5));
        assert!(parse_cores("0").is_err() && parse_cores("lots").is_err());
    }

    #[test]
    fn unknown_requirements_and_objectives_suggest_the_closest() {
        let e = "bounde".parse::<Requirement>().unwrap_err();
        assert_eq!(e.suggestions[0], "bounded");
        assert!(
            e.to_string().contains("unknown requirement `bounde`"),
            "{e}"
        );
        let e = "latncy".parse::<Objective>().unwrap_err();
        assert_eq!(e.suggestions[0], "latency");
        for r in Requirement::ALL {
            assert_eq!(r.name().parse::<Requirement>(), Ok(r));
        }
    }

    #[test]
    fn the_objective_defaults_to_latency_at_a_rate_and_throughput_otherwise() {
        let mut a = Ask::default();
        assert_eq!(a.objective(), Objective::Throughput);
        a.rate = Some(1000);
        assert_eq!(a.objective(), Objective::Latency);
        a.prefer = Some(Objective::Cpu);
        assert_eq!(a.objective(), Objective::Cpu);
        a.p99_ns = Some(100_000);
        a.cpu = Some(0.5);
        a.require = vec![Requirement::Bounded];
        assert_eq!(
            a.summary(),
            "rate 1000/s, p99 ≤ 100 µs, CPU ≤ 0.5 cores, bounded"
        );
    }
}
