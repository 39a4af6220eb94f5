//! `handoff baseline save|list|delete`: names for stored runs, for comparisons and gates.
//!
//! What is printed is escaped for the terminal ([`escaped`]): the names, suites and dates
//! listed come from the store, which others may have written.

use crate::args::{BaselineAction, BaselineArgs};
use crate::exit;
use crate::CliError;
use handoff::model::foreign::escaped;
use std::io::Write;

/// Runs `handoff baseline …` and returns the exit code.
pub fn baseline(args: &BaselineArgs) -> Result<u8, CliError> {
    // A bad name is refused before the store is opened.
    if let BaselineAction::Save { name, .. } = &args.action {
        handoff_store::baseline::check_name(name).map_err(crate::store::error)?;
    }
    let store = crate::store::open(&args.store)?;
    let text = match &args.action {
        BaselineAction::Save { name, run } => {
            let (id, before) = store
                .save_baseline(name, run)
                .map_err(crate::store::error)?;
            let name = escaped(name);
            match before {
                Some(b) if b != id => format!("baseline `{name}` is run {id} (was run {b})\n"),
                _ => format!("baseline `{name}` is run {id}\n"),
            }
        }
        BaselineAction::List => {
            let all = store.baselines().map_err(crate::store::error)?;
            if all.is_empty() {
                format!(
                    "no baselines in {}\n",
                    escaped(&store.location().to_string())
                )
            } else {
                let width = all
                    .iter()
                    .map(|b| escaped(&b.name).chars().count())
                    .max()
                    .unwrap_or(0);
                all.iter()
                    .map(|b| {
                        format!(
                            "{:<width$}  run {}  ({}, {})  saved {}\n",
                            escaped(&b.name),
                            b.run,
                            escaped(&b.run_started_at),
                            escaped(&b.suite),
                            escaped(&b.saved_at)
                        )
                    })
                    .collect()
            }
        }
        BaselineAction::Delete { name } => {
            let id = store.delete_baseline(name).map_err(crate::store::error)?;
            let name = escaped(name);
            format!("deleted baseline `{name}` (run {id} stays in the history)\n")
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| CliError {
            code: exit::RUN_ERROR,
            message: format!("writing output: {e}"),
        })?;
    Ok(exit::OK)
}
