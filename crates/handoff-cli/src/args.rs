//! Command-line arguments.

use clap::{Args, Parser, Subcommand};
use handoff::payload::PayloadKind;
use handoff::plan::value::{
    Batch, Capacity, Count, HopCapacity, MaxTrials, MergeHop, Parsed, Rate, RateValue, Samples,
    SoakSpan, StageWorkNs, ThreadCount, TimeoutMs, Warmup, WindowSpan,
};
use handoff::workload::{Boundary, Delivery, Driver, PacerMode, Reactor, WorkloadKind};
use std::path::PathBuf;

/// What `handoff --help` prints after the options: the exit codes (from [`crate::exit::CODES`])
/// and where the history is kept.
pub fn after_help() -> String {
    format!("{}\n{STORE_HELP}", crate::exit::plain())
}

const STORE_HELP: &str = "\
History store: `--store`, else $HANDOFF_STORE, else $XDG_DATA_HOME/handoff/history.sqlite,
else ~/.local/share/handoff/history.sqlite. `--store` takes a file path or a
postgres://user@host:port/db URL.";

/// Verified benchmarks of producer-to-consumer hand-offs: channels, queues, rings, callbacks.
///
/// Every delivered message is verified (exactly once, declared order, intact body); results
/// show throughput or latency percentiles with their spread, next to the machine's limits.
#[derive(Parser, Debug)]
#[command(name = "handoff", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List transports (with their declared semantics), workloads and payloads.
    List(ListArgs),
    /// Run a suite (the built-in default suite when no file is given) or an ad-hoc selection,
    /// and record it in the history store.
    Run(Box<RunArgs>),
    /// Compare two runs: per result, the ratio of medians with its confidence interval and a
    /// significance test; `~` where no change is shown.
    Compare(CompareArgs),
    /// Recommend a transport from a run's figures, for your rate, latency budget, CPU budget,
    /// payload, producers, consumers and required semantics: the pick, why, the runner-up and
    /// when it would win, and every caveat.
    Recommend(RecommendArgs),
    /// List the runs recorded in the history store, newest first.
    History(HistoryArgs),
    /// Render a stored run again, in any format, without re-running it.
    Show(ShowArgs),
    /// Name stored runs (baselines), list the names, delete them.
    Baseline(BaselineArgs),
    /// Internal: say which handoff this is, as one line of JSON (used by `run --against`).
    #[command(name = "__identify", hide = true)]
    Identify,
    /// Internal: the code identity of each named transport's trials in this build, as one line
    /// of JSON (used by `run --against`).
    #[command(name = "__code", hide = true)]
    Code {
        /// Transport names (every transport of the catalog when none is named).
        names: Vec<String>,
    },
    /// Internal: serve one trial in a child process (used by `run`).
    #[command(name = "__worker", hide = true)]
    Worker(WorkerArgs),
    /// Internal: load one plugin library in a child process and describe it (used by `run` and
    /// `list` with `--plugin`).
    #[command(name = "__describe-plugin", hide = true)]
    DescribePlugin {
        /// The library.
        path: PathBuf,
    },
}

/// `handoff __worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Plugin libraries to load before serving the trial.
    #[arg(long)]
    pub plugin: Vec<PathBuf>,
}

/// Plugin libraries (`--plugin`, repeatable).
#[derive(Args, Debug, Clone, Default)]
pub struct PluginArgs {
    /// A transport plugin: a shared library implementing the C ABI of include/handoff.h
    /// (repeatable; see docs/plugins.md). It is loaded only in child processes.
    #[arg(long, value_name = "LIBRARY")]
    pub plugin: Vec<PathBuf>,
}

/// `handoff list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Also list the test-only faulty transports.
    #[arg(long)]
    pub all: bool,
    /// Plugins whose transports to list too.
    #[command(flatten)]
    pub plugins: PluginArgs,
}

/// Where the history store is (`--store`).
#[derive(Args, Debug, Clone, Default)]
pub struct StoreArg {
    /// History store: a SQLite file path or a postgres://user@host:port/db URL (default:
    /// $HANDOFF_STORE, else $XDG_DATA_HOME/handoff/history.sqlite, else
    /// ~/.local/share/handoff/history.sqlite).
    #[arg(long, value_name = "PATH|URL", global = true)]
    pub store: Option<String>,
}

