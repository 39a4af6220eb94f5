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
//! mapped when it is created takes a handful of faults in a sample; one that first touches its
//! memory while measured, such as a ring whose slots are mapped on their first write, takes one
//! per page it reaches: every 64 messages of 64 bytes on a first lap. A fault costs the kernel's
//! entry, a page zeroed and a page-table update: on the order of a microsecond (about 2 µs on a
//! 2-vCPU KVM guest, from handoff-spsc mapping its ring while measured against handoff-spsc
//! mapping it when created, paired), less on bare metal. The lint prices a fault
//! at [`FAULT_NS`] and fires when the faults of the median sample, at that price, come to
//! [`FAULT_SHARE`] of its time or more, and number at least [`FAULTS_MIN`] (a handful taken
//! by a thread's first steps is no finding, however short the sample). It leaves the figure as
//! measured: the first lap is real for a user too, and a transport that writes its memory when
//! it is created pays for it before the window.
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

/// The price of a page fault the lint assumes, ns: the order of one (see the module docs).
pub(crate) const FAULT_NS: f64 = 1_000.0;

/// The share of a sample's time, faults priced at [`FAULT_NS`], from which it is flagged.
pub(crate) const FAULT_SHARE: f64 = 0.05;

/// Fewer faults than this in the median sample are not judged: a quarter of a MiB mapped.
pub(crate) const FAULTS_MIN: f64 = 64.0;

/// [`Lint::PageFaults`]: the median sample's page faults, at [`FAULT_NS`] each, are
/// [`FAULT_SHARE`] of its time or more, and at least [`FAULTS_MIN`].
pub(super) fn page_faults(r: &TrialResult) -> Option<Lint> {
    let per_msg = r.cpu.as_ref()?.page_faults_per_msg?;
    let rate = r.throughput.as_ref()?.median;
    if rate.is_nan() || rate <= 0.0 || per_msg * (r.params.messages as f64) < FAULTS_MIN {
        return None;
    }
    let ns_per_msg = 1e9 / rate;
    (per_msg * FAULT_NS >= FAULT_SHARE * ns_per_msg).then_some(Lint::PageFaults {
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
    use crate::lints::fixture::{stream, with_rates};
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

    /// A stream of `messages` per sample at `rate` msgs/s whose samples took `per_msg` page
    /// faults per message.
    fn with_faults(per_msg: Option<f64>, rate: f64, messages: u64) -> TrialResult {
        let mut r = with_rates(stream(), &[rate, rate, rate]);
        r.params.messages = messages;
        r.cpu = Some(handoff_model::cpu::CpuFigures {
            producer_cores: 1.0,
            consumer_cores: 1.0,
            ns_per_msg: 10.0,
            runtime_cores: 0.0,
            page_faults_per_msg: per_msg,
            samples: 3,
        });
        r
    }

    #[test]
    fn page_faults_worth_a_twentieth_of_the_time_at_a_microsecond_each_are_named() {
        // 100 M msgs/s: 10 ns a message, so from 0.5 ns of faults (one per 2000 messages).
        let fast = |per_msg| page_faults(&with_faults(per_msg, 100e6, 2_000_000));
        assert_eq!(fast(None), None);
        assert_eq!(fast(Some(0.0)), None);
        assert_eq!(fast(Some(0.000_49)), None);
        let lint = fast(Some(1.0 / 64.0)).expect("a fault every 64 messages");
        assert_eq!(lint.code(), "page-faults");
        let text = lint.to_string();
        assert!(
            text.starts_with(
                "page-faults: 15.6 page faults per 1000 messages (about 31.2 k in a sample of 2.00 M)"
            ),
            "{text}"
        );
        assert!(fast(Some(0.000_51)).is_some());
        // 1 M msgs/s: 1 µs a message, so from one fault per 20 messages.
        let slow = |per_msg| page_faults(&with_faults(Some(per_msg), 1e6, 2_000_000));
        assert_eq!(slow(1.0 / 64.0), None);
        assert!(slow(1.0 / 16.0).is_some());
    }

    #[test]
    fn a_handful_of_faults_in_a_short_sample_is_no_finding() {
        // Four faults in 2000 messages at 10 ns each would be a fifth of the time.
        let r = with_faults(Some(4.0 / 2000.0), 100e6, 2000);
        assert_eq!(page_faults(&r), None);
        let r = with_faults(Some(64.0 / 2000.0), 100e6, 2000);
        assert!(page_faults(&r).is_some());
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
