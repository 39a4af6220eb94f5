//! Results → consensus: group the results by stream and count, compare their digests.

use super::StreamKey;
use crate::report::{TrialResult, Verdict};
use handoff_model::consensus::{Consensus, ConsensusGroup, Excluded, Member};

/// Compares the digests of `results` (a run's, in order).
///
/// Results group by [`StreamKey`] and messages per sample. A passing result is a member with
/// its digest; one that did not pass is listed as not compared (its verdict already fails the
/// run, and it delivered no whole stream). The group's digest is the one most members delivered,
/// if one has more members than any other.
pub fn judge(results: &[TrialResult]) -> Consensus {
    let mut out = Consensus::default();
    let mut keys: Vec<(StreamKey, u64)> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let key = match StreamKey::of_result(r) {
            Ok(k) => k,
            Err(why) => {
                out.excluded.push(Excluded {
                    result: i,
                    reason: why.to_string(),
                });
                continue;
            }
        };
        let g = match keys
            .iter()
            .position(|(k, n)| *k == key && *n == r.params.messages)
        {
            Some(g) => g,
            None => {
                out.groups.push(ConsensusGroup {
                    stream: key.to_string(),
                    messages: r.params.messages,
                    digest: None,
                    members: Vec::new(),
                    not_compared: Vec::new(),
                });
                keys.push((key, r.params.messages));
                keys.len() - 1
            }
        };
        let group = &mut out.groups[g];
        match (&r.digest, r.verdict) {
            (Some(d), Verdict::Pass) => group.members.push(Member {
                result: i,
                label: label(r),
                digest: d.clone(),
            }),
            _ => group.not_compared.push(i),
        }
    }
    for g in &mut out.groups {
        g.digest = majority(&g.members);
    }
    out
}

/// The digest more members delivered than any other, if there is one.
fn majority(members: &[Member]) -> Option<String> {
    let mut tally: Vec<(&str, usize)> = Vec::new();
    for m in members {
        match tally.iter_mut().find(|(d, _)| *d == m.digest) {
            Some((_, n)) => *n += 1,
            None => tally.push((&m.digest, 1)),
        }
    }
    tally.sort_by_key(|t| std::cmp::Reverse(t.1));
    match tally.as_slice() {
        [] => None,
        [(d, _)] => Some(d.to_string()),
        [(d, a), (_, b), ..] => (a > b).then(|| d.to_string()),
    }
}

/// A result's transport (a pipeline's hops) and the settings that tell it from the others of
/// its stream: capacity, batch size, options, async driver.
fn label(r: &TrialResult) -> String {
    let p = &r.params;
    let mut s = match &p.pipeline {
        Some(pipe) => pipe
            .hops
            .iter()
            .map(|h| h.transport.as_str())
            .collect::<Vec<_>>()
            .join(">"),
        None => r.transport.clone(),
    };
    if let (Some(c), None) = (p.capacity, &p.pipeline) {
        s.push_str(&format!(" cap={c}"));
    }
    if let Some(b) = p.batch {
        s.push_str(&format!(" batch={b}"));
    }
    for (k, v) in &p.options {
        s.push_str(&format!(" {k}={v}"));
    }
    if p.driver.is_async() {
        s.push_str(&format!(" [{}]", p.driver));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture;
    use crate::payload::PayloadKind;
    use crate::workload::{Pacing, RampSpec, WorkloadKind};

    fn result(transport: &str, digest: &str) -> TrialResult {
        let mut r = fixture::stream();
        r.transport = transport.into();
        r.digest = Some(digest.into());
        r
    }

    #[test]
    fn agreeing_transports_agree_and_one_that_differs_is_named_against_the_majority() {
        let mut rs = vec![
            result("a", "d0"),
            result("b", "d0"),
            result("c", "d0"),
            result("faulty", "d1"),
        ];
        let mut other_payload = result("a", "e0");
        other_payload.params.payload = PayloadKind::Report64;
        rs.push(other_payload);
        let c = judge(&rs);
        assert_eq!(c.groups.len(), 2);
        let g = &c.groups[0];
        assert_eq!(g.digest.as_deref(), Some("d0"));
        assert!(!g.agreed());
        let names: Vec<&str> = g.dissenters().map(|m| m.label.as_str()).collect();
        assert_eq!(names.len(), 1);
        assert!(names[0].starts_with("faulty"), "{names:?}");
        assert_eq!(g.majority().count(), 3);
        assert!(c.groups[1].agreed());
        assert!(c.failed());
        rs.remove(3);
        assert!(!judge(&rs).failed());
    }

    #[test]
    fn no_majority_names_every_member_and_failed_trials_are_not_compared() {
        let mut failed = result("leaky", "d9");
        failed.verdict = Verdict::Fail;
        let c = judge(&[result("a", "d0"), result("b", "d1"), failed]);
        let g = &c.groups[0];
        assert_eq!(g.digest, None);
        assert_eq!(g.dissenters().count(), 2);
        assert_eq!(g.not_compared, [2]);
        assert!(c.failed());
        // A group none of whose trials passed has nobody to disagree.
        let mut hung = result("stuck", "d0");
        hung.verdict = Verdict::Hung;
        let c = judge(&[hung]);
        assert!(c.groups[0].agreed() && !c.failed(), "{c:?}");
    }

    #[test]
    fn other_counts_are_other_groups_and_ramps_are_left_out() {
        let mut longer = result("b", "d5");
        longer.params.messages *= 2;
        let mut ramp = result("r", "d7");
        ramp.workload = WorkloadKind::Ramp;
        ramp.params.pacing = Pacing::Ramp(RampSpec::default());
        let c = judge(&[result("a", "d0"), longer, ramp]);
        assert_eq!(c.groups.len(), 2);
        assert!(!c.failed());
        assert_eq!(c.excluded.len(), 1);
        assert_eq!(c.excluded[0].result, 2);
    }
}
