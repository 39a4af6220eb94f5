//! A session: runs a list of trials and turns their samples into a [`RunReport`].
//!
//! Order of work:
//! 1. limit probes (cache-line round trip, streaming bandwidth);
//! 2. the trials, in groups of at most
//!    `groups::live_worker_limit` (one group when they run
//!    in process; a table's trials together, see `crate::groups`), one group after the other;
//!    in each group:
//!    1. per trial: start its executor (a worker process, as its first sample needs it),
//!       calibrate the message count if it is `auto` (the pilot samples double as warm-up);
//!    2. under consensus, one count for every trial of a stream (see [`crate::consensus`]; with
//!       several groups, every trial is calibrated first, before any group runs);
//!    3. per trial, the requested warm-up samples at the count it will run;
//!    4. timed samples, interleaved across the group's trials (round 1 of A, B, C, then round
//!       2 …) so drift of a shared machine hits every transport alike; then the ramps;
//!    5. the group's workers closed, the limits probed again ([`Event::Reprobed`]), and per
//!       trial its result: verdict, statistics, figures and the distance to the limits of the
//!       probe nearest in time to the group's timed samples (before the group or after it), then
//!       the lints over that result (see `crate::lints`), each said ([`Event::TrialDone`]) as
//!       soon as it is final;
//! 3. under consensus, the comparison of the results' digests.
//!
//! A paired run ([`SessionOptions::against`]) runs every trial on a second build as well: each
//! trial's twin on that build sits next to it in its group, follows its count and layout seeds,
//! and takes turns with it within each round (see `schedule`); the twins' results go to
//! [`RunReport::paired`].
//!
//! A trial whose sample is not `pass` stops there with that verdict; every other trial goes on,
//! and every figure already measured is kept.
//!
//! [`run`] follows the order of work above; the scheduling (groups, calibration, warm-up, rounds,
//! ramps) is in `schedule`, the turning of a trial's samples into its result in `summary`.

mod schedule;
mod summary;

use crate::catalog::Catalog;
use crate::consensus;
use crate::executor::WorkerCommand;
use crate::layout::LayoutMode;
use crate::outcome::SampleOutcome;
use crate::probes::{self, Limits, ProbeBudget};
use crate::report::{PairedBuild, RunReport, TrialResult};
use crate::time::now_rfc3339;
use crate::workload::TrialSpec;
use schedule::{Launcher, Side, Trial};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Where trials run.
#[derive(Clone, Debug)]
pub enum Isolation {
    /// In this process (see `InProcess`).
    InProcess,
    /// Each trial in a child process started with this command (see
    /// [`Child`](crate::executor::Child)).
    Subprocess(WorkerCommand),
}

/// How a session runs.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Where trials run.
    pub isolation: Isolation,
    /// Limit probe budget; `None` skips the probes.
    pub probes: Option<ProbeBudget>,
    /// Name of the suite, recorded in the report.
    pub suite: String,
    /// How samples are placed in memory (see [`crate::layout`]).
    pub layout: LayoutMode,
    /// Whether every trial of a stream runs one message count and the report compares their
    /// digests (see [`crate::consensus`]).
    pub consensus: bool,
    /// Another build to run every trial on as well, paired sample by sample (see [`Against`]);
    /// `None` runs this build alone.
    pub against: Option<Against>,
}

impl SessionOptions {
    /// Options for running a suite named `suite` in this process, as an embedding program or a
    /// test does: trials on this process's threads, no limit probes, the fixed memory layout,
    /// no consensus check and no other build. Change a field with struct update syntax:
    /// `SessionOptions { consensus: true, ..SessionOptions::in_process("mine") }`.
    pub fn in_process(suite: impl Into<String>) -> SessionOptions {
        SessionOptions {
            isolation: Isolation::InProcess,
            probes: None,
            suite: suite.into(),
            layout: LayoutMode::Fixed,
            consensus: false,
            against: None,
        }
    }
}

/// The other build of a paired run (`handoff run --against`).
///
/// Every trial runs on both builds' workers, each sample in a worker process of its own (as
/// `fresh_process`), so that no worker's placement in memory lasts a whole run on one side.
/// This build's trial calibrates; its twin on the other build runs the same message count,
/// warm-up and layout seeds; in each round of timed samples the two take turns going first
/// (A B, then B A …). Sample `k` of the two sides is then a pair that the machine's drift hit
/// alike, which a paired test can judge
/// ([`mod@crate::compare::paired`]). Both builds' workers are child processes: with
/// [`Isolation::InProcess`] this build's trials would run in a different setting from the
/// other's, so a paired run should use [`Isolation::Subprocess`].
#[derive(Clone, Debug)]
pub struct Against {
    /// What was named (an executable, a git revision), for the report.
    pub label: String,
    /// The commit the other build was built from, when it is known.
    pub commit: Option<String>,
    /// Its worker command (its executable with `__worker` and the same plugins).
    pub worker: WorkerCommand,
    /// The code identity of each transport's trials in that build (`handoff __code` of its
    /// executable), by transport name; empty when it could not say.
    pub code: std::collections::BTreeMap<String, crate::report::CodeIdentity>,
    /// Each side linked in several function orders, when asked (`--link-orders`); `None` runs
    /// this executable and [`Self::worker`] as they are.
    pub orders: Option<OrderedBuilds>,
}

