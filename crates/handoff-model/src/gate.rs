//! Gates as a run records them: what a gate asks (declared in a suite file, or
//! `--max-regression` against a baseline) and how it ended.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a ratio gate compares against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// The best other transport at each point.
    Best,
    /// One named transport.
    Transport(String),
}

/// A gate, checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Gate {
    /// Throughput at the top producer count ≥ `min` × the one-producer figure.
    Scaling {
        /// The transports judged; empty: every one swept over producer counts.
        transports: Vec<String>,
        /// The least factor.
        min: f64,
    },
    /// One transport's throughput ≥ `min` × another's at every point both ran.
    Ratio {
        /// The transport judged.
        transport: String,
        /// Only its results with these options.
        options: BTreeMap<String, String>,
        /// Against what.
        over: Over,
        /// The least factor.
        min: f64,
    },
    /// No result significantly slower than the baseline's by more than `max`.
    Regression {
        /// The baseline reference.
        baseline: String,
        /// The largest slowdown allowed, as a fraction.
        max: f64,
        /// What cannot be judged (no matched result, too few samples, a side that did not
        /// pass) passes, listed, instead of failing the gate. Off unless asked for.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        allow_unjudged: bool,
    },
}

impl Gate {
    /// One line saying what the gate asks.
    pub fn describe(&self) -> String {
        match self {
            Gate::Scaling { transports, min } => format!(
                "scaling {}: top producer count ≥ {min}× one producer",
                if transports.is_empty() {
                    "(every transport)".to_string()
                } else {
                    transports.join(", ")
                }
            ),
            Gate::Ratio {
                transport,
                options,
                over,
                min,
            } => {
                let opts: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let who = if opts.is_empty() {
                    transport.clone()
                } else {
                    format!("{transport} ({})", opts.join(", "))
                };
                let over = match over {
                    Over::Best => "the best other transport".to_string(),
                    Over::Transport(t) => t.clone(),
                };
                format!("ratio: {who} ≥ {min}× {over} at each point")
            }
            Gate::Regression {
                baseline,
                max,
                allow_unjudged,
            } => format!(
                "regression: no result significantly slower than baseline `{baseline}` by more than {:.1}%{}",
                max * 100.0,
                if *allow_unjudged {
                    " (what cannot be judged passes)"
                } else {
                    ""
                }
            ),
        }
    }
}

/// How a gate ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateStatus {
    /// Every point it judges passed.
    Passed,
    /// A point failed, or the gate could not be evaluated.
    Failed,
    /// Nothing it could judge meaningfully (every point oversubscribed).
    Skipped,
}

/// A gate's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateOutcome {
    /// The gate.
    pub gate: Gate,
    /// What it asks, in one line.
    pub description: String,
    /// How it ended.
    pub status: GateStatus,
    /// One line per point judged (or the reason it could not be).
    pub details: Vec<String>,
}
