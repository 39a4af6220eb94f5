//! End-to-end: text others wrote reaches the terminal escaped, byte for byte.
//!
//! A run is recorded with a note and a suite name that hold escape sequences (clear the
//! screen, retitle the window, ring the bell); `run`'s own table, `history`, `show` (table and
//! markdown), `compare` and an error that quotes a reference must print none of those bytes,
//! and show each visibly (`\e[2J`), while `show --format json` keeps the text exactly. Notes and
//! suite names longer than their limits are refused with exit 2 before anything runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The note: clear the screen, set the window's title, ring the bell.
const EVIL: &str = "evil\u{1b}[2J\u{1b}]0;title\u{7}";
/// How the terminal views show [`EVIL`].
const SHOWN: &str = r"evil\e[2J\e]0;title\a";

/// The `handoff` binary, with no store from the environment.
fn handoff() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_handoff"));
    cmd.env_remove("HANDOFF_STORE");
    cmd
}

/// A temporary directory with a store and a suite file named [`EVIL`].
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        // TOML writes control characters as `\u` escapes.
        let suite = "name = \"evil\\u001B[2J\\u001B]0;title\\u0007\"\n\
                     probes = false\n\
                     [[benchmark]]\n\
                     workload = \"spsc\"\n\
                     transports = [\"crossbeam-bounded\"]\n";
        std::fs::write(dir.path().join("evil.toml"), suite).unwrap();
        Setup { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn store(&self) -> String {
        self.path("history.sqlite").to_string_lossy().into_owned()
    }

    /// `handoff ARGS --store STORE`.
    fn run(&self, args: &[&str]) -> Output {
        handoff()
            .args(args)
            .args(["--store", &self.store()])
            .output()
            .expect("handoff runs")
    }

    /// `handoff ARGS --store STORE`, expecting success; its standard output.
    fn ok(&self, args: &[&str]) -> Vec<u8> {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    /// A tiny recorded run of the suite, with `note`.
    fn record(&self, note: &str) -> Output {
        let suite = self.path("evil.toml");
        self.run(&[
            "run",
            suite.to_str().unwrap(),
            "-t",
            "crossbeam-bounded",
            "-w",
            "spsc",
            "--messages",
            "5000",
            "--samples",
            "3",
            "--warmup",
            "0",
            "--no-probes",
            "--quick",
            "--note",
            note,
        ])
    }
}

/// Asserts `bytes` (what `what` printed) hold no ESC, BEL or C1 CSI, and do hold `visible`.
fn escaped(what: &str, bytes: &[u8], visible: &str) {
    let text = String::from_utf8_lossy(bytes);
    assert!(!bytes.contains(&0x1b), "{what}: a raw ESC in\n{text}");
    assert!(!bytes.contains(&0x07), "{what}: a raw BEL in\n{text}");
    assert!(!text.contains('\u{9b}'), "{what}: a raw CSI in\n{text}");
    assert!(text.contains(visible), "{what}: `{visible}` not in\n{text}");
}

#[test]
fn stored_and_foreign_text_is_shown_escaped_in_every_terminal_view() {
    let s = Setup::new();
    let out = s.record(EVIL);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The run's own table names its suite; its progress lines and the line saying where the
    // run is recorded go to standard error.
    escaped("run", &out.stdout, SHOWN);
    escaped("run's standard error", &out.stderr, "recorded as run 1");

    let history = s.ok(&["history"]);
    escaped("history", &history, SHOWN);
    // Twice: the suite's name and the note.
    let text = String::from_utf8_lossy(&history);
    assert_eq!(text.matches(SHOWN).count(), 2, "{text}");

    escaped("show", &s.ok(&["show", "latest"]), SHOWN);
    // Markdown escapes the escape's backslash and bracket as markup.
    escaped(
        "show --format markdown",
        &s.ok(&["show", "1", "--format", "markdown"]),
        r"evil\\e\[2J\\e\]0;title\\a",
    );
    escaped("compare", &s.ok(&["compare", "1", "latest"]), SHOWN);
    escaped(
        "compare --format markdown",
        &s.ok(&["compare", "1", "latest", "--format", "markdown"]),
        SHOWN,
    );

    // JSON keeps the text exactly (escaped as JSON escapes it).
    let json = s.ok(&["show", "latest", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(report["suite"], EVIL);

    // An error that quotes a reference given on the command line.
    let reference = format!("nope{EVIL}");
    let out = s.run(&["show", &reference]);
    assert_eq!(out.status.code(), Some(2));
    escaped("show's error", &out.stderr, &format!("nope{SHOWN}"));
}

#[test]
fn a_note_or_suite_name_too_long_is_refused_before_anything_runs() {
    let s = Setup::new();
    let out = s.record(&"n".repeat(1001));
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with("error: --note: 1001 characters; at most 1000 are accepted"),
        "{said}"
    );
    assert!(!Path::new(&s.store()).exists(), "nothing recorded");
    // At the limit, it is kept whole.
    let note = "ü".repeat(1000);
    assert_eq!(s.record(&note).status.code(), Some(0));
    let history = String::from_utf8(s.ok(&["history"])).unwrap();
    assert!(history.trim_end().ends_with(&note), "{history}");

    let long = s.path("long.toml");
    std::fs::write(
        &long,
        format!(
            "name = \"{}\"\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"crossbeam-bounded\"]\n",
            "x".repeat(201)
        ),
    )
    .unwrap();
    let out = s.run(&["run", long.to_str().unwrap(), "--no-probes"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("long.toml:1:8: `name`: 201 characters; at most 200 are accepted"),
        "{said}"
    );
}
