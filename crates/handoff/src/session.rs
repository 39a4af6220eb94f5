//! A session: runs a list of trials and turns their samples into a [`RunReport`].
//!
//! Order of work:
//! 1. limit probes (cache-line round trip, streaming bandwidth);
//! 2. the trials, in groups of at most [`groups::live_worker_limit`] (one group when they run
//!    in process; a table's trials together, see [`crate::groups`]), one group after the
//!    other; in each group:
//!    1. per trial: start its executor (a worker process, as its first sample needs it),
//!       calibrate the message count if it is `auto` (the pilot samples double as warm-up);
//!    2. under consensus, one count for every trial of a stream (see [`crate::consensus`]; with
//!       several groups, every trial is calibrated first, before any group runs);
//!    3. per trial, the requested warm-up samples at the count it will run;
//!    4. timed samples, interleaved across the group's trials (round 1 of A, B, C, then round
//!       2 …) so drift of a shared machine hits every transport alike; then the ramps;
//!    5. the group's workers closed, and per trial its result: verdict, statistics, figures and
//!       limit distances, then the lints over that result (see [`crate::lints`]), each said
//!       ([`Event::TrialDone`]) as soon as it is final;
//! 3. under consensus, the comparison of the results' digests.
//!
//! A trial whose sample is not `pass` stops there with that verdict; every other trial goes on,
//! and every figure already measured is kept.

use crate::catalog::Catalog;
use crate::consensus::{self, StreamKey};
use crate::environment::Environment;
use crate::executor::{Child, Executor, InProcess, Printed, SampleRequest, WorkerCommand};
use crate::groups;
use crate::histogram;
use crate::layout::{LayoutMode, LayoutSequence};
use crate::lints;
use crate::memory::MemoryFigures;
use crate::open_loop::ramp::{self, RampOutcome, StepFigures};
use crate::outcome::{SampleOutcome, SampleStatus, WorkerShare};
use crate::placement::Placement;
use crate::probes::{self, Limits, ProbeBudget};
use crate::report::{
    Latency, LimitDistance, PacedResult, Params, RampResult, RawSample, RunReport, TrialResult,
    Verdict, MOSTLY_SAME_WORKER,
};
use crate::semantics::{Bound, Locality, Semantics};
use crate::stats::modes::{self, Modes};
use crate::stats::Summary;
use crate::workload::{Driver, Messages, Pacing, RampSpec, TrialSpec, WorkloadKind};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where trials run.
#[derive(Clone, Debug)]
pub enum Isolation {
    /// In this process (see [`InProcess`]).
    InProcess,
    /// Each trial in a child process started with this command (see [`Child`]).
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
}

/// Progress events, for a progress display.
#[derive(Debug)]
pub enum Event<'a> {
    /// The limit probes are starting.
    ProbesStarted,
    /// The limit probes finished.
    ProbesDone(&'a Limits),
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
    /// Units of work (samples) expected in all, updated as calibration settles.
    Planned {
        /// Timed samples planned over all trials.
        timed_samples: usize,
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
        /// [`groups::live_worker_limit`]); `(1, 1)` when every trial runs in one.
        group: (usize, usize),
    },
}

/// Pilot samples allowed while calibrating an `auto` message count.
const MAX_PILOTS: usize = 6;

/// What starts a trial's executor.
struct Launcher {
    catalog: Catalog,
    isolation: Isolation,
}

struct Trial {
    /// Its place in the plan (and in the report).
    index: usize,
    spec: TrialSpec,
    launcher: Rc<Launcher>,
    /// Started when the trial first needs it, closed when its group ends (or the trial stops).
    exec: Option<Box<dyn Executor>>,
    /// The seeds of this trial's samples.
    layouts: LayoutSequence,
    messages: u64,
    outcomes: Vec<SampleOutcome>,
    stop: Option<SampleOutcome>,
    last_placement: Placement,
    ramp: Option<RampOutcome>,
    /// What its workers printed.
    printed: Arc<Mutex<Printed>>,
}

/// Fewest messages in one step of a ramp.
const MIN_STEP_MESSAGES: u64 = 200;

