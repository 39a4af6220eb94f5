//! Lints: warnings attached to a result where the methodology is at risk.
//!
//! A lint never changes a figure; it says why the figure may not mean what it seems to.
//!
//! Every rule is evaluated here, by [`evaluate`], over a summarised [`TrialResult`] and the
//! little the result does not hold ([`Context`]: whether pinning was asked for, the machine's
//! limits, the environment). The session summarises; it does not judge. One file per family of
//! rules:
//!
//! | file           | rules                                                                  |
//! |----------------|------------------------------------------------------------------------|
//! | `placement.rs` | threads and cores (`oversubscribed`, `unpinned`, `pinning-failed`), same-thread hand-offs, `same-worker`, `batch-emulated`, `debug-build` |
//! | `samples.rs`   | the quality of the timed samples (`capacity-never-fills`, `noisy`, `outliers`, `few-samples`, `bimodal`; `outliers` gives way to `bimodal`, which names both regimes) |
//! | `duration.rs`  | how long the timed samples ran (`slow`, `short-samples`)               |
//! | `latency.rs`   | latency percentiles (`clock-step`, `too-few-for-percentile`)            |
//! | `open_loop.rs` | paced runs and ramps (`rate-missed`, `refusals-unobservable`, `timing-overhead`, `refused` at a fixed rate, `ramp-ceiling`, `soak-not-sustained`) |
//! | `memory.rs`    | the worker around the transport (`memory-growth`, `page-faults`, `printed`) |
//! | `delivery.rs`  | how often messages arrived and where the broker ran (`redelivered`, `lost`, `broker-shares-cores`) |
//! | `limits.rs`    | the distance to the machine's limit (`probe-unstable`: the probe had repetitions set aside; `beyond-limit`: disturbed probe or beyond its geometry) |

mod delivery;
mod drift;
mod duration;
mod latency;
mod limits;
pub use handoff_model::lint;
pub(crate) mod memory;
mod open_loop;
mod placement;
mod samples;

#[cfg(test)]
pub(crate) use handoff_model::fixture;

pub use lint::Lint;

use crate::environment::Environment;
use crate::probes::Limits;
use crate::report::TrialResult;

/// What the lint rules need besides the result itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<'a> {
    /// Whether the trial asked for its threads to be pinned.
    pub pin_requested: bool,
    /// The machine's limits measured in the run, if they were.
    pub limits: Option<&'a Limits>,
    /// The machine and build the run ran on.
    pub environment: &'a Environment,
}

/// Every lint of `result`, in a fixed order: placement, locality (same-thread, same-worker), the
/// samples and their duration, latency, batch, build, open loop, the limit.
pub(crate) fn evaluate(result: &TrialResult, cx: &Context) -> Vec<Lint> {
    let mut lints = Vec::new();
    // A trial that never ran has no samples, placement or figures to judge.
    if !result.verdict.ran() {
        return lints;
    }
    lints.extend(placement::threads(result, cx.pin_requested));
    lints.extend(placement::locality(result));
    lints.extend(placement::same_worker(result));
    lints.extend(delivery::broker_shares_cores(result));
    lints.extend(delivery::redelivered(result));
    lints.extend(delivery::lost(result));
    lints.extend(samples::capacity_never_fills(result));
    lints.extend(samples::throughput(result));
    lints.extend(samples::bimodal(result));
    lints.extend(duration::slow(result));
    lints.extend(duration::short(result));
    lints.extend(latency::clock_step(cx.limits, result.latency.as_ref()));
    lints.extend(latency::too_few_for_percentile(result));
    lints.extend(placement::batch_emulated(result));
    lints.extend(placement::debug_build(cx.environment));
    lints.extend(open_loop::paced(result));
    lints.extend(open_loop::refused(result));
    lints.extend(open_loop::ramp_ceiling(result));
    lints.extend(open_loop::soak_not_sustained(result));
    lints.extend(drift::drift(result));
    lints.extend(limits::probe_unstable(result, cx.limits));
    lints.extend(limits::beyond_limit(result, cx.limits));
    lints.extend(memory::growth(result));
    lints.extend(memory::page_faults(result));
    lints.extend(memory::printed(result));
    lints
}

