//! The CPU time of a sample's threads: each member of a [`Crew`](super::crew::Crew) that is on a
//! side reads its own thread's CPU clock (user + system time, `CLOCK_THREAD_CPUTIME_ID`) as it
//! leaves the start line and once more when its work returns, and adds the difference to its
//! side's total in a [`CpuTally`]. Both reads are outside the per-message path.
//!
//! Only the harness's own threads are counted: a transport's background threads are not. Under
//! a tokio driver the tasks of both sides share the runtime's threads, so the conductor reads
//! those threads' clocks (another thread's CPU clock, through `pthread_getcpuclockid`) when it
//! opens the start gate and when every task has finished, and adds the difference as the
//! runtime's time ([`CpuTally::add_runtime`]), not split by side.

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

/// The CPU clock of the calling thread, which any thread of the process can read while this one
/// lives ([`ThreadClock::read`]); `None` where the system has none.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThreadClock(#[cfg(target_os = "linux")] libc::clockid_t);

impl ThreadClock {
    /// The calling thread's CPU clock.
    #[cfg(target_os = "linux")]
    pub(crate) fn of_this_thread() -> Option<ThreadClock> {
        let mut id: libc::clockid_t = 0;
        // SAFETY: `pthread_self` is the calling thread, alive during the call; `id` is a valid,
        // writable `clockid_t` owned by this frame.
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
        (rc == 0).then_some(ThreadClock(id))
    }

    /// The calling thread's CPU clock: not available on this system.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn of_this_thread() -> Option<ThreadClock> {
        None
    }

    /// The clock's thread's CPU time so far, ns; `None` once that thread has exited (its
    /// clock is then invalid) or where it cannot be read.
    #[cfg(target_os = "linux")]
    pub(crate) fn read(self) -> Option<u64> {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable `timespec` owned by this frame; an id of a thread
        // that has exited makes the call fail with EINVAL, never read elsewhere.
        let rc = unsafe { libc::clock_gettime(self.0, &mut ts) };
        if rc != 0 {
            return None;
        }
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u64::try_from(ts.tv_nsec).ok()?;
        secs.checked_mul(1_000_000_000)?.checked_add(nanos)
    }

    /// Not available on this system.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn read(self) -> Option<u64> {
        None
    }
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
    /// An async runtime's threads, both sides' tasks together.
    runtime_ns: AtomicU64,
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

    /// Adds the CPU time an async runtime's threads spent running both sides' tasks, read at
    /// the start and the end of the sample; a missing read spoils the sample's figure.
    pub fn add_runtime(&self, ns: Option<u64>) {
        let Some(ns) = ns else {
            self.failed.store(true, Ordering::Relaxed);
            return;
        };
        self.runtime_ns.fetch_add(ns, Ordering::Relaxed);
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
            runtime_ns: self.runtime_ns.load(Ordering::Relaxed),
            // Counted for the whole process, by the sample's skeleton (`faults.rs`).
            page_faults: None,
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
                consumer_ns: 12,
                runtime_ns: 0,
                page_faults: None,
            })
        );
        t.add(Side::Producer, None, Some(1));
        assert_eq!(t.record(), None);
    }

    /// The conductor reads a runtime thread's clock from outside it: it moves while that thread
    /// works.
    #[cfg(target_os = "linux")]
    #[test]
    fn another_thread_s_clock_is_read_while_it_lives() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            tx.send(ThreadClock::of_this_thread().expect("a clock"))
                .unwrap();
            let mut x = 0u64;
            while stop_rx.try_recv().is_err() {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            x
        });
        let clock = rx.recv().unwrap();
        let start = clock.read().expect("readable while it runs");
        while clock.read().expect("readable while it runs") < start + 1_000_000 {
            std::thread::yield_now();
        }
        stop_tx.send(()).unwrap();
        worker.join().unwrap();
        let t = CpuTally::default();
        t.add_runtime(Some(7));
        t.add(Side::Producer, Some(1), Some(2));
        assert_eq!(
            t.record().map(|c| (c.runtime_ns, c.total_ns())),
            Some((7, 8))
        );
        t.add_runtime(None);
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
