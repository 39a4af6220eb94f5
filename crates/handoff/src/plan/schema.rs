//! The schema of a suite file, and of the command-line flags that stand for its keys.
//!
//! Every parameter key is declared once, in the `params!` list below: that one line gives the
//! key of `[defaults]` and of `[[benchmark]]`, its type (and so its rules, see
//! [`super::value`]), and its place in the layering of [`Params::over`]. Unknown keys are
//! refused by serde (`deny_unknown_fields`); the plan's error layer turns serde's message into
//! a "did you mean" with the file, line and column.

use super::value::{
    At, Batch, Capacity, Count, HopCapacity, List, MaxMessages, MergeHop, MinMessages, OptValue,
    Parsed, Rate, RateValue, Samples, StageWorkNs, TargetMs, Text, ThreadCount, TimeoutMs,
    UpToValue, Values, Warmup,
};
use crate::payload::PayloadKind;
use crate::workload::{Boundary, Delivery, Driver, PacerMode, Reactor, WorkloadKind};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A name of a transport.
pub(crate) type Name = String;

/// Declares the parameter keys, once, and generates [`Params`] and [`Benchmark`] from them.
macro_rules! params {
    ($( $(#[$doc:meta])* $key:ident : $ty:ty ),* $(,)?) => {
        /// The parameters of a `[defaults]` table, of one `[[benchmark]]`, or of the
        /// command-line flags; each unset where not written.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields, expecting = "a table")]
        pub struct Params {
            $( $(#[$doc])* #[serde(default)] pub $key: Option<At<$ty>>, )*
        }

        /// One `[[benchmark]]`: what to run (workloads, transports or hops, options) and the
        /// parameters it sets itself.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields, expecting = "a table")]
        pub struct Benchmark {
            /// The workloads (alias `workloads`).
            #[serde(default, alias = "workloads")]
            pub workload: Option<At<List<Parsed<WorkloadKind>>>>,
            /// The transports (alias `transport`).
            #[serde(default, alias = "transport")]
            pub transports: Option<At<List<Name>>>,
            /// A pipeline's transports, one per hop.
            #[serde(default)]
            pub hops: Option<At<List<Name>>>,
            /// Transport options, each value swept.
            #[serde(default)]
            pub options: Option<At<BTreeMap<String, At<List<OptValue>>>>>,
            $( $(#[$doc])* #[serde(default)] pub $key: Option<At<$ty>>, )*
        }

        impl Benchmark {
            /// The parameters this benchmark sets itself.
            pub fn params(&self) -> Params {
                Params { $( $key: self.$key.clone(), )* }
            }

            /// A benchmark that sets `params` itself (and names nothing yet).
            pub fn with_params(params: Params) -> Benchmark {
                Benchmark { $( $key: params.$key, )* ..Benchmark::default() }
            }
        }

        impl Params {
            /// `self` where set, `under` elsewhere.
            pub fn over(&self, under: &Params) -> Params {
                Params { $( $key: self.$key.clone().or_else(|| under.$key.clone()), )* }
            }

            /// The keys set, each with where it was written.
            pub(crate) fn set_keys(&self) -> Vec<(&'static str, &super::value::Origin)> {
                let mut out = Vec::new();
                $( if let Some(x) = &self.$key { out.push((stringify!($key), &x.origin)); } )*
                out
            }

            /// The values set, each with its key and where it was written (for the checks every
            /// list takes: its length and its repeated values).
            pub(crate) fn set_values(&self) -> Vec<(&'static str, &super::value::Origin, &dyn Values)> {
                let mut out: Vec<(&'static str, &super::value::Origin, &dyn Values)> = Vec::new();
                $( if let Some(x) = &self.$key { out.push((stringify!($key), &x.origin, &x.value)); } )*
                out
            }
        }

        /// Every parameter key, as `[defaults]` and `[[benchmark]]` take it.
        pub(crate) const PARAM_KEYS: &[&str] = &[$( stringify!($key) ),*];
    };
}

params! {
    /// Payload shapes.
    payload: List<Parsed<PayloadKind>>,
    /// Capacities (ignored by unbounded transports).
    capacity: List<Capacity>,
    /// Producer counts.
    producers: List<ThreadCount>,
    /// Consumer counts.
    consumers: List<ThreadCount>,
    /// Batch sizes, or `none`.
    batch: List<Batch>,
    /// Messages per sample, or `auto`.
    messages: List<Count>,
    /// `auto`: the target duration of one sample, milliseconds.
    target_ms: TargetMs,
    /// `auto`: the smallest count.
    min_messages: MinMessages,
    /// `auto`: the largest count.
    max_messages: MaxMessages,
    /// Timed samples.
    samples: Samples,
    /// Untimed warm-up samples.
    warmup: Warmup,
    /// The watchdog interval, milliseconds: a sample that delivers nothing for this long is hung.
    timeout_ms: TimeoutMs,
    /// Pin threads to distinct cores.
    pin: bool,
    /// Run every sample in a worker process of its own.
    fresh_process: bool,
    /// Open-loop rates, or `ramp`.
    rate: List<Rate>,
    /// How a paced producer waits.
    pacer: Parsed<PacerMode>,
    /// A soak: how long one open-loop sample lasts (`"5m"`), in place of a message count.
    duration: super::value::SoakSpan,
    /// A soak's window, over which each figure is taken (default `"10s"`).
    window: super::value::WindowSpan,
    /// The steps of a rate search.
    ramp: super::value::Ramp,
    /// A pipeline's capacities, one per hop.
    hop_capacity: List<HopCapacity>,
    /// A pipeline stage's busy work per event, nanoseconds.
    stage_work_ns: StageWorkNs,
    /// A pipeline's delivery modes.
    delivery: List<Parsed<Delivery>>,
    /// A pipeline reactor's input strategies (`sequential`, `latest`).
    reactor: List<Parsed<Reactor>>,
    /// The reactor's busy work per fire, nanoseconds.
    reactor_work_ns: StageWorkNs,
    /// The hop a second source feeds (2 to the number of hops).
    merge_hop: MergeHop,
    /// The second source's rate, events per second.
    merge_rate: RateValue,
    /// What runs producers and consumers.
    driver: List<Parsed<Driver>>,
    /// Where the two sides run: threads of one process, or two processes.
    placement: List<Parsed<Boundary>>,
}

/// A suite file as written.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
pub(crate) struct SuiteFile {
    /// The suite's name (default: the file's stem), at most
    /// [`MAX_NAME_CHARS`](super::bounds::MAX_NAME_CHARS) characters.
    #[serde(default)]
    pub name: Option<Text<{ super::bounds::MAX_NAME_CHARS }>>,
    /// One line on what it measures, at most
    /// [`MAX_DESCRIPTION_CHARS`](super::bounds::MAX_DESCRIPTION_CHARS) characters.
    #[serde(default)]
    pub description: Option<Text<{ super::bounds::MAX_DESCRIPTION_CHARS }>>,
    /// Whether the limit probes run first (default true).
    #[serde(default)]
    pub probes: Option<bool>,
    /// Transport plugins (shared libraries, paths relative to the suite file), loaded before the
    /// plan is built: see [`super::plugins_of`].
    #[serde(default)]
    pub plugins: Option<At<List<String>>>,
    /// Whether every trial of a stream runs one message count and the report compares their
    /// digests (default false; see [`crate::consensus`]). A setting of the run, not of a
    /// benchmark: consensus compares trials across the suite's benchmarks, so it sits at the
    /// top, beside `probes`, and not in `[defaults]`, where a benchmark could set it apart.
    #[serde(default)]
    pub consensus: Option<At<bool>>,
    /// Parameters of every benchmark that does not set them itself.
    #[serde(default)]
    pub defaults: Params,
    /// The benchmarks (`[[benchmark]]`).
    #[serde(default)]
    pub benchmark: Option<At<List<At<Benchmark>>>>,
    /// Gates checked when the run ends (`[[gate]]`, see [`super::gates`]).
    #[serde(default)]
    pub gate: Vec<At<GateSpec>>,
}

/// The keys of the top level (settings of the whole suite).
pub(crate) const TOP_KEYS: [&str; 5] = ["name", "description", "probes", "consensus", "plugins"];

/// The keys of a `[[benchmark]]` (and of a `[[gate]]`) that are aliases, each with its alias:
/// writing both is writing the key twice.
pub(crate) const ALIASES: [(&str, &str); 2] =
    [("workload", "workloads"), ("transports", "transport")];

/// The keys only a `[[benchmark]]` takes.
pub(crate) const BENCHMARK_ONLY: [&str; 6] = [
    "workload",
    "workloads",
    "transport",
    "transports",
    "hops",
    "options",
];

/// One `[[gate]]` as written.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GateSpec {
    /// `scaling`, `ratio` or `regression` (required: a gate without it is refused when the gates
    /// are checked).
    #[serde(default)]
    pub kind: Option<At<String>>,
    /// Scaling: the transports judged (default all); ratio: the one transport judged.
    #[serde(default, alias = "transport")]
    pub transports: Option<At<List<Name>>>,
    /// Ratio: only the judged transport's results with these options.
    #[serde(default)]
    pub options: Option<BTreeMap<String, String>>,
    /// Ratio: `best` (the best other transport at each point) or a transport's name.
    #[serde(default)]
    pub over: Option<At<String>>,
    /// Scaling and ratio: the least factor that passes.
    #[serde(default)]
    pub min: Option<At<f64>>,
    /// Scaling: which producer count is compared with one producer (`"cores"`, the default;
    /// `"top"`; or a count).
    #[serde(default)]
    pub up_to: Option<At<UpToValue>>,
    /// Scaling: which rate is judged, `"delivery"` (the default) or `"submit"`.
    #[serde(default)]
    pub metric: Option<At<String>>,
    /// Regression: the baseline (a name, a run id, or a JSON report).
    #[serde(default)]
    pub baseline: Option<At<String>>,
    /// Regression: the largest significant slowdown allowed, e.g. `"5%"`.
    #[serde(default)]
    pub max: Option<At<String>>,
    /// Regression: what cannot be judged (no matched result, too few samples) passes, listed,
    /// instead of failing the gate.
    #[serde(default)]
    pub allow_unjudged: Option<At<bool>>,
}