/// Steps planned for a ramp before it runs (for the progress display).
fn planned_ramp_steps(r: &RampSpec) -> usize {
    let coarse = ((r.max as f64 / r.start.max(1) as f64).ln() / (r.factor.max(2) as f64).ln())
        .ceil()
        .clamp(1.0, 40.0) as usize;
    coarse.min(12) + r.refine as usize
}

/// Messages in one step of a ramp at `rate`.
fn step_messages(r: &RampSpec, rate: u64) -> u64 {
    (rate.saturating_mul(r.step_ms) / 1000).max(MIN_STEP_MESSAGES)
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
    let environment = Environment::detect();
    let limits = opts.probes.map(|b| {
        on(Event::ProbesStarted);
        let l = probes::measure(b);
        on(Event::ProbesDone(&l));
        l
    });

    let launcher = Rc::new(Launcher {
        catalog: catalog.clone(),
        isolation: opts.isolation.clone(),
    });
    let limit = match opts.isolation {
        Isolation::InProcess => specs.len(),
        Isolation::Subprocess(_) => groups::live_worker_limit(),
    };
    let (order, ranges) = groups::plan(
        &specs.iter().map(groups::table_key).collect::<Vec<_>>(),
        limit,
    );
    let mut specs: Vec<Option<TrialSpec>> = specs.into_iter().map(Some).collect();
    // The trials in the order they run: each group's trials side by side.
    let mut trials: Vec<Trial> = order
        .iter()
        .filter_map(|&i| Some(Trial::new(i, &launcher, &opts.layout, specs[i].take()?)))
        .collect();
    on(Event::Planned {
        timed_samples: planned(&trials),
    });
    // Under consensus every trial of a stream is calibrated before any runs its count: with
    // several groups, all are calibrated first, each group's workers closed after it.
    let calibrate_first = opts.consensus && ranges.len() > 1;
    if calibrate_first {
        for range in &ranges {
            let group = &mut trials[range.clone()];
            calibrate_all(group, on);
            close_all(group);
        }
        one_count_per_stream(&mut trials, on);
    }
    let mut results: Vec<Option<TrialResult>> = vec![None; trials.len()];
    for (g, range) in ranges.iter().enumerate() {
        let group = &mut trials[range.clone()];
        if !calibrate_first {
            calibrate_all(group, on);
            if opts.consensus {
                one_count_per_stream(group, on);
            }
        }
        warm_up_all(group, on);
        run_rounds(group, (g + 1, ranges.len()), on);
        run_ramps(group, on);
        close_all(group);
        // The group's trials are done: their results are final, and said as they are.
        for t in group.iter() {
            let result = summarise(catalog, t, limits.as_ref(), &environment);
            on(Event::TrialDone {
                trial: t.index,
                result: &result,
            });
            results[t.index] = Some(result);
        }
        on(Event::Planned {
            timed_samples: planned(&trials),
        });
    }
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
        layout: Some(opts.layout),
        results,
        consensus,
        shared_regimes,
        gates: Vec::new(),
    }
}

impl Trial {
    /// A trial of `spec`; its executor starts with its first sample.
    fn new(index: usize, launcher: &Rc<Launcher>, layout: &LayoutMode, spec: TrialSpec) -> Trial {
        Trial {
            index,
            layouts: layout.sequence(&spec.label()),
            spec,
            launcher: launcher.clone(),
            exec: None,
            messages: 0,
            outcomes: Vec::new(),
            stop: None,
            last_placement: Placement::default(),
            ramp: None,
            printed: Arc::default(),
        }
    }

    /// This trial's executor, started if it is not (one that refuses every sample if the
    /// transport is unknown).
    fn executor(&mut self) -> &mut dyn Executor {
        let exec = self.exec.get_or_insert_with(|| {
            let Launcher { catalog, isolation } = &*self.launcher;
            match (isolation, catalog.lookup(&self.spec.transport)) {
                (_, Err(e)) => Box::new(Refuse(e.to_string())),
                (Isolation::InProcess, Ok(_)) => {
                    Box::new(InProcess::new(catalog.clone(), self.spec.clone()))
                }
                (Isolation::Subprocess(cmd), Ok(_)) => {
                    Box::new(Child::start(cmd, self.spec.clone(), self.printed.clone()))
                }
            }
        });
        &mut **exec
    }

