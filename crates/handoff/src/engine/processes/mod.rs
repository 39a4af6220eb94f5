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
//! Open-loop samples (`paced`, each step of a `ramp`) cross too, the injectors in the peer and
//! the sink in the worker, reading one clock and one set of depth counters ([`paced`]).
//! Pipelines and async drivers do not cross processes yet: such a trial is `unsupported`, with
//! that reason.

mod clock;
mod line;
mod paced;
pub(crate) mod peer;
mod pingpong;
mod stream;

use super::check_support;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::transport_cross::CrossProcess;
use crate::workload::{TrialSpec, WorkloadKind};
use peer::{Order, Said};
use std::sync::Arc;

/// A transport that can run across two processes, with its generic parameters erased (the
/// payload is matched once per sample, as [`crate::runner::Runner`] does).
pub(crate) trait Remote: Send + Sync {
    /// Runs one sample from the listening side, the other side in a peer process.
    fn run(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome;

    /// The peer's side of the sample `order`; says [`Said::Joined`] through `say` once joined,
    /// and returns its last word.
    fn serve(&self, order: &Order, say: &mut dyn FnMut(&Said)) -> Said;
}

/// A [`CrossProcess`] transport as a [`Remote`].
pub(crate) struct RemoteRunner<T>(pub Arc<T>);

impl<T: CrossProcess> Remote for RemoteRunner<T> {
    fn run(&self, spec: &TrialSpec, messages: u64) -> SampleOutcome {
        let info = self.0.info();
        if let Err(o) = check_support(&info, spec) {
            return *o;
        }
        let Some(cmd) = peer::command() else {
            return unsupported(
                "placement processes runs in worker processes, which start the peer (not with --in-process)",
            );
        };
        match spec.workload {
            WorkloadKind::PingPong => {
                crate::with_payload!(spec.payload, M => pingpong::run::<T, M>(&self.0, spec, messages, cmd))
            }
            WorkloadKind::Spsc | WorkloadKind::Mpsc => {
                crate::with_payload!(spec.payload, M => stream::run::<T, M>(&self.0, &info.semantics, spec, messages, cmd))
            }
            WorkloadKind::Paced | WorkloadKind::Ramp => {
                crate::with_payload!(spec.payload, M => paced::run::<T, M>(&self.0, &info.semantics, spec, messages, cmd))
            }
            other => unsupported(&format!(
                "workload {other} does not cross processes yet (spsc, mpsc, ping-pong, paced and ramp do)"
            )),
        }
    }

    fn serve(&self, order: &Order, say: &mut dyn FnMut(&Said)) -> Said {
        let spec = &order.trial;
        match spec.workload {
            WorkloadKind::PingPong => {
                crate::with_payload!(spec.payload, M => pingpong::serve::<T, M>(&self.0, order, say))
            }
            WorkloadKind::Paced | WorkloadKind::Ramp => {
                let sem = self.0.info().semantics;
                crate::with_payload!(spec.payload, M => paced::serve::<T, M>(&self.0, &sem, order, say))
            }
            _ => {
                let sem = self.0.info().semantics;
                crate::with_payload!(spec.payload, M => stream::serve::<T, M>(&self.0, &sem, order, say))
            }
        }
    }
}

/// Runs one sample of `spec` across two processes through its transport's [`Remote`]
/// (`None`: the transport cannot cross, and the sample is `unsupported` with that reason).
pub(crate) fn run(remote: Option<&dyn Remote>, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    if spec.driver.is_async() {
        return unsupported(&format!(
            "driver {} does not run across processes yet (driver threads does)",
            spec.driver
        ));
    }
    match remote {
        Some(remote) => remote.run(spec, messages),
        None => unsupported(&format!(
            "{} is a channel inside one process: it cannot cross a process boundary (run it with placement threads)",
            spec.transport
        )),
    }
}

/// Serves the peer's side of one sample on the process's protocol descriptors: reads the
/// [`Order`], runs it through the [`Remote`] that `lookup` finds for its transport, reports.
pub(crate) fn serve_peer<'c>(
    lookup: impl Fn(&str) -> Result<Option<&'c dyn Remote>, String>,
    input: impl std::io::BufRead,
    output: impl std::io::Write,
) -> std::io::Result<()> {
    peer::serve_order(input, output, |order, say| {
        match lookup(&order.trial.transport) {
            Err(why) => Said::Failed(why),
            Ok(None) => Said::Failed(format!(
                "{} cannot cross a process boundary",
                order.trial.transport
            )),
            Ok(Some(remote)) => remote.serve(order, say),
        }
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

/// `place` with a pin the peer's OS refused noted.
fn with_peer_pins(mut place: Placement, report: &peer::Report) -> Placement {
    if report.pin_failed {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
    }
    place
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

/// Joins the order's first channel as one sender of `M` per producer of its trial (`who`
/// names them in the refusal), or why not.
fn join_senders<T: CrossProcess, M: crate::message::Message>(
    t: &T,
    order: &Order,
    cfg: &crate::transport::ChannelConfig,
    who: &str,
) -> Result<Vec<T::Tx<M>>, Said> {
    let producers = order.trial.producers;
    match t.join_senders::<M>(&order.rendezvous[0], cfg) {
        Ok(s) if s.len() == producers => Ok(s),
        Ok(s) => Err(Said::Failed(format!(
            "joined with {} senders for {producers} {who}",
            s.len()
        ))),
        Err(e) => Err(Said::Failed(e.to_string())),
    }
}

/// The peer's side of a sample whose members each take one of `senders`: one thread per
/// sender, pinned to its core of `order`, meeting the worker's threads at `line`, then running
/// `work(index, sender)`; `member` makes what it returns, with the thread's CPU time, into the
/// member the peer reports. `who` names a member whose thread panicked.
fn serve_senders<S: Send, R>(
    senders: Vec<S>,
    order: &Order,
    line: &line::SharedLine,
    who: &str,
    work: impl Fn(usize, S) -> R + Sync,
    member: impl Fn(R, Option<u64>) -> peer::Member + Sync,
) -> Said {
    use super::crew::Line;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, Ordering};
    let pin_failed = AtomicBool::new(false);
    let outcomes: Vec<std::thread::Result<peer::Member>> = std::thread::scope(|scope| {
        let handles: Vec<_> = senders
            .into_iter()
            .enumerate()
            .map(|(i, tx)| {
                let (pin_failed, work, member) = (&pin_failed, &work, &member);
                let core = order.cores.get(i).copied().flatten();
                scope.spawn(move || {
                    if !pin(core) {
                        pin_failed.store(true, Ordering::Relaxed);
                    }
                    line.arrive();
                    let cpu_start = super::cpu::thread_cpu_ns();
                    let out = catch_unwind(AssertUnwindSafe(|| work(i, tx)));
                    let cpu_ns = super::cpu::thread_cpu_ns()
                        .zip(cpu_start)
                        .map(|(end, start)| end.saturating_sub(start));
                    out.map(|r| member(r, cpu_ns))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().and_then(|r| r))
            .collect()
    });
    let mut members = Vec::new();
    for (i, out) in outcomes.into_iter().enumerate() {
        match out {
            Ok(m) => members.push(m),
            Err(e) => {
                return Said::Failed(format!(
                    "{who} {i} panicked: {}",
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
