//! End-to-end tests of `handoff run --against`: two builds in one paired run.
//!
//! The other build here is this very executable, or a wrapper script that runs it with another
//! environment: `planted-delay` (a test-only channel) reads its per-message delay from the
//! environment, so the two sides of a pair can differ by a known amount.

use assert_cmd::Command;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::outcome;

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.env_remove("HANDOFF_PLANTED_DELAY_NS");
    cmd
}

fn exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_handoff"))
}

/// A script that runs this handoff with `HANDOFF_PLANTED_DELAY_NS` removed: a build whose
/// `planted-delay` has no planted delay.
fn unplanted(dir: &Path) -> PathBuf {
    let path = dir.join("other-handoff");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nexec env -u HANDOFF_PLANTED_DELAY_NS '{}' \"$@\"\n",
            exe().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

const PLANTED: [&str; 12] = [
    "-t",
    "planted-delay",
    "-w",
    "spsc",
    "--messages",
    "4000",
    "--samples",
    "12",
    "--warmup",
    "1",
    "--no-probes",
    "--no-store",
];

#[test]
fn a_run_against_itself_prints_a_paired_table_and_exits_0() {
    let out = handoff()
        .args(["run", "-t", "rtrb,crossbeam-bounded", "-w", "spsc"])
        .args([
            "--messages",
            "20000",
            "--no-probes",
            "--no-store",
            "--quiet",
        ])
        .arg("--against")
        .arg(exe())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("paired: both builds ran in one run"),
        "{stdout}"
    );
    assert!(stdout.contains("Wilcoxon signed-rank"), "{stdout}");
    for t in ["rtrb spsc", "crossbeam-bounded spsc"] {
        // Raised to 12 samples a side, as said on standard error.
        assert!(stdout.contains(t) && stdout.contains("(n=12)"), "{stdout}");
    }
    assert!(stderr.contains("raised to 12 timed samples"), "{stderr}");
    assert!(
        stdout.contains("before: --against ") && stdout.contains("(commit "),
        "{stdout}"
    );
    // One executable on both sides: every row ran the same code, and says so.
    assert!(
        stdout.contains("code: the same code in crossbeam-bounded, rtrb"),
        "{stdout}"
    );
    assert!(!stdout.contains("changed"), "{stdout}");
}

