//! Sweeps: results of one run that differ in one parameter alone (the capacity, the producer
//! count, the payload, or an open-loop rate), the same measurement in everything else. The HTML
//! report draws them (`output::charts`) and [`crate::crossover`] finds where two transports
//! change places along them; both take the definition from here.

use crate::report::TrialResult;
use crate::workload::{Pacing, WorkloadKind};

/// A parameter a run sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// The capacity, in messages.
    Capacity,
    /// The producer count.
    Producers,
    /// The payload's size, in bytes.
    Payload,
    /// An open-loop rate, in messages per second.
    Rate,
}

impl Sweep {
    /// Every parameter a run can sweep.
    pub(crate) const ALL: [Sweep; 4] = [
        Sweep::Capacity,
        Sweep::Producers,
        Sweep::Payload,
        Sweep::Rate,
    ];

    /// The parameters a closed-loop stream can sweep.
    pub(crate) const CLOSED_LOOP: [Sweep; 3] = [Sweep::Capacity, Sweep::Producers, Sweep::Payload];

    /// The result's value of the parameter; `None` where it has none (an unbounded channel's
    /// capacity, a closed loop's rate).
    pub(crate) fn of(self, r: &TrialResult) -> Option<f64> {
        match self {
            Sweep::Capacity => r.params.capacity.map(|c| c as f64),
            Sweep::Producers => Some(r.params.producers as f64),
            // The size the payload's name gives (N of `bytes:N` and `boxed:N`, moved inline or
            // not), otherwise every byte the consumer reads.
            Sweep::Payload => {
                let p = r.params.payload;
                Some(p.heap_body().unwrap_or(p.touched_bytes()) as f64)
            }
            Sweep::Rate => r.params.pacing.rate().map(|x| x as f64),
        }
    }

    /// The parameter's name, with its unit.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Sweep::Capacity => "capacity (messages)",
            Sweep::Producers => "producers",
            Sweep::Payload => "payload (bytes)",
            Sweep::Rate => "rate (messages/s)",
        }
    }

    /// The parameter as a sentence names it: `capacity`, `producers`, `payload`, `rate`.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Sweep::Capacity => "capacity",
            Sweep::Producers => "producers",
            Sweep::Payload => "payload",
            Sweep::Rate => "rate",
        }
    }

    /// A value of the parameter as a sentence says it: `1024`, `64 B`, `20000/s`.
    pub(crate) fn value(self, x: f64) -> String {
        match self {
            Sweep::Payload => format!("{x} B"),
            Sweep::Rate => format!("{x}/s"),
            Sweep::Capacity | Sweep::Producers => format!("{x}"),
        }
    }

    /// Everything that must be equal for two results to be points of one sweep: the workload,
    /// the way it is paced (closed loop or open loop, without the rate when the rate is swept),
    /// and every parameter but the swept one.
    pub(crate) fn key(self, r: &TrialResult) -> String {
        let p = &r.params;
        let capacity = match self {
            Sweep::Capacity => String::new(),
            _ => format!("{:?}", p.capacity),
        };
        let producers = match self {
            Sweep::Producers => String::new(),
            _ => p.producers.to_string(),
        };
        let payload = match self {
            Sweep::Payload => String::new(),
            _ => p.payload.to_string(),
        };
        let pacing = match (&p.pacing, self) {
            (Pacing::Closed, _) => "closed".to_string(),
            (Pacing::Rate(_), Sweep::Rate) => "paced".to_string(),
            (other, _) => format!("{other:?}"),
        };
        format!(
            "{}|{payload}|{producers}|{}|{capacity}|{:?}|{}|{pacing}",
            r.workload, p.consumers, p.batch, p.driver
        )
    }

    /// The sweep's title for results like `r`: what its points share.
    pub(crate) fn title(self, r: &TrialResult) -> String {
        let p = &r.params;
        let mut t = format!("{}", r.workload);
        if !matches!(self, Sweep::Payload) {
            t.push_str(&format!(" · {}", p.payload));
        }
        if !matches!(self, Sweep::Producers) {
            t.push_str(&format!(" · {} producer(s)", p.producers));
        }
        t.push_str(&format!(" → {} consumer(s)", p.consumers));
        if let (false, Some(c)) = (matches!(self, Sweep::Capacity), p.capacity) {
            t.push_str(&format!(" · capacity {c}"));
        }
        if let Some(b) = p.batch {
            t.push_str(&format!(" · batch {b}"));
        }
        if let (false, Some(rate)) = (matches!(self, Sweep::Rate), p.pacing.rate()) {
            t.push_str(&format!(" · {rate}/s"));
        }
        t
    }
}

/// A series of a sweep: one transport with its options, as its rows are labelled.
pub(crate) fn series_label(r: &TrialResult) -> String {
    let mut label = r.transport.clone();
    for (k, v) in &r.params.options {
        label.push_str(&format!(" {k}={v}"));
    }
    label
}

/// Whether `r` is a closed-loop stream with a throughput (what a throughput sweep draws).
pub(crate) fn is_closed_stream(r: &TrialResult) -> bool {
    r.params.pacing == Pacing::Closed
        && r.workload != WorkloadKind::PingPong
        && r.throughput.is_some()
        && r.params.pipeline.is_none()
}