    /// Closes the executor, if one is running.
    fn close(&mut self) {
        if let Some(mut exec) = self.exec.take() {
            exec.close();
        }
    }

    /// Runs one sample of `messages` (at `rate`, for an open-loop step) under this trial's next
    /// layout.
    fn sample(&mut self, messages: u64, rate: Option<u64>) -> SampleOutcome {
        let request = SampleRequest {
            messages,
            rate,
            layout: self.layouts.next_seed(),
        };
        let outcome = self.executor().run(request);
        if self.spec.fresh_process {
            // The next sample starts a worker of its own.
            self.close();
        }
        outcome
    }

    fn is_ramp(&self) -> bool {
        matches!(self.spec.pacing, Pacing::Ramp(_))
    }
}

/// Closes the executors of `trials`.
fn close_all(trials: &mut [Trial]) {
    trials.iter_mut().for_each(Trial::close);
}

/// Timed samples planned over all trials (a ramp's steps count as its samples).
fn planned(trials: &[Trial]) -> usize {
    trials
        .iter()
        .map(|t| match (&t.spec.pacing, &t.ramp) {
            (Pacing::Ramp(_), Some(done)) => done.steps.len(),
            (Pacing::Ramp(r), None) => planned_ramp_steps(r),
            _ => t.spec.samples,
        })
        .sum()
}

/// Calibrates every trial, in order; a trial that stops there is closed.
fn calibrate_all(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        let i = t.index;
        let label = t.spec.label();
        on(Event::Preparing {
            trial: i,
            label: &label,
        });
        calibrate(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: false,
                outcome: o,
            })
        });
        if t.stop.is_some() {
            t.close();
        }
    }
}

/// Runs every trial's warm-up samples, in order; a trial that stops there is closed.
fn warm_up_all(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        if t.stop.is_some() {
            continue;
        }
        let i = t.index;
        let label = t.spec.label();
        warm_up(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: false,
                outcome: o,
            })
        });
        if t.stop.is_some() {
            t.close();
        }
    }
}

/// Consensus: every trial of a stream runs the one count of [`consensus::count`] (the smallest
/// calibrated). Ramps and `latest` pipelines keep theirs: they are not compared.
fn one_count_per_stream(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    let keys: Vec<(Option<StreamKey>, Option<u64>)> = trials
        .iter()
        .map(|t| {
            (
                StreamKey::of_spec(&t.spec).ok(),
                t.stop.is_none().then_some(t.messages),
            )
        })
        .collect();
    let counts = consensus::count::unify(&keys);
    let mut said: Vec<&StreamKey> = Vec::new();
    for ((t, n), (key, _)) in trials.iter_mut().zip(&counts).zip(&keys) {
        let (Some(n), Some(key)) = (n, key) else {
            continue;
        };
        t.messages = *n;
        if !said.contains(&key) {
            said.push(key);
            let members = counts
                .iter()
                .zip(&keys)
                .filter(|(c, (k, _))| c.is_some() && k.as_ref() == Some(key))
                .count();
            on(Event::CountFixed {
                stream: &key.to_string(),
                messages: *n,
                trials: members,
            });
        }
    }
}

/// The timed samples of every trial but the ramps, interleaved: round 1 of each trial, then
/// round 2 … A trial stops at its first sample that does not pass.
fn run_rounds(trials: &mut [Trial], group: (usize, usize), on: &mut dyn FnMut(Event)) {
    let rounds = trials
        .iter()
        .filter(|t| !t.is_ramp())
        .map(|t| t.spec.samples)
        .max()
        .unwrap_or(0);
    for round in 0..rounds {
        for t in trials.iter_mut() {
            if t.stop.is_some() || round >= t.spec.samples || t.is_ramp() {
                continue;
            }
            let i = t.index;
            let o = t.sample(t.messages, None);
            let label = t.spec.label();
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: true,
                outcome: &o,
            });
            t.last_placement = o.placement.clone();
            if !o.status.is_pass() {
                t.stop = Some(o);
                t.close();
            } else {
                t.outcomes.push(o);
            }
        }
        on(Event::RoundDone {
            round: round + 1,
            rounds,
            group,
        });
    }
}

