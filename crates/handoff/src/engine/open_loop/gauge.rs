//! The depth of each hop of an open-loop sample, counted by the harness rather than asked of the
//! transport: each hop's writers publish how many they sent and its readers how many they
//! received, each on a cache line of its own; depth is the difference.

use crossbeam_utils::CachePadded;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

/// Counters of one hop.
pub(super) struct Gauge {
    /// One per writer (injector or stage).
    pub sent: Vec<CachePadded<AtomicU64>>,
    /// One per reader (stage or sink; several sinks in a fan-out).
    pub received: Vec<CachePadded<AtomicU64>>,
}

impl Gauge {
    /// The counters of a hop with `writers` writers and `readers` readers, all at zero.
    pub fn new(writers: usize, readers: usize) -> Gauge {
        let counters = |n| {
            (0..n)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect()
        };
        Gauge {
            sent: counters(writers),
            received: counters(readers),
        }
    }

    /// Messages every reader has received (a broadcast hop holds a message until its slowest
    /// reader has taken it).
    pub fn received(&self) -> u64 {
        self.received
            .iter()
            .map(|r| r.load(AtomicOrdering::Relaxed))
            .min()
            .unwrap_or(0)
    }

    /// Messages its writers have sent (each counts a send once it has returned).
    pub fn sent_total(&self) -> u64 {
        self.sent
            .iter()
            .map(|s| s.load(AtomicOrdering::Relaxed))
            .sum()
    }

    /// Messages in the hop now.
    pub fn depth(&self) -> u64 {
        // Read the readers first: a writer's count read later can only be larger, so the
        // difference never underflows from a race.
        let received = self.received();
        self.sent_total().saturating_sub(received)
    }
}

/// An empty histogram of a hop's depth samples.
pub(super) fn depth_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 1 << 40, 2).expect("valid depth histogram bounds")
}
