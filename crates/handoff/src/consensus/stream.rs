//! Which trials must deliver the same stream: those with the same [`StreamKey`].
//!
//! A stream is defined by what is sent and where it goes: the workload, the payload, the numbers
//! of producers and consumers, for an open-loop trial its rate, and for a pipeline its merge
//! source (hop and rate: a second stream into the sink). The reactor strategy is not part of
//! the key: every event reaches the sink and is verified whichever fire. Everything else is a setting
//! of the transport or of how it is driven (capacity, batch size, options, driver, pinning), and
//! does not change what must arrive. The message count is not part of the key: consensus gives
//! every trial of a key one count (see `super::count`).
//!
//! Two kinds of trial deliver no stream that can be compared, and are left out:
//! * a ramp: its samples are those of the highest rate it sustained, so its count follows its
//!   own speed;
//! * a pipeline with `latest` delivery: a conflating hop skips values by design, so which values
//!   arrive depends on timing.

use crate::payload::PayloadKind;
use crate::report::TrialResult;
use crate::workload::{Delivery, Pacing, PipelineSpec, TrialSpec, WorkloadKind};
use std::fmt;

/// What makes two trials' streams the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamKey {
    /// Workload.
    pub workload: WorkloadKind,
    /// Payload shape.
    pub payload: PayloadKind,
    /// Producers.
    pub producers: usize,
    /// Consumers.
    pub consumers: usize,
    /// Messages per second, for an open-loop trial.
    pub rate: Option<u64>,
    /// A pipeline's merge source: the hop it feeds and its rate.
    pub merge: Option<(usize, u64)>,
}

impl StreamKey {
    /// The stream of a trial about to run, or why it cannot be compared.
    pub fn of_spec(spec: &TrialSpec) -> Result<StreamKey, &'static str> {
        StreamKey::new(
            spec.workload,
            spec.payload,
            spec.producers,
            spec.consumers,
            &spec.pacing,
            spec.pipeline.as_ref(),
        )
    }

    /// The stream of a trial that ran, or why it cannot be compared.
    pub(crate) fn of_result(r: &TrialResult) -> Result<StreamKey, &'static str> {
        let p = &r.params;
        StreamKey::new(
            r.workload,
            p.payload,
            p.producers,
            p.consumers,
            &p.pacing,
            p.pipeline.as_ref(),
        )
    }

    fn new(
        workload: WorkloadKind,
        payload: PayloadKind,
        producers: usize,
        consumers: usize,
        pacing: &Pacing,
        pipeline: Option<&PipelineSpec>,
    ) -> Result<StreamKey, &'static str> {
        if pipeline.is_some_and(|p| p.delivery == Delivery::Latest) {
            return Err("latest delivery skips values by design: which arrive depends on timing");
        }
        let rate = match pacing {
            Pacing::Closed => None,
            Pacing::Rate(r) => Some(*r),
            Pacing::Ramp(_) => return Err(
                "a ramp's samples are those of the rate it sustained: its count follows its speed",
            ),
        };
        Ok(StreamKey {
            workload,
            payload,
            producers,
            consumers,
            rate,
            merge: pipeline.and_then(|p| p.merge).map(|m| (m.hop, m.rate)),
        })
    }
}

/// `spsc · u64 · 1 → 1`, `paced · report64 · 2 → 1 · 10000/s`.
impl fmt::Display for StreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} · {} · {} → {}",
            self.workload, self.payload, self.producers, self.consumers
        )?;
        if let Some(r) = self.rate {
            write!(f, " · {r}/s")?;
        }
        if let Some((hop, rate)) = self.merge {
            write!(f, " · + source → hop {hop} @ {rate}/s")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Hop, Messages, RampSpec};
    use std::collections::BTreeMap;

    fn spec(transport: &str) -> TrialSpec {
        TrialSpec {
            transport: transport.into(),
            workload: WorkloadKind::Spsc,
            driver: Default::default(),
            payload: PayloadKind::U64,
            capacity: 1024,
            producers: 1,
            consumers: 1,
            messages: Messages::Fixed(1000),
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

    #[test]
    fn transport_settings_do_not_change_the_stream_but_its_definition_does() {
        let a = spec("rtrb");
        let mut b = spec("crossbeam-bounded");
        b.capacity = 64;
        b.batch = Some(256);
        b.options.insert("wait".into(), "spin".into());
        b.messages = Messages::Fixed(5);
        assert_eq!(StreamKey::of_spec(&a), StreamKey::of_spec(&b));
        let mut c = spec("rtrb");
        c.payload = PayloadKind::Report64;
        assert_ne!(StreamKey::of_spec(&a), StreamKey::of_spec(&c));
        assert_eq!(
            StreamKey::of_spec(&c).unwrap().to_string(),
            "spsc · report64 · 1 → 1"
        );
    }

    #[test]
    fn ramps_and_latest_pipelines_are_left_out() {
        let mut r = spec("rtrb");
        r.workload = WorkloadKind::Ramp;
        r.pacing = Pacing::Ramp(RampSpec::default());
        assert!(StreamKey::of_spec(&r).unwrap_err().contains("ramp"));
        let mut p = spec("latest-cell");
        p.workload = WorkloadKind::Pipeline;
        p.pacing = Pacing::Rate(1000);
        p.pipeline = Some(PipelineSpec {
            hops: vec![Hop {
                transport: "latest-cell".into(),
                capacity: 1,
            }],
            stage_work_ns: 0,
            delivery: Delivery::Latest,
            reactor: Default::default(),
            reactor_work_ns: 0,
            merge: None,
        });
        assert!(StreamKey::of_spec(&p).unwrap_err().contains("latest"));
        p.pipeline.as_mut().unwrap().delivery = Delivery::Sequential;
        assert_eq!(
            StreamKey::of_spec(&p).unwrap().to_string(),
            "pipeline · u64 · 1 → 1 · 1000/s"
        );
    }
}
