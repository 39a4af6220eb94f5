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
        writeln!(out, "  {:width$}  {}", info.name, sem)?;
        writeln!(out, "  {:width$}  {}", "", info.description)?;
        for o in &info.options {
            writeln!(
                out,
                "  {:width$}  option {}={} — {}",
                "",
                o.name,
                o.values.join("|"),
                o.help
            )?;
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
    fn a_build_without_test_only_transports_says_so_when_asked_for_them() {
        let c = Catalog::new();
        assert!(listing(&c, true).contains("this build has no test-only transports"));
        let text = listing(&c, false);
        assert!(!text.contains("test-only"), "{text}");
    }
}
