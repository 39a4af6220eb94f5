//! The view the human formats (terminal table, markdown) share: results grouped into tables of
//! comparable results, every cell already formatted.
//!
//! Nothing here computes a statistic: each number is one of the [`RunReport`]'s, formatted.
//! What the view decides is presentation:
//!
//! * **Groups.** Results are comparable when they ran the same workload, payload, producer and
//!   consumer counts, batch size and pacing ([`TableKey`], the key the session's groups of
//!   trials use too). Capacity and transport options are not part of the key:
//!   they are settings of a transport (an unbounded one has no capacity at all), so they are
//!   shown on the row instead, and a streaming comparison of `crossbeam-bounded` at three
//!   capacities against an unbounded channel stays one table. Groups appear in suite order.
//! * **Order.** Streams rank by median throughput, highest first; ping-pong by median round
//!   trip, lowest first. Results that did not pass come after every passing one, whatever their
//!   figures.
//! * **Apart.** Rows that are not like-for-like with the ranked ones come after them, each kind
//!   behind a separator and ranked only among themselves ([`Apart`]): a same-thread hand-off (a
//!   same-thread transport, tasks on a current-thread runtime), a *same-worker* one (tasks of a
//!   multi-thread runtime that mostly took turns on one worker thread) and a *batch-emulated*
//!   one (a batch asked of a transport without batch operations, sent one by one).
//! * **Parameters.** A parameter equal on every row is echoed once in the group's heading; one
//!   that differs is shown on each row.
//! * **Lints.** A row shows short codes with footnote numbers; the full messages follow the
//!   table. A lint that every result of the run carries is said once, in the header.
//! * **Two regimes.** The median of a result whose samples fell into two regimes is marked
//!   [`BIMODAL_MARK`]: it is not one number, and its `bimodal` footnote names both regimes.
//! * **Consensus.** In a run that asked for it, a line under each table says whether its
//!   transports delivered the same stream as every other of their stream (in this table or
//!   another: a batched run of a stream is compared with the unbatched ones), naming any that
//!   did not, and which digest the majority had.

use super::fmt;
use crate::consensus::{Consensus, ConsensusGroup, Member};
use crate::crossover::Crossing;
use crate::layout::LayoutMode;
use crate::lints::lint::Lint;
use crate::probes::{self, Limits};
use crate::report::{RunReport, TrialResult, Verdict};
use crate::semantics::{Locality, Semantics};
use crate::stats::shared_regimes::SharedRegimes;
use crate::stats::Summary;
use crate::table_key::TableKey;
use crate::workload::{Pacing, WorkloadKind};
use std::collections::BTreeSet;

/// Caption of the rows a same-thread transport gets, apart from the ranked ones.
pub(crate) const SAME_THREAD_CAPTION: &str =
    "same-thread: the producer's thread runs the consumer, no hand-off between cores; listed apart, not ranked with cross-thread hand-offs";

/// Caption of the rows whose hand-offs mostly stayed on one worker thread.
pub(crate) const SAME_WORKER_CAPTION: &str =
    "same-worker: most hand-offs stayed on one worker thread of the runtime (the woken task ran where it was woken), so most crossed no core; listed apart, not ranked with cross-thread hand-offs";

/// Caption of the rows that asked a batch of a transport without batch operations.
pub(crate) const BATCH_EMULATED_CAPTION: &str =
    "batch-emulated: the transport has no native batch operations, so the batch was sent and received one message at a time; listed apart, not ranked with native batches";

/// Why rows are listed apart from the ranked ones, in the order their sections appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Apart {
    /// No hand-off between threads at all.
    SameThread,
    /// Most hand-offs stayed on one worker thread of a multi-thread runtime.
    SameWorker,
    /// A batch sent one message at a time.
    BatchEmulated,
}

impl Apart {
    /// Every kind, in the order the sections appear.
    const ALL: [Apart; 3] = [Apart::SameThread, Apart::SameWorker, Apart::BatchEmulated];

    /// Why `r` is listed apart, if it is (the first reason that holds).
    fn of(r: &TrialResult) -> Option<Apart> {
        if r.semantics.locality == Locality::SameThread {
            Some(Apart::SameThread)
        } else if r.stayed_on_one_worker() {
            Some(Apart::SameWorker)
        } else if r.batch_emulated() {
            Some(Apart::BatchEmulated)
        } else {
            None
        }
    }

    /// The label of the section's separator, e.g. `same-thread`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Apart::SameThread => "same-thread",
            Apart::SameWorker => "same-worker",
            Apart::BatchEmulated => "batch-emulated",
        }
    }

    /// The sentence that explains the section.
    pub(crate) fn caption(self) -> &'static str {
        match self {
            Apart::SameThread => SAME_THREAD_CAPTION,
            Apart::SameWorker => SAME_WORKER_CAPTION,
            Apart::BatchEmulated => BATCH_EMULATED_CAPTION,
        }
    }
}

/// Rows listed apart for one reason, best first.
pub(crate) struct Section {
    /// Why they are apart.
    pub why: Apart,
    /// Their cells.
    pub rows: Vec<Vec<String>>,
}

/// Legend of the short semantics labels.
pub(crate) const SEMANTICS_LEGEND: &str = "topology, order (fifo = one FIFO, fifo/pp = FIFO per producer), bound, wait strategy (spin, spin-yield: never sleep; spin-park: spins, then sleeps); cb = callback consumer, batch = native batch operations; ≥1 = at-least-once delivery (redeliveries counted), ≤1 = at-most-once (losses counted)";

/// Marker appended to the label of an oversubscribed row.
pub(crate) const OVERSUBSCRIBED_MARK: &str = " *";

/// Marker appended to the median of a result whose samples fell into two regimes.
pub(crate) const BIMODAL_MARK: &str = " ‖";

/// The whole report, ready to render.
pub(crate) struct View {
    /// `(label, text)` lines describing the run, environment and limits.
    pub header: Vec<(String, String)>,
    /// One table per group of comparable results.
    pub groups: Vec<Group>,
}

/// A column: its heading and whether it holds numbers (right-aligned).
#[derive(Clone, Copy)]
pub(crate) struct Column {
    pub name: &'static str,
    pub numeric: bool,
}

/// One table of comparable results.
pub(crate) struct Group {
    /// Workload, payload and topology.
    pub title: String,
    /// Parameters equal on every row, echoed once.
    pub params: Vec<String>,
    /// Column headings.
    pub columns: Vec<Column>,
    /// Like-for-like rows, best first.
    pub ranked: Vec<Vec<String>>,
    /// The rows listed apart, one non-empty section per reason, in [`Apart`] order.
    pub apart: Vec<Section>,
    /// Reasons for non-pass verdicts, and remarks on the table as a whole.
    pub notes: Vec<String>,
    /// Full lint messages; footnote `[n]` is `footnotes[n - 1]`.
    pub footnotes: Vec<String>,
    /// Under consensus, one line per stream the table's rows belong to (see
    /// [`consensus_lines`]); empty otherwise.
    pub consensus: Vec<String>,
    /// The rows' results in the order shown (ranked, then each section apart), for views
    /// that draw them.
    pub members: Vec<Row>,
    /// What kind of figures the rows have.
    pub shape: Shape,
    /// The windows of every soak among the rows, in row order.
    pub soaks: Vec<super::soak::SoakTable>,
}

/// One row of a [`Group`]: which result it shows, its label, and why it is apart, if it is.
pub(crate) struct Row {
    /// Index into the report's results.
    pub result: usize,
    /// The row's label (transport, capacity, options, marks).
    pub label: String,
    /// Why the row is listed apart; `None` for a ranked row.
    pub apart: Option<Apart>,
}

/// Short semantics label, e.g. `MPSC fifo/pp bounded block` (see [`Semantics::short`]).
pub(crate) fn short_semantics(s: &Semantics) -> String {
    s.short()
}

/// How an open-loop group is paced, for its title.
fn pacing_label(p: &Pacing) -> String {
    match p {
        Pacing::Closed => String::new(),
        // Tables are keyed on the exact rate: one that three significant digits would round is
        // written whole, so two tables never share a title (the one exception to the tables'
        // three digits, see `fmt`).
        Pacing::Rate(r) if r.to_string().trim_end_matches('0').len() > 3 => {
            format!("at {}/s", fmt::count(*r))
        }
        Pacing::Rate(r) => format!("at {}", fmt::rate(*r as f64)),
        Pacing::Ramp(_) => "ramp".into(),
    }
}

