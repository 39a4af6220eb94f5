//! End-to-end: `handoff run` records into the history store, `history`, `show` and `baseline`
//! read it; a killed run leaves an incomplete row and an intact store; two runs writing at
//! once both land; a store that cannot be opened stops a run before it starts, and one that
//! fails at the end still lets the report out.
//!
//! The PostgreSQL test needs a server: `scripts/test` starts one and passes its URL in
//! `HANDOFF_TEST_POSTGRES`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `handoff` binary, with no store from the environment.
fn handoff() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_handoff"));
    cmd.env_remove("HANDOFF_STORE");
    cmd
}

/// A short, passing ad-hoc run (no probes) into `store`, as JSON.
fn quick_run(store: &str) -> Command {
    let mut cmd = handoff();
    cmd.args([
        "run",
        "-t",
        "crossbeam-bounded",
        "-w",
        "spsc",
        "--messages",
        "2000",
        "--samples",
        "2",
        "--warmup",
        "0",
        "--no-probes",
        "--format",
        "json",
        "--store",
        store,
    ]);
    cmd
}

/// A run of `faulty-slow` (about a millisecond per message) that lasts some seconds.
fn slow_run(store: &str, messages: u32) -> Command {
    let mut cmd = handoff();
    cmd.args([
        "run",
        "-t",
        "faulty-slow",
        "-w",
        "spsc",
        "--samples",
        "1",
        "--warmup",
        "0",
        "--no-probes",
        "--quiet",
        "--format",
        "json",
        "--store",
        store,
        "--messages",
    ])
    .arg(messages.to_string());
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("handoff runs")
}

