//! Samples across the process boundary (`placement = processes`).
//!
//! The worker that runs the sample is its **listening** side; a **peer** process of the same
//! program (see [`peer`]) is the other. In a stream the worker receives and verifies, and the
//! peer runs the producers; in ping-pong the worker runs the pinger (which times every round
//! trip) and the peer the ponger (which verifies every request and echoes it).
//!
//! One sample, in order (only step 5 is timed):
//!
//! 1. the worker opens each channel for the peer to join ([`CrossProcess::listen`]), and a
//!    start line in shared memory for every thread of both processes ([`line`]);
//! 2. it starts the peer with the trial, the rendezvous, the line's path and the cores its
//!    threads are pinned to: the placement is planned once for both processes, the worker's
//!    threads on the first cores, the peer's on the next;
//! 3. the peer joins (or says why not: `unsupported`), and the worker accepts;
//! 4. both processes' threads pin themselves and meet at the start line;
//! 5. they run the workload exactly as threads of one process would (the same producer,
//!    consumer, pinger and ponger code), each reading the clock as it leaves the line;
//! 6. the peer reports its members' moments on the machine-wide clock ([`clock`]) and its own
//!    verifier's verdict; the worker merges them with its own, and the sample's time runs, as
//!    between threads, from the earliest start to the last delivery.
//!
//! **Faults.** A peer that crashes makes the sample `crashed`, naming the peer and how it ended
//! (a crash of the worker itself is the worker's, reported by its parent as always). A peer
//! that stops making progress leaves the worker's consumers with nothing to deliver: the
//! watchdog calls the sample `hung`. Either way the peer is killed and reaped before the sample
//! returns, and nothing it used has a name to leave behind (see [`crate::transport_cross`]).
//!
//! Open-loop samples (`paced`, each step of a `ramp`, a `pipeline`) cross too, across the one
//! hop whose transport can ([`crossing`]): the injectors and the stages before it in the peer,
//! the stages after it and the sink in the worker, reading one clock and one set of depth
//! counters ([`open_loop`]). Async drivers do not cross processes yet: such a trial is
//! `unsupported`, with that reason.

mod clock;
mod line;
mod open_loop;
pub(crate) mod peer;
mod pingpong;
mod stream;

use super::check_support;
use super::hop::HopSource;
use super::sample;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::transport_cross::CrossProcess;
use crate::workload::{TrialSpec, WorkloadKind};
use peer::{Order, Said};
use std::sync::Arc;

/// A transport that can run across two processes, with its generic parameters erased (the
/// payload is matched once per sample, as [`crate::runner::Runner`] does).
pub(crate) trait Remote: Send + Sync {
    /// Runs one sample from the listening side, the other side in a peer process. In an
    /// open-loop sample this transport is the chain's hop `at`; the hops that stay inside one
    /// process come from `hops`.
    fn run(
        &self,
        hops: &dyn HopSource,
        spec: &TrialSpec,
        at: usize,
        messages: u64,
    ) -> SampleOutcome;

    /// The peer's side of the sample `order` (this transport its hop `at`); says
    /// [`Said::Joined`] through `say` once joined, and returns its last word.
    fn serve(
        &self,
        hops: &dyn HopSource,
        order: &Order,
        at: usize,
        say: &mut dyn FnMut(&Said),
    ) -> Said;
}

/// The transports a sample across processes reaches by name: how each crosses (if it can),
/// and, as a [`HopSource`], the hops of a pipeline that stay inside one process. The catalog
/// implements it.
pub(crate) trait Remotes: HopSource {
    /// How the transport named `name` crosses processes (`None`: it cannot), or why there is
    /// no such transport.
    fn remote(&self, name: &str) -> Result<Option<&dyn Remote>, String>;
}

/// A [`CrossProcess`] transport as a [`Remote`].
pub(crate) struct RemoteRunner<T>(pub Arc<T>);

