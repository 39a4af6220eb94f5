//! A soak's windows: an open-loop sample cut into equal lengths of time, each with its own
//! figures, so a run of minutes shows how it changed, not only how it ended.
//!
//! Windows are counted from the moment the first event was due (`start`): injector 0 writes it
//! before its first send; a sink that finds it unset (the injector runs in another process)
//! takes the first event's due time, on the same clock. The soak's duration fixes how many
//! windows there are; the last one also holds the drain (what arrives after the last send was
//! due), so no window is a sliver. Two parts measure them:
//!
//! * each sink times the events it fires into the window they fire in ([`LatencyWindows`]): one
//!   histogram, whose quantiles are taken and which is cleared when the next window begins, so a
//!   soak of any length holds one histogram per sink;
//! * a **window clock** ([`WindowClock`]), a thread of its own that sleeps until each window's
//!   end and then reads the harness's counters: events sent by the producers, received by the
//!   first sink, in flight over every hop (the backlog), and this process's resident memory. It
//!   reads counters the members publish anyway and never touches a transport's endpoints, so it
//!   costs the measured threads nothing but a wake-up every window. A broker hop may also give
//!   it an [`UncommittedProbe`], which asks the broker on a connection of its own what it still
//!   holds uncommitted for the consumer; the clock asks after reading the counters.
//!
//! [`assemble`] puts the two together into [`SoakWindow`]s once the sample is over.

use super::gauge::Gauge;
use crate::histogram;
use crate::open_loop::clock::Clock;
use crate::open_loop::SoakWindow;
use crate::transport::UncommittedProbe;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest the window clock sleeps before it looks whether the sample is over.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// What every part of a soak sample shares: the window length and the start.
#[derive(Clone, Debug)]
pub(in crate::engine) struct WindowSpec {
    /// One window, nanoseconds.
    pub window_ns: u64,
    /// The index of the last window (the one that holds the drain).
    pub last: u64,
    /// When the first event was due on the sample's clock; 0 until it is known.
    pub start: Arc<AtomicU64>,
}

