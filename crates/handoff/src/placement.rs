//! Thread placement: which cores a trial's threads run on, chosen and recorded.
//!
//! Threads are pinned to distinct physical cores where the machine has enough (SMT siblings are
//! used only after every physical core is taken, and that is recorded). When a trial has more
//! threads than available cores it is *oversubscribed*: threads are left to the scheduler and the
//! result says so.

pub use handoff_model::placement::Placement;
use std::collections::BTreeSet;

/// A plan: the core each thread should be pinned to, if any.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Core per thread index (`None` = leave to the scheduler).
    pub cores: Vec<Option<core_affinity::CoreId>>,
    /// The placement this plan will record if every pin succeeds.
    pub placement: Placement,
}

/// Chooses cores for `threads` threads.
pub(crate) fn plan(threads: usize, pin: bool) -> Plan {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    let available = ids.len().max(1);
    let mut placement = Placement {
        threads,
        cores_available: available,
        ..Placement::default()
    };
    if threads > available {
        placement.oversubscribed = true;
        placement.note = Some("more threads than cores".into());
        return Plan {
            cores: vec![None; threads],
            placement,
        };
    }
    if !pin {
        placement.note = Some("pinning off".into());
        return Plan {
            cores: vec![None; threads],
            placement,
        };
    }
    if ids.is_empty() {
        placement.note = Some("core list unavailable".into());
        return Plan {
            cores: vec![None; threads],
            placement,
        };
    }
    // Distinct physical cores first, SMT siblings after.
    let mut order: Vec<core_affinity::CoreId> = Vec::new();
    let mut used_physical = BTreeSet::new();
    for id in &ids {
        if used_physical.insert(physical_core(id.id)) {
            order.push(*id);
        }
    }
    for id in &ids {
        if !order.contains(id) {
            order.push(*id);
        }
    }
    let chosen: Vec<core_affinity::CoreId> = order.into_iter().take(threads).collect();
    let physical: BTreeSet<_> = chosen.iter().map(|c| physical_core(c.id)).collect();
    placement.smt_shared = physical.len() < chosen.len();
    placement.cores = chosen.iter().map(|c| c.id).collect();
    placement.pinned = true;
    Plan {
        cores: chosen.into_iter().map(Some).collect(),
        placement,
    }
}

/// Pins the calling thread as planned; returns false if the OS refused.
pub(crate) fn apply(core: Option<core_affinity::CoreId>) -> bool {
    match core {
        Some(c) => core_affinity::set_for_current(c),
        None => true,
    }
}

/// The physical core a logical CPU belongs to (its lowest SMT sibling), from sysfs.
pub(crate) fn physical_core(cpu: usize) -> usize {
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| {
            s.trim()
                .split([',', '-'])
                .next()
                .and_then(|x| x.parse().ok())
        })
        .unwrap_or(cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversubscription_is_detected_and_labelled() {
        let p = plan(1000, true);
        assert!(p.placement.oversubscribed);
        assert!(p.placement.label().contains("oversubscribed"));
        assert!(p.cores.iter().all(Option::is_none));
    }

    #[test]
    fn one_thread_gets_one_core() {
        let p = plan(1, true);
        assert_eq!(p.cores.len(), 1);
        assert!(!p.placement.oversubscribed);
    }
}