/// The ramps' searches: a search is sequential by nature, so each runs on its own after the
/// rounds.
fn run_ramps(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        if !t.is_ramp() || t.stop.is_some() {
            continue;
        }
        let i = t.index;
        let label = t.spec.label();
        run_ramp(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: true,
                outcome: o,
            })
        });
        t.close();
    }
}

/// An executor for a trial whose transport name is unknown.
struct Refuse(String);

impl Executor for Refuse {
    fn run(&mut self, _request: SampleRequest) -> SampleOutcome {
        SampleOutcome::status_only(SampleStatus::Invalid(self.0.clone()), Placement::default())
    }
}

/// Runs a ramp's search; the samples of the highest rate sustained become the trial's timed
/// samples, so its figures are the ones reported.
fn run_ramp(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let Pacing::Ramp(spec) = t.spec.pacing.clone() else {
        return;
    };
    let mut kept: Vec<(u64, SampleOutcome)> = Vec::new();
    let mut last_placement = t.last_placement.clone();
    let (search, err) = ramp::search(&spec, |rate| {
        let o = t.sample(step_messages(&spec, rate), Some(rate));
        on(&o);
        last_placement = o.placement.clone();
        if !o.status.is_pass() {
            return Err(Box::new(o));
        }
        let f = step_figures(rate, &o);
        kept.push((rate, o));
        Ok(f)
    });
    t.last_placement = last_placement;
    if let Some(best) = search.sustained {
        t.outcomes = kept
            .into_iter()
            .filter(|(r, o)| *r == best && ramp_step_sustained(&spec, r, o))
            .map(|(_, o)| o)
            .collect();
        t.messages = step_messages(&spec, best);
    }
    t.stop = err.map(|o| *o);
    t.ramp = Some(search);
}

fn ramp_step_sustained(spec: &RampSpec, rate: &u64, o: &SampleOutcome) -> bool {
    ramp::judge(spec, &step_figures(*rate, o)).is_ok()
}

/// The figures a ramp judges a step by.
fn step_figures(rate: u64, o: &SampleOutcome) -> StepFigures {
    let h = o.latency.as_deref().and_then(|e| histogram::decode(e).ok());
    let q = |q: f64| h.as_ref().map_or(0, |h| h.value_at_quantile(q));
    let paced = o.paced.as_deref();
    StepFigures {
        requested: rate,
        achieved: paced.map_or(0.0, |p| p.achieved_rate),
        refused: paced.map_or(0, |p| p.refused),
        delivered: o.messages,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        p999: q(0.999),
        max: h.as_ref().map_or(0, |h| h.max()),
        hop_fill: paced.map_or(Vec::new(), |p| p.hops.iter().map(|h| h.fill()).collect()),
        hop_depth: paced.map_or(Vec::new(), |p| p.hops.iter().map(|h| h.mean).collect()),
    }
}

/// The rate of a ramp's first step, at which it calibrates and warms up.
fn ramp_start(t: &Trial) -> Option<u64> {
    match &t.spec.pacing {
        Pacing::Ramp(r) => Some(r.start),
        _ => None,
    }
}

/// Runs one untimed sample of `n` messages; a sample that does not pass stops the trial.
fn untimed(t: &mut Trial, n: u64, on: &mut dyn FnMut(&SampleOutcome)) -> Option<SampleOutcome> {
    let o = t.sample(n, ramp_start(t));
    on(&o);
    t.last_placement = o.placement.clone();
    if o.status.is_pass() {
        Some(o)
    } else {
        t.stop = Some(o);
        None
    }
}

/// Runs the warm-up samples at the trial's count.
fn warm_up(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    for _ in 0..t.spec.warmup {
        if untimed(t, t.messages, on).is_none() {
            return;
        }
    }
}