#[cfg(test)]
mod tests {
    use super::fixture::{environment, latency, limits, paced, stream, with_rates};
    use super::*;
    use crate::model::lint::BeyondCause;
    use crate::report::LimitDistance;
    use crate::semantics::Locality;

    #[test]
    fn a_quiet_pinned_release_stream_has_no_lint() {
        let env = environment();
        let cx = Context {
            pin_requested: true,
            limits: Some(&limits(Some(70.0), Some(10.0))),
            environment: &env,
        };
        assert_eq!(evaluate(&stream(), &cx), vec![]);
    }

    #[test]
    fn closed_loop_lints_come_in_a_fixed_order() {
        let mut r = with_rates(stream(), &[100.0, 130.0, 70.0, 100.0, 20.0]);
        r.placement.oversubscribed = true;
        r.placement.threads = 3;
        r.placement.cores_available = 2;
        r.semantics.locality = Locality::SameThread;
        r.params.messages = 1000;
        r.latency = Some(latency(50, 500));
        r.params.batch = Some(16);
        r.limit = Some(LimitDistance {
            reprobe: None,
            probe: "stream-bandwidth".into(),
            limit: 50.0,
            ratio: 2.0,
        });
        let mut env = environment();
        env.build_profile = "debug".into();
        let mut lim = limits(None, Some(10.0));
        lim.repetitions = vec![crate::probes::Repetitions::new(
            crate::probes::STREAM,
            vec![20e9, 20.5e9, 19.5e9, 90e9, 20e9],
        )];
        let cx = Context {
            pin_requested: true,
            limits: Some(&lim),
            environment: &env,
        };
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(
            codes,
            [
                "oversubscribed",
                "same-thread",
                "capacity-never-fills",
                "noisy",
                "outliers",
                // Its samples of a million messages at tens of messages per second.
                "slow",
                "clock-step",
                "too-few-for-percentile",
                "batch-emulated",
                "debug-build",
                "probe-unstable",
                "beyond-limit",
            ]
        );
    }

    #[test]
    fn same_worker_follows_the_placement_lints() {
        let mut r = stream();
        r.params.driver = crate::workload::Driver::TokioMulti { workers: 2 };
        r.same_worker = Some(0.92);
        let env = environment();
        let cx = Context {
            pin_requested: false,
            limits: None,
            environment: &env,
        };
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(codes, ["unpinned", "same-worker"]);
        r.same_worker = Some(0.08);
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(codes, ["unpinned"]);
    }

    #[test]
    fn open_loop_lints_follow_the_sample_and_latency_ones() {
        let mut r = with_rates(paced(10_000, 9_000.0), &[9_000.0, 9_000.0]);
        r.paced.as_mut().unwrap().refusals_observable = false;
        r.latency = Some(latency(100, 500));
        let env = environment();
        let cx = Context {
            pin_requested: false,
            limits: None,
            environment: &env,
        };
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(
            codes,
            [
                "unpinned",
                "few-samples",
                "too-few-for-percentile",
                "rate-missed",
                "refusals-unobservable",
                "timing-overhead",
            ]
        );
    }

    #[test]
    fn a_round_trip_beyond_its_limit_is_said_as_a_multiple() {
        let rtt = Lint::BeyondLimit {
            ratio: 0.8,
            round_trip: true,
            cause: BeyondCause::Unjudged,
        };
        assert!(
            rtt.to_string().starts_with("0.80× the measured round trip"),
            "{rtt}"
        );
        let rate = Lint::BeyondLimit {
            ratio: 1.2,
            round_trip: false,
            cause: BeyondCause::Unjudged,
        };
        assert!(
            rate.to_string().starts_with("120% of the measured limit"),
            "{rate}"
        );
        // Reports written before the field existed read as rates, as they were shown then.
        let old: Lint = serde_json::from_str(r#"{"code":"beyond-limit","ratio":1.2}"#).unwrap();
        assert_eq!(old, rate);
    }
}
