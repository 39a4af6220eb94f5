//! Every output format renders the key facts of one hand-built report: verdicts, violation
//! texts, figures, lint footnotes, and same-thread results kept apart from the ranking.

use handoff::environment::Environment;
use handoff::model::lint::Lint;
use handoff::output::{render, Format};
use handoff::payload::PayloadKind;
use handoff::placement::Placement;
use handoff::probes::Limits;
use handoff::report::{
    Latency, LimitDistance, Params, RawSample, RunReport, TrialResult, Verdict, SCHEMA_VERSION,
};
use handoff::semantics::{
    Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
};
use handoff::stats::Summary;
use handoff::workload::WorkloadKind;
use std::collections::BTreeMap;

fn summary(median: f64, min: f64, max: f64, spread: f64) -> Summary {
    Summary {
        median,
        min,
        max,
        mean: median,
        mad: median * spread,
        spread,
        n: 5,
    }
}

fn semantics(producers: Arity, bound: Bound, locality: Locality) -> Semantics {
    Semantics {
        producers,
        consumers: Arity::One,
        ordering: Ordering::PerProducerFifo,
        bound,
        wait: if locality == Locality::SameThread {
            WaitStrategy::None
        } else {
            WaitStrategy::Block
        },
        batch: false,
        locality,
        consumer_style: if locality == Locality::SameThread {
            ConsumerStyle::Callback
        } else {
            ConsumerStyle::Pull
        },
        delivery: handoff::semantics::Delivery::ExactlyOnce,
    }
}

fn pinned() -> Placement {
    Placement {
        threads: 2,
        cores_available: 2,
        cores: vec![0, 1],
        pinned: true,
        ..Placement::default()
    }
}

/// A stream result; `tput` in messages per second, `None` when no sample passed.
fn stream(
    transport: &str,
    capacity: Option<usize>,
    verdict: Verdict,
    tput: Option<f64>,
) -> TrialResult {
    let bound = match capacity {
        Some(_) => Bound::Bounded {
            min_capacity: 1,
            power_of_two: false,
        },
        None => Bound::Unbounded,
    };
    TrialResult {
        redelivered: 0,
        lost: 0,
        transport: transport.into(),
        workload: WorkloadKind::Spsc,
        params: Params {
            defaults: Default::default(),
            capacity,
            messages: 1_200_000,
            messages_requested: "auto(25 ms)".into(),
            target_ms: Some(25),
            producers: 1,
            consumers: 1,
            driver: Default::default(),
            payload: PayloadKind::U64,
            payload_bytes: 8,
            batch: None,
            options: BTreeMap::new(),
            samples: 5,
            warmup: 1,
            timeout_ms: 10_000,
            pacing: Default::default(),
            pipeline: None,
            fresh_process: false,
        },
        semantics: semantics(Arity::Many, bound, Locality::CrossThread),
        placement: pinned(),
        verdict,
        violation: None,
        throughput: tput.map(|t| summary(t, t * 0.95, t * 1.05, 0.012)),
        submit: None,
        ns_per_msg: tput.map(|t| summary(1e9 / t, 1e9 / t / 1.05, 1e9 / t / 0.95, 0.012)),
        latency: None,
        failed_sends: 0,
        failed_recvs: if tput.is_some() { 1_200_000 } else { 0 },
        digest: tput.map(|_| "00000000deadbeef".into()),
        limit: tput.map(|t| LimitDistance {
            reprobe: None,
            probe: "stream-bandwidth".into(),
            limit: 1.5e9,
            ratio: t / 1.5e9,
        }),
        lints: vec![Lint::DebugBuild],
        samples: tput
            .map(|t| {
                vec![RawSample {
                    redelivered: 0,
                    lost: 0,
                    messages: 1_200_000,
                    elapsed_ns: (1.2e6 / t * 1e9) as u64,
                    msgs_per_s: t,
                    ns_per_msg: 1e9 / t,
                    failed_sends: 0,
                    failed_recvs: 240_000,
                    layout: None,
                    p50_ns: None,
                    p99_ns: None,
                    memory: None,
                    submit_ns: None,
                    cpu: None,
                    windows: Vec::new(),
                }]
            })
            .unwrap_or_default(),
        paced: None,
        ramp: None,
        modes: None,
        same_worker: None,
        memory: None,
        cpu: None,
        printed: None,
        origin: Default::default(),
        code: None,
    }
}