/// Calibrates the message count (the pilots double as warm-up).
fn calibrate(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let mut run = |t: &mut Trial, n: u64| untimed(t, n, on);
    t.messages = match (&t.spec.pacing, t.spec.messages) {
        // Open loop: a sample lasts as long as its schedule, so no pilot is needed.
        (Pacing::Ramp(r), _) => step_messages(r, r.start),
        (Pacing::Rate(_), Messages::Fixed(n)) => n,
        (
            Pacing::Rate(rate),
            Messages::Auto {
                target_ms,
                min,
                max,
            },
        ) => round_count((rate.saturating_mul(target_ms) / 1000).clamp(min.max(1), max)),
        (Pacing::Closed, Messages::Fixed(n)) => n,
        (
            Pacing::Closed,
            Messages::Auto {
                target_ms,
                min,
                max,
            },
        ) => {
            let target = target_ms as f64 * 1e6;
            let mut n = min.max(1);
            let mut pilots = 0;
            loop {
                let Some(o) = run(t, n) else { return };
                pilots += 1;
                let elapsed = o.elapsed_ns.max(1) as f64;
                let scaled = ((n as f64 * target / elapsed) as u64).clamp(min, max);
                if elapsed >= target / 3.0 || pilots >= MAX_PILOTS || n >= max {
                    break round_count(scaled);
                }
                // Grow at most 50x per pilot so a noisy first pilot cannot overshoot wildly.
                n = scaled.min(n.saturating_mul(50));
            }
        }
    };
}

/// Rounds a calibrated count to two significant digits, so echoed parameters read cleanly.
fn round_count(n: u64) -> u64 {
    if n < 100 {
        return n.max(1);
    }
    let mag = 10u64.pow((n as f64).log10().floor() as u32 - 1);
    (n / mag) * mag
}

