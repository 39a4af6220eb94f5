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
//! * while the sample runs, a **heartbeat** every [`HEARTBEAT`]: `{"progress": D}`
//!   ([`Heartbeat`]), `D` the messages (round trips) delivered so far in the sample, as its
//!   consumers last published them (see [`crate::engine::crew`]);
//! * last, the sample's [`SampleOutcome`]. No heartbeat follows it.
//!
//! The sample's own watchdog, in the worker, reports a sample in which nothing is delivered for
//! the watchdog interval as `hung`. The parent judges the heartbeats the same way: it waits as
//! long as `D` keeps moving, and kills the worker when `D` has not moved, or no line has come at
//! all, for the interval plus [`GRACE`] (a worker stuck as a whole, whose own watchdog cannot
//! answer). A slow sample that keeps delivering is never cut off.
//!
//! Anything a transport prints goes to standard error, which the parent keeps for crash reports;
//! standard output carries only protocol lines.

use crate::catalog::Catalog;
use crate::engine::crew::{self, Progress};
use crate::executor::SampleRequest;
pub use crate::executor::{Heartbeat, GRACE};
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How often a worker reports the progress of the sample it is running.
pub const HEARTBEAT: Duration = Duration::from_millis(500);

/// Serves the worker protocol on `input`/`output` until end of input.
pub fn serve(
    catalog: &Catalog,
    input: impl BufRead,
    output: impl Write + Send,
) -> std::io::Result<()> {
    let output = Mutex::new(output);
    let mut lines = input.lines();
    let Some(first) = lines.next() else {
        return Ok(());
    };
    let spec: Result<TrialSpec, String> =
        serde_json::from_str(&first?).map_err(|e| format!("bad trial spec: {e}"));
    let entry = spec
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|s| catalog.lookup(&s.transport).map(|_| ()));
    for line in lines {
        let line = line?;
        let outcome = match (&spec, &entry, serde_json::from_str::<SampleRequest>(&line)) {
            (Ok(spec), Ok(()), Ok(req)) => {
                with_heartbeat(&output, || crate::executor::run_sample(catalog, spec, req))
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