/// What the rows of a group show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Closed-loop streams: throughput.
    Stream,
    /// Round trips: latency percentiles.
    PingPong,
    /// Open loop at a rate: latency percentiles.
    Paced,
    /// A rate search.
    Ramp,
}

fn shape(r: &TrialResult) -> Shape {
    match (&r.params.pacing, r.workload) {
        (Pacing::Ramp(_), _) => Shape::Ramp,
        (Pacing::Rate(_), _) => Shape::Paced,
        (Pacing::Closed, WorkloadKind::PingPong) => Shape::PingPong,
        (Pacing::Closed, _) => Shape::Stream,
    }
}

/// The transport of a row, or a pipeline's hops.
fn transport_label(r: &TrialResult) -> String {
    match &r.params.pipeline {
        Some(p) => {
            let mut s = p
                .hops
                .iter()
                .map(|h| h.transport.as_str())
                .collect::<Vec<_>>()
                .join(" → ");
            s.push_str(&format!(" · {}", p.delivery.name()));
            if p.stage_work_ns > 0 {
                s.push_str(&format!(
                    " · work {}",
                    fmt::duration(p.stage_work_ns as f64)
                ));
            }
            if !p.reactor.is_default() || p.reactor_work_ns > 0 {
                s.push_str(&format!(" · reactor {}", p.reactor));
                if p.reactor_work_ns > 0 {
                    s.push_str(&format!(" {}", fmt::duration(p.reactor_work_ns as f64)));
                }
            }
            if let Some(m) = p.merge {
                s.push_str(&format!(
                    " · + source → hop {} @ {}",
                    m.hop,
                    fmt::rate(m.rate as f64)
                ));
            }
            s
        }
        None => r.transport.clone(),
    }
}

/// Builds the view of `report`.
pub(crate) fn build(report: &RunReport) -> View {
    let every = lints_on_every_result(report);
    let mut header = vec![
        (
            "run".to_string(),
            format!(
                "suite {}, started {}, took {}, {}",
                report.suite,
                report.started_at,
                fmt::duration(report.duration_s * 1e9),
                fmt::plural(report.results.len(), "result")
            ),
        ),
        ("environment".to_string(), report.environment.summary()),
    ];
    let mut limits = limits_line(report.limits.as_ref());
    if let Some(again) = reprobes_line(report) {
        limits.push_str("; ");
        limits.push_str(&again);
    }
    header.push(("limits".to_string(), limits));
    if let Some(layout) = &report.layout {
        header.push(("layout".to_string(), layout_line(layout)));
    }
    if let Some(shared) = &report.shared_regimes {
        header.push(("regimes".to_string(), shared_regimes_line(shared)));
    }
    header.push(("semantics".to_string(), SEMANTICS_LEGEND.to_string()));
    if !every.is_empty() {
        header.push(("every result".to_string(), every.join("; ")));
    }
    let crossings = crate::crossover::find(&report.results);
    View {
        header,
        groups: comparable(&report.results)
            .into_iter()
            .map(|rows| {
                let lines = report
                    .consensus
                    .as_ref()
                    .map(|c| consensus_lines(c, &indices(report, &rows)))
                    .unwrap_or_default();
                let index_of = |r: &TrialResult| {
                    report
                        .results
                        .iter()
                        .position(|x| std::ptr::eq(x, r))
                        .expect("a row is one of the report's results")
                };
                Group {
                    consensus: lines,
                    ..group(rows, &every, &index_of)
                }
            })
            .map(|mut g| {
                g.notes.extend(
                    crossings
                        .iter()
                        .filter(|c| g.members.iter().any(|m| m.result == c.shown_with))
                        .map(Crossing::sentence),
                );
                g
            })
            .collect(),
    }
}

/// One table shown as soon as its results are in, before the rest of the run has run: what only
/// the whole run can say (the lints every result carries, consensus, crossovers between
/// tables) is left to [`run_wide`]. `None` without results.
pub(crate) fn table_alone(results: &[TrialResult]) -> Option<Group> {
    if results.is_empty() {
        return None;
    }
    let index_of = |r: &TrialResult| {
        results
            .iter()
            .position(|x| std::ptr::eq(x, r))
            .expect("a row is one of the table's results")
    };
    Some(group(results.iter().collect(), &[], &index_of))
}

/// What only the whole run says about its tables, for a report whose tables were shown as they
/// came ([`table_alone`]): per table that has any, its title and its consensus and crossover
/// lines.
pub(crate) fn run_wide(report: &RunReport) -> Vec<(String, Vec<String>)> {
    let crossings = crate::crossover::find(&report.results);
    comparable(&report.results)
        .into_iter()
        .filter_map(|rows| {
            let at = indices(report, &rows);
            let mut lines = report
                .consensus
                .as_ref()
                .map(|c| consensus_lines(c, &at))
                .unwrap_or_default();
            lines.extend(
                crossings
                    .iter()
                    .filter(|c| at.contains(&c.shown_with))
                    .map(Crossing::sentence),
            );
            (!lines.is_empty()).then(|| (title(rows[0]), lines))
        })
        .collect()
}

/// The header's line on results whose regimes followed the same rounds.
fn shared_regimes_line(s: &SharedRegimes) -> String {
    format!(
        "{} were slow in the same {} of {} rounds (agreeing in {:.0}% of rounds or more): the machine changed regime during the run, not each transport; compare them within the run, where every round hit all of them alike",
        join(s.labels.iter(), ", "),
        s.slow_rounds.len(),
        s.rounds,
        s.agreement * 100.0
    )
}

/// The header's line on how samples were placed in memory.
fn layout_line(layout: &LayoutMode) -> String {
    match layout {
        LayoutMode::Random { seed } => format!(
            "random per sample (heap pad and stack offsets; --layout-seed {seed} reproduces them)"
        ),
        LayoutMode::Fixed => "fixed (every sample as the build and allocator place it)".into(),
    }
}

/// The indices in the report of `rows` (references into its results).
fn indices(report: &RunReport, rows: &[&TrialResult]) -> Vec<usize> {
    rows.iter()
        .filter_map(|r| report.results.iter().position(|x| std::ptr::eq(x, *r)))
        .collect()
}

/// The consensus lines of a table whose rows are the results `rows`: one per stream (and count)
/// they belong to, judged over every member of that stream, in this table or another;
/// `consensus: 6 transports delivered the same stream (digest …)`, or `consensus FAILED:
/// faulty-x delivered another stream (digest …) than the 5 others (digest …)`. Rows left out of
/// consensus (ramps, `latest` pipelines) get a line saying why.
pub(crate) fn consensus_lines(c: &Consensus, rows: &[usize]) -> Vec<String> {
    let touched: Vec<&ConsensusGroup> = c
        .groups
        .iter()
        .filter(|g| {
            g.members.iter().any(|m| rows.contains(&m.result))
                || g.not_compared.iter().any(|i| rows.contains(i))
        })
        .collect();
    let mut lines: Vec<String> = touched
        .iter()
        .map(|g| {
            let mut line = if touched.len() > 1 {
                format!("consensus at {} per sample", fmt::si(g.messages as f64))
            } else {
                "consensus".to_string()
            };
            line.push_str(&consensus_verdict(g, rows));
            if !g.not_compared.is_empty() {
                line.push_str(&format!(
                    "; {} not compared (did not pass)",
                    fmt::plural(g.not_compared.len(), "trial")
                ));
            }
            line
        })
        .collect();
    let mut reasons: Vec<&str> = c
        .excluded
        .iter()
        .filter(|e| rows.contains(&e.result))
        .map(|e| e.reason.as_str())
        .collect();
    reasons.dedup();
    for why in reasons {
        lines.push(format!("consensus: not compared ({why})"));
    }
    lines
}