/// Both builds of a paired run, each linked in the same number of function orders
/// (`--link-orders`): timed sample `k` of a trial runs, on each side, in the worker of order
/// `k mod len` (untimed samples cycle through the orders too), so the placement of the code is
/// sampled with the machine's noise and the comparison judges the change against the spread
/// between orders (see [`mod@crate::compare::link_orders`]).
#[derive(Clone, Debug)]
pub struct OrderedBuilds {
    /// This build's worker command in each order.
    pub this: Vec<WorkerCommand>,
    /// The other build's, as many.
    pub other: Vec<WorkerCommand>,
}

impl OrderedBuilds {
    /// The number of orders (the fewer of the two sides', at least 1).
    pub fn len(&self) -> usize {
        self.this.len().min(self.other.len()).max(1)
    }

    /// Whether there is no order at all (never, for a run: [`Self::len`] is at least 1).
    pub fn is_empty(&self) -> bool {
        self.this.is_empty() || self.other.is_empty()
    }
}

/// Progress events, for a progress display.
#[derive(Debug)]
pub enum Event<'a> {
    /// The limit probes are starting.
    ProbesStarted,
    /// The limit probes finished.
    ProbesDone(&'a Limits),
    /// The limits were probed again, after a group of trials (see [`RunReport::reprobes`]).
    Reprobed(&'a Limits),
    /// A trial is being prepared (calibration and warm-up).
    Preparing {
        /// Trial index.
        trial: usize,
        /// Its label.
        label: &'a str,
    },
    /// A sample finished (warm-up or timed).
    Sample {
        /// Trial index.
        trial: usize,
        /// Its label.
        label: &'a str,
        /// Whether it was timed.
        timed: bool,
        /// What it produced.
        outcome: &'a SampleOutcome,
    },
    /// Units of work (samples) expected in all, updated as calibration settles and as ramps
    /// end their searches.
    Planned {
        /// Timed samples planned over all trials.
        timed_samples: usize,
        /// Per trial (by trial index), its timed samples and how long each is scheduled to take.
        trials: &'a [TrialPlan],
    },
    /// Under consensus: every trial of a stream runs this count.
    CountFixed {
        /// The stream (see [`crate::consensus::StreamKey`]).
        stream: &'a str,
        /// Messages per sample.
        messages: u64,
        /// Trials that run it.
        trials: usize,
    },
    /// A trial is done: its result is final (the run's consensus and shared regimes, judged
    /// over every result, come with the report).
    TrialDone {
        /// Trial index.
        trial: usize,
        /// Its result.
        result: &'a TrialResult,
    },
    /// A round of interleaved timed samples finished (one sample of every trial still running).
    RoundDone {
        /// Rounds finished, from 1.
        round: usize,
        /// Rounds in all (the most timed samples any trial of the group takes).
        rounds: usize,
        /// The group of trials whose round it was, from 1, and the groups in all (see
        /// `groups::live_worker_limit`); `(1, 1)` when every
        /// trial runs in one.
        group: (usize, usize),
    },
}

/// One trial's samples as the session plans them: what a progress display needs to say how long
/// is left. An open-loop sample lasts as long as its schedule (its messages over its rate), so
/// an open-loop trial's time is known before it runs: its warm-ups, its timed samples, a ramp's
/// steps and the soak that may follow them. A closed loop goes as fast as the transport does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrialPlan {
    /// Timed samples (for a ramp, its steps and then its soak, if it has one: an estimate until
    /// its search ends).
    pub samples: usize,
    /// How long one of them lasts by its schedule, for an open-loop trial (its message count
    /// over its rate; for a ramp, a step's, on average over the steps planned: a slow step runs
    /// at least a fixed count); `None` for a closed loop.
    pub scheduled: Option<Duration>,
    /// Of the timed samples, the last `soaks` are a ramp's soaks at the rate it sustained, each
    /// lasting `soak` (one; two in a paired run, where the first build's comes after its own
    /// steps, before the other build's, and is counted as last until then).
    pub soaks: usize,
    /// How long a ramp's soak lasts.
    pub soak: Duration,
    /// Warm-up samples, run before the timed ones (a closed loop's calibration pilots, which
    /// double as warm-up, are not counted).
    pub warmups: usize,
    /// How long one warm-up lasts by its schedule, for an open-loop trial (a soak's warms up for
    /// one window, a ramp's for one step at its first rate); `None` for a closed loop.
    pub warmup: Option<Duration>,
    /// Whether it is a ramp, whose step count is known only when its search ends.
    pub ramp: bool,
    /// Whether every search of a ramp has ended (its steps are then counted as run).
    pub searched: bool,
}

