//! The library's entry point: a checked plan run to a judged report.
//!
//! [`run`] is what the `handoff run` command does between reading its flags and writing its
//! output: the semantic preflight ([`crate::preflight`]), the interleaved session
//! ([`crate::session::run`]) and the gates (`crate::gates::evaluate`), so that a program
//! embedding the harness gets the same checks and the same verdict as the command line.
//!
//! ```
//! use handoff::bench::{self, Baselines};
//! use handoff::catalog::Catalog;
//! use handoff::plan::Plan;
//! use handoff::preflight::Strictness;
//! use handoff::session::SessionOptions;
//!
//! let catalog = handoff_transports::builtin();
//! let suite = r#"
//!     [defaults]
//!     messages = 20000
//!     samples = 3
//!     warmup = 1
//!
//!     [[benchmark]]
//!     workload = "spsc"
//!     transports = ["handoff-spsc", "rtrb"]
//! "#;
//! let plan = Plan::parse(suite, "inline.toml", &catalog).expect("a valid suite");
//! let options = SessionOptions {
//!     consensus: plan.consensus,
//!     ..SessionOptions::in_process(&plan.name)
//! };
//! let report = bench::run(&catalog, plan, &options, Strictness::Suite, &Baselines::none(), &mut |_| {})
//!     .expect("both transports can run a 1 -> 1 stream");
//! assert_eq!(report.results.len(), 2);
//! for r in &report.results {
//!     println!("{} {:?} {}", r.transport, r.throughput.as_ref().map(|t| t.median), r.verdict);
//! }
//! assert!(!report.has_failures() && !report.gates_failed());
//! ```

use crate::catalog::Catalog;
use crate::gates::Unavailable;
use crate::model::report::RunReport;
use crate::plan::Plan;
use crate::preflight::{self, PreflightError, Strictness};
use crate::session::{self, Event, SessionOptions};
use std::collections::BTreeMap;

/// The baseline reports regression gates compare with, loaded by the caller before the run
/// (from a store, a file, …), each by the reference the gate names.
#[derive(Default)]
pub struct Baselines {
    loaded: BTreeMap<String, Result<RunReport, Unavailable>>,
}

impl Baselines {
    /// No baseline: a regression gate fails, saying its baseline was not loaded.
    pub fn none() -> Baselines {
        Baselines::default()
    }

    /// Adds the baseline named `reference`, or why it could not be loaded (the gate then fails
    /// with that reason).
    pub fn insert(&mut self, reference: &str, report: Result<RunReport, Unavailable>) {
        self.loaded.insert(reference.to_string(), report);
    }

    /// Whether `reference` was given.
    pub fn contains(&self, reference: &str) -> bool {
        self.loaded.contains_key(reference)
    }

    fn load(&self, reference: &str) -> Result<RunReport, Unavailable> {
        self.loaded.get(reference).cloned().unwrap_or_else(|| {
            Err(Unavailable::because(format!(
                "baseline `{reference}` was not loaded"
            )))
        })
    }
}

/// Checks `plan` against the catalog (refusing it as `strictness` says), runs it, and judges
/// the plan's gates against `baselines`. `on` sees every progress event.
pub fn run(
    catalog: &Catalog,
    plan: Plan,
    options: &SessionOptions,
    strictness: Strictness,
    baselines: &Baselines,
    on: &mut dyn FnMut(Event),
) -> Result<RunReport, PreflightError> {
    // What the preflight skips runs as `unsupported` rows of the report.
    preflight::check(catalog, &plan, strictness)?;
    let mut report = session::run(catalog, plan.trials, options, on);
    report.gates = crate::gates::evaluate(&plan.gates, &report, &|r| baselines.load(r));
    Ok(report)
}
