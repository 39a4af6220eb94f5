//! The range of every parameter, and the limits on the size of a plan, in one place.
//!
//! Every bound is checked when the plan is built, before anything runs: a value outside its
//! range is an input error with the file, line and column where it was written (or the flag that
//! gave it), never a panic or an allocation failure in a worker. The ranges of single values are
//! carried by their types ([`super::value::Int`]); the limits that depend on several values (how
//! many trials a suite expands to, how much memory a trial's ring and verifier need) are checked
//! by the builder. `docs/suites.md` lists them all ("Bounds").
//!
//! Memory is checked against a budget: half of the machine's physical memory as
//! `/proc/meminfo` gives it (`MemTotal`), or [`FALLBACK_MEMORY`] where it cannot be read. The
//! figures checked are what a trial allocates up front whatever the transport does: the ring
//! (capacity × message size) and the verifier's bitmap (one bit per message per consumer, where
//! order cannot be checked by counting).

use handoff_model::fmt;

/// The most trials a plan may expand to unless the command line raises it (`--max-trials`).
pub(crate) const MAX_TRIALS: u64 = 10_000;
/// The highest `--max-trials` accepted.
pub(crate) const MAX_TRIALS_CEILING: u64 = 1_000_000;
/// Timed samples per trial: 1 to this.
pub(crate) const MAX_SAMPLES: u64 = 10_000;
/// Warm-up samples per trial: 0 to this.
pub(crate) const MAX_WARMUP: u64 = 1_000;
/// The watchdog interval (`timeout_ms`): 1 ms to one hour.
pub(crate) const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// An `auto` sample's target duration (`target_ms`): 1 ms to one minute.
pub(crate) const MAX_TARGET_MS: u64 = 60_000;
/// Messages per sample (and `min_messages`, `max_messages`): what the 48-bit sequence number of
/// a message header can count, 2^48 − 1.
pub(crate) const MAX_MESSAGES: u64 = crate::message::MAX_SEQ;
/// A capacity (and a hop's): 2^32 slots, and within the memory budget.
pub(crate) const MAX_CAPACITY: u64 = 1 << 32;
/// Producers, consumers, and a tokio multi-thread runtime's workers: each 1 to this.
pub(crate) const MAX_THREADS: u64 = handoff_model::workload::MAX_THREADS;
/// A batch size: 1 to 2^20 messages.
pub(crate) const MAX_BATCH: u64 = 1 << 20;
/// An open-loop rate and a ramp's `start` and `max`: 1 to 10^9 messages per second.
pub(crate) const MAX_RATE: u64 = 1_000_000_000;
/// A pipeline stage's busy work per event (`stage_work_ns`): 0 to one second.
pub(crate) const MAX_STAGE_WORK_NS: u64 = 1_000_000_000;
/// The hops of a pipeline: 1 to this.
pub(crate) const MAX_HOPS: usize = 64;
/// A ramp's `factor`: 2 to this.
pub(crate) const MAX_RAMP_FACTOR: u64 = 1_000;
/// A ramp's `refine` (bisection steps): 0 to this.
pub(crate) const MAX_REFINE: u64 = 20;
/// A ramp's `step_ms`: 1 ms to one minute.
pub(crate) const MAX_STEP_MS: u64 = 60_000;
/// A ramp's `p99_bound_us`: 1 µs to one minute (0 could never be met).
pub(crate) const MAX_P99_BOUND_US: u64 = 60_000_000;
/// A suite's `name`: at most this many characters (kept with every run of the suite).
pub(crate) const MAX_NAME_CHARS: usize = handoff_model::foreign::NAME_CHARS;
/// A suite's `description`: at most this many characters.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = handoff_model::foreign::DESCRIPTION_CHARS;
/// The memory budget where the machine's memory cannot be read: 4 GiB.
pub(crate) const FALLBACK_MEMORY: u64 = 4 << 30;

/// The limits a plan is built under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most trials the plan may expand to.
    pub max_trials: u64,
    /// The most memory a trial may allocate up front (ring and verifier), bytes.
    pub memory: u64,
    /// Where `memory` comes from, for errors ("half of this machine's 16 GB").
    pub memory_source: String,
}

impl Limits {
    /// The default trial limit and this machine's memory budget.
    pub fn machine() -> Limits {
        let (memory, memory_source) = match total_memory() {
            Some(total) => (
                total / 2,
                format!("half of this machine's {} of memory", size(total)),
            ),
            None => (
                FALLBACK_MEMORY,
                "this machine's memory could not be read".to_string(),
            ),
        };
        Limits {
            max_trials: MAX_TRIALS,
            memory,
            memory_source,
        }
    }

    /// Fixed limits, for tests and for tools that know their machine.
    pub fn fixed(max_trials: u64, memory: u64) -> Limits {
        Limits {
            max_trials,
            memory,
            memory_source: "the budget given".into(),
        }
    }

    /// "the memory budget is 8.2 GB (half of this machine's 16.4 GB of memory)".
    pub(crate) fn memory_budget(&self) -> String {
        format!(
            "the memory budget is {} ({})",
            size(self.memory),
            self.memory_source
        )
    }
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`), if it can be read.
pub(crate) fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// A size in bytes, in decimal units: `125 GB`, `4.29 GB`, `512 B`.
pub(crate) fn size(bytes: u64) -> String {
    let s = fmt::si(bytes as f64);
    if s.ends_with(|c: char| c.is_ascii_digit()) {
        format!("{s} B")
    } else {
        format!("{s}B")
    }
}

/// Bytes of the verifier's bitmaps: one bit per message for each of `consumers` verifiers.
pub(crate) fn bitmap_bytes(messages: u64, consumers: u64) -> u128 {
    u128::from(messages.div_ceil(64)) * 8 * u128::from(consumers)
}

/// `n` with a comma every three digits: `12,960,000`.
pub(crate) fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A soak's `duration`: one second to one day.
pub(crate) const SOAK_MS: (u64, u64) = (1_000, 86_400_000);
/// A soak's `window`: 100 ms to one hour.
pub(crate) const WINDOW_MS: (u64, u64) = (100, 3_600_000);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       16384000 kB\nMemFree:         1000 kB\n";
        assert_eq!(parse_meminfo(text), Some(16_384_000 * 1024));
        assert_eq!(parse_meminfo("MemFree: 3 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: lots kB\n"), None);
        // Where it can be read, the budget is half of it.
        if let Some(total) = total_memory() {
            assert_eq!(Limits::machine().memory, total / 2);
        }
    }

    #[test]
    fn numbers_are_written_for_people() {
        assert_eq!(thousands(12_960_000), "12,960,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(size(125_000_000_000), "125 GB");
        assert_eq!(size(512), "512 B");
        assert_eq!(bitmap_bytes(1_000_000_000_000, 1), 125_000_000_000);
        assert_eq!(bitmap_bytes(1, 2), 16);
    }
}
