//! Layout randomisation through a real (small, in-process) session: every timed sample carries
//! its own seeded placement, the run's seed reproduces them, and `fixed` records none.

use handoff::layout::LayoutMode;
use handoff::plan::Plan;
use handoff::report::{RunReport, Verdict};
use handoff::session::{self, SessionOptions};
use handoff_testing as testing;

const SUITE: &str = r#"
name = "layouts"
probes = false

[defaults]
samples = 5
warmup = 1
messages = 2000
pin = false

[[benchmark]]
workload = "spsc"
transports = ["crossbeam-bounded", "std-mpsc"]

[[benchmark]]
workload = "ping-pong"
transports = "crossbeam-bounded"
messages = 200
"#;

fn run(layout: LayoutMode) -> RunReport {
    let catalog = testing::catalog();
    let plan = Plan::parse(SUITE, "layouts.toml", &catalog).unwrap();
    let opts = SessionOptions {
        layout,
        ..SessionOptions::in_process(&plan.name)
    };
    session::run(&catalog, plan.trials, &opts, &mut |_| {})
}

fn seeds(report: &RunReport) -> Vec<Vec<u64>> {
    report
        .results
        .iter()
        .map(|r| {
            r.samples
                .iter()
                .map(|s| {
                    s.layout
                        .as_ref()
                        .expect("a random run records every layout")
                        .seed
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_sample_records_its_own_layout_and_the_seed_reproduces_them() {
    let a = run(LayoutMode::Random { seed: 11 });
    assert_eq!(a.layout, Some(LayoutMode::Random { seed: 11 }));
    assert!(a.results.iter().all(|r| r.verdict == Verdict::Pass));
    let sa = seeds(&a);
    for (r, s) in a.results.iter().zip(&sa) {
        assert_eq!(s.len(), 5, "{}: five timed samples", r.transport);
        let distinct: std::collections::BTreeSet<_> = s.iter().collect();
        assert_eq!(
            distinct.len(),
            5,
            "{}: one placement per sample",
            r.transport
        );
        for sample in &r.samples {
            let l = sample.layout.as_ref().unwrap();
            assert_eq!(l.stack_offsets.len(), 2, "two harness threads placed");
            assert!(l.heap_pad >= 16);
        }
    }
    // Trials get sequences of their own.
    assert_ne!(sa[0], sa[1]);

    let b = run(LayoutMode::Random { seed: 11 });
    assert_eq!(
        seeds(&b),
        sa,
        "the run's seed reproduces every sample's placement"
    );
    let c = run(LayoutMode::Random { seed: 12 });
    assert_ne!(seeds(&c)[0], sa[0]);

    let json = serde_json::to_string(&a).unwrap();
    assert!(
        json.contains(r#""layout":{"mode":"random","seed":11}"#),
        "{json}"
    );
    assert!(json.contains(r#""heap_pad":"#));
}

#[test]
fn a_fixed_layout_records_no_placement() {
    let r = run(LayoutMode::Fixed);
    assert_eq!(r.layout, Some(LayoutMode::Fixed));
    assert!(r
        .results
        .iter()
        .all(|r| r.verdict == Verdict::Pass && r.samples.iter().all(|s| s.layout.is_none())));
}
