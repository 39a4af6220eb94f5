//! Recommendations on hand-built runs whose right answer is known: a spinning ring against a
//! parking channel at 1,000/s, budgets that exclude each, semantics required, a run that cannot
//! answer, a tie the run cannot break, and the views escaping what the run names.

use super::*;
use crate::output::recommend::{render, RecommendFormat};
use crate::report::{RunReport, TrialResult};
use crate::semantics::{Bound, Locality, WaitStrategy};
use handoff_model::cpu::{CpuFigures, SampleCpu};
use handoff_model::fixture;

/// A paced result of `transport` at `rate`/s: five samples whose p99 is `p99_us` µs (±2%), its
/// consumer side `consumer_cores` busy, its producer side (the pacer) one core.
fn paced(
    transport: &str,
    rate: u64,
    p99_us: f64,
    consumer_cores: f64,
    wait: WaitStrategy,
) -> TrialResult {
    let mut r = fixture::with_rates(fixture::paced(rate, rate as f64), &[rate as f64; 5]);
    r.paced.as_mut().unwrap().achieved_rate = crate::stats::Summary::of(&[rate as f64]);
    r.transport = transport.into();
    r.semantics.wait = wait;
    let p99 = (p99_us * 1000.0) as u64;
    let mut lat = fixture::latency(p99 / 10, 50_000);
    lat.p99 = p99;
    r.latency = Some(lat);
    for (i, s) in r.samples.iter_mut().enumerate() {
        let wobble = 1.0 + (i as f64 - 2.0) * 0.01;
        s.p50_ns = Some(p99 / 10);
        s.p99_ns = Some((p99 as f64 * wobble) as u64);
        s.cpu = Some(SampleCpu {
            producer_ns: s.elapsed_ns,
            consumer_ns: (s.elapsed_ns as f64 * consumer_cores * wobble) as u64,
            runtime_ns: 0,
            page_faults: None,
        });
    }
    r.cpu = Some(CpuFigures {
        producer_cores: 1.0,
        consumer_cores,
        ns_per_msg: (1.0 + consumer_cores) * 1e9 / rate as f64,
        runtime_cores: 0.0,
        page_faults_per_msg: None,
        samples: 5,
    });
    r
}

/// The reference case: at 1,000/s a spinning ring has the lowest p99 and burns a core; a
/// parking channel waits longer and uses almost none; an unbounded one is a little slower still.
fn run() -> RunReport {
    let mut unbounded = paced("std-mpsc", 1000, 60.0, 0.01, WaitStrategy::SpinThenPark);
    unbounded.semantics.bound = Bound::Unbounded;
    fixture::report(vec![
        paced("rtrb", 1000, 5.0, 0.99, WaitStrategy::Spin),
        paced(
            "crossbeam-bounded",
            1000,
            40.0,
            0.02,
            WaitStrategy::SpinThenPark,
        ),
        unbounded,
    ])
}

fn ask(rate: u64, p99_us: u64, cpu: f64) -> Ask {
    Ask {
        rate: Some(rate),
        p99_ns: Some(p99_us * 1000),
        cpu: Some(cpu),
        ..Ask::default()
    }
}

