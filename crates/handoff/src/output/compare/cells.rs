//! The wording of a comparison's cells, header and footer, shared by its table, markdown and
//! HTML views.

use crate::compare::model::{Change, Comparison, Row};
use handoff_model::fmt;
use std::collections::BTreeMap;

pub(super) const COLUMNS: [&str; 9] = [
    "result",
    "metric",
    "before",
    "after",
    "change",
    "95% interval",
    "p adj.",
    "verdict",
    "code",
];

pub(super) fn cells(r: &Row) -> [String; 9] {
    let side = |s: Option<crate::compare::model::Side>| {
        s.map_or("–".to_string(), |s| {
            format!("{} (n={})", r.metric.format(s.median), s.n)
        })
    };
    let change = r.ratio.map_or("–".into(), |x| signed_percent(x - 1.0));
    let interval = r.interval.map_or("–".into(), |i| {
        format!(
            "{} … {}",
            signed_percent(i.low - 1.0),
            signed_percent(i.high - 1.0)
        )
    });
    // The p-value the verdict was decided on: adjusted for every figure judged at once.
    let p = r.p_adjusted.or(r.p_raw());
    let p = match p {
        None => "–".to_string(),
        Some(p) if p >= 0.001 => format!("{p:.3}"),
        Some(p) => format!("{p:.2e}").replace("e0", ""),
    };
    let mut verdict = r.mark().to_string();
    if r.regression {
        verdict.push_str("  REGRESSION");
    }
    [
        r.identity.to_string(),
        r.metric.name().to_string(),
        side(r.before),
        side(r.after),
        change,
        interval,
        p,
        verdict,
        code(r).to_string(),
    ]
}

/// Which transports ran other machine code in the two builds, and which the same; `None`
/// when no row's code is known.
fn code_line(c: &Comparison) -> Option<String> {
    use crate::report::CodeMatch;
    let mut by: BTreeMap<&'static str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for r in &c.rows {
        let k = match r.code {
            Some(CodeMatch::Changed) => "changed",
            Some(CodeMatch::ChangedSourceSame) => "compiler",
            Some(CodeMatch::Same) => "same",
            None => "unknown",
        };
        by.entry(k).or_default().insert(&r.transport);
    }
    if by.keys().all(|k| *k == "unknown") {
        return None;
    }
    let list = |k: &str| {
        by.get(k)
            .map(|s| s.iter().copied().collect::<Vec<_>>().join(", "))
    };
    let mut parts = Vec::new();
    if let Some(l) = list("changed") {
        parts.push(format!("code changed in {l}"));
    }
    if let Some(l) = list("compiler") {
        parts.push(format!(
            "code changed from the same sources in {l} (the compiler moved it, not an edit)"
        ));
    }
    if let Some(l) = list("same") {
        parts.push(format!("the same code in {l}"));
    }
    if let Some(l) = list("unknown") {
        parts.push(format!("unknown in {l}"));
    }
    Some(format!("code: {}", parts.join("; ")))
}

/// How far the link orders alone moved each transport's figure (the spread between orders, the
/// floor under which no change is told from placement); `None` without link orders.
fn orders_line(c: &Comparison) -> Option<String> {
    let spreads: Vec<String> = c
        .rows
        .iter()
        .filter_map(|r| {
            let l = r.link_orders?;
            Some(format!(
                "{} {} ±{}",
                r.transport,
                r.metric,
                fmt::percent(l.spread.exp_m1())
            ))
        })
        .collect();
    (!spreads.is_empty()).then(|| {
        format!(
            "spread between link orders (one order's ratio, standard deviation): {}",
            spreads.join(", ")
        )
    })
}

/// Whether the row's transport ran the same machine code on both sides.
fn code(r: &Row) -> &'static str {
    match r.code {
        Some(crate::report::CodeMatch::Same) => "same",
        Some(crate::report::CodeMatch::Changed) => "changed",
        Some(crate::report::CodeMatch::ChangedSourceSame) => "changed, same source",
        None => "?",
    }
}

