//! Checks a trial's parameters against a transport's declared semantics before anything runs.

use crate::message::MAX_PRODUCERS;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::semantics::{Arity, Bound, ConsumerStyle, Ordering, WaitStrategy};
use crate::transport::TransportInfo;
use crate::workload::{Messages, Pacing, TrialSpec, WorkloadKind};

/// `Ok` if the transport can run `spec`; otherwise the `unsupported` or `invalid` outcome.
pub(crate) fn check_support(
    info: &TransportInfo,
    spec: &TrialSpec,
) -> Result<(), Box<SampleOutcome>> {
    let sem = &info.semantics;
    let unsupported = |why: String| {
        Err(Box::new(SampleOutcome::status_only(
            SampleStatus::Unsupported(why),
            Placement::default(),
        )))
    };
    let invalid = |why: String| {
        Err(Box::new(SampleOutcome::status_only(
            SampleStatus::Invalid(why),
            Placement::default(),
        )))
    };
    if spec.producers == 0 || spec.consumers == 0 {
        return invalid("producers and consumers must be at least 1".into());
    }
    if spec.producers > MAX_PRODUCERS {
        return invalid(format!(
            "at most {MAX_PRODUCERS} producers (message header limit)"
        ));
    }
    match spec.workload {
        WorkloadKind::Spsc | WorkloadKind::PingPong
            if spec.producers != 1 || spec.consumers != 1 =>
        {
            return invalid(format!(
                "{} takes exactly 1 producer and 1 consumer",
                spec.workload
            ));
        }
        WorkloadKind::Mpsc if spec.consumers != 1 => {
            return invalid(format!("{} takes exactly 1 consumer", spec.workload));
        }
        _ => {}
    }
    if spec.consumers > 1 && sem.is_broadcast() && !spec.workload.is_open_loop() {
        return unsupported(format!(
            "{} broadcasts (every consumer receives every message) and {} shares one stream among its consumers; run a fan-out instead: a paced or pipeline trial with consumers = {}",
            info.name, spec.workload, spec.consumers
        ));
    }
    if spec.consumers > 1 && spec.workload.is_open_loop() && !sem.is_broadcast() {
        return unsupported(format!(
            "{} consumers make a fan-out, where every consumer receives every message; {} gives each message to one consumer only (fan-out needs a broadcast transport, e.g. bus or crossbeam-fanout)",
            spec.consumers, info.name
        ));
    }
    if spec.workload.is_open_loop() && sem.consumer_style == ConsumerStyle::Callback {
        return unsupported(format!(
            "{} needs a pull consumer that stamps each message's arrival; this transport calls its consumer back",
            spec.workload
        ));
    }
    if spec.workload.is_open_loop() {
        if let Pacing::Rate(0) = spec.pacing {
            return invalid("rate must be at least 1 message per second".into());
        }
    }
    if sem.ordering == Ordering::Latest && spec.workload != WorkloadKind::Pipeline {
        return unsupported(format!(
            "{} needs every message delivered; this transport delivers the latest value only (it conflates): use it as a hop of a `latest` pipeline",
            spec.workload
        ));
    }
    if !sem.producers.allows(spec.producers) {
        return unsupported(format!(
            "{} producers: the transport is single-producer ({})",
            spec.producers,
            sem.topology_label()
        ));
    }
    if !sem.consumers.allows(spec.consumers) {
        return unsupported(format!(
            "{} consumers: the transport is single-consumer ({})",
            spec.consumers,
            sem.topology_label()
        ));
    }
    if spec.workload == WorkloadKind::Mpmc && sem.consumers != Arity::Many {
        return unsupported(
            "mpmc needs a transport whose consumers share one stream (many consumers, not a broadcast)".into(),
        );
    }
    if spec.workload == WorkloadKind::PingPong && sem.consumer_style == ConsumerStyle::Callback {
        return unsupported(
            "ping-pong needs a pull consumer; this transport calls its consumer back".into(),
        );
    }
    if spec.driver.is_async() && sem.wait != WaitStrategy::Async {
        return unsupported(format!(
            "driver {} runs async transports only; {} is a blocking transport (run it with driver threads)",
            spec.driver, info.name
        ));
    }
    if sem.ordering.is_conflating() && spec.workload.counts_every_message() {
        return unsupported(format!(
            "{} delivers only the latest value (conflating) and {} verifies that every message arrives exactly once; it needs a conflating workload",
            info.name, spec.workload
        ));
    }
    if matches!(sem.bound, Bound::Overwriting { .. })
        && matches!(
            spec.workload,
            WorkloadKind::Spsc | WorkloadKind::Mpsc | WorkloadKind::Mpmc
        )
    {
        // A flood outruns a receiver now and then; only a ring that holds the whole sample
        // never overwrites what a lagging receiver has not read.
        let most = match spec.messages {
            Messages::Fixed(n) => n,
            Messages::Auto { max, .. } => max,
            // Closed loop never soaks (the plan refuses `duration` there).
            Messages::Soak { .. } => u64::MAX,
        };
        if most > spec.capacity as u64 {
            return unsupported(format!(
                "{} floods the channel and this transport has no backpressure (a full one overwrites what a lagging receiver has not read): give it a capacity of at least the messages of a sample ({most}), or run it paced (`-w paced`) or in ping-pong",
                spec.workload
            ));
        }
    }
    if let Some((min_capacity, power_of_two)) = sem.bound.limits() {
        // A limit of this transport's own, not of the parameters: other transports of the same
        // sweep may run this capacity.
        if spec.capacity < min_capacity {
            return unsupported(format!(
                "capacity {} is below this transport's minimum of {min_capacity}",
                spec.capacity
            ));
        }
        if power_of_two && !spec.capacity.is_power_of_two() {
            return unsupported(format!(
                "capacity {} is not a power of two, which this transport requires",
                spec.capacity
            ));
        }
    }
    for (key, value) in &spec.options {
        let Some(opt) = info.options.iter().find(|o| &o.name == key) else {
            let names = info.options.iter().map(|o| o.name.as_str());
            let mut why = crate::suggest::unknown(&format!("option for {}", info.name), key, names);
            if info.options.is_empty() {
                why.push_str(" (it takes no options)");
            }
            return invalid(why);
        };
        // An option declared without values takes any value (the adapter parses it).
        if !opt.values.is_empty() && !opt.values.iter().any(|v| v == value) {
            let why = crate::suggest::unknown(
                &format!("value for option `{key}`"),
                value,
                opt.values.iter().map(String::as_str),
            );
            return invalid(format!("{why} (allowed: {})", opt.values.join(", ")));
        }
    }
    if spec.batch == Some(0) {
        return invalid("batch size must be at least 1".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::PayloadKind;
    use std::collections::BTreeMap;

    fn spec(workload: WorkloadKind, capacity: usize, messages: Messages) -> TrialSpec {
        TrialSpec {
            transport: "tokio-broadcast".into(),
            workload,
            driver: Default::default(),
            payload: PayloadKind::U64,
            capacity,
            producers: 1,
            consumers: 1,
            messages,
            batch: None,
            options: BTreeMap::new(),
            samples: 5,
            warmup: 1,
            timeout_ms: 1000,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing: Pacing::Closed,
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        }
    }

    fn why(r: Result<(), Box<SampleOutcome>>) -> Option<String> {
        match r.err()?.status {
            SampleStatus::Unsupported(s) => Some(s),
            other => panic!("{other:?}"),
        }
    }

    /// A ring that overwrites when full runs a flood only if it holds the whole sample.
    #[test]
    fn an_overwriting_ring_runs_a_flood_only_when_it_holds_the_sample() {
        let catalog = crate::test_catalog::catalog();
        let info = catalog.lookup("tokio-broadcast").unwrap().info();
        assert!(matches!(info.semantics.bound, Bound::Overwriting { .. }));
        let auto = Messages::Auto {
            target_ms: 25,
            min: 10_000,
            max: 20_000_000,
        };
        for w in [WorkloadKind::Spsc, WorkloadKind::Mpsc] {
            let said = why(check_support(info, &spec(w, 1024, auto))).expect("refused");
            assert!(said.contains("no backpressure"), "{said}");
            assert!(said.contains("(20000000)"), "{said}");
            assert_eq!(
                why(check_support(
                    info,
                    &spec(w, 1 << 20, Messages::Fixed(1 << 20))
                )),
                None
            );
        }
        // One message in flight: nothing to overwrite.
        assert_eq!(
            why(check_support(
                info,
                &spec(WorkloadKind::PingPong, 1024, auto)
            )),
            None
        );
    }
}
