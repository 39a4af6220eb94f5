//! End-to-end tests of `handoff compare` and of gates: the verdicts must be honest on real runs
//! of the real binary (a planted slowdown is caught, a run against itself is not flagged) and
//! on JSON reports scaled by hand.
//!
//! A test binary of its own: its runs are compared across time (`--baseline`, `compare`), so no
//! other test may run beside them (cargo runs one test binary at a time).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "it/support.rs"]
mod support;

use support::outcome;

/// The tests here time real runs and judge their figures: they run one at a time, so that one
/// test's runs do not take the cores from another's and plant a slowdown of their own.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    // Nothing here reads or writes a history: runs say --no-store, compares read files.
    cmd.env(
        "HANDOFF_STORE",
        "/nonexistent/handoff-compare-tests/history.sqlite",
    );
    cmd.env_remove("HANDOFF_PLANTED_DELAY_NS");
    cmd
}

/// A run of `planted-delay`: 12 samples of 4000 messages, each costing the consumer 2 µs of
/// work plus the planted delay.
const PLANTED_ARGS: &[&str] = &[
    "run",
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
];

/// Runs `planted-delay` with this planted delay per message and writes its JSON report.
fn planted_run(dir: &Path, name: &str, delay_ns: u64) -> PathBuf {
    let out = dir.join(name);
    let status = handoff()
        .env("HANDOFF_PLANTED_DELAY_NS", delay_ns.to_string())
        .args(PLANTED_ARGS)
        .args(["--no-store", "--quiet", "--format", "json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "run {name} failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    out
}

fn compare(before: &Path, after: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        handoff()
            .arg("compare")
            .arg(before)
            .arg(after)
            .args(extra)
            .output()
            .unwrap(),
    )
}

/// `report` with every sample's rate multiplied by `by` (its time divided by it).
fn scaled(report: &Path, by: f64, to: &Path) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        for s in r["samples"].as_array_mut().unwrap() {
            let rate = s["msgs_per_s"].as_f64().unwrap();
            s["msgs_per_s"] = (rate * by).into();
            s["ns_per_msg"] = (1e9 / (rate * by)).into();
        }
    }
    std::fs::write(to, serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn a_planted_slowdown_is_caught_and_a_run_against_itself_is_not() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let before = planted_run(dir.path(), "before.json", 0);
    let after = planted_run(dir.path(), "after.json", 500);

    // Against itself: `~` everywhere, exit 0 even with a gate.
    let (code, out, err) = compare(&before, &before, &["--max-regression", "5%"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains(" ~"), "{out}");
    assert!(
        out.contains("no result is significantly slower than 5.0%"),
        "{out}"
    );

    // 500 ns planted on 2 µs of work per message: a 20% lower rate and a quarter more CPU time
    // per message, caught with exit 4. On a busy machine the rate of either run may be cut by
    // the scheduler, which the CPU time per message is not: either figure may be the one caught.
    let caught =
        |out: &str| out.contains("slower  REGRESSION") || out.contains("costlier  REGRESSION");
    let (code, out, err) = compare(&before, &after, &["--max-regression", "5%"]);
    assert_eq!(code, Some(4), "{out}\n{err}");
    assert!(caught(&out), "{out}");
    assert!(err.contains("planted-delay spsc"), "{err}");

    // Without --max-regression it is reported, not gated.
    let (code, out, _) = compare(&before, &after, &[]);
    assert_eq!(code, Some(0));
    assert!(out.contains("slower") || out.contains("costlier"), "{out}");

    // The same through `run --baseline`: the run is judged when it ends, and exits 4.
    let out = handoff()
        .env("HANDOFF_PLANTED_DELAY_NS", "500")
        .args(PLANTED_ARGS)
        .args(["--no-store", "--quiet", "--baseline"])
        .arg(&before)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("FAILED: regression"), "{text}");
}

#[test]
fn two_runs_of_one_binary_show_no_regression_at_the_default_threshold() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let first = planted_run(dir.path(), "first.json", 0);
    // A second, separate run of the same binary, judged against the first by `run --baseline`
    // with the default maximum regression.
    let out = handoff()
        .args(PLANTED_ARGS)
        .args(["--no-store", "--quiet", "--baseline"])
        .arg(&first)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("passed: regression"), "{text}");
}

