//! The semantic preflight: every trial of a plan checked against its transport's declared
//! semantics before anything runs.
//!
//! A plan is well formed once it parses (names exist, values are in range); whether each
//! transport can run each trial is a question of its semantics (a callback consumer cannot
//! ping-pong, a conflating cell cannot stream every message, a capacity below a transport's
//! minimum). [`check`] asks it of every trial: parameters that no transport could honour are
//! always refused; a combination one transport cannot run is refused when the user named
//! that transport on the command line ([`Strictness::Named`]) and left to run as an
//! `unsupported` row in a suite ([`Strictness::Suite`]).

use crate::catalog::Catalog;
use crate::engine::check_support;
use crate::outcome::SampleStatus;
use crate::plan::Plan;
use std::fmt;

/// How a combination a transport cannot run is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// The user named the transports on the command line: a combination one of them cannot run
    /// is an error.
    Named,
    /// A suite file: such a combination runs as an `unsupported` row.
    Suite,
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
    #[error("impossible parameters:\n  {}", list(.0))]
    Impossible(Vec<Refusal>),
}

fn list(refusals: &[Refusal]) -> String {
    refusals
        .iter()
        .map(|r| format!("{}: {}", r.trial, r.reason))
        .collect::<Vec<_>>()
        .join("\n  ")
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.trial, self.reason)
    }
}

/// Checks every trial of `plan` against its transport before anything runs.
pub fn check(catalog: &Catalog, plan: &Plan, strictness: Strictness) -> Result<(), PreflightError> {
    let mut refused = Vec::new();
    for t in &plan.trials {
        let entry = catalog.lookup(&t.transport)?;
        let checked = if t.workload.is_open_loop() {
            crate::engine::pipeline::check(catalog, t)
        } else {
            check_support(entry.info(), t)
        };
        if let Err(o) = checked {
            let reason = match o.status {
                SampleStatus::Invalid(why) => Some(why),
                SampleStatus::Unsupported(why) if strictness == Strictness::Named => Some(why),
                _ => None,
            };
            if let Some(reason) = reason {
                refused.push(Refusal {
                    trial: t.label(),
                    reason,
                });
            }
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(PreflightError::Impossible(refused))
    }
}
