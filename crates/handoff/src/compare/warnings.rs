//! What makes a comparison less than clean, said loudly: the two sides ran on other machines or
//! builds, a matched result ran with other parameters, samples were placed differently, or the
//! machine changed regime during a run.

use crate::environment::Environment;
use crate::report::{RunReport, TrialResult};

/// The fingerprint fields that differ between two environments, as `field: a → b`. The tool's
/// own version and commit are not listed: comparing two builds is the point.
pub(crate) fn environments_differ(before: &Environment, after: &Environment) -> Vec<String> {
    let mut d = Vec::new();
    let mut field = |name: &str, a: String, b: String| {
        if a != b {
            d.push(format!("{name}: {a} → {b}"));
        }
    };
    // A label on one side only (an older report) says nothing about the other.
    if let (Some(a), Some(b)) = (&before.machine, &after.machine) {
        field("machine", a.clone(), b.clone());
    }
    field("CPU", before.cpu_model.clone(), after.cpu_model.clone());
    field(
        "logical CPUs",
        before.logical_cpus.to_string(),
        after.logical_cpus.to_string(),
    );
    field(
        "physical cores",
        before.physical_cores.to_string(),
        after.physical_cores.to_string(),
    );
    field("SMT", before.smt.to_string(), after.smt.to_string());
    field("kernel", before.kernel.clone(), after.kernel.clone());
    field("OS", before.os.clone(), after.os.clone());
    field(
        "virtualized",
        format!("{:?}", before.virtualized),
        format!("{:?}", after.virtualized),
    );
    field(
        "build profile",
        before.build_profile.clone(),
        after.build_profile.clone(),
    );
    field("compiler", before.rustc.clone(), after.rustc.clone());
    if d.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "the two runs ran on different environments ({}): a difference may be the machine's, not the change's",
            d.join("; ")
        )]
    }
}

/// How a matched result's measurement differed (messages per sample as asked, samples,
/// warm-up). Two `auto` counts calibrate to different numbers from run to run by design: that
/// is not a difference in what was asked.
pub(crate) fn params_differ(before: &TrialResult, after: &TrialResult) -> Vec<String> {
    let (b, a) = (&before.params, &after.params);
    let mut d = Vec::new();
    if b.messages_requested != a.messages_requested {
        d.push(format!(
            "messages/sample {} → {}",
            b.messages_requested, a.messages_requested
        ));
    }
    if b.samples != a.samples {
        d.push(format!("samples {} → {}", b.samples, a.samples));
    }
    if b.warmup != a.warmup {
        d.push(format!("warm-up {} → {}", b.warmup, a.warmup));
    }
    d
}

/// Whether the two runs placed their samples differently (fixed against random layouts).
pub(crate) fn layouts_differ(before: &RunReport, after: &RunReport) -> Vec<String> {
    let name = |r: &RunReport| match r.layout {
        Some(crate::layout::LayoutMode::Fixed) => "fixed",
        Some(crate::layout::LayoutMode::Random { .. }) => "random",
        None => "fixed (not recorded)",
    };
    let (b, a) = (name(before), name(after));
    if b == a {
        Vec::new()
    } else {
        vec![format!(
            "layouts differ ({b} → {a}): a fixed layout can hold a result in one regime that random layouts spread over both"
        )]
    }
}

/// A run in which several results were slow in the same rounds changed regime as a machine,
/// not per transport: a median from it depends on how long the machine stayed slow.
pub(crate) fn regimes(before: (&str, &RunReport), after: (&str, &RunReport)) -> Vec<String> {
    [before, after]
        .into_iter()
        .filter_map(|(side, r)| {
            let s = r.shared_regimes.as_ref()?;
            Some(format!(
                "the {side} run changed regime as a whole ({} slow in the same {} of {} rounds): its medians depend on when the machine was slow; repeat both runs, or compare transports within one interleaved run",
                s.labels.join(", "),
                s.slow_rounds.len(),
                s.rounds
            ))
        })
        .collect()
}
