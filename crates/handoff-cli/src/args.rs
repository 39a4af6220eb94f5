//! Command-line arguments.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Exit codes:
  0  every trial passed (unsupported combinations are reported, not failed)
  1  at least one trial failed verification, hung or crashed
  2  bad input: unknown name, malformed suite file, impossible parameter
  3  the run could not be completed (e.g. the output file could not be written)";

/// Verified benchmarks of producer-to-consumer hand-offs: channels, queues, rings, callbacks.
///
/// Every delivered message is verified (exactly once, declared order, intact body); results
/// show throughput or latency percentiles with their spread, next to the machine's limits.
#[derive(Parser, Debug)]
#[command(name = "handoff", version, after_help = AFTER_HELP)]
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
    /// Run a suite (the built-in default suite when no file is given) or an ad-hoc selection.
    Run(Box<RunArgs>),
    /// Internal: serve one trial in a child process (used by `run`).
    #[command(name = "__worker", hide = true)]
    Worker,
}

/// `handoff list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Also list the test-only faulty transports.
    #[arg(long)]
    pub all: bool,
}

/// `handoff run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Suite file (TOML). Without one, the built-in default suite runs, unless --transport or
    /// --workload select an ad-hoc run.
    pub suite: Option<PathBuf>,

    /// Same coverage, fewer and shorter samples.
    #[arg(long)]
    pub quick: bool,

    /// Transports to run (comma separated); with a suite file, keeps only these.
    #[arg(long, short = 't', value_delimiter = ',')]
    pub transport: Vec<String>,
    /// Workloads: spsc, mpsc, mpmc, ping-pong (comma separated); with a suite file, keeps only these.
    #[arg(long, short = 'w', value_delimiter = ',')]
    pub workload: Vec<String>,
    /// Capacities to sweep (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub capacity: Vec<usize>,
    /// Messages per sample (round trips for ping-pong), or `auto`.
    #[arg(long)]
    pub messages: Option<String>,
    /// Payloads to sweep: u64, bytes:N, boxed:N, report64, event488, event488+tails.
    #[arg(long, short = 'p', value_delimiter = ',')]
    pub payload: Vec<String>,
    /// Producer counts to sweep (mpsc, mpmc).
    #[arg(long, value_delimiter = ',')]
    pub producers: Vec<usize>,
    /// Consumers (mpmc; in paced, ramp and pipeline, more than 1 is a fan-out from a broadcast
    /// transport such as bus).
    #[arg(long, short = 'c')]
    pub consumers: Option<usize>,
    /// Drivers: threads, tokio-current, tokio-multi[:N] (comma separated). Ad hoc: swept; with a
    /// suite file, keeps only these. The tokio drivers run async transports only.
    #[arg(long, value_delimiter = ',')]
    pub driver: Vec<String>,
    /// Batch size for send_batch / recv_batch.
    #[arg(long)]
    pub batch: Option<usize>,
    /// Transport option, KEY=VALUE (repeatable), e.g. --option wake=edge.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Timed samples per trial.
    #[arg(long)]
    pub samples: Option<usize>,
    /// Warm-up samples per trial.
    #[arg(long)]
    pub warmup: Option<usize>,
    /// Watchdog: a sample running longer than this many milliseconds is declared hung.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Open-loop rate, messages per second in total, or `ramp` to search for the highest
    /// sustained rate (paced, ramp and pipeline workloads; repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub rate: Vec<String>,
    /// How a paced producer waits: auto (spin unless oversubscribed), spin or yield.
    #[arg(long)]
    pub pacer: Option<String>,
    /// Pipeline: one transport per hop (default: each --transport on every hop).
    #[arg(long, value_delimiter = ',')]
    pub hops: Vec<String>,
    /// Pipeline: one capacity per hop (default 64,1024,256).
    #[arg(long, value_delimiter = ',')]
    pub hop_capacity: Vec<usize>,
    /// Pipeline: sequential (every event) or latest (a conflating hop keeps the newest).
    #[arg(long)]
    pub delivery: Option<String>,
    /// Pipeline: busy work per stage and event, nanoseconds.
    #[arg(long)]
    pub stage_work_ns: Option<u64>,
    /// Do not pin threads to cores.
    #[arg(long)]
    pub no_pin: bool,
    /// Skip the limit probes.
    #[arg(long)]
    pub no_probes: bool,
    /// Run trials inside this process instead of one child process per trial (a hang or abort
    /// then takes the run down).
    #[arg(long)]
    pub in_process: bool,

    /// Output format: table, json, markdown, csv.
    #[arg(long, short = 'f', default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
