//! The worker side of the child-process protocol.
//!
//! The parent writes one line holding the [`TrialSpec`] as JSON, then one line per sample,
//! `{"messages": N}` (open-loop trials may add `"rate": R`, messages per second, which overrides
//! the trial's rate for that sample; `"layout": S` runs the sample under the placement of seed
//! `S`, see [`crate::layout`]); the worker answers each with one line holding the [`SampleOutcome`] as
//! JSON. End of input ends the worker. Anything a transport prints goes to standard error, which
//! the parent keeps for crash reports; standard output carries only protocol lines.

use crate::catalog::Catalog;
use crate::executor::SampleRequest;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use std::io::{BufRead, Write};

/// Serves the worker protocol on `input`/`output` until end of input.
pub fn serve(
    catalog: &Catalog,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
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
            (Ok(spec), Ok(()), Ok(req)) => crate::executor::run_sample(catalog, spec, req),
            (Err(e), _, _) | (_, Err(e), _) => {
                SampleOutcome::status_only(SampleStatus::Invalid(e.clone()), Placement::default())
            }
            (_, _, Err(e)) => SampleOutcome::status_only(
                SampleStatus::Invalid(format!("bad request: {e}")),
                Placement::default(),
            ),
        };
        writeln!(
            output,
            "{}",
            serde_json::to_string(&outcome).expect("outcome serialises")
        )?;
        output.flush()?;
    }
    Ok(())
}