/// `: 6 transports delivered …` or ` FAILED: …` for one stream, seen from a table of `rows`.
fn consensus_verdict(g: &ConsensusGroup, rows: &[usize]) -> String {
    let here = g
        .members
        .iter()
        .filter(|m| rows.contains(&m.result))
        .count();
    let elsewhere = g.members.len() - here;
    let also = if elsewhere > 0 {
        format!(", as did {elsewhere} more of this stream in other tables")
    } else {
        String::new()
    };
    if g.agreed() {
        let digest = g.digest.as_deref().unwrap_or("–");
        return match g.members.len() {
            0 => ": nothing to compare (no trial passed)".to_string(),
            n if here == 0 => format!(
                ": nothing here to compare; the {n} transports of this stream in other tables delivered the same stream (digest {digest})"
            ),
            1 => format!(": 1 transport, nothing to compare it with (digest {digest})"),
            _ => format!(
                ": {} delivered the same stream (digest {digest}{also})",
                fmt::plural(here, "transport")
            ),
        };
    }
    let names = |ms: Vec<&Member>| join(ms.iter().map(|m| m.label.as_str()), ", ");
    let dissenters: Vec<&Member> = g.dissenters().collect();
    match &g.digest {
        Some(d) => {
            let digests: BTreeSet<&str> = dissenters.iter().map(|m| m.digest.as_str()).collect();
            let others = g.majority().count();
            format!(
                " FAILED: {} delivered another stream (digest {}) than the {} {} (digest {d})",
                names(dissenters),
                join(digests.iter(), ", "),
                others,
                if others == 1 { "other" } else { "others" },
            )
        }
        None => format!(
            " FAILED: {} delivered different streams and no digest has a majority ({})",
            names(dissenters.clone()),
            join(
                dissenters
                    .iter()
                    .map(|m| format!("{} {}", m.label, m.digest)),
                "; "
            )
        ),
    }
}

/// The header's line on the machine's limits: each probe's median (the limit) with the number
/// of repetitions behind it, their spread, and any set aside.
fn limits_line(limits: Option<&Limits>) -> String {
    let Some(l) = limits else {
        return "not measured in this run: results show no distance to the machine's limit"
            .to_string();
    };
    let mut s = format!(
        "cache-line round trip {}; streaming bandwidth {} ≈ {} msgs/s of 8 B; probes on cores {}{}",
        probe_figure(l, probes::RTT, &l.cacheline_rtt_ns, fmt::duration),
        probe_figure(l, probes::STREAM, &l.stream_bytes_per_s, fmt::bandwidth),
        fmt::si(l.stream_msgs_per_s(8)),
        join(l.cores.iter(), ","),
        if l.pinned { ", pinned" } else { ", not pinned" },
    );
    if let Some(stamped) = &l.cacheline_rtt_stamped_ns {
        s.push_str(&format!(
            "; round trip stamped per trip as ping-pong is {}",
            probe_figure(l, probes::RTT_STAMPED, stamped, fmt::duration)
        ));
    }
    if let Some(step) = l.clock_step_ns {
        s.push_str(&format!("; timer step {}", fmt::duration(step)));
    }
    if let Some(note) = &l.note {
        s.push_str(&format!(" ({note})"));
    }
    s
}

/// What the probes after the trials' groups found, for the limits line: whether the machine
/// stayed in one state, and the range of each limit over every probe; `None` when the limits were
/// probed once.
fn reprobes_line(report: &RunReport) -> Option<String> {
    if report.reprobes.is_empty() {
        return None;
    }
    let all: Vec<&Limits> = report.limits.iter().chain(&report.reprobes).collect();
    let range = |f: fn(&Limits) -> f64, show: fn(f64) -> String| {
        let lo = all.iter().map(|l| f(l)).fold(f64::INFINITY, f64::min);
        let hi = all.iter().map(|l| f(l)).fold(f64::NEG_INFINITY, f64::max);
        format!("{}–{}", show(lo), show(hi))
    };
    let ranges = format!(
        "cache-line round trip {}, streaming bandwidth {}",
        range(Limits::rtt_ns, fmt::duration),
        range(Limits::stream_bytes, fmt::bandwidth)
    );
    Some(if report.state_changed() {
        format!(
            "the machine's state changed during the run: probed {} times in all ({ranges}); each result is judged against the probe nearest in time to its samples",
            all.len()
        )
    } else {
        format!(
            "probed {} times in all, one state throughout ({ranges})",
            all.len()
        )
    })
}

/// One probe's limit as the limits line says it: `124 ns (median of 6, spread 1.2%; set aside
/// 1 of 7: 17.8 ns)`.
fn probe_figure(l: &Limits, probe: &str, summary: &Summary, show: fn(f64) -> String) -> String {
    let mut s = format!(
        "{} (median of {}, spread {}",
        show(summary.median),
        summary.n,
        fmt::percent(summary.spread)
    );
    if let Some(reps) = l.repetitions_of(probe).filter(|r| !r.outlying.is_empty()) {
        let aside: Vec<String> = reps.set_aside().into_iter().map(show).collect();
        s.push_str(&format!(
            "; set aside {} of {}: {}",
            aside.len(),
            reps.values.len(),
            aside.join(", ")
        ));
    }
    s.push(')');
    s
}

/// The results in groups of comparable ones (same [`TableKey`]), groups and rows in suite order.
fn comparable(results: &[TrialResult]) -> Vec<Vec<&TrialResult>> {
    let mut groups: Vec<(TableKey, Vec<&TrialResult>)> = Vec::new();
    for r in results {
        let k = TableKey::of_result(r);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(r),
            None => groups.push((k, vec![r])),
        }
    }
    groups.into_iter().map(|(_, rows)| rows).collect()
}

fn join<T: ToString>(items: impl Iterator<Item = T>, sep: &str) -> String {
    items.map(|x| x.to_string()).collect::<Vec<_>>().join(sep)
}

/// Lint messages every result carries (said once, in the header).
fn lints_on_every_result(report: &RunReport) -> Vec<String> {
    let Some(first) = report.results.first() else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for l in &first.lints {
        let text = l.to_string();
        if !out.contains(&text)
            && report
                .results
                .iter()
                .all(|r| r.lints.iter().any(|m| m.to_string() == text))
        {
            out.push(text);
        }
    }
    out
}

/// The values a parameter takes over the rows of a group.
struct Distinct {
    capacities: BTreeSet<usize>,
    any_unbounded: bool,
    messages: BTreeSet<String>,
    requested: BTreeSet<String>,
    samples: BTreeSet<String>,
    timeouts: BTreeSet<u64>,
}

impl Distinct {
    fn of(rows: &[&TrialResult]) -> Distinct {
        // Rows that never ran (unsupported, invalid) have no sample counts of their own.
        let distinct = |f: &dyn Fn(&TrialResult) -> String| -> BTreeSet<String> {
            rows.iter()
                .filter(|r| r.verdict.ran())
                .map(|r| f(r))
                .collect()
        };
        Distinct {
            capacities: rows.iter().filter_map(|r| r.params.capacity).collect(),
            any_unbounded: rows.iter().any(|r| r.params.capacity.is_none()),
            messages: distinct(&|r| r.params.messages.to_string()),
            requested: distinct(&|r| r.params.messages_requested.clone()),
            samples: distinct(&|r| format!("{}+{}", r.params.samples, r.params.warmup)),
            timeouts: rows.iter().map(|r| r.params.timeout_ms).collect(),
        }
    }

    /// Which parameters differ between rows, so each row shows its own.
    fn varying(&self) -> Varying {
        Varying {
            capacity: self.capacities.len() > 1,
            messages: self.messages.len() > 1,
            samples: self.samples.len() > 1,
            memory: false,
            cpu: false,
            submit: false,
            bytes: false,
            language: false,
            wakeups: false,
            fires: false,
        }
    }
}

/// What a row shows of a parameter that may differ between rows.
struct Varying {
    capacity: bool,
    messages: bool,
    samples: bool,
    /// Some result of the group has its worker's memory measured: a `peak mem` column.
    memory: bool,
    /// Some result of the group has its CPU cost measured: `cpu/msg` and `cores` columns.
    cpu: bool,
    /// Some stream of the group ran several producers and recorded their submit rate: a
    /// `submit/s` column.
    submit: bool,
    /// Some stream of the group carries payloads larger than a cache line: a `bytes/s` column
    /// beside `msgs/s`.
    bytes: bool,
    /// Some transport of the group is not one of handoff's own Rust ones (a plugin, a C++
    /// peer): a `language` column.
    language: bool,
    /// Some open-loop result of the group awaited an async hop and counted its wake-ups: a
    /// `wakeups/msg` column, one figure per hop.
    wakeups: bool,
    /// The group's rows are pipelines: `sent` and `fires` columns beside the achieved rate
    /// (a `latest` reactor or hop fires fewer times than events were sent).
    fires: bool,
}

