//! Docs as tests: every command shown in README.md and docs/*.md is run as written, in the
//! order written, and must exit as `commands.toml` says with the output it names.
//!
//! A small runner of our own rather than `trycmd`: the documented commands measure, so their
//! output is never the same twice and is checked by fragments, not snapshots; they share state
//! the way a reader's terminal does (a run recorded, then shown, named and compared), and their
//! runs need a quick form. So each document's commands run in one `bash` in a scratch
//! directory that looks like the repository (its `suites`, `scripts`, `examples` and `include`),
//! with a throwaway history store, where `handoff` is the binary under test and `handoff run`
//! gets the quick form of `shims::QUICK` unless the command sets those flags itself. A
//! document that names stored runs (`handoff show 42`) gets a store of 42 runs first (see
//! [`setup`]).
//!
//! A command in the docs that `commands.toml` does not list fails the test, and so does an
//! entry no document shows: a new example cannot go untested, nor a test outlive its example.
//! Commands against a PostgreSQL server run against the test server when
//! `HANDOFF_TEST_POSTGRES` names one (`scripts/test` starts it); without it they are listed as
//! not run.

mod extract;
mod prerequisites;
mod shims;

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `commands.toml` says about one documented command.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// The document it is in.
    doc: String,
    /// The command, as the document writes it (without its comment).
    text: String,
    /// The exit codes it may end with (default: 0 only).
    #[serde(default)]
    exit: Option<Vec<i32>>,
    /// Fragments its standard output must contain.
    #[serde(default)]
    stdout: Vec<String>,
    /// Fragments its standard error must contain.
    #[serde(default)]
    stderr: Vec<String>,
    /// Files (relative to the scratch directory) it must write.
    #[serde(default)]
    writes: Vec<String>,
    /// Not run, and why (said in the document next to it, too).
    #[serde(default)]
    skip: Option<String>,
    /// Its runs keep 5 samples (no `--quick`): what it does compares their figures.
    #[serde(default)]
    full_samples: bool,
    /// It runs exactly as written, without the quick form's flags: each document's runs have at
    /// least one such (a run the reader copies must work in its full form too).
    #[serde(default)]
    as_written: bool,
    /// It needs the PostgreSQL server: its `…@db.example…/handoff` URLs name the test
    /// server's database instead.
    #[serde(default)]
    postgres: bool,
    /// What runs in its place in the quick form: the same command with smaller counts (a
    /// script's `--runs`, say), where the document's counts would take minutes. Only numbers
    /// may differ from the document's text.
    #[serde(default)]
    quick: Option<String>,
}

/// One document's settings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    name: String,
    /// Whether its commands name stored runs: the store gets runs 1 to 42 first.
    #[serde(default)]
    store: bool,
    /// Why none of its runs is run as written (each takes minutes in full form), if so.
    #[serde(default)]
    as_written_none: Option<String>,
    /// Why its commands take long whatever the machine (they wait: paced runs, a broker),
    /// if they do: such a document starts before the others.
    #[serde(default)]
    slow: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    doc: Vec<Doc>,
    command: Vec<Expect>,
    /// What documented commands need set up first (see [`prerequisites`]).
    setup: Vec<prerequisites::Setup>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn manifest() -> Manifest {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/docs/commands.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each documented command with its entry: the k-th time a document shows a command goes with
/// the k-th entry of that document and text. Returns the pairs, the commands without an entry
/// and the entries without a command.
fn paired<'a>(
    shown: &'a [extract::Documented],
    m: &'a Manifest,
) -> (
    Vec<(&'a extract::Documented, &'a Expect)>,
    Vec<&'a extract::Documented>,
    Vec<&'a Expect>,
) {
    let mut used = vec![false; m.command.len()];
    let mut pairs = Vec::new();
    let mut missing = Vec::new();
    for c in shown {
        let entry = m
            .command
            .iter()
            .enumerate()
            .find(|(i, e)| !used[*i] && e.doc == c.doc && e.text == c.text);
        match entry {
            Some((i, e)) => {
                used[i] = true;
                pairs.push((c, e));
            }
            None => missing.push(c),
        }
    }
    let stale = m
        .command
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(e, _)| e)
        .collect();
    (pairs, missing, stale)
}

