//! Whether a soak got worse the longer it ran: [`Lint::Drift`].
//!
//! A soak's windows (see `crate::engine::open_loop::windows`) are judged figure by figure: the
//! delivered rate (falling), the median and the 99th-percentile latency, the backlog and the
//! worker's resident memory (rising). A figure drifts when the Mann–Kendall trend test over every
//! whole window finds the trend significant (one-sided p below [`ALPHA`]) **and** the last third
//! of the windows is materially worse than the first third (by the figure's [`material`] step).
//! The test alone would flag a trend too small to matter on a long, quiet soak; the step alone
//! would flag one bad window. A sample's short last window and a window in which nothing fired
//! (for latency) are left out. With several timed samples, each is judged on its own and the
//! strongest drift of each figure is reported.

use super::Lint;
use crate::compare::mann_kendall::{self, MIN_POINTS};
use crate::open_loop::SoakWindow;
use crate::report::TrialResult;
use crate::stats::median;
use handoff_model::lint::DriftFigure;

/// The largest one-sided p-value that counts as a trend. Up to six figures are tested on every
/// sample, so this keeps a quiet soak's chance of any false drift near 6%.
pub(super) const ALPHA: f64 = 0.01;

/// Whether the change from `early` to `late` (both medians of a third of the windows) is large
/// enough to matter for `figure`.
fn material(figure: DriftFigure, early: f64, late: f64) -> bool {
    match figure {
        // A tenth of the rate no longer delivered.
        DriftFigure::Rate => late < early * 0.9,
        // Latency up by a fifth.
        DriftFigure::P50 | DriftFigure::P99 => late > early * 1.2,
        // Ten more events in flight, and a fifth more.
        DriftFigure::Backlog | DriftFigure::Uncommitted => {
            late >= early + 10.0 && late > early * 1.2
        }
        // A mebibyte more resident, and a tenth more.
        DriftFigure::Memory => late >= early + f64::from(1u32 << 20) && late > early * 1.1,
    }
}

/// One figure of each whole window that has it.
fn series(windows: &[SoakWindow], figure: DriftFigure) -> Vec<f64> {
    let nominal = windows.first().map_or(0.0, |w| w.length_ms);
    windows
        .iter()
        .filter(|w| w.is_whole(nominal))
        .filter_map(|w| match figure {
            DriftFigure::Rate => Some(w.rate()),
            DriftFigure::P50 => (w.fired > 0).then_some(w.p50 as f64),
            DriftFigure::P99 => (w.fired > 0).then_some(w.p99 as f64),
            DriftFigure::Backlog => Some(w.backlog as f64),
            DriftFigure::Uncommitted => w.uncommitted.map(|u| u as f64),
            DriftFigure::Memory => w.rss_bytes.map(|b| b as f64),
        })
        .collect()
}

/// The drift of `figure` over one sample's `windows`, if it drifted.
fn judge(windows: &[SoakWindow], figure: DriftFigure) -> Option<Lint> {
    let xs = series(windows, figure);
    let trend = mann_kendall::test(&xs)?;
    let p = if figure.worse_is_up() {
        trend.p_rising
    } else {
        trend.p_falling
    };
    let third = xs.len() / 3;
    let early = median(&xs[..third]);
    let late = median(&xs[xs.len() - third..]);
    (p < ALPHA && material(figure, early, late)).then_some(Lint::Drift {
        figure,
        early,
        late,
        windows: xs.len(),
        p,
    })
}

/// [`Lint::Drift`]: one per figure that drifted in any timed sample (the strongest).
pub(super) fn drift(r: &TrialResult) -> Vec<Lint> {
    if r.samples.iter().all(|s| s.windows.len() < MIN_POINTS) {
        return Vec::new();
    }
    DriftFigure::ALL
        .into_iter()
        .filter_map(|figure| {
            r.samples
                .iter()
                .filter_map(|s| judge(&s.windows, figure))
                .min_by(|a, b| p_of(a).total_cmp(&p_of(b)))
        })
        .collect()
}

