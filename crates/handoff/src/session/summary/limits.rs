//! How far a result is from the machine's limits, as the limit probes measured them.

use crate::probes::{self, Limits};
use crate::report::{Latency, LimitDistance, MOSTLY_SAME_WORKER};
use crate::semantics::{Locality, Semantics};
use crate::stats::Summary;
use crate::workload::{Driver, TrialSpec, WorkloadKind};

/// How far a result is from the machine's limit: a ping-pong's p50 from the round trip, a
/// stream's median throughput from the streaming bandwidth; none for an open-loop run (it goes
/// as fast as it is asked to), a same-thread hand-off or one whose hand-offs mostly stayed on
/// one worker thread (the limits are cross-core ones).
pub(super) fn limit_distance(
    lim: &Limits,
    spec: &TrialSpec,
    semantics: &Semantics,
    same_worker: Option<f64>,
    latency: Option<&Latency>,
    throughput: Option<&Summary>,
) -> Option<LimitDistance> {
    match (spec.workload, latency, throughput) {
        // An open-loop run goes as fast as it is asked to, not as fast as it can.
        _ if spec.workload.is_open_loop() => None,
        // The limits are cross-core ones: they say nothing of a same-thread hand-off.
        _ if spec.driver == Driver::TokioCurrent => None,
        _ if same_worker.is_some_and(|s| s > MOSTLY_SAME_WORKER) => None,
        (WorkloadKind::PingPong, Some(l), _) => Some(round_trip_distance(lim, l.p50)),
        (WorkloadKind::PingPong, None, _) => None,
        _ if semantics.locality == Locality::SameThread => None,
        (_, _, Some(tp)) => {
            let cap = lim.stream_msgs_per_s(spec.payload.wire_bytes());
            Some(LimitDistance {
                reprobe: None,
                probe: probes::STREAM.into(),
                limit: cap,
                ratio: tp.median / cap.max(1e-9),
            })
        }
        _ => None,
    }
}

/// How far a ping-pong p50 is from the machine's round trip. Like with like: against the probe
/// stamped by the same timer as the workload (both carry the timer's cost and step), or, in
/// reports from before that probe existed, against the bulk-timed one.
fn round_trip_distance(lim: &Limits, p50: u64) -> LimitDistance {
    let (probe, limit) = match lim.rtt_stamped_ns() {
        Some(stamped) => (probes::RTT_STAMPED, stamped),
        None => (probes::RTT, lim.rtt_ns()),
    };
    LimitDistance {
        reprobe: None,
        probe: probe.into(),
        limit,
        ratio: p50 as f64 / limit.max(1e-9),
    }
}

#[cfg(test)]
mod tests {
    use crate::lints::fixture::limits;

    #[test]
    fn a_round_trip_is_compared_with_the_probe_timed_the_same_way() {
        let d = super::round_trip_distance(&limits(Some(70.0), Some(10.0)), 90);
        assert_eq!(d.probe, "cacheline-rtt-stamped");
        assert_eq!(d.limit, 70.0);
        assert!((d.ratio - 90.0 / 70.0).abs() < 1e-12, "{d:?}");
        // A report from before the stamped probe existed: the bulk-timed one, as then.
        let old = super::round_trip_distance(&limits(None, None), 90);
        assert_eq!(old.probe, "cacheline-rtt");
        assert_eq!(old.limit, 50.0);
    }
}
