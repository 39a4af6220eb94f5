//! Rules on where and how a trial ran: its threads and cores, whether a hand-off crossed cores
//! at all (a same-thread transport, a current-thread runtime, tasks that mostly stayed on one
//! worker thread), whether a requested batch was native, and the build.

use super::Lint;
use crate::environment::Environment;
use crate::report::TrialResult;
use crate::semantics::Locality;
use crate::workload::Driver;

/// [`Lint::Oversubscribed`], else [`Lint::Unpinned`] when pinning was not asked for, else
/// [`Lint::PinningFailed`] when it was and not obtained (by the last sample run).
pub(super) fn threads(r: &TrialResult, pin_requested: bool) -> Option<Lint> {
    let place = &r.placement;
    if place.oversubscribed {
        Some(Lint::Oversubscribed {
            threads: place.threads,
            cores: place.cores_available,
        })
    } else if !pin_requested {
        Some(Lint::Unpinned)
    } else if !place.pinned && place.threads > 0 {
        Some(Lint::PinningFailed {
            detail: place.note.clone().unwrap_or_else(|| "unknown".into()),
        })
    } else {
        None
    }
}

/// [`Lint::SameThreadCooperative`] for tasks on one current-thread runtime, else
/// [`Lint::SameThread`] for a same-thread transport.
pub(super) fn locality(r: &TrialResult) -> Option<Lint> {
    if r.params.driver == Driver::TokioCurrent {
        Some(Lint::SameThreadCooperative)
    } else if r.semantics.locality == Locality::SameThread {
        Some(Lint::SameThread)
    } else {
        None
    }
}

/// [`Lint::BatchEmulated`]: a batch was asked of a transport without batch operations.
pub(super) fn batch_emulated(r: &TrialResult) -> Option<Lint> {
    r.batch_emulated().then_some(Lint::BatchEmulated)
}

/// [`Lint::SameWorker`]: most hand-offs of a cross-thread result stayed on one worker thread
/// (see [`TrialResult::stayed_on_one_worker`]).
pub(super) fn same_worker(r: &TrialResult) -> Option<Lint> {
    if !r.stayed_on_one_worker() {
        return None;
    }
    r.same_worker.map(|share| Lint::SameWorker { share })
}

/// [`Lint::DebugBuild`]: not an optimised build.
pub(super) fn debug_build(env: &Environment) -> Option<Lint> {
    (env.build_profile != "release").then_some(Lint::DebugBuild)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{environment, stream};
    use crate::placement::Placement;

    #[test]
    fn oversubscription_comes_before_pinning() {
        let mut r = stream();
        r.placement = Placement {
            threads: 9,
            cores_available: 2,
            oversubscribed: true,
            ..Placement::default()
        };
        // Oversubscribed trials are not pinned; that is said once, as oversubscription.
        assert_eq!(
            threads(&r, true),
            Some(Lint::Oversubscribed {
                threads: 9,
                cores: 2
            })
        );
        assert_eq!(
            threads(&r, false),
            Some(Lint::Oversubscribed {
                threads: 9,
                cores: 2
            })
        );
    }

    #[test]
    fn pinning_not_asked_for_or_not_obtained_is_said() {
        let mut r = stream();
        assert_eq!(threads(&r, true), None);
        assert_eq!(threads(&r, false), Some(Lint::Unpinned));
        r.placement.pinned = false;
        r.placement.note = Some("sched_setaffinity: EINVAL".into());
        assert_eq!(
            threads(&r, true),
            Some(Lint::PinningFailed {
                detail: "sched_setaffinity: EINVAL".into()
            })
        );
        r.placement.note = None;
        assert_eq!(
            threads(&r, true),
            Some(Lint::PinningFailed {
                detail: "unknown".into()
            })
        );
        // No thread ran (the trial stopped before a sample): nothing to say of pinning.
        r.placement = Placement::default();
        assert_eq!(threads(&r, true), None);
    }

    #[test]
    fn a_current_thread_runtime_is_cooperative_not_just_same_thread() {
        let mut r = stream();
        assert_eq!(locality(&r), None);
        r.semantics.locality = Locality::SameThread;
        assert_eq!(locality(&r), Some(Lint::SameThread));
        r.params.driver = Driver::TokioCurrent;
        assert_eq!(locality(&r), Some(Lint::SameThreadCooperative));
    }

    #[test]
    fn a_batch_without_batch_operations_is_emulated() {
        let mut r = stream();
        assert_eq!(batch_emulated(&r), None);
        r.params.batch = Some(64);
        assert_eq!(batch_emulated(&r), Some(Lint::BatchEmulated));
        r.semantics.batch = true;
        assert_eq!(batch_emulated(&r), None);
    }

    #[test]
    fn mostly_one_worker_is_same_worker() {
        let mut r = stream();
        // Not recorded (a blocking transport), or on OS threads: silent.
        assert_eq!(same_worker(&r), None);
        r.same_worker = Some(0.0);
        assert_eq!(same_worker(&r), None);
        // Half is not most.
        r.params.driver = Driver::TokioMulti { workers: 2 };
        r.same_worker = Some(0.5);
        assert_eq!(same_worker(&r), None);
        r.same_worker = Some(0.92);
        let lint = same_worker(&r).unwrap();
        assert_eq!(lint, Lint::SameWorker { share: 0.92 });
        assert!(
            lint.to_string()
                .contains("92% of hand-offs stayed on one worker thread"),
            "{lint}"
        );
        // A same-thread result is said to be one, not also same-worker.
        r.semantics.locality = Locality::SameThread;
        r.same_worker = Some(1.0);
        assert_eq!(same_worker(&r), None);
    }

    #[test]
    fn only_a_release_build_is_representative() {
        let mut env = environment();
        env.build_profile = "release".into();
        assert_eq!(debug_build(&env), None);
        env.build_profile = "debug".into();
        assert_eq!(debug_build(&env), Some(Lint::DebugBuild));
    }
}