/// `handoff history`.
#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Show the newest N runs (0: every run).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub limit: u64,
    /// Output format: table (one line per run), or html (each result's figure over the runs,
    /// a line per transport, the runs labelled with their commit and note).
    #[arg(long, short = 'f', default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Where the history store is.
    #[command(flatten)]
    pub store: StoreArg,
}

/// `handoff show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The run: its id, `latest` (the newest finished run), a baseline name, or a report file
    /// (`--format json`) or a run's journal (`.results.jsonl`).
    pub reference: String,
    /// Output format: table, json, markdown, csv, bmf, html; with --paired, those of `handoff
    /// compare` (table, markdown, json, bmf, html).
    #[arg(long, short = 'f', default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A run made with `--against`: show its paired comparison (the other build before, this
    /// build after), judged again, instead of this build's results.
    #[arg(long)]
    pub paired: bool,
    /// With --paired: exit 4 when a result is significantly slower than this (e.g. 5%), or when
    /// nothing can be judged.
    #[arg(long, requires = "paired")]
    pub max_regression: Option<crate::percent::Percent>,
    /// With --max-regression: what cannot be judged passes, listed, instead of failing.
    #[arg(long, requires = "max_regression")]
    pub allow_unjudged: bool,
    /// With --paired: a significant change smaller than this is shown as `~` (default 5%).
    #[arg(long, requires = "paired")]
    pub threshold: Option<crate::percent::Percent>,
    /// With --paired: significance level of the rank test (default 0.05).
    #[arg(long, requires = "paired")]
    pub alpha: Option<f64>,
    /// Where the history store is.
    #[command(flatten)]
    pub store: StoreArg,
}

/// `handoff baseline`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// What to do with baselines.
    #[command(subcommand)]
    pub action: BaselineAction,
    /// Where the history store is.
    #[command(flatten)]
    pub store: StoreArg,
}

/// `handoff baseline …`.
#[derive(Subcommand, Debug)]
pub enum BaselineAction {
    /// Name a finished run (replacing the run the name named before).
    Save {
        /// The name (not digits alone, not `latest`).
        name: String,
        /// The run: its id, `latest` or another baseline's name.
        #[arg(default_value = "latest")]
        run: String,
    },
    /// List the baselines.
    List,
    /// Delete a baseline (its run stays in the history).
    Delete {
        /// The baseline's name.
        name: String,
    },
}

/// `--layout`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutArg {
    /// Each sample under its own seeded placement.
    Random,
    /// Every sample under the build's and allocator's own placement.
    Fixed,
}

