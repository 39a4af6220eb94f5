//! Which results of a run answer the question: paced results at the asked rate when a latency
//! budget or a CPU budget at a rate is asked (a flood's figures say nothing of either at a
//! modest rate), closed-loop streams otherwise; narrowed to the asked payload, producers and
//! consumers. When the run cannot answer, [`Unanswerable`] says why and what to run.

use super::ask::Ask;
use crate::report::{RunReport, TrialResult};
use crate::workload::{Pacing, WorkloadKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What the figures compared come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Basis {
    /// Open-loop `paced` results at this rate (messages per second in total).
    Paced {
        /// The rate the results ran at.
        rate: u64,
    },
    /// Closed-loop streams (`spsc`, `mpsc`, `mpmc`): as fast as each transport goes.
    Closed,
}

/// The results that answer, and what they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    /// Indexes into the report's results.
    pub results: Vec<usize>,
    /// What they measured.
    pub basis: Basis,
    /// The payload, producers and consumers they share.
    pub setting: Setting,
}

/// The shape of hand-off every result compared shares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// The payload.
    pub payload: crate::payload::PayloadKind,
    /// Producers.
    pub producers: usize,
    /// Consumers.
    pub consumers: usize,
}

/// Why the run cannot answer, and what would.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{why}{}", .run.as_ref().map(|r| format!("; run, for example: {r}")).unwrap_or_default())]
pub struct Unanswerable {
    /// What is missing.
    pub why: String,
    /// A command that would measure it, if one can be said.
    pub run: Option<String>,
}

/// Whether `r` is a closed-loop stream of one channel.
fn is_closed_stream(r: &TrialResult) -> bool {
    matches!(
        r.workload,
        WorkloadKind::Spsc | WorkloadKind::Mpsc | WorkloadKind::Mpmc
    ) && r.params.pacing == Pacing::Closed
        && r.params.pipeline.is_none()
}

/// Whether `r` is a paced stream of one channel.
fn is_paced(r: &TrialResult) -> bool {
    r.workload == WorkloadKind::Paced && r.params.pacing.rate().is_some()
}

