//! A recommendation as the reader gets it: markdown (also what a terminal shows), a
//! self-contained HTML page, or JSON. The three say the same things in the same order: the
//! pick and why, the runner-up and when it would win, every candidate with its figures and what
//! it fails, what was set aside, and the caveats. Every name that comes from the run (transport
//! names, options, suite) is escaped for the format.

use crate::recommend::{Basis, Candidate, Objective, Recommendation};
use handoff_model::fmt;
use std::io::{self, Write};
use std::str::FromStr;

/// How a recommendation is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecommendFormat {
    /// Markdown, readable as it is on a terminal.
    Markdown,
    /// A self-contained HTML page.
    Html,
    /// The [`Recommendation`] as JSON.
    Json,
}

impl FromStr for RecommendFormat {
    type Err = crate::suggest::LookupError;

    fn from_str(s: &str) -> Result<RecommendFormat, Self::Err> {
        match s {
            "markdown" | "md" => Ok(RecommendFormat::Markdown),
            "html" => Ok(RecommendFormat::Html),
            "json" => Ok(RecommendFormat::Json),
            _ => Err(crate::suggest::LookupError::new(
                crate::suggest::Thing::Other("recommendation format".into()),
                s,
                ["markdown", "html", "json"],
            )
            .otherwise("one of markdown, html, json".to_string())),
        }
    }
}

/// Writes `rec` in `format`.
pub fn render(
    rec: &Recommendation,
    format: RecommendFormat,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        RecommendFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, rec)?;
            writeln!(out)
        }
        RecommendFormat::Markdown => out.write_all(markdown(rec).as_bytes()),
        RecommendFormat::Html => out.write_all(html(rec).as_bytes()),
    }
}

/// The document's parts, as plain sentences with `code` spans marked by the writer.
struct Parts {
    headline: String,
    asked: String,
    from: String,
    why: Option<String>,
    runner_up: Option<String>,
    would_win: Vec<String>,
    nothing: Vec<String>,
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    set_aside: Vec<String>,
    caveats: Vec<String>,
}

/// What the figures come from, said in words.
fn basis(rec: &Recommendation) -> String {
    let s = &rec.setting;
    let shape = format!(
        "{} → {} of `{}`",
        fmt::plural(s.producers, "producer"),
        fmt::plural(s.consumers, "consumer"),
        s.payload
    );
    match rec.basis {
        Basis::Paced { rate } => format!("paced results at {rate}/s, {shape}"),
        Basis::Closed => format!("closed-loop streams (as fast as each goes), {shape}"),
    }
}

/// The figures that decide, for the pick or the runner-up.
fn figures(c: &Candidate, rec: &Recommendation) -> String {
    let mut f = Vec::new();
    if let Some(p) = c.p99_ns {
        let mut s = format!("p99 {}", fmt::duration(p as f64));
        if let Some(b) = rec.ask.p99_ns {
            s.push_str(&format!(" (budget {})", fmt::duration(b as f64)));
        }
        f.push(s);
    }
    if let Some(p) = c.p50_ns {
        f.push(format!("p50 {}", fmt::duration(p as f64)));
    }
    if let Some(x) = c.msgs_per_s {
        f.push(match rec.basis {
            Basis::Paced { .. } => format!("achieved {}", fmt::rate(x)),
            Basis::Closed => format!("throughput {}", fmt::rate(x)),
        });
    }
    if let Some(x) = c.cores {
        let mut s = format!("{} cores busy", crate::recommend::cores(x));
        if let Some(b) = rec.ask.cpu {
            s.push_str(&format!(" (budget {b})"));
        }
        f.push(s);
    }
    if let Some(x) = c.cpu_ns_per_msg {
        f.push(format!("{} CPU per message", fmt::duration(x)));
    }
    f.join(", ")
}

fn decided_by(o: Objective) -> &'static str {
    match o {
        Objective::Latency => "the lowest p99",
        Objective::Cpu => "the fewest cores busy",
        Objective::Throughput => "the highest throughput",
    }
}

