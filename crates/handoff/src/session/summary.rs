//! Summarising a trial: turning its samples into its result (verdict, statistics, latency and
//! open-loop figures, the parameters it ran with, its distance to the machine's limits), then
//! attaching the lints over that result (see [`crate::lints`]).
//!
//! Open-loop figures are merged in [`paced`], distances to the limits judged in [`limits`].

mod limits;
mod paced;

use crate::catalog::Catalog;
use crate::environment::Environment;
use crate::executor::Printed;
use crate::histogram;
use crate::lints;
use crate::memory::MemoryFigures;
use crate::open_loop::ramp::RampOutcome;
use crate::outcome::{SampleOutcome, SampleStatus, WorkerShare};
use crate::placement::Placement;
use crate::probes::Limits;
use crate::report::{Latency, LimitDistance, Params, RampResult, RawSample, TrialResult, Verdict};
use crate::semantics::{Locality, Semantics};
use crate::stats::modes::{self, Modes};
use crate::stats::Summary;
use crate::workload::{Boundary, Driver, Messages, Pacing, TrialSpec, WorkloadKind};
use handoff_model::cpu::CpuFigures;
use std::collections::BTreeMap;

/// What a trial ran, as its summary reads it.
pub(super) struct Ran<'a> {
    /// The trial.
    pub spec: &'a TrialSpec,
    /// Messages per sample, as calibrated (per step, for a ramp).
    pub messages: u64,
    /// Its timed samples (the ones that passed).
    pub outcomes: &'a [SampleOutcome],
    /// The sample that stopped it, if one did not pass.
    pub stop: Option<&'a SampleOutcome>,
    /// A ramp's search.
    pub ramp: Option<&'a RampOutcome>,
    /// Where its last sample ran.
    pub placement: &'a Placement,
    /// What its workers printed.
    pub printed: Printed,
}

/// The limits a trial's result is judged against: a probe of the run, and which (see
/// [`LimitDistance::reprobe`]).
#[derive(Clone, Copy)]
pub(super) struct Judged<'a> {
    /// What the probe measured.
    pub limits: &'a Limits,
    /// `None`: the probe before the trials; `Some(i)`: the run's re-probe `i`.
    pub reprobe: Option<usize>,
}

/// The result of trial `t`: its verdict, statistics, figures and distance to the limits, then
/// the lints over all of it (see [`lints::evaluate`]).
pub(super) fn summarise(
    catalog: &Catalog,
    t: Ran<'_>,
    judged: Option<Judged<'_>>,
    env: &Environment,
) -> TrialResult {
    let limits = judged.map(|j| j.limits);
    let spec = t.spec;
    let semantics = effective_semantics(catalog, spec);
    let (verdict, violation) = verdict(t.stop);
    let samples = raw_samples(t.outcomes);
    let rates: Vec<f64> = samples.iter().map(|s| s.msgs_per_s).collect();
    let throughput = Summary::of(&rates);
    let submit = Summary::of(
        &samples
            .iter()
            .filter_map(RawSample::submit_per_s)
            .collect::<Vec<_>>(),
    )
    .filter(|_| samples.iter().all(|s| s.submit_ns.is_some()));
    let ns_per_msg = Summary::of(&samples.iter().map(|s| s.ns_per_msg).collect::<Vec<_>>());
    let modes = regimes(spec, &samples);
    let open_loop = spec.workload.is_open_loop();
    let latency = merged_latency(
        t.outcomes.iter().map(|o| o.latency.as_deref()),
        if open_loop {
            "one-way from intended send"
        } else {
            "round-trip"
        },
    );
    let paced = if open_loop {
        paced::paced_result(t.outcomes)
    } else {
        None
    };
    let ramp = t.ramp.map(|search| RampResult {
        search: search.clone(),
        saturating_hop: paced::saturating_hop(spec, search),
    });
    let capacity = match semantics.bound {
        b if b.has_capacity() => Some(spec.capacity),
        _ => None,
    };
    let same_worker = t
        .outcomes
        .iter()
        .filter_map(|o| o.same_worker)
        .reduce(WorkerShare::merge)
        .and_then(|s| s.fraction());
    let limit = limits.and_then(|lim| {
        limits::limit_distance(
            lim,
            spec,
            &semantics,
            same_worker,
            latency.as_ref(),
            throughput.as_ref(),
        )
        .map(|d| LimitDistance {
            reprobe: judged.and_then(|j| j.reprobe),
            ..d
        })
    });

    let mut result = TrialResult {
        transport: spec.transport.clone(),
        workload: spec.workload,
        params: Params {
            defaults: defaults(catalog, spec),
            ..params(spec, capacity, effective_messages(spec, t.messages))
        },
        semantics,
        placement: t.placement.clone(),
        verdict,
        violation,
        throughput,
        submit,
        ns_per_msg,
        latency,
        failed_sends: samples.iter().map(|s| s.failed_sends).sum(),
        failed_recvs: samples.iter().map(|s| s.failed_recvs).sum(),
        redelivered: samples.iter().map(|s| s.redelivered).sum(),
        lost: samples.iter().map(|s| s.lost).sum(),
        digest: t.outcomes.last().map(|o| format!("{:016x}", o.digest)),
        limit,
        lints: Vec::new(),
        samples,
        paced,
        ramp,
        modes,
        same_worker,
        memory: MemoryFigures::of(
            &t.outcomes
                .iter()
                .filter_map(|o| o.memory)
                .collect::<Vec<_>>(),
        ),
        cpu: cpu_figures(t.outcomes),
        printed: Some(t.printed).filter(|p| !p.is_empty()),
        origin: catalog
            .get(&spec.transport)
            .map(|e| e.info().origin.clone())
            .unwrap_or_default(),
        code: None,
    };
    result.lints = lints::evaluate(
        &result,
        &lints::Context {
            pin_requested: spec.pin,
            limits,
            environment: env,
        },
    );
    result
}

