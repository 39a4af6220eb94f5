//! The calibrated clock every thread of an open-loop sample shares.
//!
//! Between threads of one process it reads the CPU's time-stamp counter where it is invariant
//! (through `quanta`, which calibrates it against the OS clock once and falls back to the OS
//! monotonic clock where the counter is not reliable), so a read costs a few nanoseconds instead
//! of a system call. Every thread of a sample uses clones of one `Clock`, hence one calibration
//! and one epoch: a stamp taken on one core and a read taken on another are on the same scale.
//!
//! Between two processes each would calibrate its own `quanta` clock, and two calibrations
//! disagree by a few parts per million: microseconds over a run, more than the latencies
//! measured. A sample that crosses processes therefore reads a `SharedClock` that one process
//! defines and hands to the other: the time-stamp counter itself, with one calibration, where
//! the counter is invariant and the kernel keeps it synchronised across CPUs (its clock source is
//! `tsc`); otherwise `CLOCK_MONOTONIC`, which every process reads on the kernel's one scale, a
//! little dearer per read. The run's environment records the kernel's clock source, and the
//! sample's measured timing overhead is that of the clock it read.

use crate::histogram;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A clock reading nanoseconds since an epoch shared by its clones.
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    source: Source,
    epoch: u64,
}

/// What a [`Clock`] reads.
#[derive(Clone, Debug)]
enum Source {
    /// `quanta`'s calibrated clock (one process).
    Quanta(quanta::Clock),
    /// The time-stamp counter, scaled by `scale_q32 / 2^32` nanoseconds per tick.
    Tsc { scale_q32: u64 },
    /// `CLOCK_MONOTONIC`.
    Monotonic,
}

impl Clock {
    /// A clock whose epoch is now.
    pub fn start() -> Clock {
        let inner = quanta::Clock::new();
        let epoch = inner.raw();
        Clock {
            source: Source::Quanta(inner),
            epoch,
        }
    }

    /// The clock two processes read alike, as [`SharedClock`] defines it.
    pub fn shared(def: SharedClock) -> Clock {
        Clock {
            source: match def.tsc_scale_q32 {
                Some(scale_q32) => Source::Tsc { scale_q32 },
                None => Source::Monotonic,
            },
            epoch: def.epoch,
        }
    }

    /// Nanoseconds since the epoch.
    #[inline(always)]
    pub(crate) fn now_ns(&self) -> u64 {
        match &self.source {
            Source::Quanta(inner) => inner.delta_as_nanos(self.epoch, inner.raw()),
            Source::Tsc { scale_q32 } => {
                let ticks = tsc().saturating_sub(self.epoch);
                ((ticks as u128 * *scale_q32 as u128) >> 32) as u64
            }
            Source::Monotonic => monotonic_ns().saturating_sub(self.epoch),
        }
    }
}

/// A clock two processes read on one scale and from one epoch: what one process defines
/// ([`SharedClock::define`]) and sends the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SharedClock {
    /// Nanoseconds per tick of the time-stamp counter × 2^32; `None`: `CLOCK_MONOTONIC`.
    pub tsc_scale_q32: Option<u64>,
    /// The epoch, in the source's own units (ticks or nanoseconds).
    pub epoch: u64,
}

impl SharedClock {
    /// The shared clock of this machine, its epoch now: the time-stamp counter where
    /// [`tsc_is_shared`] says so, else `CLOCK_MONOTONIC`.
    pub fn define() -> SharedClock {
        match tsc_calibration() {
            Some(scale_q32) => SharedClock {
                tsc_scale_q32: Some(scale_q32),
                epoch: tsc(),
            },
            None => SharedClock {
                tsc_scale_q32: None,
                epoch: monotonic_ns(),
            },
        }
    }
}

/// Whether every process and CPU of the machine `env` describes reads one time-stamp counter:
/// an x86-64 CPU that says the counter is invariant (`constant_tsc` and `nonstop_tsc`), and a
/// kernel that uses it as its clock source (the kernel checks at boot, and keeps watching, that
/// the counters of all CPUs agree).
fn tsc_is_shared(env: &crate::environment::Environment) -> bool {
    cfg!(target_arch = "x86_64")
        && env.invariant_tsc == Some(true)
        && env.clock_source.as_deref() == Some("tsc")
}