#[test]
fn scaled_reports_are_judged_by_the_threshold() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let measured = planted_run(dir.path(), "measured.json", 0);
    // The judgement is under test, not the machine: a real report whose samples are made
    // steady (within 2%), so a busy machine's noise cannot hide a 20% change.
    let before = dir.path().join("before.json");
    edited(&measured, &before, |r| {
        for (i, s) in r["samples"].as_array_mut().unwrap().iter_mut().enumerate() {
            let rate = 1e6 * (1.0 + 0.005 * (i % 5) as f64);
            s["msgs_per_s"] = rate.into();
            s["ns_per_msg"] = (1e9 / rate).into();
        }
    });
    let slower = dir.path().join("slower.json");
    scaled(&before, 0.8, &slower);
    let (code, out, err) = compare(&before, &slower, &["--max-regression", "5%"]);
    assert_eq!(code, Some(4), "{out}\n{err}");
    assert!(out.contains("-20.0%"), "{out}");

    let slight = dir.path().join("slight.json");
    scaled(&before, 0.98, &slight);
    let (code, out, err) = compare(&before, &slight, &["--max-regression", "5%"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains(" ~"), "{out}");

    for format in ["markdown", "json", "bmf"] {
        let (code, out, _) = compare(&before, &slower, &["--format", format]);
        assert_eq!(code, Some(0), "{format}");
        if format != "markdown" {
            let _: Value = serde_json::from_str(&out).expect(format);
        }
    }
}

