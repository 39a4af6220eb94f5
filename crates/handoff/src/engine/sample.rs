//! The skeleton of one sample, which every closed-loop engine fills in (streams, ping-pong and
//! callback streams on threads; async streams and ping-pong under every driver):
//!
//! 1. the members are set up where they will run ([`Members`]: a crew of OS threads, or tasks
//!    under an async driver), sharing the sample's [`Progress`];
//! 2. the channel is configured from the trial ([`config`]) and built by the engine, which checks
//!    the endpoints it got ([`endpoints`]); a channel the transport refuses, or endpoints other
//!    than those asked for, end the sample there;
//! 3. the engine hands each member its work;
//! 4. the members run and are collected under the watchdog ([`collect`]): a hang or a panic is
//!    the sample's outcome, and a pin request the OS refused is noted in the placement;
//! 5. the engine turns the members' reports into the outcome ([`measured`] fills in the common
//!    part), and the skeleton adds the CPU time of the members spawned on a side, where their
//!    [`Members`] measure it (see [`super::cpu`]).
//!
//! Everything that runs per message is the engine's own code, monomorphised inside each member's
//! work; the skeleton runs once per sample. An engine comes in two parts: its [`Shape`] (where
//! the members run, what they report, how the reports become the outcome) knows neither the
//! transport nor the payload and is compiled once per engine; only the channel's construction and
//! the members' work ([`Engine`]) are compiled for every transport and payload. The skeleton
//! calls that work once per sample, and the crew each member's once per thread (see
//! [`Crew::spawn`]), through a dynamic call; nothing per message is.

use super::cpu::{CpuTally, Side};
use super::crew::{Crew, CrewError, Progress};
use super::faults::{with_faults, FaultWindow};
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::{self, Placement, Plan};
use crate::semantics::Semantics;
use crate::transport::{BuildError, ChannelConfig, Endpoints};
use crate::verify::Verdict;
use crate::workload::TrialSpec;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The part of an engine that knows neither the transport nor the payload: where its members
/// run, what they report, and how their reports become the sample's outcome. It is compiled
/// once per engine, not once per transport and payload (see [`run`]).
pub(super) trait Shape {
    /// What one member reports when it finishes.
    type Report: Send + 'static;
    /// Where the members run.
    type Members: Members<Self::Report>;

    /// The producers and consumers the channel is configured for.
    fn topology(&self) -> (usize, usize);

    /// Messages the sample is to deliver (round trips for ping-pong), for a hang report.
    fn total(&self) -> u64;

    /// Sets up where the members will run; they publish their progress into `progress`.
    fn members(&self, progress: Arc<Progress>) -> Self::Members;

    /// The sample's outcome from the members' reports (in the order the members were added),
    /// which ran under `place`.
    fn finish(self, reports: Vec<Self::Report>, place: Placement) -> SampleOutcome;
}

/// One engine's part of a sample that depends on the transport and the payload: building the
/// channel and handing each member its work. Everything else is its [`Shape`]'s.
pub(super) trait Engine: Sized {
    /// The engine's part that is independent of the transport and the payload.
    type Shape: Shape;
    /// The channel's endpoints as the engine's members take them (checked by [`Engine::build`]).
    type Ends;

    /// The engine's shape for this sample.
    fn shape(&self) -> Self::Shape;

    /// Builds the channel (or channels) configured by `cfg`, and checks the endpoints the
    /// adapter returned. `progress` is the sample's (a callback transport's consumer publishes
    /// into it).
    fn build(
        &mut self,
        cfg: &ChannelConfig,
        progress: &Arc<Progress>,
    ) -> Result<Self::Ends, Refused>;

    /// Hands each member its work.
    fn spawn(&mut self, ends: Self::Ends, members: &mut MembersOf<Self>);
}

/// Where an engine's members run.
pub(super) type MembersOf<E> = <<E as Engine>::Shape as Shape>::Members;

/// An engine's channel building and spawning, as the skeleton calls it: once per sample,
/// through one dynamic call.
type Work<'w, W> = dyn FnMut(&ChannelConfig, &Arc<Progress>, &mut W) -> Result<(), Refused> + 'w;

/// Runs one sample of `engine` for `spec` (see the module docs).
///
/// Only the channel's construction and the members' work are compiled for each transport and
/// payload; the skeleton itself ([`skeleton`]) is compiled once per engine [`Shape`].
pub(super) fn run<E: Engine>(spec: &TrialSpec, mut engine: E) -> SampleOutcome {
    let shape = engine.shape();
    skeleton(spec, shape, &mut |cfg, progress, members| {
        let ends = engine.build(cfg, progress)?;
        engine.spawn(ends, members);
        Ok(())
    })
}