fn parts(rec: &Recommendation) -> Parts {
    let meeting = rec.candidates.iter().filter(|c| c.meets_all()).count();
    let pick = rec.pick.map(|i| &rec.candidates[i]);
    let headline = match pick {
        Some(c) => format!("Use `{}`", c.label),
        None => "Nothing the run measured meets every constraint".to_string(),
    };
    let why = pick.map(|c| {
        format!(
            "{}; {} of the {meeting} that meet{} every constraint.",
            figures(c, rec),
            decided_by(rec.objective),
            if meeting == 1 { "s" } else { "" }
        )
    });
    let second = rec.runner_up.as_ref().map(|r| (r, &rec.candidates[1]));
    let runner_up = second.map(|(r, c)| {
        let mut s = format!("`{}`: {}", c.label, figures(c, rec));
        match (r.behind, r.p) {
            (Some(b), Some(p)) if r.significant => s.push_str(&format!(
                ". {b:.2}× behind on {}, a difference the run shows (p = {p:.3})",
                rec.objective.name()
            )),
            (Some(b), Some(p)) => s.push_str(&format!(
                ". {b:.2}× behind on {}, but the run does not tell the two apart (p = {p:.2}): the difference may be noise; more samples would tell",
                rec.objective.name()
            )),
            (Some(b), None) => {
                let (n, m) = (rec.candidates[0].samples, c.samples);
                s.push_str(&format!(
                    ". {b:.2}× behind on {}; too few samples to test the difference",
                    rec.objective.name()
                ));
                // Said with the counts only where the counts are the reason (a sample may also
                // lack the figure compared).
                if n.min(m) < 4 {
                    s.push_str(&format!(
                        " ({n} and {m}; a test at {} needs at least 4 a side)",
                        crate::recommend::ALPHA
                    ));
                }
            }
            _ => {}
        }
        s
    });
    let would_win = second.map(|(r, _)| r.would_win.clone()).unwrap_or_default();
    let mut nothing = Vec::new();
    if rec.pick.is_none() {
        for c in &rec.candidates {
            nothing.push(format!("`{}`: {}", c.label, c.fails.join("; ")));
        }
        if let Some(closest) = rec.nothing.as_ref().and_then(|n| n.closest.clone()) {
            nothing.push(format!("closest: {closest}"));
        }
    }
    let paced = matches!(rec.basis, Basis::Paced { .. });
    let mut header = vec!["rank", "transport", "semantics"];
    if paced {
        header.extend(["p50", "p99", "achieved/s"]);
    } else {
        header.push("msgs/s");
    }
    header.extend(["cores", "cpu/msg", "samples", "meets the constraints?"]);
    let rows = rec
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let dash = || "–".to_string();
            let mut row = vec![
                if c.meets_all() {
                    (i + 1).to_string()
                } else {
                    "–".into()
                },
                c.label.clone(),
                c.semantics.clone(),
            ];
            if paced {
                row.push(c.p50_ns.map_or_else(dash, |x| fmt::duration(x as f64)));
                row.push(c.p99_ns.map_or_else(dash, |x| fmt::duration(x as f64)));
            }
            row.push(c.msgs_per_s.map_or_else(dash, fmt::rate));
            row.push(c.cores.map_or_else(dash, crate::recommend::cores));
            row.push(c.cpu_ns_per_msg.map_or_else(dash, fmt::duration));
            row.push(c.samples.to_string());
            row.push(if c.meets_all() {
                "yes".into()
            } else {
                format!("no: {}", c.fails.join("; "))
            });
            row
        })
        .collect();
    Parts {
        headline,
        asked: rec.ask.summary(),
        from: format!(
            "run `{}` (suite `{}`, started {}), {}; {}",
            rec.source.reference,
            rec.source.suite,
            rec.source.started_at,
            basis(rec),
            rec.source.environment
        ),
        why,
        runner_up,
        would_win,
        nothing,
        header,
        rows,
        set_aside: rec.set_aside.clone(),
        caveats: rec.caveats.clone(),
    }
}

/// Escapes text for markdown, keeping the writer's own `code` spans (between backticks) as
/// code: the text inside them is escaped, the backticks are kept.
fn md(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 1 {
            // Inside a code span only a backtick is special; one is never in a name.
            out.push('`');
            out.push_str(&handoff_model::foreign::escaped(piece).replace('`', "'"));
            out.push('`');
        } else {
            out.push_str(&super::markdown::prose(piece));
        }
    }
    out
}

