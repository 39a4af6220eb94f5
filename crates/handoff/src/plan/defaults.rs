//! Every default of a plan, in one place: what a trial gets for a key that neither the suite
//! file (its benchmark or its `[defaults]`) nor the command line sets.
//!
//! Defaults that depend on the workload (producer and consumer counts, the rate) are functions
//! of it here too.

use crate::payload::PayloadKind;
use crate::workload::WorkloadKind;

/// Timed samples.
pub const SAMPLES: usize = 5;
/// Warm-up samples.
pub const WARMUP: usize = 1;
/// Target duration of one `auto` sample, milliseconds.
pub const TARGET_MS: u64 = 40;
/// Lower bound of an `auto` message count.
pub const MIN_MESSAGES: u64 = 10_000;
/// Upper bound of an `auto` message count.
pub const MAX_MESSAGES: u64 = 20_000_000;
/// Capacity (ignored by unbounded transports).
pub const CAPACITY: usize = 1024;
/// The watchdog interval, milliseconds: a sample in which no message is delivered for this long
/// is declared hung (a slow sample that keeps delivering is not).
pub const TIMEOUT_MS: u64 = 10_000;
/// Payload.
pub const PAYLOAD: PayloadKind = PayloadKind::U64;
/// Threads are pinned to distinct cores where there are enough.
pub const PIN: bool = true;
/// The limit probes run before the trials.
pub const PROBES: bool = true;
/// Busy work per pipeline stage and event, nanoseconds.
pub const STAGE_WORK_NS: u64 = 0;
/// A pipeline's hop capacities (the reference scenario's).
pub const HOP_CAPACITIES: [usize; 3] = [64, 1024, 256];
/// The workload of an ad-hoc run that names none.
pub const WORKLOAD: WorkloadKind = WorkloadKind::Spsc;

/// Producer counts swept when none are given: 1, 2, 4, 8 for `mpsc` and `mpmc`, else 1.
pub fn producers(workload: WorkloadKind) -> Vec<usize> {
    match workload {
        WorkloadKind::Mpsc | WorkloadKind::Mpmc => vec![1, 2, 4, 8],
        _ => vec![1],
    }
}

/// Consumers when none are given: 2 for `mpmc`, else 1.
pub fn consumers(workload: WorkloadKind) -> usize {
    if workload == WorkloadKind::Mpmc {
        2
    } else {
        1
    }
}

/// The rate of an open-loop workload when none is given, messages per second: the pipeline
/// reference scenario's 1000, else 10 000.
pub fn rate(workload: WorkloadKind) -> u64 {
    if workload == WorkloadKind::Pipeline {
        1_000
    } else {
        10_000
    }
}
