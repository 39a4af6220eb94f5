//! Regimes the machine changed, not the transports: two or more results whose slow samples fell
//! in the same rounds.
//!
//! Samples are interleaved: round `r` runs sample `r` of every trial, one after another, within
//! a fraction of a second. When several results are each found in two regimes ([`super::modes`])
//! and their slow samples fall in the same rounds, what changed between those rounds was shared
//! by every one of them: the machine (on a VM, where the host ran the two vCPUs; a neighbour's
//! load; the clock), not each transport's own placement. Their medians then say which rounds
//! each result happened to collect more of, while their ratio within a round still compares
//! them. On the 2-vCPU AMD EPYC VM of `BENCHMARKS.md` the two fast rings (`handoff-spsc`,
//! `rtrb`) flipped between about 60 and about 280 M msgs/s together, in runs of consecutive
//! rounds, under every build and layout tried.
//!
//! [`detect`] takes each two-regime result's samples, marks each round slow or fast by the
//! geometric middle of its two regimes' medians, and reports the largest set of results that
//! agree round for round in at least [`MIN_AGREEMENT`] of the rounds they share.

use super::modes::Modes;
use crate::report::{RawSample, TrialResult, Verdict};
use crate::workload::WorkloadKind;

/// Share of shared rounds in which two results must be in the same regime to be called one
/// machine regime. Two independent results, each slow in half of the rounds, agree in 90% of
/// 10 rounds with probability about 1%, and of 30 rounds well under 0.1%.
pub const MIN_AGREEMENT: f64 = 0.9;

/// Fewest rounds two results must share to be compared.
pub const MIN_ROUNDS: usize = 8;

pub use crate::report::SharedRegimes;

/// The largest set of two-regime results whose slow rounds coincide, if there are two or more.
pub fn detect(results: &[TrialResult]) -> Option<SharedRegimes> {
    let classed: Vec<(usize, Vec<bool>)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.verdict == Verdict::Pass)
        .filter_map(|(i, r)| Some((i, slow_rounds(r, r.modes.as_ref()?))))
        .filter(|(_, s)| s.len() >= MIN_ROUNDS)
        .collect();
    let agree = |a: &[bool], b: &[bool]| -> f64 {
        let n = a.len().min(b.len());
        a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n as f64
    };
    let mut best: Option<Vec<usize>> = None;
    for (a, (_, sa)) in classed.iter().enumerate() {
        let group: Vec<usize> = (0..classed.len())
            .filter(|&b| b == a || agree(sa, &classed[b].1) >= MIN_AGREEMENT)
            .collect();
        // Keep only members that agree with every other member, not just with `a`.
        let group: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&b| {
                group
                    .iter()
                    .all(|&c| c == b || agree(&classed[b].1, &classed[c].1) >= MIN_AGREEMENT)
            })
            .collect();
        if group.len() >= 2 && best.as_ref().map_or(true, |g| group.len() > g.len()) {
            best = Some(group);
        }
    }
    let group = best?;
    let rounds = group.iter().map(|&g| classed[g].1.len()).min()?;
    let mut agreement: f64 = 1.0;
    for (k, &a) in group.iter().enumerate() {
        for &b in &group[k + 1..] {
            agreement = agreement.min(agree(&classed[a].1, &classed[b].1));
        }
    }
    let first = &classed[group[0]].1;
    Some(SharedRegimes {
        results: group.iter().map(|&g| classed[g].0).collect(),
        labels: group
            .iter()
            .map(|&g| {
                let r = &results[classed[g].0];
                format!("{} {}", r.transport, r.workload.name())
            })
            .collect(),
        rounds,
        slow_rounds: (0..rounds).filter(|&r| first[r]).collect(),
        agreement,
    })
}

/// For each sample of `r` in run order, whether it fell in the slow regime of `modes`: below
/// the geometric middle of the two regimes' medians in messages per second (above it in
/// nanoseconds per round trip for ping-pong, whose regimes are found on that figure).
fn slow_rounds(r: &TrialResult, modes: &Modes) -> Vec<bool> {
    let middle = (modes.low.median * modes.high.median).sqrt();
    let slow: fn(&RawSample, f64) -> bool = match r.workload {
        WorkloadKind::PingPong => |s, m| s.ns_per_msg > m,
        _ => |s, m| s.msgs_per_s < m,
    };
    r.samples.iter().map(|s| slow(s, middle)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{stream, with_rates};
    use crate::stats::modes;

    /// A result whose samples are `fast` or `slow` round by round as `pattern` says.
    fn result(name: &str, pattern: &[bool], fast: f64, slow: f64) -> TrialResult {
        let rates: Vec<f64> = pattern
            .iter()
            .enumerate()
            .map(|(i, &s)| (if s { slow } else { fast }) * (1.0 + 0.01 * (i % 3) as f64))
            .collect();
        let mut r = with_rates(stream(), &rates);
        r.transport = name.into();
        r.modes = modes::detect(&rates);
        assert!(r.modes.is_some(), "the fixture has two regimes");
        r
    }

    fn pattern(slow: &[usize], n: usize) -> Vec<bool> {
        (0..n).map(|i| slow.contains(&i)).collect()
    }

    #[test]
    fn two_results_slow_in_the_same_rounds_share_the_machine_regime() {
        let p = pattern(&[13, 14, 15, 16, 17, 18, 19, 20, 21, 22], 30);
        let a = result("ring-a", &p, 280e6, 60e6);
        let b = result("ring-b", &p, 250e6, 65e6);
        let s = detect(&[a, b]).expect("shared");
        assert_eq!(s.results, vec![0, 1]);
        assert_eq!(s.labels, vec!["ring-a spsc", "ring-b spsc"]);
        assert_eq!(s.rounds, 30);
        assert_eq!(s.slow_rounds, (13..=22).collect::<Vec<_>>());
        assert_eq!(s.agreement, 1.0);
    }

    #[test]
    fn regimes_in_different_rounds_are_each_result_s_own() {
        let a = result("ring-a", &pattern(&[0, 1, 2, 3, 4, 5], 20), 280e6, 60e6);
        let b = result(
            "ring-b",
            &pattern(&[10, 11, 12, 13, 14, 15], 20),
            250e6,
            65e6,
        );
        assert_eq!(detect(&[a, b]), None);
    }

    #[test]
    fn one_result_in_two_regimes_or_results_in_one_say_nothing() {
        let p = pattern(&[3, 4, 5, 6], 20);
        let a = result("ring-a", &p, 280e6, 60e6);
        let mut steady = with_rates(stream(), &[100e6; 20]);
        steady.transport = "steady".into();
        assert_eq!(detect(&[a.clone(), steady]), None);
        assert_eq!(detect(&[a]), None);
    }

    #[test]
    fn the_largest_agreeing_set_is_named_and_an_odd_one_left_out() {
        let p = pattern(&[5, 6, 7, 8, 9], 20);
        let q = pattern(&[15, 16, 17, 18, 19], 20);
        let results = vec![
            result("other", &q, 90e6, 30e6),
            result("ring-a", &p, 280e6, 60e6),
            result("ring-b", &p, 250e6, 65e6),
            result("ring-c", &p, 200e6, 50e6),
        ];
        let s = detect(&results).expect("shared");
        assert_eq!(s.results, vec![1, 2, 3]);
    }

    #[test]
    fn too_few_rounds_are_not_compared() {
        let p = pattern(&[0, 1, 2], 6);
        assert_eq!(
            detect(&[result("a", &p, 280e6, 60e6), result("b", &p, 250e6, 65e6)]),
            None
        );
    }
}
