//! One message count per stream: digests can only be compared between samples of one length.
//!
//! **The rule.** Under consensus, every trial of a stream ([`StreamKey`]) runs one count:
//! * fixed counts must be equal: trials of one stream that ask for different fixed counts, or
//!   for a fixed count and `auto`, are refused when the plan is built ([`conflict`]);
//! * `auto` counts are calibrated trial by trial as always, then every trial of the stream runs
//!   the **smallest** of them ([`one_count`]). The slowest transport's sample lasts its target;
//!   every faster transport's sample is shorter than its own target, never longer, so asking for
//!   consensus never makes a run longer than it was. No count falls below `min_messages`, which
//!   every calibrated count respects.

use super::StreamKey;
use crate::workload::{Messages, TrialSpec};

/// The one count a stream's trials run: the smallest of their calibrated counts (see the module
/// docs), or `None` if none of them calibrated.
pub(crate) fn one_count(calibrated: impl IntoIterator<Item = u64>) -> Option<u64> {
    calibrated.into_iter().min()
}

/// For each trial (its stream, `None` if left out; its calibrated count, `None` if it stopped),
/// the count it runs under consensus: the one count of its stream, or `None` where nothing
/// changes (left out, or stopped).
pub(crate) fn unify(trials: &[(Option<StreamKey>, Option<u64>)]) -> Vec<Option<u64>> {
    trials
        .iter()
        .map(|(key, count)| {
            let key = key.as_ref()?;
            count.as_ref()?;
            one_count(
                trials
                    .iter()
                    .filter(|(k, _)| k.as_ref() == Some(key))
                    .filter_map(|(_, c)| *c),
            )
        })
        .collect()
}

/// Two trials of one stream whose requested counts cannot be made one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The first trial of the stream that asked for a count (index into the trials).
    pub first: usize,
    /// A later trial of the same stream that asked for another one.
    pub second: usize,
    /// What is wrong, and what to do.
    pub message: String,
}

/// The first pair of trials of one stream that ask for counts that cannot be made one: two
/// different fixed counts, or a fixed count and `auto`.
pub(crate) fn conflict(trials: &[TrialSpec]) -> Option<Conflict> {
    let mut seen: Vec<(StreamKey, usize)> = Vec::new();
    for (i, t) in trials.iter().enumerate() {
        let Ok(key) = StreamKey::of_spec(t) else {
            continue;
        };
        let Some(&(_, first)) = seen.iter().find(|(k, _)| *k == key) else {
            seen.push((key, i));
            continue;
        };
        let f = &trials[first];
        let differ = match (f.messages, t.messages) {
            (Messages::Fixed(a), Messages::Fixed(b)) => a != b,
            (Messages::Auto { .. }, Messages::Auto { .. }) => false,
            _ => true,
        };
        if differ {
            return Some(Conflict {
                first,
                second: i,
                message: format!(
                    "consensus compares the digests of one stream ({key}) at one message count, but `{}` asks for {} and `{}` for {}: give every trial of the stream the same `messages` (a count, or \"auto\" to calibrate one for all), or run without consensus",
                    f.label(),
                    f.messages,
                    t.label(),
                    t.messages
                ),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::PayloadKind;
    use crate::workload::{Pacing, RampSpec, WorkloadKind};

    fn key(payload: PayloadKind) -> Option<StreamKey> {
        Some(StreamKey {
            workload: WorkloadKind::Spsc,
            payload,
            producers: 1,
            consumers: 1,
            rate: None,
            merge: None,
        })
    }

    #[test]
    fn every_trial_of_a_stream_runs_its_smallest_calibrated_count() {
        let u64 = key(PayloadKind::U64);
        let r64 = key(PayloadKind::Report64);
        let counts = unify(&[
            (u64.clone(), Some(3_400_000)),
            (r64.clone(), Some(900_000)),
            (u64.clone(), Some(340_000)),
            // Stopped during calibration: keeps no count, lowers nobody's.
            (u64.clone(), None),
            (r64.clone(), Some(1_200_000)),
            // Left out (a ramp): untouched.
            (None, Some(10)),
        ]);
        assert_eq!(
            counts,
            [
                Some(340_000),
                Some(900_000),
                Some(340_000),
                None,
                Some(900_000),
                None
            ]
        );
        assert_eq!(one_count([]), None);
    }

    fn spec(transport: &str, messages: Messages) -> TrialSpec {
        let mut plan = crate::plan::Plan::parse(
            &format!("[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"{transport}\"]\n"),
            "t.toml",
            &crate::test_catalog::catalog(),
        )
        .unwrap();
        let mut t = plan.trials.remove(0);
        t.messages = messages;
        t
    }

    #[test]
    fn different_fixed_counts_of_one_stream_conflict_and_name_both_trials() {
        let auto = Messages::Auto {
            target_ms: 40,
            min: 10,
            max: 100,
        };
        let other_auto = Messages::Auto {
            target_ms: 5,
            min: 1,
            max: 10,
        };
        let same = [
            spec("rtrb", Messages::Fixed(1000)),
            spec("crossbeam-bounded", Messages::Fixed(1000)),
        ];
        assert_eq!(conflict(&same), None);
        assert_eq!(
            conflict(&[spec("rtrb", auto), spec("crossbeam-bounded", other_auto)]),
            None,
            "auto counts are made one after calibration"
        );
        let c = conflict(&[
            spec("rtrb", Messages::Fixed(1000)),
            spec("crossbeam-bounded", Messages::Fixed(2000)),
        ])
        .unwrap();
        assert_eq!((c.first, c.second), (0, 1));
        assert!(c.message.contains("rtrb spsc u64"), "{}", c.message);
        assert!(c.message.contains("asks for 1000"), "{}", c.message);
        assert!(c.message.contains("for 2000"), "{}", c.message);
        let mixed = conflict(&[
            spec("rtrb", auto),
            spec("kanal-bounded", Messages::Fixed(5)),
        ]);
        assert!(mixed.unwrap().message.contains("auto(40 ms)"));
        // Other streams, or trials left out, never conflict.
        let mut other = spec("rtrb", Messages::Fixed(7));
        other.payload = PayloadKind::Report64;
        let mut ramp = spec("rtrb", Messages::Fixed(9));
        ramp.workload = WorkloadKind::Ramp;
        ramp.pacing = Pacing::Ramp(RampSpec::default());
        assert_eq!(
            conflict(&[spec("rtrb", Messages::Fixed(1000)), other, ramp]),
            None
        );
    }
}