/// The results of `report` that answer `ask`.
pub fn find(report: &RunReport, ask: &Ask) -> Result<Evidence, Unanswerable> {
    // The transports a suggested run should name: those that could answer (never same-thread
    // ones, which are set aside; only those that take the asked producers and consumers and have
    // every semantic required), not every transport the run had.
    let could_answer = |r: &TrialResult| {
        let s = &r.semantics;
        s.locality != crate::semantics::Locality::SameThread
            && s.producers.allows(ask.producers.unwrap_or(1))
            && s.consumers.allows(ask.consumers.unwrap_or(1))
            && ask.require.iter().all(|q| q.met_by(s))
    };
    let transports: BTreeSet<&str> = report
        .results
        .iter()
        .filter(|r| could_answer(r))
        .map(|r| r.transport.as_str())
        .collect();
    let names = transports.iter().copied().collect::<Vec<_>>().join(",");
    let paced_needed = ask.p99_ns.is_some() || (ask.rate.is_some() && ask.cpu.is_some());
    let any_paced = report.results.iter().any(is_paced);
    let paced = paced_needed || (ask.rate.is_some() && any_paced);
    let what = if paced { "paced" } else { "closed-loop stream" };
    let suggest = |rate: Option<u64>| {
        // With no transport of the run that could answer, the suggestion names none (`run`
        // picks its own).
        let mut cmd = "handoff run".to_string();
        if !names.is_empty() {
            cmd.push_str(&format!(" -t {names}"));
        }
        if paced {
            cmd.push_str(&format!(
                " -w paced --rate {}",
                rate.or(ask.rate).unwrap_or(1000)
            ));
        } else if ask.producers.unwrap_or(1) > 1 {
            cmd.push_str(" -w mpsc");
        } else {
            cmd.push_str(" -w spsc");
        }
        if let Some(p) = ask.payload {
            cmd.push_str(&format!(" --payload {p}"));
        }
        if let Some(p) = ask.producers.filter(|p| *p > 1) {
            cmd.push_str(&format!(" --producers {p}"));
        }
        if let Some(c) = ask.consumers.filter(|c| *c > 1) {
            cmd.push_str(&format!(" --consumers {c}"));
        }
        cmd
    };
    let mut pool: Vec<usize> = (0..report.results.len())
        .filter(|&i| {
            let r = &report.results[i];
            if paced {
                is_paced(r)
            } else {
                is_closed_stream(r)
            }
        })
        .collect();
    if pool.is_empty() {
        let why = if paced {
            match (ask.p99_ns, ask.cpu) {
                (Some(_), _) => "a latency budget needs paced results (latency at a rate), and the run has none".to_string(),
                _ => "a CPU budget at a rate needs paced results (a flood keeps every transport busy), and the run has none".to_string(),
            }
        } else {
            "the run has no closed-loop stream (spsc, mpsc, mpmc) to rank".to_string()
        };
        return Err(Unanswerable {
            why,
            run: Some(suggest(None)),
        });
    }
    // The payload, producers and consumers: asked, or the one value the results have. A
    // value asked but never measured is answered by a run; an unsaid choice, by a flag.
    let not_measured = |(why, absent): (String, bool)| Unanswerable {
        run: absent.then(|| suggest(None)),
        why,
    };
    let payload = narrow(
        &mut pool,
        report,
        ask.payload,
        |r| r.params.payload,
        "payload",
        "--payload",
        what,
    )
    .map_err(&not_measured)?;
    let [producers, consumers] = [
        (
            ask.producers,
            "producer",
            (|r| r.params.producers) as fn(&TrialResult) -> usize,
        ),
        (ask.consumers, "consumer", |r| r.params.consumers),
    ]
    .map(|(asked, side, value)| {
        let (name, flag) = (format!("{side} count"), format!("--{side}s"));
        narrow(&mut pool, report, asked, value, &name, &flag, what)
    });
    let (producers, consumers) = (
        producers.map_err(&not_measured)?,
        consumers.map_err(&not_measured)?,
    );
    let setting = Setting {
        payload,
        producers,
        consumers,
    };
    if !paced {
        return Ok(Evidence {
            results: pool,
            basis: Basis::Closed,
            setting,
        });
    }
    // The rate: the lowest measured at or above the one asked (the figures are then for a
    // busier hand-off than asked, never a quieter one), or the only one there is.
    let rates: BTreeSet<u64> = pool
        .iter()
        .filter_map(|&i| report.results[i].params.pacing.rate())
        .collect();
    let list = |rates: &BTreeSet<u64>| {
        rates
            .iter()
            .map(|r| format!("{r}/s"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rate = match ask.rate {
        Some(asked) => rates
            .range(asked..)
            .next()
            .copied()
            .ok_or_else(|| Unanswerable {
                why: format!(
                    "the run's paced results ran at {}, all below the {asked}/s asked: latency and CPU at a lower rate say nothing of a higher one",
                    list(&rates)
                ),
                run: Some(suggest(Some(asked))),
            })?,
        None if rates.len() == 1 => *rates.iter().next().expect("one rate"),
        None => {
            return Err(Unanswerable {
                why: format!(
                    "the run's paced results ran at {}: say which with --rate",
                    list(&rates)
                ),
                run: None,
            })
        }
    };
    pool.retain(|&i| report.results[i].params.pacing.rate() == Some(rate));
    Ok(Evidence {
        results: pool,
        basis: Basis::Paced { rate },
        setting,
    })
}

/// Narrows `pool` to the results whose `value` is `asked`, or, when nothing was asked, checks
/// that they share one value. Returns the value, or why the run cannot tell and whether it is
/// because the asked value was never measured (a run would answer) rather than because the
/// question does not say which of several it means.
fn narrow<T: Ord + Copy + std::fmt::Display>(
    pool: &mut Vec<usize>,
    report: &RunReport,
    asked: Option<T>,
    value: impl Fn(&TrialResult) -> T,
    name: &str,
    flag: &str,
    what: &str,
) -> Result<T, (String, bool)> {
    let values: BTreeSet<T> = pool.iter().map(|&i| value(&report.results[i])).collect();
    let list = values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match asked {
        Some(a) if values.contains(&a) => {
            pool.retain(|&i| value(&report.results[i]) == a);
            Ok(a)
        }
        Some(a) => Err((
            format!(
                "the run has no {what} result with {name} {a} (its {what} results have {list})"
            ),
            true,
        )),
        None if values.len() == 1 => Ok(*values.iter().next().expect("one value")),
        None => Err((
            format!("the run's {what} results have {name}s {list}: say which with {flag}"),
            false,
        )),
    }
}