/// One table of comparable results: heading, ordered rows, notes and footnotes.
fn group(
    mut rows: Vec<&TrialResult>,
    every: &[String],
    index_of: &dyn Fn(&TrialResult) -> usize,
) -> Group {
    let first = rows[0];
    let kind = shape(first);
    let distinct = Distinct::of(&rows);
    let varying = Varying {
        memory: rows.iter().any(|r| r.memory.is_some()),
        cpu: rows.iter().any(|r| r.cpu.is_some()),
        submit: kind == Shape::Stream
            && rows
                .iter()
                .any(|r| r.params.producers > 1 && r.submit.is_some()),
        bytes: kind == Shape::Stream
            && rows
                .iter()
                .any(|r| r.params.payload.touched_bytes() > CACHE_LINE),
        language: rows.iter().any(|r| !r.origin.is_default()),
        wakeups: kind == Shape::Paced
            && rows.iter().any(|r| {
                r.paced
                    .as_ref()
                    .is_some_and(|p| p.hops.iter().any(|h| h.wakeups.is_some()))
            }),
        fires: kind == Shape::Paced && rows.iter().any(|r| r.params.pipeline.is_some()),
        ..distinct.varying()
    };
    let params = heading_params(first, kind, &distinct, &varying);
    let title = title(first);
    rank(&mut rows, kind);
    let columns = columns(kind, &varying);

    let mut footnotes: Vec<String> = Vec::new();
    let mut notes = Vec::new();
    let mut ranked = Vec::new();
    let mut apart: Vec<Section> = Vec::new();
    let mut oversubscribed = false;
    let mut members = Vec::new();
    // Ranked rows first, then each section apart, so footnotes number in reading order.
    let like: Vec<&TrialResult> = rows
        .iter()
        .copied()
        .filter(|r| Apart::of(r).is_none())
        .collect();
    let mut ordered: Vec<(Option<Apart>, &TrialResult)> = like.iter().map(|r| (None, *r)).collect();
    for why in Apart::ALL {
        let these = rows.iter().filter(|r| Apart::of(r) == Some(why));
        ordered.extend(these.map(|r| (Some(why), *r)));
    }
    for (why, r) in ordered {
        let mut label = row_label(r, &varying);
        if r.verdict != Verdict::Pass {
            notes.push(format!(
                "{label}: {} — {}",
                r.verdict,
                r.violation.as_deref().unwrap_or("no detail recorded")
            ));
        }
        if is_oversubscribed(r) {
            label.push_str(OVERSUBSCRIBED_MARK);
            oversubscribed = true;
        }
        members.push(Row {
            result: index_of(r),
            label: label.clone(),
            apart: why,
        });
        let cells = row(r, label, kind, &varying, every, &mut footnotes);
        match why {
            None => ranked.push(cells),
            Some(why) => match apart.last_mut() {
                Some(s) if s.why == why => s.rows.push(cells),
                _ => apart.push(Section {
                    why,
                    rows: vec![cells],
                }),
            },
        }
    }
    notes.extend(ordering_note(&like));
    if rows.iter().any(|r| r.modes.is_some()) {
        notes.push(format!(
            "{} two regimes: the samples fell into two clusters and the median describes neither; the bimodal footnote names both",
            BIMODAL_MARK.trim()
        ));
    }
    if oversubscribed {
        notes.push(format!(
            "{} oversubscribed: more threads than cores, figures include scheduler time slicing",
            OVERSUBSCRIBED_MARK.trim()
        ));
    }
    if kind == Shape::Paced || kind == Shape::Ramp {
        notes.extend(open_loop_notes(&rows));
    }
    let labelled: Vec<(&str, &TrialResult)> = members
        .iter()
        .zip(rows_in_order(&members, &rows, index_of))
        .map(|(m, r)| (m.label.as_str(), r))
        .collect();
    let soaks = super::soak::tables(&labelled);

    Group {
        title,
        params,
        columns,
        ranked,
        apart,
        notes,
        footnotes,
        consensus: Vec::new(),
        members,
        shape: kind,
        soaks,
    }
}

/// The results of `members`, in their order, out of `rows`.
fn rows_in_order<'a>(
    members: &[Row],
    rows: &[&'a TrialResult],
    index_of: &dyn Fn(&TrialResult) -> usize,
) -> Vec<&'a TrialResult> {
    members
        .iter()
        .filter_map(|m| rows.iter().find(|r| index_of(r) == m.result).copied())
        .collect()
}

/// The parameters a group's heading echoes: each one equal on every row, once.
fn heading_params(
    first: &TrialResult,
    kind: Shape,
    distinct: &Distinct,
    varying: &Varying,
) -> Vec<String> {
    let p = &first.params;
    let unit = if kind == Shape::PingPong {
        "round trips"
    } else {
        "msgs"
    };
    let mut params = Vec::new();
    let capacities = &distinct.capacities;
    match (capacities.len(), distinct.any_unbounded) {
        (0, _) => params.push("capacity unbounded".to_string()),
        (1, false) => params.push(format!("capacity {}", capacities.first().unwrap())),
        (1, true) => params.push(format!(
            "capacity {} (where bounded)",
            capacities.first().unwrap()
        )),
        _ => params.push("capacity per row".to_string()),
    }
    let requested = &distinct.requested;
    if varying.messages {
        if requested.len() == 1 {
            params.push(format!(
                "{unit}/sample per row ({})",
                requested.first().unwrap()
            ));
        }
    } else {
        let mut s = format!("{} {unit}/sample", fmt::si(p.messages as f64));
        if requested.len() == 1 && p.messages_requested != p.messages.to_string() {
            s.push_str(&format!(" ({})", p.messages_requested));
        }
        params.push(s);
    }
    if !varying.samples {
        params.push(format!(
            "{} + {}",
            fmt::plural(p.samples, "sample"),
            fmt::plural(p.warmup, "warm-up")
        ));
    }
    if p.fresh_process {
        params.push("a process per sample".into());
    }
    params.push(format!(
        "watchdog {}",
        join(
            distinct
                .timeouts
                .iter()
                .map(|t| fmt::duration(*t as f64 * 1e6)),
            " / "
        )
    ));
    params
}

/// A group's title: workload, payload, topology, batch, fan-out, pacing and pipeline hops.
fn title(first: &TrialResult) -> String {
    let p = &first.params;
    let mut t = format!(
        "{} · payload {} ({}) · {} → {}",
        first.workload,
        p.payload,
        match p.payload.heap_body() {
            Some(n) => format!(
                "{} moved by pointer, {} on the heap",
                fmt::bytes(p.payload_bytes),
                fmt::bytes(n)
            ),
            None => fmt::bytes(p.payload_bytes),
        },
        fmt::plural(p.producers, "producer"),
        fmt::plural(p.consumers, "consumer"),
    );
    if let Some(b) = p.batch {
        t.push_str(&format!(" · batch {b}"));
    }
    if first.workload.is_open_loop() && p.consumers > 1 {
        t.push_str(" · fan-out (every consumer gets every event)");
    }
    let pacing = pacing_label(&p.pacing);
    if !pacing.is_empty() {
        t.push_str(&format!(" · {pacing}"));
    }
    if let Some(pipe) = &p.pipeline {
        let caps: Vec<String> = pipe.hops.iter().map(|h| h.capacity.to_string()).collect();
        // `1 hop of 1024`, `3 hops of 1024/64/1024`.
        t.push_str(&format!(
            " · {} of {}",
            fmt::plural(pipe.hops.len(), "hop"),
            caps.join("/")
        ));
    }
    t
}

