//! How many times messages were delivered, and where the broker ran: [`Lint::Redelivered`],
//! [`Lint::Lost`] and [`Lint::BrokerSharesCores`].
//!
//! **redelivered.** An at-least-once transport may deliver a message again; the verifier counts
//! each redelivery instead of failing (see `crate::verify`). Every trial is a run without an
//! injected fault, so any redelivery is flagged: a consumer acknowledging too late, a broker
//! timing out a delivery, a rebalance.
//!
//! **lost.** An at-most-once transport may lose messages; the verifier counts them. A loss is
//! always flagged, with its share of what was sent.
//!
//! **broker-shares-cores.** A broker transport's server runs on this machine: its threads
//! compete with the trial's producer and consumer for the same cores. Said on every broker
//! result, with the harness's thread count and the cores.

use super::Lint;
use crate::report::TrialResult;
use crate::semantics::Locality;

/// [`Lint::Redelivered`]: messages were delivered again.
pub(super) fn redelivered(r: &TrialResult) -> Option<Lint> {
    if r.redelivered == 0 {
        return None;
    }
    let delivered: u64 = r.samples.iter().map(|s| s.messages).sum();
    Some(Lint::Redelivered {
        messages: r.redelivered,
        share: r.redelivered as f64 / delivered.max(1) as f64,
    })
}

/// [`Lint::Lost`]: an at-most-once transport lost messages.
pub(super) fn lost(r: &TrialResult) -> Option<Lint> {
    Some(Lint::Lost {
        messages: r.lost,
        share: r.lost_share()?,
    })
}

/// [`Lint::BrokerSharesCores`]: the broker ran on this machine.
pub(super) fn broker_shares_cores(r: &TrialResult) -> Option<Lint> {
    (r.semantics.locality == Locality::Broker).then_some(Lint::BrokerSharesCores {
        threads: r.placement.threads,
        cores: r.placement.cores_available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::stream;
    use crate::semantics::Delivery;

    #[test]
    fn redeliveries_and_losses_are_flagged_with_their_share() {
        let mut r = stream();
        assert_eq!(redelivered(&r), None);
        assert_eq!(lost(&r), None);
        let delivered: u64 = r.samples.iter().map(|s| s.messages).sum();
        r.semantics.delivery = Delivery::AtLeastOnce;
        r.redelivered = delivered / 100;
        let lint = redelivered(&r).expect("flagged");
        assert_eq!(lint.code(), "redelivered");
        assert!(lint.to_string().contains("(1.0%)"), "{lint}");

        r.semantics.delivery = Delivery::AtMostOnce;
        r.redelivered = 0;
        r.lost = delivered / 299;
        let lint = lost(&r).expect("flagged");
        assert!(lint.to_string().starts_with("lost 0.3%: "), "{lint}");
    }

    #[test]
    fn only_a_broker_shares_the_cores_with_its_broker() {
        let mut r = stream();
        assert_eq!(broker_shares_cores(&r), None);
        r.semantics.locality = Locality::Broker;
        let lint = broker_shares_cores(&r).expect("a broker result");
        assert_eq!(lint.code(), "broker-shares-cores");
        assert!(lint.to_string().contains("oversubscribed"), "{lint}");
    }
}