impl<T: CrossProcess> Remote for RemoteRunner<T> {
    fn run(
        &self,
        hops: &dyn HopSource,
        spec: &TrialSpec,
        at: usize,
        messages: u64,
    ) -> SampleOutcome {
        let Some(cmd) = peer::command() else {
            return unsupported(
                "placement processes runs in worker processes, which start the peer (not with --in-process)",
            );
        };
        if spec.workload.is_open_loop() {
            return crate::with_payload!(spec.payload, M => open_loop::run::<T, M>(&self.0, hops, spec, at, messages, cmd));
        }
        let info = self.0.info();
        if let Err(o) = check_support(&info, spec) {
            return *o;
        }
        match spec.workload {
            WorkloadKind::PingPong => {
                crate::with_payload!(spec.payload, M => pingpong::run::<T, M>(&self.0, spec, messages, cmd))
            }
            WorkloadKind::Spsc | WorkloadKind::Mpsc => {
                crate::with_payload!(spec.payload, M => stream::run::<T, M>(&self.0, &info.semantics, spec, messages, cmd))
            }
            other => unsupported(&format!(
                "workload {other} does not cross processes (spsc, mpsc, ping-pong, paced, ramp and pipeline do)"
            )),
        }
    }

    fn serve(
        &self,
        hops: &dyn HopSource,
        order: &Order,
        at: usize,
        say: &mut dyn FnMut(&Said),
    ) -> Said {
        let spec = &order.trial;
        if spec.workload.is_open_loop() {
            return crate::with_payload!(spec.payload, M => open_loop::serve::<T, M>(&self.0, hops, order, at, say));
        }
        match spec.workload {
            WorkloadKind::PingPong => {
                crate::with_payload!(spec.payload, M => pingpong::serve::<T, M>(&self.0, order, say))
            }
            _ => {
                let sem = self.0.info().semantics;
                crate::with_payload!(spec.payload, M => stream::serve::<T, M>(&self.0, &sem, order, say))
            }
        }
    }
}

/// Runs one sample of `spec` across two processes through the [`Remote`] of the transport
/// that crosses (see [`crossing`]).
pub(crate) fn run(remotes: &dyn Remotes, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    if spec.driver.is_async() {
        return unsupported(&format!(
            "driver {} does not run across processes yet (driver threads does)",
            spec.driver
        ));
    }
    match crossing(remotes, spec) {
        Ok((at, remote)) => remote.run(remotes, spec, at, messages),
        Err(status) => SampleOutcome::status_only(status, Placement::default()),
    }
}