/// The transport's declared semantics as this trial ran it: an option such as `wait=block`
/// changes how it waits, and tasks on a current-thread runtime make any hand-off a same-thread
/// one (shown, and ranked, as one).
/// The transport's options `spec` does not give, with their defaults (see [`Params::defaults`]).
fn defaults(catalog: &Catalog, spec: &TrialSpec) -> BTreeMap<String, String> {
    let Some(entry) = catalog.get(&spec.transport) else {
        return BTreeMap::new();
    };
    entry
        .info()
        .options
        .iter()
        .filter(|o| !spec.options.contains_key(&o.name))
        .filter_map(|o| Some((o.name.clone(), o.values.first()?.clone())))
        .collect()
}

fn effective_semantics(catalog: &Catalog, spec: &TrialSpec) -> Semantics {
    let info = catalog.get(&spec.transport).map(|e| e.info().clone());
    let mut semantics = info
        .as_ref()
        .map(|i| i.semantics)
        .unwrap_or_else(unknown_semantics);
    // An option such as `wait=block` or `wake=spin` changes how this trial's transport waits.
    if let Some(info) = &info {
        for (key, value) in &spec.options {
            let chosen = info.options.iter().find(|o| &o.name == key);
            if let Some(wait) = chosen.and_then(|o| o.wait_for(value)) {
                semantics.wait = wait;
            }
        }
    }
    // Tasks on a current-thread runtime take turns on one thread: whatever the transport can do,
    // a closed-loop result is a same-thread hand-off and is shown (and ranked) as one. An
    // open-loop one is not: its injectors are OS threads outside the runtime (see
    // `engine::open_loop`), so its first hop crosses threads.
    if spec.driver == Driver::TokioCurrent && !spec.workload.is_open_loop() {
        semantics.locality = Locality::SameThread;
    }
    // A pipeline is as far from its threads as its farthest hop, and delivers as its weakest.
    if let Some(p) = &spec.pipeline {
        for hop in &p.hops {
            let Some(s) = catalog.get(&hop.transport).map(|e| e.info().semantics) else {
                continue;
            };
            if s.locality == Locality::Broker {
                semantics.locality = Locality::Broker;
            }
            semantics.delivery = semantics.delivery.then(s.delivery);
        }
    }
    // Producers in one process and consumers in another: every message crosses the boundary.
    if spec.placement == Boundary::Processes {
        semantics.locality = Locality::CrossProcess;
    }
    semantics
}

/// How a trial stopped by `stop` ended, in words: its verdict and why.
pub(in crate::session) fn describe_stop(stop: &SampleOutcome) -> String {
    match verdict(Some(stop)) {
        (v, Some(why)) => format!("{v}: {why}"),
        (v, None) => v.to_string(),
    }
}

