//! The worker side of the child-process protocol.
//!
//! The parent writes one line holding the [`TrialSpec`] as JSON, then one line per sample,
//! `{"messages": N}` (open-loop trials may add `"rate": R`, messages per second, which overrides
//! the trial's rate for that sample; `"layout": S` runs it under the placement of seed `S`, see
//! [`crate::layout`]; fields a worker does not know are ignored). End of input
//! ends the worker.
//!
//! The worker answers each sample with lines of JSON:
//!
//! * while the sample runs, a **heartbeat** every `HEARTBEAT`: `{"progress": D}`
//!   ([`Heartbeat`]), `D` the messages (round trips) delivered so far in the sample, as its
//!   consumers last published them (see `crate::engine::crew`);
//! * last, the sample's [`SampleOutcome`]. No heartbeat follows it.
//!
//! The sample's own watchdog, in the worker, reports a sample in which nothing is delivered for
//! the watchdog interval as `hung`. The parent judges the heartbeats the same way: it waits as
//! long as `D` keeps moving, and kills the worker when `D` has not moved, or no line has come at
//! all, for the interval plus [`GRACE`] (a worker stuck as a whole, whose own watchdog cannot
//! answer). A slow sample that keeps delivering is never cut off.
//!
//! Each outcome carries the sample's memory figures where the system shows them (see
//! `crate::memory`).
//!
//! The protocol runs on descriptors of the worker's own, not on the standard streams a
//! transport can print on (see `stdio`): whatever a transport prints, on either stream, reaches
//! the parent as standard error and is kept with the trial's result.
//!
//! A worker whose protocol input closes while a sample runs has lost its parent: it exits at
//! once, however stuck the sample is ([`serve_stdio`]; a parent-death signal, where the system
//! has one, does the same, see [`crate::executor::spawn`]).

mod orphan;
pub(crate) mod stdio;

use crate::catalog::Catalog;
use crate::engine::crew::{self, Progress};
use crate::executor::SampleRequest;
pub use crate::executor::{Heartbeat, GRACE};
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How often a worker reports the progress of the sample it is running.
pub(crate) const HEARTBEAT: Duration = Duration::from_millis(500);

/// Exit code of a worker that lost its parent in the middle of a sample, where it cannot kill
/// its process group.
pub(crate) const ORPHANED: i32 = 3;

/// Serves the worker protocol as a worker process: moves the protocol off the standard streams
/// (see `stdio`), then serves it until the parent closes its end. If the parent's end closes
/// while a sample runs, the worker kills its process group, itself included, at once (elsewhere
/// it exits with `ORPHANED`).
///
/// The plugin libraries in `plugins` are loaded once the protocol is safe from what they print;
/// one that cannot be loaded makes every sample `invalid` with the reason.
///
/// Started with `HANDOFF_PEER` in its environment, the process is instead the peer of a
/// worker's cross-process sample: it serves that one sample and ends (see
/// `crate::engine::processes`).
pub fn serve_stdio(catalog: &Catalog, plugins: &[std::path::PathBuf]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    let peer = std::env::var_os(crate::engine::processes::peer::PEER_ENV).is_some();
    #[cfg(not(target_os = "linux"))]
    let peer = false;
    if !peer {
        orphan::on_parent_death();
    }
    let stdio::Protocol { input, output } = stdio::take()?;
    let mut catalog = catalog.clone();
    let mut broken = None;
    for path in plugins {
        if let Err(e) = crate::plugin::register_library(&mut catalog, path) {
            broken = Some(format!("plugin {}: {e}", path.display()));
        }
    }
    #[cfg(target_os = "linux")]
    {
        if peer {
            return crate::engine::processes::serve_peer(&catalog, BufReader::new(input), output);
        }
        // This worker starts its cross-process samples' peers with its own command.
        crate::engine::processes::peer::record_own_command();
    }
    let running = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<std::io::Result<String>>();
    let watching = running.clone();
    thread::Builder::new()
        .name("handoff-protocol-in".into())
        .spawn(move || {
            for line in BufReader::new(input).lines() {
                if tx.send(line).is_err() {
                    return;
                }
            }
            // End of input. Between samples the loop below ends the worker; in the middle of
            // one, nobody will ever read its outcome, and its threads may be stuck for good.
            if watching.load(Ordering::SeqCst) {
                orphan::end_group(ORPHANED);
            }
        })?;
    serve_lines(&catalog, broken, rx.into_iter(), output, &running)
}

/// Serves the worker protocol on `input`/`output` until end of input.
pub fn serve(
    catalog: &Catalog,
    input: impl BufRead,
    output: impl Write + Send,
) -> std::io::Result<()> {
    serve_lines(
        catalog,
        None,
        input.lines(),
        output,
        &AtomicBool::new(false),
    )
}

/// Serves the protocol over `lines`; `running` is set while a sample runs. `broken`: why the
/// worker cannot serve any trial (a plugin that would not load).
fn serve_lines(
    catalog: &Catalog,
    broken: Option<String>,
    mut lines: impl Iterator<Item = std::io::Result<String>>,
    output: impl Write + Send,
    running: &AtomicBool,
) -> std::io::Result<()> {
    let output = Mutex::new(output);
    let Some(first) = lines.next() else {
        return Ok(());
    };
    let spec: Result<TrialSpec, String> =
        serde_json::from_str(&first?).map_err(|e| format!("bad trial spec: {e}"));
    let entry = match broken {
        Some(why) => Err(why),
        None => spec.as_ref().map_err(Clone::clone).and_then(|s| {
            catalog
                .lookup(&s.transport)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
    };
    for line in lines {
        let line = line?;
        let outcome = match (&spec, &entry, serde_json::from_str::<SampleRequest>(&line)) {
            (Ok(spec), Ok(()), Ok(req)) => {
                running.store(true, Ordering::SeqCst);
                let reset = crate::memory::before_sample();
                let mut outcome =
                    with_heartbeat(&output, || crate::executor::run_sample(catalog, spec, req));
                outcome.memory = crate::memory::after_sample(reset);
                running.store(false, Ordering::SeqCst);
                outcome
            }
            (Err(e), _, _) | (_, Err(e), _) => {
                SampleOutcome::status_only(SampleStatus::Invalid(e.clone()), Placement::default())
            }
            (_, _, Err(e)) => SampleOutcome::status_only(
                SampleStatus::Invalid(format!("bad request: {e}")),
                Placement::default(),
            ),
        };
        let mut out = output.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(
            out,
            "{}",
            serde_json::to_string(&outcome).expect("outcome serialises")
        )?;
        out.flush()?;
    }
    Ok(())
}

/// Runs `sample` while a thread of its own writes a [`Heartbeat`] to `output` every
/// [`HEARTBEAT`]; the heartbeat thread has stopped when this returns.
fn with_heartbeat<W: Write + Send>(
    output: &Mutex<W>,
    sample: impl FnOnce() -> SampleOutcome,
) -> SampleOutcome {
    let progress = Arc::new(Progress::default());
    let (stop, stopped) = mpsc::channel::<()>();
    thread::scope(|scope| {
        let beating = progress.clone();
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(HEARTBEAT) {
                let beat = Heartbeat {
                    progress: beating.delivered.load(Ordering::Relaxed),
                };
                let line = serde_json::to_string(&beat).expect("a heartbeat serialises");
                let mut out = output.lock().unwrap_or_else(|e| e.into_inner());
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    // The parent is gone; the sample's own end will say so.
                    return;
                }
            }
        });
        let outcome = crew::watched(progress, sample);
        drop(stop);
        outcome
    })
}
