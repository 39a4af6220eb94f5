//! `handoff recommend`: from a run's own figures to "use X, because …, unless …".
//!
//! 1. [`evidence`] picks the results that answer: paced results at the asked rate when a
//!    latency budget (or a CPU budget at a rate) is asked, closed-loop streams otherwise; one
//!    payload, producer count and consumer count.
//! 2. Each becomes a [`Candidate`]: a transport with its options, capacity, batch and driver,
//!    and the constraints it fails, each with the figure that fails it. Same-thread and
//!    same-worker results are set aside: no hand-off between cores happened in them.
//! 3. The candidates that meet every constraint are ranked by the [`Objective`] (by default the
//!    p99 at a rate, else the throughput); the pick is the first, the runner-up the second, and
//!    whether the run tells them apart is tested on their per-sample figures (Mann–Whitney, as
//!    `compare` does). When the runner-up is better on another figure (CPU, throughput, a
//!    semantic the user did not require), it says when the runner-up would win.
//! 4. Every caveat the run carries comes along: the pick's lints and regimes, oversubscription,
//!    a machine that changed state during the run or is not the one asking, a rate measured
//!    above the one asked, few samples.
//!
//! CPU: a closed-loop stream counts both sides. A paced result counts the consumer side (and an
//! async runtime's threads): the producer side of a paced run is the harness's pacer, which
//! spins between sends to keep its schedule, whatever the transport.
//!
//! Nothing here is a figure the run did not measure; where the run cannot answer, it says
//! what to run instead.

pub mod ask;
pub mod candidate;
pub mod evidence;

pub use ask::{Ask, Objective, Requirement};
pub use candidate::Candidate;
pub use evidence::{Basis, Setting, Unanswerable};

use crate::compare::mann_whitney;
use crate::environment::Environment;
use crate::report::RunReport;
use handoff_model::fmt;
use serde::{Deserialize, Serialize};

/// `text` from the run (a transport's name, a worker's words) with its backticks made quotes:
/// the views mark names as code between backticks, and a name must not end that mark early.
pub(crate) fn plain(text: &str) -> String {
    text.replace('`', "'")
}

/// The significance level at which the pick and the runner-up are told apart.
pub const ALPHA: f64 = 0.05;

/// A recommendation, or the reasons there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    /// What was asked.
    pub ask: Ask,
    /// What the figures come from.
    pub basis: Basis,
    /// The shape of hand-off compared.
    pub setting: Setting,
    /// Where the run comes from: its reference, suite, start and machine.
    pub source: Source,
    /// What decided among the candidates that meet every constraint.
    pub objective: Objective,
    /// Every candidate: those that meet every constraint first, best first, then the rest.
    pub candidates: Vec<Candidate>,
    /// The pick's index in `candidates` (0), if any candidate meets every constraint.
    pub pick: Option<usize>,
    /// How the runner-up (`candidates[1]`, if it meets every constraint) compares.
    pub runner_up: Option<RunnerUp>,
    /// When nothing meets every constraint: each constraint with the candidates it excludes,
    /// and the candidate that fails fewest.
    pub nothing: Option<Nothing>,
    /// Results not ranked: same-thread or same-worker ones, with why.
    pub set_aside: Vec<String>,
    /// What the reader must keep in mind.
    pub caveats: Vec<String>,
}

/// The run a recommendation is made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// As the user named it (`latest`, a run id, a baseline, a file).
    pub reference: String,
    /// The run's suite.
    pub suite: String,
    /// When it started.
    pub started_at: String,
    /// The machine, in one line.
    pub environment: String,
}

/// The runner-up against the pick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunnerUp {
    /// The runner-up's objective figure over the pick's, as a factor of how much worse it is
    /// (above 1).
    pub behind: Option<f64>,
    /// The rank test's p-value on the two's per-sample figures; `None` when too few samples for
    /// any data to reach [`ALPHA`] (fewer than 4 a side).
    pub p: Option<f64>,
    /// Whether the run tells the two apart (p below [`ALPHA`]).
    pub significant: bool,
    /// When the runner-up would win instead.
    pub would_win: Vec<String>,
}