/// This process's calibration of the time-stamp counter (nanoseconds per tick × 2^32), if
/// [`tsc_is_shared`]; measured once, over 20 ms of `CLOCK_MONOTONIC`, off any timed path.
fn tsc_calibration() -> Option<u64> {
    static SCALE: OnceLock<Option<u64>> = OnceLock::new();
    *SCALE.get_or_init(|| {
        if !tsc_is_shared(&crate::environment::detect()) {
            return None;
        }
        // Each counter reading sits between two clock readings; the midpoint is its moment.
        let pair = || {
            let a = monotonic_ns();
            let t = tsc();
            let b = monotonic_ns();
            (a + (b - a) / 2, t)
        };
        let (ns0, t0) = pair();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (ns1, t1) = pair();
        let ticks = t1.checked_sub(t0).filter(|&t| t > 0)?;
        Some((((ns1 - ns0) as u128) << 32).checked_div(ticks as u128)? as u64)
    })
}

/// The time-stamp counter now (0 where there is none; never read then).
#[inline(always)]
fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads the counter.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// `CLOCK_MONOTONIC` now, in nanoseconds: the clock every process of the machine reads alike.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given; CLOCK_MONOTONIC always exists on
    // Linux.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

pub use handoff_model::open_loop::Overhead;

/// Measures [`Overhead`] with `iterations` back-to-back reads and records (outside any timed
/// region; about a millisecond for 20 000 iterations).
pub(crate) fn measure_overhead(clock: &Clock, iterations: u64) -> Overhead {
    let n = iterations.max(1);
    let t0 = clock.now_ns();
    let mut sink = 0u64;
    for _ in 0..n {
        sink = sink.wrapping_add(std::hint::black_box(clock.now_ns()));
    }
    let t1 = clock.now_ns();
    std::hint::black_box(sink);
    let mut a = histogram::new();
    let mut b = histogram::new();
    let mut prev = clock.now_ns();
    let t2 = prev;
    for _ in 0..n {
        let now = clock.now_ns();
        histogram::record(&mut a, now.wrapping_sub(prev) + 100);
        histogram::record(&mut b, now.wrapping_sub(prev) + 50);
        prev = now;
    }
    let t3 = clock.now_ns();
    std::hint::black_box((&a, &b));
    Overhead {
        clock_read_ns: t1.saturating_sub(t0) as f64 / n as f64,
        stamp_and_record_ns: t3.saturating_sub(t2) as f64 / n as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_monotonic_and_shared_by_clones() {
        let c = Clock::start();
        let d = c.clone();
        let a = c.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = d.now_ns();
        assert!(b >= a + 1_000_000, "{a} -> {b}");
    }

    #[test]
    fn a_shared_clock_reads_alike_from_its_definition() {
        let def = SharedClock::define();
        let (a, b) = (Clock::shared(def), Clock::shared(def));
        let t0 = a.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let t1 = b.now_ns();
        assert!(t1 >= t0 + 1_000_000, "{t0} -> {t1}");
        // The choice follows the machine's own answer.
        let shared = tsc_is_shared(&crate::environment::detect());
        assert_eq!(def.tsc_scale_q32.is_some(), shared);
    }

    /// The counter is read across processes only where the CPU says it is invariant and the
    /// kernel keeps it as its clock source.
    #[test]
    fn the_counter_is_shared_only_where_cpu_and_kernel_both_vouch_for_it() {
        let with = |invariant: Option<bool>, source: Option<&str>| {
            let mut env = crate::environment::detect();
            env.invariant_tsc = invariant;
            env.clock_source = source.map(str::to_string);
            tsc_is_shared(&env)
        };
        assert_eq!(with(Some(true), Some("tsc")), cfg!(target_arch = "x86_64"));
        assert!(!with(Some(true), Some("kvm-clock")));
        assert!(!with(Some(true), None));
        assert!(!with(Some(false), Some("tsc")));
        assert!(!with(None, Some("tsc")));
    }

    #[test]
    fn overhead_is_measured() {
        // Both loops read the clock at least once per iteration, so neither can take zero time;
        // how they compare is a timing question, left to benchmarks (a preempted loop can take
        // any time at all).
        let o = measure_overhead(&Clock::start(), 1000);
        assert!(o.clock_read_ns > 0.0, "{o:?}");
        assert!(o.stamp_and_record_ns > 0.0, "{o:?}");
    }
}
