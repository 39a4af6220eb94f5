//! Groups of trials that run together, so that only so many workers are alive at once.
//!
//! Timed samples interleave across the trials of a group (round 1 of each, then round 2 …): a
//! shared machine's drift then hits every transport of the group alike, and each worker stays
//! warm between its samples. A run of more trials than [`live_worker_limit`] runs them in several
//! groups, one after the other, each group's workers ended before the next group starts.
//!
//! Trials are compared within a table (one workload, payload, producer and consumer count,
//! batch and pacing; see [`TableKey`]), so a table's trials are kept in one group: tables are
//! packed into groups whole, in the order they first appear in the plan, and only a table larger
//! than a group is split (into groups of even size). When every trial fits one group, nothing is
//! reordered.

use crate::table_key::TableKey;
use crate::workload::TrialSpec;
use std::ops::Range;

/// Workers alive at once, at most: trials run in groups of this many (see the module docs).
pub(crate) const MAX_LIVE_WORKERS: usize = 32;

/// Descriptors the parent holds per live worker (its three pipes, and one to spare while a
/// worker starts).
const FDS_PER_WORKER: u64 = 4;

/// Descriptors kept free for everything else the command opens (the store, the output, the
/// journal, the probes).
const FDS_RESERVED: u64 = 64;

/// How many workers may be alive at once: [`MAX_LIVE_WORKERS`], or fewer where the limit on
/// open descriptors (`ulimit -n`) leaves room for fewer; never less than one.
pub(crate) fn live_worker_limit() -> usize {
    let by_descriptors = open_file_limit()
        .map(|n| (n.saturating_sub(FDS_RESERVED) / FDS_PER_WORKER).max(1))
        .unwrap_or(MAX_LIVE_WORKERS as u64);
    (MAX_LIVE_WORKERS as u64).min(by_descriptors) as usize
}

#[cfg(unix)]
fn open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only into the struct it is given, which lives on this stack.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    // `rlim_t` is not 64 bits wide on every Unix.
    #[allow(clippy::unnecessary_cast)]
    let current = limit.rlim_cur as u64;
    (limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<u64> {
    None
}

/// What puts two trials in one table of the report (see [`TableKey`]: the report's tables use
/// the same key).
pub(crate) fn table_key(spec: &TrialSpec) -> TableKey {
    TableKey::of_spec(spec)
}

/// The groups of trials: the order to run them in (`order[i]` is the plan index of the `i`th
/// trial run) and the groups as ranges of that order, each at most `limit` long.
pub(crate) fn plan<K: PartialEq>(keys: &[K], limit: usize) -> (Vec<usize>, Vec<Range<usize>>) {
    let limit = limit.max(1);
    let n = keys.len();
    if n <= limit {
        let whole = std::iter::once(0..n).filter(|r| !r.is_empty()).collect();
        return ((0..n).collect(), whole);
    }
    // Tables in order of first appearance, each with its trials in plan order.
    let mut tables: Vec<(&K, Vec<usize>)> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match tables.iter_mut().find(|(key, _)| *key == k) {
            Some((_, members)) => members.push(i),
            None => tables.push((k, vec![i])),
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut groups = Vec::new();
    let mut open = 0..0;
    for (_, members) in tables {
        if members.len() > limit {
            if !open.is_empty() {
                groups.push(open.clone());
            }
            // Split evenly: 70 trials under a limit of 32 → 24, 23, 23.
            let parts = members.len().div_ceil(limit);
            let (base, extra) = (members.len() / parts, members.len() % parts);
            let mut start = order.len();
            order.extend(&members);
            for p in 0..parts {
                let len = base + usize::from(p < extra);
                groups.push(start..start + len);
                start += len;
            }
            open = order.len()..order.len();
            continue;
        }
        if open.len() + members.len() > limit {
            groups.push(open.clone());
            open = order.len()..order.len();
        }
        order.extend(&members);
        open.end = order.len();
    }
    if !open.is_empty() {
        groups.push(open);
    }
    (order, groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &str) -> Vec<String> {
        s.chars().map(|c| c.to_string()).collect()
    }

    fn check(keys: &[String], limit: usize) -> (Vec<usize>, Vec<Range<usize>>) {
        let (order, groups) = plan(keys, limit);
        let mut seen = order.clone();
        seen.sort();
        assert_eq!(
            seen,
            (0..keys.len()).collect::<Vec<_>>(),
            "every trial once"
        );
        assert!(groups.iter().all(|g| !g.is_empty() && g.len() <= limit));
        assert_eq!(groups.iter().map(|g| g.len()).sum::<usize>(), keys.len());
        (order, groups)
    }

    #[test]
    fn a_run_that_fits_is_one_group_in_plan_order() {
        let (order, groups) = check(&keys("abab"), 8);
        assert_eq!(order, [0, 1, 2, 3]);
        assert_eq!(groups, vec![(0..4)]);
        assert_eq!(plan::<String>(&[], 8), (vec![], vec![]));
    }

    #[test]
    fn tables_are_kept_whole_in_a_group() {
        // Tables a (3 trials), b (3), c (2), interleaved in plan order; groups of 4.
        let (order, groups) = check(&keys("abcabcab"), 4);
        assert_eq!(order, [0, 3, 6, 1, 4, 7, 2, 5]);
        assert_eq!(groups, [0..3, 3..6, 6..8]);
    }

    #[test]
    fn a_table_larger_than_a_group_is_split_evenly() {
        let (_, groups) = check(&vec!["t".to_string(); 70], 32);
        assert_eq!(groups, [0..24, 24..47, 47..70]);
        let (_, groups) = check(&keys("aaaaab"), 2);
        assert_eq!(groups, [0..2, 2..4, 4..5, 5..6]);
    }

    #[test]
    fn the_limit_follows_the_descriptor_limit() {
        let n = live_worker_limit();
        assert!((1..=MAX_LIVE_WORKERS).contains(&n));
    }
}
