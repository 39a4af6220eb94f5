//! A crew of worker threads: spawned, pinned and parked at a start barrier before timing begins,
//! then collected under a watchdog.
//!
//! Every member runs inside `catch_unwind`, so a transport that panics is reported as crashed
//! instead of taking the harness down. A member that never reports before the deadline makes the
//! whole sample `hung`; its thread is left behind (it cannot be killed from inside the process),
//! which is why the command-line tool runs each trial in a child process it can kill.

use crate::layout::{self, SampleLayout};
use crate::placement::{self, Plan};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Shared between the crew and the watchdog: consumers publish their progress here now and then
/// so a hang report can say how far the stream got.
///
/// Aligned to two cache lines so the consumers' occasional stores never share a line (or an
/// adjacent-line prefetch pair) with a transport's own allocation: the harness must not add
/// false sharing to what it measures, whatever the allocator's placement.
#[derive(Default)]
#[repr(align(128))]
pub struct Progress {
    /// Messages delivered so far (updated every few thousand messages).
    pub delivered: AtomicU64,
    /// A pin request was refused by the OS.
    pub pin_failed: AtomicBool,
}

/// The start line: every member spins (yielding now and then) until all have arrived.
///
/// A kernel barrier (`std::sync::Barrier`) would release threads one futex wake-up at a time,
/// tens of microseconds apart on some machines, and that skew would be timed as if it were the
/// transport's. Spinning releases every member within a cache-line transfer of each other.
#[repr(align(128))]
pub struct StartLine {
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

/// How often consumers publish progress (messages).
pub const PROGRESS_EVERY: u64 = 4096;

/// The crew under construction and, once started, being collected.
pub struct Crew<R> {
    tx: mpsc::Sender<(usize, thread::Result<R>)>,
    rx: mpsc::Receiver<(usize, thread::Result<R>)>,
    barrier: Arc<StartLine>,
    plan: Plan,
    spawned: usize,
    /// The sample's placement (stack padding per member), if layouts are randomised.
    layout: Option<SampleLayout>,
    /// Progress published by consumers.
    pub progress: Arc<Progress>,
}

/// Why collecting failed.
pub enum CrewError {
    /// The deadline passed with members still running.
    Hung {
        /// Members that reported.
        finished: usize,
        /// Members in all.
        total: usize,
    },
    /// A member panicked.
    Panicked(String),
}

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
            progress: Arc::new(Progress::default()),
        }
    }

    /// The crew with its members' stacks padded as `layout` says (nothing when `None`).
    pub fn laid_out(mut self, layout: Option<SampleLayout>) -> Crew<R> {
        self.layout = layout;
        self
    }

    /// Spawns the next member. It pins itself as planned, waits at the start barrier, then runs
    /// `work`; whatever `work` returns (or its panic) is collected by [`Crew::collect`].
    pub fn spawn<F>(&mut self, name: &str, work: F)
    where
        F: FnOnce() -> R + Send + 'static,
    {
        self.spawn_boxed(name, Box::new(work));
    }

    /// [`Crew::spawn`] with the member's work boxed: the thread's set-up (spawn, pinning, start
    /// line, panic capture, report) is compiled once per crew type rather than once per engine,
    /// transport and payload. The work is called once per thread through the box; everything it
    /// does per message stays the caller's own monomorphised code.
    fn spawn_boxed(&mut self, name: &str, work: Box<dyn FnOnce() -> R + Send>) {
        let idx = self.spawned;
        self.spawned += 1;
        let core = self.plan.cores.get(idx).copied().flatten();
        let barrier = self.barrier.clone();
        let tx = self.tx.clone();
        let progress = self.progress.clone();
        let frames = self.layout.map_or(0, |l| l.stack_frames(idx));
        let spawned = thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                if !placement::apply(core) {
                    progress.pin_failed.store(true, Ordering::Relaxed);
                }
                // The member's whole life, from the start line on, runs below its padding.
                let out = layout::with_stack_pad(frames, || {
                    barrier.wait();
                    catch_unwind(AssertUnwindSafe(work))
                });
                let _ = tx.send((idx, out));
            });
        if let Err(e) = spawned {
            let _ = self
                .tx
                .send((idx, Err(Box::new(format!("could not spawn thread: {e}")))));
        }
    }

    /// Waits for every member, at most until `deadline`. Results are in spawn order.
    pub fn collect(self, deadline: Instant) -> Result<Vec<R>, CrewError> {
        let Crew {
            tx, rx, spawned, ..
        } = self;
        drop(tx);
        let mut out: Vec<Option<R>> = (0..spawned).map(|_| None).collect();
        let mut finished = 0;
        let mut panic = None;
        let mut deadline = deadline;
        while finished < spawned {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.max(Duration::from_millis(1))) {
                Ok((idx, Ok(r))) => {
                    out[idx] = Some(r);
                    finished += 1;
                }
                Ok((_, Err(p))) => {
                    finished += 1;
                    panic.get_or_insert_with(|| panic_message(&*p));
                    // The others may be stranded by the panic; give them a moment, not the
                    // whole timeout.
                    deadline = deadline.min(Instant::now() + Duration::from_secs(1));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if Instant::now() >= deadline {
                        if let Some(msg) = panic {
                            // A panicking member often strands the others; the panic is the cause.
                            return Err(CrewError::Panicked(msg));
                        }
                        return Err(CrewError::Hung {
                            finished,
                            total: spawned,
                        });
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if let Some(msg) = panic {
            return Err(CrewError::Panicked(msg));
        }
        Ok(out
            .into_iter()
            .map(|r| r.expect("every member reported"))
            .collect())
    }
}

/// The text of a panic payload.
pub fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_string()
    }
}
