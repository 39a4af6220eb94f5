//! `markdown`: paste-ready for a pull request. A short header (run, environment, limits), then
//! per group of comparable results a GitHub table like the terminal one, the reasons for
//! non-pass verdicts, and the lints as numbered footnotes. Rows listed apart (same-thread,
//! same-worker, batch-emulated) get a table of their own per reason under the ranked one.
//! Every text goes through `cell`, which escapes markup and control characters alike.

use super::view::{self, Group};
use super::Exporter;
use crate::report::RunReport;
use handoff_model::foreign::escaped;
use std::io::{self, Write};

/// Writes markdown.
pub(super) struct MarkdownExporter;

/// Escapes text for markdown (and for a table cell): no character of it is markup, a line
/// break is a space, and every other control character is escaped visibly
/// ([`handoff_model::foreign::escaped`]), its backslash then escaped as markdown, since markdown
/// is read on a terminal too.
pub(crate) fn cell(s: &str) -> String {
    escape(s, true)
}

/// Escapes text for a markdown paragraph or list item, outside any table: as [`cell`], except
/// that a `|` is left alone and so is a `_` inside a word (`x86_64`), neither of which is
/// markup there, so that what a terminal shows has no backslash it does not need.
pub(crate) fn prose(s: &str) -> String {
    escape(s, false)
}

fn escape(s: &str, in_cell: bool) -> String {
    let one_line = s.replace('\n', " ");
    let shown: Vec<char> = escaped(&one_line).chars().collect();
    let word = |i: Option<usize>| {
        i.and_then(|i| shown.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    let mut out = String::with_capacity(shown.len());
    for (i, &c) in shown.iter().enumerate() {
        let markup = match c {
            '\\' | '*' | '`' | '<' | '[' | ']' => true,
            '|' => in_cell,
            '_' => in_cell || !(word(i.checked_sub(1)) && word(Some(i + 1))),
            _ => false,
        };
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Exporter for MarkdownExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let v = view::build(report);
        writeln!(out, "## handoff results: {}", cell(&report.suite))?;
        writeln!(out)?;
        for (label, text) in &v.header {
            writeln!(out, "- **{label}**: {}", cell(text))?;
        }
        if v.groups.is_empty() {
            writeln!(out, "\nNo results.")?;
        }
        for g in &v.groups {
            writeln!(out)?;
            group(g, out)?;
        }
        let gates = view::gate_lines(report);
        if !gates.is_empty() {
            writeln!(out, "\n### Gates\n")?;
        }
        for (head, details) in gates {
            writeln!(out, "- **{}**", cell(&head))?;
            for d in details {
                writeln!(out, "  - {}", cell(&d))?;
            }
        }
        Ok(())
    }
}

fn table(g: &Group, rows: &[Vec<String>], out: &mut dyn Write) -> io::Result<()> {
    let head: Vec<String> = g.columns.iter().map(|c| cell(c.name)).collect();
    writeln!(out, "| {} |", head.join(" | "))?;
    let rule: Vec<&str> = g
        .columns
        .iter()
        .map(|c| if c.numeric { "---:" } else { "---" })
        .collect();
    writeln!(out, "|{}|", rule.join("|"))?;
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

fn group(g: &Group, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### {}", cell(&g.title))?;
    writeln!(out)?;
    writeln!(out, "_{}_", cell(&g.params.join(" · ")))?;
    if !g.ranked.is_empty() {
        writeln!(out)?;
        table(g, &g.ranked, out)?;
    }
    for s in &g.apart {
        let mut caption = s.why.caption().to_string();
        if let Some(c) = caption.get_mut(0..1) {
            c.make_ascii_uppercase();
        }
        writeln!(out)?;
        writeln!(out, "{}:", cell(&caption))?;
        writeln!(out)?;
        table(g, &s.rows, out)?;
    }
    if !g.consensus.is_empty() || !g.notes.is_empty() || !g.footnotes.is_empty() {
        writeln!(out)?;
    }
    for c in &g.consensus {
        writeln!(out, "- {}", cell(c))?;
    }
    for n in &g.notes {
        writeln!(out, "- {}", cell(n))?;
    }
    for (i, f) in g.footnotes.iter().enumerate() {
        writeln!(out, "- {} {}", cell(&format!("[{}]", i + 1)), cell(f))?;
    }
    for s in &g.soaks {
        writeln!(out)?;
        writeln!(out, "{}:", cell(&s.heading))?;
        writeln!(out)?;
        let head: Vec<String> = s.columns.iter().map(|c| cell(c)).collect();
        writeln!(out, "| {} |", head.join(" | "))?;
        writeln!(out, "|---|{}", "---:|".repeat(s.columns.len() - 1))?;
        for row in &s.rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{cell, prose};

    #[test]
    fn prose_escapes_markup_but_not_a_bar_or_an_underscore_inside_a_word() {
        assert_eq!(
            prose("linux-x86_64 | *a* _b_"),
            r"linux-x86_64 | \*a\* \_b\_"
        );
        assert_eq!(prose("<b>[x]\\"), r"\<b>\[x\]\\");
        // In a table cell both are markup.
        assert_eq!(cell("x86_64 | y"), r"x86\_64 \| y");
        // A line break is a space in both.
        assert_eq!(prose("a\nb"), "a b");
    }
}