/// `report` edited: `edit` applied to every result.
fn edited(report: &Path, to: &Path, edit: impl Fn(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        edit(r);
    }
    std::fs::write(to, serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn a_gate_that_cannot_judge_fails_unless_allowed() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let before = planted_run(dir.path(), "before.json", 0);

    // Nothing in common: the other report's results are of another transport.
    let other = dir.path().join("other.json");
    edited(&before, &other, |r| r["transport"] = "renamed-queue".into());
    let (code, out, err) = compare(&before, &other, &["--max-regression", "5%"]);
    assert_eq!(
        code,
        Some(4),
        "{out}
{err}"
    );
    assert!(
        err.contains("handoff: exit 4: the regression gate failed"),
        "{err}"
    );
    assert!(
        err.contains("cannot be evaluated: no result matches one of"),
        "{err}"
    );
    let (code, out, err) = compare(
        &before,
        &other,
        &["--max-regression", "5%", "--allow-unjudged"],
    );
    assert_eq!(
        code,
        Some(0),
        "{out}
{err}"
    );

    // Three samples a side: no change could be significant.
    let few = dir.path().join("few.json");
    edited(&before, &few, |r| {
        r["samples"].as_array_mut().unwrap().truncate(3);
    });
    let (code, out, err) = compare(&few, &few, &["--max-regression", "5%"]);
    assert_eq!(
        code,
        Some(4),
        "{out}
{err}"
    );
    assert!(err.contains("too few samples"), "{err}");

    // Without a maximum nothing is gated; the flag alone is refused.
    let (code, _, _) = compare(&before, &other, &[]);
    assert_eq!(code, Some(0));
    let (code, _, err) = compare(&before, &other, &["--allow-unjudged"]);
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn bad_reports_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"schema_version\": 1,\n  oops\n}").unwrap();
    let foreign = dir.path().join("foreign.json");
    std::fs::write(&foreign, "{\"benchmarks\": []}").unwrap();
    let missing = dir.path().join("missing.json");

    let (code, _, err) = compare(&bad, &bad, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("bad.json: line 3, column"), "{err}");
    let (code, _, err) = compare(&foreign, &foreign, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a handoff report"), "{err}");
    let (code, _, err) = compare(&missing, &missing, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read report"), "{err}");
    let (code, _, err) = compare(&bad, &bad, &["--max-regression", "lots"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a percentage"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn suite_run(dir: &Path, text: &str) -> (Option<i32>, String, String) {
    suite_run_with(dir, text, &[], None)
}

/// `suite_run` with more arguments and `HANDOFF_GATES` set (or removed).
fn suite_run_with(
    dir: &Path,
    text: &str,
    args: &[&str],
    gates_env: Option<&str>,
) -> (Option<i32>, String, String) {
    let suite = dir.join("gates.toml");
    std::fs::write(&suite, text).unwrap();
    let mut cmd = handoff();
    match gates_env {
        Some(v) => cmd.env("HANDOFF_GATES", v),
        None => cmd.env_remove("HANDOFF_GATES"),
    };
    let out = cmd
        .arg("run")
        .arg(&suite)
        .args(["--no-probes", "--no-store", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const BENCH: &str = r#"
[defaults]
samples = 5
warmup = 0
messages = 4000

[[benchmark]]
workload = "spsc"
transports = ["planted-delay", "crossbeam-bounded"]
"#;

#[test]
fn suite_gates_pass_fail_and_say_why() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    // planted-delay works 2 µs per message: far slower than a crossbeam channel.
    let failing = format!(
        "{BENCH}\n[[gate]]\nkind = \"ratio\"\ntransport = \"planted-delay\"\nover = \"crossbeam-bounded\"\nmin = 1.0\n"
    );
    let (code, out, err) = suite_run(dir.path(), &failing);
    assert_eq!(code, Some(4), "{out}\n{err}");
    assert!(
        out.contains("FAILED: ratio: planted-delay ≥ 1× crossbeam-bounded"),
        "{out}"
    );

    let passing = format!(
        "{BENCH}\n[[gate]]\nkind = \"ratio\"\ntransport = \"crossbeam-bounded\"\nover = \"best\"\nmin = 1.0\n"
    );
    let (code, out, err) = suite_run(dir.path(), &passing);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("passed: ratio: crossbeam-bounded"), "{out}");

    // A scaling gate over a run with no producer sweep cannot be evaluated: it fails, saying so.
    let unevaluable = format!("{BENCH}\n[[gate]]\nkind = \"scaling\"\nmin = 1.5\n");
    let (code, out, _) = suite_run(dir.path(), &unevaluable);
    assert_eq!(code, Some(4));
    assert!(out.contains("cannot be evaluated"), "{out}");

    // A regression gate whose baseline cannot be loaded fails with the reason.
    let missing = format!(
        "{BENCH}\n[[gate]]\nkind = \"regression\"\nbaseline = \"{}/nope.json\"\nmax = \"5%\"\n",
        dir.path().display()
    );
    let (code, out, _) = suite_run(dir.path(), &missing);
    assert_eq!(code, Some(4));
    assert!(
        out.contains("cannot be evaluated: cannot read report"),
        "{out}"
    );
}

#[test]
fn gates_can_be_switched_off_for_one_run_which_says_so() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let failing = format!(
        "{BENCH}\n[[gate]]\nkind = \"ratio\"\ntransport = \"planted-delay\"\nover = \"crossbeam-bounded\"\nmin = 1.0\n"
    );
    let said =
        "gates off (--no-gates): 1 gate of the suite not judged: ratio: planted-delay ≥ 1× crossbeam-bounded";
    let (code, out, err) = suite_run_with(dir.path(), &failing, &["--no-gates"], None);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains(said), "{err}");
    assert!(!out.contains("FAILED"), "{out}");
    let (code, _, err) = suite_run_with(dir.path(), &failing, &[], Some("0"));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("gates off (HANDOFF_GATES=0)"), "{err}");
    let (code, _, err) = suite_run_with(dir.path(), &failing, &[], Some("no"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("HANDOFF_GATES: expected 0"), "{err}");
    // `--baseline` asks for a gate by name: not with --no-gates.
    let (code, _, err) = suite_run_with(
        dir.path(),
        BENCH,
        &["--no-gates", "--baseline", "main"],
        None,
    );
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn a_scaling_gate_on_an_oversubscribed_sweep_is_skipped_not_passed() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let top = cores + 1; // top count + 1 consumer > cores
    let suite = |up_to: &str| {
        format!(
            "[defaults]\nsamples = 3\nwarmup = 0\nmessages = 20000\n\n[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"crossbeam-bounded\"]\nproducers = [1, {top}]\n\n[[gate]]\nkind = \"scaling\"\nmin = 1.5\n{up_to}"
        )
    };
    // The top count, as asked: it ran oversubscribed.
    let (code, out, err) = suite_run(dir.path(), &suite("up_to = \"top\"\n"));
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("skipped: scaling"), "{out}");
    assert!(
        out.contains(&format!(
            "skipped (oversubscribed: {} threads on {cores} cores",
            top + 1
        )),
        "{out}"
    );
    // The default, the most producers that fit the cores: none above one does here, and the
    // gate says why.
    let (code, out, err) = suite_run(dir.path(), &suite(""));
    assert_eq!(code, Some(0), "{out}\n{err}");
    let why = if cores < 3 {
        format!("skipped ({cores} cores: even 2 producers and 1 consumer need 3 threads)")
    } else {
        format!(
            "skipped (no producer count swept above 1 fits {cores} cores (the least, {top}, needs {} threads))",
            top + 1
        )
    };
    assert!(out.contains(&why), "{out}");
}

#[test]
fn malformed_gates_are_refused_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{BENCH}\n[[gate]]\nkind = \"scalign\"\nmin = 1.5\n");
    let (code, _, err) = suite_run(dir.path(), &text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("gates.toml:12:8"), "{err}");
    assert!(err.contains("did you mean `scaling`?"), "{err}");
    let text =
        format!("{BENCH}\n[[gate]]\nkind = \"ratio\"\ntransport = \"planted-dealy\"\nmin = 1\n");
    let (code, _, err) = suite_run(dir.path(), &text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("did you mean `planted-delay`"), "{err}");
    let text = format!("{BENCH}\n[[gate]]\nkind = \"scaling\"\n");
    let (code, _, err) = suite_run(dir.path(), &text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs `min`"), "{err}");
}
