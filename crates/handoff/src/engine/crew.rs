//! A crew of worker threads: spawned, pinned and parked at a start barrier before timing begins,
//! then collected under a watchdog that judges progress.
//!
//! Every member runs inside `catch_unwind`, so a transport that panics is reported as crashed
//! instead of taking the harness down.
//!
//! **The watchdog.** Consumers publish how many messages they have delivered in [`Progress`],
//! on a [`Cadence`] that keeps publications frequent whatever the rate (about every
//! [`PUBLISH_PERIOD`] while messages arrive, and at least every [`PROGRESS_EVERY`] messages)
//! without a shared write per message. [`Crew::collect`] reads that count a few times per
//! watchdog interval and restarts the interval whenever it moves: a sample is `hung` only when
//! *no message has been delivered* for a whole interval, never for being slow. A hung member's
//! thread is left behind (it cannot be killed from inside the process), which is why the
//! command-line tool runs each trial in a child process it can kill; that process reports the
//! same count to its parent (see [`crate::worker`]), which judges progress the same way.
//!
//! The one case a moving stream can be taken for a stalled one: a consumer at the largest stride
//! (a stream of millions of messages per second) that suddenly falls to fewer than
//! [`PROGRESS_EVERY`] messages per interval (about 1 640 messages per second at the default 10 s)
//! publishes its next count only after the interval has passed. At any steady rate, and after
//! any smaller change of pace, it is not.

use super::cpu::{self, CpuTally, Side};
use crate::layout::{self, SampleLayout};
use crate::placement::{self, Plan};
use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Shared between the crew and the watchdog: consumers publish their progress here on their
/// [`Cadence`], so the watchdog can tell a slow sample from a stalled one and a hang report can
/// say how far the stream got.
///
/// Aligned to two cache lines so the consumers' occasional stores never share a line (or an
/// adjacent-line prefetch pair) with a transport's own allocation: the harness must not add
/// false sharing to what it measures, whatever the allocator's placement.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct Progress {
    /// Messages delivered so far, over every consumer that publishes (as of each one's last
    /// publication).
    pub delivered: AtomicU64,
    /// A pin request was refused by the OS.
    pub pin_failed: AtomicBool,
    /// The first panic of a member that does not end its thread (a task under a driver, whose
    /// panic is caught inside it): the watchdog treats it as a member's panic.
    panic: std::sync::Mutex<Option<String>>,
}

thread_local! {
    /// The progress installed by [`watched`] for the samples run on this thread.
    static WATCHED: RefCell<Option<Arc<Progress>>> = const { RefCell::new(None) };
}

impl Progress {
    /// Notes a member's panic (the first one is kept).
    pub(crate) fn note_panic(&self, msg: &str) {
        let mut p = self.panic.lock().unwrap_or_else(|p| p.into_inner());
        if p.is_none() {
            *p = Some(msg.to_string());
        }
    }

    /// The first panic noted, if any.
    fn panicked(&self) -> Option<String> {
        self.panic.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The progress of a sample starting on this thread: the one [`watched`] installed, or a
    /// fresh one.
    pub(crate) fn for_sample() -> Arc<Progress> {
        WATCHED.with(|w| w.borrow().clone()).unwrap_or_default()
    }
}

/// Runs `f` (one sample) with `progress` as the [`Progress`] of the crew it starts on this
/// thread, so that another thread can follow the sample while it runs: the worker process
/// reports it to its parent (see [`crate::worker`]). Samples keep their usual signature; the
/// engine takes its progress from [`Progress::for_sample`].
pub(crate) fn watched<T>(progress: Arc<Progress>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<Progress>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            WATCHED.with(|w| *w.borrow_mut() = previous);
        }
    }
    let _restore = Restore(WATCHED.with(|w| w.borrow_mut().replace(progress)));
    f()
}

/// The most messages a consumer delivers between two publications of its progress.
pub(crate) const PROGRESS_EVERY: u64 = 16_384;

/// The time a consumer aims to leave between two publications while messages arrive.
pub(crate) const PUBLISH_PERIOD: Duration = Duration::from_millis(10);