fn report() -> RunReport {
    let mut results = Vec::new();

    let mut slow = stream("slow-queue", Some(1024), Verdict::Pass, Some(12_345_678.0));
    slow.lints.push(Lint::Noisy {
        spread: 0.071,
        threshold: 0.05,
    });
    slow.throughput.as_mut().unwrap().spread = 0.071;
    results.push(slow);

    let mut drop = stream("faulty-drop", None, Verdict::Fail, None);
    drop.violation = Some("producer 0: expected seq 9, got 10".into());
    results.push(drop);

    let mut fast_cb = stream("direct-callback", None, Verdict::Pass, Some(310_000_000.0));
    fast_cb.semantics = semantics(Arity::One, Bound::Unbounded, Locality::SameThread);
    fast_cb.lints.push(Lint::SameThread);
    results.push(fast_cb);

    results.push(stream(
        "fast-ring",
        Some(1024),
        Verdict::Pass,
        Some(48_100_000.0),
    ));

    let mut hang = stream("faulty-hang", None, Verdict::Hung, None);
    hang.violation = Some("no message delivered for 10.0 s (watchdog 10000 ms): 1 of 2 threads finished, about 7 of 5000 messages delivered".into());
    results.push(hang);

    // Another group: 8 producers on 2 cores, one unsupported transport.
    let mut over = stream("fast-ring", Some(1024), Verdict::Pass, Some(9_000_000.0));
    over.workload = WorkloadKind::Mpsc;
    over.params.producers = 8;
    over.placement = Placement {
        threads: 9,
        cores_available: 2,
        oversubscribed: true,
        note: Some("more threads than cores".into()),
        ..Placement::default()
    };
    over.lints.insert(
        0,
        Lint::Oversubscribed {
            threads: 9,
            cores: 2,
        },
    );
    results.push(over);
    let mut single = stream("single-ring", Some(1024), Verdict::Unsupported, None);
    single.workload = WorkloadKind::Mpsc;
    single.params.producers = 8;
    single.violation = Some("8 producers: this transport takes exactly one".into());
    results.push(single);

    // Ping-pong with a latency histogram summary.
    let mut pp = stream("fast-ring", Some(1024), Verdict::Pass, Some(5_000_000.0));
    pp.workload = WorkloadKind::PingPong;
    pp.params.messages = 20_000;
    pp.latency = Some(Latency {
        kind: "round-trip".into(),
        count: 100_000,
        min: 150,
        p50: 212,
        p90: 260,
        p95: Some(700),
        p99: 1_250,
        p999: 8_400,
        p9999: 20_000,
        max: 43_000,
        mean: 230.5,
        histogram: "HISTFAAAAA==".into(),
    });
    pp.limit = Some(LimitDistance {
        reprobe: None,
        probe: "cacheline-rtt-stamped".into(),
        limit: 97.0,
        ratio: 212.0 / 97.0,
    });
    results.push(pp);

    RunReport {
        paired: None,
        reprobes: Vec::new(),
        schema_version: SCHEMA_VERSION,
        started_at: "2025-11-21T10:00:00Z".into(),
        duration_s: 18.4,
        suite: "default".into(),
        environment: Environment {
            cpu_model: "Test CPU 3000".into(),
            logical_cpus: 2,
            physical_cores: 2,
            smt: false,
            os: "linux-x86_64".into(),
            kernel: "6.1.0".into(),
            virtualized: Some(true),
            governor: None,
            rustc: "rustc 1.90.0".into(),
            build_profile: "debug".into(),
            tool_version: "0.1.0".into(),
            git_commit: "abc1234".into(),
            invariant_tsc: Some(true),
            clock_source: Some("tsc".into()),
            machine: None,
        },
        limits: Some(Limits {
            at_s: None,
            cacheline_rtt_ns: summary(85.0, 81.2, 90.1, 0.01),
            cacheline_rtt_stamped_ns: Some(summary(100.0, 97.0, 110.0, 0.02)),
            clock_step_ns: Some(10.0),
            stream_bytes_per_s: summary(12.0e9, 11.9e9, 12.4e9, 0.01),
            cores: vec![0, 1],
            pinned: true,
            note: None,
            repetitions: Vec::new(),
        }),
        layout: None,
        results,
        consensus: None,
        shared_regimes: None,
        gates: Vec::new(),
    }
}

