//! The worker process around the transport: [`Lint::MemoryGrowth`] and [`Lint::Printed`].
//!
//! **memory-growth.** After each timed sample the worker's resident set is read with the
//! sample's channel already dropped (see [`crate::memory`]). A transport in a steady state
//! returns to the same level after every sample; one that leaks climbs sample after sample.
//! The lint asks for both a trend and a size: at least two thirds of the steps from one sample to
//! the next rise by more than allocator noise ([`crate::memory::STEP_NOISE`]), and the resident
//! set after the last sample exceeds the one after the first by at least [`GROWTH_MIN`] and by
//! at least [`GROWTH_SHARE`] of it. With fewer than three timed samples there is no trend to
//! judge.
//!
//! **page-faults.** The process's page faults are counted over each timed sample (minor and
//! major, every thread's; not for a sample across two processes). A transport whose memory is
//! mapped when it is created takes a handful of faults in a sample (thread stacks, the odd
//! allocation); one that first touches its memory while measured, such as a ring whose slots are
//! mapped on their first write, takes one per page it reaches: every 64 messages of 64 bytes on
//! a first lap. A fault costs the kernel's entry, a page zeroed and a page-table update, on the
//! order of a microsecond (more on a virtual machine), so from [`FAULTS_PER_MSG`], one per
//! thousand messages, the faults are on the order of a nanosecond a message: a large share of
//! a fast hand-off's cost, and one a transport that writes its memory when created pays before
//! the window. The lint says so and leaves the figure as measured: the first lap is real for a
//! user too.
//!
//! **printed.** A transport that prints while it runs pays for the formatting and the write on
//! its hot path, and what it prints is usually a leftover. What it printed is kept with the
//! result; the lint says how much and shows the first line.

use super::Lint;
use crate::report::TrialResult;

/// Growth from the first timed sample to the last below this is not judged: 8 MiB.
pub(crate) const GROWTH_MIN: u64 = 8 << 20;

/// Growth below this share of the resident set after the first sample is not judged.
pub(crate) const GROWTH_SHARE: f64 = 0.10;

/// [`Lint::MemoryGrowth`]: the worker's resident set grew sample after sample.
pub(super) fn growth(r: &TrialResult) -> Option<Lint> {
    let m = r.memory.as_ref()?;
    if m.steps < 2 || m.rising_steps * 3 < m.steps * 2 {
        return None;
    }
    let grown = m.last_after.checked_sub(m.first_after)?;
    if grown < GROWTH_MIN || (grown as f64) < GROWTH_SHARE * m.first_after as f64 {
        return None;
    }
    Some(Lint::MemoryGrowth {
        per_sample_bytes: m.growth_per_sample,
        first_bytes: m.first_after,
        last_bytes: m.last_after,
        samples: m.steps + 1,
    })
}

/// Page faults per message from which a trial is flagged `page-faults`: one per thousand.
pub(crate) const FAULTS_PER_MSG: f64 = 1e-3;

/// [`Lint::PageFaults`]: the timed samples took page faults at [`FAULTS_PER_MSG`] or more.
pub(super) fn page_faults(r: &TrialResult) -> Option<Lint> {
    let per_msg = r.cpu.as_ref()?.page_faults_per_msg?;
    (per_msg >= FAULTS_PER_MSG).then_some(Lint::PageFaults {
        per_msg,
        messages: r.params.messages,
    })
}

/// [`Lint::Printed`]: the transport printed while the trial ran.
pub(super) fn printed(r: &TrialResult) -> Option<Lint> {
    let p = r.printed.as_ref().filter(|p| !p.is_empty())?;
    Some(Lint::Printed {
        lines: p.lines,
        bytes: p.bytes,
        first: p.head.first().cloned().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Printed;
    use crate::lints::fixture::stream;
    use crate::memory::{MemoryFigures, SampleMemory};

    fn with_memory(after_mib: &[u64]) -> TrialResult {
        let mut r = stream();
        let samples: Vec<SampleMemory> = after_mib
            .iter()
            .map(|m| SampleMemory {
                peak: (m + 2) << 20,
                after: m << 20,
                peak_is_lifetime: false,
            })
            .collect();
        r.memory = MemoryFigures::of(&samples);
        r
    }

    fn with_faults(per_msg: Option<f64>) -> TrialResult {
        let mut r = stream();
        r.cpu = Some(handoff_model::cpu::CpuFigures {
            producer_cores: 1.0,
            consumer_cores: 1.0,
            ns_per_msg: 10.0,
            runtime_cores: 0.0,
            page_faults_per_msg: per_msg,
            samples: 5,
        });
        r
    }

    #[test]
    fn page_faults_from_one_per_thousand_messages_are_named() {
        assert_eq!(page_faults(&with_faults(None)), None);
        assert_eq!(page_faults(&with_faults(Some(0.0))), None);
        assert_eq!(page_faults(&with_faults(Some(0.000_9))), None);
        let r = with_faults(Some(1.0 / 64.0));
        let lint = page_faults(&r).expect("a fault every 64 messages");
        assert_eq!(lint.code(), "page-faults");
        let text = lint.to_string();
        assert!(
            text.starts_with("page-faults: 15.6 page faults per 1000 messages"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "in a sample of {}",
                handoff_model::fmt::count(r.params.messages)
            )),
            "{text}"
        );
    }

    #[test]
    fn a_leak_is_named() {
        let lint = growth(&with_memory(&[40, 60, 80, 100, 120])).expect("a leak");
        let Lint::MemoryGrowth {
            per_sample_bytes,
            samples,
            ..
        } = &lint
        else {
            panic!("{lint:?}")
        };
        assert_eq!(*samples, 5);
        assert!((per_sample_bytes - (20 << 20) as f64).abs() < 1.0);
        assert!(lint.to_string().contains("20.0 MiB per sample"), "{lint}");
    }

    #[test]
    fn a_steady_or_small_or_short_record_is_not() {
        assert_eq!(growth(&with_memory(&[40, 41, 40, 41, 40])), None);
        // Rising every time, but by too little in all.
        assert_eq!(growth(&with_memory(&[100, 102, 104, 106, 107])), None);
        // A single jump is not a trend.
        assert_eq!(growth(&with_memory(&[40, 40, 40, 40, 200])), None);
        assert_eq!(growth(&with_memory(&[40, 200])), None);
        assert_eq!(growth(&stream()), None);
    }

    #[test]
    fn printing_is_named_with_its_first_line() {
        let mut r = stream();
        assert_eq!(printed(&r), None);
        let mut p = Printed::default();
        p.push("got message 1");
        p.push("got message 2");
        r.printed = Some(p);
        let lint = printed(&r).expect("printed");
        assert_eq!(lint.code(), "printed");
        assert!(lint.to_string().contains("2 lines"), "{lint}");
        assert!(lint.to_string().contains("got message 1"), "{lint}");
    }
}