impl TrialPlan {
    /// The plan of one trial of `spec` (on one build), whose ramp search, if it has ended, is
    /// `search`.
    pub fn of(spec: &TrialSpec, search: Option<&crate::open_loop::ramp::RampOutcome>) -> TrialPlan {
        schedule::plan_of(spec, search)
    }

    /// The scheduled time of an open-loop trial's samples not yet run, after `warmed` warm-ups
    /// and `timed` timed samples (`None` for a closed loop): the warm-ups left, the steps or
    /// samples left, and the soaks left (a ramp's last samples).
    pub fn scheduled_left(&self, warmed: usize, timed: usize) -> Option<Duration> {
        let each = self.scheduled?;
        let warmups = self.warmups.saturating_sub(warmed) as u32;
        let left = self.samples.saturating_sub(timed);
        let soaks = left.min(self.soaks);
        Some(
            self.warmup.unwrap_or(each) * warmups
                + each * (left - soaks) as u32
                + self.soak * soaks as u32,
        )
    }
}

/// Runs `specs` and reports. Names must already be valid in `catalog` (an unknown name is
/// reported as an `invalid` result, not a panic).
pub fn run(
    catalog: &Catalog,
    specs: Vec<TrialSpec>,
    opts: &SessionOptions,
    on: &mut dyn FnMut(Event),
) -> RunReport {
    let started = Instant::now();
    let started_at = now_rfc3339();
    let environment = crate::environment::detect();
    let probe = |budget| {
        let from = started.elapsed();
        let mut l = probes::measure(budget);
        l.at_s = Some(middle(from, started.elapsed()));
        l
    };
    let limits = opts.probes.map(|b| {
        on(Event::ProbesStarted);
        let l = probe(b);
        on(Event::ProbesDone(&l));
        l
    });
    let mut reprobes: Vec<Limits> = Vec::new();

    let paired = opts.against.is_some();
    let launcher = Rc::new(Launcher {
        catalog: catalog.clone(),
        isolation: opts.isolation.clone(),
        other: opts.against.as_ref().map(|a| a.worker.clone()),
        orders: opts.against.as_ref().and_then(|a| a.orders.clone()),
    });
    let (order, ranges) = schedule::groups(&specs, &opts.isolation, paired);
    // In a paired run every sample runs in a worker process of its own: a worker's placement in
    // memory (its address space, its allocator's state) lasts as long as the process, so two
    // long-lived workers would differ in it for the whole run, and that difference would pass
    // for the builds'. Measured on a spinning ring with nothing planted, 25 paired runs each: 6
    // false alarms with one worker per side, none with a fresh one per sample
    // (docs/compare.md). So both sides start every sample alike, this build's calibration
    // pilots included.
    let specs = specs.into_iter().map(|mut s| {
        s.fresh_process |= paired;
        s
    });
    let mut specs: Vec<Option<TrialSpec>> = specs.map(Some).collect();
    // The trials in the order they run: each group's trials side by side, in a paired run each
    // trial followed by its twin on the other build.
    let mut trials: Vec<Trial> = Vec::with_capacity(order.len() * (1 + paired as usize));
    let mut ranges = ranges;
    for range in ranges.iter_mut() {
        let from = trials.len();
        for &i in &order[range.clone()] {
            let Some(spec) = specs[i].take() else {
                continue;
            };
            if paired {
                trials.push(Trial::new(
                    i,
                    &launcher,
                    &opts.layout,
                    spec.clone(),
                    Side::This,
                ));
                trials.push(Trial::new(i, &launcher, &opts.layout, spec, Side::Other));
            } else {
                trials.push(Trial::new(i, &launcher, &opts.layout, spec, Side::This));
            }
        }
        *range = from..trials.len();
    }
    let mut plan = schedule::planned(&trials);
    on(Event::Planned {
        timed_samples: plan.iter().map(|p| p.samples).sum(),
        trials: &plan,
    });
    // Under consensus every trial of a stream is calibrated before any runs its count: with
    // several groups, all are calibrated first, each group's workers closed after it.
    let calibrate_first = opts.consensus && ranges.len() > 1;
    if calibrate_first {
        for range in &ranges {
            let group = &mut trials[range.clone()];
            schedule::calibrate_all(group, on);
            schedule::close_all(group);
        }
        schedule::one_count_per_stream(&mut trials, on);
        schedule::pair_up(&mut trials);
    }
    let slots = order.len();
    let mut results: Vec<Option<TrialResult>> = vec![None; slots];
    let mut twins: Vec<Option<TrialResult>> = vec![None; slots];
    for (g, range) in ranges.iter().enumerate() {
        let group = &mut trials[range.clone()];
        if !calibrate_first {
            schedule::calibrate_all(group, on);
            if opts.consensus {
                schedule::one_count_per_stream(group, on);
            }
            schedule::pair_up(group);
        }
        schedule::warm_up_all(group, on);
        let timed_from = started.elapsed();
        schedule::run_rounds(group, (g + 1, ranges.len()), on);
        schedule::run_ramps(group, &mut plan, on);
        let timed = middle(timed_from, started.elapsed());
        schedule::close_all(group);
        // The machine may have changed state while the group ran (a VM's fast and slow hours):
        // probed again with no worker running, each result is judged against the probe nearest
        // in time to its timed samples.
        if let (Some(b), Some(_)) = (opts.probes, &limits) {
            let l = probe(b);
            on(Event::Reprobed(&l));
            reprobes.push(l);
        }
        let judged = nearest(limits.as_ref(), &reprobes, timed);
        // The group's trials are done: their results are final, and said as they are.
        for t in group.iter() {
            let mut result = summary::summarise(catalog, t.ran(), judged, &environment);
            if t.side == Side::Other {
                result.code = opts
                    .against
                    .as_ref()
                    .and_then(|a| a.code.get(&result.transport).cloned());
                twins[t.index] = Some(result);
                continue;
            }
            result.code = catalog
                .get(&result.transport)
                .and_then(crate::code::identity);
            on(Event::TrialDone {
                trial: t.index,
                result: &result,
            });
            results[t.index] = Some(result);
        }
        plan = schedule::planned(&trials);
        on(Event::Planned {
            timed_samples: plan.iter().map(|p| p.samples).sum(),
            trials: &plan,
        });
    }
    let other_build = opts.against.as_ref().map(|a| PairedBuild {
        label: a.label.clone(),
        commit: a.commit.clone(),
        results: twins.into_iter().flatten().collect(),
        link_orders: a.orders.as_ref().map_or(0, OrderedBuilds::len),
    });
    let results: Vec<TrialResult> = results.into_iter().flatten().collect();

    let consensus = opts.consensus.then(|| consensus::judge(&results));
    let shared_regimes = crate::stats::shared_regimes::detect(&results);
    RunReport {
        schema_version: crate::report::SCHEMA_VERSION,
        started_at,
        duration_s: started.elapsed().as_secs_f64(),
        suite: opts.suite.clone(),
        environment,
        limits,
        reprobes,
        layout: Some(opts.layout),
        results,
        consensus,
        shared_regimes,
        gates: Vec::new(),
        paired: other_build,
    }
}