/// When a consumer publishes its progress: every `stride` messages, the stride adapted at each
/// publication so that publications come about every [`PUBLISH_PERIOD`] (doubled while they come
/// faster than half of it, cut in proportion when they come slower), between 1 and
/// [`PROGRESS_EVERY`].
///
/// The hot path costs one comparison with [`Cadence::next`], which a consumer loop usually folds
/// into a check it makes anyway; a publication (one clock read and one atomic add) is taken on a
/// cold path: every [`PROGRESS_EVERY`] messages on a fast stream, about every
/// [`PUBLISH_PERIOD`] on a slow one. A consumer never writes the shared count per message.
///
/// A loop that times every message anyway (a ping-pong's round trips) also adds each one's time
/// ([`Cadence::timed`]): it publishes once a period's worth has passed, stride or not. A round
/// trip can slow down by four orders of magnitude when its two threads start sharing cores with
/// others, and a stride grown on fast round trips would then leave the watchdog without news for
/// longer than it waits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cadence {
    stride: u64,
    published: u64,
    last: Instant,
    /// Nanoseconds of timed messages since the last publication ([`Cadence::timed`]).
    timed_ns: u64,
}

impl Default for Cadence {
    fn default() -> Self {
        Cadence::new()
    }
}

impl Cadence {
    /// A cadence starting now, with nothing published: the first publication comes at the first
    /// message.
    pub fn new() -> Cadence {
        Cadence {
            stride: 1,
            published: 0,
            last: Instant::now(),
            timed_ns: 0,
        }
    }

    /// Counts `ns` more of timed messages; returns whether a publication is due at `delivered`
    /// (the stride's count reached, or a [`PUBLISH_PERIOD`] of timed messages since the last).
    #[inline(always)]
    pub fn timed(&mut self, ns: u64, delivered: u64) -> bool {
        self.timed_ns = self.timed_ns.saturating_add(ns);
        delivered >= self.next() || self.timed_ns >= PUBLISH_PERIOD.as_nanos() as u64
    }

    /// The delivered count at which the next publication is due.
    #[inline(always)]
    pub fn next(&self) -> u64 {
        self.published.saturating_add(self.stride)
    }

    /// Publishes `delivered` (this consumer's count so far) into `progress` and adapts the
    /// stride to the time since the last publication.
    #[cold]
    #[inline(never)]
    pub(crate) fn publish(&mut self, delivered: u64, progress: &AtomicU64) {
        self.publish_at(delivered, progress, Instant::now());
    }

    /// [`Cadence::publish`] at `now`.
    pub(crate) fn publish_at(&mut self, delivered: u64, progress: &AtomicU64, now: Instant) {
        self.add(delivered, progress);
        self.timed_ns = 0;
        let gap = now.saturating_duration_since(self.last);
        self.last = now;
        self.stride = if gap < PUBLISH_PERIOD / 2 {
            (self.stride * 2).min(PROGRESS_EVERY)
        } else if gap > PUBLISH_PERIOD {
            let scaled = self.stride as u128 * PUBLISH_PERIOD.as_nanos() / gap.as_nanos().max(1);
            (scaled as u64).clamp(1, PROGRESS_EVERY)
        } else {
            self.stride
        };
    }

    /// Publishes the final count (at the end of the consumer's stream).
    pub fn finish(&mut self, delivered: u64, progress: &AtomicU64) {
        self.add(delivered, progress);
    }

    fn add(&mut self, delivered: u64, progress: &AtomicU64) {
        let new = delivered.saturating_sub(self.published);
        if new > 0 {
            progress.fetch_add(new, Ordering::Relaxed);
            self.published = delivered;
        }
    }
}

/// The start line: every member spins (yielding now and then) until all have arrived.
///
/// A kernel barrier (`std::sync::Barrier`) would release threads one futex wake-up at a time,
/// tens of microseconds apart on some machines, and that skew would be timed as if it were the
/// transport's. Spinning releases every member within a cache-line transfer of each other.
#[repr(align(128))]
pub(crate) struct StartLine {
    arrived: AtomicU64,
    members: u64,
}