/// Why nothing meets every constraint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Nothing {
    /// The candidate that fails fewest constraints, and what it fails.
    pub closest: Option<String>,
}

/// What decides among `candidates`: the ask's objective when the run measured its figure for
/// at least one of them; else, unless the objective was asked for by name, the throughput (or
/// the CPU) with the objective that could not decide, so that a pick is never said to have "the
/// lowest p99" when no p99 was measured. Unanswerable when nothing could decide.
fn decider(
    ask: &Ask,
    candidates: &[Candidate],
) -> Result<(Objective, Option<Objective>), Unanswerable> {
    let objective = ask.objective();
    let measured = |o: Objective| candidates.iter().any(|c| c.cost(o).is_some());
    if measured(objective) {
        return Ok((objective, None));
    }
    let other = [Objective::Throughput, Objective::Cpu]
        .into_iter()
        .find(|&o| o != objective && measured(o));
    match (ask.prefer, other) {
        (None, Some(o)) => Ok((o, Some(objective))),
        _ => Err(Unanswerable {
            why: format!(
                "the run measured no {} for the transports that would answer, which `--prefer {}` decides by",
                figure_of(objective),
                objective.name()
            ),
            run: None,
        }),
    }
}

/// Cores busy as a recommendation says them: two decimals, or two significant figures below
/// 0.1 (`0.041` and `0.050`, never `0.04` beside `0.04` with a ratio between them).
pub fn cores(x: f64) -> String {
    if x > 0.0 && x < 0.1 {
        let decimals = (1.0 - x.log10().floor()) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.2}")
    }
}

/// The figure an objective compares, as the text says it.
fn figure_of(o: Objective) -> &'static str {
    match o {
        Objective::Latency => "p99",
        Objective::Cpu => "CPU",
        Objective::Throughput => "throughput",
    }
}

/// Recommends from `report` (named `reference`) for `ask`; `here` is the machine asking, for
/// the caveat of a run measured elsewhere.
pub fn recommend(
    report: &RunReport,
    reference: &str,
    ask: &Ask,
    here: Option<&Environment>,
) -> Result<Recommendation, Unanswerable> {
    let found = evidence::find(report, ask)?;
    let paced = matches!(found.basis, Basis::Paced { .. });
    let mut set_aside = Vec::new();
    let mut candidates = Vec::new();
    for &i in &found.results {
        let r = &report.results[i];
        let c = Candidate::of(i, r, &found.basis, ask);
        if r.semantics.locality == crate::semantics::Locality::SameThread {
            set_aside.push(format!(
                "`{}`: same-thread (the producer's thread runs the consumer; no hand-off between cores)",
                c.label
            ));
        } else if r.stayed_on_one_worker() {
            set_aside.push(format!(
                "`{}`: same-worker ({:.0}% of hand-offs stayed on one runtime thread)",
                c.label,
                r.same_worker.unwrap_or(0.0) * 100.0
            ));
        } else {
            candidates.push(c);
        }
    }
    if candidates.is_empty() {
        return Err(Unanswerable {
            why: "every result that would answer is a same-thread or same-worker one, which no hand-off between cores can be chosen from".into(),
            run: None,
        });
    }
    let (objective, instead) = decider(ask, &candidates)?;
    // Those meeting every constraint first, best first; then the rest, fewest failures first.
    candidates.sort_by(|a, b| {
        b.meets_all()
            .cmp(&a.meets_all())
            .then(a.fails.len().cmp(&b.fails.len()))
            .then_with(|| {
                let (x, y) = (a.cost(objective), b.cost(objective));
                match (x, y) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
            })
            .then_with(|| a.label.cmp(&b.label))
    });
    let pick = candidates.first().filter(|c| c.meets_all()).map(|_| 0);
    let runner_up = match (pick, candidates.get(1)) {
        (Some(_), Some(second)) if second.meets_all() => {
            let producers = found.setting.producers;
            Some(runner_up(
                report,
                &candidates[0],
                second,
                objective,
                paced,
                producers,
            ))
        }
        _ => None,
    };
    let nothing = pick.is_none().then(|| Nothing {
        closest: candidates
            .first()
            .map(|c| format!("`{}` fails only: {}", c.label, c.fails.join("; "))),
    });
    let mut caveats = caveats::of(report, &found, &candidates, pick, ask, here);
    if let Some(asked) = instead {
        caveats.insert(
            0,
            format!(
                "the run measured no {} for these transports, so the {} decides; to choose by {} at your rate, run them paced at it (`handoff run -w paced --rate …`)",
                figure_of(asked),
                objective.name(),
                asked.name()
            ),
        );
    }
    Ok(Recommendation {
        ask: ask.clone(),
        basis: found.basis,
        setting: found.setting,
        source: Source {
            reference: reference.to_string(),
            suite: plain(&report.suite),
            started_at: report.started_at.clone(),
            environment: report.environment.summary(),
        },
        objective,
        candidates,
        pick,
        runner_up,
        nothing,
        set_aside,
        caveats,
    })
}

