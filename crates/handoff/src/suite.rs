//! Suite files: workloads × transports × parameter sweeps, in TOML.
//!
//! A suite names what to run; [`Suite::parse`] checks every name and number in it and expands it
//! into the list of [`TrialSpec`]s the session runs. Every mistake is reported with the file, the
//! line and the column of the offending key or value, and unknown names come with the closest
//! valid ones.
//!
//! # Format
//!
//! ```toml
//! name = "streaming"                 # defaults to the file's stem
//! description = "1 -> 1 stream of 488-byte events"
//! probes = true                      # measure the machine's limits first (default true)
//!
//! [defaults]                         # every key a [[benchmark]] takes, except
//! samples = 5                        # `workload`, `transports` and `options`
//! warmup = 1
//! messages = "auto"                  # or a count per sample, total over the producers
//! target_ms = 40                     # auto: calibrate so that one sample lasts about this long
//! min_messages = 10000               # auto: bounds of the calibrated count
//! max_messages = 20000000
//! capacity = 1024                    # ignored by unbounded transports
//! payload = "u64"
//! timeout_ms = 20000                 # watchdog: a longer sample is declared hung
//! pin = true                         # pin threads to distinct cores where there are enough
//!
//! [[benchmark]]
//! workload = "spsc"                  # or a list: workload = ["spsc", "ping-pong"]
//! transports = ["crossbeam-bounded", "rtrb"]
//! payload = ["u64", "event488"]      # sweepable keys take a value or a list of values
//! capacity = [256, 1024, 8192]
//!
//! [[benchmark]]
//! workload = "mpsc"
//! transports = ["crossbeam-bounded", "mutex-deque"]
//! producers = [1, 2, 4, 8]
//! batch = ["none", 256]              # "none": one message at a time
//! options = { wake = ["edge", "every"] }   # transport options, each value swept
//! samples = 7                        # overrides [defaults] for this benchmark
//! ```
//!
//! ## Keys
//!
//! | key            | where                  | value                                     | default            |
//! |----------------|------------------------|-------------------------------------------|--------------------|
//! | `name`         | top                    | string                                    | the file's stem    |
//! | `description`  | top                    | string                                    | none               |
//! | `probes`       | top                    | boolean                                   | `true`             |
//! | `workload`     | benchmark (required)   | `spsc`, `mpsc`, `mpmc`, `ping-pong`, or a list (alias `workloads`) | — |
//! | `transports`   | benchmark (required)   | transport name or a non-empty list (alias `transport`) | —     |
//! | `payload`      | defaults, benchmark    | payload name or list (`u64`, `bytes:64`, `event488+tails`, …) | `u64` |
//! | `capacity`     | defaults, benchmark    | integer ≥ 0 or list                        | 1024               |
//! | `producers`    | defaults, benchmark    | integer ≥ 1 or list (`mpsc`, `mpmc`, `paced`, `ramp`; `pipeline`: injectors fanning in) | 1, 2, 4, 8 (`mpsc`, `mpmc`), else 1 |
//! | `consumers`    | defaults, benchmark    | integer ≥ 1 or list (`mpmc`; fan-out)      | 2 (`mpmc`); open loop: 1, more is a fan-out |
//! | `batch`        | defaults, benchmark    | integer ≥ 1, `"none"`, or a list of them   | `"none"`           |
//! | `messages`     | defaults, benchmark    | `"auto"`, integer ≥ 1, or a list of them   | `"auto"`           |
//! | `target_ms`    | defaults, benchmark    | integer ≥ 1                                | 40                 |
//! | `min_messages` | defaults, benchmark    | integer ≥ 0, at most `max_messages`        | 10 000             |
//! | `max_messages` | defaults, benchmark    | integer ≥ 1                                | 20 000 000         |
//! | `samples`      | defaults, benchmark    | integer ≥ 1 (timed samples)                | 5                  |
//! | `warmup`       | defaults, benchmark    | integer ≥ 0 (untimed samples)              | 1                  |
//! | `timeout_ms`   | defaults, benchmark    | integer ≥ 1 (watchdog per sample)          | 20 000             |
//! | `pin`          | defaults, benchmark    | boolean                                    | `true`             |
//! | `driver`       | defaults, benchmark    | `threads`, `tokio-current`, `tokio-multi:N` (`tokio-multi`: one worker per core), or a list | `threads` |
//! | `options`      | benchmark              | inline table of option = value or list     | none               |
//! | `rate`         | defaults, benchmark    | messages/s (integer ≥ 1), `"ramp"`, or a list (`paced`, `pipeline`) | 10 000 (`paced`), 1 000 (`pipeline`) |
//! | `pacer`        | defaults, benchmark    | `"auto"`, `"spin"` or `"yield"` (open loop) | `"auto"`          |
//! | `ramp`         | defaults, benchmark    | `true` or `{ start, max, factor, refine, step_ms, p99_bound_us }` | `{ start = 1000, max = 1e9, factor = 2, refine = 3, step_ms = 200 }` |
//! | `hops`         | benchmark (`pipeline`) | one transport per hop (instead of `transports`) | each transport on every hop |
//! | `hop_capacity` | defaults, benchmark    | one capacity per hop (`pipeline`)          | `[64, 1024, 256]`  |
//! | `stage_work_ns`| defaults, benchmark    | busy work per stage and event (`pipeline`) | 0                  |
//! | `delivery`     | defaults, benchmark    | `"sequential"`, `"latest"` or both (`pipeline`) | `"sequential"` |
//!
//! ## Open loop
//!
//! `paced`, `ramp` and `pipeline` send on a schedule. With `messages = "auto"` a sample holds
//! `rate × target_ms / 1000` messages (within `min_messages`..`max_messages`), so it lasts about
//! `target_ms`; no pilot samples are needed. `workload = "ramp"` (or `rate = "ramp"` for a
//! pipeline) searches the highest sustained rate with the steps of `ramp`, one step lasting
//! `step_ms`. A `latest` pipeline needs a conflating hop (a transport with `latest` ordering, such
//! as `latest-cell`) and a `sequential` one must have none. `capacity` does not apply to a
//! pipeline; `hop_capacity` does.
//!
//! A key set in a `[[benchmark]]` replaces the `[defaults]` value as a whole (a list is not
//! merged with the default list). Any other key is an error.
//!
//! Transport options are checked against what the benchmark's transports declare
//! ([`TransportInfo::options`](crate::transport::TransportInfo::options)): each option must be
//! declared by every one of them (the engine rejects an option a transport does not know, so
//! transports with different options go in separate benchmarks) and each value be one they
//! list (an option declared without values takes any).
//!
//! ## Topology
//!
//! `spsc` and `ping-pong` always run 1 producer and 1 consumer, `mpsc` one consumer. In
//! `paced`, `ramp` and `pipeline`, `producers = K` is a fan-in (K injectors into the first hop)
//! and `consumers = N`, written in the benchmark itself, a fan-out: the last hop must broadcast
//! (`bus`, `crossbeam-fanout`) and each of the N sinks is verified to get the whole stream. A
//! `producers` or `consumers` value inherited from `[defaults]` applies only to the workloads
//! that have that dimension; the same value written in a `[[benchmark]]` that lists a workload
//! without it is an error, since it would be silently ignored. When nothing is given, `mpsc` and
//! `mpmc` sweep [`WorkloadKind::default_producers`] and `mpmc` uses
//! [`WorkloadKind::default_consumers`].
//!
//! ## Expansion
//!
//! Each `[[benchmark]]` expands to the cartesian product of its lists, in this order, the last
//! varying fastest: workload, transport, payload, capacity, producers, consumers, batch,
//! messages, then each option (by option name), then the driver (so the drivers of one
//! transport and setting sit side by side and their samples interleave). Benchmarks follow each
//! other in file order.
//!
//! The tokio drivers run async transports only; a blocking transport under one is left to the
//! engine, which reports it `unsupported` (see [`Driver`]).
//!
//! Names are checked here (transport, workload, payload); whether a transport supports a workload
//! or a capacity is left to the engine, which reports such a trial as `unsupported` or `invalid`
//! rather than refusing the whole suite.

use crate::catalog::Catalog;
use crate::message::MAX_PRODUCERS;
use crate::payload::PayloadKind;
use crate::semantics::Ordering;
use crate::transport::OptionSpec;
use crate::workload::{
    Delivery, Driver, Hop, Messages, PacerMode, Pacing, PipelineSpec, RampSpec, TrialSpec,
    WorkloadKind, DEFAULT_HOP_CAPACITIES,
};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Timed samples when the suite does not say.
pub const DEFAULT_SAMPLES: usize = 5;
/// Warm-up samples when the suite does not say.
pub const DEFAULT_WARMUP: usize = 1;
/// Target duration of one `auto` sample, milliseconds.
pub const DEFAULT_TARGET_MS: u64 = 40;
/// Lower bound of an `auto` message count.
pub const DEFAULT_MIN_MESSAGES: u64 = 10_000;
/// Upper bound of an `auto` message count.
pub const DEFAULT_MAX_MESSAGES: u64 = 20_000_000;
/// Capacity when the suite does not say.
pub const DEFAULT_CAPACITY: usize = 1024;
/// Watchdog per sample, milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 20_000;
/// Rate of a `paced` or `ramp`-less open-loop workload when the suite does not say, per second.
pub const DEFAULT_PACED_RATE: u64 = 10_000;
/// Rate of a `pipeline` when the suite does not say (the reference scenario's), per second.
pub const DEFAULT_PIPELINE_RATE: u64 = 1_000;