impl StartLine {
    /// A start line for `members` threads.
    pub fn new(members: usize) -> StartLine {
        StartLine {
            arrived: AtomicU64::new(0),
            members: members as u64,
        }
    }

    /// Arrives and waits for the others.
    pub fn wait(&self) {
        self.arrived.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0u32;
        while self.arrived.load(Ordering::Acquire) < self.members {
            spins += 1;
            if spins % 64 == 0 {
                // Oversubscribed trials: let a member that has not arrived yet run.
                thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// Where a crew's members meet before timing begins: the crew's own [`StartLine`], or one in
/// memory shared with another process's members (see `super::processes`).
pub(crate) trait Line: Send + Sync {
    /// Arrives and waits for every member.
    fn arrive(&self);
}

impl Line for StartLine {
    fn arrive(&self) {
        self.wait();
    }
}

/// The crew under construction and, once started, being collected.
pub(crate) struct Crew<R> {
    tx: mpsc::Sender<(usize, thread::Result<R>)>,
    rx: mpsc::Receiver<(usize, thread::Result<R>)>,
    barrier: Arc<dyn Line>,
    plan: Plan,
    spawned: usize,
    /// The sample's placement (stack padding per member), if layouts are randomised.
    layout: Option<SampleLayout>,
    /// Progress published by consumers.
    pub progress: Arc<Progress>,
    /// The CPU time of the members spawned on a side (see [`Crew::spawn_as`]).
    pub cpu: Arc<CpuTally>,
}

/// Why collecting failed.
pub(crate) enum CrewError {
    /// No message was delivered for a whole watchdog interval, with members still running.
    Hung {
        /// Members that reported.
        finished: usize,
        /// Members in all.
        total: usize,
        /// How long nothing had been delivered when the watchdog fired.
        quiet: Duration,
    },
    /// A member panicked.
    Panicked(String),
}

impl CrewError {
    /// The hang report of a sample that was to deliver `total` messages, e.g.
    /// `no message delivered for 10.0 s (watchdog 10000 ms): 1 of 2 threads finished, about 9 of
    /// 5000 messages delivered`. `delivered` is the count last published; `what` says who had
    /// finished.
    pub(crate) fn hang_report(
        quiet: Duration,
        watchdog: Duration,
        what: String,
        delivered: u64,
        total: u64,
    ) -> String {
        format!(
            "no message delivered for {:.1} s (watchdog {} ms): {what}, about {delivered} of {total} messages delivered",
            quiet.as_secs_f64(),
            watchdog.as_millis()
        )
    }
}

/// How often [`Crew::collect`] looks at the progress: a tenth of the watchdog interval, between
/// 5 ms and half a second. A move is noticed at most that late, so a stalled sample is called
/// hung between one interval and one interval plus this period after its last delivery.
fn poll_period(watchdog: Duration) -> Duration {
    (watchdog / 10).clamp(Duration::from_millis(5), Duration::from_millis(500))
}

/// After a member panicked, how long the others get to finish (they may be stranded by it).
const AFTER_PANIC: Duration = Duration::from_secs(1);

impl<R: Send + 'static> Crew<R> {
    /// A crew of `size` threads placed by `plan`.
    pub fn new(size: usize, plan: Plan) -> Crew<R> {
        let (tx, rx) = mpsc::channel();
        Crew {
            tx,
            rx,
            barrier: Arc::new(StartLine::new(size)),
            plan,
            spawned: 0,
            layout: None,
            progress: Progress::for_sample(),
            cpu: Arc::default(),
        }
    }

    /// The crew with its members meeting at `line` (shared with members elsewhere) instead of
    /// a start line of their own.
    pub(crate) fn on_line(mut self, line: Arc<dyn Line>) -> Crew<R> {
        self.barrier = line;
        self
    }

    /// The crew with its members' stacks padded as `layout` says (nothing when `None`).
    pub(crate) fn laid_out(mut self, layout: Option<SampleLayout>) -> Crew<R> {
        self.layout = layout;
        self
    }

    /// Spawns the next member. It pins itself as planned, waits at the start barrier, then runs
    /// `work`; whatever `work` returns (or its panic) is collected by [`Crew::collect`].
    pub fn spawn<F>(&mut self, name: &str, work: F)
    where
        F: FnOnce() -> R + Send + 'static,
    {
        self.spawn_boxed(None, name, Box::new(work));
    }

    /// [`Crew::spawn`], the member's CPU time from the start line to the end of its work counted
    /// for `side` in [`Crew::cpu`] (see [`super::cpu`]).
    pub fn spawn_as<F>(&mut self, side: Side, name: &str, work: F)
    where
        F: FnOnce() -> R + Send + 'static,
    {
        self.spawn_boxed(Some(side), name, Box::new(work));
    }

    /// [`Crew::spawn`] with the member's work boxed: the thread's set-up (spawn, pinning, start
    /// line, panic capture, report) is compiled once per crew type rather than once per engine,
    /// transport and payload. The work is called once per thread through the box; everything it
    /// does per message stays the caller's own monomorphised code.
    ///
    /// A member on a `side` reads its thread's CPU clock as it leaves the start line and as its
    /// work returns (panicked or not), before it reports: the tally is complete once every
    /// member has been collected.
    fn spawn_boxed(&mut self, side: Option<Side>, name: &str, work: Box<dyn FnOnce() -> R + Send>) {
        let idx = self.spawned;
        self.spawned += 1;
        let core = self.plan.cores.get(idx).copied().flatten();
        let barrier = self.barrier.clone();
        let tx = self.tx.clone();
        let progress = self.progress.clone();
        let tally = self.cpu.clone();
        let frames = self.layout.map_or(0, |l| l.stack_frames(idx));
        let spawned = thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                if !placement::apply(core) {
                    progress.pin_failed.store(true, Ordering::Relaxed);
                }
                // The member's whole life, from the start line on, runs below its padding.
                let out = layout::with_stack_pad(frames, || {
                    barrier.arrive();
                    let cpu_start = side.and_then(|_| cpu::thread_cpu_ns());
                    let out = catch_unwind(AssertUnwindSafe(work));
                    if let Some(side) = side {
                        tally.add(side, cpu_start, cpu::thread_cpu_ns());
                    }
                    out
                });
                let _ = tx.send((idx, out));
            });
        if let Err(e) = spawned {
            let _ = self
                .tx
                .send((idx, Err(Box::new(format!("could not spawn thread: {e}")))));
        }
    }

    /// Waits for every member. Results are in spawn order.
    ///
    /// The watchdog: whenever [`Progress::delivered`] moves, the `watchdog` interval starts
    /// again; when it runs out with members still running, the sample is [`CrewError::Hung`]. A
    /// slow sample that keeps delivering is waited for as long as it takes.
    pub fn collect(self, watchdog: Duration) -> Result<Vec<R>, CrewError> {
        let Crew {
            tx,
            rx,
            spawned,
            progress,
            ..
        } = self;
        drop(tx);
        let poll = poll_period(watchdog);
        let mut out: Vec<Option<R>> = (0..spawned).map(|_| None).collect();
        let mut finished = 0;
        let mut panic: Option<(String, Instant)> = None;
        let mut seen = progress.delivered.load(Ordering::Relaxed);
        let mut moved = Instant::now();
        while finished < spawned {
            let now = Instant::now();
            let mut wake = (moved + watchdog).min(now + poll);
            if let Some((_, until)) = &panic {
                wake = wake.min(*until);
            }
            let wait = wake.saturating_duration_since(now);
            match rx.recv_timeout(wait.max(Duration::from_millis(1))) {
                Ok((idx, Ok(r))) => {
                    out[idx] = Some(r);
                    finished += 1;
                }
                Ok((_, Err(p))) => {
                    finished += 1;
                    if panic.is_none() {
                        panic = Some((panic_message(&*p), Instant::now() + AFTER_PANIC));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if finished == spawned {
                break;
            }
            let now = Instant::now();
            if panic.is_none() {
                if let Some(msg) = progress.panicked() {
                    panic = Some((msg, now + AFTER_PANIC));
                }
            }
            let delivered = progress.delivered.load(Ordering::Relaxed);
            if delivered != seen {
                seen = delivered;
                moved = now;
            }
            match panic {
                // A panicking member often strands the others; the panic is the cause.
                Some((msg, until)) if now >= until || now >= moved + watchdog => {
                    return Err(CrewError::Panicked(msg));
                }
                Some(p) => panic = Some(p),
                None if now >= moved + watchdog => {
                    return Err(CrewError::Hung {
                        finished,
                        total: spawned,
                        quiet: now - moved,
                    });
                }
                None => {}
            }
        }
        if let Some((msg, _)) = panic {
            return Err(CrewError::Panicked(msg));
        }
        Ok(out
            .into_iter()
            .map(|r| r.expect("every member reported"))
            .collect())
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Publishes `c` forty times a microsecond apart from `t0`, which doubles its stride up to
    /// its ceiling (checked); returns the count last published.
    fn grown_to_ceiling(c: &mut Cadence, delivered: &AtomicU64, t0: Instant) -> u64 {
        let mut n = 0;
        for i in 1..=40 {
            n = c.next();
            c.publish_at(n, delivered, t0 + Duration::from_micros(i));
        }
        assert_eq!(c.next() - n, PROGRESS_EVERY);
        n
    }

    #[test]
    fn a_cadence_speeds_up_on_a_fast_stream_and_slows_down_on_a_slow_one() {
        let delivered = AtomicU64::new(0);
        let t0 = Instant::now();
        let mut c = Cadence::new();
        c.last = t0;
        assert_eq!(c.next(), 1, "the first message is published");
        let mut n = grown_to_ceiling(&mut c, &delivered, t0);
        assert_eq!(delivered.load(Ordering::Relaxed), n);
        // The next stride took a whole second: it is cut so the next one takes about a period.
        let later = t0 + Duration::from_secs(1);
        n = c.next();
        c.publish_at(n, &delivered, later);
        let stride = c.next() - n;
        assert_eq!(stride, (PROGRESS_EVERY as u128 * 10 / 1000) as u64);
        // Slower still: one message per publication, never none.
        c.publish_at(n + stride, &delivered, later + Duration::from_secs(100));
        assert_eq!(c.next(), n + stride + 1);
        // The final count is published whatever the stride.
        c.finish(n + stride + 1, &delivered);
        assert_eq!(delivered.load(Ordering::Relaxed), n + stride + 1);
    }

    #[test]
    fn timed_round_trips_are_published_by_time_when_they_slow_down() {
        let delivered = AtomicU64::new(0);
        let t0 = Instant::now();
        let mut c = Cadence::new();
        c.last = t0;
        // Fast round trips grow the stride to its ceiling.
        let n = grown_to_ceiling(&mut c, &delivered, t0);
        // Then each round trip takes 3 ms: by count, the next publication would come after
        // PROGRESS_EVERY of them (49 s); by time it comes at the fourth, the first to reach
        // the period.
        let slow = Duration::from_millis(3).as_nanos() as u64;
        let due: Vec<bool> = (1..=4).map(|k| c.timed(slow, n + k)).collect();
        assert_eq!(due, [false, false, false, true]);
        c.publish_at(n + 4, &delivered, t0 + Duration::from_millis(12));
        assert_eq!(delivered.load(Ordering::Relaxed), n + 4);
        // A publication starts the time over, and the stride came down with the gap.
        assert!(!c.timed(slow, n + 5));
        assert!(c.next() - (n + 4) < PROGRESS_EVERY);
        // Untimed loops (streams) are published by count alone, as before.
        let mut s = Cadence::new();
        let start = s.last;
        assert!(s.timed(0, 1));
        s.publish_at(1, &delivered, start + Duration::from_micros(1));
        assert_eq!(s.next(), 3);
        assert!(!s.timed(0, 2));
        assert!(s.timed(0, 3));
    }

    #[test]
    fn consumers_add_their_counts() {
        let delivered = AtomicU64::new(0);
        let (mut a, mut b) = (Cadence::new(), Cadence::new());
        a.publish(10, &delivered);
        b.publish(5, &delivered);
        a.finish(30, &delivered);
        b.finish(20, &delivered);
        b.finish(20, &delivered);
        assert_eq!(delivered.load(Ordering::Relaxed), 50);
    }

    #[test]
    fn a_watched_sample_uses_the_installed_progress() {
        let p = Arc::new(Progress::default());
        let inside = watched(p.clone(), Progress::for_sample);
        assert!(Arc::ptr_eq(&p, &inside));
        // Outside, every sample gets a progress of its own.
        assert!(!Arc::ptr_eq(&p, &Progress::for_sample()));
        let crew: Crew<()> = watched(p.clone(), || Crew::new(1, placement::plan(1, false)));
        assert!(Arc::ptr_eq(&p, &crew.progress));
    }

    #[test]
    fn a_member_that_keeps_delivering_outlasts_the_watchdog_interval() {
        let mut crew: Crew<u64> = Crew::new(1, placement::plan(1, false));
        let progress = crew.progress.clone();
        let watchdog = Duration::from_millis(250);
        crew.spawn("slow", move || {
            // Three intervals in all, a delivery every tenth of one.
            for _ in 0..30 {
                thread::sleep(Duration::from_millis(25));
                progress.delivered.fetch_add(1, Ordering::Relaxed);
            }
            30
        });
        let start = Instant::now();
        let out = crew.collect(watchdog).ok().expect("not hung");
        assert_eq!(out, vec![30]);
        assert!(start.elapsed() > watchdog);
    }

    /// A member that spins is charged the CPU time it spun, one that sleeps almost none. The
    /// spinner spins until its own CPU clock has moved 20 ms, and the sleeper sleeps 50 ms, so
    /// neither bound depends on how busy the machine is.
    #[cfg(unix)]
    #[test]
    fn members_on_a_side_report_their_cpu_time() {
        const SPIN_NS: u64 = 20_000_000;
        let mut crew: Crew<Duration> = Crew::new(3, placement::plan(3, false));
        crew.spawn_as(Side::Producer, "spinner", || {
            let start = Instant::now();
            let cpu0 = cpu::thread_cpu_ns().expect("a thread CPU clock");
            while cpu::thread_cpu_ns().unwrap_or(u64::MAX) - cpu0 < SPIN_NS {
                std::hint::spin_loop();
            }
            start.elapsed()
        });
        crew.spawn_as(Side::Consumer, "sleeper", || {
            let start = Instant::now();
            thread::sleep(Duration::from_millis(50));
            start.elapsed()
        });
        // A member on no side is not counted, and does not spoil the others' record.
        crew.spawn("bystander", || Duration::ZERO);
        let tally = crew.cpu.clone();
        let walls = crew
            .collect(Duration::from_secs(30))
            .ok()
            .expect("not hung");
        let cpu = tally.record().expect("both sides measured");
        assert!(cpu.producer_ns >= SPIN_NS, "{cpu:?}");
        assert!(
            cpu.producer_ns <= walls[0].as_nanos() as u64 + 1_000_000,
            "{cpu:?} {walls:?}"
        );
        // A sleeping thread's CPU time is its wake-ups': far below its 50 ms.
        assert!(cpu.consumer_ns < 10_000_000, "{cpu:?}");
    }

    #[test]
    fn a_member_that_delivers_nothing_is_hung() {
        let mut crew: Crew<()> = Crew::new(2, placement::plan(2, false));
        let progress = crew.progress.clone();
        crew.spawn("quick", || ());
        crew.spawn("stuck", move || {
            progress.delivered.fetch_add(3, Ordering::Relaxed);
            // Parked until the test process ends.
            loop {
                thread::park();
            }
        });
        match crew.collect(Duration::from_millis(50)) {
            Err(CrewError::Hung {
                finished,
                total,
                quiet,
            }) => {
                assert_eq!((finished, total), (1, 2));
                assert!(quiet >= Duration::from_millis(50), "{quiet:?}");
            }
            _ => panic!("expected a hang"),
        }
    }
}
