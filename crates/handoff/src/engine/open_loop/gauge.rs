//! The depth of each hop of an open-loop sample, counted by the harness rather than asked of the
//! transport: each hop's writers publish how many they sent and its readers how many they
//! received, each on a cache line of its own; depth is the difference.
//!
//! When a sample crosses processes, its writers and readers are in two of them: the counters
//! then live in memory both map ([`shared`], [`open_shared`]).

use crate::shared_memory::Region;
use crossbeam_utils::CachePadded;
use hdrhistogram::Histogram;
use std::io;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

/// One counter, on a cache line of its own.
type Cell = CachePadded<AtomicU64>;

/// A run of counters, in this process's memory or in memory shared with another process.
pub(in crate::engine) struct Cells {
    first: *const Cell,
    len: usize,
    /// What holds the counters: a boxed slice, or the shared region.
    _owner: Arc<dyn Send + Sync>,
}

// SAFETY: the counters are atomics, which any thread may read and write; `_owner` keeps the
// memory `first` points into alive for as long as the `Cells`.
unsafe impl Send for Cells {}
// SAFETY: as above: only shared references to atomics are handed out.
unsafe impl Sync for Cells {}

impl Cells {
    /// `n` counters of this process, all at zero.
    fn own(n: usize) -> Cells {
        let cells: Box<[Cell]> = (0..n).map(|_| Cell::new(AtomicU64::new(0))).collect();
        let first = cells.as_ptr();
        Cells {
            first,
            len: n,
            _owner: Arc::new(cells),
        }
    }
}

impl Deref for Cells {
    type Target = [Cell];

    fn deref(&self) -> &[Cell] {
        // SAFETY: `first` points at `len` initialised counters that `_owner` keeps alive: a
        // boxed slice, or a zeroed region (an all-zero `AtomicU64` is a valid zero).
        unsafe { std::slice::from_raw_parts(self.first, self.len) }
    }
}

/// Counters of one hop.
pub(in crate::engine) struct Gauge {
    /// One per writer (injector or stage).
    pub sent: Cells,
    /// One per reader (stage or sink; several sinks in a fan-out).
    pub received: Cells,
}

/// The shared-memory form of a sample's gauges, one per hop of these (writers, readers):
/// the counters, in a region of their own, and the path the other process opens it by.
pub(in crate::engine) fn shared(counts: &[(usize, usize)]) -> io::Result<(Vec<Gauge>, String)> {
    let cells: usize = counts.iter().map(|&(w, r)| w + r).sum();
    let region = Region::create("handoff-gauges", cells.max(1) * std::mem::size_of::<Cell>())?;
    let path = region.path();
    Ok((in_region(Arc::new(region), counts), path))
}

/// The gauges another process made with [`shared`] for the same `counts`, opened by `path`.
pub(in crate::engine) fn open_shared(
    path: &str,
    counts: &[(usize, usize)],
) -> io::Result<Vec<Gauge>> {
    let region = Region::open(path)?;
    let cells: usize = counts.iter().map(|&(w, r)| w + r).sum();
    if region.len() < cells * std::mem::size_of::<Cell>() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the shared gauges are smaller than the sample's hops",
        ));
    }
    Ok(in_region(Arc::new(region), counts))
}

/// The gauges of `counts` laid out in `region`: each hop's writers' counters, then its readers'.
fn in_region(region: Arc<Region>, counts: &[(usize, usize)]) -> Vec<Gauge> {
    let base = region.as_ptr().cast::<Cell>();
    let mut next = 0;
    let mut take = |len: usize| {
        // SAFETY: the region holds at least the sum of `counts` cells (checked or sized by the
        // callers) and is page-aligned, so every cell is aligned; `next + len` stays within it.
        let first = unsafe { base.add(next) }.cast_const();
        next += len;
        Cells {
            first,
            len,
            _owner: region.clone(),
        }
    };
    counts
        .iter()
        .map(|&(w, r)| Gauge {
            sent: take(w),
            received: take(r),
        })
        .collect()
}

impl Gauge {
    /// The counters of a hop with `writers` writers and `readers` readers, all at zero.
    pub fn new(writers: usize, readers: usize) -> Gauge {
        Gauge {
            sent: Cells::own(writers),
            received: Cells::own(readers),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_gauges_count_alike_in_both_mappings() {
        let counts = [(2, 1), (1, 3)];
        let (mine, path) = shared(&counts).unwrap();
        let theirs = open_shared(&path, &counts).unwrap();
        theirs[0].sent[1].store(7, AtomicOrdering::Relaxed);
        theirs[1].received[2].store(5, AtomicOrdering::Relaxed);
        mine[1].sent[0].store(9, AtomicOrdering::Relaxed);
        assert_eq!(mine[0].sent_total(), 7);
        assert_eq!(mine[1].received.len(), 3);
        assert_eq!(mine[1].received[2].load(AtomicOrdering::Relaxed), 5);
        // A reader that has received nothing keeps the hop's depth at everything sent.
        assert_eq!(theirs[1].depth(), 9);
        assert!(open_shared(&path, &[(64, 64)]).is_err());
    }
}