fn markdown(rec: &Recommendation) -> String {
    let p = parts(rec);
    let mut s = format!("## {}\n\n", md(&p.headline));
    s.push_str(&format!("**Asked:** {}.  \n", md(&p.asked)));
    s.push_str(&format!("**From:** {}.\n\n", md(&p.from)));
    if let Some(why) = &p.why {
        s.push_str(&format!("**Why:** {}\n\n", md(why)));
    }
    if let Some(r) = &p.runner_up {
        s.push_str(&format!("**Runner-up:** {}.\n", md(r)));
        for w in &p.would_win {
            s.push_str(&format!("- It would win {}.\n", md(w)));
        }
        s.push('\n');
    }
    if !p.nothing.is_empty() {
        s.push_str("**What each fails:**\n\n");
        for n in &p.nothing {
            s.push_str(&format!("- {}\n", md(n)));
        }
        s.push('\n');
    }
    s.push_str(&format!("| {} |\n", p.header.join(" | ")));
    s.push_str(&format!(
        "|{}\n",
        p.header.iter().map(|_| "---|").collect::<String>()
    ));
    for row in &p.rows {
        let cells: Vec<String> = row.iter().map(|c| super::markdown::cell(c)).collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    s.push('\n');
    if !p.set_aside.is_empty() {
        s.push_str("**Not ranked:**\n\n");
        for a in &p.set_aside {
            s.push_str(&format!("- {}\n", md(a)));
        }
        s.push('\n');
    }
    if !p.caveats.is_empty() {
        s.push_str("**Caveats:**\n\n");
        for c in &p.caveats {
            s.push_str(&format!("- {}\n", md(c)));
        }
        s.push('\n');
    }
    s
}

/// Escapes text for HTML, turning the writer's `code` spans into `<code>`.
fn h(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split('`').enumerate() {
        let e = super::svg::escape(&handoff_model::foreign::escaped(piece));
        if i % 2 == 1 {
            out.push_str(&format!("<code>{e}</code>"));
        } else {
            out.push_str(&e);
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}\
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}\
tr.meets td{background:#f3fbf3}tr.fails td{color:#777}h1{font-size:1.4rem}code{background:#f4f4f4;padding:0 .2rem}";

fn html(rec: &Recommendation) -> String {
    let p = parts(rec);
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>handoff recommend</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        h(&p.headline)
    );
    s.push_str(&format!(
        "<p><strong>Asked:</strong> {}.<br><strong>From:</strong> {}.</p>\n",
        h(&p.asked),
        h(&p.from)
    ));
    if let Some(why) = &p.why {
        s.push_str(&format!(
            "<p class=\"why\"><strong>Why:</strong> {}</p>\n",
            h(why)
        ));
    }
    if let Some(r) = &p.runner_up {
        s.push_str(&format!(
            "<p class=\"runner-up\"><strong>Runner-up:</strong> {}.</p>\n",
            h(r)
        ));
        if !p.would_win.is_empty() {
            s.push_str("<ul class=\"would-win\">\n");
            for w in &p.would_win {
                s.push_str(&format!("<li>It would win {}.</li>\n", h(w)));
            }
            s.push_str("</ul>\n");
        }
    }
    if !p.nothing.is_empty() {
        s.push_str("<p><strong>What each fails:</strong></p>\n<ul class=\"nothing\">\n");
        for n in &p.nothing {
            s.push_str(&format!("<li>{}</li>\n", h(n)));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("<table>\n<tr>");
    for head in &p.header {
        s.push_str(&format!("<th>{}</th>", h(head)));
    }
    s.push_str("</tr>\n");
    for (row, c) in p.rows.iter().zip(&rec.candidates) {
        let class = if c.meets_all() { "meets" } else { "fails" };
        s.push_str(&format!("<tr class=\"{class}\">"));
        for cell in row {
            s.push_str(&format!(
                "<td>{}</td>",
                super::svg::escape(&handoff_model::foreign::escaped(cell))
            ));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    for (title, items, class) in [
        ("Not ranked", &p.set_aside, "set-aside"),
        ("Caveats", &p.caveats, "caveats"),
    ] {
        if items.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "<p><strong>{title}:</strong></p>\n<ul class=\"{class}\">\n"
        ));
        for i in items.iter() {
            s.push_str(&format!("<li>{}</li>\n", h(i)));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}
