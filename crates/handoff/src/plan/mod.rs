//! The plan: every trial a run will make, built from a suite file, from command-line flags, or
//! from both.
//!
//! Data flows one way: a suite file is read into its [`schema`] (serde, with positions), flags
//! fill the same schema types, and one builder ([`build`]) checks the cross-key rules and
//! expands workloads × transports × sweeps into [`TrialSpec`]s. Defaults live in
//! [`defaults`] and nowhere else. The engine never sees where a parameter came from.
//!
//! The suite file format (every key, its default and its rules) is documented in
//! `docs/suites.md`. Every mistake is reported with the file, line and column of the offending
//! key or value (or the flag that gave it), and unknown names come with the closest valid ones.

pub(crate) mod bounds;
pub mod build;
pub mod defaults;
mod error;
mod fields;
pub mod gates;
mod read;
pub mod schema;
pub mod value;

pub use self::build::Overlay;
pub use self::error::{PlanError, PlanErrorKind};
pub(crate) use self::schema::SuiteFile;
pub use self::schema::{Benchmark, Params};
pub use self::value::{At, Origin};

use crate::catalog::Catalog;
use crate::workload::{Messages, Pacing, TrialSpec};
use std::path::{Path, PathBuf};

/// The plugin libraries the suite file at `path` names (`plugins = [...]`), each relative to
/// the file's directory. Read ahead of the plan, which needs their transports; a file that
/// cannot be read or parsed, or whose `plugins` is not a path or a list of paths, names none
/// here, and the plan's own parse then says what is wrong with it, where.
pub fn plugins_of(path: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let Ok(top) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    let named: Vec<&str> = match top.get("plugins") {
        Some(toml::Value::String(s)) => vec![s],
        Some(toml::Value::Array(a)) => a.iter().filter_map(toml::Value::as_str).collect(),
        _ => Vec::new(),
    };
    named.into_iter().map(|p| dir.join(p)).collect()
}

/// A checked and expanded plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The suite's name (the `name` key, or the file's stem, or `ad-hoc`).
    pub name: String,
    /// One line on what the suite measures.
    pub description: Option<String>,
    /// Whether the limit probes run before the trials.
    pub probes: bool,
    /// Every trial, in expansion order (see [`build`]).
    pub trials: Vec<TrialSpec>,
    /// Whether every trial of a stream runs one message count and the report compares their
    /// digests (see [`crate::consensus`]).
    pub consensus: bool,
    /// Gates checked when the run ends.
    pub gates: Vec<gates::Gate>,
}

impl Plan {
    /// Parses suite text; `file` names it in errors and gives the default suite name.
    pub fn parse(text: &str, file: &str, catalog: &Catalog) -> Result<Plan, PlanError> {
        Plan::parse_with(text, file, catalog, &Overlay::default())
    }

    /// Parses suite text and applies what the command line adds on top of it.
    pub fn parse_with(
        text: &str,
        file: &str,
        catalog: &Catalog,
        overlay: &Overlay,
    ) -> Result<Plan, PlanError> {
        let limit = overlay.max_trials.unwrap_or(bounds::MAX_TRIALS);
        if let Some((at, key)) = read::long_list(text, limit) {
            let named = key
                .as_ref()
                .map_or("a list".to_string(), |k| format!("`{k}`"));
            let message = format!(
                "{named} lists more than {} values, the trial limit (--max-trials to raise it)",
                bounds::thousands(limit.into()),
            );
            let mut e = PlanError::at_offset(PlanErrorKind::Limit, text, file, at, message);
            e.key = key;
            return Err(e);
        }
        let suite = read::read(text, file)?;
        let stem = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string());
        build::build(&suite, &stem, catalog, overlay).map_err(|e| e.locate(text, file))
    }

    /// Reads and parses a suite file.
    pub fn load(path: &Path, catalog: &Catalog) -> Result<Plan, PlanError> {
        Plan::load_with(path, catalog, &Overlay::default())
    }

    /// Reads and parses a suite file and applies what the command line adds on top of it.
    pub fn load_with(path: &Path, catalog: &Catalog, overlay: &Overlay) -> Result<Plan, PlanError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            PlanError::in_file(
                PlanErrorKind::Unreadable,
                &file,
                format!("cannot read the suite file: {e}"),
            )
        })?;
        Plan::parse_with(&text, &file, catalog, overlay)
    }

    /// A plan from command-line flags alone, with what else the command line asks of the run
    /// (its filters and overrides are the benchmark's own keys here; `consensus` applies).
    pub fn from_flags_with(
        benchmark: Benchmark,
        catalog: &Catalog,
        overlay: &Overlay,
    ) -> Result<Plan, PlanError> {
        let suite = SuiteFile {
            name: Some(value::Text("ad-hoc".into())),
            benchmark: Some(At::flag(
                "--transport",
                value::List(vec![At::flag("--transport", benchmark)]),
            )),
            ..SuiteFile::default()
        };
        build::build(&suite, "ad-hoc", catalog, overlay).map_err(|e| e.locate("", "command line"))
    }

    /// The same coverage in less time: at most 3 timed samples and 1 warm-up, `auto` samples
    /// aimed at a fifth of their target duration (at least 5 ms), fixed counts divided by 10
    /// (at least 1000), a soak shortened to 20 s in windows of a tenth of that (at least a
    /// second). Nothing is ever made longer than it was.
    pub fn quick(&mut self) {
        /// The longest a soak lasts under `--quick`.
        const QUICK_SOAK_MS: u64 = 20_000;
        for t in &mut self.trials {
            t.samples = t.samples.min(3);
            t.warmup = t.warmup.min(1);
            t.messages = match t.messages {
                Messages::Auto {
                    target_ms,
                    min,
                    max,
                } => Messages::Auto {
                    target_ms: (target_ms / 5).max(5).min(target_ms),
                    // An open-loop sample lasts as long as its schedule: shorten it by the count.
                    min: if t.workload.is_open_loop() {
                        (min / 10).max(100)
                    } else {
                        min
                    },
                    max,
                },
                Messages::Fixed(n) => Messages::Fixed((n / 10).max(1000).min(n)),
                // A soak lasts at most 20 s, in at least ten windows of at least a second.
                Messages::Soak {
                    duration_ms,
                    window_ms,
                } => {
                    let duration_ms = duration_ms.min(QUICK_SOAK_MS);
                    Messages::Soak {
                        duration_ms,
                        window_ms: window_ms.min((duration_ms / 10).max(1000)),
                    }
                }
            };
            if let Pacing::Ramp(r) = &mut t.pacing {
                r.step_ms = (r.step_ms / 4).max(20);
                r.refine = r.refine.min(1);
            }
        }
    }
}

#[cfg(test)]
mod tests;