fn p_of(l: &Lint) -> f64 {
    match l {
        Lint::Drift { p, .. } => *p,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::stream;

    /// 30 windows of 10 s at 1000/s, p99 `p99(k)` in window k, backlog `backlog(k)`.
    fn windows(p99: impl Fn(u64) -> u64, backlog: impl Fn(u64) -> u64) -> Vec<SoakWindow> {
        (0..30)
            .map(|k| SoakWindow {
                start_ms: k as f64 * 10_000.0,
                length_ms: 10_000.0,
                sent: 10_000,
                delivered: 10_000,
                fired: 10_000,
                p50: 50_000 + (k * 7919) % 997,
                p99: p99(k),
                max: 10 * p99(k),
                backlog: backlog(k),
                rss_bytes: Some(64 << 20),
                uncommitted: None,
            })
            .collect()
    }

    fn soak(w: Vec<SoakWindow>) -> TrialResult {
        let mut r = stream();
        r.samples.truncate(1);
        r.samples[0].windows = w;
        r
    }

    /// Noise that does not trend: a fixed scramble of 0..1000.
    fn noise(k: u64) -> u64 {
        (k * 7919) % 1000
    }

    #[test]
    fn a_steady_soak_does_not_drift() {
        let r = soak(windows(|k| 200_000 + 100 * noise(k), |k| noise(k) % 5));
        assert_eq!(drift(&r), []);
    }

    #[test]
    fn commits_falling_behind_drift_where_the_backlog_does_not() {
        // The consumer keeps up (a steady backlog of a few events), but what the broker holds
        // uncommitted grows by 40 events a window; a window the broker did not answer is left
        // out of the series.
        let mut w = windows(|k| 200_000 + 100 * noise(k), |k| noise(k) % 5);
        for (k, w) in w.iter_mut().enumerate() {
            w.uncommitted = (k != 7).then_some(noise(k as u64) % 5 + 40 * k as u64);
        }
        let lints = drift(&soak(w));
        let [Lint::Drift {
            figure, windows, ..
        }] = &lints[..]
        else {
            panic!("{lints:?}")
        };
        assert_eq!((*figure, *windows), (DriftFigure::Uncommitted, 29));
        assert!(
            lints[0].to_string().contains("uncommitted at the broker"),
            "{}",
            lints[0]
        );
    }

    #[test]
    fn latency_and_backlog_growing_over_the_windows_drift() {
        // p99 grows 2% a window (about 1.8x over the soak) under the same noise; the backlog
        // grows by 5 events a window.
        let r = soak(windows(
            |k| (200_000.0 * 1.02f64.powi(k as i32)) as u64 + 10 * noise(k),
            |k| 5 * k,
        ));
        let lints = drift(&r);
        let figures: Vec<DriftFigure> = lints
            .iter()
            .map(|l| match l {
                Lint::Drift { figure, .. } => *figure,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(figures, [DriftFigure::P99, DriftFigure::Backlog]);
        let text = lints[0].to_string();
        assert!(text.starts_with("drift: p99 latency grew from"), "{text}");
        assert!(text.contains("over 30 windows"), "{text}");
    }

    #[test]
    fn one_bad_window_is_not_a_drift() {
        let r = soak(windows(
            |k| {
                if k == 29 {
                    5_000_000
                } else {
                    200_000 + 100 * noise(k)
                }
            },
            |_| 0,
        ));
        assert_eq!(drift(&r), []);
    }

    #[test]
    fn a_small_but_steady_trend_does_not_matter() {
        // p99 rises 0.2% a window: significant, but 6% over the soak.
        let r = soak(windows(|k| 200_000 + 400 * k, |_| 0));
        assert_eq!(drift(&r), []);
    }

    #[test]
    fn a_falling_rate_drifts_and_the_short_last_window_is_left_out() {
        let mut w = windows(|k| 200_000 + 100 * noise(k), |_| 0);
        for (k, x) in w.iter_mut().enumerate() {
            x.delivered = 10_000 - 200 * k as u64;
        }
        // A last window of 1 s that delivered almost nothing is not judged.
        w.push(SoakWindow {
            start_ms: 300_000.0,
            length_ms: 1_000.0,
            delivered: 1,
            ..w[0].clone()
        });
        let lints = drift(&soak(w));
        assert_eq!(lints.len(), 1, "{lints:?}");
        let Lint::Drift {
            figure, windows, ..
        } = &lints[0]
        else {
            panic!("{lints:?}")
        };
        assert_eq!((*figure, *windows), (DriftFigure::Rate, 30));
    }
}