/// How `second` compares with `first` (both meet every constraint).
fn runner_up(
    report: &RunReport,
    first: &Candidate,
    second: &Candidate,
    objective: Objective,
    paced: bool,
    producers: usize,
) -> RunnerUp {
    let (a, b) = (
        &report.results[first.result],
        &report.results[second.result],
    );
    let (xs, ys) = (
        candidate::per_sample(a, objective, paced),
        candidate::per_sample(b, objective, paced),
    );
    // With too few samples no data can reach ALPHA (3 a side: p >= 0.1), and a p-value that
    // cannot be small says nothing of the two: no test.
    let testable = mann_whitney::min_p(xs.len(), ys.len()) < ALPHA;
    let p = testable
        .then(|| mann_whitney::test(&xs, &ys))
        .flatten()
        .map(|t| t.p);
    let behind = match (first.cost(objective), second.cost(objective)) {
        (Some(x), Some(y)) if objective == Objective::Throughput && y != 0.0 => Some(x / y),
        (Some(x), Some(y)) if x > 0.0 => Some(y / x),
        _ => None,
    };
    let mut would_win = Vec::new();
    // Lower CPU, where CPU did not decide.
    if let (true, Some(x), Some(y)) = (objective != Objective::Cpu, first.cores, second.cores) {
        if y < 0.8 * x {
            would_win.push(format!(
                "if CPU matters more than {}: it keeps {} cores busy against {}",
                objective.name(),
                cores(y),
                cores(x)
            ));
        }
    }
    // Lower latency, where latency did not decide.
    if let (true, Some(x), Some(y)) = (objective != Objective::Latency, first.p99_ns, second.p99_ns)
    {
        if (y as f64) < 0.8 * x as f64 {
            would_win.push(format!(
                "if latency matters more: its p99 is {} against {}",
                fmt::duration(y as f64),
                fmt::duration(x as f64)
            ));
        }
    }
    // A semantic the pick lacks (never being unbounded; one order over every producer only
    // where there are several).
    let (sa, sb) = (&a.semantics, &b.semantics);
    for req in Requirement::ALL {
        let matters = match req {
            Requirement::Unbounded => false,
            Requirement::GlobalFifo => producers > 1,
            _ => true,
        };
        if matters && req.met_by(sb) && !req.met_by(sa) {
            would_win.push(format!(
                "if you need {} (`--require {req}`): the pick lacks it",
                req.wanted()
            ));
        }
    }
    // A crossing between the two along a sweep of the run.
    let (la, lb) = (crate::sweep::series_label(a), crate::sweep::series_label(b));
    for x in crate::crossover::find(&report.results) {
        let (l, o) = (x.leader.as_str(), x.other.as_str());
        if la != lb && ((l == lb && o == la) || (l == la && o == lb)) {
            would_win.push(format!("along the run's sweep: {}", plain(&x.sentence())));
        }
    }
    RunnerUp {
        behind,
        p,
        significant: p.is_some_and(|p| p < ALPHA),
        would_win,
    }
}

mod caveats;

#[cfg(test)]
mod tests;