fn rendered(format: Format) -> String {
    let mut out = Vec::new();
    render(&report(), format, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not found in:\n{text}"))
}

/// Checks what both human formats must show.
fn human_facts(text: &str, separator: &str) {
    for needle in [
        "Test CPU 3000",
        // the limit is the probes' median, with the repetitions and spread behind it
        "cache-line round trip 85.0 ns (median of 5, spread 1.0%)",
        // the stamped probe and the timer's step, next to the bulk-timed figure
        "stamped per trip as ping-pong is 100 ns (median of 5, spread 2.0%)",
        "timer step 10.0 ns",
        "streaming bandwidth 12.0 GB/s (median of 5, spread 1.0%)",
        "1.50 G msgs/s of 8 B",
        // the lint on every result is said once, in the header
        "debug build: figures are not representative",
        // group headings echo the parameters
        "spsc · payload u64 (8 B) · 1 producer → 1 consumer",
        "capacity 1024 (where bounded)",
        "1.20 M msgs/sample (auto(25 ms))",
        "5 samples + 1 warm-up",
        "mpsc · payload u64 (8 B) · 8 producers → 1 consumer",
        "ping-pong · payload u64 (8 B)",
        // figures
        "48.1 M/s",
        "12.3 M/s",
        "20.8 ns",
        "7.1%",
        "0 / 1.20 M",
        "SPSC fifo/pp unbounded no-wait cb",
        "MPSC fifo/pp bounded block",
        // verdict reasons under the table
        "faulty-drop: FAIL — producer 0: expected seq 9, got 10",
        "faulty-hang: HUNG — no message delivered for 10.0 s (watchdog 10000 ms): 1 of 2 threads finished, about 7 of 5000 messages delivered",
        "single-ring: unsupported — 8 producers: this transport takes exactly one",
        // lint footnotes
        "noisy[1]",
        "noisy: relative MAD 7.1% > 5%",
        "same-thread[2]",
        // oversubscription
        "fast-ring *",
        "* oversubscribed: more threads than cores",
        // ping-pong percentiles and distance to the cache-line round trip
        "212 ns",
        "1.25 µs",
        "8.40 µs",
        "43.0 µs",
        "2.19×",
        // the cross-core limit means nothing for a same-thread call
        "n/a",
    ] {
        assert!(text.contains(needle), "`{needle}` not in:\n{text}");
    }
    assert_eq!(
        text.matches("debug build: figures").count(),
        1,
        "hoisted lint repeated:\n{text}"
    );
    // Ranking: the faster cross-thread ring first, failures after every pass, and the
    // same-thread callback after all of them, below the separator, despite its speed.
    let fast = line_of(text, "fast-ring");
    let slow = line_of(text, "slow-queue");
    let fail = line_of(text, "faulty-drop");
    let sep = line_of(text, separator);
    let cb = line_of(text, "direct-callback");
    assert!(
        fast < slow && slow < fail && fail < sep && sep < cb,
        "{text}"
    );
}

#[test]
fn table_shows_groups_verdicts_footnotes_and_same_thread_apart() {
    let text = rendered(Format::Table);
    human_facts(&text, "── same-thread, not ranked ───");
    assert!(text.contains("p99.9"), "{text}");
    assert!(
        text.contains("  [1] noisy: relative MAD 7.1% > 5%"),
        "{text}"
    );
    assert!(text.contains("failed sends/recvs"), "{text}");
}

#[test]
fn markdown_is_github_tables_with_footnotes() {
    let text = rendered(Format::Markdown);
    // Markup characters in the text are escaped; the facts read the same once rendered.
    human_facts(
        &text.replace('\\', ""),
        "Same-thread: the producer's thread runs the consumer",
    );
    assert!(text.starts_with("## handoff results: default\n"), "{text}");
    assert!(text.contains("|---|---|---|---:|"), "{text}");
    assert!(text.contains("| noisy\\[1\\] |"), "{text}");
    assert!(text.contains("| fast-ring \\* |"), "{text}");
    assert!(
        text.contains("- \\[1\\] noisy: relative MAD 7.1% > 5%"),
        "{text}"
    );
    assert!(!text.contains("\n\n\n"), "{text}");
    // The same-thread row is in a table of its own.
    let caption = line_of(&text, "Same-thread: the producer's thread");
    let header_after = text
        .lines()
        .skip(caption)
        .position(|l| l.starts_with("| transport"))
        .expect("a second table header");
    assert!(header_after > 0);
}

#[test]
fn json_round_trips_to_the_same_report() {
    let text = rendered(Format::Json);
    assert!(text.contains("\"schema_version\": 1"), "{text}");
    assert!(text.contains("\"verdict\": \"fail\""), "{text}");
    let back: RunReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, report());
}

