//! `table`: the terminal format. A header with the run, the environment and the machine's
//! limits, then one table per group of comparable results (see `view.rs`), each followed by its
//! consensus line (in a run that asked for it), the reasons for its non-pass verdicts, remarks on
//! the table and its lint footnotes.
//!
//! Every text written goes through [`handoff_model::foreign::escaped`] first (cells before the
//! table measures them): a suite name, a transport's name or option value from a plugin, the
//! output a crashed worker printed cannot move the cursor or retitle the terminal.
//!
//! ```text
//! spsc · payload u64 (8 B) · 1 producer → 1 consumer
//!   capacity 1024 (where bounded) · 1.20 M msgs/sample (auto(25 ms)) · 5 samples + 1 warm-up · watchdog 10.0 s
//!
//!  transport         semantics                           verdict     msgs/s         min – max    ns/msg   spread   of limit   failed sends/recvs   lints
//! ────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────
//!  fast-ring         MPSC fifo/pp bounded block          pass      48.1 M/s   45.7 M – 50.5 M   20.8 ns     1.2%       3.2%           0 / 1.20 M
//!  slow-queue        MPSC fifo/pp bounded block          pass      12.3 M/s   11.7 M – 13.0 M   81.0 ns     7.1%       0.8%           0 / 1.20 M   noisy[1]
//!  faulty-drop       MPSC fifo/pp unbounded block        FAIL             –                 –         –        –          –                0 / 0
//! ── same-thread, not ranked ─────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────
//!  direct-callback   SPSC fifo/pp unbounded no-wait cb   pass       310 M/s     294 M – 326 M   3.23 ns     1.2%        n/a           0 / 1.20 M   same-thread[2]
//!
//!   same-thread: the producer's thread runs the consumer, no hand-off between cores; listed apart, not ranked with cross-thread hand-offs
//!   consensus: 3 transports delivered the same stream (digest 0e3f9c2a41b7d856); 1 trial not compared (did not pass)
//!   faulty-drop: FAIL — producer 0: expected seq 9, got 10
//!   [1] noisy: relative MAD 7.1% > 5%; compare with care or take more samples
//!   [2] same-thread: the consumer runs on the producer's thread; no cross-core hand-off happens
//! ```

use super::view::{self, Group};
use super::Exporter;
use crate::report::RunReport;
use comfy_table::{CellAlignment, LineStyle, Table, TableStyle};
use handoff_model::foreign::escaped;
use std::io::{self, Write};

/// Writes the terminal tables.
pub(super) struct TableExporter;

impl Exporter for TableExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let v = view::build(report);
        header(&v, out)?;
        if v.groups.is_empty() {
            writeln!(out, "\nno results")?;
        }
        for g in &v.groups {
            writeln!(out)?;
            group(g, out)?;
        }
        gates(report, out)
    }
}

/// The run, the environment and the limits, one labelled line each.
pub(super) fn header(v: &view::View, out: &mut dyn Write) -> io::Result<()> {
    let width = v.header.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for (label, text) in &v.header {
        writeln!(out, "{label:>width$}: {}", escaped(text))?;
    }
    Ok(())
}

/// The gates' verdicts, if the run had gates.
pub(super) fn gates(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let gates = view::gate_lines(report);
    if !gates.is_empty() {
        writeln!(out, "\ngates:")?;
    }
    for (head, details) in gates {
        writeln!(out, "  {}", escaped(&head))?;
        for d in details {
            writeln!(out, "      {}", escaped(&d))?;
        }
    }
    Ok(())
}

/// One table with its lines.
pub(super) fn group(g: &Group, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", escaped(&g.title))?;
    writeln!(out, "  {}", escaped(&g.params.join(" · ")))?;
    writeln!(out)?;

    let mut t = Table::new();
    t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')));
    t.set_header(g.columns.iter().map(|c| c.name));
    // A line break in a cell is escaped too: one line per row.
    let clean = |row: &Vec<String>| -> Vec<String> {
        row.iter().map(|c| escaped(c).into_owned()).collect()
    };
    for row in g.ranked.iter().chain(g.apart.iter().flat_map(|s| &s.rows)) {
        t.add_row(clean(row));
    }
    for (i, c) in g.columns.iter().enumerate() {
        if c.numeric {
            if let Some(col) = t.column_mut(i) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    // One line per row (no cell holds a line break): header, rule, ranked rows, then each
    // section of rows listed apart behind a rule of its own.
    let lines: Vec<String> = t.lines().collect();
    let width = lines.get(1).map_or(0, |l| l.chars().count());
    let mut rules = Vec::new();
    let mut at = 2 + g.ranked.len();
    for s in &g.apart {
        rules.push((at, s.why.label()));
        at += s.rows.len();
    }
    for (i, line) in lines.iter().enumerate() {
        for (_, label) in rules.iter().filter(|(at, _)| *at == i) {
            let mut rule = format!("── {label}, not ranked ");
            let fill = width.saturating_sub(rule.chars().count()).max(3);
            rule.push_str(&"─".repeat(fill));
            writeln!(out, "{rule}")?;
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    if !g.apart.is_empty() {
        writeln!(out)?;
        for s in &g.apart {
            writeln!(out, "  {}", s.why.caption())?;
        }
    }
    if g.apart.is_empty()
        && (!g.consensus.is_empty() || !g.notes.is_empty() || !g.footnotes.is_empty())
    {
        writeln!(out)?;
    }
    for c in &g.consensus {
        writeln!(out, "  {}", escaped(c))?;
    }
    for n in &g.notes {
        writeln!(out, "  {}", escaped(n))?;
    }
    for (i, f) in g.footnotes.iter().enumerate() {
        writeln!(out, "  [{}] {}", i + 1, escaped(f))?;
    }
    for s in &g.soaks {
        writeln!(out)?;
        writeln!(out, "  {}", escaped(&s.heading))?;
        let mut t = Table::new();
        t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')));
        t.set_header(&s.columns);
        for r in &s.rows {
            t.add_row(r.iter().map(|c| escaped(c).into_owned()));
        }
        for i in 1..s.columns.len() {
            if let Some(col) = t.column_mut(i) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        for line in t.lines() {
            writeln!(out, "  {}", line.trim_end())?;
        }
    }
    Ok(())
}
