//! `handoff list`: transports with their declared semantics, workloads, payloads.
//!
//! A plugin declares its transports' names, descriptions, options and help in its own words:
//! every such text is escaped for the terminal ([`escaped`]) before it is printed or measured.

use handoff::catalog::Catalog;
use handoff::model::foreign::escaped;
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
        .map(|e| escaped(&e.info().name).chars().count())
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
        if e.crosses_processes() {
            sem.push_str(", crosses processes (placement processes)");
        }
        if !info.origin.is_default() {
            sem.push_str(&format!(", {}", info.origin.language));
            if let Some(p) = &info.origin.plugin {
                sem.push_str(&format!(", plugin {p}"));
            }
        }
        writeln!(out, "  {:width$}  {}", escaped(&info.name), escaped(&sem))?;
        writeln!(out, "  {:width$}  {}", "", escaped(&info.description))?;
        if let Some(why) = &info.origin.unavailable {
            writeln!(out, "  {:width$}  UNAVAILABLE: {}", "", escaped(why))?;
        }
        for o in &info.options {
            writeln!(
                out,
                "  {:width$}  option {}={} — {}",
                "",
                escaped(&o.name),
                escaped(&o.values.join("|")),
                escaped(&o.help)
            )?;
            // What each value makes the transport do while it waits, and whether it sleeps.
            if !o.waits.is_empty() {
                let per: Vec<String> = o
                    .values
                    .iter()
                    .zip(&o.waits)
                    .map(|(v, w)| format!("{}={v}: {}", o.name, w.described()))
                    .collect();
                writeln!(
                    out,
                    "  {:width$}    waits: {}",
                    "",
                    escaped(&per.join("; "))
                )?;
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
    writeln!(out, "\nDrivers (--driver NAME[:N])")?;
    writeln!(
        out,
        "  {:15} {}",
        "threads",
        handoff::workload::Driver::Threads.description()
    )?;
    for d in catalog.drivers().all() {
        let info = d.info();
        let name = match info.workers {
            handoff::driver::Workers::None => info.name.clone(),
            _ => format!("{}:N", info.name),
        };
        writeln!(out, "  {:15} {}", name, escaped(&info.description))?;
    }
    writeln!(out, "\nPayloads")?;
    for p in PayloadKind::all() {
        writeln!(out, "  {:15} {}", p.to_string(), p.description())?;
    }
    writeln!(
        out,
        "  (bytes:N and boxed:N take any N from {} to {} bytes, also written 64KiB or 1MiB; \
         bytes:N moves by value only at {:?}, elsewhere by pointer like boxed:N)",
        handoff::payload::MIN_BYTES,
        handoff::payload::MAX_BYTES,
        handoff::payload::INLINE_SIZES
    )?;
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
        let text = listing(&handoff_transports::builtin(), false);
        for needle in [
            "waits: wait=spin: spin (never sleeps); wait=spin-yield: spin-then-yield (never sleeps); wait=block: spin-then-park (sleeps)",
            "wake=spin: spin (never sleeps)",
        ] {
            assert!(text.contains(needle), "{needle}\n{text}");
        }
    }

    /// A plugin's own words (names, description, option, help, language, why it cannot run)
    /// are listed escaped, and the names' column is measured on what is shown.
    #[test]
    fn a_plugins_words_are_listed_escaped() {
        let mut info = handoff_transports::builtin().entries()[0].info().clone();
        info.name = "evil\u{1b}[2J".into();
        info.description = "clears\u{7} the \u{202e}screen".into();
        info.origin.language = "C\u{9b}0m".into();
        info.origin.plugin = Some("libevil\u{1b}]0;t\u{7}.so".into());
        info.origin.unavailable = Some("missing\nheader".into());
        info.options = vec![handoff::transport::OptionSpec {
            name: "m\u{1b}[1m".into(),
            values: vec!["a\u{7f}".into(), "b".into()],
            help: "h\r".into(),
            waits: Vec::new(),
        }];
        let mut catalog = Catalog::new();
        let description = handoff::plugin::Description {
            name: "evil".into(),
            transports: vec![info],
        };
        handoff::plugin::register_described(
            &mut catalog,
            std::path::Path::new("libevil.so"),
            &description,
        )
        .unwrap();
        let text = listing(&catalog, false);
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{7f}', '\u{9b}', '\u{202e}', '\r']),
            "{text}"
        );
        for line in [
            r"  evil\e[2J  ",
            r"  clears\a the \u{202e}screen",
            r"UNAVAILABLE: missing\nheader",
            r"option m\e[1m=a\x7f|b — h\r",
            r", C\u{9b}0m, plugin libevil\e]0;t\a.so",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        // The description lines up under the semantics, past the escaped name.
        let lines: Vec<&str> = text.lines().collect();
        let indent = " ".repeat(2 + r"evil\e[2J".len() + 2);
        assert!(lines[2].starts_with(&format!("{indent}clears")), "{text}");
    }

    #[test]
    fn a_build_without_test_only_transports_says_so_when_asked_for_them() {
        let c = Catalog::new();
        assert!(listing(&c, true).contains("this build has no test-only transports"));
        let text = listing(&c, false);
        assert!(!text.contains("test-only"), "{text}");
    }
}
