//! The peers as handoff sees them: `register` lists every peer transport, with its language and
//! declared semantics, unavailable only if it was not built; and a built one passes samples of the
//! trial engine, whose verifier checks every message, per message and in batches.

use handoff::catalog::Catalog;
use handoff::outcome::SampleStatus;
use handoff::payload::PayloadKind;
use handoff::semantics::{Arity, Bound};
use handoff::workload::{Messages, TrialSpec, WorkloadKind};
use std::collections::BTreeMap;

fn catalog() -> Catalog {
    let mut catalog = Catalog::new();
    handoff_peers::register(&mut catalog);
    catalog
}

#[test]
fn every_peer_transport_is_listed() {
    let catalog = catalog();
    for peer in handoff_peers::peers() {
        for declared in peer.transports {
            let info = catalog.get(declared.name).expect("registered").info();
            assert_eq!(info.description, declared.description);
            assert_eq!(info.semantics, declared.semantics, "{}", declared.name);
            assert_eq!(info.origin.language, peer.language);
            assert_eq!(
                info.origin.unavailable,
                peer.unavailable(),
                "{}",
                declared.name
            );
        }
    }
    let declared: usize = handoff_peers::peers()
        .iter()
        .map(|p| p.transports.len())
        .sum();
    assert_eq!(catalog.entries().len(), declared);
}

#[test]
fn a_name_already_taken_is_left_alone() {
    let mut catalog = catalog();
    handoff_peers::register(&mut catalog);
    let declared: usize = handoff_peers::peers()
        .iter()
        .map(|p| p.transports.len())
        .sum();
    assert_eq!(catalog.entries().len(), declared);
}

fn spec(name: &str, capacity: usize, many: bool, payload: PayloadKind, batch: bool) -> TrialSpec {
    TrialSpec {
        transport: name.into(),
        workload: if many {
            WorkloadKind::Mpmc
        } else {
            WorkloadKind::Spsc
        },
        driver: Default::default(),
        payload,
        capacity,
        producers: if many { 2 } else { 1 },
        consumers: if many { 2 } else { 1 },
        messages: Messages::Fixed(20_000),
        batch: batch.then_some(16),
        options: BTreeMap::new(),
        samples: 1,
        warmup: 0,
        timeout_ms: 10_000,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Default::default(),
        pacer: Default::default(),
        pipeline: None,
        layout: None,
    }
}

#[test]
fn built_peers_pass_the_engines_verifier() {
    let catalog = catalog();
    for peer in handoff_peers::peers().iter().filter(|p| p.built()) {
        for declared in peer.transports {
            let entry = catalog.get(declared.name).expect("registered");
            let s = &declared.semantics;
            let many = s.producers == Arity::Many && s.consumers == Arity::Many;
            let capacity = match s.bound {
                Bound::Bounded {
                    min_capacity,
                    power_of_two: true,
                } => min_capacity.max(64),
                _ => 100,
            };
            for (payload, batch) in [(PayloadKind::U64, false), (PayloadKind::Report64, true)] {
                let spec = spec(declared.name, capacity, many, payload, batch);
                let outcome = entry
                    .runner()
                    .run_sample_with(&spec, 20_000, catalog.drivers());
                assert_eq!(outcome.status, SampleStatus::Pass, "{}", spec.label());
                assert_eq!(outcome.messages, 20_000, "{}", spec.label());
            }
        }
    }
}