#[test]
fn a_report_without_consensus_reads_as_before() {
    // No `consensus` key is written when the run did not ask for it, and a report without one
    // (every report written before consensus existed) reads back.
    let text = rendered(Format::Json);
    assert!(!text.contains("\"consensus\""), "{text}");
    let back: RunReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back.consensus, None);
    assert!(!rendered(Format::Table).contains("consensus"));
}

/// Three passing streams of one stream definition, one of which delivered another stream.
fn consensus_report(faulty_digest: &str) -> RunReport {
    let mut r = report();
    r.results.clear();
    for (name, cap, tput) in [
        ("rtrb", Some(1024), 90e6),
        ("crossbeam-bounded", Some(1024), 30e6),
        ("faulty-shuffle", None, 20e6),
    ] {
        let mut x = stream(name, cap, Verdict::Pass, Some(tput));
        if name == "faulty-shuffle" {
            x.digest = Some(faulty_digest.into());
            x.semantics.ordering = Ordering::None;
        }
        r.results.push(x);
    }
    // Batched, in a table of its own: the same stream all the same.
    let mut batched = stream("rtrb", Some(1024), Verdict::Pass, Some(150e6));
    batched.params.batch = Some(256);
    r.results.push(batched);
    r.consensus = Some(handoff::consensus::judge(&r.results));
    r
}

