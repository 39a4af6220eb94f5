//! The CPU time of a sample's threads: each member of a [`Crew`](super::crew::Crew) that is on a
//! side reads its own thread's CPU clock (user + system time, `CLOCK_THREAD_CPUTIME_ID`) as it
//! leaves the start line and once more when its work returns, and adds the difference to its
//! side's total in a [`CpuTally`]. Both reads are outside the per-message path.
//!
//! Only the harness's own threads are counted: a transport's background threads, and the
//! runtime threads of an async driver, are not (their members are spawned without a side, and
//! the sample records no figure).

use crate::outcome::SampleCpu;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Which side of the hand-off a member's CPU time counts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// A producer (a pinger, an injector).
    Producer,
    /// A consumer (a ponger, a pipeline stage, a sink).
    Consumer,
}

/// The CPU time of this thread so far (user + system), ns; `None` where the system has no
/// per-thread CPU clock or refuses to read it.
#[cfg(unix)]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec` owned by this frame, and `clock_gettime`
    // writes only into it; `CLOCK_THREAD_CPUTIME_ID` names the calling thread's CPU clock.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u64::try_from(ts.tv_nsec).ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// The CPU time of this thread so far: not measured on this system.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    None
}

/// The CPU time of one sample's members, per side, added up as they finish.
///
/// Aligned to two cache lines, like the crew's progress, so that its few writes (one per member,
/// at the end of its work) never share a line with a transport's allocation.
#[derive(Default, Debug)]
#[repr(align(128))]
pub(crate) struct CpuTally {
    producer_ns: AtomicU64,
    consumer_ns: AtomicU64,
    /// Members whose CPU time was added.
    measured: AtomicU64,
    /// A member on a side could not read its clock: the sample's figure would be partial.
    failed: AtomicBool,
}

impl CpuTally {
    /// Adds the CPU time a member on `side` spent between its reads `start` and `end` (from
    /// [`thread_cpu_ns`]); a missing read spoils the sample's figure.
    pub fn add(&self, side: Side, start: Option<u64>, end: Option<u64>) {
        let (Some(start), Some(end)) = (start, end) else {
            self.failed.store(true, Ordering::Relaxed);
            return;
        };
        let total = match side {
            Side::Producer => &self.producer_ns,
            Side::Consumer => &self.consumer_ns,
        };
        total.fetch_add(end.saturating_sub(start), Ordering::Relaxed);
        self.measured.fetch_add(1, Ordering::Relaxed);
    }

    /// The sample's CPU record, once every member has reported: `None` if no member was
    /// measured or any member's clock could not be read.
    pub fn record(&self) -> Option<SampleCpu> {
        if self.failed.load(Ordering::Relaxed) || self.measured.load(Ordering::Relaxed) == 0 {
            return None;
        }
        Some(SampleCpu {
            producer_ns: self.producer_ns.load(Ordering::Relaxed),
            consumer_ns: self.consumer_ns.load(Ordering::Relaxed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_adds_each_side_and_a_missing_read_spoils_it() {
        let t = CpuTally::default();
        assert_eq!(t.record(), None, "nothing measured");
        t.add(Side::Producer, Some(10), Some(40));
        t.add(Side::Consumer, Some(5), Some(10));
        t.add(Side::Consumer, Some(0), Some(7));
        assert_eq!(
            t.record(),
            Some(SampleCpu {
                producer_ns: 30,
                consumer_ns: 12
            })
        );
        t.add(Side::Producer, None, Some(1));
        assert_eq!(t.record(), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_thread_clock_moves_while_the_thread_works() {
        let start = thread_cpu_ns().expect("a thread CPU clock");
        let mut x = 0u64;
        while thread_cpu_ns().expect("a thread CPU clock") < start + 1_000_000 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(x > 0);
    }
}
