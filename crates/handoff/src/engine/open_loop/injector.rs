//! The injectors of an open-loop sample. Each sends its share of the events into the first hop
//! on a [`Pacer`] schedule, stamping each with the time it was due and the time it was offered.
//! A send the transport refuses (full) is counted and then made blocking, so the message still
//! arrives and its wait shows in its latency; the longest such wait is kept too. Injector 0 also
//! samples every hop's depth now and then.
//!
//! A pipeline's merge source is an injector too, of its own rate, writing a middle hop beside
//! the stage that feeds it.

use super::gauge::{depth_histogram, Gauge};
use super::windows::WindowSpec;
use crate::message::Message;
use crate::open_loop::clock::Clock;
use crate::open_loop::pacer::{self, Pacer, Wait};
use crate::open_loop::Stamped;
use crate::transport::{Sender, TrySendError};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

/// One injector, as it is handed to its thread (its sender apart).
pub(in crate::engine) struct Injector {
    /// The producer id its messages carry (injectors from 0, then the merge source).
    pub id: usize,
    /// The hop it writes (0 for the injectors).
    pub hop: usize,
    /// Its counter among that hop's writers.
    pub slot: usize,
    /// Whether it samples every hop's depth (injector 0).
    pub samples_depths: bool,
    /// Events this injector sends.
    pub per: u64,
    /// Nanoseconds between two of its sends.
    pub interval: f64,
    /// Nanoseconds its first send is due after the start (injectors are staggered over one
    /// interval).
    pub stagger: f64,
    /// How it waits for a send's due time.
    pub wait: Wait,
    /// Injector 0 samples the depths every this many sends.
    pub every: u64,
    /// The sample's clock.
    pub clock: Clock,
    /// Every hop's counters; this injector writes its own into the first hop's.
    pub gauges: Arc<Vec<Gauge>>,
    /// The most a hop can hold, where it is bounded by conflation (a `latest` hop holds one).
    pub depth_caps: Vec<Option<u64>>,
    /// Set once the sample's tasks are at their start gate (stages and sinks under a driver):
    /// the injector waits for it before its schedule starts.
    pub ready: Option<Arc<AtomicBool>>,
    /// A soak's windows, which injector 0 starts at its first due time.
    pub start: Option<WindowSpec>,
}

/// What one injector reports (also from a peer process, as JSON: its moments are on the
/// sample's clock, which both processes share).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct InjectorReport {
    /// When its first send was due.
    pub first_due: u64,
    /// When its last send was offered.
    pub last_sent: u64,
    /// Events sent.
    pub sent: u64,
    /// Sends the transport refused (full), each then made blocking.
    pub refused: u64,
    /// The longest wait of a refused send, nanoseconds.
    pub refused_wait_max: u64,
    /// The transport can say it is full (it has a non-blocking send).
    pub observable: bool,
    /// The injector and sequence number of a send that found the hop disconnected.
    pub disconnected: Option<(u32, u64)>,
    /// Failed non-blocking send attempts the sender counted.
    pub failed: u64,
    /// Injector 0: one depth histogram per hop; empty for the others.
    #[serde(with = "encoded")]
    pub depths: Vec<Histogram<u64>>,
}

/// Histograms in their compressed text form (see [`crate::histogram::encode`]).
mod encoded {
    use hdrhistogram::Histogram;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(hs: &[Histogram<u64>], s: S) -> Result<S::Ok, S::Error> {
        hs.iter()
            .map(crate::histogram::encode)
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Histogram<u64>>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|t| crate::histogram::decode(t).map_err(serde::de::Error::custom))
            .collect()
    }
}