/// The transport whose channel crosses between the two processes of `spec`, and its chain
/// index: the trial's transport, or in a pipeline the one hop whose transport can cross (the
/// others stay inside the process of their side). Or the status of a sample that cannot cross.
fn crossing<'r>(
    remotes: &'r dyn Remotes,
    spec: &TrialSpec,
) -> Result<(usize, &'r dyn Remote), SampleStatus> {
    let Some(pipe) = spec.pipeline.as_ref() else {
        return match remotes.remote(&spec.transport) {
            Err(why) => Err(SampleStatus::Invalid(why)),
            Ok(Some(remote)) => Ok((0, remote)),
            Ok(None) => Err(SampleStatus::Unsupported(format!(
                "{} is a channel inside one process: it cannot cross a process boundary (run it with placement threads)",
                spec.transport
            ))),
        };
    };
    let mut can = Vec::new();
    for (i, hop) in pipe.hops.iter().enumerate() {
        match remotes.remote(&hop.transport) {
            Err(why) => return Err(SampleStatus::Invalid(format!("hop {}: {why}", i + 1))),
            Ok(Some(remote)) => can.push((i, remote)),
            Ok(None) => {}
        }
    }
    let named = |can: &[(usize, &dyn Remote)]| {
        can.iter()
            .map(|(i, _)| format!("{} ({})", i + 1, pipe.hops[*i].transport))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match can.as_slice() {
        [one] => Ok(*one),
        [] => Err(SampleStatus::Unsupported(
            "no hop of this pipeline can cross a process boundary: placement processes puts the boundary at the one hop whose transport can (an IPC transport, see `handoff list`)".into(),
        )),
        several => Err(SampleStatus::Unsupported(format!(
            "hops {} can each cross a process boundary: placement processes puts the boundary at exactly one, so make the others channels inside one process",
            named(several)
        ))),
    }
}

/// Serves the peer's side of one sample on the process's protocol descriptors: reads the
/// [`Order`], runs it through the [`Remote`] of the transport that crosses, reports.
pub(crate) fn serve_peer(
    remotes: &dyn Remotes,
    input: impl std::io::BufRead,
    output: impl std::io::Write,
) -> std::io::Result<()> {
    peer::serve_order(input, output, |order, say| {
        match crossing(remotes, &order.trial) {
            Ok((at, remote)) => remote.serve(remotes, order, at, say),
            Err(status) => cannot(status),
        }
    })
}

/// The peer's last word when it cannot take part: why, in the words of the sample's status.
fn cannot(status: SampleStatus) -> Said {
    Said::Failed(match status {
        SampleStatus::Unsupported(why)
        | SampleStatus::Invalid(why)
        | SampleStatus::Crashed(why)
        | SampleStatus::Hung(why) => why,
        other => format!("{other:?}"),
    })
}

fn unsupported(why: &str) -> SampleOutcome {
    SampleOutcome::status_only(
        SampleStatus::Unsupported(why.to_string()),
        Placement::default(),
    )
}

/// Opens a start line for every thread of `plan` (both processes') and starts the peer with
/// the trial, the `rendezvous` of its channels and the plan's cores from `local` on (this
/// process's threads take the first `local`); returns once the peer has joined, or why not.
fn start_peer(
    cmd: &peer::PeerCommand,
    spec: &TrialSpec,
    messages: u64,
    rendezvous: Vec<String>,
    plan: &crate::placement::Plan,
    local: usize,
    open_loop: Option<peer::OpenLoopOrder>,
) -> Result<(Arc<line::SharedLine>, peer::Peer), SampleStatus> {
    let line = line::SharedLine::create(plan.cores.len())
        .map(Arc::new)
        .map_err(|e| SampleStatus::Crashed(format!("shared start line: {e}")))?;
    let order = Order {
        trial: spec.clone(),
        messages,
        rendezvous,
        line: line.path(),
        cores: cores_from(plan, local),
        open_loop,
    };
    let mut peer = peer::Peer::start(cmd, &order).map_err(SampleStatus::Crashed)?;
    peer.joined(spec.watchdog(None))?;
    Ok((line, peer))
}

/// The plan's cores from `from` on, as the peer pins them.
fn cores_from(plan: &crate::placement::Plan, from: usize) -> Vec<Option<usize>> {
    plan.cores
        .iter()
        .skip(from)
        .map(|c| c.map(|c| c.id))
        .collect()
}

/// The plan of this process's `count` threads: the plan's first cores.
fn local_plan(plan: &crate::placement::Plan, count: usize) -> crate::placement::Plan {
    crate::placement::Plan {
        cores: plan.cores.iter().take(count).copied().collect(),
        placement: plan.placement.clone(),
    }
}

/// Joins the order's first channel as one sender of `M` per writer `cfg` asks for (`who`
/// names them in the refusal), or why not.
fn join_senders<T: CrossProcess, M: crate::message::Message>(
    t: &T,
    order: &Order,
    cfg: &crate::transport::ChannelConfig,
    who: &str,
) -> Result<Vec<T::Tx<M>>, Said> {
    let producers = cfg.producers;
    match t.join_senders::<M>(&order.rendezvous[0], cfg) {
        Ok(s) if s.len() == producers => Ok(s),
        Ok(s) => Err(Said::Failed(format!(
            "joined with {} senders for {producers} {who}",
            s.len()
        ))),
        Err(e) => Err(Said::Failed(e.to_string())),
    }
}

/// One thread of the peer's side: who it is (named if it panics) and its work, which makes
/// the member the peer reports.
struct Job<'a> {
    who: String,
    work: Box<dyn FnOnce() -> peer::Member + Send + 'a>,
}