/// The result of trial `t`: its verdict, statistics, figures and distance to the limits, then
/// the lints over all of it (see [`lints::evaluate`]).
fn summarise(
    catalog: &Catalog,
    t: &Trial,
    limits: Option<&Limits>,
    env: &Environment,
) -> TrialResult {
    let spec = &t.spec;
    let semantics = effective_semantics(catalog, spec);
    let (verdict, violation) = verdict(t.stop.as_ref());
    let samples = raw_samples(&t.outcomes);
    let rates: Vec<f64> = samples.iter().map(|s| s.msgs_per_s).collect();
    let throughput = Summary::of(&rates);
    let ns_per_msg = Summary::of(&samples.iter().map(|s| s.ns_per_msg).collect::<Vec<_>>());
    let modes = regimes(spec, &samples);
    let open_loop = spec.workload.is_open_loop();
    let latency = merged_latency(
        t.outcomes.iter().map(|o| o.latency.as_deref()),
        if open_loop {
            "one-way from intended send"
        } else {
            "round-trip"
        },
    );
    let paced = if open_loop {
        paced_result(&t.outcomes)
    } else {
        None
    };
    let ramp = t.ramp.as_ref().map(|search| RampResult {
        search: search.clone(),
        saturating_hop: saturating_hop(spec, search),
    });
    let capacity = match semantics.bound {
        Bound::Bounded { .. } => Some(spec.capacity),
        Bound::Unbounded => None,
    };
    let same_worker = t
        .outcomes
        .iter()
        .filter_map(|o| o.same_worker)
        .reduce(WorkerShare::merge)
        .and_then(|s| s.fraction());
    let limit = limits.and_then(|lim| {
        limit_distance(
            lim,
            spec,
            &semantics,
            same_worker,
            latency.as_ref(),
            throughput.as_ref(),
        )
    });

    let mut result = TrialResult {
        transport: spec.transport.clone(),
        workload: spec.workload,
        params: params(spec, capacity, effective_messages(spec, t.messages)),
        semantics,
        placement: t.last_placement.clone(),
        verdict,
        violation,
        throughput,
        ns_per_msg,
        latency,
        failed_sends: samples.iter().map(|s| s.failed_sends).sum(),
        failed_recvs: samples.iter().map(|s| s.failed_recvs).sum(),
        digest: t.outcomes.last().map(|o| format!("{:016x}", o.digest)),
        limit,
        lints: Vec::new(),
        samples,
        paced,
        ramp,
        modes,
        same_worker,
        memory: MemoryFigures::of(
            &t.outcomes
                .iter()
                .filter_map(|o| o.memory)
                .collect::<Vec<_>>(),
        ),
        printed: Some(t.printed.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .filter(|p| !p.is_empty()),
        origin: catalog
            .get(&spec.transport)
            .map(|e| e.info().origin.clone())
            .unwrap_or_default(),
    };
    result.lints = lints::evaluate(
        &result,
        &lints::Context {
            pin_requested: spec.pin,
            limits,
            environment: env,
        },
    );
    result
}

/// The transport's declared semantics as this trial ran it: an option such as `wait=block`
/// changes how it waits, and tasks on a current-thread runtime make any hand-off a same-thread
/// one (shown, and ranked, as one).
fn effective_semantics(catalog: &Catalog, spec: &TrialSpec) -> Semantics {
    let info = catalog.get(&spec.transport).map(|e| e.info().clone());
    let mut semantics = info
        .as_ref()
        .map(|i| i.semantics)
        .unwrap_or_else(unknown_semantics);
    // An option such as `wait=block` or `wake=spin` changes how this trial's transport waits.
    if let Some(info) = &info {
        for (key, value) in &spec.options {
            let chosen = info.options.iter().find(|o| &o.name == key);
            if let Some(wait) = chosen.and_then(|o| o.wait_for(value)) {
                semantics.wait = wait;
            }
        }
    }
    // Tasks on a current-thread runtime take turns on one thread: whatever the transport can do,
    // this result is a same-thread hand-off and is shown (and ranked) as one.
    if spec.driver == Driver::TokioCurrent {
        semantics.locality = Locality::SameThread;
    }
    semantics
}

/// The verdict of a trial stopped by `stop` (none: every sample passed), and why.
fn verdict(stop: Option<&SampleOutcome>) -> (Verdict, Option<String>) {
    match stop.map(|o| &o.status) {
        None => (Verdict::Pass, None),
        Some(SampleStatus::Pass) => (Verdict::Pass, None),
        Some(SampleStatus::Fail(v)) => (Verdict::Fail, Some(v.to_string())),
        Some(SampleStatus::Hung(s)) => (Verdict::Hung, Some(s.clone())),
        Some(SampleStatus::Crashed(s)) => (Verdict::Crashed, Some(s.clone())),
        Some(SampleStatus::Unsupported(s)) => (Verdict::Unsupported, Some(s.clone())),
        Some(SampleStatus::Invalid(s)) => (Verdict::Invalid, Some(s.clone())),
    }
}

/// The raw figures of each timed sample.
fn raw_samples(outcomes: &[SampleOutcome]) -> Vec<RawSample> {
    outcomes
        .iter()
        .map(|o| {
            let secs = o.elapsed_ns.max(1) as f64 / 1e9;
            let latency = o
                .latency
                .as_deref()
                .and_then(|h| crate::histogram::decode(h).ok())
                .filter(|h| !h.is_empty());
            RawSample {
                messages: o.messages,
                elapsed_ns: o.elapsed_ns,
                msgs_per_s: o.messages as f64 / secs,
                ns_per_msg: o.elapsed_ns as f64 / o.messages.max(1) as f64,
                failed_sends: o.failed_sends,
                failed_recvs: o.failed_recvs,
                layout: o.layout.clone(),
                p50_ns: latency.as_ref().map(|h| h.value_at_quantile(0.5)),
                p99_ns: latency.as_ref().map(|h| h.value_at_quantile(0.99)),
                memory: o.memory,
            }
        })
        .collect()
}

/// Two regimes in the timed samples, if they fell into two: a stream's messages per second, a
/// ping-pong's nanoseconds per round trip. An open-loop run's samples go at the rate asked
/// for, so they are not judged.
fn regimes(spec: &TrialSpec, samples: &[RawSample]) -> Option<Modes> {
    let figure: fn(&RawSample) -> f64 = match spec.workload {
        _ if spec.workload.is_open_loop() || !matches!(spec.pacing, Pacing::Closed) => return None,
        WorkloadKind::PingPong => |s| s.ns_per_msg,
        _ => |s| s.msgs_per_s,
    };
    modes::detect(&samples.iter().map(figure).collect::<Vec<_>>())
}

/// Messages per sample as run: `messages` shared out evenly among the producers (round trips
/// for ping-pong).
fn effective_messages(spec: &TrialSpec, messages: u64) -> u64 {
    let per_producer = messages / spec.producers.max(1) as u64;
    match spec.workload {
        WorkloadKind::PingPong => messages,
        _ => per_producer.max(1) * spec.producers as u64,
    }
}

/// Every effective parameter of a trial, echoed with its result.
fn params(spec: &TrialSpec, capacity: Option<usize>, messages: u64) -> Params {
    Params {
        capacity,
        messages,
        messages_requested: spec.messages.to_string(),
        producers: spec.producers,
        consumers: spec.consumers,
        driver: spec.driver,
        payload: spec.payload,
        payload_bytes: spec.payload.wire_bytes(),
        batch: spec.batch,
        options: spec.options.clone(),
        samples: spec.samples,
        warmup: spec.warmup,
        timeout_ms: spec.timeout_ms,
        pacing: spec.pacing.clone(),
        pipeline: spec.pipeline.clone(),
        fresh_process: spec.fresh_process,
    }
}

/// How far a result is from the machine's limit: a ping-pong's p50 from the round trip, a
/// stream's median throughput from the streaming bandwidth; none for an open-loop run (it goes
/// as fast as it is asked to), a same-thread hand-off or one whose hand-offs mostly stayed on
/// one worker thread (the limits are cross-core ones).
fn limit_distance(
    lim: &Limits,
    spec: &TrialSpec,
    semantics: &Semantics,
    same_worker: Option<f64>,
    latency: Option<&Latency>,
    throughput: Option<&Summary>,
) -> Option<LimitDistance> {
    match (spec.workload, latency, throughput) {
        // An open-loop run goes as fast as it is asked to, not as fast as it can.
        _ if spec.workload.is_open_loop() => None,
        // The limits are cross-core ones: they say nothing of a same-thread hand-off.
        _ if spec.driver == Driver::TokioCurrent => None,
        _ if same_worker.is_some_and(|s| s > MOSTLY_SAME_WORKER) => None,
        (WorkloadKind::PingPong, Some(l), _) => Some(round_trip_distance(lim, l.p50)),
        (WorkloadKind::PingPong, None, _) => None,
        _ if semantics.locality == Locality::SameThread => None,
        (_, _, Some(tp)) => {
            let cap = lim.stream_msgs_per_s(spec.payload.wire_bytes());
            Some(LimitDistance {
                probe: probes::STREAM.into(),
                limit: cap,
                ratio: tp.median / cap.max(1e-9),
            })
        }
        _ => None,
    }
}

/// How far a ping-pong p50 is from the machine's round trip. Like with like: against the probe
/// stamped by the same timer as the workload (both carry the timer's cost and step), or, in
/// reports from before that probe existed, against the bulk-timed one.
fn round_trip_distance(lim: &Limits, p50: u64) -> LimitDistance {
    let (probe, limit) = match lim.rtt_stamped_ns() {
        Some(stamped) => (probes::RTT_STAMPED, stamped),
        None => (probes::RTT, lim.rtt_ns()),
    };
    LimitDistance {
        probe: probe.into(),
        limit,
        ratio: p50 as f64 / limit.max(1e-9),
    }
}

/// Open-loop figures merged over the timed samples.
fn paced_result(outcomes: &[SampleOutcome]) -> Option<PacedResult> {
    let figures: Vec<&crate::outcome::PacedFigures> =
        outcomes.iter().filter_map(|o| o.paced.as_deref()).collect();
    let last = figures.last()?;
    let achieved: Vec<f64> = figures.iter().map(|p| p.achieved_rate).collect();
    let mut overheads: Vec<f64> = figures
        .iter()
        .map(|p| p.overhead.stamp_and_record_ns)
        .collect();
    overheads.sort_by(f64::total_cmp);
    let mut clock_reads: Vec<f64> = figures.iter().map(|p| p.overhead.clock_read_ns).collect();
    clock_reads.sort_by(f64::total_cmp);
    let hops = last
        .hops
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let all: Vec<&crate::outcome::HopFigures> =
                figures.iter().filter_map(|p| p.hops.get(i)).collect();
            crate::outcome::HopFigures {
                transport: h.transport.clone(),
                capacity: h.capacity,
                samples: all.iter().map(|x| x.samples).sum(),
                mean: all.iter().map(|x| x.mean).sum::<f64>() / all.len().max(1) as f64,
                p99: all.iter().map(|x| x.p99).max().unwrap_or(0),
                max: all.iter().map(|x| x.max).max().unwrap_or(0),
                received: all.iter().map(|x| x.received).sum(),
            }
        })
        .collect();
    Some(PacedResult {
        requested_rate: last.requested_rate,
        achieved_rate: Summary::of(&achieved),
        refused: figures.iter().map(|p| p.refused).sum(),
        refused_wait_max_ns: figures
            .iter()
            .map(|p| p.refused_wait_max_ns)
            .max()
            .unwrap_or(0),
        refusals_observable: figures.iter().all(|p| p.refusals_observable),
        pacer: last.pacer.clone(),
        uncorrected: merged_latency(
            figures.iter().map(|p| Some(p.uncorrected.as_str())),
            "one-way from actual send (uncorrected)",
        ),
        overhead: crate::open_loop::clock::Overhead {
            clock_read_ns: clock_reads[clock_reads.len() / 2],
            stamp_and_record_ns: overheads[overheads.len() / 2],
        },
        sent: figures.iter().map(|p| p.sent).sum(),
        delivered: outcomes.iter().map(|o| o.messages).sum(),
        hops,
    })
}