impl Injector {
    /// Sends this injector's events into `tx` on its schedule.
    /// Every message is built in `form` (the trial's payload's).
    pub fn run<M: Message, S: Sender<Stamped<M>>>(
        self,
        mut tx: S,
        form: M::Form,
    ) -> InjectorReport {
        let Injector {
            id,
            hop,
            slot,
            samples_depths,
            per,
            interval,
            stagger,
            wait,
            every,
            clock,
            gauges,
            depth_caps,
            ready,
            start,
        } = self;
        if let Some(ready) = ready {
            let mut spins = 0u32;
            while !ready.load(AtomicOrdering::Acquire) {
                spins += 1;
                if spins % 64 == 0 {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
        let first_due = clock.now_ns() + stagger as u64;
        if let Some(w) = &start {
            w.begin(first_due);
        }
        let pacer = Pacer::new(clock.clone(), first_due, interval, wait);
        let mut depths: Vec<Histogram<u64>> = if samples_depths {
            (0..gauges.len()).map(|_| depth_histogram()).collect()
        } else {
            Vec::new()
        };
        let counter = &gauges[hop].sent[slot];
        let (mut refused, mut observable, mut use_try) = (0u64, true, true);
        let mut refused_wait_max = 0u64;
        let mut disconnected = None;
        let mut last_sent = first_due;
        let mut sent = 0;
        for seq in 0..per {
            let mut msg = Stamped::<M>::build_in(form, id as u32, seq);
            let due = pacer.due(seq);
            msg.intended_ns = due;
            let now = pacer.wait_until(due);
            msg.sent_ns = now;
            let mut was_refused = false;
            let blocked = if use_try {
                match tx.try_send(msg) {
                    Ok(()) => None,
                    Err(TrySendError::Full(m)) => {
                        refused += 1;
                        was_refused = true;
                        Some(m)
                    }
                    Err(TrySendError::Unsupported(m)) => {
                        observable = false;
                        use_try = false;
                        Some(m)
                    }
                    Err(TrySendError::Disconnected(_)) => {
                        disconnected = Some((id as u32, seq));
                        break;
                    }
                }
            } else {
                Some(msg)
            };
            if let Some(m) = blocked {
                if tx.send(m).is_err() {
                    disconnected = Some((id as u32, seq));
                    break;
                }
                // Only a refused send pays this clock read.
                if was_refused {
                    let waited = clock.now_ns().saturating_sub(now);
                    refused_wait_max = refused_wait_max.max(waited);
                }
            }
            sent = seq + 1;
            counter.store(sent, AtomicOrdering::Relaxed);
            last_sent = now;
            if samples_depths && seq % every == 0 {
                for ((g, h), cap) in gauges.iter().zip(&mut depths).zip(&depth_caps) {
                    let d = g.depth();
                    h.saturating_record(cap.map_or(d, |c| d.min(c)));
                }
            }
        }
        let failed = tx.failed_attempts();
        drop(tx);
        InjectorReport {
            first_due,
            last_sent,
            sent,
            refused,
            refused_wait_max,
            observable,
            disconnected,
            failed,
            depths,
        }
    }
}

/// The injectors' reports, added up.
#[derive(Default)]
pub(super) struct Injected {
    /// The rate achieved, over every injector.
    pub achieved: f64,
    /// Sends refused.
    pub refused: u64,
    /// The longest wait of a refused send, nanoseconds.
    pub refused_wait_max_ns: u64,
    /// Every injector's transport can say it is full.
    pub observable: bool,
    /// Events sent.
    pub sent: u64,
    /// Failed non-blocking send attempts of the injectors.
    pub failed: u64,
    /// When the first send was due (`u64::MAX` before any report).
    pub first: u64,
    /// The first disconnection an injector met.
    pub disconnect: Option<(u32, u64)>,
    /// Injector 0's depth histograms, one per hop.
    pub depths: Vec<Histogram<u64>>,
}

impl Injected {
    /// Nothing added yet.
    pub fn new() -> Injected {
        Injected {
            observable: true,
            first: u64::MAX,
            ..Injected::default()
        }
    }

    /// Adds one injector's report; `interval` is its time between two sends.
    pub fn add(&mut self, r: InjectorReport, interval: f64) {
        self.achieved += pacer::achieved_rate(r.sent, r.first_due, r.last_sent, interval);
        self.refused += r.refused;
        self.refused_wait_max_ns = self.refused_wait_max_ns.max(r.refused_wait_max);
        self.observable &= r.observable;
        self.sent += r.sent;
        self.failed += r.failed;
        self.first = self.first.min(r.first_due);
        self.disconnect = self.disconnect.or(r.disconnected);
        if !r.depths.is_empty() {
            self.depths = r.depths;
        }
    }

    /// Adds a merge source's report: its events count as sent (and refused) like the
    /// injectors', but the achieved rate and the schedule's start are the injectors' alone.
    pub fn add_source(&mut self, r: InjectorReport) {
        self.refused += r.refused;
        self.refused_wait_max_ns = self.refused_wait_max_ns.max(r.refused_wait_max);
        self.observable &= r.observable;
        self.sent += r.sent;
        self.failed += r.failed;
        self.disconnect = self.disconnect.or(r.disconnected);
    }
}