#[test]
fn a_planted_slowdown_of_this_build_fails_the_gate_with_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let other = unplanted(dir.path());
    // This build's consumer works 2 µs + 6 µs per message, the other's 2 µs: a quarter of the
    // rate. So large that a busy machine, which stretches both sides' waits alike and shrinks
    // the gap between them, cannot hide it.
    let out = handoff()
        .env("HANDOFF_PLANTED_DELAY_NS", "6000")
        .args(["run", "--quiet", "--format", "json"])
        .args(PLANTED)
        .arg("--against")
        .arg(&other)
        .args(["--max-regression", "5%"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["paired"], true);
    let row = &c["rows"][0];
    assert_eq!(row["metric"], "throughput");
    assert_eq!(row["verdict"], "slower", "{row}");
    assert_eq!(row["regression"], true, "{row}");
    let ratio = row["ratio"].as_f64().unwrap();
    assert!(ratio < 0.9, "{row}");
    assert_eq!(row["signed_rank"]["n"], 12, "{row}");
    assert!(stderr.contains("regression (paired)"), "{stderr}");

    // The same two builds with nothing planted pass a gate at a slowdown no noise reaches:
    // exit 0.
    let out = handoff()
        .args(["run", "--quiet", "--format", "json"])
        .args(PLANTED)
        .arg("--against")
        .arg(&other)
        .args(["--max-regression", "50%"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["rows"][0]["regression"], false, "{}", c["rows"][0]);
}

/// A stored paired run is shown again as its comparison, judged with `show`'s own flags: the
/// planted slowdown is found again, its gate fails with exit 4, and a run that is not paired is
/// refused with a reason.
#[test]
fn a_stored_paired_run_is_shown_again_as_its_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("history.sqlite");
    let other = unplanted(dir.path());
    let out = handoff()
        .env("HANDOFF_STORE", &store)
        .env("HANDOFF_PLANTED_DELAY_NS", "6000")
        .args(["run", "--quiet"])
        .args(&PLANTED[..PLANTED.len() - 1])
        .arg("--against")
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let show = |args: &[&str]| {
        outcome(
            handoff()
                .env("HANDOFF_STORE", &store)
                .arg("show")
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let (code, stdout, stderr) = show(&["latest", "--paired", "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let c: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(c["paired"], true);
    let row = &c["rows"][0];
    assert_eq!(row["metric"], "throughput");
    assert_eq!(row["verdict"], "slower", "{row}");
    assert_eq!(row["signed_rank"]["n"], 12, "{row}");
    assert!(c["before"]["label"]
        .as_str()
        .unwrap()
        .starts_with("--against "));

    let (code, stdout, stderr) = show(&["latest", "--paired", "--max-regression", "5%"]);
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stdout.contains("paired: both builds ran in one run"),
        "{stdout}"
    );
    assert!(stderr.contains("the regression gate failed"), "{stderr}");
    let named = format!("compared with `{}`", other.display());
    assert!(stderr.contains(&named), "{stderr}");

    // Without --paired, the run's own results, as before.
    let (code, stdout, _) = show(&["latest", "--format", "json"]);
    assert_eq!(code, Some(0));
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["results"][0]["transport"], "planted-delay");

    // Formats a comparison does not have, and runs that are not paired, are bad input.
    let (code, _, stderr) = show(&["latest", "--paired", "--format", "csv"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("formats of `handoff compare`"), "{stderr}");
    let out = handoff()
        .env("HANDOFF_STORE", &store)
        .args(["run", "--quiet", "-t", "planted-delay", "-w", "spsc"])
        .args(["--messages", "1000", "--samples", "1", "--no-probes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (code, _, stderr) = show(&["latest", "--paired"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`latest` is not a paired run"), "{stderr}");
}

#[test]
fn the_other_build_s_results_are_kept_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("history.sqlite");
    let out = handoff()
        .env("HANDOFF_STORE", &store)
        .args(["run", "--quiet"])
        .args(&PLANTED[..PLANTED.len() - 1])
        .arg("--against")
        .arg(exe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let shown = handoff()
        .env("HANDOFF_STORE", &store)
        .args(["show", "latest", "--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let paired = &report["paired"];
    assert_eq!(paired["label"], exe().display().to_string());
    let theirs = paired["results"].as_array().unwrap();
    let ours = report["results"].as_array().unwrap();
    assert_eq!((theirs.len(), ours.len()), (1, 1));
    // One count, one warm-up and twelve timed samples on both sides.
    for r in [&theirs[0], &ours[0]] {
        assert_eq!(r["verdict"], "pass");
        assert_eq!(r["samples"].as_array().unwrap().len(), 12);
        assert_eq!(r["params"]["messages"], 4000);
    }
    // Sample k of both sides ran under one layout seed, and the seeds differ from sample to
    // sample.
    let seeds = |r: &Value| -> Vec<u64> {
        r["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s["layout"]["seed"]
                    .as_u64()
                    .expect("a random layout's seed")
            })
            .collect()
    };
    assert_eq!(seeds(&theirs[0]), seeds(&ours[0]));
    let mut distinct = seeds(&ours[0]);
    distinct.dedup();
    assert_eq!(distinct.len(), 12);
}

/// `handoff run -t rtrb -w spsc --no-store ARGS`: its exit code and standard error.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = handoff()
        .args(["run", "-t", "rtrb", "-w", "spsc", "--no-store"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn what_cannot_be_paired_is_refused_before_anything_runs() {
    let (code, err) = run(&["--against", "no-such-revision-xyz"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--against no-such-revision-xyz: "), "{err}");
    // The one error: nothing said of samples raised for a run that never starts.
    assert!(!err.contains("raised to"), "{err}");
    let (code, err) = run(&["--against", "/bin/true"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a handoff executable"), "{err}");
    let exe = exe().display().to_string();
    let (code, err) = run(&["--against", &exe, "--format", "csv"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--against writes the paired comparison"),
        "{err}"
    );
    let (code, err) = run(&["--against", &exe, "--in-process"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--in-process"), "{err}");
    let (code, err) = run(&["--against", &exe, "--baseline", "latest"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--baseline"), "{err}");
    let (code, err) = run(&["--max-regression", "5%"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--max-regression"), "{err}");
}

#[test]
fn link_orders_are_refused_where_they_cannot_be_made() {
    let exe = exe().display().to_string();
    // An executable has no sources to link again.
    let (code, err) = run(&["--against", &exe, "--link-orders", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot be linked again"), "{err}");
    // Two pairs per order at least.
    let (code, err) = run(&["--against", &exe, "--link-orders", "4", "--samples", "7"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs at least 8 timed samples"), "{err}");
    // One order is no spread; orders without a second build mean nothing.
    let (code, err) = run(&["--against", &exe, "--link-orders", "1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--link-orders"), "{err}");
    let (code, err) = run(&["--link-orders", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--against"), "{err}");
}

/// A script that runs this handoff with `planted-delay` delaying each message by `ns`: a "link
/// order" whose placement costs that much.
fn order_costing(dir: &Path, name: &str, ns: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nexec env HANDOFF_PLANTED_DELAY_NS={ns} '{}' \"$@\"\n",
            exe().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The session runs timed sample `k` of both sides on order `k mod n`: with orders that add 0,
/// 8 and 40 µs a message on both sides (to the channel's 2 µs of fixed work), every sample's
/// rate says which order ran it, and the comparison judges over the three orders.
#[test]
fn timed_sample_k_of_both_sides_runs_on_link_order_k_mod_n() {
    use handoff::executor::WorkerCommand;
    use handoff::session::{Against, Isolation, OrderedBuilds, SessionOptions};
    let dir = tempfile::tempdir().unwrap();
    let delays = [0_u64, 8_000, 40_000];
    let orders = |side: &str| -> Vec<WorkerCommand> {
        delays
            .iter()
            .enumerate()
            .map(|(i, ns)| WorkerCommand {
                program: order_costing(dir.path(), &format!("{side}-{i}"), *ns),
                args: vec!["__worker".into()],
            })
            .collect()
    };
    let mut catalog = handoff_transports::builtin();
    handoff_testing::register_all(&mut catalog);
    let plan = handoff::plan::Plan::parse(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"planted-delay\"]\nmessages = 4000\nsamples = 9\nwarmup = 1\n",
        "orders.toml",
        &catalog,
    )
    .unwrap();
    let me = WorkerCommand {
        program: exe(),
        args: vec!["__worker".into()],
    };
    let opts = SessionOptions {
        isolation: Isolation::Subprocess(me.clone()),
        against: Some(Against {
            label: "orders".into(),
            commit: None,
            worker: me,
            code: Default::default(),
            orders: Some(OrderedBuilds {
                this: orders("this"),
                other: orders("other"),
            }),
        }),
        ..SessionOptions::in_process("orders")
    };
    let report = handoff::session::run(&catalog, plan.trials, &opts, &mut |_| {});
    let other = report.paired.as_ref().expect("a paired run");
    assert_eq!(other.link_orders, 3);
    for (side, result) in [("this", &report.results[0]), ("other", &other.results[0])] {
        let rates: Vec<f64> = result.samples.iter().map(|s| s.msgs_per_s).collect();
        assert_eq!(rates.len(), 9, "{side}: {rates:?}");
        // 42 µs a message is at most 23 810 a second, 10 µs at most 100 000: a sample run on
        // another order than k mod 3 breaks one of these bounds (each order costs at least four
        // times the one before; an upper bound is a floor of work, a lower one allows a sample
        // four times its nominal time, 8 ms for order 0).
        for (k, r) in rates.iter().enumerate() {
            let (low, high) = match k % 3 {
                2 => (0.0, 23_810.0),
                1 => (23_810.0, 100_000.0),
                _ => (100_000.0, f64::INFINITY),
            };
            assert!(
                *r > low && *r <= high,
                "{side} sample {k} at {r:.0}/s is not order {}'s: {rates:?}",
                k % 3
            );
        }
    }
    let c = handoff::compare::paired::paired(&report, Default::default()).unwrap();
    let l = c.rows[0].link_orders.expect("judged over the orders");
    assert_eq!((l.orders, l.pairs), (3, 9), "{:?}", c.rows[0]);
}

/// The sensitivity study's script runs both methods and prints its table (one short
/// repetition here; docs/compare.md shows the full study and its command).
#[test]
fn the_sensitivity_script_judges_both_methods() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/paired-sensitivity"))
        .args([
            "--reps",
            "1",
            "--plants",
            "0,0.2",
            "--transports",
            "planted-delay",
        ])
        .args(["--samples", "6", "--out"])
        .arg(dir.path().join("records.json"))
        .env("HANDOFF_BIN", exe())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    for (share, method) in [
        ("0%", "--against"),
        ("0%", "compare"),
        ("20%", "--against"),
        ("20%", "compare"),
    ] {
        assert!(
            rows.iter()
                .any(|r| r.len() > 3 && r[..3] == ["planted-delay", share, method]),
            "{share} {method}: {stdout}"
        );
    }
    let records: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("records.json")).unwrap()).unwrap();
    // Two shares, two methods: four records, each judged (a ratio and an adjusted p).
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), 4);
    for r in records {
        assert!(
            r["ratio"].as_f64().is_some() && r["p"].as_f64().is_some(),
            "{r}"
        );
    }
}

/// The real-build study's edits still apply to this checkout (each anchor found exactly once),
/// and its arguments are checked before anything is cloned or built. (The study itself builds
/// the checkout three times over; docs/compare.md shows it and its command.)
#[test]
fn the_build_sensitivity_edits_apply_to_these_sources() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/build-sensitivity");
    let run = |args: &[&str]| {
        let out = std::process::Command::new("python3")
            .arg(&script)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run(&["--check-edits"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    for edit in ["plant-spsc", "plant-crossbeam", "inert", "engine"] {
        assert!(
            stdout.contains(&format!("{edit}: crates/")),
            "{edit}: {stdout}"
        );
    }
    let (code, _, stderr) = run(&["--edits", "plant-spcs", "--check-edits"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no edit named 'plant-spcs'"), "{stderr}");
    let (code, _, stderr) = run(&["--orders", "8", "--samples", "10"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("fewer than 2 pairs"), "{stderr}");
}