/// Orders the rows: passing ones by their figure, best first, then the rest in suite order.
fn rank(rows: &mut [&TrialResult], kind: Shape) {
    let figure = |r: &TrialResult| -> Option<f64> {
        if r.verdict != Verdict::Pass {
            return None;
        }
        match kind {
            Shape::PingPong => r.latency.as_ref().map(|l| l.p50 as f64),
            Shape::Paced => r.latency.as_ref().map(|l| l.p99 as f64),
            Shape::Ramp => r
                .ramp
                .as_ref()
                .and_then(|x| x.search.sustained)
                .map(|x| -(x as f64)),
            Shape::Stream => r.throughput.as_ref().map(|t| -t.median),
        }
    };
    rows.sort_by(|a, b| match (figure(a), figure(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// The columns of a group: the row's identity, the parameters that vary, the figures of its
/// shape, the lints.
fn columns(kind: Shape, varying: &Varying) -> Vec<Column> {
    let text = |name| Column {
        name,
        numeric: false,
    };
    let number = |name| Column {
        name,
        numeric: true,
    };
    let mut columns = vec![text("transport")];
    if varying.language {
        columns.push(text("language"));
    }
    columns.extend([text("semantics"), text("verdict")]);
    if varying.messages {
        columns.push(number(if kind == Shape::PingPong {
            "round trips/sample"
        } else {
            "msgs/sample"
        }));
    }
    if varying.samples {
        columns.push(number("samples+warm-up"));
    }
    let figures_from = columns.len();
    columns.extend(figure_columns(kind).iter().map(|&name| number(name)));
    if varying.bytes {
        // Beside `msgs/s`, the first figure of a stream.
        columns.insert(figures_from + 1, number("bytes/s"));
    }
    if varying.fires {
        // Beside `achieved/s`, the first figure of a paced row.
        columns.insert(figures_from + 1, number("sent"));
        columns.insert(figures_from + 2, number("fires"));
    }
    if varying.wakeups {
        columns.push(number("wakeups/msg per hop"));
    }
    if varying.submit {
        columns.push(number("submit/s"));
    }
    if varying.memory {
        columns.push(number("peak mem"));
    }
    if varying.cpu {
        columns.extend([number("cpu/msg"), number("cores")]);
    }
    columns.push(text("lints"));
    columns
}

/// The figures a row of each shape shows, in order.
fn figure_columns(kind: Shape) -> &'static [&'static str] {
    match kind {
        Shape::PingPong => &["p50", "p90", "p99", "p99.9", "max", "× line RTT"],
        Shape::Paced => &[
            "achieved/s",
            "p50",
            "p90",
            "p95",
            "p99",
            "p99.9",
            "p99.99",
            "max",
            "p99 uncorr.",
            "refused",
            "depth p99 per hop",
        ],
        Shape::Ramp => &[
            "sustained/s",
            "not sustained/s",
            "p50 @ sustained",
            "p99 @ sustained",
            "saturates first",
            "steps",
        ],
        Shape::Stream => &[
            "msgs/s",
            "min – max",
            "ns/msg",
            "spread",
            "of limit",
            "failed sends/recvs",
        ],
    }
}

/// Marker of a row whose producers and consumers ran in two processes.
pub(crate) const CROSS_PROCESS_MARK: &str = " ⇄ process";

/// Marker of a row whose messages went through a broker (a server process of its own).
pub(crate) const BROKER_MARK: &str = " ⇄ broker";

/// The label of a row: the transport (or pipeline), whether it crossed a process boundary, its
/// capacity where capacities differ, its options and its async driver.
fn row_label(r: &TrialResult, varying: &Varying) -> String {
    let mut label = transport_label(r);
    match r.semantics.locality {
        Locality::CrossProcess => label.push_str(CROSS_PROCESS_MARK),
        Locality::Broker => label.push_str(BROKER_MARK),
        _ => {}
    }
    if varying.capacity {
        if let Some(c) = r.params.capacity {
            label.push_str(&format!(" cap={c}"));
        }
    }
    for (k, v) in &r.params.options {
        label.push_str(&format!(" {k}={v}"));
    }
    if r.params.driver.is_async() {
        label.push_str(&format!(" [{}]", r.params.driver));
    }
    label
}

/// Whether a result ran more threads than cores.
fn is_oversubscribed(r: &TrialResult) -> bool {
    r.placement.oversubscribed
        || r.lints
            .iter()
            .any(|l| matches!(l, Lint::Oversubscribed { .. }))
}

/// The cells of one row; its lints are numbered into `footnotes`.
fn row(
    r: &TrialResult,
    label: String,
    kind: Shape,
    varying: &Varying,
    every: &[String],
    footnotes: &mut Vec<String>,
) -> Vec<String> {
    let mut cells = vec![label];
    if varying.language {
        cells.push(r.origin.language.clone());
    }
    cells.extend([short_semantics(&r.semantics), r.verdict.to_string()]);
    if varying.messages {
        cells.push(if r.verdict.ran() {
            fmt::si(r.params.messages as f64)
        } else {
            "–".into()
        });
    }
    if varying.samples {
        cells.push(if r.verdict.ran() {
            format!("{}+{}", r.params.samples, r.params.warmup)
        } else {
            "–".into()
        });
    }
    match kind {
        Shape::Paced => {
            let figures_from = cells.len();
            paced_cells(r, &mut cells);
            if varying.fires {
                let (sent, fires) = fires_cells(r);
                cells.insert(figures_from + 1, sent);
                cells.insert(figures_from + 2, fires);
            }
        }
        Shape::Ramp => ramp_cells(r, &mut cells),
        Shape::PingPong => ping_pong_cells(r, &mut cells),
        Shape::Stream => {
            let figures_from = cells.len();
            stream_cells(r, &mut cells);
            if varying.bytes {
                cells.insert(figures_from + 1, bytes_cell(r));
            }
        }
    }
    if varying.wakeups {
        cells.push(wakeups_cell(r));
    }
    if varying.submit {
        // The producers' side: every producer's last send returned.
        cells.push(r.submit.as_ref().map_or(dash(), |s| fmt::rate(s.median)));
    }
    if varying.memory {
        // The worker's highest resident set in any timed sample.
        cells.push(r.memory.map_or("–".into(), |m| fmt::memory(m.peak as f64)));
    }
    if varying.cpu {
        cpu_cells(r, &mut cells);
    }
    cells.push(lint_marks(r, every, footnotes));
    cells
}

/// Bytes in a cache line: a stream whose payload is larger gets a `bytes/s` column.
const CACHE_LINE: usize = 64;

/// The bytes a row's consumer reads per second: its median rate times the bytes it reads per
/// message, heap data reached through pointers included (see `PayloadKind::touched_bytes`).
fn bytes_cell(r: &TrialResult) -> String {
    r.throughput.as_ref().map_or_else(dash, |t| {
        fmt::bandwidth(t.median * r.params.payload.touched_bytes() as f64)
    })
}

/// The CPU cost of a row (see [`handoff_model::cpu`]): both sides' CPU time per message, and
/// cores busy as producers`+`consumers, e.g. `0.98+1.00`; dashes where not measured.
fn cpu_cells(r: &TrialResult, cells: &mut Vec<String>) {
    match &r.cpu {
        Some(c) => cells.extend([fmt::duration(c.ns_per_msg), c.cores_label()]),
        None => cells.extend([dash(), dash()]),
    }
}

/// A row's lint codes with their footnote numbers, e.g. `noisy[1] same-thread[2]`; a lint every
/// result carries is left to the header.
fn lint_marks(r: &TrialResult, every: &[String], footnotes: &mut Vec<String>) -> String {
    let mut marks = Vec::new();
    for l in &r.lints {
        let text = l.to_string();
        if every.contains(&text) {
            continue;
        }
        let n = match footnotes.iter().position(|f| *f == text) {
            Some(i) => i + 1,
            None => {
                footnotes.push(text);
                footnotes.len()
            }
        };
        marks.push(format!("{}[{n}]", l.code()));
    }
    marks.join(" ")
}

/// The note that the ranked rows promise different orders, if they do.
fn ordering_note(cross: &[&TrialResult]) -> Option<String> {
    if !(cross.iter().any(|r| r.semantics.ordering.is_fifo())
        && cross.iter().any(|r| !r.semantics.ordering.is_fifo()))
    {
        return None;
    }
    let unordered: Vec<&str> = cross
        .iter()
        .filter(|r| !r.semantics.ordering.is_fifo())
        .map(|r| r.transport.as_str())
        .collect();
    Some(format!(
        "ordering differs: no order is promised by {}, FIFO by the others; not a like-for-like ranking",
        unordered.join(", ")
    ))
}

/// What an open-loop table's latencies are, and the harness's own timing cost.
fn open_loop_notes(rows: &[&TrialResult]) -> Vec<String> {
    let mut notes = vec![
        "latency is one-way, from each message's intended send time (corrected for coordinated omission); `uncorr.` is from its actual send".to_string(),
    ];
    if let Some(o) = rows
        .iter()
        .find_map(|r| r.paced.as_ref())
        .map(|p| p.overhead)
    {
        notes.push(format!(
            "the harness's own timing: {} per clock read, {} per message to stamp and record",
            fmt::duration(o.clock_read_ns),
            fmt::duration(o.stamp_and_record_ns)
        ));
    }
    notes
}

/// [`BIMODAL_MARK`] if the result's samples fell into two regimes, else nothing.
fn bimodal_mark(r: &TrialResult) -> &'static str {
    if r.modes.is_some() {
        BIMODAL_MARK
    } else {
        ""
    }
}

/// The empty cell.
fn dash() -> String {
    "–".to_string()
}

/// A stream's figures: throughput, its range, time per message, spread, distance to the
/// streaming limit, failed attempts.
fn stream_cells(r: &TrialResult, cells: &mut Vec<String>) {
    match &r.throughput {
        Some(t) => {
            cells.push(format!("{}{}", fmt::rate(t.median), bimodal_mark(r)));
            cells.push(format!("{} – {}", fmt::si(t.min), fmt::si(t.max)));
        }
        None => cells.extend([dash(), dash()]),
    }
    cells.push(
        r.ns_per_msg
            .as_ref()
            .map_or_else(dash, |n| fmt::duration(n.median)),
    );
    cells.push(
        r.throughput
            .as_ref()
            .map_or_else(dash, |t| fmt::percent(t.spread)),
    );
    // The limit is a cross-core one: it says nothing of a same-thread call, nor of tasks that
    // mostly took turns on one worker thread.
    cells.push(
        if r.semantics.locality == Locality::SameThread || r.stayed_on_one_worker() {
            "n/a".to_string()
        } else {
            r.limit
                .as_ref()
                .filter(|l| l.probe == probes::STREAM)
                .map_or_else(dash, |l| fmt::percent(l.ratio))
        },
    );
    cells.push(format!(
        "{} / {}",
        fmt::si(r.failed_sends as f64),
        fmt::si(r.failed_recvs as f64)
    ));
}

/// A ping-pong's figures: round-trip percentiles and the distance to the cache-line round trip.
fn ping_pong_cells(r: &TrialResult, cells: &mut Vec<String>) {
    match &r.latency {
        Some(l) => {
            cells.push(format!(
                "{}{}",
                fmt::duration(l.p50 as f64),
                bimodal_mark(r)
            ));
            cells.extend([l.p90, l.p99, l.p999, l.max].map(|v| fmt::duration(v as f64)))
        }
        None => cells.extend((0..5).map(|_| dash())),
    }
    cells.push(
        r.limit
            .as_ref()
            .filter(|l| l.probe.starts_with("cacheline-rtt"))
            .map_or_else(dash, |l| fmt::times(l.ratio)),
    );
}

/// An open-loop row's figures: achieved rate, latency percentiles from the intended send, the
/// uncorrected p99, refused sends, and each hop's depth.
fn paced_cells(r: &TrialResult, cells: &mut Vec<String>) {
    let p = r.paced.as_ref();
    cells.push(
        p.and_then(|p| p.achieved_rate.as_ref())
            .map_or_else(dash, |a| fmt::rate(a.median)),
    );
    match &r.latency {
        Some(l) => {
            let at = |v: u64| fmt::duration(v as f64);
            cells.extend([at(l.p50), at(l.p90), l.p95.map_or_else(dash, at)]);
            cells.extend([l.p99, l.p999, l.p9999, l.max].map(at));
        }
        None => cells.extend((0..7).map(|_| dash())),
    }
    cells.push(
        p.and_then(|p| p.uncorrected.as_ref())
            .map_or_else(dash, |u| fmt::duration(u.p99 as f64)),
    );
    cells.push(p.map_or_else(dash, |p| {
        if p.refusals_observable {
            fmt::si(p.refused as f64)
        } else {
            "n/a".into()
        }
    }));
    cells.push(p.map_or_else(dash, |p| {
        p.hops
            .iter()
            .map(|h| match h.capacity {
                Some(c) => format!("{}/{c}", fmt::si(h.p99 as f64)),
                None => fmt::si(h.p99 as f64),
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }));
}

/// A pipeline row's events sent (injectors and merge source, over the samples) and fires.
fn fires_cells(r: &TrialResult) -> (String, String) {
    match r.paced.as_ref() {
        Some(p) => (
            fmt::si(p.sent as f64),
            p.fires.map_or_else(dash, |f| fmt::si(f as f64)),
        ),
        None => (dash(), dash()),
    }
}

/// Each hop's receiver wake-ups per message (`–` for a hop no task awaited).
fn wakeups_cell(r: &TrialResult) -> String {
    r.paced.as_ref().map_or_else(dash, |p| {
        p.hops
            .iter()
            .map(|h| h.wakeups_per_msg().map_or_else(dash, |w| format!("{w:.2}")))
            .collect::<Vec<_>>()
            .join(" · ")
    })
}

/// A ramp's figures: the highest rate sustained, the lowest not, latency at the sustained one,
/// the hop that saturates first and the steps run.
///
/// The latency is the one the search judged the sustained step by (within the ramp's p99 bound,
/// if it has one): a ramp that soaks at that rate afterwards keeps the soak as its timed sample,
/// and the soak, minutes where the step took a second or two, may not hold the rate (its windows
/// show under the table, `soak-not-sustained` says so). Without the step (a report that did not
/// keep its steps), the timed samples'; nothing when no rate was sustained.
fn ramp_cells(r: &TrialResult, cells: &mut Vec<String>) {
    let Some(ramp) = &r.ramp else {
        cells.extend((0..6).map(|_| dash()));
        return;
    };
    let s = &ramp.search;
    cells.push(
        s.sustained
            .map_or_else(|| "none".into(), |x| fmt::rate(x as f64)),
    );
    cells.push(s.not_sustained.map_or_else(dash, |x| fmt::rate(x as f64)));
    let at = |v: u64| fmt::duration(v as f64);
    match (s.sustained_step(), &r.latency) {
        (Some(f), _) => cells.extend([at(f.p50), at(f.p99)]),
        (None, Some(l)) if s.sustained.is_some() => cells.extend([at(l.p50), at(l.p99)]),
        _ => cells.extend([dash(), dash()]),
    }
    cells.push(ramp.saturating_hop.clone().unwrap_or_else(dash));
    cells.push(s.steps.len().to_string());
}

/// The gates' outcomes, one block per gate: its status and what it asks, then one line per
/// point it judged. Empty when the run declared none.
pub(super) fn gate_lines(report: &RunReport) -> Vec<(String, Vec<String>)> {
    use handoff_model::gate::GateStatus;
    report
        .gates
        .iter()
        .map(|g| {
            let status = match g.status {
                GateStatus::Passed => "passed",
                GateStatus::Failed => "FAILED",
                GateStatus::Skipped => "skipped",
            };
            (format!("{status}: {}", g.description), g.details.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{
        environment, latency, paced as paced_result_at, stream, with_rates,
    };
    use crate::semantics::WaitStrategy;
    use crate::workload::{Driver, Hop, PipelineSpec};
    use std::collections::BTreeMap;

    fn report(results: Vec<TrialResult>) -> RunReport {
        RunReport {
            reprobes: Vec::new(),
            schema_version: crate::report::SCHEMA_VERSION,
            started_at: "2025-11-21T10:00:00Z".into(),
            duration_s: 1.0,
            suite: "test".into(),
            environment: environment(),
            limits: None,
            layout: None,
            consensus: None,
            shared_regimes: None,
            gates: Vec::new(),
            paired: None,
            results,
        }
    }

    /// The transports of each part of the only group: the ranked rows, then each section apart.
    fn parts(report: &RunReport) -> (Vec<String>, Vec<(Apart, Vec<String>)>) {
        let v = build(report);
        assert_eq!(v.groups.len(), 1, "one group");
        let g = &v.groups[0];
        let names = |rows: &[Vec<String>]| rows.iter().map(|r| r[0].clone()).collect();
        let apart = g.apart.iter().map(|s| (s.why, names(&s.rows))).collect();
        (names(&g.ranked), apart)
    }

    #[test]
    fn waits_that_never_sleep_are_labelled_apart_from_those_that_do() {
        let mut sem = stream().semantics;
        sem.wait = WaitStrategy::SpinThenYield;
        assert_eq!(short_semantics(&sem), "SPSC fifo bounded spin-yield");
        sem.wait = WaitStrategy::SpinThenPark;
        assert_eq!(short_semantics(&sem), "SPSC fifo bounded spin-park");
        assert!(SEMANTICS_LEGEND.contains("spin, spin-yield: never sleep"));
    }

    #[test]
    fn cpu_columns_show_only_when_some_row_measured_the_cost() {
        let names =
            |v: &View| -> Vec<&str> { v.groups[0].columns.iter().map(|c| c.name).collect() };
        let plain = build(&report(vec![stream()]));
        assert!(!names(&plain).contains(&"cpu/msg"));

        let mut measured = stream();
        measured.transport = "measured".into();
        measured.cpu = Some(handoff_model::cpu::CpuFigures {
            producer_cores: 0.98,
            consumer_cores: 1.0,
            runtime_cores: 0.0,
            page_faults_per_msg: None,
            ns_per_msg: 212.0,
            samples: 5,
        });
        let mut other = stream();
        other.transport = "other".into();
        let v = build(&report(vec![measured, other]));
        let columns = names(&v);
        let at = |name: &str| columns.iter().position(|c| *c == name).expect(name);
        let cells = |transport: &str| {
            let row = v.groups[0]
                .ranked
                .iter()
                .find(|r| r[0] == transport)
                .expect(transport);
            (row[at("cpu/msg")].clone(), row[at("cores")].clone())
        };
        assert_eq!(cells("measured"), ("212 ns".into(), "0.98+1.00".into()));
        assert_eq!(cells("other"), ("–".into(), "–".into()));
        assert_eq!(columns.last(), Some(&"lints"));
    }

    #[test]
    fn the_limits_line_says_whether_the_machine_changed_state_during_the_run() {
        let probe = |rtt: f64, bandwidth: f64| {
            let mut l = crate::lints::fixture::limits(None, None);
            l.cacheline_rtt_ns.median = rtt;
            l.stream_bytes_per_s.median = bandwidth;
            l
        };
        let line = |r: &RunReport| {
            let v = build(r);
            v.header
                .iter()
                .find(|(k, _)| k == "limits")
                .map(|(_, v)| v.clone())
                .expect("a limits line")
        };
        let mut r = report(vec![stream()]);
        r.limits = Some(probe(100.0, 8e9));
        assert!(!line(&r).contains("probed"), "{}", line(&r));
        r.reprobes = vec![probe(104.0, 8.2e9), probe(98.0, 7.9e9)];
        assert!(
            line(&r).contains(
                "probed 3 times in all, one state throughout (cache-line round trip 98.0 ns–104 ns"
            ),
            "{}",
            line(&r)
        );
        r.reprobes.push(probe(322.0, 2.0e9));
        assert!(
            line(&r).contains("the machine's state changed during the run: probed 4 times in all"),
            "{}",
            line(&r)
        );
    }

    #[test]
    fn a_crossing_is_said_under_the_table_of_the_row_that_overtakes() {
        let around = |m: f64| -> Vec<f64> {
            [0.99, 1.0, 1.01, 0.995, 1.005]
                .iter()
                .map(|f| f * m)
                .collect()
        };
        let at = |transport: &str, capacity: Option<usize>, m: f64| {
            let mut r = with_rates(stream(), &around(m));
            r.transport = transport.into();
            r.params.capacity = capacity;
            r
        };
        let r = report(vec![
            at("std-mpsc-poll", None, 10e6),
            at("crossbeam-bounded", Some(1024), 9.3e6),
            at("crossbeam-bounded", Some(8192), 11.2e6),
        ]);
        let v = build(&r);
        assert_eq!(v.groups.len(), 1);
        assert!(
            v.groups[0].notes.iter().any(|n| n
                == "crossbeam-bounded overtakes std-mpsc-poll between capacity 1024 and 8192 (0.93× → 1.12× its msgs/s; significant at both)"),
            "{:?}",
            v.groups[0].notes
        );
        let html = {
            let mut out = Vec::new();
            crate::output::Format::Html
                .exporter()
                .export(&r, &mut out)
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert!(
            html.contains("<p class=\"crossing\">crossbeam-bounded overtakes std-mpsc-poll"),
            "no crossing under the sweep chart"
        );
    }

    #[test]
    fn payloads_larger_than_a_cache_line_get_bytes_per_second_beside_msgs_per_second() {
        let names =
            |v: &View| -> Vec<&str> { v.groups[0].columns.iter().map(|c| c.name).collect() };
        let small = build(&report(vec![with_rates(stream(), &[1e6, 1e6, 1e6])]));
        assert!(!names(&small).contains(&"bytes/s"), "{:?}", names(&small));

        let mut large = with_rates(stream(), &[2e6, 2e6, 2e6]);
        large.params.payload = crate::payload::PayloadKind::Bytes(4096);
        large.params.payload_bytes = 4096;
        let v = build(&report(vec![large]));
        let columns = names(&v);
        let msgs = columns.iter().position(|c| *c == "msgs/s").expect("msgs/s");
        assert_eq!(columns[msgs + 1], "bytes/s", "{columns:?}");
        let row = &v.groups[0].ranked[0];
        assert_eq!(row.len(), columns.len());
        assert_eq!(row[msgs + 1], "8.19 GB/s");
    }

    #[test]
    fn a_submit_column_shows_only_for_several_producers_that_recorded_it() {
        let names =
            |v: &View| -> Vec<&str> { v.groups[0].columns.iter().map(|c| c.name).collect() };
        let submitted = |producers: usize| {
            let mut r = stream();
            r.params.producers = producers;
            r.submit = handoff_model::stats::Summary::of(&[3.0e6, 3.1e6, 2.9e6]);
            r
        };
        // One producer: its submit rate is the stream's own; no column.
        let one = build(&report(vec![submitted(1)]));
        assert!(!names(&one).contains(&"submit/s"), "{:?}", names(&one));
        let v = build(&report(vec![submitted(4)]));
        let columns = names(&v);
        let at = columns
            .iter()
            .position(|c| *c == "submit/s")
            .expect("submit/s");
        assert_eq!(v.groups[0].ranked[0][at], "3.00 M/s");
        assert_eq!(columns.last(), Some(&"lints"));
    }

    #[test]
    fn an_emulated_batch_is_listed_apart_from_native_ones() {
        let mut native = stream();
        native.transport = "native".into();
        native.semantics.batch = true;
        native.params.batch = Some(256);
        // Faster than the native one: it must still not be ranked with it.
        let mut emulated = with_rates(stream(), &[300e6, 300e6, 300e6, 300e6, 300e6]);
        emulated.transport = "one-by-one".into();
        emulated.params.batch = Some(256);
        let (ranked, apart) = parts(&report(vec![emulated, native.clone()]));
        assert_eq!(ranked, ["native"]);
        assert_eq!(
            apart,
            [(Apart::BatchEmulated, vec!["one-by-one".to_string()])]
        );

        // Every row native: nothing apart.
        let mut other = native.clone();
        other.transport = "other".into();
        let (ranked, apart) = parts(&report(vec![native, other]));
        assert_eq!(ranked, ["native", "other"]);
        assert!(apart.is_empty());
    }

    #[test]
    fn a_same_worker_ping_pong_is_not_ranked_with_cross_thread_ones() {
        let ping = |name: &str, driver: Driver, p50: u64, share: Option<f64>| {
            let mut r = stream();
            r.transport = name.into();
            r.workload = WorkloadKind::PingPong;
            r.params.driver = driver;
            r.latency = Some(latency(p50, 1_000_000));
            r.same_worker = share;
            r
        };
        let multi = ping("chan", Driver::TokioMulti { workers: 2 }, 207, Some(0.92));
        let mut current = ping("chan", Driver::TokioCurrent, 206, Some(1.0));
        current.semantics.locality = Locality::SameThread;
        let threads = ping("chan", Driver::Threads, 500, Some(0.0));
        let crossing = ping("chan-b", Driver::TokioMulti { workers: 2 }, 900, Some(0.3));
        let (ranked, apart) = parts(&report(vec![multi, current, threads, crossing]));
        assert_eq!(ranked, ["chan", "chan-b [tokio-multi:2]"]);
        assert_eq!(
            apart,
            [
                (Apart::SameThread, vec!["chan [tokio-current]".to_string()]),
                (Apart::SameWorker, vec!["chan [tokio-multi:2]".to_string()]),
            ]
        );
    }

    /// A trial of `stream()`'s parameters, open loop at `rate`.
    fn paced_spec(rate: u64) -> crate::workload::TrialSpec {
        let p = stream().params;
        crate::workload::TrialSpec {
            transport: "queue".into(),
            workload: WorkloadKind::Spsc,
            driver: p.driver,
            payload: p.payload,
            capacity: 1024,
            producers: p.producers,
            consumers: p.consumers,
            messages: crate::workload::Messages::Fixed(p.messages),
            batch: p.batch,
            options: p.options,
            samples: p.samples,
            warmup: p.warmup,
            timeout_ms: p.timeout_ms,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing: Pacing::Rate(rate),
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        }
    }

    /// The session's groups of trials and the report's tables share one key: rates that print
    /// alike but differ are two tables in both, equal rates one table in both.
    #[test]
    fn the_tables_and_the_groups_of_trials_agree_on_rates_that_print_alike() {
        let (slow, fast) = (1_000_000, 1_000_400);
        assert_eq!(fmt::rate(slow as f64), fmt::rate(fast as f64));
        let rates = [slow, fast, slow];

        // The session: tables kept whole in groups of two trials.
        let specs: Vec<_> = rates.iter().map(|&r| paced_spec(r)).collect();
        let keys: Vec<_> = specs.iter().map(crate::groups::table_key).collect();
        let (order, groups) = crate::groups::plan(&keys, 2);
        let session: Vec<Vec<usize>> = groups.into_iter().map(|g| order[g].to_vec()).collect();
        assert_eq!(session, [vec![0, 2], vec![1]]);

        // The report: one table per key, its rows the same trials.
        let results: Vec<TrialResult> = rates
            .iter()
            .map(|&rate| {
                let mut r = stream();
                r.params.pacing = Pacing::Rate(rate);
                r
            })
            .collect();
        for (spec, result) in specs.iter().zip(&results) {
            assert_eq!(crate::groups::table_key(spec), TableKey::of_result(result));
        }
        let view = build(&report(results));
        let mut tables: Vec<Vec<usize>> = view
            .groups
            .iter()
            .map(|g| {
                let mut rows: Vec<usize> = g.members.iter().map(|m| m.result).collect();
                rows.sort();
                rows
            })
            .collect();
        tables.sort();
        assert_eq!(tables, session);
        let titles: Vec<&str> = view.groups.iter().map(|g| g.title.as_str()).collect();
        assert!(titles[0].ends_with("at 1.00 M/s"), "{titles:?}");
        assert!(titles[1].ends_with("at 1.0004 M/s"), "{titles:?}");
    }

    /// The cells of the only group's first ranked row, by column name.
    fn first_row(v: &View) -> BTreeMap<&'static str, String> {
        let g = &v.groups[0];
        g.columns
            .iter()
            .map(|c| c.name)
            .zip(g.ranked[0].iter().cloned())
            .collect()
    }

    /// A paced row writes its rates and counts as every table does: three significant digits.
    #[test]
    fn a_paced_row_writes_rates_and_counts_with_three_digits() {
        use crate::outcome::HopFigures;
        let mut r = paced_result_at(20_000, 19_987.6);
        r.workload = WorkloadKind::Pipeline;
        r.params.messages = 452_540;
        r.params.pipeline = Some(PipelineSpec::over(vec![Hop {
            transport: "queue".into(),
            capacity: 1024,
        }]));
        let p = r.paced.as_mut().unwrap();
        (p.sent, p.fires, p.refused) = (452_540, Some(63_488), 1_234);
        p.hops = vec![HopFigures {
            transport: "queue".into(),
            capacity: Some(1024),
            samples: 100,
            mean: 10.0,
            p99: 1_000,
            max: 1_024,
            received: 452_540,
            wakeups: None,
        }];
        let v = build(&report(vec![r]));
        let row = first_row(&v);
        assert_eq!(row["achieved/s"], "20.0 k/s");
        assert_eq!(row["sent"], "453 k");
        assert_eq!(row["fires"], "63.5 k");
        assert_eq!(row["refused"], "1.23 k");
        assert_eq!(row["depth p99 per hop"], "1.00 k/1024");
        assert!(
            v.groups[0].params[1].starts_with("453 k msgs/sample"),
            "{:?}",
            v.groups[0].params
        );
        assert!(v.groups[0].title.ends_with("at 20.0 k/s · 1 hop of 1024"));
        // The lint under the table says the rate alike.
        let lint = crate::lints::Lint::RateMissed {
            requested: 20_000,
            achieved: 19_187.6,
        };
        assert_eq!(
            lint.to_string(),
            "achieved 19.2 k/s of 20.0 k/s requested (95.9%): the schedule was not kept"
        );
    }

    /// A ramp row: the rates it sustained and not, and its messages per step, in the one format.
    #[test]
    fn a_ramp_row_writes_rates_and_counts_with_three_digits() {
        use crate::open_loop::ramp::RampOutcome;
        use crate::report::RampResult;
        use crate::workload::RampSpec;
        let ramp = |transport: &str, sustained: u64, not_sustained: u64| {
            let mut r = paced_result_at(sustained, sustained as f64);
            r.transport = transport.into();
            r.workload = WorkloadKind::Ramp;
            r.params.pacing = Pacing::Ramp(RampSpec::default());
            r.params.messages = sustained / 2;
            r.ramp = Some(RampResult {
                search: RampOutcome {
                    sustained: Some(sustained),
                    not_sustained: Some(not_sustained),
                    ..RampOutcome::default()
                },
                saturating_hop: None,
            });
            r
        };
        let v = build(&report(vec![
            ramp("fast", 126_976, 179_571),
            ramp("slow", 1_000, 1_414),
        ]));
        let g = &v.groups[0];
        assert!(g.title.ends_with(" · ramp"), "{}", g.title);
        let at = |name: &str| g.columns.iter().position(|c| c.name == name).unwrap();
        let fast = &g.ranked[0];
        assert_eq!(fast[at("sustained/s")], "127 k/s");
        assert_eq!(fast[at("not sustained/s")], "180 k/s");
        assert_eq!(fast[at("msgs/sample")], "63.5 k");
        let slow = &g.ranked[1];
        assert_eq!(slow[at("sustained/s")], "1.00 k/s");
        assert_eq!(slow[at("not sustained/s")], "1.41 k/s");
        assert_eq!(slow[at("msgs/sample")], "500");
        let ceiling = crate::lints::Lint::RampCeiling { max: 1_024_000 };
        assert_eq!(
            ceiling.to_string(),
            "the ramp reached its highest rate (1.02 M/s) without finding a knee; raise `ramp.max`"
        );
    }

    /// A ramp soaked at the rate a 500 ms step sustained within its p99 bound of 20 ms (p99
    /// 12 ms); the soak's p99 was 40.6 ms. The row's latency at the sustained rate is the
    /// step's, which the bound judged; the soak's is in its windows and its lint.
    #[test]
    fn a_ramp_row_shows_the_latency_of_the_step_it_sustained() {
        let mut r = crate::lints::fixture::soaked_ramp(12_000_000, 40_600_000);
        r.lints = crate::lints::evaluate(
            &r,
            &crate::lints::Context {
                pin_requested: false,
                limits: None,
                environment: &environment(),
            },
        );
        // A second ramp whose soak held: a lint on every result would go to the header.
        let mut held = crate::lints::fixture::soaked_ramp(12_000_000, 15_000_000);
        held.transport = "held".into();
        let v = build(&report(vec![r.clone(), held]));
        let row = first_row(&v);
        assert_eq!(row["transport"], "queue");
        assert_eq!(row["sustained/s"], "128 k/s");
        assert_eq!(row["not sustained/s"], "256 k/s");
        assert_eq!(row["p50 @ sustained"], "3.00 ms");
        assert_eq!(row["p99 @ sustained"], "12.0 ms");
        assert!(row["lints"].contains("soak-not-sustained["), "{row:?}");
        let g = &v.groups[0];
        assert!(
            g.footnotes
                .iter()
                .any(|f| f.contains("p99 40.6 ms above the bound of 20.0 ms")),
            "{:?}",
            g.footnotes
        );
        // The soak's windows show its own latency.
        assert!(g.soaks[0].heading.starts_with("soak of queue"));
        assert!(g.soaks[0].rows.iter().all(|w| w[4] == "40.6 ms"));

        // A ramp whose search is lost shows its timed samples; one that sustained nothing, none.
        let mut lost = r.clone();
        lost.ramp.as_mut().unwrap().search.steps.clear();
        assert_eq!(
            first_row(&build(&report(vec![lost])))["p99 @ sustained"],
            "40.6 ms"
        );
        let mut none = r;
        none.ramp.as_mut().unwrap().search.sustained = None;
        let row = first_row(&build(&report(vec![none])));
        assert_eq!(
            (row["sustained/s"].as_str(), row["p99 @ sustained"].as_str()),
            ("none", "–")
        );
    }

    #[test]
    fn a_pipeline_title_counts_its_hops() {
        use crate::workload::{Hop, Pacing, PipelineSpec, WorkloadKind};
        let hop = |capacity| Hop {
            transport: "queue".into(),
            capacity,
        };
        let mut r = stream();
        r.workload = WorkloadKind::Pipeline;
        r.params.pacing = Pacing::Rate(1000);
        r.params.pipeline = Some(PipelineSpec::over(vec![hop(1024)]));
        assert!(title(&r).ends_with(" · 1 hop of 1024"), "{}", title(&r));
        r.params.pipeline = Some(PipelineSpec::over(vec![hop(64), hop(1024)]));
        assert!(title(&r).ends_with(" · 2 hops of 64/1024"), "{}", title(&r));
    }
}
