//! Executors: where a trial's samples run.
//!
//! * `InProcess` calls the transport's runner directly. A hung sample leaves its threads behind
//!   (they cannot be killed from inside the process) and an aborting transport takes the whole
//!   process down; fine for tests and library use with trusted transports.
//! * [`Child`] runs the trial in a worker process speaking the [`crate::worker`] protocol. The
//!   worker's own watchdog reports a hang; a worker that reports no progress at all (see
//!   [`Heartbeat`]) for the watchdog interval plus [`GRACE`] is stuck as a whole and is killed.
//!   A crash (abort, segfault) is read from its exit status and what it printed ([`Printed`]:
//!   the first and the last lines). In every case the run goes on with every other result
//!   intact. How workers start and end, and why none outlives the run: [`spawn`].

use crate::catalog::Catalog;
use crate::layout::SampleLayout;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

pub use handoff_model::printed as captured;
mod child;
pub mod spawn;

pub use captured::Printed;
pub use child::Child;
pub(crate) use child::{describe_exit, describe_exit_of};

/// What the session asks of one sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRequest {
    /// Messages to send (round trips for ping-pong).
    pub messages: u64,
    /// Overrides an open-loop trial's rate, messages per second (a ramp's steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<u64>,
    /// The seed of the sample's placement (see [`crate::layout`]); `None` runs it under the
    /// fixed placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<u64>,
}

impl SampleRequest {
    /// A closed-loop sample of `messages` under the fixed placement.
    pub fn of(messages: u64) -> SampleRequest {
        SampleRequest {
            messages,
            ..SampleRequest::default()
        }
    }
}

/// Runs the samples of one trial.
pub trait Executor {
    /// Runs one sample of `messages` messages under the fixed placement.
    fn sample(&mut self, messages: u64) -> SampleOutcome {
        self.run(SampleRequest::of(messages))
    }
    /// Runs one sample as `request` says.
    fn run(&mut self, request: SampleRequest) -> SampleOutcome;
    /// Releases whatever the executor holds (kills a child process).
    fn close(&mut self) {}
}

/// Runs samples in this process.
pub(crate) struct InProcess {
    catalog: Catalog,
    spec: TrialSpec,
}

impl InProcess {
    /// An in-process executor for `spec`, whose transports (every hop's, for a pipeline) are
    /// looked up in `catalog`.
    pub fn new(catalog: Catalog, spec: TrialSpec) -> InProcess {
        InProcess { catalog, spec }
    }
}

impl Executor for InProcess {
    fn run(&mut self, request: SampleRequest) -> SampleOutcome {
        run_sample(&self.catalog, &self.spec, request)
    }
}

/// Runs one sample of `spec` in this process: through the catalog entry of its transport, or,
/// for an open-loop workload, through the boxed hops of every transport it uses. The request's
/// rate overrides an open-loop trial's rate; its layout seed places the sample (the heap pad is
/// held from before the channel is created until the sample ends, and the crew pads its
/// threads' stacks), and the outcome records that placement.
pub fn run_sample(catalog: &Catalog, spec: &TrialSpec, request: SampleRequest) -> SampleOutcome {
    let layout = request.layout.map(SampleLayout::from_seed);
    let owned;
    let spec = if request.rate.is_some() || layout.is_some() {
        owned = TrialSpec {
            pacing: match request.rate {
                Some(r) => crate::workload::Pacing::Rate(r),
                None => spec.pacing.clone(),
            },
            layout,
            ..spec.clone()
        };
        &owned
    } else {
        spec
    };
    let pad = layout.map(|l| crate::layout::allocate_pad(&l));
    let messages = request.messages;
    let mut outcome = if spec.placement == crate::workload::Boundary::Processes {
        across_processes(catalog, spec, messages)
    } else if spec.workload.is_open_loop() {
        crate::engine::pipeline::run(catalog, spec, messages)
    } else {
        match catalog.lookup(&spec.transport) {
            Ok(entry) => entry
                .runner()
                .run_sample_with(spec, messages, catalog.drivers()),
            Err(e) => SampleOutcome::status_only(
                SampleStatus::Invalid(e.to_string()),
                Placement::default(),
            ),
        }
    };
    drop(pad);
    outcome.layout = layout.map(|l| crate::layout::record(&l, outcome.placement.threads));
    outcome
}

/// One sample of `spec` with its two sides in two processes (see `crate::engine::processes`).
#[cfg(target_os = "linux")]
fn across_processes(catalog: &Catalog, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    crate::engine::processes::run(catalog, spec, messages)
}

/// Elsewhere there is no second process to place a side in.
#[cfg(not(target_os = "linux"))]
fn across_processes(_: &Catalog, _: &TrialSpec, _: u64) -> SampleOutcome {
    SampleOutcome::status_only(
        SampleStatus::Unsupported("placement processes runs on Linux only".into()),
        Placement::default(),
    )
}

/// How to start a worker process: a program and its arguments (the program must answer the
/// worker protocol, e.g. `handoff __worker`).
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Extra time the parent grants a child beyond the sample's own watchdog interval before killing
/// it: the child's watchdog normally reports the hang first, with its own account of it.
pub const GRACE: Duration = Duration::from_secs(5);

/// A line a worker sends while a sample runs (see [`crate::worker`]): `{"progress": N}`, the
/// messages delivered so far in the sample as its consumers last published them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// Messages (round trips for ping-pong) delivered so far in the sample.
    pub progress: u64,
}