#[test]
fn consensus_is_stated_under_each_table_and_kept_in_json() {
    let agreed = consensus_report("00000000deadbeef");
    assert!(!agreed.has_failures());
    let mut out = Vec::new();
    render(&agreed, Format::Table, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("consensus: 3 transports delivered the same stream (digest 00000000deadbeef, as did 1 more of this stream in other tables)"),
        "{text}"
    );
    assert!(
        text.contains("consensus: 1 transport delivered the same stream (digest 00000000deadbeef, as did 3 more"),
        "{text}"
    );

    let failed = consensus_report("1111111111111111");
    assert!(
        failed.has_failures(),
        "a transport that delivered another stream fails the run"
    );
    assert!(failed.results.iter().all(|r| r.verdict == Verdict::Pass));
    for format in [Format::Table, Format::Markdown] {
        let mut out = Vec::new();
        render(&failed, format, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.matches("consensus FAILED: faulty-shuffle delivered another stream (digest 1111111111111111) than the 3 others (digest 00000000deadbeef)").count(),
            2,
            "{format:?}, stated under both tables of the stream:\n{text}"
        );
    }
    let json = {
        let mut out = Vec::new();
        render(&failed, Format::Json, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    assert!(json.contains("\"consensus\""), "{json}");
    let back: RunReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, failed);
    assert!(back.consensus_failed());
}

#[test]
fn csv_has_a_header_and_one_row_per_result() {
    let text = rendered(Format::Csv);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r.headers().unwrap().clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), report().results.len());
    for name in [
        "transport",
        "workload",
        "payload",
        "capacity",
        "messages",
        "producers",
        "consumers",
        "batch",
        "options",
        "verdict",
        "violation",
        "tput_median",
        "tput_min",
        "tput_max",
        "tput_spread",
        "ns_per_msg_median",
        "p50",
        "p90",
        "p99",
        "p999",
        "max",
        "failed_sends",
        "failed_recvs",
        "limit_ratio",
        "lints",
        "placement",
    ] {
        col(name);
    }
    assert_eq!(&rows[0][col("transport")], "slow-queue");
    assert_eq!(&rows[0][col("tput_median")], "12345678");
    assert_eq!(&rows[0][col("lints")], "debug-build;noisy");
    assert_eq!(&rows[1][col("verdict")], "fail");
    assert_eq!(
        &rows[1][col("violation")],
        "producer 0: expected seq 9, got 10"
    );
    assert_eq!(&rows[1][col("capacity")], "unbounded");
    assert_eq!(&rows[1][col("tput_median")], "");
    assert_eq!(&rows[7][col("p999")], "8400");
    assert!(rows[5][col("placement")].contains("oversubscribed"));
}

#[test]
fn parameters_that_differ_show_on_each_row() {
    let mut r = report();
    r.results.clear();
    for (cap, tput) in [(256, 20e6), (1024, 30e6), (8192, 25e6)] {
        let mut x = stream("crossbeam-bounded", Some(cap), Verdict::Pass, Some(tput));
        x.params.messages = 100_000 + cap as u64;
        r.results.push(x);
    }
    let mut poll = stream("std-mpsc-poll", None, Verdict::Pass, Some(10e6));
    poll.params.options.insert("wake".into(), "edge".into());
    poll.semantics.ordering = Ordering::None;
    r.results.push(poll);
    let mut out = Vec::new();
    render(&r, Format::Table, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    // One table: capacity and options are on the rows, ranked by throughput.
    assert_eq!(text.matches("spsc · payload").count(), 1, "{text}");
    assert!(text.contains("capacity per row"), "{text}");
    assert!(text.contains("msgs/sample"), "{text}");
    let rows: Vec<usize> = [
        "crossbeam-bounded cap=1024",
        "crossbeam-bounded cap=8192",
        "crossbeam-bounded cap=256",
        "std-mpsc-poll wake=edge",
    ]
    .iter()
    .map(|n| line_of(&text, n))
    .collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "{text}");
    // One format for every count of the column, the rates' own: three significant digits.
    let lines: Vec<&str> = text.lines().collect();
    for (row, count) in rows
        .iter()
        .zip([" 101 k ", " 108 k ", " 100 k ", " 1.20 M "])
    {
        assert!(lines[*row].contains(count), "{count}: {}", lines[*row]);
    }
    // The last row's failed receives are 1.20 M too: its count is the other one.
    assert_eq!(lines[rows[3]].matches(" 1.20 M").count(), 2, "{text}");
    assert!(!text.contains("100.256 k"), "{text}");
    assert!(
        text.contains("ordering differs: no order is promised by std-mpsc-poll"),
        "{text}"
    );
}

#[test]
fn an_empty_report_still_renders() {
    let mut r = report();
    r.results.clear();
    r.limits = None;
    for f in Format::ALL {
        let mut out = Vec::new();
        render(&r, f, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        match f {
            Format::Csv => assert_eq!(text.lines().count(), 1, "{text}"),
            Format::Json => assert!(text.contains("\"results\": []"), "{text}"),
            Format::Bmf => assert_eq!(text.trim(), "{}", "{text}"),
            _ => assert!(text.to_lowercase().contains("no results"), "{text}"),
        }
        if f == Format::Table {
            assert!(text.contains("limits: not measured"), "{text}");
        }
    }
}
