//! The semantic preflight: every trial of a plan checked against its transport's declared
//! semantics before anything runs.
//!
//! A plan is well formed once it parses (names exist, values are in range); whether each
//! transport can run each trial is a question of its semantics (a callback consumer cannot
//! ping-pong, a conflating cell cannot stream every message, a capacity below a transport's
//! minimum). [`check`] asks it of every trial:
//!
//! * parameters that no transport could honour (`spsc` with two producers, an unknown option)
//!   are always refused;
//! * a combination one transport cannot run is skipped: it runs as an `unsupported` row, and
//!   [`check`] returns one [`Skip`] per transport and cause so the caller can say so once;
//! * the plan is refused when nothing at all can run, or when the user named exactly one
//!   transport ([`Strictness::Named`]) and it cannot run what was asked.

use crate::catalog::Catalog;
use crate::engine::check_support;
use crate::outcome::SampleStatus;
use crate::plan::Plan;
use std::fmt;

/// How a combination a transport cannot run is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// The user named exactly one transport: whatever it cannot run is an error.
    Named,
    /// A selection (a suite file, or an ad-hoc run over several transports): such a combination
    /// is skipped, reported as an `unsupported` row.
    Suite,
}

/// Trials of one transport skipped for one cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip {
    /// The transport.
    pub transport: String,
    /// Why it cannot run them.
    pub reason: String,
    /// How many trials of the plan that is.
    pub trials: usize,
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.trials == 1 { "" } else { "s" };
        write!(
            f,
            "{} skipped ({} trial{s}, unsupported): {}",
            self.transport, self.trials, self.reason
        )
    }
}

/// One trial the preflight refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The trial's label (transport, workload and parameters).
    pub trial: String,
    /// Why it cannot run.
    pub reason: String,
}

/// The plan cannot run as asked: every refused trial, in plan order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PreflightError {
    /// A trial names a transport the catalog does not hold.
    #[error(transparent)]
    UnknownTransport(#[from] crate::suggest::LookupError),
    /// Parameters some trials' transports cannot honour.
    #[error("impossible parameters:\n  {}", lines(.0))]
    Impossible(Vec<Refusal>),
    /// No trial of the plan can run: every one is unsupported by its transport.
    #[error("nothing to run: no trial of the plan can run:\n  {}", lines(.0))]
    NothingRuns(Vec<Skip>),
}

/// One item a line, indented under the error's first line.
fn lines<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join("\n  ")
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.trial, self.reason)
    }
}

/// Checks every trial of `plan` against its transport before anything runs; returns what will
/// be skipped (as `unsupported` rows), one entry per transport and cause, in plan order.
pub fn check(
    catalog: &Catalog,
    plan: &Plan,
    strictness: Strictness,
) -> Result<Vec<Skip>, PreflightError> {
    let mut refused = Vec::new();
    let mut skipped: Vec<Skip> = Vec::new();
    let mut runnable = 0;
    for t in &plan.trials {
        let entry = catalog.lookup(&t.transport)?;
        let checked = if t.workload.is_open_loop() {
            crate::engine::pipeline::check(catalog, t)
        } else {
            check_support(entry.info(), t)
        };
        let Err(o) = checked else {
            runnable += 1;
            continue;
        };
        match o.status {
            SampleStatus::Unsupported(why) if strictness == Strictness::Suite => {
                match skipped
                    .iter_mut()
                    .find(|s| s.transport == t.transport && s.reason == why)
                {
                    Some(s) => s.trials += 1,
                    None => skipped.push(Skip {
                        transport: t.transport.clone(),
                        reason: why,
                        trials: 1,
                    }),
                }
            }
            SampleStatus::Invalid(why) | SampleStatus::Unsupported(why) => refused.push(Refusal {
                trial: t.label(),
                reason: why,
            }),
            _ => runnable += 1,
        }
    }
    if !refused.is_empty() {
        return Err(PreflightError::Impossible(refused));
    }
    if runnable == 0 && !skipped.is_empty() {
        return Err(PreflightError::NothingRuns(skipped));
    }
    Ok(skipped)
}