/// `handoff run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Suite file (TOML). Without one, the built-in default suite runs, unless --transport or
    /// --workload select an ad-hoc run.
    pub suite: Option<PathBuf>,

    /// Transport plugins (also `plugins = [...]` in a suite file).
    #[command(flatten)]
    pub plugins: PluginArgs,

    /// Same coverage, fewer and shorter samples.
    #[arg(long)]
    pub quick: bool,

    /// Transports to run (comma separated); with a suite file, keeps only these.
    #[arg(long, short = 't', value_delimiter = ',')]
    pub transport: Vec<String>,
    /// Workloads: spsc, mpsc, mpmc, ping-pong, paced, ramp, pipeline (comma separated); with a
    /// suite file, keeps only these.
    #[arg(long, short = 'w', value_delimiter = ',')]
    pub workload: Vec<Parsed<WorkloadKind>>,
    /// Capacities to sweep (comma separated), 0 to 2^32; capacity × message size must fit the
    /// memory budget (half of the machine's memory).
    #[arg(long, value_delimiter = ',')]
    pub capacity: Vec<Capacity>,
    /// Messages per sample (round trips for ping-pong), 1 to 2^48-1, or `auto` (comma separated
    /// to sweep); a verifier that checks messages off in a bitmap (unordered transports, several
    /// consumers) must fit the memory budget.
    #[arg(long, value_delimiter = ',')]
    pub messages: Vec<Count>,
    /// Payloads to sweep: u64, bytes:N, boxed:N (N from 8 to 1MiB), report64, event488,
    /// event488+tails.
    #[arg(long, short = 'p', value_delimiter = ',')]
    pub payload: Vec<Parsed<PayloadKind>>,
    /// Producer counts to sweep, 1 to 1024 (mpsc, mpmc; paced, ramp and pipeline: injectors
    /// fanning in).
    #[arg(long, value_delimiter = ',')]
    pub producers: Vec<ThreadCount>,
    /// Consumers, 1 to 1024 (mpmc; in paced, ramp and pipeline, more than 1 is a fan-out from a
    /// broadcast transport such as bus).
    #[arg(long, short = 'c', value_delimiter = ',')]
    pub consumers: Vec<ThreadCount>,
    /// Drivers: threads, tokio-current, tokio-multi[:N] (N from 1 to 1024; comma separated). Ad
    /// hoc: swept; with a suite file, keeps only these. The tokio drivers run async transports
    /// only.
    #[arg(long, value_delimiter = ',')]
    pub driver: Vec<Parsed<Driver>>,
    /// Batch sizes for send_batch / recv_batch, 1 to 2^20, or `none` (comma separated to
    /// sweep).
    #[arg(long, value_delimiter = ',')]
    pub batch: Vec<Batch>,
    /// Transport option, KEY=VALUE (repeatable; a key given twice sweeps), e.g. --option wake=edge.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Timed samples per trial, 1 to 10000.
    #[arg(long)]
    pub samples: Option<Samples>,
    /// Warm-up samples per trial, 0 to 1000.
    #[arg(long)]
    pub warmup: Option<Warmup>,
    /// Watchdog interval: a sample in which no message is delivered for this many milliseconds
    /// is declared hung; a slow sample that keeps delivering runs to its end (default 10000; 1
    /// to 3600000, one hour).
    #[arg(long)]
    pub timeout_ms: Option<TimeoutMs>,
    /// Open-loop rate, messages per second in total (1 to 10^9: 1000, 2.5k, 1M or 10k/s), or
    /// `ramp` to search for the highest sustained rate (paced, ramp and pipeline workloads;
    /// repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub rate: Vec<Rate>,
    /// A soak: each open-loop sample lasts this long at its rate (e.g. 5m, 90s) instead of a
    /// message count, measured window by window (paced, ramp and pipeline; 1s to 24h).
    #[arg(long, value_name = "SPAN")]
    pub duration: Option<SoakSpan>,
    /// A soak's window, over which each figure is taken (default 10s; 100ms to 1h).
    #[arg(long, value_name = "SPAN")]
    pub window: Option<WindowSpan>,
    /// How a paced producer waits: auto (spin unless oversubscribed), spin or yield.
    #[arg(long)]
    pub pacer: Option<Parsed<PacerMode>>,
    /// Pipeline: one transport per hop (default: each --transport on every hop).
    #[arg(long, value_delimiter = ',')]
    pub hops: Vec<String>,
    /// Pipeline: one capacity per hop, each 1 to 2^32 (default 64,1024,256).
    #[arg(long, value_delimiter = ',')]
    pub hop_capacity: Vec<HopCapacity>,
    /// Pipeline: sequential (every event) or latest (a conflating hop keeps the newest).
    #[arg(long, value_delimiter = ',')]
    pub delivery: Vec<Parsed<Delivery>>,
    /// Pipeline: busy work per stage and event, nanoseconds (0 to 10^9, one second).
    #[arg(long)]
    pub stage_work_ns: Option<StageWorkNs>,
    /// Pipeline: the reactor's input strategy, sequential (every event fires) or latest (drain
    /// what arrived while busy, fire once on the newest); both run on the same hops.
    #[arg(long, value_delimiter = ',')]
    pub reactor: Vec<Parsed<Reactor>>,
    /// Pipeline: the reactor's busy work per fire, nanoseconds (0 to 10^9, one second).
    #[arg(long)]
    pub reactor_work_ns: Option<StageWorkNs>,
    /// Pipeline: the hop (2 to the number of hops) a second event source feeds beside the
    /// stage before it; needs --merge-rate.
    #[arg(long, value_name = "HOP")]
    pub merge_hop: Option<MergeHop>,
    /// Pipeline: the second source's rate, events per second; needs --merge-hop.
    #[arg(long, value_name = "PER_S")]
    pub merge_rate: Option<RateValue>,
    /// The most trials the run may expand to (default 10000, at most 1000000): a suite or
    /// flags whose sweeps multiply past it are refused before any trial is made, naming the
    /// keys that multiply them.
    #[arg(long, value_name = "N")]
    pub max_trials: Option<MaxTrials>,
    /// Where the two sides run: threads (of one process) or processes (the producers in one
    /// worker process, the consumers in another; IPC transports only). A list sweeps both.
    #[arg(long, value_delimiter = ',')]
    pub placement: Vec<Parsed<Boundary>>,
    /// Run every sample in a worker process of its own (suite key `fresh_process`).
    #[arg(long)]
    pub fresh_process: bool,
    /// Do not pin threads to cores.
    #[arg(long)]
    pub no_pin: bool,
    /// Skip the limit probes.
    #[arg(long)]
    pub no_probes: bool,
    /// Memory placement of each sample: random (each sample under its own seeded placement of
    /// the heap and of every thread's stack, recorded in the report) or fixed (every sample as
    /// the build and allocator place it).
    #[arg(long, value_enum, default_value_t = LayoutArg::Random)]
    pub layout: LayoutArg,
    /// Seed of the random layouts (default: from the clock; the report records it). The same
    /// seed gives every trial the same sequence of placements again.
    #[arg(long, conflicts_with = "layout")]
    pub layout_seed: Option<u64>,
    /// Every transport of a stream runs one message count (`auto`: the smallest calibrated),
    /// and the report says whether they all delivered the same stream (their digests agree); a
    /// transport that delivered another stream fails the run. Same as `consensus = true` in a
    /// suite file.
    #[arg(long)]
    pub consensus: bool,
    /// Run trials inside this process instead of one child process per trial (a hang or abort
    /// then takes the run down).
    #[arg(long)]
    pub in_process: bool,

    /// Compare this run with a baseline (a JSON report, a run id, `latest` or a baseline
    /// name) when it ends, and exit 4 if a result is significantly slower than
    /// --max-regression allows (default 5%).
    #[arg(long, group = "reference")]
    pub baseline: Option<String>,
    /// Run every trial on another build as well, paired sample by sample in one interleaved
    /// run, and show the paired comparison (this build against OTHER). OTHER is a handoff
    /// executable or a git revision of this checkout (built once into target/against/). Each
    /// trial takes at least 12 samples unless --samples says otherwise; with --max-regression,
    /// exit 4 on a significant slowdown beyond it.
    #[arg(
        long,
        value_name = "OTHER",
        group = "reference",
        conflicts_with = "in_process"
    )]
    pub against: Option<String>,
    /// With --against: link each build in this many function orders (2 to 16; the same
    /// machine code, placed anew by the linker each time), run timed sample k of both sides in
    /// order k mod N, and judge each change against the spread between orders instead of
    /// between pairs. Each side's orders are built before the run (a relink each, seconds; this
    /// checkout's first build into target/against/this takes minutes). Needs a linker with
    /// --shuffle-sections (rust-lld, Rust's default on x86-64 Linux) and OTHER a git revision.
    #[arg(long, value_name = "N", requires = "against", value_parser = clap::value_parser!(u8).range(2..=16))]
    pub link_orders: Option<u8>,
    /// With --baseline or --against: the largest significant slowdown allowed (e.g. 5%).
    #[arg(long, requires = "reference")]
    pub max_regression: Option<crate::percent::Percent>,
    /// With --baseline or --against: what cannot be judged (no result matches the baseline, too
    /// few samples, a side that did not pass) passes, listed, instead of failing the gate.
    #[arg(long, requires = "reference")]
    pub allow_unjudged: bool,

    /// Output format: table, json, markdown, csv, bmf (Bencher Metric Format), html (a self-contained page with charts); with --against, the comparison's: table, markdown, json, bmf or html.
    #[arg(long, short = 'f', default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Write each table as soon as its trials are done, and the run's header, consensus and
    /// gates at the end (the default when standard output is a terminal; the table format on
    /// standard output only).
    #[arg(long, conflicts_with_all = ["no_live", "out", "against"])]
    pub live: bool,
    /// Write the whole report at the end, even on a terminal.
    #[arg(long)]
    pub no_live: bool,

    /// Where to record the run.
    #[command(flatten)]
    pub store: StoreArg,
    /// Do not record the run in the history store.
    #[arg(long, conflicts_with = "store")]
    pub no_store: bool,
    /// A note recorded with the run (shown by `handoff history`): at most 1000 characters
    /// (longer is refused with exit 2, before anything runs).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Run without the suite's gates, and say so (also `HANDOFF_GATES=0`; `--baseline` is a
    /// gate asked for by name, so the two do not go together).
    #[arg(long, conflicts_with_all = ["baseline", "max_regression"])]
    pub no_gates: bool,
    /// The machine's label in the store and the report (a testbed's name, shared by the
    /// machines of one kind in a fleet): default $HANDOFF_MACHINE, else the host name. At most
    /// 200 characters, no control characters.
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
}

