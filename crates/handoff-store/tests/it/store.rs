//! The store's contract, on both backends: a run round-trips exactly, the history lists runs
//! newest first with incomplete ones marked, references resolve or say why not, baselines
//! name runs, and concurrent writers all land.
//!
//! The SQLite tests always run. The PostgreSQL ones need a server: `scripts/test` starts a
//! throwaway one and passes its URL in `HANDOFF_TEST_POSTGRES`; each test gets a database of
//! its own there.

use handoff_model::report::RunReport;
use handoff_store::{Location, RunId, RunStart, Store};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A real report (the output tests' golden file): every verdict, latency histograms, layouts.
const GOLDEN: &str = include_str!("../../../handoff/tests/golden/report.json");

fn golden() -> RunReport {
    serde_json::from_str(GOLDEN).expect("the golden report parses")
}

/// A store somewhere fresh; the guard keeps a SQLite file's directory alive.
struct Fresh {
    location: Location,
    _dir: Option<tempfile::TempDir>,
}

fn sqlite() -> Fresh {
    let dir = tempfile::tempdir().unwrap();
    Fresh {
        location: Location::Sqlite(dir.path().join("history.sqlite")),
        _dir: Some(dir),
    }
}

/// A new, empty database on the test server.
fn postgres() -> Fresh {
    static N: AtomicUsize = AtomicUsize::new(0);
    let base = std::env::var("HANDOFF_TEST_POSTGRES")
        .expect("HANDOFF_TEST_POSTGRES names a PostgreSQL server (scripts/test starts one)");
    let name = format!(
        "handoff_test_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("test server");
    // One statement each: neither may run inside a transaction block.
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    Fresh {
        location: Location::Postgres(with_database(&base, &name)),
        _dir: None,
    }
}

/// `url` with its database replaced by `db`.
fn with_database(url: &str, db: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((h, q)) => (h, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = head.find("://").map_or(0, |i| i + 3);
    let host_end = head[scheme_end..]
        .find('/')
        .map_or(head.len(), |i| scheme_end + i);
    format!("{}/{db}{query}", &head[..host_end])
}

fn start(report: &RunReport, note: Option<&str>) -> RunStart {
    RunStart {
        started_at: report.started_at.clone(),
        suite: report.suite.clone(),
        environment: report.environment.clone(),
        machine: "bench-1".into(),
        params: serde_json::json!({ "trials": [] }),
        note: note.map(str::to_string),
    }
}

fn record(store: &Store, report: &RunReport, note: Option<&str>) -> RunId {
    let id = store.begin(&start(report, note)).unwrap();
    store.finish(id, report).unwrap();
    id
}

fn json(report: &RunReport) -> String {
    serde_json::to_string_pretty(report).unwrap()
}

fn round_trip(fresh: Fresh) {
    let store = Store::open(&fresh.location).unwrap();
    let mut report = golden();
    // The machine probed again during the run, twice: the stored run keeps both probes.
    let first = report.limits.clone().expect("the golden run has limits");
    for (at, rtt) in [(12.5, 180.0), (40.0, 458.0)] {
        let mut again = first.clone();
        again.at_s = Some(at);
        again.cacheline_rtt_ns.median = rtt;
        report.reprobes.push(again);
    }
    let id = record(&store, &report, Some("after the cache-line change"));
    let loaded = store.load("latest").unwrap();
    assert_eq!(loaded, report);
    assert_eq!(
        json(&loaded),
        json(&report),
        "renders exactly as it printed"
    );
    assert_eq!(store.load(&id.to_string()).unwrap(), report);
}

fn history(fresh: Fresh) {
    let store = Store::open(&fresh.location).unwrap();
    assert!(store.runs(None).unwrap().is_empty());
    let mut report = golden();
    report.environment.git_commit = "0123456789ab-dirty".into();
    let first = record(&store, &report, None);
    let killed = store.begin(&start(&report, Some("killed"))).unwrap();
    let third = record(&store, &golden(), Some("third"));

    let runs = store.runs(None).unwrap();
    let ids: Vec<RunId> = runs.iter().map(|r| r.id).collect();
    assert_eq!(ids, vec![third, killed, first], "newest first");
    let (t, k, f) = (&runs[0], &runs[1], &runs[2]);
    assert!(t.is_complete() && f.is_complete());
    assert!(!k.is_complete(), "a run that never finished is marked");
    assert!(k.verdicts.is_empty());
    assert_eq!(k.note.as_deref(), Some("killed"));
    assert_eq!((f.git_commit.as_str(), f.git_dirty), ("0123456789ab", true));
    assert_eq!((t.git_commit.as_str(), t.git_dirty), ("abc1234", false));
    assert_eq!(t.machine, "bench-1");
    assert_eq!(t.suite, report.suite);
    let counted: u64 = t.verdicts.iter().map(|(_, n)| n).sum();
    assert_eq!(counted as usize, report.results.len());
    assert_eq!(
        t.verdicts[0].0, "pass",
        "pass comes first: {:?}",
        t.verdicts
    );
    let passed = report
        .results
        .iter()
        .filter(|r| r.verdict == handoff_model::report::Verdict::Pass)
        .count() as u64;
    assert_eq!(t.verdicts[0].1, passed);
    assert_eq!(
        store
            .runs(Some(2))
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        vec![third, killed]
    );
}

fn references(fresh: Fresh) {
    let store = Store::open(&fresh.location).unwrap();
    let err = store.load("latest").unwrap_err();
    assert!(err.is_bad_input());
    assert_eq!(err.to_string(), "no run is recorded in this store yet");

    let report = golden();
    let done = record(&store, &report, None);
    let unfinished = store.begin(&start(&report, None)).unwrap();
    assert_eq!(store.resolve("latest").unwrap(), done, "latest is finished");

    let err = store.load("99").unwrap_err();
    assert!(err.is_bad_input());
    assert_eq!(
        err.to_string(),
        format!("unknown run id 99 (latest is {unfinished})")
    );
    let err = store.load(&unfinished.to_string()).unwrap_err();
    assert!(err.is_bad_input());
    assert!(err.to_string().contains("is incomplete"), "{err}");

    store.save_baseline("main", &done.to_string()).unwrap();
    assert_eq!(store.load("main").unwrap(), report);
    let err = store.load("mian").unwrap_err();
    assert!(err.is_bad_input());
    assert_eq!(err.to_string(), "no baseline `mian`; did you mean `main`?");
    let err = store.load("zzzzzzzz").unwrap_err();
    assert_eq!(err.to_string(), "no baseline `zzzzzzzz` (saved: main)");
    let err = store
        .save_baseline("wip", &unfinished.to_string())
        .unwrap_err();
    assert!(err.to_string().contains("is incomplete"), "{err}");
}

fn baselines(fresh: Fresh) {
    let store = Store::open(&fresh.location).unwrap();
    let report = golden();
    let a = record(&store, &report, None);
    let b = record(&store, &report, None);
    assert_eq!(
        store.save_baseline("main", &a.to_string()).unwrap(),
        (a, None)
    );
    assert_eq!(store.save_baseline("main", "latest").unwrap(), (b, Some(a)));
    assert_eq!(
        store.save_baseline("old", &a.to_string()).unwrap(),
        (a, None)
    );
    let listed: Vec<(String, RunId)> = store
        .baselines()
        .unwrap()
        .into_iter()
        .map(|b| (b.name, b.run))
        .collect();
    assert_eq!(listed, vec![("main".into(), b), ("old".into(), a)]);
    assert!(store
        .save_baseline("42", "latest")
        .unwrap_err()
        .is_bad_input());
    assert!(store
        .save_baseline("latest", "latest")
        .unwrap_err()
        .is_bad_input());

    assert_eq!(store.delete_baseline("old").unwrap(), a);
    let err = store.delete_baseline("old").unwrap_err();
    assert!(err.is_bad_input());
    assert!(err.to_string().starts_with("no baseline `old`"), "{err}");
    assert_eq!(store.load(&a.to_string()).unwrap(), report, "the run stays");
    assert_eq!(store.baselines().unwrap().len(), 1);
}

fn concurrent_writers(fresh: Fresh) {
    const WRITERS: usize = 4;
    const RUNS: usize = 3;
    Store::open(&fresh.location).unwrap();
    let report = golden();
    std::thread::scope(|s| {
        for _ in 0..WRITERS {
            s.spawn(|| {
                let store = Store::open(&fresh.location).unwrap();
                for _ in 0..RUNS {
                    record(&store, &report, None);
                }
            });
        }
    });
    let store = Store::open(&fresh.location).unwrap();
    let runs = store.runs(None).unwrap();
    assert_eq!(runs.len(), WRITERS * RUNS);
    for run in &runs {
        assert!(run.is_complete());
        assert_eq!(store.load_run(run.id).unwrap(), report);
    }
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

fn finishing_twice_is_refused(fresh: Fresh) {
    let store = Store::open(&fresh.location).unwrap();
    let report = golden();
    let id = record(&store, &report, None);
    assert!(store.finish(id, &report).is_err());
    assert!(store.finish(RunId(id.0 + 100), &report).is_err());
    // Nothing of the refused attempts was written.
    assert_eq!(store.load_run(id).unwrap(), report);
}

/// Each check, as a SQLite test and as an ignored PostgreSQL test.
macro_rules! both_backends {
    ($($check:ident),* $(,)?) => {
        mod on_sqlite {
            $( #[test] fn $check() { super::$check(super::sqlite()) } )*
        }
        mod on_postgres {
            $(
                #[test]
                #[ignore = "needs PostgreSQL: scripts/test starts one"]
                fn $check() { super::$check(super::postgres()) }
            )*
        }
    };
}

both_backends!(
    round_trip,
    history,
    references,
    baselines,
    concurrent_writers,
    finishing_twice_is_refused,
);

#[test]
fn samples_and_identities_are_queryable_columns() {
    let fresh = sqlite();
    let store = Store::open(&fresh.location).unwrap();
    let mut report = golden();
    // A sample placed under a random layout (seeds span the whole u64 range).
    let first = report
        .results
        .iter()
        .position(|r| !r.samples.is_empty())
        .expect("the golden report has samples");
    let layout = handoff_model::layout::LayoutRecord {
        seed: u64::MAX - 7,
        heap_pad: 4160,
        stack_offsets: vec![64, 128],
    };
    report.results[first].samples[0].layout = Some(layout.clone());
    let id = record(&store, &report, None);
    let first = (first, layout);
    let Location::Sqlite(path) = &fresh.location else {
        unreachable!()
    };
    let db = rusqlite::Connection::open(path).unwrap();
    let samples: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM samples WHERE run_id = ?1",
            [id.0],
            |r| r.get(0),
        )
        .unwrap();
    let expected: usize = report.results.iter().map(|r| r.samples.len()).sum();
    assert_eq!(samples as usize, expected);
    let (identity, verdict): (String, String) = db
        .query_row(
            "SELECT identity, verdict FROM results WHERE run_id = ?1 AND position = 0",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        identity,
        handoff_model::identity::Identity::of(&report.results[0]).as_str()
    );
    assert_eq!(
        verdict,
        serde_json::to_value(report.results[0].verdict).unwrap()
    );
    let (seed, pad): (String, i64) = db
        .query_row(
            "SELECT layout_seed, heap_pad FROM samples
             WHERE run_id = ?1 AND position = ?2 AND sample = 0",
            [id.0, first.0 as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let offsets: String = db
        .query_row(
            "SELECT stack_offsets FROM samples WHERE run_id = ?1 AND position = ?2 AND sample = 0",
            [id.0, first.0 as i64],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(offsets, "64,128");
    assert_eq!(
        store.load_run(id).unwrap(),
        report,
        "the layout round-trips"
    );
    assert_eq!(seed, first.1.seed.to_string());
    assert_eq!(pad as usize, first.1.heap_pad);
}

#[test]
fn a_store_from_a_newer_handoff_is_refused_on_open() {
    let fresh = sqlite();
    Store::open(&fresh.location).unwrap();
    let Location::Sqlite(path) = &fresh.location else {
        unreachable!()
    };
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    let err = Store::open(&fresh.location).err().expect("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "this store has schema version 3; this handoff knows up to {}: upgrade handoff",
            handoff_store::schema::SCHEMA_VERSION
        )
    );
}

#[test]
fn a_path_that_cannot_be_a_store_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "not a directory").unwrap();
    let location = Location::Sqlite(file.join("history.sqlite"));
    let err = Store::open(&location).err().expect("refused");
    assert!(!err.is_bad_input(), "a runtime failure: {err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("cannot open the history store at {location}: ")),
        "{text}"
    );
}