#[test]
fn every_documented_command_is_listed_and_every_listed_command_is_documented() {
    let m = manifest();
    let shown = extract::commands(&root());
    let (_, missing, stale) = paired(&shown, &m);
    let missing: Vec<String> = missing
        .iter()
        .map(|c| format!("{}:{}: {}", c.doc, c.line, c.text))
        .collect();
    let stale: Vec<String> = stale
        .iter()
        .map(|e| format!("{}: {}", e.doc, e.text))
        .collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "documented but not in tests/docs/commands.toml:\n  {}\nin commands.toml but in no document:\n  {}",
        missing.join("\n  "),
        stale.join("\n  ")
    );
}

/// Whether `quick` is `text` with only numbers changed (word by word).
fn only_counts_differ(text: &str, quick: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        text.split_whitespace().collect(),
        quick.split_whitespace().collect(),
    );
    let number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x == y || (number(x) && number(y)))
}

#[test]
fn a_quick_form_changes_only_counts() {
    let m = manifest();
    let wrong: Vec<String> = m
        .command
        .iter()
        .filter_map(|e| {
            let quick = e.quick.as_deref()?;
            (quick == e.text || e.as_written || !only_counts_differ(&e.text, quick))
                .then(|| format!("{}: `{}` runs as `{quick}`", e.doc, e.text))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "a `quick` form must be the documented command with only its numbers changed (and not \
         on a command run as written):\n  {}",
        wrong.join("\n  ")
    );
    assert!(only_counts_differ("x --runs 8", "x --runs 3"));
    assert!(!only_counts_differ("x --runs 8", "x --runs 3 --quick"));
    assert!(!only_counts_differ("x --runs 8", "x --samples 8"));
}

#[test]
fn every_document_states_the_prerequisites_of_its_commands() {
    let m = manifest();
    let shown = extract::commands(&root());
    let mut docs: Vec<&str> = shown.iter().map(|c| c.doc.as_str()).collect();
    docs.dedup();
    let mut problems = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        let commands: Vec<&extract::Documented> = shown.iter().filter(|c| c.doc == doc).collect();
        problems.extend(prerequisites::problems(doc, &text, &commands, &m.setup));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) with the documents' prerequisites:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn every_document_runs_one_of_its_runs_as_written() {
    let m = manifest();
    let mut wrong = Vec::new();
    for e in m.command.iter().filter(|e| e.as_written) {
        if e.skip.is_some() || !e.text.contains(" run ") {
            wrong.push(format!(
                "{}: `{}` is marked as_written but is not a run that is run",
                e.doc, e.text
            ));
        }
    }
    let mut docs: Vec<&str> = m.command.iter().map(|e| e.doc.as_str()).collect();
    docs.dedup();
    for doc in docs {
        let runs = m
            .command
            .iter()
            .filter(|e| e.doc == doc && e.skip.is_none() && e.text.contains(" run "));
        let mut runs = runs.peekable();
        if runs.peek().is_none() {
            continue;
        }
        let reason = m
            .doc
            .iter()
            .find(|d| d.name == doc)
            .and_then(|d| d.as_written_none.as_ref());
        match (runs.any(|e| e.as_written), reason) {
            (true, Some(_)) => wrong.push(format!(
                "{doc}: has a run marked as_written and says why it has none"
            )),
            (false, None) => wrong.push(format!(
                "{doc}: none of its runs is run as written (mark one `as_written = true`, or say \
                 why none can be with the document's `as_written_none`)"
            )),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A scratch directory that looks like the repository to the documented commands, with
/// `old/handoff` (the binary under test) as the other build of a paired run.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["suites", "scripts", "examples", "include"] {
        std::os::unix::fs::symlink(root().join(name), dir.path().join(name)).unwrap();
    }
    shims::write(
        &dir.path().join(".bin"),
        Path::new(env!("CARGO_BIN_EXE_handoff")),
    );
    // "Another handoff executable" for `run --against old/handoff`: the binary under test.
    std::fs::create_dir(dir.path().join("old")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_handoff"),
        dir.path().join("old").join("handoff"),
    )
    .unwrap();
    dir
}

/// Runs `args` with the binary under test in `dir`, and requires it to pass.
fn handoff_in(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_handoff"))
        .current_dir(dir)
        .env("HANDOFF_STORE", dir.join("history.sqlite"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "setup `handoff {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// For a document that names stored runs: runs 1 to 40 (one small trial each), then 41 and 42
/// (the ingress suite, in the quick form), and two JSON reports, `before.json` and `after.json`.
fn setup(dir: &Path) {
    let tiny = [
        "run",
        "-t",
        "rtrb",
        "-w",
        "spsc",
        "--messages",
        "1000",
        "--samples",
        "1",
        "--warmup",
        "0",
        "--no-probes",
        "--quiet",
    ];
    for _ in 0..40 {
        handoff_in(dir, &tiny);
    }
    let ingress = [
        "run",
        "suites/ingress.toml",
        "--no-probes",
        "--messages",
        "5000",
        "--samples",
        "5",
        "--warmup",
        "0",
        "--quiet",
    ];
    for _ in 0..2 {
        handoff_in(dir, &ingress);
    }
    for name in ["before.json", "after.json"] {
        let mut args = ingress.to_vec();
        args.extend(["--no-store", "--format", "json", "--out", name]);
        handoff_in(dir, &args);
    }
}

/// A database of its own on the test server for document number `doc`, if there is a server.
fn postgres_url(doc: usize) -> Option<String> {
    let base = std::env::var("HANDOFF_TEST_POSTGRES").ok()?;
    let name = format!("handoff_docs_{}_{doc}", std::process::id());
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("the test server");
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let (head, _) = base.split_once('?').unwrap_or((&base, ""));
    let server = &head[..head.rfind('/').expect("a URL with a database")];
    Some(format!("{server}/{name}"))
}

/// `postgres://USER@db.example:5432/handoff` → the test database.
fn on_test_server(text: &str, url: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("postgres://") {
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace())
            .map_or(rest.len(), |e| at + e);
        out.push_str(url);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// How many documents run at once unless `HANDOFF_DOCS_JOBS` says: the three slow ones (two of
/// them mostly waiting) start together and the rest follow as they finish. More at once only
/// adds contention: the runs' spinning threads, pinned to the same cores, slow each other
/// several-fold (docs/ipc.md's run took 23 s alone, 142 s beside eight other documents).
/// Measured on a 2-core machine, the whole test: every document at once 202 s, three 169 s,
/// two 212 s, one 347 s.
const DOCS_JOBS: usize = 3;

/// How many documents run at once: `HANDOFF_DOCS_JOBS`, else [`DOCS_JOBS`].
fn docs_jobs() -> usize {
    std::env::var("HANDOFF_DOCS_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|&j| j > 0)
        .unwrap_or(DOCS_JOBS)
}

/// What one document's commands did: the failures, and the commands not run with why.
#[derive(Default)]
struct Outcome {
    failures: Vec<String>,
    not_run: Vec<String>,
}

#[test]
fn every_documented_command_works() {
    let m = manifest();
    let shown = extract::commands(&root());
    let (pairs, _, _) = paired(&shown, &m);
    let mut docs: Vec<&str> = shown.iter().map(|c| c.doc.as_str()).collect();
    docs.dedup();
    // The slow documents first, so that the rest fill in beside them.
    let slow = |doc: &str| m.doc.iter().any(|d| d.name == doc && d.slow.is_some());
    docs.sort_by_key(|doc| !slow(doc));
    // The documents are independent (each has a scratch directory and store of its own), so
    // they run side by side, `jobs` at a time, each taken by the next free runner in document
    // order; nothing here is timed.
    let jobs = docs_jobs();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<std::sync::Mutex<Option<Outcome>>> =
        docs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(docs.len()) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(doc) = docs.get(n) else { break };
                let cmds: Vec<&(&extract::Documented, &Expect)> =
                    pairs.iter().filter(|(c, _)| c.doc == *doc).collect();
                let store = m.doc.iter().any(|d| d.name == *doc && d.store);
                // Each document's history is its own, on PostgreSQL as on SQLite.
                let pg = cmds
                    .iter()
                    .any(|(_, e)| e.postgres)
                    .then(|| postgres_url(n))
                    .flatten();
                let outcome = run_doc(doc, &cmds, store, pg.as_deref());
                *done[n].lock().unwrap() = Some(outcome);
            });
        }
    });
    let outcomes: Vec<Outcome> = done
        .into_iter()
        .map(|o| o.into_inner().unwrap().expect("every document run"))
        .collect();
    let not_run: Vec<String> = outcomes.iter().flat_map(|o| o.not_run.clone()).collect();
    let failures: Vec<String> = outcomes.iter().flat_map(|o| o.failures.clone()).collect();
    if !not_run.is_empty() {
        eprintln!("documented commands not run:\n  {}", not_run.join("\n  "));
    }
    assert!(
        failures.is_empty(),
        "{} documented command(s) do not work as documented:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs one document's commands, in order, in one shell.
fn run_doc(
    doc: &str,
    cmds: &[&(&extract::Documented, &Expect)],
    store: bool,
    pg: Option<&str>,
) -> Outcome {
    let began = std::time::Instant::now();
    let mut outcome = Outcome::default();
    let dir = scratch();
    if store {
        setup(dir.path());
    }
    // One shell per document, as a reader's terminal: what one line sets, the next sees.
    let mut script = String::from("set +e\n");
    let mut ran = Vec::new();
    for (i, (c, e)) in cmds.iter().enumerate() {
        // The quick form, where it has one, instead of the document's counts.
        let quick_or_shown = e.quick.as_deref().unwrap_or(&c.text);
        let text = match (&e.skip, e.postgres, pg) {
            (Some(why), _, _) => {
                outcome
                    .not_run
                    .push(format!("{}:{}: {} ({why})", c.doc, c.line, c.text));
                continue;
            }
            (None, true, None) => {
                outcome.not_run.push(format!(
                    "{}:{}: {} (needs HANDOFF_TEST_POSTGRES)",
                    c.doc, c.line, c.text
                ));
                continue;
            }
            (None, true, Some(url)) => on_test_server(quick_or_shown, url),
            (None, false, _) => quick_or_shown.to_string(),
        };
        // An assignment in front of a command is the environment of that command only.
        let text = if e.as_written {
            format!("HANDOFF_DOCS_AS_WRITTEN=1 {text}")
        } else if e.full_samples {
            format!("HANDOFF_DOCS_FULL=1 {text}")
        } else {
            text
        };
        // Each command's exit code, and how long it took (the slowest are named below).
        script.push_str(&format!(
            "t0=$(date +%s%N)\n{text} >.out/{i} 2>.err/{i}\necho $? >.code/{i}\n\
             echo $(( ($(date +%s%N) - t0) / 1000000 )) >.ms/{i}\n"
        ));
        ran.push((i, *c, *e));
    }
    for d in [".out", ".err", ".code", ".ms"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    let path = format!(
        "{}:{}",
        dir.path().join(".bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("HANDOFF_STORE", dir.path().join("history.sqlite"))
        // Scripts that run handoff (`scripts/false-alarms`) run it in the quick form too.
        .env("HANDOFF_BIN", dir.path().join(".bin/handoff"))
        .env_remove("HANDOFF_PLANTED_DELAY_NS")
        .env_remove("HANDOFF_DOCS_FULL")
        .env_remove("HANDOFF_DOCS_AS_WRITTEN")
        .status()
        .unwrap();
    assert!(status.success(), "{doc}: the shell itself failed");
    let read = |d: &str, i: usize| {
        std::fs::read_to_string(dir.path().join(d).join(i.to_string())).unwrap_or_default()
    };
    let mut slowest = Vec::new();
    for (i, c, e) in ran {
        let ms: u64 = read(".ms", i).trim().parse().unwrap_or(0);
        slowest.push((ms, c.text.clone()));
        let code: i32 = read(".code", i).trim().parse().unwrap_or(-1);
        let (out, err) = (read(".out", i), read(".err", i));
        let exits = e.exit.clone().unwrap_or_else(|| vec![0]);
        let mut wrong = Vec::new();
        if !exits.contains(&code) {
            wrong.push(format!("exit {code}, expected {exits:?}"));
        }
        for f in &e.stdout {
            if !out.contains(f.as_str()) {
                wrong.push(format!("no `{f}` on standard output"));
            }
        }
        for f in &e.stderr {
            if !err.contains(f.as_str()) {
                wrong.push(format!("no `{f}` on standard error"));
            }
        }
        for f in &e.writes {
            if !dir.path().join(f).is_file() {
                wrong.push(format!("`{f}` not written"));
            }
        }
        if !wrong.is_empty() {
            outcome.failures.push(format!(
                "{}:{}: {}\n    {}\n    --- stdout (end)\n{}\n    --- stderr (end)\n{}",
                c.doc,
                c.line,
                c.text,
                wrong.join("; "),
                tail(&out),
                tail(&err)
            ));
        }
    }
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    let named: Vec<String> = slowest
        .iter()
        .take(3)
        .map(|(ms, text)| format!("{:.0} s {text}", *ms as f64 / 1000.0))
        .collect();
    eprintln!(
        "{doc}: {} command(s) in {:.0} s; slowest: {}",
        cmds.len(),
        began.elapsed().as_secs_f64(),
        named.join(" | ")
    );
    outcome
}

/// The last lines of an output, for a failure message.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(12);
    lines[from..]
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