/// `handoff ARGS --store STORE`, expecting success; its stdout.
fn ok(store: &str, args: &[&str]) -> String {
    let out = run(handoff().args(args).args(["--store", store]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// `handoff ARGS --store STORE`, expecting exit `code`; its stderr.
fn fails(store: &str, args: &[&str], code: i32) -> String {
    let out = run(handoff().args(args).args(["--store", store]));
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stderr)
}

struct Sqlite {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Sqlite {
    fn new() -> Sqlite {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite");
        Sqlite { _dir: dir, path }
    }

    fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// Run ids, once the store has its tables (empty before).
    fn run_ids(&self) -> Vec<i64> {
        let Ok(db) = rusqlite::Connection::open(&self.path) else {
            return Vec::new();
        };
        let Ok(mut stmt) = db.prepare("SELECT id FROM runs ORDER BY id") else {
            return Vec::new();
        };
        stmt.query_map([], |r| r.get(0))
            .map(|rows| rows.filter_map(Result::ok).collect())
            .unwrap_or_default()
    }

    /// Waits until the store holds `n` runs.
    fn wait_for_runs(&self, n: usize) {
        let start = Instant::now();
        while self.run_ids().len() < n {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no run row appeared"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn integrity(&self) -> String {
        rusqlite::Connection::open(&self.path)
            .unwrap()
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap()
    }
}

/// Checks a recorded run on any store: `history` lists it with its note, `show` renders
/// exactly the JSON the run printed and every other format, and bad references exit 2.
fn recorded_and_shown(store: &str) {
    let out = run(quick_run(store).args(["--note", "after the cache-line change"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let said = text(&out.stderr);
    assert!(said.contains("recorded as run 1 in "), "{said}");

    let history = ok(store, &["history"]);
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 2, "{history}");
    let header: Vec<&str> = lines[0]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        header,
        [
            "id",
            "started (UTC)",
            "commit",
            "suite",
            "machine",
            "verdicts",
            "note"
        ],
        "{history}"
    );
    assert!(lines[1].trim_start().starts_with("1  "), "{history}");
    assert!(lines[1].contains("  ad-hoc  "), "{history}");
    assert!(lines[1].contains("  1 pass  "), "{history}");
    assert!(
        lines[1].ends_with("after the cache-line change"),
        "{history}"
    );

    for reference in ["1", "latest"] {
        let shown = ok(store, &["show", reference, "--format", "json"]);
        assert_eq!(
            shown, printed,
            "show {reference} renders what the run printed"
        );
    }
    for format in ["table", "markdown", "csv"] {
        let shown = ok(store, &["show", "latest", "--format", format]);
        assert!(shown.contains("crossbeam-bounded"), "{format}: {shown}");
    }
    let err = fails(store, &["show", "99"], 2);
    assert!(err.contains("unknown run id 99 (latest is 1)"), "{err}");
    let err = fails(store, &["show", "1", "--format", "yaml"], 2);
    assert!(err.contains("yaml"), "{err}");
}

#[test]
fn a_run_is_recorded_and_shown_again_exactly() {
    let store = Sqlite::new();
    recorded_and_shown(store.arg());
    // Written to a file, too.
    let out = store.path.with_file_name("shown.md");
    ok(
        store.arg(),
        &[
            "show",
            "latest",
            "-f",
            "markdown",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("| crossbeam-bounded |"));
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_run_is_recorded_in_postgres_and_shown_again_exactly() {
    let base = std::env::var("HANDOFF_TEST_POSTGRES")
        .expect("HANDOFF_TEST_POSTGRES names a PostgreSQL server (scripts/test starts one)");
    let name = format!("handoff_cli_test_{}", std::process::id());
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("test server");
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let (head, _) = base.split_once('?').unwrap_or((&base, ""));
    let server = &head[..head.rfind('/').expect("a URL with a database")];
    recorded_and_shown(&format!("{server}/{name}"));
}

/// The test server's port and its password roles' password (see `scripts/postgres-for-tests`).
fn password_server() -> (u16, String) {
    let base = std::env::var("HANDOFF_TEST_POSTGRES")
        .expect("HANDOFF_TEST_POSTGRES names a PostgreSQL server (scripts/test starts one)");
    let tls = PathBuf::from(
        std::env::var_os("HANDOFF_TEST_POSTGRES_TLS")
            .expect("HANDOFF_TEST_POSTGRES_TLS names the test server's tls directory"),
    );
    let port = base
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("the test URL has a port");
    let password = std::fs::read_to_string(tls.join("password")).unwrap();
    (port, password.trim().to_string())
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_pgpass_entry_replaces_the_password_on_the_command_line() {
    let (port, password) = password_server();
    let base = std::env::var("HANDOFF_TEST_POSTGRES").unwrap();
    let db = format!("handoff_cli_pgpass_{}", std::process::id());
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("test server");
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {db} OWNER handoff_pw"))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let pgpass = home.path().join(".pgpass");
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{port}:*:handoff_pw:{password}\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let url = format!("postgres://handoff_pw@127.0.0.1:{port}/{db}");
    let history = |url: &str| {
        run(handoff()
            .env("HOME", home.path())
            .env_remove("PGPASSWORD")
            .env_remove("PGPASSFILE")
            .args(["history", "--store", url]))
    };
    let out = history(&url);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    // A file others can read is refused, saying why (exit 2), its password unshown.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = history(&url);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("chmod 600") && !err.contains(&password),
        "{err}"
    );
    // A password on the command line still works, with a warning that others can see it.
    let url = format!("postgres://handoff_pw:{password}@127.0.0.1:{port}/{db}");
    let out = history(&url);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("handoff: warning: the --store URL holds a password")
            && err.lines().count() == 1,
        "{err}"
    );
    // Without TLS to the role that demands it: exit 3, the server's reason, no password.
    let url = format!("postgres://handoff_tls:{password}@127.0.0.1:{port}/{db}?sslmode=disable");
    let out = history(&url);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("no encryption") && err.contains("handoff_tls:***@"),
        "{err}"
    );
    assert!(!err.contains(&password), "{err}");
}

#[test]
fn a_machine_label_names_the_testbed_and_compare_says_when_two_differ() {
    let store = Sqlite::new();
    let out = run(quick_run(store.arg()).args(["--machine", "ci-xeon"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(quick_run(store.arg()).env("HANDOFF_MACHINE", "ci-epyc"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let history = ok(store.arg(), &["history"]);
    assert!(
        history.contains("ci-xeon") && history.contains("ci-epyc"),
        "{history}"
    );
    let shown = ok(store.arg(), &["show", "1", "-f", "json"]);
    let v: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(v["environment"]["machine"], "ci-xeon");
    let compared = ok(store.arg(), &["compare", "1", "2"]);
    assert!(
        compared.contains("machine: ci-xeon → ci-epyc"),
        "{compared}"
    );
    // A label with a control character is refused before anything runs.
    let out = run(quick_run(store.arg()).args(["--machine", "a\u{1b}]0;x\u{7}"]));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--machine: holds a control character"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(store.run_ids(), [1, 2]);
}

#[test]
fn baselines_name_runs() {
    let store = Sqlite::new();
    for _ in 0..2 {
        assert!(run(&mut quick_run(store.arg())).status.success());
    }
    assert_eq!(
        ok(store.arg(), &["baseline", "save", "main", "1"]),
        "baseline `main` is run 1\n"
    );
    assert_eq!(
        ok(store.arg(), &["baseline", "save", "main", "latest"]),
        "baseline `main` is run 2 (was run 1)\n"
    );
    ok(store.arg(), &["baseline", "save", "first", "1"]);
    let list = ok(store.arg(), &["baseline", "list"]);
    let names: Vec<&str> = list.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names, ["first", "main"], "{list}");
    assert!(list.contains("main   run 2"), "{list}");

    let shown = ok(store.arg(), &["show", "first", "-f", "json"]);
    let v: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(v["results"][0]["transport"], "crossbeam-bounded");

    // A comparison reads stored runs by reference, and JSON reports by path.
    let report = store.path.with_file_name("first.json");
    std::fs::write(&report, &shown).unwrap();
    let compared = ok(store.arg(), &["compare", report.to_str().unwrap(), "main"]);
    assert!(compared.contains("crossbeam-bounded spsc"), "{compared}");
    let err = fails(store.arg(), &["compare", "first", "mian"], 2);
    assert!(
        err.contains("no baseline `mian`; did you mean `main`?"),
        "{err}"
    );

    // A run against a baseline that does not exist stops before anything runs (no run is
    // recorded); against one that does, it is judged when it ends.
    let before = store.run_ids();
    let out = run(quick_run(store.arg()).args(["--baseline", "mian"]));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("--baseline: no baseline `mian`; did you mean `main`?"),
        "{err}"
    );
    assert_eq!(store.run_ids(), before, "nothing ran");
    // Two samples a side can show no significant change: the gate cannot judge, and fails.
    let out = run(quick_run(store.arg()).args(["--baseline", "main"]));
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{shown}");
    assert!(
        shown.contains("regression: no result significantly slower than baseline `main`"),
        "{shown}"
    );
    assert!(
        shown.contains("cannot be evaluated: too few samples for any change to be significant"),
        "{shown}"
    );

    let err = fails(store.arg(), &["show", "mian"], 2);
    assert!(
        err.contains("no baseline `mian`; did you mean `main`?"),
        "{err}"
    );
    let err = fails(store.arg(), &["baseline", "save", "42"], 2);
    assert!(err.contains("read as a run id"), "{err}");
    let err = fails(store.arg(), &["baseline", "save", "next", "7"], 2);
    assert!(err.contains("unknown run id 7 (latest is 3)"), "{err}");

    assert_eq!(
        ok(store.arg(), &["baseline", "delete", "first"]),
        "deleted baseline `first` (run 1 stays in the history)\n"
    );
    let err = fails(store.arg(), &["baseline", "delete", "first"], 2);
    assert!(err.contains("no baseline `first`"), "{err}");
    assert!(ok(store.arg(), &["show", "1", "-f", "csv"]).contains("crossbeam-bounded"));
}

#[test]
fn a_killed_run_stays_incomplete_and_the_store_intact() {
    let store = Sqlite::new();
    assert!(run(&mut quick_run(store.arg())).status.success());
    let mut child = slow_run(store.arg(), 3000)
        .args(["--note", "to be killed"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    store.wait_for_runs(2);
    // Part way through its trial: SIGKILL, no chance to clean up.
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();

    assert_eq!(store.integrity(), "ok");
    let history = ok(store.arg(), &["history"]);
    let killed = history.lines().nth(1).unwrap();
    assert!(killed.trim_start().starts_with("2  "), "{history}");
    assert!(killed.contains("  incomplete  "), "{history}");
    assert!(killed.ends_with("to be killed"), "{history}");
    let err = fails(store.arg(), &["show", "2"], 2);
    assert!(err.contains("run 2 is incomplete"), "{err}");
    // `latest` is the newest finished run, and the store takes new runs.
    assert!(ok(store.arg(), &["show", "latest", "-f", "json"]).contains("crossbeam-bounded"));
    assert!(run(&mut quick_run(store.arg())).status.success());
    assert_eq!(store.run_ids(), [1, 2, 3]);
    assert_eq!(store.integrity(), "ok");
}

#[test]
fn two_runs_writing_at_once_both_land() {
    let store = Sqlite::new();
    let children: Vec<_> = (0..2)
        .map(|_| {
            quick_run(store.arg())
                .arg("--quiet")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let history = ok(store.arg(), &["history"]);
    assert_eq!(history.matches("  1 pass").count(), 2, "{history}");
    assert_eq!(store.run_ids(), [1, 2]);
    assert_eq!(store.integrity(), "ok");
}

#[test]
fn a_store_that_cannot_be_opened_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "").unwrap();
    let inside_a_file = file.join("history.sqlite");
    for (store, code, says) in [
        (
            "postgres://nobody@127.0.0.1:1/history",
            3,
            "cannot open the history store at postgres://nobody@127.0.0.1:1/history: ",
        ),
        (inside_a_file.to_str().unwrap(), 3, "is not a directory"),
        (
            "mysql://db/history",
            2,
            "unsupported store URL scheme `mysql://`",
        ),
        // A word for "no store" is not taken as a file name.
        ("none", 2, "to keep no history, pass --no-store instead"),
    ] {
        // In a directory of its own, where a store file made by mistake would show.
        let out = run(quick_run(store).current_dir(dir.path()));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{store}: {stderr}");
        assert!(stderr.contains(says), "{store}: {stderr}");
        if code == 3 {
            // What to do about it, on the same line.
            assert!(
                stderr
                    .lines()
                    .any(|l| l.contains(says) && l.contains("`run --no-store` records nothing")),
                "{store}: {stderr}"
            );
        }
        assert!(out.stdout.is_empty(), "nothing ran: {}", text(&out.stdout));
        assert!(!stderr.contains("[1/1]"), "no trial ran: {stderr}");
    }
    assert!(!dir.path().join("none").exists(), "no file named none");
}

#[test]
fn a_store_that_fails_at_the_end_still_lets_the_report_out() {
    let store = Sqlite::new();
    let child = slow_run(store.arg(), 1500)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    store.wait_for_runs(1);
    // Another process holds the write lock past the run's end and its busy timeout.
    let db = rusqlite::Connection::open(&store.path).unwrap();
    db.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let out = child.wait_with_output().unwrap();
    db.execute_batch("ROLLBACK").unwrap();

    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("error: the run's report was written, but recording it as run 1 in the history store at "),
        "{stderr}"
    );
    assert!(stderr.contains("locked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("the report was written");
    assert_eq!(v["results"][0]["verdict"], "pass");
    let history = ok(store.arg(), &["history"]);
    assert!(history.contains("  incomplete"), "{history}");
    assert_eq!(store.integrity(), "ok");
}

#[test]
fn a_store_from_a_newer_handoff_is_refused() {
    let store = Sqlite::new();
    ok(store.arg(), &["history"]);
    rusqlite::Connection::open(&store.path)
        .unwrap()
        .execute(
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    let err = fails(store.arg(), &["history"], 3);
    assert!(
        err.contains(
            "this store has schema version 3; this handoff knows up to 1: upgrade handoff"
        ),
        "{err}"
    );
    let out = run(&mut quick_run(store.arg()));
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty(), "nothing ran");
}

#[test]
fn the_default_store_follows_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (home, xdg, own) = (
        dir.path().join("home"),
        dir.path().join("xdg"),
        dir.path().join("own.sqlite"),
    );
    let history = |envs: &[(&str, &Path)]| {
        let mut cmd = handoff();
        cmd.env_remove("XDG_DATA_HOME")
            .env("HOME", &home)
            .arg("history");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = run(&mut cmd);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let at_home = home.join(".local/share/handoff/history.sqlite");
    assert!(history(&[]).contains(&at_home.display().to_string()));
    assert!(at_home.exists());
    let at_xdg = xdg.join("handoff/history.sqlite");
    assert!(history(&[("XDG_DATA_HOME", &xdg)]).contains(&at_xdg.display().to_string()));
    assert!(at_xdg.exists());
    history(&[("XDG_DATA_HOME", &xdg), ("HANDOFF_STORE", &own)]);
    assert!(own.exists());
}

#[test]
fn no_store_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = quick_run("unused");
    // `--store` and `--no-store` conflict; the default location is what --no-store skips.
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--store")
        .collect();
    let mut cmd = handoff();
    cmd.args(&args)
        .arg("--no-store")
        .env("HANDOFF_STORE", dir.path().join("h.sqlite"));
    let out = run(&mut cmd);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!dir.path().join("h.sqlite").exists());
    assert!(!text(&out.stderr).contains("recorded as run"));
}