/// The skeleton of one sample of an engine of shape `S`; `work` builds the channel and spawns
/// the members.
fn skeleton<S: Shape>(
    spec: &TrialSpec,
    shape: S,
    work: &mut Work<'_, S::Members>,
) -> SampleOutcome {
    let progress = Progress::for_sample();
    let mut members = shape.members(progress.clone());
    let (producers, consumers) = shape.topology();
    if let Err(why) = work(&config(spec, producers, consumers), &progress, &mut members) {
        return refused(why, members.placement());
    }
    let cpu = members.cpu();
    let faults = FaultWindow::open();
    match collect(members, spec.watchdog(None), shape.total()) {
        Ok((reports, place)) => {
            let faults = faults.close();
            let outcome = with_cpu(shape.finish(reports, place), cpu.as_deref());
            with_faults(outcome, faults)
        }
        Err(outcome) => *outcome,
    }
}

/// `outcome` with the CPU time in `tally` (the members', all collected), if it was measured.
pub(super) fn with_cpu(mut outcome: SampleOutcome, tally: Option<&CpuTally>) -> SampleOutcome {
    outcome.cpu = tally.and_then(CpuTally::record);
    outcome
}

/// What the shape of a stream (on threads, on tasks, or into a callback) knows of its sample:
/// the transport's semantics, the trial, and the messages each producer sends.
#[derive(Clone, Copy)]
pub(super) struct Flow<'a> {
    pub sem: &'a Semantics,
    pub spec: &'a TrialSpec,
    /// Messages per producer.
    pub per: u64,
    /// Messages in all.
    pub total: u64,
}

impl<'a> Flow<'a> {
    /// A sample of `spec` moving `messages` messages, shared evenly among its producers (at
    /// least one each).
    pub fn new(sem: &'a Semantics, spec: &'a TrialSpec, messages: u64) -> Flow<'a> {
        let per = (messages / spec.producers as u64).max(1);
        Flow {
            sem,
            spec,
            per,
            total: per * spec.producers as u64,
        }
    }
}

/// The configuration of a sample's channel: the trial's capacity and options, for `producers`
/// and `consumers`.
pub(super) fn config(spec: &TrialSpec, producers: usize, consumers: usize) -> ChannelConfig {
    ChannelConfig {
        capacity: spec.capacity,
        producers,
        consumers,
        options: spec.options.clone(),
    }
}

/// Why a sample's channel is not the one asked for.
pub(super) enum Refused {
    /// The transport refused the configuration.
    Build(BuildError),
    /// The adapter returned other endpoints than those asked for; the text says which.
    Endpoints(String),
}

impl From<BuildError> for Refused {
    fn from(e: BuildError) -> Refused {
        Refused::Build(e)
    }
}

/// `e` if it holds `producers` senders and `consumers` receivers.
#[inline]
pub(super) fn endpoints<S, R>(
    e: Endpoints<S, R>,
    producers: usize,
    consumers: usize,
) -> Result<Endpoints<S, R>, Refused> {
    counts(e.senders.len(), e.receivers.len(), producers, consumers).map(|()| e)
}

/// Whether `senders` and `receivers` are the `producers` and `consumers` asked for.
fn counts(
    senders: usize,
    receivers: usize,
    producers: usize,
    consumers: usize,
) -> Result<(), Refused> {
    if senders != producers || receivers != consumers {
        return Err(Refused::Endpoints(format!(
            "adapter returned {senders} senders and {receivers} receivers for {producers} and {consumers}"
        )));
    }
    Ok(())
}

/// The outcome of a sample whose channel is not the one asked for.
pub(super) fn refused(why: Refused, place: Placement) -> SampleOutcome {
    let status = match why {
        Refused::Build(BuildError::Unsupported(s)) => SampleStatus::Unsupported(s),
        Refused::Build(BuildError::Invalid(s)) => SampleStatus::Invalid(s),
        Refused::Endpoints(s) => SampleStatus::Crashed(s),
    };
    SampleOutcome::status_only(status, place)
}

/// Why a sample's members did not all report.
pub(super) enum Failure {
    /// They could not be started (an async runtime could not be built).
    Start(String),
    /// No message was delivered for a whole watchdog interval.
    Hung {
        /// Who had finished, e.g. `1 of 2 threads finished`.
        what: String,
        /// How long nothing had been delivered when the watchdog fired.
        quiet: Duration,
    },
    /// A member panicked.
    Panicked(String),
}

impl From<CrewError> for Failure {
    fn from(e: CrewError) -> Failure {
        match e {
            CrewError::Hung {
                finished,
                total,
                quiet,
            } => Failure::Hung {
                what: format!("{finished} of {total} threads finished"),
                quiet,
            },
            CrewError::Panicked(msg) => Failure::Panicked(msg),
        }
    }
}

/// Where a sample's members run: they are added by the engine, then run and collected at once.
pub(super) trait Members<R> {
    /// The sample's progress, which the members publish into.
    fn progress(&self) -> &Arc<Progress>;

    /// The placement planned (that of a sample that ends before its members run).
    fn placement(&self) -> Placement;

    /// Where the CPU time of the members spawned on a side is added up, if these members
    /// measure it (OS threads per side; tasks under a tokio driver as the runtime's threads).
    fn cpu(&self) -> Option<Arc<CpuTally>> {
        None
    }

