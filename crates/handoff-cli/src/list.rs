//! `handoff list`: transports with their declared semantics, workloads, payloads.

use handoff::catalog::Catalog;
use handoff::payload::PayloadKind;
use handoff::semantics::Bound;
use handoff::workload::WorkloadKind;
use std::io::Write;

/// Writes the listing.
pub fn list(catalog: &Catalog, all: bool, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "Transports (name: declared semantics)")?;
    let width = catalog
        .entries()
        .iter()
        .map(|e| e.info().name.len())
        .max()
        .unwrap_or(0);
    for e in catalog.entries() {
        let info = e.info();
        if info.test_only && !all {
            continue;
        }
        let mut sem = info.semantics.summary();
        if let Bound::Bounded { min_capacity, .. } = info.semantics.bound {
            sem.push_str(&format!(", min capacity {min_capacity}"));
        }
        if !info.origin.is_default() {
            sem.push_str(&format!(", {}", info.origin.language));
            if let Some(p) = &info.origin.plugin {
                sem.push_str(&format!(", plugin {p}"));
            }
        }
        writeln!(out, "  {:width$}  {}", info.name, sem)?;
        writeln!(out, "  {:width$}  {}", "", info.description)?;
        if let Some(why) = &info.origin.unavailable {
            writeln!(out, "  {:width$}  UNAVAILABLE: {why}", "")?;
        }
        for o in &info.options {
            writeln!(
                out,
                "  {:width$}  option {}={} — {}",
                "",
                o.name,
                o.values.join("|"),
                o.help
            )?;
            // What each value makes the transport do while it waits, and whether it sleeps.
            if !o.waits.is_empty() {
                let per: Vec<String> = o
                    .values
                    .iter()
                    .zip(&o.waits)
                    .map(|(v, w)| format!("{}={v}: {}", o.name, w.described()))
                    .collect();
                writeln!(out, "  {:width$}    waits: {}", "", per.join("; "))?;
            }
        }
    }
    let test_only = catalog.entries().iter().any(|e| e.info().test_only);
    if !test_only && all {
        writeln!(
            out,
            "  (this build has no test-only transports; they come with the `testing` feature)"
        )?;
    } else if test_only && !all {
        writeln!(
            out,
            "  (test-only faulty transports hidden; `handoff list --all` shows them)"
        )?;
    }
    writeln!(out, "\nWorkloads")?;
    for w in WorkloadKind::ALL {
        writeln!(out, "  {:10} {}", w.name(), w.description())?;
    }
    writeln!(out, "\nPayloads")?;
    for p in PayloadKind::all() {
        writeln!(out, "  {:15} {}", p.to_string(), p.description())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(catalog: &Catalog, all: bool) -> String {
        let mut out = Vec::new();
        list(catalog, all, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_wait_option_value_says_whether_it_sleeps() {
        let text = listing(&Catalog::builtin(), false);
        for needle in [
            "waits: wait=spin: spin (never sleeps); wait=spin-yield: spin-then-yield (never sleeps); wait=block: spin-then-park (sleeps)",
            "wake=spin: spin (never sleeps)",
        ] {
            assert!(text.contains(needle), "{needle}\n{text}");
        }
    }

    #[test]
    fn a_build_without_test_only_transports_says_so_when_asked_for_them() {
        let c = Catalog::new();
        assert!(listing(&c, true).contains("this build has no test-only transports"));
        let text = listing(&c, false);
        assert!(!text.contains("test-only"), "{text}");
    }
}
