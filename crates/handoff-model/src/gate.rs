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

/// Which producer count a scaling gate compares with one producer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpTo {
    /// The largest count swept whose producers and consumers all fit the machine's cores (the
    /// default): the gate is skipped only when even two producers do not fit.
    #[default]
    Cores,
    /// The largest count swept, skipped when it ran oversubscribed (what reports written before
    /// `up_to` existed mean).
    Top,
    /// This producer count, skipped when it ran oversubscribed.
    Producers(usize),
}

impl UpTo {
    /// What reports written before `up_to` existed meant: the top count.
    fn recorded_default() -> UpTo {
        UpTo::Top
    }
}

/// Which rate a scaling gate judges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rate {
    /// Messages delivered per second, as the consumers saw them (the default).
    #[default]
    Delivery,
    /// Messages submitted per second: from the start until every producer's last send returned
    /// (streams only).
    Submit,
}

impl Rate {
    /// The rate's name in a gate's description.
    pub fn name(self) -> &'static str {
        match self {
            Rate::Delivery => "delivery rate",
            Rate::Submit => "submit rate",
        }
    }
}

/// A gate, checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Gate {
    /// The rate at a producer count (see [`UpTo`]) ≥ `min` × the one-producer figure.
    Scaling {
        /// The transports judged; empty: every one swept over producer counts.
        transports: Vec<String>,
        /// The least factor.
        min: f64,
        /// Which producer count is compared with one producer.
        #[serde(default = "UpTo::recorded_default")]
        up_to: UpTo,
        /// Which rate is judged.
        #[serde(default)]
        metric: Rate,
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
    /// In a paired run (`handoff run --against`), no result of this build significantly slower
    /// than the other build's by more than `max`, judged pair by pair.
    Against {
        /// What the other build was named.
        build: String,
        /// The largest slowdown allowed, as a fraction.
        max: f64,
        /// What cannot be judged passes, listed, instead of failing the gate.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        allow_unjudged: bool,
    },
}

impl Gate {
    /// One line saying what the gate asks.
    pub fn describe(&self) -> String {
        match self {
            Gate::Scaling {
                transports,
                min,
                up_to,
                metric,
            } => format!(
                "scaling {}: {} at {} ≥ {min}× one producer",
                if transports.is_empty() {
                    "(every transport)".to_string()
                } else {
                    transports.join(", ")
                },
                metric.name(),
                match up_to {
                    UpTo::Cores => "the most producers that fit the cores".to_string(),
                    UpTo::Top => "the top producer count".to_string(),
                    UpTo::Producers(n) => format!("{n} producers"),
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
            Gate::Against {
                build,
                max,
                allow_unjudged,
            } => format!(
                "regression (paired): no result significantly slower than the build `{build}` by more than {:.1}%{}",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaling_gate_recorded_before_up_to_existed_reads_as_the_top_count() {
        let old: Gate =
            serde_json::from_str(r#"{"kind":"scaling","transports":["q"],"min":1.5}"#).unwrap();
        assert_eq!(
            old,
            Gate::Scaling {
                transports: vec!["q".into()],
                min: 1.5,
                up_to: UpTo::Top,
                metric: Rate::Delivery,
            }
        );
        let new = Gate::Scaling {
            transports: vec![],
            min: 2.0,
            up_to: UpTo::Producers(8),
            metric: Rate::Submit,
        };
        let text = serde_json::to_string(&new).unwrap();
        assert!(text.contains(r#""up_to":{"producers":8}"#), "{text}");
        assert_eq!(serde_json::from_str::<Gate>(&text).unwrap(), new);
        assert_eq!(
            new.describe(),
            "scaling (every transport): submit rate at 8 producers ≥ 2× one producer"
        );
    }
}
