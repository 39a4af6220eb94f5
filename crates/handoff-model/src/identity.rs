//! The identity of a result: what was measured, independent of how long or how often.
//!
//! Two results with the same identity measured the same thing (the same transport with the same
//! options, under the same workload, driver, payload, capacity, thread counts, batch, pacing and
//! pipeline), so their figures can be compared across runs. What only decides how the
//! measurement was taken (messages per sample, samples, warm-up, the watchdog) is not part of
//! it: an `auto` count calibrates differently from run to run, and a comparison says so when
//! those differ rather than refusing to match.

use crate::report::TrialResult;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a result measured, in a canonical text form that sorts and compares as a key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Identity(String);

impl Identity {
    /// The identity of `r`.
    pub fn of(r: &TrialResult) -> Identity {
        let p = &r.params;
        let mut key = format!(
            "{} {} {} {} {}p{}c",
            r.transport,
            r.workload.name(),
            p.driver,
            p.payload,
            p.producers,
            p.consumers
        );
        match p.capacity {
            Some(c) => key.push_str(&format!(" cap={c}")),
            None => key.push_str(" unbounded"),
        }
        if let Some(b) = p.batch {
            key.push_str(&format!(" batch={b}"));
        }
        for (k, v) in &p.options {
            key.push_str(&format!(" {k}={v}"));
        }
        // Pacing and pipeline are structured: their JSON is canonical (fields in declaration
        // order, maps sorted), so equal specifications give equal text.
        if let Some(rate) = p.pacing.rate() {
            key.push_str(&format!(" rate={rate}"));
        } else if !matches!(p.pacing, crate::workload::Pacing::Closed) {
            key.push_str(&format!(" pacing={}", json(&p.pacing)));
        }
        if let Some(pipe) = &p.pipeline {
            key.push_str(&format!(" pipeline={}", json(pipe)));
        }
        Identity(key)
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::stream;

    #[test]
    fn how_long_and_how_often_are_not_part_of_it() {
        let a = stream();
        let mut b = a.clone();
        b.params.messages *= 10;
        b.params.samples += 4;
        b.params.warmup += 1;
        b.params.timeout_ms *= 2;
        assert_eq!(Identity::of(&a), Identity::of(&b));
    }

    #[test]
    fn what_was_measured_is() {
        let a = stream();
        let mut changes: Vec<TrialResult> = Vec::new();
        let mut t = a.clone();
        t.transport = "other".into();
        changes.push(t);
        let mut t = a.clone();
        t.params.capacity = Some(t.params.capacity.unwrap_or(0) + 1);
        changes.push(t);
        let mut t = a.clone();
        t.params.batch = Some(64);
        changes.push(t);
        let mut t = a.clone();
        t.params.options.insert("wait".into(), "block".into());
        changes.push(t);
        let mut t = a.clone();
        t.params.producers += 1;
        changes.push(t);
        let mut t = a.clone();
        t.params.pacing = crate::workload::Pacing::Rate(1000);
        changes.push(t);
        let ids: std::collections::BTreeSet<Identity> = changes.iter().map(Identity::of).collect();
        assert_eq!(ids.len(), changes.len(), "{ids:?}");
        assert!(!ids.contains(&Identity::of(&a)));
    }
}