    /// Runs the members and waits for their reports, in the order they were added, under
    /// `watchdog` (see [`Crew::collect`]); returns them with the placement they ran under.
    fn run(self, watchdog: Duration) -> (Result<Vec<R>, Failure>, Placement);
}

/// Members on OS threads: a crew, and the placement recorded for it.
pub(super) struct Threads<R> {
    crew: Crew<R>,
    place: Placement,
}

impl<R: Send + 'static> Threads<R> {
    /// One thread per member, `size` in all, placed as the trial asks.
    pub fn new(size: usize, spec: &TrialSpec, progress: Arc<Progress>) -> Threads<R> {
        let plan = placement::plan(size, spec.pin);
        let place = plan.placement.clone();
        Threads::planned(size, plan, place, spec, progress)
    }

    /// `size` threads placed by `plan`, recorded as `place`.
    pub fn planned(
        size: usize,
        plan: Plan,
        place: Placement,
        spec: &TrialSpec,
        progress: Arc<Progress>,
    ) -> Threads<R> {
        let mut crew = Crew::new(size, plan).laid_out(spec.layout);
        crew.progress = progress;
        Threads { crew, place }
    }

    /// These threads meeting at `line`, shared with members elsewhere (see
    /// [`Crew::on_line`]).
    pub fn on_line(mut self, line: Arc<dyn super::crew::Line>) -> Threads<R> {
        self.crew = self.crew.on_line(line);
        self
    }

    /// Adds a member: a thread named `name` that runs `work` (see [`Crew::spawn`]).
    pub fn spawn<F>(&mut self, name: &str, work: F)
    where
        F: FnOnce() -> R + Send + 'static,
    {
        self.crew.spawn(name, work);
    }

    /// These threads with their CPU time added up in `tally` rather than a tally of their own.
    pub fn counting(mut self, tally: Arc<CpuTally>) -> Threads<R> {
        self.crew.cpu = tally;
        self
    }

    /// [`Threads::spawn`], the member's CPU time counted for `side` (see [`Crew::spawn_as`]).
    pub fn spawn_as<F>(&mut self, side: Side, name: &str, work: F)
    where
        F: FnOnce() -> R + Send + 'static,
    {
        self.crew.spawn_as(side, name, work);
    }
}

impl<R: Send + 'static> Members<R> for Threads<R> {
    fn progress(&self) -> &Arc<Progress> {
        &self.crew.progress
    }

    fn placement(&self) -> Placement {
        self.place.clone()
    }

    fn cpu(&self) -> Option<Arc<CpuTally>> {
        Some(self.crew.cpu.clone())
    }

    fn run(self, watchdog: Duration) -> (Result<Vec<R>, Failure>, Placement) {
        (
            self.crew.collect(watchdog).map_err(Failure::from),
            self.place,
        )
    }
}

/// Runs `members` under `watchdog` and collects their reports, with the placement they ran
/// under (a refused pin noted). A sample whose members did not all report ends here: its
/// outcome says why, and how far the `total` messages got.
pub(super) fn collect<R, W: Members<R>>(
    members: W,
    watchdog: Duration,
    total: u64,
) -> Result<(Vec<R>, Placement), Box<SampleOutcome>> {
    let progress = members.progress().clone();
    let (reports, mut place) = members.run(watchdog);
    if progress.pin_failed.load(AtomicOrdering::Relaxed) {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
    }
    let failure = match reports {
        Ok(reports) => return Ok((reports, place)),
        Err(f) => f,
    };
    let status = match failure {
        Failure::Start(why) | Failure::Panicked(why) => SampleStatus::Crashed(why),
        Failure::Hung { what, quiet } => SampleStatus::Hung(CrewError::hang_report(
            quiet,
            watchdog,
            what,
            progress.delivered.load(AtomicOrdering::Relaxed),
            total,
        )),
    };
    Err(Box::new(SampleOutcome::status_only(status, place)))
}

/// Nanoseconds from `start` until the last of `ends`, the moments each producer's last send
/// returned (the submit time of a stream, see `SampleOutcome::submit_ns`); `None` without
/// producers.
pub(super) fn submitted(ends: impl Iterator<Item = Instant>, start: Instant) -> Option<u64> {
    let last = ends.max()?;
    Some(last.saturating_duration_since(start).as_nanos() as u64)
}

/// The outcome of a sample that ran to its end: `verdict`'s status, count and digest, over
/// `elapsed_ns`, under `place`. The engine fills in what else it measured.
pub(super) fn measured(verdict: Verdict, elapsed_ns: u64, place: Placement) -> SampleOutcome {
    let status = match verdict.violation {
        None => SampleStatus::Pass,
        Some(v) => SampleStatus::Fail(v),
    };
    SampleOutcome {
        messages: verdict.count,
        elapsed_ns,
        digest: verdict.digest,
        redelivered: verdict.redelivered,
        lost: verdict.lost,
        ..SampleOutcome::status_only(status, place)
    }
}