/// The hop fullest at the lowest rate not sustained: by mean depth over capacity where every hop
/// is bounded, else by mean depth.
fn saturating_hop(spec: &TrialSpec, search: &RampOutcome) -> Option<String> {
    let knee = search.not_sustained?;
    let step = search
        .steps
        .iter()
        .rev()
        .find(|s| s.figures.requested == knee && !s.sustained)?;
    let f = &step.figures;
    let names: Vec<String> = match &spec.pipeline {
        Some(p) => p.hops.iter().map(|h| h.transport.clone()).collect(),
        None => vec![spec.transport.clone()],
    };
    let score: Vec<f64> = if f.hop_fill.iter().all(Option::is_some) {
        f.hop_fill.iter().map(|x| x.unwrap_or(0.0)).collect()
    } else {
        f.hop_depth.clone()
    };
    let (i, _) = score.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    Some(format!("hop {} ({})", i + 1, names.get(i)?))
}

fn merged_latency<'a>(
    encoded: impl Iterator<Item = Option<&'a str>>,
    kind: &str,
) -> Option<Latency> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for enc in encoded {
        let Some(enc) = enc else { continue };
        let Ok(h) = histogram::decode(enc) else {
            continue;
        };
        match merged.as_mut() {
            None => merged = Some(h),
            Some(m) => {
                let _ = m.add(&h);
            }
        }
    }
    let h = merged?;
    if h.is_empty() {
        return None;
    }
    Some(Latency {
        kind: kind.into(),
        count: h.len(),
        min: h.min(),
        p50: h.value_at_quantile(0.50),
        p90: h.value_at_quantile(0.90),
        p99: h.value_at_quantile(0.99),
        p999: h.value_at_quantile(0.999),
        p9999: h.value_at_quantile(0.9999),
        max: h.max(),
        mean: h.mean(),
        histogram: histogram::encode(&h),
    })
}

