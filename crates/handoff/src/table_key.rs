//! Which results form one table of the report: the one definition that the session's groups of
//! live workers ([`crate::groups`]) and the human formats' tables ([`crate::output`]) share.
//!
//! Results are comparable when they ran the same workload, payload, producer and consumer
//! counts, batch size and pacing. Transports, drivers, options and capacities vary within a
//! table: they are settings of a transport, shown on its row. An open-loop trial's rate is part
//! of the key as requested (messages per second, exactly): two rates that print alike are still
//! two tables, since latencies at different rates are not comparable. A ramp's search settings
//! are not: every ramp of a table searches its own rates.
//!
//! A trial's key is known before it runs ([`TableKey::of_spec`]) and is the same as its
//! result's ([`TableKey::of_result`]): both read the same parameters.

use crate::payload::PayloadKind;
use crate::report::TrialResult;
use crate::workload::{Pacing, TrialSpec, WorkloadKind};

/// What puts two trials, or two results, in one table (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TableKey {
    workload: WorkloadKind,
    payload: PayloadKind,
    producers: usize,
    consumers: usize,
    batch: Option<usize>,
    pacing: PacingKey,
}

/// The part of a trial's pacing that separates tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PacingKey {
    /// Closed loop.
    Closed,
    /// Open loop at this rate, messages per second.
    Rate(u64),
    /// A rate search, whatever its settings.
    Ramp,
}

impl From<&Pacing> for PacingKey {
    fn from(p: &Pacing) -> PacingKey {
        match p {
            Pacing::Closed => PacingKey::Closed,
            Pacing::Rate(r) => PacingKey::Rate(*r),
            Pacing::Ramp(_) => PacingKey::Ramp,
        }
    }
}

impl TableKey {
    /// The table of a trial, before it runs.
    pub fn of_spec(spec: &TrialSpec) -> TableKey {
        TableKey {
            workload: spec.workload,
            payload: spec.payload,
            producers: spec.producers,
            consumers: spec.consumers,
            batch: spec.batch,
            pacing: PacingKey::from(&spec.pacing),
        }
    }

    /// The table of a result: the same as its trial's.
    pub(crate) fn of_result(r: &TrialResult) -> TableKey {
        let p = &r.params;
        TableKey {
            workload: r.workload,
            payload: p.payload,
            producers: p.producers,
            consumers: p.consumers,
            batch: p.batch,
            pacing: PacingKey::from(&p.pacing),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::stream;
    use crate::workload::RampSpec;

    #[test]
    fn settings_of_a_transport_do_not_separate_tables_but_the_rate_does() {
        let a = stream();
        let mut b = stream();
        b.transport = "other".into();
        b.params.capacity = None;
        b.params.options.insert("wait".into(), "spin".into());
        assert_eq!(TableKey::of_result(&a), TableKey::of_result(&b));

        let at = |rate| {
            let mut r = stream();
            r.params.pacing = Pacing::Rate(rate);
            TableKey::of_result(&r)
        };
        assert_eq!(at(1_000_000), at(1_000_000));
        assert_ne!(at(1_000_000), at(1_000_400));
        assert_ne!(at(1_000_000), TableKey::of_result(&a));

        let ramp = |start| {
            let mut r = stream();
            r.params.pacing = Pacing::Ramp(RampSpec {
                start,
                max: 1 << 30,
                factor: 2,
                refine: 0,
                p99_bound_ns: None,
                step_ms: 100,
            });
            TableKey::of_result(&r)
        };
        assert_eq!(ramp(1000), ramp(5000));
    }
}