/// A parsed and expanded suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suite {
    /// The suite's name (the `name` key, or the file's stem).
    pub name: String,
    /// One line on what the suite measures.
    pub description: Option<String>,
    /// Whether the limit probes run before the trials.
    pub probes: bool,
    /// Every trial, in expansion order (see the module docs).
    pub trials: Vec<TrialSpec>,
}

/// A mistake in a suite file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteError {
    /// The file, as given to [`Suite::parse`] or [`Suite::load`].
    pub file: String,
    /// 1-based line of the offending text, where known.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the offending text, where known.
    pub column: Option<usize>,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SuiteError {}

impl Suite {
    /// Parses suite text; `file` names it in errors and gives the default suite name.
    pub fn parse(text: &str, file: &str, catalog: &Catalog) -> Result<Suite, SuiteError> {
        Parser {
            text,
            file,
            catalog,
        }
        .suite()
    }

    /// Reads and parses a suite file.
    pub fn load(path: &Path, catalog: &Catalog) -> Result<Suite, SuiteError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SuiteError {
            file: file.clone(),
            line: None,
            column: None,
            message: format!("cannot read the suite file: {e}"),
        })?;
        Suite::parse(&text, &file, catalog)
    }

    /// The same coverage in less time: at most 3 timed samples and 1 warm-up, `auto` samples
    /// aimed at a fifth of their target duration (at least 5 ms), fixed counts divided by 10
    /// (at least 1000). Nothing is ever made longer than it was.
    pub fn quick(&mut self) {
        for t in &mut self.trials {
            t.samples = t.samples.min(3);
            t.warmup = t.warmup.min(1);
            t.messages = match t.messages {
                Messages::Auto {
                    target_ms,
                    min,
                    max,
                } => Messages::Auto {
                    target_ms: (target_ms / 5).max(5).min(target_ms),
                    min,
                    max,
                },
                Messages::Fixed(n) => Messages::Fixed((n / 10).max(1000).min(n)),
            };
            if let Pacing::Ramp(r) = &mut t.pacing {
                r.step_ms = (r.step_ms / 4).max(20);
                r.refine = r.refine.min(1);
            }
            if t.workload.is_open_loop() {
                // An open-loop sample lasts as long as its schedule: shorten it by the count.
                if let Messages::Auto { min, .. } = &mut t.messages {
                    *min = (*min / 10).max(100);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

type Value<'i> = Spanned<DeValue<'i>>;
type Span = Range<usize>;

/// Keys at the top of the file.
const TOP_KEYS: &[&str] = &["name", "description", "probes", "defaults", "benchmark"];
/// Keys of `[defaults]` and of a `[[benchmark]]` alike.
const PARAM_KEYS: &[&str] = &[
    "payload",
    "capacity",
    "producers",
    "consumers",
    "batch",
    "messages",
    "target_ms",
    "min_messages",
    "max_messages",
    "samples",
    "warmup",
    "timeout_ms",
    "pin",
    "rate",
    "pacer",
    "ramp",
    "hop_capacity",
    "stage_work_ns",
    "delivery",
    "driver",
];
/// Keys only a `[[benchmark]]` takes.
const BENCH_ONLY_KEYS: &[&str] = &[
    "workload",
    "workloads",
    "transport",
    "transports",
    "options",
    "hops",
];

/// A value and the span of the text it came from.
#[derive(Clone, Debug)]
struct Set<T> {
    value: T,
    span: Span,
}

/// One entry of a `rate` list.
#[derive(Clone, Copy, Debug)]
enum RateElem {
    Fixed(u64),
    Ramp,
}

/// One entry of a `messages` list.
#[derive(Clone, Copy, Debug)]
enum Count {
    Auto,
    Fixed(u64),
}

/// The parameters of `[defaults]` or of one `[[benchmark]]`, each where it was written.
#[derive(Clone, Debug, Default)]
struct Settings {
    payload: Option<Set<Vec<PayloadKind>>>,
    capacity: Option<Set<Vec<usize>>>,
    producers: Option<Set<Vec<usize>>>,
    consumers: Option<Set<Vec<usize>>>,
    batch: Option<Set<Vec<Option<usize>>>>,
    messages: Option<Set<Vec<Count>>>,
    target_ms: Option<Set<u64>>,
    min_messages: Option<Set<u64>>,
    max_messages: Option<Set<u64>>,
    samples: Option<Set<usize>>,
    warmup: Option<Set<usize>>,
    timeout_ms: Option<Set<u64>>,
    pin: Option<Set<bool>>,
    rate: Option<Set<Vec<RateElem>>>,
    pacer: Option<Set<PacerMode>>,
    ramp: Option<Set<RampSpec>>,
    hop_capacity: Option<Set<Vec<usize>>>,
    stage_work_ns: Option<Set<u64>>,
    delivery: Option<Set<Vec<Delivery>>>,
    driver: Option<Set<Vec<Driver>>>,
}

impl Settings {
    /// `self` where set, `defaults` elsewhere.
    fn over(&self, defaults: &Settings) -> Settings {
        fn pick<T: Clone>(a: &Option<Set<T>>, b: &Option<Set<T>>) -> Option<Set<T>> {
            a.clone().or_else(|| b.clone())
        }
        Settings {
            payload: pick(&self.payload, &defaults.payload),
            capacity: pick(&self.capacity, &defaults.capacity),
            producers: pick(&self.producers, &defaults.producers),
            consumers: pick(&self.consumers, &defaults.consumers),
            batch: pick(&self.batch, &defaults.batch),
            messages: pick(&self.messages, &defaults.messages),
            target_ms: pick(&self.target_ms, &defaults.target_ms),
            min_messages: pick(&self.min_messages, &defaults.min_messages),
            max_messages: pick(&self.max_messages, &defaults.max_messages),
            samples: pick(&self.samples, &defaults.samples),
            warmup: pick(&self.warmup, &defaults.warmup),
            timeout_ms: pick(&self.timeout_ms, &defaults.timeout_ms),
            pin: pick(&self.pin, &defaults.pin),
            rate: pick(&self.rate, &defaults.rate),
            pacer: pick(&self.pacer, &defaults.pacer),
            ramp: pick(&self.ramp, &defaults.ramp),
            hop_capacity: pick(&self.hop_capacity, &defaults.hop_capacity),
            stage_work_ns: pick(&self.stage_work_ns, &defaults.stage_work_ns),
            delivery: pick(&self.delivery, &defaults.delivery),
            driver: pick(&self.driver, &defaults.driver),
        }
    }
}

/// What an element parser made of one value.
enum Elem<T> {
    Ok(T),
    /// Not of an accepted type (the caller names the expected types).
    WrongType,
    /// Of the right type but not acceptable; the message says why.
    Invalid(String),
}

/// "a string", "an integer", …
fn a_type(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

/// The value of an integer, if it is one that fits.
fn integer(v: &DeValue<'_>) -> Option<Result<u64, String>> {
    let DeValue::Integer(i) = v else { return None };
    Some(match i128::from_str_radix(i.as_str(), i.radix()) {
        Ok(n) if n < 0 => Err(format!("{n} is negative")),
        Ok(n) => u64::try_from(n).map_err(|_| format!("{n} is too large")),
        Err(_) => Err(format!("`{}` is not a valid integer", i.as_str())),
    })
}

/// An integer of at least `min`, for `key`.
fn count(v: &DeValue<'_>, key: &str, min: u64) -> Elem<u64> {
    match integer(v) {
        None => Elem::WrongType,
        Some(Err(e)) => Elem::Invalid(format!("`{key}`: {e}")),
        Some(Ok(n)) if n < min => Elem::Invalid(format!("`{key}` must be at least {min}, got {n}")),
        Some(Ok(n)) => Elem::Ok(n),
    }
}

/// A `usize` of at least `min` (and at most `max`), for `key`.
fn size(v: &DeValue<'_>, key: &str, min: u64, max: u64) -> Elem<usize> {
    match count(v, key, min) {
        Elem::Ok(n) if n > max => Elem::Invalid(format!("`{key}` must be at most {max}, got {n}")),
        Elem::Ok(n) => match usize::try_from(n) {
            Ok(n) => Elem::Ok(n),
            Err(_) => Elem::Invalid(format!("`{key}`: {n} is too large")),
        },
        Elem::WrongType => Elem::WrongType,
        Elem::Invalid(e) => Elem::Invalid(e),
    }
}

struct Parser<'a> {
    text: &'a str,
    file: &'a str,
    catalog: &'a Catalog,
}

impl<'a> Parser<'a> {
    fn error(&self, span: Option<Span>, message: impl Into<String>) -> SuiteError {
        let (line, column) = match span {
            Some(s) => {
                let (l, c) = position(self.text, s.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        SuiteError {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    fn suite(&self) -> Result<Suite, SuiteError> {
        let doc = DeTable::parse(self.text).map_err(|e| self.syntax(e))?;
        let doc = doc.get_ref();
        self.check_keys(doc, TOP_KEYS, &[], "at the top level")?;

        let name = match doc.get("name") {
            Some(v) => self.string(v, "name")?,
            None => Path::new(self.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| self.file.to_string()),
        };
        let description = doc
            .get("description")
            .map(|v| self.string(v, "description"))
            .transpose()?;
        let probes = match doc.get("probes") {
            Some(v) => self.boolean(v, "probes")?,
            None => true,
        };

        let defaults = match doc.get("defaults") {
            None => Settings::default(),
            Some(v) => match v.get_ref() {
                DeValue::Table(t) => {
                    self.check_keys(t, PARAM_KEYS, BENCH_ONLY_KEYS, "in [defaults]")?;
                    self.settings(t)?
                }
                other => {
                    return Err(self.error(
                        Some(v.span()),
                        format!(
                            "`defaults` must be a table (`[defaults]`), found {}",
                            a_type(other)
                        ),
                    ))
                }
            },
        };

        let benches = match doc.get("benchmark") {
            None => {
                return Err(self.error(
                    None,
                    "no [[benchmark]]: a suite needs at least one, e.g.\n  [[benchmark]]\n  workload = \"spsc\"\n  transports = [\"crossbeam-bounded\"]",
                ))
            }
            Some(v) => match v.get_ref() {
                DeValue::Array(a) if !a.is_empty() => a,
                DeValue::Table(_) => {
                    return Err(self.error(
                        Some(v.span()),
                        "`benchmark` must be an array of tables: write `[[benchmark]]`, not `[benchmark]`",
                    ))
                }
                other => {
                    return Err(self.error(
                        Some(v.span()),
                        format!(
                            "`benchmark` must be an array of tables (`[[benchmark]]`), found {}",
                            a_type(other)
                        ),
                    ))
                }
            },
        };

        let mut trials = Vec::new();
        for (i, b) in benches.iter().enumerate() {
            let DeValue::Table(t) = b.get_ref() else {
                return Err(self.error(
                    Some(b.span()),
                    format!(
                        "each `benchmark` must be a table (`[[benchmark]]`), found {}",
                        a_type(b.get_ref())
                    ),
                ));
            };
            self.benchmark(t, b.span(), i + 1, &defaults, &mut trials)?;
        }
        Ok(Suite {
            name,
            description,
            probes,
            trials,
        })
    }

    /// A TOML syntax error, with what the parser expected.
    fn syntax(&self, e: toml::de::Error) -> SuiteError {
        let mut msg = e.message().trim().to_string();
        if let Some(span) = e.span() {
            if msg == "duplicate key" {
                if let Some(key) = self.text.get(span.clone()) {
                    msg = format!("duplicate key `{key}`: each key may be set once per table");
                }
            }
        }
        self.error(e.span(), format!("invalid TOML: {msg}"))
    }

    /// Rejects keys outside `allowed`; `misplaced` are keys that belong elsewhere.
    fn check_keys(
        &self,
        table: &DeTable<'_>,
        allowed: &[&str],
        misplaced: &[&str],
        place: &str,
    ) -> Result<(), SuiteError> {
        let mut bad: Vec<&Spanned<std::borrow::Cow<'_, str>>> = table
            .keys()
            .filter(|k| !allowed.contains(&k.get_ref().as_ref()))
            .collect();
        bad.sort_by_key(|k| k.span().start);
        let Some(key) = bad.first() else {
            return Ok(());
        };
        let name: &str = key.get_ref();
        let msg = if misplaced.contains(&name) {
            format!("`{name}` belongs in a [[benchmark]], not {place}")
        } else {
            format!(
                "{place}: {}",
                crate::suggest::unknown("key", name, allowed.iter().copied())
            )
        };
        Err(self.error(Some(key.span()), msg))
    }

    fn string(&self, v: &Value<'_>, key: &str) -> Result<String, SuiteError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.error(
                Some(v.span()),
                format!("expected a string for `{key}`, found {}", a_type(other)),
            )),
        }
    }

    fn boolean(&self, v: &Value<'_>, key: &str) -> Result<bool, SuiteError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.error(
                Some(v.span()),
                format!(
                    "expected a boolean (true or false) for `{key}`, found {}",
                    a_type(other)
                ),
            )),
        }
    }

    /// One value of `key`, of the kind `what` (e.g. "an integer").
    fn scalar<T>(
        &self,
        v: &Value<'_>,
        key: &str,
        what: &str,
        elem: impl Fn(&DeValue<'_>) -> Elem<T>,
    ) -> Result<Set<T>, SuiteError> {
        match elem(v.get_ref()) {
            Elem::Ok(value) => Ok(Set {
                value,
                span: v.span(),
            }),
            Elem::WrongType => Err(self.error(
                Some(v.span()),
                format!("expected {what} for `{key}`, found {}", a_type(v.get_ref())),
            )),
            Elem::Invalid(msg) => Err(self.error(Some(v.span()), msg)),
        }
    }

    /// A value or a non-empty list of values of `key`; `what`/`whats` name one and many.
    fn sweep<T>(
        &self,
        v: &Value<'_>,
        key: &str,
        what: &str,
        whats: &str,
        elem: impl Fn(&DeValue<'_>) -> Elem<T>,
    ) -> Result<Set<Vec<T>>, SuiteError> {
        let items: Vec<&Value<'_>> = match v.get_ref() {
            DeValue::Array(a) => {
                if a.is_empty() {
                    return Err(self.error(
                        Some(v.span()),
                        format!("`{key}` is an empty list: give at least one value"),
                    ));
                }
                a.iter().collect()
            }
            _ => vec![v],
        };
        let is_list = matches!(v.get_ref(), DeValue::Array(_));
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match elem(item.get_ref()) {
                Elem::Ok(x) => out.push(x),
                Elem::WrongType if is_list => {
                    return Err(self.error(
                        Some(item.span()),
                        format!(
                            "expected {whats} in the list for `{key}`, found {}",
                            a_type(item.get_ref())
                        ),
                    ))
                }
                Elem::WrongType => {
                    return Err(self.error(
                        Some(item.span()),
                        format!(
                            "expected {what} or a list of {whats} for `{key}`, found {}",
                            a_type(item.get_ref())
                        ),
                    ))
                }
                Elem::Invalid(msg) => return Err(self.error(Some(item.span()), msg)),
            }
        }
        Ok(Set {
            value: out,
            span: v.span(),
        })
    }

    /// The parameters of a `[defaults]` or `[[benchmark]]` table (keys already checked).
    fn settings(&self, t: &DeTable<'_>) -> Result<Settings, SuiteError> {
        let mut s = Settings::default();
        for (k, v) in t.iter() {
            let key: &str = k.get_ref();
            match key {
                "payload" => {
                    s.payload = Some(self.sweep(
                        v,
                        key,
                        "a payload name",
                        "payload names",
                        |x| match x {
                            DeValue::String(name) => match name.parse::<PayloadKind>() {
                                Ok(p) => Elem::Ok(p),
                                Err(e) => Elem::Invalid(e),
                            },
                            _ => Elem::WrongType,
                        },
                    )?)
                }
                "capacity" => {
                    s.capacity = Some(self.sweep(v, key, "an integer", "integers", |x| {
                        size(x, key, 0, u64::MAX)
                    })?)
                }
                "producers" => {
                    s.producers = Some(self.sweep(v, key, "an integer", "integers", |x| {
                        size(x, key, 1, MAX_PRODUCERS as u64)
                    })?)
                }
                "consumers" => {
                    s.consumers = Some(self.sweep(v, key, "an integer", "integers", |x| {
                        size(x, key, 1, u64::MAX)
                    })?)
                }
                "batch" => {
                    s.batch = Some(self.sweep(
                        v,
                        key,
                        "an integer or \"none\"",
                        "integers or \"none\"",
                        |x| match x {
                            DeValue::String(n) if n == "none" => Elem::Ok(None),
                            DeValue::String(n) => Elem::Invalid(format!(
                                "`batch`: expected a batch size or \"none\", found \"{n}\""
                            )),
                            other => match size(other, key, 1, u64::MAX) {
                                Elem::Ok(n) => Elem::Ok(Some(n)),
                                Elem::WrongType => Elem::WrongType,
                                Elem::Invalid(e) => Elem::Invalid(e),
                            },
                        },
                    )?)
                }
                "messages" => {
                    s.messages = Some(self.sweep(
                        v,
                        key,
                        "\"auto\" or an integer",
                        "integers or \"auto\"",
                        |x| match x {
                            DeValue::String(n) if n == "auto" => Elem::Ok(Count::Auto),
                            DeValue::String(n) => Elem::Invalid(format!(
                                "`messages`: expected \"auto\" or a count, found \"{n}\""
                            )),
                            other => match count(other, key, 1) {
                                Elem::Ok(n) => Elem::Ok(Count::Fixed(n)),
                                Elem::WrongType => Elem::WrongType,
                                Elem::Invalid(e) => Elem::Invalid(e),
                            },
                        },
                    )?)
                }
                "target_ms" => {
                    s.target_ms = Some(self.scalar(v, key, "an integer", |x| count(x, key, 1))?)
                }
                "min_messages" => {
                    s.min_messages = Some(self.scalar(v, key, "an integer", |x| count(x, key, 0))?)
                }
                "max_messages" => {
                    s.max_messages = Some(self.scalar(v, key, "an integer", |x| count(x, key, 1))?)
                }
                "samples" => {
                    s.samples =
                        Some(self.scalar(v, key, "an integer", |x| size(x, key, 1, u64::MAX))?)
                }
                "warmup" => {
                    s.warmup =
                        Some(self.scalar(v, key, "an integer", |x| size(x, key, 0, u64::MAX))?)
                }
                "timeout_ms" => {
                    s.timeout_ms = Some(self.scalar(v, key, "an integer", |x| count(x, key, 1))?)
                }
                "pin" => {
                    s.pin = Some(Set {
                        value: self.boolean(v, key)?,
                        span: v.span(),
                    })
                }
                "rate" => {
                    s.rate = Some(self.sweep(
                        v,
                        key,
                        "a rate per second or \"ramp\"",
                        "rates or \"ramp\"",
                        |x| match x {
                            DeValue::String(n) if n == "ramp" => Elem::Ok(RateElem::Ramp),
                            DeValue::String(n) => Elem::Invalid(format!(
                                "`rate`: expected messages per second or \"ramp\", found \"{n}\""
                            )),
                            other => match count(other, key, 1) {
                                Elem::Ok(n) => Elem::Ok(RateElem::Fixed(n)),
                                Elem::WrongType => Elem::WrongType,
                                Elem::Invalid(e) => Elem::Invalid(e),
                            },
                        },
                    )?)
                }
                "pacer" => {
                    s.pacer =
                        Some(self.scalar(
                            v,
                            key,
                            "\"auto\", \"spin\" or \"yield\"",
                            |x| match x {
                                DeValue::String(n) => match n.parse::<PacerMode>() {
                                    Ok(m) => Elem::Ok(m),
                                    Err(e) => Elem::Invalid(e),
                                },
                                _ => Elem::WrongType,
                            },
                        )?)
                }
                "ramp" => s.ramp = Some(self.ramp(v)?),
                "hop_capacity" => {
                    s.hop_capacity = Some(self.sweep(v, key, "an integer", "integers", |x| {
                        size(x, key, 1, u64::MAX)
                    })?)
                }
                "stage_work_ns" => {
                    s.stage_work_ns = Some(self.scalar(v, key, "an integer", |x| count(x, key, 0))?)
                }
                "delivery" => {
                    s.delivery = Some(self.sweep(
                        v,
                        key,
                        "\"sequential\" or \"latest\"",
                        "delivery modes",
                        |x| match x {
                            DeValue::String(n) => match n.parse::<Delivery>() {
                                Ok(d) => Elem::Ok(d),
                                Err(e) => Elem::Invalid(e),
                            },
                            _ => Elem::WrongType,
                        },
                    )?)
                }
                "driver" => {
                    s.driver =
                        Some(
                            self.sweep(v, key, "a driver name", "driver names", |x| match x {
                                DeValue::String(name) => match name.parse::<Driver>() {
                                    Ok(d) => Elem::Ok(d),
                                    Err(e) => Elem::Invalid(e),
                                },
                                _ => Elem::WrongType,
                            })?,
                        )
                }
                // Benchmark-only keys are handled by the caller.
                _ => {}
            }
        }
        Ok(s)
    }

    /// `ramp = true` (defaults) or `ramp = { start = 1000, factor = 2, max = …, refine = 3,
    /// step_ms = 200, p99_bound_us = … }`.
    fn ramp(&self, v: &Value<'_>) -> Result<Set<RampSpec>, SuiteError> {
        const KEYS: &[&str] = &[
            "start",
            "max",
            "factor",
            "refine",
            "step_ms",
            "p99_bound_us",
        ];
        let mut r = RampSpec::default();
        match v.get_ref() {
            DeValue::Boolean(true) => {}
            DeValue::Table(t) => {
                self.check_keys(t, KEYS, &[], "in `ramp`")?;
                for (k, val) in t.iter() {
                    let key: &str = k.get_ref();
                    let at_least = match key {
                        "factor" => 2,
                        "refine" | "p99_bound_us" => 0,
                        _ => 1,
                    };
                    let n = self
                        .scalar(val, &format!("ramp.{key}"), "an integer", |x| {
                            count(x, key, at_least)
                        })?
                        .value;
                    match key {
                        "start" => r.start = n,
                        "max" => r.max = n,
                        "factor" => r.factor = n,
                        "refine" => r.refine = n.min(20) as u32,
                        "step_ms" => r.step_ms = n,
                        _ => r.p99_bound_ns = Some(n.saturating_mul(1000)),
                    }
                }
                if r.start > r.max {
                    return Err(self.error(
                        Some(v.span()),
                        format!(
                            "`ramp`: start ({}/s) is above max ({}/s)",
                            r.start, r.max
                        ),
                    ));
                }
            }
            other => {
                return Err(self.error(
                    Some(v.span()),
                    format!(
                        "expected `true` or a table for `ramp` (e.g. `ramp = {{ start = 1000, factor = 2 }}`), found {}",
                        a_type(other)
                    ),
                ))
            }
        }
        Ok(Set {
            value: r,
            span: v.span(),
        })
    }

    /// The hops of a pipeline benchmark: `hops` (one transport per hop) or each transport of
    /// `transports` on every hop, with `hop_capacity` (one per hop).
    fn pipelines(
        &self,
        hops: Option<&Set<Vec<String>>>,
        transports: &[String],
        s: &Settings,
        span: &Span,
    ) -> Result<Vec<PipelineSpec>, SuiteError> {
        let capacities = s
            .hop_capacity
            .as_ref()
            .map_or(DEFAULT_HOP_CAPACITIES.to_vec(), |x| x.value.clone());
        let chains: Vec<Vec<String>> = match hops {
            Some(h) => {
                if let Some(c) = &s.hop_capacity {
                    if c.value.len() != h.value.len() {
                        return Err(self.error(
                            Some(c.span.clone()),
                            format!(
                                "`hop_capacity` has {} values but `hops` names {} hops: give one capacity per hop",
                                c.value.len(),
                                h.value.len()
                            ),
                        ));
                    }
                } else if h.value.len() != capacities.len() {
                    return Err(self.error(
                        Some(h.span.clone()),
                        format!(
                            "{} hops but the default `hop_capacity` has {}: give `hop_capacity` with one capacity per hop",
                            h.value.len(),
                            capacities.len()
                        ),
                    ));
                }
                vec![h.value.clone()]
            }
            None => transports
                .iter()
                .map(|t| vec![t.clone(); capacities.len()])
                .collect(),
        };
        let deliveries = s
            .delivery
            .as_ref()
            .map_or(vec![Delivery::Sequential], |x| x.value.clone());
        let work = s.stage_work_ns.as_ref().map_or(0, |x| x.value);
        let mut out = Vec::new();
        for chain in chains {
            let conflating = chain.iter().find(|t| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| e.info().semantics.ordering == Ordering::Latest)
            });
            for &delivery in &deliveries {
                let at = s.delivery.as_ref().map_or(span.clone(), |x| x.span.clone());
                match (delivery, conflating) {
                    (Delivery::Latest, None) => {
                        return Err(self.error(
                            Some(at),
                            format!(
                                "delivery \"latest\" needs a conflating hop (a transport with `latest` ordering, e.g. `latest-cell`) among the hops ({})",
                                chain.join(", ")
                            ),
                        ))
                    }
                    (Delivery::Sequential, Some(t)) => {
                        return Err(self.error(
                            Some(at),
                            format!(
                                "hop `{t}` conflates (keeps only the newest value), so not every event can reach the sink: use delivery = \"latest\""
                            ),
                        ))
                    }
                    _ => {}
                }
                out.push(PipelineSpec {
                    hops: chain
                        .iter()
                        .zip(&capacities)
                        .map(|(t, &capacity)| Hop {
                            transport: t.clone(),
                            capacity,
                        })
                        .collect(),
                    stage_work_ns: work,
                    delivery,
                });
            }
        }
        Ok(out)
    }

    /// Exactly one of `a` and `b` (aliases), or none.
    fn either<'t, 'i>(
        &self,
        t: &'t DeTable<'i>,
        a: &str,
        b: &str,
    ) -> Result<Option<(&'t str, &'t Value<'i>)>, SuiteError> {
        match (t.get_key_value(a), t.get_key_value(b)) {
            (Some(_), Some((kb, _))) => Err(self.error(
                Some(kb.span()),
                format!("give either `{a}` or `{b}`, not both"),
            )),
            (Some((k, v)), None) | (None, Some((k, v))) => Ok(Some((k.get_ref().as_ref(), v))),
            (None, None) => Ok(None),
        }
    }

    /// Parses one `[[benchmark]]` and appends its trials.
    fn benchmark(
        &self,
        t: &DeTable<'_>,
        span: Span,
        index: usize,
        defaults: &Settings,
        trials: &mut Vec<TrialSpec>,
    ) -> Result<(), SuiteError> {
        let place = format!("in [[benchmark]] #{index}");
        let allowed: Vec<&str> = PARAM_KEYS.iter().chain(BENCH_ONLY_KEYS).copied().collect();
        self.check_keys(t, &allowed, &[], &place)?;

        let workloads = match self.either(t, "workload", "workloads")? {
            Some((key, v)) => self.sweep(v, key, "a workload name", "workload names", |x| {
                match x {
                    DeValue::String(n) => match n.parse::<WorkloadKind>() {
                        Ok(w) => Elem::Ok(w),
                        Err(e) => Elem::Invalid(e),
                    },
                    _ => Elem::WrongType,
                }
            })?,
            None => {
                return Err(self.error(
                    Some(span),
                    format!(
                        "[[benchmark]] #{index} names no workload: add e.g. `workload = \"spsc\"` (one of {})",
                        WorkloadKind::ALL.map(|w| w.name()).join(", ")
                    ),
                ))
            }
        };
        let hops = match t.get("hops") {
            None => None,
            Some(v) => {
                if let Some(w) = workloads
                    .value
                    .iter()
                    .find(|w| **w != WorkloadKind::Pipeline)
                {
                    return Err(self.error(
                        Some(v.span()),
                        format!("`hops` applies only to workload `pipeline`, not `{w}`"),
                    ));
                }
                if let Some((key, _)) = self.either(t, "transports", "transport")? {
                    return Err(self.error(
                        Some(v.span()),
                        format!("give either `hops` (one transport per hop) or `{key}` (each on every hop), not both"),
                    ));
                }
                Some(self.sweep(
                    v,
                    "hops",
                    "a transport name",
                    "transport names",
                    |x| match x {
                        DeValue::String(n) => match self.catalog.lookup(n) {
                            Ok(_) => Elem::Ok(n.to_string()),
                            Err(e) => Elem::Invalid(e),
                        },
                        _ => Elem::WrongType,
                    },
                )?)
            }
        };
        let transports = match self.either(t, "transports", "transport")? {
            None if hops.is_some() => {
                let h = hops.as_ref().expect("checked");
                Set {
                    value: vec![h.value[0].clone()],
                    span: h.span.clone(),
                }
            }
            Some((key, v)) => {
                if matches!(v.get_ref(), DeValue::Array(a) if a.is_empty()) {
                    return Err(self.error(
                        Some(v.span()),
                        format!("`{key}` is an empty list: name at least one transport"),
                    ));
                }
                self.sweep(v, key, "a transport name", "transport names", |x| match x {
                    DeValue::String(n) => match self.catalog.lookup(n) {
                        Ok(_) => Elem::Ok(n.to_string()),
                        Err(e) => Elem::Invalid(e),
                    },
                    _ => Elem::WrongType,
                })?
            }
            None => {
                return Err(self.error(
                    Some(span),
                    format!("[[benchmark]] #{index} names no transport: add e.g. `transports = [\"crossbeam-bounded\"]`"),
                ))
            }
        };
        let options = match t.get("options") {
            None => Vec::new(),
            Some(v) => self.options(v, &transports.value)?,
        };

        let own = self.settings(t)?;
        let s = own.over(defaults);
        let target_ms = s.target_ms.as_ref().map_or(DEFAULT_TARGET_MS, |x| x.value);
        let min = s
            .min_messages
            .as_ref()
            .map_or(DEFAULT_MIN_MESSAGES, |x| x.value);
        let max = s
            .max_messages
            .as_ref()
            .map_or(DEFAULT_MAX_MESSAGES, |x| x.value);
        if min > max {
            let at = s
                .min_messages
                .as_ref()
                .or(s.max_messages.as_ref())
                .map(|x| x.span.clone());
            return Err(self.error(
                at,
                format!("`min_messages` ({min}) is larger than `max_messages` ({max})"),
            ));
        }
        let counts: Vec<Messages> = s
            .messages
            .as_ref()
            .map_or(vec![Count::Auto], |x| x.value.clone())
            .into_iter()
            .map(|c| match c {
                Count::Auto => Messages::Auto {
                    target_ms,
                    min,
                    max,
                },
                Count::Fixed(n) => Messages::Fixed(n),
            })
            .collect();
        let payloads = s
            .payload
            .as_ref()
            .map_or(vec![PayloadKind::U64], |x| x.value.clone());
        let capacities = s
            .capacity
            .as_ref()
            .map_or(vec![DEFAULT_CAPACITY], |x| x.value.clone());
        let batches = s.batch.as_ref().map_or(vec![None], |x| x.value.clone());
        let samples = s.samples.as_ref().map_or(DEFAULT_SAMPLES, |x| x.value);
        let warmup = s.warmup.as_ref().map_or(DEFAULT_WARMUP, |x| x.value);
        let timeout_ms = s
            .timeout_ms
            .as_ref()
            .map_or(DEFAULT_TIMEOUT_MS, |x| x.value);
        let pin = s.pin.as_ref().map_or(true, |x| x.value);
        let option_sets = option_product(&options);
        let pacer = s.pacer.as_ref().map_or(PacerMode::Auto, |x| x.value);
        let ramp = s
            .ramp
            .as_ref()
            .map_or_else(RampSpec::default, |x| x.value.clone());
        let drivers = s
            .driver
            .as_ref()
            .map_or(vec![Driver::Threads], |x| x.value.clone());
        let first = trials.len();

        for &workload in &workloads.value {
            let (producers, consumers) = self.topology(workload, &own, &s)?;
            let pacings = self.pacings(workload, &own, &s, &ramp)?;
            self.pipeline_keys_apply(workload, &own)?;
            let pipelines: Vec<Option<PipelineSpec>> = if workload == WorkloadKind::Pipeline {
                self.pipelines(hops.as_ref(), &transports.value, &s, &span)?
                    .into_iter()
                    .map(Some)
                    .collect()
            } else {
                vec![None]
            };
            let transports: Vec<String> = if workload == WorkloadKind::Pipeline {
                // The chains already name every hop's transport.
                vec![String::new()]
            } else {
                transports.value.clone()
            };
            if workload == WorkloadKind::Pipeline {
                if let Some(c) = &own.capacity {
                    return Err(self.error(
                        Some(c.span.clone()),
                        "`capacity` does not apply to workload `pipeline`: give one capacity per hop with `hop_capacity`",
                    ));
                }
            }
            let capacities: &[usize] = if workload == WorkloadKind::Pipeline {
                &capacities[..1]
            } else {
                &capacities
            };
            for transport in &transports {
                for &payload in &payloads {
                    for &capacity in capacities {
                        for &p in &producers {
                            for &c in &consumers {
                                for &batch in &batches {
                                    for &messages in &counts {
                                        for opts in &option_sets {
                                            for pacing in &pacings {
                                                for pipe in &pipelines {
                                                    let (transport, capacity) = match pipe {
                                                        Some(p) => (
                                                            p.hops[0].transport.clone(),
                                                            p.hops[0].capacity,
                                                        ),
                                                        None => (transport.clone(), capacity),
                                                    };
                                                    trials.push(TrialSpec {
                                                        transport,
                                                        workload,
                                                        driver: Driver::Threads,
                                                        payload,
                                                        capacity,
                                                        producers: p,
                                                        consumers: c,
                                                        messages,
                                                        batch,
                                                        options: opts.clone(),
                                                        samples,
                                                        warmup,
                                                        timeout_ms,
                                                        pin,
                                                        pacing: pacing.clone(),
                                                        pacer,
                                                        pipeline: pipe.clone(),
                                                    });
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        expand_drivers(trials, first, &drivers);
        Ok(())
    }

    /// Producer and consumer counts for `workload`: `own` are the benchmark's own keys, `s` the
    /// merged settings.
    fn topology(
        &self,
        workload: WorkloadKind,
        own: &Settings,
        s: &Settings,
    ) -> Result<(Vec<usize>, Vec<usize>), SuiteError> {
        let fixed = |set: &Option<Set<Vec<usize>>>, key: &str, why: &str| {
            match set {
                Some(x) if x.value.iter().any(|&n| n != 1) => Err(self.error(
                    Some(x.span.clone()),
                    format!(
                        "`{key}` does not apply to workload `{workload}` ({why}); put `{workload}` in a [[benchmark]] of its own"
                    ),
                )),
                _ => Ok(vec![1]),
            }
        };
        Ok(match workload {
            WorkloadKind::Spsc | WorkloadKind::PingPong => (
                fixed(&own.producers, "producers", "it always runs 1 producer")?,
                fixed(&own.consumers, "consumers", "it always runs 1 consumer")?,
            ),
            WorkloadKind::Mpsc => (
                s.producers
                    .as_ref()
                    .map_or_else(|| workload.default_producers(), |x| x.value.clone()),
                fixed(&own.consumers, "consumers", "it always runs 1 consumer")?,
            ),
            // An open-loop trial's producers are its injectors: more than one is a fan-in into
            // hop 1. Its consumers are its sinks: more than one is a fan-out from a broadcast
            // last hop, so only a benchmark's own `consumers` makes one (never `[defaults]`,
            // whose consumers are meant for `mpmc`).
            WorkloadKind::Paced | WorkloadKind::Ramp | WorkloadKind::Pipeline => (
                s.producers
                    .as_ref()
                    .map_or_else(|| workload.default_producers(), |x| x.value.clone()),
                own.consumers
                    .as_ref()
                    .map_or_else(|| vec![1], |x| x.value.clone()),
            ),
            WorkloadKind::Mpmc => (
                s.producers
                    .as_ref()
                    .map_or_else(|| workload.default_producers(), |x| x.value.clone()),
                s.consumers
                    .as_ref()
                    .map_or_else(|| vec![workload.default_consumers()], |x| x.value.clone()),
            ),
        })
    }

    /// The pacings of `workload`: closed loop for the streaming workloads (where an open-loop
    /// key written in the benchmark itself is an error), the `rate` list otherwise.
    fn pacings(
        &self,
        workload: WorkloadKind,
        own: &Settings,
        s: &Settings,
        ramp: &RampSpec,
    ) -> Result<Vec<Pacing>, SuiteError> {
        if !workload.is_open_loop() {
            let given = [
                own.rate.as_ref().map(|x| ("rate", x.span.clone())),
                own.pacer.as_ref().map(|x| ("pacer", x.span.clone())),
                own.ramp.as_ref().map(|x| ("ramp", x.span.clone())),
            ];
            if let Some((key, at)) = given.into_iter().flatten().next() {
                return Err(self.error(
                    Some(at),
                    format!("`{key}` does not apply to workload `{workload}` (closed loop); it applies to paced, ramp and pipeline"),
                ));
            }
            return Ok(vec![Pacing::Closed]);
        }
        if workload == WorkloadKind::Ramp {
            if let Some(r) = &own.rate {
                if r.value.iter().any(|e| matches!(e, RateElem::Fixed(_))) {
                    return Err(self.error(
                        Some(r.span.clone()),
                        "workload `ramp` searches the rate itself: set its steps with `ramp = { start = …, factor = … }`, or use workload `paced` for a fixed rate",
                    ));
                }
            }
            return Ok(vec![Pacing::Ramp(ramp.clone())]);
        }
        let default = if workload == WorkloadKind::Pipeline {
            DEFAULT_PIPELINE_RATE
        } else {
            DEFAULT_PACED_RATE
        };
        Ok(s.rate
            .as_ref()
            .map_or(vec![RateElem::Fixed(default)], |x| x.value.clone())
            .into_iter()
            .map(|e| match e {
                RateElem::Fixed(r) => Pacing::Rate(r),
                RateElem::Ramp => Pacing::Ramp(ramp.clone()),
            })
            .collect())
    }

    /// Pipeline keys written in a benchmark whose workload is not a pipeline are an error.
    fn pipeline_keys_apply(
        &self,
        workload: WorkloadKind,
        own: &Settings,
    ) -> Result<(), SuiteError> {
        if workload == WorkloadKind::Pipeline {
            if let Some(b) = &own.batch {
                return Err(self.error(
                    Some(b.span.clone()),
                    "`batch` does not apply to workload `pipeline` (events move one at a time)",
                ));
            }
            return Ok(());
        }
        let given = [
            own.hop_capacity
                .as_ref()
                .map(|x| ("hop_capacity", x.span.clone())),
            own.stage_work_ns
                .as_ref()
                .map(|x| ("stage_work_ns", x.span.clone())),
            own.delivery.as_ref().map(|x| ("delivery", x.span.clone())),
        ];
        match given.into_iter().flatten().next() {
            Some((key, at)) => Err(self.error(
                Some(at),
                format!("`{key}` applies only to workload `pipeline`, not `{workload}`"),
            )),
            None => Ok(()),
        }
    }

    /// `options = { name = value or [values] }`, in option-name order.
    ///
    /// Each option must be declared by at least one of the benchmark's `transports`, and each
    /// value must be one a declaring transport lists: a misspelt option would otherwise be
    /// ignored by every adapter while the report echoed it as if it had been applied.
    fn options(
        &self,
        v: &Value<'_>,
        transports: &[String],
    ) -> Result<Vec<(String, Vec<String>)>, SuiteError> {
        let DeValue::Table(t) = v.get_ref() else {
            return Err(self.error(
                Some(v.span()),
                format!(
                    "expected a table for `options` (e.g. `options = {{ wake = [\"edge\", \"every\"] }}`), found {}",
                    a_type(v.get_ref())
                ),
            ));
        };
        let declared: Vec<&OptionSpec> = transports
            .iter()
            .filter_map(|n| self.catalog.get(n))
            .flat_map(|e| e.info().options.iter())
            .collect();
        let mut out = Vec::new();
        for (k, val) in t.iter() {
            let name: &str = k.get_ref();
            let specs: Vec<&&OptionSpec> = declared.iter().filter(|o| o.name == name).collect();
            if specs.is_empty() {
                let mut names: Vec<&str> = declared.iter().map(|o| o.name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                let known = if names.is_empty() {
                    "these transports take no options".to_string()
                } else {
                    format!("these transports take {}", names.join(", "))
                };
                return Err(self.error(
                    Some(k.span()),
                    format!(
                        "{} ({known})",
                        crate::suggest::unknown("option", name, names.iter().copied())
                    ),
                ));
            }
            if let Some(t) = transports.iter().find(|t| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| !e.info().options.iter().any(|o| o.name == name))
            }) {
                return Err(self.error(
                    Some(k.span()),
                    format!(
                        "transport `{t}` does not take option `{name}`; put the transports that do in a [[benchmark]] of their own"
                    ),
                ));
            }
            let allowed: Option<Vec<&str>> = if specs.iter().any(|o| o.values.is_empty()) {
                None
            } else {
                let mut v: Vec<&str> = specs
                    .iter()
                    .flat_map(|o| o.values.iter().map(String::as_str))
                    .collect();
                v.sort_unstable();
                v.dedup();
                Some(v)
            };
            let key = format!("options.{name}");
            let check = |value: String| match &allowed {
                Some(list) if !list.contains(&value.as_str()) => Elem::Invalid(format!(
                    "{} (it takes {})",
                    crate::suggest::unknown(
                        &format!("value for option `{name}`:"),
                        &value,
                        list.iter().copied()
                    ),
                    list.join(", ")
                )),
                _ => Elem::Ok(value),
            };
            let values = self.sweep(val, &key, "a string", "strings", |x| match x {
                DeValue::String(s) if s.is_empty() => {
                    Elem::Invalid(format!("`{key}`: an option value cannot be empty"))
                }
                DeValue::String(s) => check(s.to_string()),
                DeValue::Integer(i) => match integer(x) {
                    Some(Ok(n)) => check(n.to_string()),
                    _ => check(i.as_str().to_string()),
                },
                DeValue::Boolean(b) => check(b.to_string()),
                _ => Elem::WrongType,
            })?;
            out.push((name.to_string(), values.value));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

/// Repeats each trial from `first` on once per driver, the driver varying fastest.
fn expand_drivers(trials: &mut Vec<TrialSpec>, first: usize, drivers: &[Driver]) {
    if drivers == [Driver::Threads] {
        return;
    }
    let base: Vec<TrialSpec> = trials.drain(first..).collect();
    for t in base {
        for &driver in drivers {
            trials.push(TrialSpec {
                driver,
                ..t.clone()
            });
        }
    }
}

/// Every combination of option values, the last option varying fastest.
fn option_product(options: &[(String, Vec<String>)]) -> Vec<BTreeMap<String, String>> {
    let mut sets = vec![BTreeMap::new()];
    for (name, values) in options {
        sets = sets
            .into_iter()
            .flat_map(|set| {
                values.iter().map(move |v| {
                    let mut s = set.clone();
                    s.insert(name.clone(), v.clone());
                    s
                })
            })
            .collect();
    }
    sets
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A std channel declaring two options: `wake` (edge or every) and `spin` (any value).
    struct OptQueue(&'static str);

    struct Tx<M>(std::sync::mpsc::Sender<M>);
    struct Rx<M>(std::sync::mpsc::Receiver<M>);

    impl<M: crate::message::Message> crate::transport::Sender<M> for Tx<M> {
        fn send(&mut self, msg: M) -> Result<(), M> {
            self.0.send(msg).map_err(|e| e.0)
        }
    }

    impl<M: crate::message::Message> crate::transport::Receiver<M> for Rx<M> {
        fn recv(&mut self) -> Option<M> {
            self.0.recv().ok()
        }
    }

    impl crate::transport::Transport for OptQueue {
        type Tx<M: crate::message::Message> = Tx<M>;
        type Rx<M: crate::message::Message> = Rx<M>;

        fn info(&self) -> crate::transport::TransportInfo {
            let mut info = crate::testing::catalog()
                .get("faulty-drop")
                .unwrap()
                .info()
                .clone();
            info.name = self.0.into();
            info.test_only = true;
            info.options = vec![
                OptionSpec {
                    name: "wake".into(),
                    values: vec!["edge".into(), "every".into()],
                    help: "when to wake the consumer".into(),
                    waits: vec![],
                },
                OptionSpec {
                    name: "spin".into(),
                    values: vec![],
                    help: "spins before parking".into(),
                    waits: vec![],
                },
            ];
            info
        }

        fn channel<M: crate::message::Message>(
            &self,
            cfg: &crate::transport::ChannelConfig,
        ) -> Result<crate::transport::Endpoints<Tx<M>, Rx<M>>, crate::transport::BuildError>
        {
            let (tx, rx) = std::sync::mpsc::channel();
            Ok(crate::transport::Endpoints {
                senders: (0..cfg.producers).map(|_| Tx(tx.clone())).collect(),
                receivers: vec![Rx(rx)],
            })
        }
    }

    fn catalog() -> Catalog {
        let mut c = crate::testing::catalog();
        c.register(crate::catalog::Entry::pull(OptQueue("opt-queue")));
        c.register(crate::catalog::Entry::pull(OptQueue("opt-queue-b")));
        c
    }

    fn parse(text: &str) -> Result<Suite, SuiteError> {
        Suite::parse(text, "suites/t.toml", &catalog())
    }

    fn err(text: &str) -> SuiteError {
        match parse(text) {
            Ok(s) => panic!("expected an error, got {} trials", s.trials.len()),
            Err(e) => e,
        }
    }

    /// Asserts the error is on `line` and its message contains `needle`.
    fn assert_err(text: &str, line: usize, needle: &str) -> SuiteError {
        let e = err(text);
        assert_eq!(e.line, Some(line), "{e}");
        assert!(e.message.contains(needle), "`{needle}` not in: {e}");
        e
    }

    #[test]
    fn open_loop_keys_expand_and_misplaced_ones_are_errors() {
        let s = parse(
            "[[benchmark]]\nworkload = \"paced\"\ntransports = [\"crossbeam-bounded\"]\nrate = [1000, 50000, \"ramp\"]\npacer = \"yield\"\nproducers = [1, 2]\n",
        )
        .unwrap();
        assert_eq!(s.trials.len(), 6);
        assert_eq!(s.trials[0].pacing, Pacing::Rate(1000));
        assert!(matches!(s.trials[2].pacing, Pacing::Ramp(_)));
        assert_eq!(s.trials[0].pacer, PacerMode::Yield);

        let s = parse("[[benchmark]]\nworkload = \"ramp\"\ntransport = \"crossbeam-bounded\"\nramp = { start = 500, factor = 4, p99_bound_us = 200 }\n").unwrap();
        match &s.trials[0].pacing {
            Pacing::Ramp(r) => {
                assert_eq!((r.start, r.factor, r.p99_bound_ns), (500, 4, Some(200_000)))
            }
            other => panic!("{other:?}"),
        }

        let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"crossbeam-bounded\"]\n";
        assert_err(
            &format!("{base}rate = 1000\n"),
            4,
            "`rate` does not apply to workload `spsc`",
        );
        assert_err(
            &format!("{base}hop_capacity = [1, 2]\n"),
            4,
            "applies only to workload `pipeline`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"ramp\"\ntransport = \"rtrb\"\nrate = 1000\n",
            4,
            "searches the rate itself",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"paced\"\ntransport = \"rtrb\"\npacer = \"spinn\"\n",
            4,
            "did you mean `spin`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"paced\"\ntransport = \"rtrb\"\nramp = { start = 10, maxx = 5 }\n",
            4,
            "unknown key `maxx`",
        );
    }

    #[test]
    fn pipelines_expand_per_transport_or_from_hops_and_check_delivery() {
        let s = parse(
            "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"crossbeam-bounded\", \"rtrb\"]\nrate = [1000, \"ramp\"]\nstage_work_ns = 500\n",
        )
        .unwrap();
        assert_eq!(s.trials.len(), 4);
        let p = s.trials[0].pipeline.as_ref().unwrap();
        assert_eq!(p.hops.len(), 3);
        assert_eq!(p.hops[0].capacity, 64);
        assert_eq!(p.stage_work_ns, 500);
        assert_eq!(
            s.trials[1].pipeline.as_ref().unwrap().hops[2].transport,
            "rtrb"
        );

        let s = parse("[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"latest-cell\"]\nhop_capacity = [8, 1]\ndelivery = \"latest\"\n").unwrap();
        assert_eq!(s.trials.len(), 1);
        assert_eq!(
            s.trials[0].pipeline.as_ref().unwrap().delivery,
            Delivery::Latest
        );

        assert_err(
            "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtrb\"]\nhop_capacity = [8, 1, 4]\n",
            4,
            "has 3 values but `hops` names 2 hops",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\ndelivery = \"latest\"\n",
            4,
            "needs a conflating hop",
        );
        let e = err(
            "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"latest-cell\", \"rtrb\"]\n",
        );
        assert!(
            e.line.is_some() && e.message.contains("use delivery = \"latest\""),
            "{e}"
        );
        assert_err(
            "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtrb\", \"rtrb\"]\ntransports = [\"rtrb\"]\n",
            3,
            "either `hops`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\ncapacity = 64\n",
            4,
            "`hop_capacity`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtbr\", \"rtrb\"]\n",
            3,
            "did you mean `rtrb`",
        );
    }

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
        assert_eq!(position("é = 1\nx", 6), (1, 6));
        assert_eq!(position("a", 99), (1, 2));
    }

    #[test]
    fn expands_the_cartesian_product_in_file_order() {
        let s = parse(
            r#"
name = "x"
description = "d"
probes = false

[defaults]
samples = 3
capacity = 64
messages = 5000

[[benchmark]]
workloads = ["mpsc", "mpmc"]
transports = ["opt-queue-b", "opt-queue"]
payload = ["u64", "report64"]
producers = [1, 2]
options = { wake = ["edge", "every"], spin = 1 }

[[benchmark]]
workload = "ping-pong"
transport = "faulty-hang"
capacity = [1, 2, 3]
messages = "auto"
target_ms = 7
batch = ["none", 16]
"#,
        )
        .unwrap();
        assert_eq!(s.name, "x");
        assert_eq!(s.description.as_deref(), Some("d"));
        assert!(!s.probes);
        // mpsc and mpmc: 2 transports x 2 payloads x 2 producers x 2 wake each;
        // ping-pong: 3 capacities x 2 batches.
        assert_eq!(s.trials.len(), 16 + 16 + 6);
        let labels: Vec<String> = s.trials.iter().map(|t| t.label()).collect();
        assert_eq!(
            labels[0],
            "opt-queue-b mpsc u64 cap=64 p=1 spin=1 wake=edge"
        );
        assert_eq!(
            labels[1],
            "opt-queue-b mpsc u64 cap=64 p=1 spin=1 wake=every"
        );
        assert_eq!(
            labels[2],
            "opt-queue-b mpsc u64 cap=64 p=2 spin=1 wake=edge"
        );
        assert_eq!(
            labels[4],
            "opt-queue-b mpsc report64 cap=64 p=1 spin=1 wake=edge"
        );
        assert_eq!(labels[8], "opt-queue mpsc u64 cap=64 p=1 spin=1 wake=edge");
        assert_eq!(
            labels[16],
            "opt-queue-b mpmc u64 cap=64 p=1 c=2 spin=1 wake=edge"
        );
        assert_eq!(labels[32], "faulty-hang ping-pong u64 cap=1");
        assert_eq!(labels[33], "faulty-hang ping-pong u64 cap=1 batch=16");
        assert_eq!(labels[37], "faulty-hang ping-pong u64 cap=3 batch=16");
        let first = &s.trials[0];
        assert_eq!((first.samples, first.warmup), (3, DEFAULT_WARMUP));
        assert_eq!(first.messages, Messages::Fixed(5000));
        assert_eq!(first.timeout_ms, DEFAULT_TIMEOUT_MS);
        assert!(first.pin);
        assert_eq!(
            s.trials[32].messages,
            Messages::Auto {
                target_ms: 7,
                min: DEFAULT_MIN_MESSAGES,
                max: DEFAULT_MAX_MESSAGES
            }
        );
        assert!(s.trials[32..]
            .iter()
            .all(|t| (t.producers, t.consumers) == (1, 1)));
    }

    #[test]
    fn defaults_fill_every_parameter() {
        let s =
            parse("[[benchmark]]\nworkload = \"mpmc\"\ntransports = \"faulty-drop\"\n").unwrap();
        assert_eq!(s.name, "t");
        assert!(s.probes);
        let producers: Vec<usize> = s.trials.iter().map(|t| t.producers).collect();
        assert_eq!(producers, WorkloadKind::Mpmc.default_producers());
        let t = &s.trials[0];
        assert_eq!(t.consumers, WorkloadKind::Mpmc.default_consumers());
        assert_eq!(t.payload, PayloadKind::U64);
        assert_eq!(t.capacity, DEFAULT_CAPACITY);
        assert_eq!(t.samples, DEFAULT_SAMPLES);
        assert_eq!(t.batch, None);
        assert!(t.options.is_empty());
    }

    #[test]
    fn topology_values_from_defaults_apply_only_where_they_can() {
        let s = parse(
            "[defaults]\nproducers = [2, 4]\nconsumers = 3\n\n[[benchmark]]\nworkload = [\"spsc\", \"mpsc\", \"mpmc\"]\ntransports = \"faulty-drop\"\n",
        )
        .unwrap();
        let shape: Vec<(WorkloadKind, usize, usize)> = s
            .trials
            .iter()
            .map(|t| (t.workload, t.producers, t.consumers))
            .collect();
        use WorkloadKind::*;
        assert_eq!(
            shape,
            [
                (Spsc, 1, 1),
                (Mpsc, 2, 1),
                (Mpsc, 4, 1),
                (Mpmc, 2, 3),
                (Mpmc, 4, 3)
            ]
        );
        assert_err(
            "[[benchmark]]\nworkload = [\"mpsc\", \"spsc\"]\ntransports = \"faulty-drop\"\nproducers = [1, 2]\n",
            4,
            "`producers` does not apply to workload `spsc`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"mpsc\"\ntransports = \"faulty-drop\"\nconsumers = 2\n",
            4,
            "`consumers` does not apply to workload `mpsc`",
        );
    }

    #[test]
    fn syntax_errors_carry_line_column_and_expectation() {
        let e = assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ncapacity = [1, 2\n",
            3,
            "expected `]`",
        );
        assert_eq!(e.column, Some(17));
        assert!(
            e.to_string()
                .starts_with("suites/t.toml:3:17: invalid TOML"),
            "{e}"
        );
        assert_err("name = \"a\"\nname = \"b\"\n", 2, "duplicate key `name`");
        assert_err("[defaults]\npin = tru\n", 2, "expected `true`");
    }

    #[test]
    fn wrong_types_name_the_key_and_the_expected_type() {
        let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-drop\"]\n";
        let e = assert_err(
            &format!("{base}capacity = \"big\"\n"),
            4,
            "expected an integer or a list of integers for `capacity`, found a string",
        );
        assert_eq!(e.column, Some(12));
        assert_err(
            &format!("{base}capacity = [1, 2.5]\n"),
            4,
            "expected integers in the list for `capacity`, found a float",
        );
        assert_err(
            &format!("{base}samples = [3]\n"),
            4,
            "expected an integer for `samples`, found a list",
        );
        assert_err(&format!("{base}pin = 1\n"), 4, "expected a boolean");
        assert_err(&format!("{base}capacity = -1\n"), 4, "-1 is negative");
        assert_err(
            &format!("{base}messages = \"lots\"\n"),
            4,
            "expected \"auto\" or a count",
        );
        assert_err(
            &format!("{base}options = 3\n"),
            4,
            "expected a table for `options`",
        );
        assert_err(
            "description = 3\n[[benchmark]]\n",
            1,
            "expected a string for `description`",
        );
        assert_err(
            "[benchmark]\nworkload = \"spsc\"\n",
            1,
            "write `[[benchmark]]`",
        );
        assert_err(
            "defaults = 1\n[[benchmark]]\n",
            1,
            "`defaults` must be a table",
        );
    }

    #[test]
    fn unknown_keys_are_errors_with_suggestions() {
        assert_err(
            "[defaults]\nsamples = 3\ncapacty = 8\n",
            3,
            "in [defaults]: unknown key `capacty`; did you mean `capacity`",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-drop\"]\n\n[[benchmark]]\nworkload = \"spsc\"\nwarmpu = 1\n",
            7,
            "in [[benchmark]] #2: unknown key `warmpu`; did you mean `warmup`",
        );
        assert_err("nmae = \"x\"\n", 1, "did you mean `name`?");
        assert_err(
            "[defaults]\ntransports = [\"rtrb\"]\n",
            2,
            "`transports` belongs in a [[benchmark]], not in [defaults]",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\nworkloads = [\"spsc\"]\n",
            3,
            "either `workload` or `workloads`",
        );
    }

    #[test]
    fn options_must_be_declared_by_a_transport_of_the_benchmark() {
        let base =
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue-b\", \"opt-queue\"]\n";
        assert_err(
            &format!("{base}options = {{ wkae = \"edge\" }}\n"),
            4,
            "unknown option `wkae`; did you mean `wake`? (these transports take spin, wake)",
        );
        let e = assert_err(
            &format!("{base}options = {{ wake = [\"edge\", \"evrey\"] }}\n"),
            4,
            "unknown value for option `wake`: `evrey`; did you mean `every`",
        );
        assert!(e.message.ends_with("(it takes edge, every)"), "{e}");
        assert_eq!(e.column, Some(29));
        assert_err(
            &format!("{base}options = {{ wake = [] }}\n"),
            4,
            "`options.wake` is an empty list",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = \"faulty-drop\"\noptions = { wake = \"edge\" }\n",
            4,
            "unknown option `wake` (these transports take no options)",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\", \"faulty-drop\"]\noptions = { wake = \"edge\" }\n",
            4,
            "transport `faulty-drop` does not take option `wake`",
        );
        // An option without a list of values takes any value.
        let s = parse(&format!(
            "{base}options = {{ spin = [0, 100], wake = \"every\" }}\n"
        ))
        .unwrap();
        assert_eq!(s.trials.len(), 4);
        assert_eq!(s.trials[3].options["spin"], "100");
    }

    #[test]
    fn unknown_names_point_at_the_value_and_suggest() {
        let e = assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\n  \"faulty-drop\",\n  \"faulty-dupe\",\n]\n",
            5,
            "unknown transport `faulty-dupe`; did you mean `faulty-dup`",
        );
        assert_eq!(e.column, Some(3));
        assert_err(
            "[[benchmark]]\nworkload = \"spcs\"\ntransports = [\"faulty-drop\"]\n",
            2,
            "unknown workload `spcs`; did you mean `spsc`?",
        );
        assert_err(
            "[defaults]\npayload = [\"u64\", \"event48\"]\n",
            2,
            "unknown payload `event48`; did you mean `event488`",
        );
        assert_err(
            "[defaults]\npayload = \"bytes:100\"\n",
            2,
            "supported sizes",
        );
    }

    #[test]
    fn impossible_parameters_are_rejected_where_written() {
        let base = "[[benchmark]]\nworkload = \"mpmc\"\ntransports = [\"faulty-drop\"]\n";
        for (line, needle) in [
            ("samples = 0", "`samples` must be at least 1, got 0"),
            (
                "producers = [1, 0]",
                "`producers` must be at least 1, got 0",
            ),
            ("consumers = 0", "`consumers` must be at least 1, got 0"),
            ("target_ms = 0", "`target_ms` must be at least 1, got 0"),
            ("batch = 0", "`batch` must be at least 1, got 0"),
            ("messages = 0", "`messages` must be at least 1, got 0"),
            ("timeout_ms = 0", "`timeout_ms` must be at least 1, got 0"),
            ("producers = 70000", "`producers` must be at most 65536"),
            (
                "min_messages = 10\nmax_messages = 5",
                "larger than `max_messages`",
            ),
        ] {
            assert_err(&format!("{base}{line}\n"), 4, needle);
        }
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = []\n",
            3,
            "`transports` is an empty list",
        );
        assert_err(
            "[[benchmark]]\ntransports = [\"rtrb\"]\n",
            1,
            "names no workload",
        );
        assert_err(
            "[[benchmark]]\nworkload = \"spsc\"\n",
            1,
            "names no transport",
        );
        let e = err("name = \"x\"\n");
        assert_eq!((e.line, e.column), (None, None));
        assert!(
            e.to_string().starts_with("suites/t.toml: no [[benchmark]]"),
            "{e}"
        );
        // Capacity 0 is left to the transport (a rendezvous channel may accept it).
        assert!(parse(&format!("{base}capacity = 0\n")).is_ok());
    }

    #[test]
    fn drivers_sweep_fastest_and_bad_names_point_at_the_value() {
        let s = parse(
            "[defaults]\ndriver = \"tokio-current\"\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-drop\", \"faulty-dup\"]\ndriver = [\"threads\", \"tokio-multi:2\"]\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = \"faulty-drop\"\n",
        )
        .unwrap();
        let got: Vec<(String, Driver)> = s
            .trials
            .iter()
            .map(|t| (t.transport.clone(), t.driver))
            .collect();
        let multi = Driver::TokioMulti { workers: 2 };
        assert_eq!(
            got,
            [
                ("faulty-drop".to_string(), Driver::Threads),
                ("faulty-drop".to_string(), multi),
                ("faulty-dup".to_string(), Driver::Threads),
                ("faulty-dup".to_string(), multi),
                ("faulty-drop".to_string(), Driver::TokioCurrent),
            ]
        );
        assert_eq!(
            s.trials[1].label(),
            "faulty-drop spsc u64 cap=1024 driver=tokio-multi:2"
        );

        let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-drop\"]\n";
        let e = assert_err(
            &format!("{base}driver = [\"threads\", \"tokio-curent\"]\n"),
            4,
            "unknown driver `tokio-curent`; did you mean `tokio-current`",
        );
        assert_eq!(e.column, Some(22));
        assert!(
            e.to_string()
                .starts_with("suites/t.toml:4:22: unknown driver"),
            "{e}"
        );
        assert_err(
            &format!("{base}driver = \"tokio-multi:0\"\n"),
            4,
            "at least 1 worker",
        );
        assert_err(
            &format!("{base}driver = 2\n"),
            4,
            "expected a driver name or a list of driver names for `driver`, found an integer",
        );
        assert_err(
            "[defaults]\ndrivr = \"threads\"\n",
            2,
            "did you mean `driver`",
        );
    }

    #[test]
    fn quick_keeps_coverage_and_shortens_samples() {
        let mut s = parse(
            "[defaults]\nsamples = 10\nwarmup = 3\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-drop\"]\nmessages = [\"auto\", 100000, 5000, 500]\ntarget_ms = 40\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"faulty-dup\"]\nsamples = 2\nwarmup = 0\ntarget_ms = 12\n",
        )
        .unwrap();
        let before = s.trials.len();
        s.quick();
        assert_eq!(s.trials.len(), before);
        let m: Vec<Messages> = s.trials.iter().map(|t| t.messages).collect();
        let auto = |target_ms| Messages::Auto {
            target_ms,
            min: DEFAULT_MIN_MESSAGES,
            max: DEFAULT_MAX_MESSAGES,
        };
        assert_eq!(
            m,
            [
                auto(8),
                Messages::Fixed(10_000),
                Messages::Fixed(1000),
                Messages::Fixed(500),
                auto(5)
            ]
        );
        assert_eq!((s.trials[0].samples, s.trials[0].warmup), (3, 1));
        assert_eq!((s.trials[4].samples, s.trials[4].warmup), (2, 0));
    }

    #[test]
    fn load_reports_unreadable_files() {
        let e = Suite::load(Path::new("/nonexistent/suite.toml"), &catalog()).unwrap_err();
        assert_eq!(e.file, "/nonexistent/suite.toml");
        assert_eq!(e.line, None);
        assert!(e.message.contains("cannot read"), "{e}");
    }
}
