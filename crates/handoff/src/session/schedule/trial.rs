//! One trial of a session as it is scheduled: its executor (started with its first sample,
//! closed when its group ends), the seeds of its samples' layouts, and what its samples gave.

use crate::catalog::Catalog;
use crate::executor::{Child, Executor, InProcess, Printed, SampleRequest, WorkerCommand};
use crate::layout::{LayoutMode, LayoutSequence};
use crate::open_loop::ramp::RampOutcome;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::session::summary::Ran;
use crate::session::Isolation;
use crate::workload::{Pacing, TrialSpec};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// What starts a trial's executor.
pub(in crate::session) struct Launcher {
    pub(in crate::session) catalog: Catalog,
    pub(in crate::session) isolation: Isolation,
    /// In a paired run, the other build's worker command.
    pub(in crate::session) other: Option<WorkerCommand>,
    /// In a paired run linked in several orders, both sides' worker command in each order.
    pub(in crate::session) orders: Option<crate::session::OrderedBuilds>,
}

/// Which build a trial runs on: this one, or in a paired run the other (see
/// [`crate::session::Against`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) enum Side {
    This,
    Other,
}

/// A trial being run.
pub(in crate::session) struct Trial {
    /// Its place in the plan (and in the report).
    pub(in crate::session) index: usize,
    pub(in crate::session) spec: TrialSpec,
    /// The build it runs on.
    pub(in crate::session) side: Side,
    launcher: Rc<Launcher>,
    /// Started when the trial first needs it, closed when its group ends (or the trial stops).
    exec: Option<Box<dyn Executor>>,
    /// The seeds of this trial's samples.
    layouts: LayoutSequence,
    pub(in crate::session) messages: u64,
    pub(in crate::session) outcomes: Vec<SampleOutcome>,
    pub(in crate::session) stop: Option<SampleOutcome>,
    pub(in crate::session) last_placement: Placement,
    pub(in crate::session) ramp: Option<RampOutcome>,
    /// What its workers printed.
    printed: Arc<Mutex<Printed>>,
    /// The link order its next executor starts in (see [`crate::session::OrderedBuilds`]).
    order: usize,
    /// Untimed samples run, which cycle through the orders.
    untimed: usize,
}

impl Trial {
    /// A trial of `spec` on `side`'s build; its executor starts with its first sample.
    pub(in crate::session) fn new(
        index: usize,
        launcher: &Rc<Launcher>,
        layout: &LayoutMode,
        spec: TrialSpec,
        side: Side,
    ) -> Trial {
        Trial {
            index,
            layouts: layout.sequence(&spec.label()),
            spec,
            side,
            launcher: launcher.clone(),
            exec: None,
            messages: 0,
            outcomes: Vec::new(),
            stop: None,
            last_placement: Placement::default(),
            ramp: None,
            printed: Arc::default(),
            order: 0,
            untimed: 0,
        }
    }

    /// This trial's executor, started if it is not (one that refuses every sample if the
    /// transport is unknown).
    fn executor(&mut self) -> &mut dyn Executor {
        let exec = self.exec.get_or_insert_with(|| {
            let Launcher {
                catalog,
                isolation,
                other,
                orders,
            } = &*self.launcher;
            if let Some(o) = orders {
                // Each side's worker in this sample's order; the build serving it knows its
                // own catalog, and says what it cannot run.
                let cmds = match self.side {
                    Side::This => &o.this,
                    Side::Other => &o.other,
                };
                if let Some(cmd) = cmds.get(self.order % o.len()) {
                    return Box::new(Child::start(cmd, self.spec.clone(), self.printed.clone()));
                }
            }
            if self.side == Side::Other {
                // The other build knows its own catalog: what it cannot run, it says.
                return match other {
                    Some(cmd) => {
                        Box::new(Child::start(cmd, self.spec.clone(), self.printed.clone()))
                    }
                    None => Box::new(Refuse("no other build to run on".into())),
                };
            }
            match (isolation, catalog.lookup(&self.spec.transport)) {
                (_, Err(e)) => Box::new(Refuse(e.to_string())),
                (Isolation::InProcess, Ok(_)) => {
                    Box::new(InProcess::new(catalog.clone(), self.spec.clone()))
                }
                (Isolation::Subprocess(cmd), Ok(_)) => {
                    Box::new(Child::start(cmd, self.spec.clone(), self.printed.clone()))
                }
            }
        });
        &mut **exec
    }

    /// Closes the executor, if one is running.
    pub(in crate::session) fn close(&mut self) {
        if let Some(mut exec) = self.exec.take() {
            exec.close();
        }
    }

    /// Runs one sample of `messages` (at `rate`, for an open-loop step) under this trial's next
    /// layout.
    pub(in crate::session) fn sample(&mut self, messages: u64, rate: Option<u64>) -> SampleOutcome {
        self.order = self.untimed;
        self.untimed += 1;
        self.run(messages, rate)
    }

    /// Runs the trial's next timed sample of `messages`: timed sample `k` runs in link order
    /// `k mod orders` on both sides, so its pair shares its order number.
    pub(in crate::session) fn timed_sample(&mut self, messages: u64) -> SampleOutcome {
        self.order = self.outcomes.len();
        self.run(messages, None)
    }

    /// Runs one sample in the current order.
    fn run(&mut self, messages: u64, rate: Option<u64>) -> SampleOutcome {
        if self.launcher.orders.is_some() {
            // A worker runs in one order: the next sample's may be another.
            self.close();
        }
        let request = SampleRequest {
            messages,
            rate,
            layout: self.layouts.next_seed(),
        };
        let outcome = self.executor().run(request);
        if self.spec.fresh_process {
            // The next sample starts a worker of its own.
            self.close();
        }
        outcome
    }

    /// Its label in progress events: the spec's, marked when it runs on the other build.
    pub(in crate::session) fn label(&self) -> String {
        match self.side {
            Side::This => self.spec.label(),
            Side::Other => format!("{} (against)", self.spec.label()),
        }
    }

    /// Takes up where `twin` (the same trial on this build) stands: its message count, and the
    /// seed of its next sample, so sample `k` of both runs under one layout. A twin that stopped
    /// before its timed samples stops this trial too.
    pub(in crate::session) fn follow(&mut self, twin: &Trial) {
        self.messages = twin.messages;
        self.layouts = twin.layouts.clone();
        if let (Some(stop), None) = (&twin.stop, &self.stop) {
            self.stop = Some(SampleOutcome::status_only(
                SampleStatus::Unsupported(format!(
                    "not run on the other build: the trial stopped on this one first ({})",
                    crate::session::summary::describe_stop(stop)
                )),
                Placement::default(),
            ));
        }
    }

    /// Whether the trial is a ramp (a rate search).
    pub(in crate::session) fn is_ramp(&self) -> bool {
        matches!(self.spec.pacing, Pacing::Ramp(_))
    }

    /// What the trial ran, as its summary reads it.
    pub(in crate::session) fn ran(&self) -> Ran<'_> {
        Ran {
            spec: &self.spec,
            messages: self.messages,
            outcomes: &self.outcomes,
            stop: self.stop.as_ref(),
            ramp: self.ramp.as_ref(),
            placement: &self.last_placement,
            printed: self
                .printed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

/// An executor for a trial whose transport name is unknown.
struct Refuse(String);

impl Executor for Refuse {
    fn run(&mut self, _request: SampleRequest) -> SampleOutcome {
        SampleOutcome::status_only(SampleStatus::Invalid(self.0.clone()), Placement::default())
    }
}