fn markdown(rec: &Recommendation) -> String {
    let mut out = Vec::new();
    render(rec, RecommendFormat::Markdown, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_cpu_budget_picks_the_parking_channel_and_says_why_the_ring_is_out() {
    let rec = recommend(&run(), "latest", &ask(1000, 100, 0.5), None).unwrap();
    let pick = &rec.candidates[rec.pick.expect("a pick")];
    assert_eq!(pick.label, "crossbeam-bounded cap=1024");
    assert_eq!(rec.basis, Basis::Paced { rate: 1000 });
    assert_eq!(rec.objective, Objective::Latency);
    let ring = rec
        .candidates
        .iter()
        .find(|c| c.transport == "rtrb")
        .unwrap();
    assert_eq!(ring.fails.len(), 1, "{:?}", ring.fails);
    assert!(ring.fails[0].contains("0.99 cores busy, over the 0.5 budget (a waiting side spins)"));
    // The runner-up meets everything too, and is significantly behind on p99.
    let second = &rec.candidates[1];
    assert_eq!(second.transport, "std-mpsc");
    let r = rec.runner_up.as_ref().expect("a runner-up");
    assert!(r.significant, "{r:?}");
    assert!((r.behind.unwrap() - 1.5).abs() < 1e-9, "{r:?}");
    assert!(
        !r.would_win
            .iter()
            .any(|w| w.contains("if you need no bound")),
        "unbounded is never a reason to win: {r:?}"
    );
    let text = markdown(&rec);
    assert!(
        text.starts_with("## Use `crossbeam-bounded cap=1024`"),
        "{text}"
    );
    assert!(text.contains("p99 40.0 µs (budget 100 µs)"), "{text}");
    assert!(text.contains("0.020 cores busy (budget 0.5)"), "{text}");
    assert!(
        text.contains("the lowest p99 of the 2 that meet every constraint"),
        "{text}"
    );
    assert!(text.contains("**Runner-up:** `std-mpsc`"), "{text}");
    assert!(text.contains("a difference the run shows"), "{text}");
}

#[test]
fn without_a_cpu_budget_the_ring_wins_and_the_channel_would_win_on_cpu() {
    let rec = recommend(&run(), "7", &ask(1000, 100, 4.0), None).unwrap();
    assert_eq!(rec.candidates[0].transport, "rtrb");
    let r = rec.runner_up.as_ref().unwrap();
    assert!(
        r.would_win.iter().any(|w| w
            .contains("if CPU matters more than latency: it keeps 0.020 cores busy against 0.99")),
        "{r:?}"
    );
    assert!(
        r.would_win
            .iter()
            .any(|w| w.contains(
                "if you need blocking waits (a waiting side sleeps) (`--require blocking`): the pick lacks it"
            )),
        "{r:?}"
    );
    // Preferring CPU makes the parking channel the pick among the same three.
    let mut cheap = ask(1000, 100, 4.0);
    cheap.prefer = Some(Objective::Cpu);
    let rec = recommend(&run(), "7", &cheap, None).unwrap();
    assert_eq!(rec.candidates[0].transport, "std-mpsc");
}

#[test]
fn nothing_meets_a_tight_budget_and_each_exclusion_is_said() {
    let rec = recommend(&run(), "latest", &ask(1000, 10, 0.5), None).unwrap();
    assert_eq!(rec.pick, None);
    assert!(rec.runner_up.is_none());
    let text = markdown(&rec);
    assert!(
        text.starts_with("## Nothing the run measured meets every constraint"),
        "{text}"
    );
    assert!(
        text.contains("`rtrb cap=1024`: 0.99 cores busy, over the 0.5 budget"),
        "{text}"
    );
    assert!(
        text.contains("`crossbeam-bounded cap=1024`: p99 40.0 µs over the 10.0 µs budget"),
        "{text}"
    );
    assert!(text.contains("closest: "), "{text}");
}

#[test]
fn required_semantics_exclude_with_the_reason() {
    let mut a = ask(1000, 100, 4.0);
    a.require = vec![Requirement::Blocking, Requirement::Bounded];
    let rec = recommend(&run(), "latest", &a, None).unwrap();
    assert_eq!(rec.candidates[0].transport, "crossbeam-bounded");
    let fails = |t: &str| {
        rec.candidates
            .iter()
            .find(|c| c.transport == t)
            .unwrap()
            .fails
            .clone()
    };
    assert_eq!(
        fails("rtrb"),
        ["not blocking (waits by `spin`: a waiting side never sleeps)"]
    );
    assert_eq!(fails("std-mpsc"), ["not bounded (unbounded)"]);
}

#[test]
fn a_run_that_cannot_answer_says_what_to_run() {
    // A latency budget over closed-loop streams only.
    let closed = fixture::report(vec![fixture::stream()]);
    let e = recommend(&closed, "latest", &ask(1000, 100, 0.5), None).unwrap_err();
    assert!(
        e.why.contains("a latency budget needs paced results"),
        "{e}"
    );
    assert_eq!(
        e.run.as_deref(),
        Some("handoff run -t queue -w paced --rate 1000")
    );
    // A rate above every paced result's.
    let e = recommend(&run(), "latest", &ask(5000, 100, 0.5), None).unwrap_err();
    assert!(
        e.why.contains("ran at 1000/s, all below the 5000/s asked"),
        "{e}"
    );
    // A payload the run never moved.
    let mut a = ask(1000, 100, 0.5);
    a.payload = Some(crate::payload::PayloadKind::Report64);
    let e = recommend(&run(), "latest", &a, None).unwrap_err();
    assert!(
        e.why
            .contains("no paced result with payload report64 (its paced results have u64)"),
        "{e}"
    );
    // Two producer counts and none asked.
    let mut two = run();
    let mut more = paced(
        "crossbeam-bounded",
        1000,
        50.0,
        0.05,
        WaitStrategy::SpinThenPark,
    );
    more.params.producers = 2;
    two.results.push(more);
    let e = recommend(&two, "latest", &ask(1000, 100, 0.5), None).unwrap_err();
    assert!(
        e.why
            .contains("producer counts 1, 2: say which with --producers"),
        "{e}"
    );
}

#[test]
fn a_higher_measured_rate_same_thread_rows_and_another_machine_are_caveats() {
    let mut report = run();
    let mut callback = paced("direct-callback", 1000, 1.0, 0.0, WaitStrategy::None);
    callback.semantics.locality = Locality::SameThread;
    report.results.push(callback);
    let mut here = fixture::environment();
    here.cpu_model = "Other CPU".into();
    let rec = recommend(&report, "latest", &ask(500, 100, 0.5), Some(&here)).unwrap();
    assert_eq!(rec.basis, Basis::Paced { rate: 1000 });
    assert!(
        rec.set_aside[0].starts_with("`direct-callback cap=1024`: same-thread"),
        "{:?}",
        rec.set_aside
    );
    assert!(rec
        .candidates
        .iter()
        .all(|c| c.transport != "direct-callback"));
    let all = rec.caveats.join("\n");
    assert!(
        all.contains("no paced result at 500/s; the figures are from 1000/s"),
        "{all}"
    );
    assert!(
        all.contains("measured on another machine (Test CPU, 4 cpus), not this one (Other CPU"),
        "{all}"
    );
}

#[test]
fn two_candidates_the_run_cannot_tell_apart_are_said_to_be_alike() {
    let report = fixture::report(vec![
        paced("a-queue", 1000, 40.0, 0.02, WaitStrategy::Block),
        paced("b-queue", 1000, 40.4, 0.02, WaitStrategy::Block),
    ]);
    let rec = recommend(&report, "latest", &ask(1000, 100, 0.5), None).unwrap();
    let r = rec.runner_up.as_ref().unwrap();
    assert!(!r.significant, "{r:?}");
    assert!(markdown(&rec).contains("the run does not tell the two apart"));
}

#[test]
fn closed_loop_runs_rank_by_throughput_and_names_from_the_run_are_escaped() {
    let mut fast = fixture::with_rates(fixture::stream(), &[200e6, 201e6, 199e6, 200e6, 202e6]);
    fast.transport = "evil`<b>|x".into();
    let slow = fixture::stream();
    let report = fixture::report(vec![slow, fast]);
    let rec = recommend(&report, "latest", &Ask::default(), None).unwrap();
    assert_eq!(rec.basis, Basis::Closed);
    assert_eq!(rec.objective, Objective::Throughput);
    assert_eq!(rec.candidates[0].label, "evil'<b>|x cap=1024");
    let md = markdown(&rec);
    assert!(md.starts_with("## Use `evil'<b>|x cap=1024`"), "{md}");
    assert!(md.contains("| evil'\\<b>\\|x cap=1024 |"), "{md}");
    let mut out = Vec::new();
    render(&rec, RecommendFormat::Html, &mut out).unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(
        html.contains("<h1>Use <code>evil&#39;&lt;b&gt;|x cap=1024</code></h1>"),
        "{html}"
    );
    assert!(!html.contains("<b>|"), "{html}");
    let mut out = Vec::new();
    render(&rec, RecommendFormat::Json, &mut out).unwrap();
    let back: Recommendation = serde_json::from_slice(&out).unwrap();
    assert_eq!(back, rec);
}

#[test]
fn a_rate_over_closed_loop_streams_is_decided_by_throughput_and_says_so() {
    // The case: `--rate 1000` on closed-loop streams, which measure no p99.
    let fast = fixture::with_rates(fixture::stream(), &[58e6, 59e6, 58.5e6, 59.5e6, 58.9e6]);
    let mut slow = fixture::with_rates(fixture::stream(), &[9e6, 8.9e6, 9.1e6, 9e6, 8.95e6]);
    slow.transport = "a-slow-one".into();
    let report = fixture::report(vec![slow, fast]);
    let asked = Ask {
        rate: Some(1000),
        ..Ask::default()
    };
    let rec = recommend(&report, "16", &asked, None).unwrap();
    assert_eq!(rec.objective, Objective::Throughput);
    assert_eq!(
        rec.candidates[0].transport, "queue",
        "the faster one, not the first name"
    );
    let md = markdown(&rec);
    assert!(!md.contains("lowest p99"), "{md}");
    assert!(md.contains("the highest throughput of the 2"), "{md}");
    assert!(
        md.contains("the run measured no p99 for these transports, so the throughput decides"),
        "{md}"
    );
    // A lint on the pick is said once, by its own text.
    let mut noisy = report.clone();
    noisy.results[1].lints.push(crate::lints::Lint::Noisy {
        spread: 0.331,
        threshold: 0.05,
    });
    let rec = recommend(&noisy, "16", &asked, None).unwrap();
    let flagged: Vec<&String> = rec
        .caveats
        .iter()
        .filter(|c| c.contains("flagged"))
        .collect();
    assert_eq!(flagged.len(), 1, "{:?}", rec.caveats);
    assert!(
        flagged[0].starts_with("the pick (`queue cap=1024`) is flagged: noisy: relative MAD"),
        "{}",
        flagged[0]
    );
    // Asked by name, latency cannot decide: unanswerable, not a pick by name.
    let by_latency = Ask {
        prefer: Some(Objective::Latency),
        ..asked
    };
    let e = recommend(&report, "16", &by_latency, None).unwrap_err();
    assert!(e.why.contains("the run measured no p99"), "{e}");
}

#[test]
fn three_samples_a_side_are_too_few_to_test_and_the_text_says_so() {
    // No data of 3 samples against 3 can reach p < 0.05 (the least two-sided p is 0.1), so a
    // p-value would only ever say "cannot tell apart", whatever the difference.
    let mut a = paced("a-queue", 1000, 40.0, 0.02, WaitStrategy::Block);
    let mut b = paced("b-queue", 1000, 90.0, 0.02, WaitStrategy::Block);
    for r in [&mut a, &mut b] {
        r.samples.truncate(3);
    }
    let report = fixture::report(vec![a, b]);
    let rec = recommend(&report, "latest", &ask(1000, 100, 0.5), None).unwrap();
    let r = rec.runner_up.as_ref().unwrap();
    assert_eq!(r.p, None, "{r:?}");
    assert!(!r.significant);
    let text = markdown(&rec);
    assert!(
        text.contains("behind on latency; too few samples to test the difference (3 and 3; a test at 0.05 needs at least 4 a side)"),
        "{text}"
    );
    assert!(!text.contains("does not tell the two apart"), "{text}");
}

#[test]
fn small_core_counts_keep_two_significant_figures() {
    assert_eq!(cores(0.0412), "0.041");
    assert_eq!(cores(0.0498), "0.050");
    assert_eq!(cores(0.005), "0.0050");
    assert_eq!(cores(0.71), "0.71");
    assert_eq!(cores(1.0), "1.00");
    assert_eq!(cores(0.0), "0.00");
}

#[test]
fn a_thin_tail_beyond_p99_is_no_caveat_of_a_recommendation() {
    use crate::lints::Lint;
    let mut report = run();
    for r in &mut report.results {
        r.lints = vec![Lint::TooFewForPercentile {
            percentile: 99.9,
            observations: 3000,
            needed: 10_000,
        }];
    }
    let rec = recommend(&report, "latest", &ask(1000, 100, 0.5), None).unwrap();
    let all = rec.caveats.join("\n");
    assert!(!all.contains("p99.9"), "{all}");
    // A thin p99, which the recommendation cites, is one.
    for r in &mut report.results {
        r.lints = vec![Lint::TooFewForPercentile {
            percentile: 99.0,
            observations: 500,
            needed: 1000,
        }];
    }
    let rec = recommend(&report, "latest", &ask(1000, 100, 0.5), None).unwrap();
    let all = rec.caveats.join("\n");
    assert!(all.contains("is flagged: "), "{all}");
    assert!(all.contains("p99 from 500 observations"), "{all}");
}

#[test]
fn the_run_suggested_names_only_transports_that_could_answer() {
    // Closed-loop streams only, asked a latency budget: the suggestion leaves out the
    // same-thread transport and, with 4 producers asked, a single-producer one.
    let mut callback = fixture::stream();
    callback.transport = "direct-callback".into();
    callback.semantics.locality = Locality::SameThread;
    let mut ring = fixture::stream();
    ring.transport = "ring".into();
    ring.semantics.producers = crate::semantics::Arity::One;
    let mut queue = fixture::stream();
    queue.semantics.producers = crate::semantics::Arity::Many;
    let report = fixture::report(vec![queue, callback, ring]);
    let e = recommend(&report, "latest", &ask(1000, 100, 0.5), None).unwrap_err();
    assert_eq!(
        e.run.as_deref(),
        Some("handoff run -t queue,ring -w paced --rate 1000")
    );
    let mut four = ask(1000, 100, 0.5);
    four.producers = Some(4);
    let e = recommend(&report, "latest", &four, None).unwrap_err();
    assert_eq!(
        e.run.as_deref(),
        Some("handoff run -t queue -w paced --rate 1000 --producers 4")
    );
}