fn unknown_semantics() -> crate::semantics::Semantics {
    use crate::semantics::*;
    Semantics {
        producers: Arity::One,
        consumers: Arity::One,
        ordering: Ordering::None,
        bound: Bound::Unbounded,
        wait: WaitStrategy::None,
        batch: false,
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
    }
}

/// The current time as RFC 3339 (UTC, seconds).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) date, proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use crate::lints::fixture::limits;

    #[test]
    fn dates_and_rounding() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_413), (2025, 11, 21));
        assert_eq!(super::round_count(123_456), 120_000);
        assert_eq!(super::round_count(57), 57);
    }

    #[test]
    fn a_round_trip_is_compared_with_the_probe_timed_the_same_way() {
        let d = super::round_trip_distance(&limits(Some(70.0), Some(10.0)), 90);
        assert_eq!(d.probe, "cacheline-rtt-stamped");
        assert_eq!(d.limit, 70.0);
        assert!((d.ratio - 90.0 / 70.0).abs() < 1e-12, "{d:?}");
        // A report from before the stamped probe existed: the bulk-timed one, as then.
        let old = super::round_trip_distance(&limits(None, None), 90);
        assert_eq!(old.probe, "cacheline-rtt");
        assert_eq!(old.limit, 50.0);
    }
}