impl WindowSpec {
    /// Windows of `window_ms` over a soak of `duration_ms`, the start not known yet.
    pub fn new(window_ms: u64, duration_ms: u64) -> WindowSpec {
        let window_ms = window_ms.max(1);
        WindowSpec {
            window_ns: window_ms.saturating_mul(1_000_000),
            last: duration_ms.div_ceil(window_ms).saturating_sub(1),
            start: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The window a moment `at` falls in.
    fn index(&self, start: u64, at: u64) -> u64 {
        (at.saturating_sub(start) / self.window_ns).min(self.last)
    }

    /// Sets the start to `due` unless it is set already; returns the start.
    pub fn begin(&self, due: u64) -> u64 {
        // 0 means unset, so a start at the clock's epoch is taken as 1 ns later.
        let due = due.max(1);
        match self
            .start
            .compare_exchange(0, due, AtomicOrdering::AcqRel, AtomicOrdering::Acquire)
        {
            Ok(_) => due,
            Err(set) => set,
        }
    }

    /// The start, if known.
    fn started(&self) -> Option<u64> {
        Some(self.start.load(AtomicOrdering::Acquire)).filter(|&s| s != 0)
    }
}

/// The latency of one window as a sink timed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::engine) struct WindowLatency {
    /// Which window, from 0.
    pub index: u64,
    /// Events timed in it.
    pub fired: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

/// A sink's timing of the windows: the current window's histogram and the windows closed.
pub(in crate::engine) struct LatencyWindows {
    spec: WindowSpec,
    /// The start, once the first event is timed.
    start: Option<u64>,
    current: u64,
    histogram: Histogram<u64>,
    closed: Vec<WindowLatency>,
}

impl LatencyWindows {
    /// Nothing timed yet.
    pub fn new(spec: WindowSpec) -> LatencyWindows {
        LatencyWindows {
            spec,
            start: None,
            current: 0,
            histogram: histogram::new(),
            closed: Vec::new(),
        }
    }

    /// Times one event that was due at `due` and whose fire ended at `end`.
    #[inline]
    pub fn record(&mut self, due: u64, end: u64) {
        let start = match self.start {
            Some(s) => s,
            None => *self.start.insert(self.spec.begin(due)),
        };
        let index = self.spec.index(start, end);
        if index != self.current {
            self.close();
            self.current = index;
        }
        histogram::record(&mut self.histogram, end.saturating_sub(due));
    }

    /// Closes the current window, if it timed anything.
    fn close(&mut self) {
        let h = &mut self.histogram;
        if h.is_empty() {
            return;
        }
        self.closed.push(WindowLatency {
            index: self.current,
            fired: h.len(),
            p50: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
        });
        h.reset();
    }

    /// Every window that timed an event, in order.
    pub fn finish(mut self) -> Vec<WindowLatency> {
        self.close();
        self.closed
    }
}

/// What the window clock read at the end of one window (or of the sample).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::engine) struct Mark {
    /// When, on the sample's clock.
    pub at_ns: u64,
    /// Events the producers had sent.
    pub sent: u64,
    /// Events the first sink had received.
    pub delivered: u64,
    /// Events in flight over every hop.
    pub backlog: u64,
    /// This process's resident set, bytes.
    pub rss_bytes: Option<u64>,
    /// What the brokers of the hops said they hold uncommitted, summed (`None` without a
    /// probe, or when one did not answer).
    pub uncommitted: Option<u64>,
}

/// The probes a window clock reads (see [`UncommittedProbe`]).
pub(in crate::engine) type Probes = Vec<Box<dyn UncommittedProbe>>;

/// The thread that reads the counters at every window's end.
pub(in crate::engine) struct WindowClock {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<(Vec<Mark>, Probes)>,
    clock: Clock,
    gauges: Arc<Vec<Gauge>>,
    merge: Option<usize>,
}

impl WindowClock {
    /// Starts the clock for a sample whose hops count with `gauges` (a merge source writes hop
    /// `merge` beside its stage, as its second writer) and whose brokers answer `probes`.
    pub fn start(
        spec: WindowSpec,
        clock: Clock,
        gauges: Arc<Vec<Gauge>>,
        merge: Option<usize>,
        mut probes: Probes,
    ) -> std::io::Result<WindowClock> {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::Builder::new()
            .name("window-clock".into())
            .spawn({
                let (stop, clock, gauges) = (stop.clone(), clock.clone(), gauges.clone());
                move || {
                    let marks = tick(&spec, &stop, &clock, &gauges, merge, &mut probes);
                    (marks, probes)
                }
            })?;
        Ok(WindowClock {
            stop,
            thread,
            clock,
            gauges,
            merge,
        })
    }