/// The verdict of a trial stopped by `stop` (none: every sample passed), and why.
fn verdict(stop: Option<&SampleOutcome>) -> (Verdict, Option<String>) {
    match stop.map(|o| &o.status) {
        None => (Verdict::Pass, None),
        Some(SampleStatus::Pass) => (Verdict::Pass, None),
        Some(SampleStatus::Fail(v)) => (Verdict::Fail, Some(v.to_string())),
        Some(SampleStatus::Hung(s)) => (Verdict::Hung, Some(s.clone())),
        Some(SampleStatus::Crashed(s)) => (Verdict::Crashed, Some(s.clone())),
        Some(SampleStatus::Unsupported(s)) => (Verdict::Unsupported, Some(s.clone())),
        Some(SampleStatus::Invalid(s)) => (Verdict::Invalid, Some(s.clone())),
    }
}

/// The CPU cost of the timed samples `outcomes`: the medians of cores busy per side and of CPU
/// time per message, over the samples that measured it; `None` if none did.
fn cpu_figures(outcomes: &[SampleOutcome]) -> Option<CpuFigures> {
    let measured: Vec<_> = outcomes
        .iter()
        .filter_map(|o| o.cpu.map(|cpu| (cpu, o.elapsed_ns, o.messages)))
        .collect();
    CpuFigures::of(&measured)
}