/// `handoff compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The before side: a JSON report (`handoff run --format json`), a run id, `latest` or a
    /// baseline name.
    pub before: String,
    /// The after side, as BEFORE.
    pub after: String,
    /// Exit 4 when a result is significantly slower than this (e.g. 5%), naming each, or when
    /// nothing can be judged (no matched result, too few samples, a side that did not pass).
    #[arg(long)]
    pub max_regression: Option<crate::percent::Percent>,
    /// With --max-regression: what cannot be judged passes, listed, instead of failing.
    #[arg(long, requires = "max_regression")]
    pub allow_unjudged: bool,
    /// A significant change smaller than this is shown as `~` (default 5%).
    #[arg(long)]
    pub threshold: Option<crate::percent::Percent>,
    /// Significance level of the rank test (default 0.05).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Output format: table, markdown, json, bmf (Bencher Metric Format of the after run), html (each change charted with its interval).
    #[arg(long, short = 'f', default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where stored runs are looked up (references that are not files).
    #[command(flatten)]
    pub store: StoreArg,
}

/// `handoff recommend`.
#[derive(Args, Debug)]
pub struct RecommendArgs {
    /// The run: its id, `latest`, a baseline name, or a JSON report (`handoff run --format
    /// json`).
    pub reference: String,
    /// Messages per second the hand-off must carry, over every producer (e.g. 1000, 2.5k, 1M).
    #[arg(long)]
    pub rate: Option<String>,
    /// The 99th-percentile latency allowed at that rate (e.g. 100us, 1.5ms); needs paced
    /// results in the run.
    #[arg(long)]
    pub p99: Option<String>,
    /// The cores the hand-off may keep busy (e.g. 0.5): both sides of a closed-loop stream,
    /// the consumer side of a paced one.
    #[arg(long)]
    pub cpu: Option<String>,
    /// The payload moved (as in `run --payload`).
    #[arg(long)]
    pub payload: Option<String>,
    /// Producers.
    #[arg(long)]
    pub producers: Option<String>,
    /// Consumers.
    #[arg(long)]
    pub consumers: Option<String>,
    /// Semantics the transport must have, comma-separated: bounded, unbounded, fifo,
    /// global-fifo, lossless, blocking, batch.
    #[arg(long, value_delimiter = ',')]
    pub require: Vec<String>,
    /// What decides among those that meet every constraint: latency (the default with a rate
    /// or a p99 budget), cpu, throughput (the default otherwise).
    #[arg(long)]
    pub prefer: Option<String>,
    /// Output format: markdown (also for the terminal), html, json.
    #[arg(long, short = 'f', default_value = "markdown")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where stored runs are looked up (references that are not files).
    #[command(flatten)]
    pub store: StoreArg,
}
