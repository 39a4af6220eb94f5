//! Every default of a plan, in one place: what a trial gets for a key that neither the suite
//! file (its benchmark or its `[defaults]`) nor the command line sets.
//!
//! Defaults that depend on the workload (producer and consumer counts, the rate) are functions
//! of it here too.

use crate::payload::PayloadKind;
use crate::workload::WorkloadKind;

/// Timed samples.
pub(crate) const SAMPLES: usize = 5;
/// Warm-up samples.
pub(crate) const WARMUP: usize = 1;
/// Target duration of one `auto` sample, milliseconds.
pub(crate) const TARGET_MS: u64 = 40;
/// Lower bound of an `auto` message count.
pub(crate) const MIN_MESSAGES: u64 = 10_000;
/// Upper bound of an `auto` message count.
pub(crate) const MAX_MESSAGES: u64 = 20_000_000;
/// Capacity (ignored by unbounded transports).
pub(crate) const CAPACITY: usize = 1024;
/// The watchdog interval, milliseconds: a sample in which no message is delivered for this long
/// is declared hung (a slow sample that keeps delivering is not).
pub(crate) const TIMEOUT_MS: u64 = 10_000;
/// Payload.
pub(crate) const PAYLOAD: PayloadKind = PayloadKind::U64;
/// Threads are pinned to distinct cores where there are enough.
pub(crate) const PIN: bool = true;
/// The limit probes run before the trials.
pub(crate) const PROBES: bool = true;
/// Busy work per pipeline stage and event, nanoseconds.
pub(crate) const STAGE_WORK_NS: u64 = 0;
/// Busy work per fire of a pipeline's reactor, nanoseconds.
pub(crate) const REACTOR_WORK_NS: u64 = 0;
/// A pipeline's hop capacities (the reference scenario's).
pub(crate) const HOP_CAPACITIES: [usize; 3] = [64, 1024, 256];
/// The workload of an ad-hoc run that names none.
pub const WORKLOAD: WorkloadKind = WorkloadKind::Spsc;

/// Producer counts swept when none are given: 1, 2, 4, 8 for `mpsc` and `mpmc`, else 1.
pub(crate) fn producers(workload: WorkloadKind) -> Vec<usize> {
    match workload {
        WorkloadKind::Mpsc | WorkloadKind::Mpmc => vec![1, 2, 4, 8],
        _ => vec![1],
    }
}

/// Consumers when none are given: 2 for `mpmc`, else 1.
pub(crate) fn consumers(workload: WorkloadKind) -> usize {
    if workload == WorkloadKind::Mpmc {
        2
    } else {
        1
    }
}

/// The rate of an open-loop workload when none is given, messages per second: the pipeline
/// reference scenario's 1000, else 10 000.
pub(crate) fn rate(workload: WorkloadKind) -> u64 {
    if workload == WorkloadKind::Pipeline {
        1_000
    } else {
        10_000
    }
}

/// A soak's window when the suite gives none: 10 seconds.
pub(crate) const SOAK_WINDOW_MS: u64 = 10_000;