/// The raw figures of each timed sample.
fn raw_samples(outcomes: &[SampleOutcome]) -> Vec<RawSample> {
    outcomes
        .iter()
        .map(|o| {
            let secs = o.elapsed_ns.max(1) as f64 / 1e9;
            let latency = o
                .latency
                .as_deref()
                .and_then(|h| crate::histogram::decode(h).ok())
                .filter(|h| !h.is_empty());
            RawSample {
                messages: o.messages,
                elapsed_ns: o.elapsed_ns,
                msgs_per_s: o.messages as f64 / secs,
                ns_per_msg: o.elapsed_ns as f64 / o.messages.max(1) as f64,
                failed_sends: o.failed_sends,
                failed_recvs: o.failed_recvs,
                layout: o.layout.clone(),
                p50_ns: latency.as_ref().map(|h| h.value_at_quantile(0.5)),
                p99_ns: latency.as_ref().map(|h| h.value_at_quantile(0.99)),
                memory: o.memory,
                submit_ns: o.submit_ns,
                cpu: o.cpu,
                redelivered: o.redelivered,
                lost: o.lost,
                windows: o
                    .paced
                    .as_ref()
                    .map(|p| p.windows.clone())
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// Two regimes in the timed samples, if they fell into two: a stream's messages per second, a
/// ping-pong's nanoseconds per round trip. An open-loop run's samples go at the rate asked
/// for, so they are not judged.
fn regimes(spec: &TrialSpec, samples: &[RawSample]) -> Option<Modes> {
    let figure: fn(&RawSample) -> f64 = match spec.workload {
        _ if spec.workload.is_open_loop() || !matches!(spec.pacing, Pacing::Closed) => return None,
        WorkloadKind::PingPong => |s| s.ns_per_msg,
        _ => |s| s.msgs_per_s,
    };
    modes::detect(&samples.iter().map(figure).collect::<Vec<_>>())
}

/// Messages per sample as run: `messages` shared out evenly among the producers (round trips
/// for ping-pong).
fn effective_messages(spec: &TrialSpec, messages: u64) -> u64 {
    let per_producer = messages / spec.producers.max(1) as u64;
    match spec.workload {
        WorkloadKind::PingPong => messages,
        _ => per_producer.max(1) * spec.producers as u64,
    }
}

/// Every effective parameter of a trial, echoed with its result.
fn params(spec: &TrialSpec, capacity: Option<usize>, messages: u64) -> Params {
    Params {
        capacity,
        messages,
        messages_requested: spec.messages.to_string(),
        target_ms: match (spec.messages, &spec.pacing) {
            (Messages::Auto { target_ms, .. }, Pacing::Closed) => Some(target_ms),
            _ => None,
        },
        producers: spec.producers,
        consumers: spec.consumers,
        driver: spec.driver,
        payload: spec.payload,
        payload_bytes: spec.payload.wire_bytes(),
        batch: spec.batch,
        options: spec.options.clone(),
        defaults: BTreeMap::new(),
        samples: spec.samples,
        warmup: spec.warmup,
        timeout_ms: spec.timeout_ms,
        pacing: spec.pacing.clone(),
        pipeline: spec.pipeline.clone(),
        fresh_process: spec.fresh_process,
    }
}

/// The latency histograms of `encoded` (one per sample; a sample may have none) merged into
/// one, described as `kind`; `None` when they hold no value.
pub(super) fn merged_latency<'a>(
    encoded: impl Iterator<Item = Option<&'a str>>,
    kind: &str,
) -> Option<Latency> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for enc in encoded {
        let Some(enc) = enc else { continue };
        let Ok(h) = histogram::decode(enc) else {
            continue;
        };
        match merged.as_mut() {
            None => merged = Some(h),
            Some(m) => {
                let _ = m.add(&h);
            }
        }
    }
    let h = merged?;
    if h.is_empty() {
        return None;
    }
    Some(Latency {
        kind: kind.into(),
        count: h.len(),
        min: h.min(),
        p50: h.value_at_quantile(0.50),
        p90: h.value_at_quantile(0.90),
        p95: Some(h.value_at_quantile(0.95)),
        p99: h.value_at_quantile(0.99),
        p999: h.value_at_quantile(0.999),
        p9999: h.value_at_quantile(0.9999),
        max: h.max(),
        mean: h.mean(),
        histogram: histogram::encode(&h),
    })
}

fn unknown_semantics() -> crate::semantics::Semantics {
    use crate::semantics::*;
    Semantics {
        producers: Arity::One,
        consumers: Arity::One,
        ordering: Ordering::None,
        bound: Bound::Unbounded,
        wait: WaitStrategy::None,
        batch: false,
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
        delivery: Delivery::ExactlyOnce,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::SampleCpu;

    /// A passing sample of `messages` over `elapsed_ns`, with `cpu` measured.
    fn sample(messages: u64, elapsed_ns: u64, cpu: Option<SampleCpu>) -> SampleOutcome {
        SampleOutcome {
            messages,
            elapsed_ns,
            cpu,
            ..SampleOutcome::status_only(SampleStatus::Pass, Placement::default())
        }
    }

    #[test]
    fn cpu_figures_are_medians_over_the_samples_that_measured_them() {
        let cpu = |p: u64, c: u64| {
            Some(SampleCpu {
                producer_ns: p,
                consumer_ns: c,
                runtime_ns: 0,
                page_faults: None,
            })
        };
        let outcomes = [
            // 100 ms samples of a million messages.
            sample(1_000_000, 100_000_000, cpu(100_000_000, 90_000_000)),
            sample(1_000_000, 100_000_000, cpu(80_000_000, 100_000_000)),
            sample(1_000_000, 100_000_000, cpu(95_000_000, 95_000_000)),
            // Not measured (an async driver): left out.
            sample(1_000_000, 100_000_000, None),
        ];
        let f = cpu_figures(&outcomes).expect("measured");
        assert_eq!(f.samples, 3);
        assert!((f.producer_cores - 0.95).abs() < 1e-9, "{f:?}");
        assert!((f.consumer_cores - 0.95).abs() < 1e-9, "{f:?}");
        // 190, 180 and 190 ns of CPU per message.
        assert!((f.ns_per_msg - 190.0).abs() < 1e-9, "{f:?}");
        assert_eq!(cpu_figures(&outcomes[3..]), None);
        assert_eq!(cpu_figures(&[]), None);
    }

    #[test]
    fn a_current_thread_runtime_is_same_thread_only_in_a_closed_loop() {
        use crate::workload::{Messages, Pacing, WorkloadKind};
        let catalog = crate::test_catalog::catalog();
        let spec = |workload: WorkloadKind, pacing: Pacing| TrialSpec {
            transport: "tokio-mpsc-bounded".into(),
            workload,
            driver: Driver::TokioCurrent,
            payload: crate::payload::PayloadKind::U64,
            capacity: 1024,
            producers: 1,
            consumers: 1,
            messages: Messages::Fixed(1000),
            batch: None,
            options: Default::default(),
            samples: 3,
            warmup: 1,
            timeout_ms: 1000,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing,
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        };
        let of = |s: &TrialSpec| effective_semantics(&catalog, s).locality;
        assert_eq!(
            of(&spec(WorkloadKind::Spsc, Pacing::Closed)),
            Locality::SameThread
        );
        // The injector is a thread outside the runtime: the hand-off crosses threads.
        let paced = of(&spec(WorkloadKind::Paced, Pacing::Rate(1000)));
        assert_ne!(paced, Locality::SameThread);
        let mut threads = spec(WorkloadKind::Paced, Pacing::Rate(1000));
        threads.driver = Driver::Threads;
        assert_eq!(paced, of(&threads));
    }
}
