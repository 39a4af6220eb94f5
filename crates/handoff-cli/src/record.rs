//! Recording a run in the history store: its row is written before anything runs (so a store
//! that cannot be opened stops the run before it starts), and its report when it finished.

use crate::args::RunArgs;
use crate::CliError;
use handoff::layout::LayoutMode;
use handoff::report::RunReport;
use handoff::workload::TrialSpec;
use handoff_store::{RunId, RunStart, Store};

/// A run being recorded.
pub struct Recorder {
    store: Store,
    id: RunId,
}

/// The session options recorded with a run's trials as its effective parameters.
pub struct Settings<'a> {
    /// Every planned trial, with its effective parameters.
    pub trials: &'a [TrialSpec],
    /// `--quick`.
    pub quick: bool,
    /// Whether the limit probes run.
    pub probes: bool,
    /// The memory layouts of samples.
    pub layout: LayoutMode,
    /// Whether consensus was asked for.
    pub consensus: bool,
    /// Whether trials run inside the process.
    pub in_process: bool,
}

impl Recorder {
    /// Opens the store and records that the run begins; `None` under `--no-store`.
    /// `environment` is the run's, with its machine's label.
    pub fn begin(
        args: &RunArgs,
        suite: &str,
        environment: handoff::environment::Environment,
        settings: &Settings,
    ) -> Result<Option<Recorder>, CliError> {
        if args.no_store {
            return Ok(None);
        }
        let store = crate::store::open(&args.store)?;
        let params = serde_json::json!({
            "trials": settings.trials,
            "quick": settings.quick,
            "probes": settings.probes,
            "layout": settings.layout,
            "consensus": settings.consensus,
            "in_process": settings.in_process,
        });
        let start = RunStart {
            started_at: handoff::time::now_rfc3339(),
            suite: suite.to_string(),
            machine: environment
                .machine
                .clone()
                .unwrap_or_else(handoff::environment::host_name),
            environment,
            params,
            note: args.note.clone(),
        };
        let id = store.begin(&start).map_err(|e| CliError {
            code: crate::exit::RUN_ERROR,
            message: format!(
                "cannot record the run in the history store at {}: {e}",
                store.location()
            ),
        })?;
        Ok(Some(Recorder { store, id }))
    }

    /// Records the finished run; says where on success.
    pub fn finish(self, report: &RunReport) -> Result<String, CliError> {
        self.store
            .finish(self.id, report)
            .map(|()| format!("recorded as run {} in {}", self.id, self.store.location()))
            .map_err(|e| CliError {
                code: crate::exit::RUN_ERROR,
                message: format!(
                    "recording it as run {} in the history store at {} failed: {e}",
                    self.id,
                    self.store.location()
                ),
            })
    }
}
