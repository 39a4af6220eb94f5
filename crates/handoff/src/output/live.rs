//! Tables as they come: the terminal format written one table at a time while the run goes on.
//!
//! The session runs its trials in groups that never mix two tables (its groups share the
//! tables' key, [`TableKey`]; a table with more trials than live workers allowed is split over
//! several groups), and every trial of a group finishes in the group's last round. So a table's
//! results are final once its last trial is done, long before the run ends. [`LiveTables`] takes
//! each result as the session says it (`Event::TrialDone`) and writes its table the moment the
//! last one is in, as the `table` format shows it except for what only the whole run knows.
//! [`LiveTables::finish`] then writes any table not shown yet (one whose trials did not all
//! report), the run's header (how long it took, the limits probed again, regimes several
//! tables shared, the lints every result carries), each table's consensus and crossover lines,
//! and the gates.

use super::table;
use super::view;
use crate::report::{RunReport, TrialResult};
use crate::table_key::TableKey;
use crate::workload::TrialSpec;
use handoff_model::foreign::escaped;
use std::io::{self, Write};

/// The tables of a run written as their results come in (see the module docs).
pub struct LiveTables {
    /// Each trial's table, by trial index.
    keys: Vec<TableKey>,
    /// Each trial's result, once in.
    results: Vec<Option<TrialResult>>,
    /// The tables written so far.
    shown: Vec<TableKey>,
}

impl LiveTables {
    /// For a run of `trials` (in the order the session numbers them).
    pub fn new(trials: &[TrialSpec]) -> LiveTables {
        LiveTables {
            keys: trials.iter().map(TableKey::of_spec).collect(),
            results: vec![None; trials.len()],
            shown: Vec::new(),
        }
    }

    /// Trial `trial`'s final result: when it is the last of its table, the table is written to
    /// `out`. A trial index the run does not have is ignored.
    pub fn result(
        &mut self,
        trial: usize,
        result: &TrialResult,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let (Some(key), Some(slot)) = (self.keys.get(trial), self.results.get_mut(trial)) else {
            return Ok(());
        };
        *slot = Some(result.clone());
        let key = key.clone();
        let mut rows = Vec::new();
        for (k, r) in self.keys.iter().zip(&self.results) {
            if *k == key {
                match r {
                    Some(r) => rows.push(r.clone()),
                    None => return Ok(()),
                }
            }
        }
        self.shown.push(key);
        write_table(&rows, out)
    }

    /// The end of the run: the tables not written yet, then what only the whole run says
    /// (see the module docs).
    pub fn finish(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let mut left: Vec<(TableKey, Vec<TrialResult>)> = Vec::new();
        for r in &report.results {
            let key = TableKey::of_result(r);
            if self.shown.contains(&key) {
                continue;
            }
            match left.iter_mut().find(|(k, _)| *k == key) {
                Some((_, rows)) => rows.push(r.clone()),
                None => left.push((key, vec![r.clone()])),
            }
        }
        for (_, rows) in &left {
            write_table(rows, out)?;
        }
        let v = view::build(report);
        writeln!(out)?;
        table::header(&v, out)?;
        if report.results.is_empty() {
            writeln!(out, "\nno results")?;
        }
        for (title, lines) in view::run_wide(report) {
            writeln!(out)?;
            writeln!(out, "{}", escaped(&title))?;
            for l in lines {
                writeln!(out, "  {}", escaped(&l))?;
            }
        }
        table::gates(report, out)
    }
}

/// One table of `rows`, after a blank line.
fn write_table(rows: &[TrialResult], out: &mut dyn Write) -> io::Result<()> {
    if let Some(g) = view::table_alone(rows) {
        writeln!(out)?;
        table::group(&g, out)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{environment, stream};
    use crate::workload::TrialSpec;

    fn spec(transport: &str, producers: usize) -> TrialSpec {
        TrialSpec {
            transport: transport.into(),
            workload: crate::workload::WorkloadKind::Spsc,
            driver: Default::default(),
            payload: crate::payload::PayloadKind::U64,
            capacity: 1024,
            producers,
            consumers: 1,
            messages: crate::workload::Messages::Fixed(1000),
            batch: None,
            options: Default::default(),
            samples: 5,
            warmup: 1,
            timeout_ms: 1000,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing: Default::default(),
            pacer: Default::default(),
            pipeline: None,
            layout: None,
        }
    }

    fn result(transport: &str, producers: usize) -> TrialResult {
        let mut r = stream();
        r.transport = transport.into();
        r.params.producers = producers;
        r
    }

    fn text(out: &[u8]) -> String {
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn a_table_is_written_once_its_last_trial_is_in_and_the_run_wide_lines_at_the_end() {
        let trials = [spec("a", 1), spec("b", 2), spec("c", 1)];
        let mut live = LiveTables::new(&trials);
        let mut out = Vec::new();
        live.result(0, &result("a", 1), &mut out).unwrap();
        assert!(out.is_empty(), "one trial of two is in: {}", text(&out));
        live.result(1, &result("b", 2), &mut out).unwrap();
        let first = text(&out);
        assert!(first.contains(" b "), "{first}");
        assert!(!first.contains(" a "), "{first}");
        live.result(2, &result("c", 1), &mut out).unwrap();
        let second = text(&out)[first.len()..].to_string();
        assert!(second.contains(" a ") && second.contains(" c "), "{second}");
        // An index the run does not have changes nothing.
        live.result(7, &result("z", 1), &mut out).unwrap();
        let before_end = out.len();

        let report = RunReport {
            results: vec![result("a", 1), result("b", 2), result("c", 1)],
            ..RunReport::begun("default", environment())
        };
        live.finish(&report, &mut out).unwrap();
        let end = text(&out[before_end..]);
        assert!(end.contains("run: suite default"), "{end}");
        // No table is written twice.
        assert!(!end.contains(" a "), "{end}");
    }

    #[test]
    fn the_end_writes_a_table_whose_trials_did_not_all_report() {
        let trials = [spec("a", 1), spec("b", 1)];
        let mut live = LiveTables::new(&trials);
        let mut out = Vec::new();
        live.result(0, &result("a", 1), &mut out).unwrap();
        assert!(out.is_empty());
        let report = RunReport {
            results: vec![result("a", 1)],
            ..RunReport::begun("default", environment())
        };
        live.finish(&report, &mut out).unwrap();
        let end = text(&out);
        assert!(end.contains(" a "), "{end}");
        assert!(
            end.find(" a ") < end.find("run: suite"),
            "the table before the header: {end}"
        );
    }
}