fn signed_percent(x: f64) -> String {
    let s = fmt::percent(x);
    if x > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// The lines said before and after the rows, shared by table and markdown.
pub(super) fn header(c: &Comparison) -> Vec<(&'static str, String)> {
    let j = &c.judgement;
    let side = |s: &crate::compare::model::SideInfo| {
        format!(
            "{} · {} · suite {} · {}",
            s.label, s.started_at, s.suite, s.environment
        )
    };
    let tested = c.rows.iter().filter(|r| r.p_adjusted.is_some()).count();
    let orders = c
        .rows
        .iter()
        .filter_map(|r| r.link_orders.map(|l| l.orders))
        .max();
    let test = match (c.paired, orders) {
        (true, Some(n)) => format!(
            "paired over {n} link orders: each build linked in {n} function orders, timed sample k of both on order k mod {n}; one-sample t-test ({} df) on the orders' mean log ratios, change = their geometric mean",
            n - 1
        ),
        (true, None) => "paired: both builds ran in one run, their samples alternating within each round; Wilcoxon signed-rank on the per-pair log ratios, change = median per-pair ratio".to_string(),
        (false, _) => "Mann–Whitney U on per-sample figures".to_string(),
    };
    let mut judged = format!(
        "{test}, p adjusted for the {tested} figure(s) judged (Benjamini–Hochberg), alpha {}; changes under {} are ~",
        j.alpha,
        fmt::percent(j.threshold)
    );
    if let Some(m) = j.max_regression {
        judged.push_str(&format!(
            "; a significant slowdown beyond {} is a regression (exit 4)",
            fmt::percent(m)
        ));
    }
    vec![
        ("before", side(&c.before)),
        ("after", side(&c.after)),
        ("judged", judged),
    ]
}

pub(super) fn footer(c: &Comparison) -> Vec<String> {
    let mut lines = Vec::new();
    for r in &c.rollups {
        lines.push(format!(
            "geomean {}: {} over {} figure(s)",
            r.transport,
            speed(r.geomean),
            r.rows
        ));
    }
    if let Some(line) = code_line(c) {
        lines.push(line);
    }
    if let Some(line) = orders_line(c) {
        lines.push(line);
    }
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &c.rows {
        match &r.change {
            Change::NotComparable { reason } => reasons
                .entry(format!("not comparable: {reason}"))
                .or_default()
                .push(r.identity.to_string()),
            Change::Drift { .. } => reasons
                .entry(
                    "drift (same code): significant, but the transport ran the same machine code in both builds, so the machine's drift or the code's placement moved it, not the change".to_string(),
                )
                .or_default()
                .push(format!("{} {}", r.identity, r.metric)),
            _ => {}
        }
        for n in &r.notes {
            reasons
                .entry(n.clone())
                .or_default()
                .push(format!("{} {}", r.identity, r.metric));
        }
    }
    if let Some((n, why)) = crate::gates::too_few_samples(&c.rows) {
        lines.push(format!("{} not judged: {why}", fmt::plural(n, "figure")));
    }
    for (why, who) in reasons {
        lines.push(format!("{why}: {}", fmt::first_few(&who, 6)));
    }
    if !c.only_before.is_empty() {
        lines.push(format!("only before: {}", join(&c.only_before)));
    }
    if !c.only_after.is_empty() {
        lines.push(format!("only after: {}", join(&c.only_after)));
    }
    let regressions: Vec<String> = c
        .regressions()
        .map(|r| {
            format!(
                "{} {} {}",
                r.identity,
                r.metric,
                r.ratio.map_or("–".into(), |x| signed_percent(x - 1.0))
            )
        })
        .collect();
    let judged = c.rows.iter().any(|r| {
        !matches!(
            r.change,
            Change::TooFewSamples { .. } | Change::NotComparable { .. }
        )
    });
    if let Some(m) = c.judgement.max_regression {
        if regressions.is_empty() && !judged {
            lines.push(format!(
                "nothing could be judged against {} (see the lines above)",
                fmt::percent(m)
            ));
        } else if regressions.is_empty() {
            lines.push(format!(
                "no result is significantly slower than {}",
                fmt::percent(m)
            ));
        } else {
            lines.push(format!(
                "REGRESSION beyond {}: {}",
                fmt::percent(m),
                regressions.join("; ")
            ));
        }
    }
    lines
}

fn join(ids: &[crate::identity::Identity]) -> String {
    ids.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A speed-up factor in words: `1.05× faster`, `0.80× (slower)`.
fn speed(x: f64) -> String {
    if x >= 1.0 {
        format!("{x:.3}× (faster after)")
    } else {
        format!("{x:.3}× (slower after)")
    }
}