    /// Stops the clock once the sample is over: the marks of every window ended, then the
    /// counters now.
    pub fn stop(self) -> Vec<Mark> {
        self.stop.store(true, AtomicOrdering::Release);
        self.thread.thread().unpark();
        let (mut marks, mut probes) = self.thread.join().unwrap_or_default();
        marks.push(read(&self.clock, &self.gauges, self.merge, &mut probes));
        marks
    }
}

/// The window clock's loop: waits for the start, then reads the counters at each window's end
/// until stopped.
fn tick(
    spec: &WindowSpec,
    stop: &AtomicBool,
    clock: &Clock,
    gauges: &[Gauge],
    merge: Option<usize>,
    probes: &mut Probes,
) -> Vec<Mark> {
    let mut marks = Vec::new();
    let start = loop {
        if stop.load(AtomicOrdering::Acquire) {
            return marks;
        }
        if let Some(s) = spec.started() {
            break s;
        }
        std::thread::park_timeout(Duration::from_millis(1));
    };
    for k in 1u64.. {
        let due = start.saturating_add(k.saturating_mul(spec.window_ns));
        loop {
            if stop.load(AtomicOrdering::Acquire) {
                return marks;
            }
            let now = clock.now_ns();
            if now >= due {
                break;
            }
            std::thread::park_timeout(Duration::from_nanos(due - now).min(LOOK_EVERY));
        }
        marks.push(Mark {
            at_ns: due,
            ..read(clock, gauges, merge, probes)
        });
    }
    marks
}

/// The counters now, and what the brokers say (each asked in turn, after the counters).
fn read(clock: &Clock, gauges: &[Gauge], merge: Option<usize>, probes: &mut Probes) -> Mark {
    let delivered = gauges.last().map_or(0, |g| {
        g.received
            .first()
            .map_or(0, |r| r.load(AtomicOrdering::Relaxed))
    });
    let merged = merge
        .and_then(|h| gauges.get(h)?.sent.get(1))
        .map_or(0, |c| c.load(AtomicOrdering::Relaxed));
    let mut mark = Mark {
        at_ns: clock.now_ns(),
        sent: gauges.first().map_or(0, Gauge::sent_total) + merged,
        delivered,
        backlog: gauges.iter().map(Gauge::depth).sum(),
        rss_bytes: crate::memory::resident(),
        uncommitted: None,
    };
    if !probes.is_empty() {
        mark.uncommitted = probes.iter_mut().map(|p| p.uncommitted()).sum();
    }
    mark
}

/// The windows of a sample whose last event fired at `last_ns`, from the window clock's
/// `marks` (one per window ended, then the counters at the end) and the first sink's `latency`.
pub(in crate::engine) fn assemble(
    spec: &WindowSpec,
    marks: &[Mark],
    latency: &[WindowLatency],
    last_ns: u64,
) -> Vec<SoakWindow> {
    let (Some(start), Some((end_mark, boundaries))) = (spec.started(), marks.split_last()) else {
        return Vec::new();
    };
    let ms = |ns: u64| ns as f64 / 1e6;
    let end = last_ns.max(start + 1);
    let mut windows = Vec::new();
    let mut before = Mark::default();
    for k in 0..=spec.last {
        let from = start + k * spec.window_ns;
        if k > 0 && from >= end {
            break;
        }
        // A window the clock closed, or the last one (or the one the sample ended in), which
        // runs to the end and is read at the end.
        let (to, mark) = match boundaries.get(k as usize) {
            Some(m) if k < spec.last && m.at_ns < end => (m.at_ns, m),
            _ => (end.max(from + 1), end_mark),
        };
        let timed = latency.iter().find(|l| l.index == k);
        windows.push(SoakWindow {
            start_ms: ms(from - start),
            length_ms: ms(to - from),
            sent: mark.sent.saturating_sub(before.sent),
            delivered: mark.delivered.saturating_sub(before.delivered),
            fired: timed.map_or(0, |l| l.fired),
            p50: timed.map_or(0, |l| l.p50),
            p99: timed.map_or(0, |l| l.p99),
            max: timed.map_or(0, |l| l.max),
            backlog: mark.backlog,
            rss_bytes: mark.rss_bytes,
            uncommitted: mark.uncommitted,
        });
        if std::ptr::eq(mark, end_mark) {
            break;
        }
        before = *mark;
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_sink_times_each_event_into_the_window_it_fires_in() {
        let spec = WindowSpec::new(10, 40);
        let mut w = LatencyWindows::new(spec.clone());
        // First event due at 5 ms: the start. Fires at 5.1 ms (window 0), 16 ms (window 1),
        // nothing in window 2, and two at 36 ms and 38 ms (window 3).
        w.record(5 * MS, 5 * MS + 100_000);
        w.record(15 * MS, 16 * MS);
        w.record(35 * MS, 36 * MS);
        w.record(36 * MS, 38 * MS);
        // The drain, after the soak's 40 ms: still the last window.
        w.record(44 * MS, 46 * MS);
        assert_eq!(spec.started(), Some(5 * MS));
        let got = w.finish();
        let idx: Vec<(u64, u64)> = got.iter().map(|l| (l.index, l.fired)).collect();
        assert_eq!(idx, [(0, 1), (1, 1), (3, 3)]);
        assert!(got[2].max >= 2 * MS - 2_000 && got[2].max <= 2 * MS + 2_000);
    }

    #[test]
    fn the_start_is_set_once() {
        let spec = WindowSpec::new(10, 100);
        assert_eq!(spec.begin(7), 7);
        assert_eq!(spec.begin(3), 7);
        assert_eq!(spec.started(), Some(7));
    }

    #[test]
    fn windows_take_differences_of_the_marks_and_the_last_holds_the_drain() {
        // A soak of 30 ms in windows of 10: the third window runs to the last fire.
        let spec = WindowSpec::new(10, 30);
        spec.begin(100 * MS);
        let mark = |at: u64, sent, delivered, backlog| Mark {
            at_ns: at,
            sent,
            delivered,
            backlog,
            rss_bytes: Some(1 << 20),
            uncommitted: Some(backlog + 1),
        };
        let marks = [
            mark(110 * MS, 10, 9, 1),
            mark(120 * MS, 20, 18, 2),
            mark(130 * MS, 30, 27, 3),
            // The drain: the clock marked a fourth window, which the third absorbs.
            mark(140 * MS, 30, 29, 1),
            // The end.
            mark(141 * MS, 30, 30, 0),
        ];
        let latency = [WindowLatency {
            index: 1,
            fired: 9,
            p50: 1000,
            p99: 2000,
            max: 3000,
        }];
        let w = assemble(&spec, &marks, &latency, 140_500_000);
        assert_eq!(w.len(), 3);
        assert_eq!((w[0].sent, w[0].delivered, w[0].backlog), (10, 9, 1));
        assert_eq!((w[1].sent, w[1].delivered, w[1].p99), (10, 9, 2000));
        assert_eq!((w[2].sent, w[2].delivered, w[2].backlog), (10, 12, 0));
        assert_eq!((w[0].uncommitted, w[2].uncommitted), (Some(2), Some(1)));
        assert_eq!((w[2].start_ms, w[2].length_ms), (20.0, 20.5));
        assert!((w[1].rate() - 900.0).abs() < 1e-9);
        // A sample that ended early (a crash) ends in the window it ended in.
        let w = assemble(&spec, &marks[..2], &latency, 115 * MS);
        assert_eq!(w.len(), 2);
        assert_eq!((w[1].length_ms, w[1].sent), (5.0, 10));
    }

    #[test]
    fn the_clock_reads_the_counters_at_each_window_end() {
        let clock = Clock::start();
        let gauges = Arc::new(vec![Gauge::new(1, 1)]);
        let spec = WindowSpec::new(100, 1000);
        // Two brokers, each counting the times it was asked: every read asks both, once.
        struct Asked(u64);
        impl UncommittedProbe for Asked {
            fn uncommitted(&mut self) -> Option<u64> {
                self.0 += 1;
                Some(self.0)
            }
        }
        let probes: Probes = vec![Box::new(Asked(0)), Box::new(Asked(100))];
        let wc =
            WindowClock::start(spec.clone(), clock.clone(), gauges.clone(), None, probes).unwrap();
        gauges[0].sent[0].store(5, AtomicOrdering::Relaxed);
        gauges[0].received[0].store(3, AtomicOrdering::Relaxed);
        let start = spec.begin(clock.now_ns());
        std::thread::sleep(Duration::from_millis(250));
        // How many windows the clock thread got to read depends on the scheduler; what it read
        // is exact either way: each window's mark at its end, then the counters at the stop.
        let marks = wc.stop();
        let (end, ended) = marks.split_last().unwrap();
        assert_eq!((end.sent, end.delivered, end.backlog), (5, 3, 2));
        for (k, m) in marks.iter().enumerate() {
            let asked = k as u64 + 1;
            assert_eq!(m.uncommitted, Some(asked + (100 + asked)));
        }
        for (k, m) in ended.iter().enumerate() {
            assert_eq!(m.at_ns, start + (k as u64 + 1) * 100 * MS);
            assert_eq!((m.sent, m.delivered, m.backlog), (5, 3, 2));
        }
    }

    #[test]
    fn a_probe_that_does_not_answer_leaves_the_figure_unknown() {
        struct Silent;
        impl UncommittedProbe for Silent {
            fn uncommitted(&mut self) -> Option<u64> {
                None
            }
        }
        let gauges = [Gauge::new(1, 1)];
        let mut probes: Probes = vec![Box::new(Silent)];
        let m = read(&Clock::start(), &gauges, None, &mut probes);
        assert_eq!(m.uncommitted, None);
        assert_eq!(
            read(&Clock::start(), &gauges, None, &mut Vec::new()).uncommitted,
            None
        );
    }
}