impl<'a> Job<'a> {
    fn new(who: String, work: impl FnOnce() -> peer::Member + Send + 'a) -> Job<'a> {
        Job {
            who,
            work: Box::new(work),
        }
    }
}

/// The peer's side of a sample whose members each take one of `senders`: one thread per
/// sender running `work(index, sender)`, `member` making what it returns into the member the
/// peer reports (see [`serve_threads`]). `who` names a member whose thread panicked.
fn serve_senders<S: Send, R>(
    senders: Vec<S>,
    order: &Order,
    line: &line::SharedLine,
    who: &str,
    work: impl Fn(usize, S) -> R + Sync,
    member: impl Fn(R) -> peer::Member + Sync,
) -> Said {
    let (work, member) = (&work, &member);
    let jobs = senders
        .into_iter()
        .enumerate()
        .map(|(i, tx)| Job::new(format!("{who} {i}"), move || member(work(i, tx))))
        .collect();
    serve_threads(jobs, order, line)
}

/// The peer's side of a sample: one thread per job, pinned to its core of `order` (the i-th
/// job's the i-th), meeting the worker's threads at `line`, then working; the peer's report
/// holds each job's member with the thread's CPU time, in the jobs' order.
fn serve_threads(jobs: Vec<Job<'_>>, order: &Order, line: &line::SharedLine) -> Said {
    use super::crew::Line;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, Ordering};
    let pin_failed = AtomicBool::new(false);
    let outcomes: Vec<(String, std::thread::Result<peer::Member>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .into_iter()
            .enumerate()
            .map(|(i, Job { who, work })| {
                let pin_failed = &pin_failed;
                let core = order.cores.get(i).copied().flatten();
                let handle = scope.spawn(move || {
                    if !pin(core) {
                        pin_failed.store(true, Ordering::Relaxed);
                    }
                    line.arrive();
                    let cpu_start = super::cpu::thread_cpu_ns();
                    let out = catch_unwind(AssertUnwindSafe(work));
                    let cpu_ns = super::cpu::thread_cpu_ns()
                        .zip(cpu_start)
                        .map(|(end, start)| end.saturating_sub(start));
                    out.map(|m| m.with_cpu(cpu_ns))
                });
                (who, handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(who, h)| (who, h.join().and_then(|r| r)))
            .collect()
    });
    let mut members = Vec::new();
    for (who, out) in outcomes {
        match out {
            Ok(m) => members.push(m),
            Err(e) => {
                return Said::Failed(format!(
                    "{who} panicked: {}",
                    super::crew::panic_message(&*e)
                ))
            }
        }
    }
    Said::Done(peer::Report {
        members,
        pin_failed: pin_failed.load(Ordering::Relaxed),
    })
}

/// Collects the worker's side of a sample (its `threads`, under `watchdog`, `total`
/// deliveries expected), then the peer's report: the worker's members, their placement with a
/// pin the peer's OS refused noted, and the peer's members; or the sample's outcome if either
/// side failed (the peer's failure first, when it ended the sample early).
fn collect_both<R: Send + 'static>(
    threads: sample::Threads<R>,
    peer: &mut peer::Peer,
    watchdog: std::time::Duration,
    total: u64,
) -> Result<(Vec<R>, Placement, Vec<peer::Member>), Box<SampleOutcome>> {
    let (members, place) = match sample::collect(threads, watchdog, total) {
        Ok(r) => r,
        Err(outcome) => return Err(Box::new(peer_first(peer, *outcome))),
    };
    let report = match peer.report(watchdog) {
        Ok(r) => r,
        Err(s) => return Err(Box::new(SampleOutcome::status_only(s, place))),
    };
    let mut place = place;
    if report.pin_failed {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
    }
    Ok((members, place, report.members))
}

/// Pins the calling thread of the peer to `core`; false if the OS refused.
fn pin(core: Option<usize>) -> bool {
    crate::placement::apply(core.map(|id| core_affinity::CoreId { id }))
}

/// The outcome when the peer ended the sample early, or `outcome` as it is.
fn peer_first(peer: &mut peer::Peer, outcome: SampleOutcome) -> SampleOutcome {
    match peer.crashed() {
        Some(status) => SampleOutcome::status_only(status, outcome.placement),
        None => outcome,
    }
}