/// Seconds from the run's start to the middle of the span from `from` to `to`.
fn middle(from: Duration, to: Duration) -> f64 {
    (from.as_secs_f64() + to.as_secs_f64()) / 2.0
}

/// The probe nearest in time to `at` (seconds from the run's start): the first probe
/// (`first`, with no re-probe index) or one of the `reprobes` (with its index). The first wins a
/// tie; `None` when the limits were not probed.
fn nearest<'a>(
    first: Option<&'a Limits>,
    reprobes: &'a [Limits],
    at: f64,
) -> Option<summary::Judged<'a>> {
    let first = first?;
    let distance = |l: &Limits| l.at_s.map_or(f64::INFINITY, |t| (t - at).abs());
    let mut best = summary::Judged {
        limits: first,
        reprobe: None,
    };
    for (i, l) in reprobes.iter().enumerate() {
        if distance(l) < distance(best.limits) {
            best = summary::Judged {
                limits: l,
                reprobe: Some(i),
            };
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe_at(at_s: f64) -> Limits {
        Limits {
            at_s: Some(at_s),
            ..crate::lints::fixture::limits(Some(70.0), None)
        }
    }

    #[test]
    fn each_group_is_judged_against_the_probe_nearest_its_timed_samples() {
        let first = probe_at(0.3);
        let reprobes = [probe_at(17.0), probe_at(41.0)];
        let which = |at| nearest(Some(&first), &reprobes, at).map(|j| j.reprobe);
        // The first group's samples ran from 3 s to 16 s, the group's probe right after it:
        // the middle of the samples is nearer that probe than the one before the trials.
        assert_eq!(which(9.5), Some(Some(0)));
        // Early samples stay with the first probe; a tie goes to it too.
        assert_eq!(which(5.0), Some(None));
        assert_eq!(which(8.65), Some(None));
        assert_eq!(which(35.0), Some(Some(1)));
        // No probes, nothing to judge against.
        assert!(nearest(None, &reprobes, 9.5).is_none());
    }
}
