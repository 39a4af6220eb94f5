//! The stages of a pipeline: each receives from one hop, spins for the stage's work, and sends
//! into the next hop.

use super::gauge::Gauge;
use crate::open_loop::clock::Clock;
use crate::transport::{Receiver, Sender};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

/// One stage, as it is handed to its thread (its endpoints apart).
pub(super) struct Stage {
    /// The hop it reads (it writes the next one).
    pub h: usize,
    /// Nanoseconds it spins for each event.
    pub work: u64,
    /// Every hop's counters.
    pub gauges: Arc<Vec<Gauge>>,
    /// The sample's clock.
    pub clock: Clock,
}

/// What one stage reports: failed non-blocking (send, receive) attempts.
pub(super) struct StageReport {
    pub failed: (u64, u64),
}

impl Stage {
    /// Passes every event from `rx` to `tx`, after the stage's work, until `rx` ends.
    pub fn run<M, R: Receiver<M>, S: Sender<M>>(self, mut rx: R, mut tx: S) -> StageReport {
        let Stage {
            h,
            work,
            gauges,
            clock,
        } = self;
        let (mut received, mut sent) = (0u64, 0u64);
        while let Some(m) = rx.recv() {
            received += 1;
            gauges[h].received[0].store(received, AtomicOrdering::Relaxed);
            if work > 0 {
                let until = clock.now_ns().saturating_add(work);
                while clock.now_ns() < until {
                    std::hint::spin_loop();
                }
            }
            if tx.send(m).is_err() {
                break;
            }
            sent += 1;
            gauges[h + 1].sent[0].store(sent, AtomicOrdering::Relaxed);
        }
        let failed = (tx.failed_attempts(), rx.failed_attempts());
        drop(tx);
        StageReport { failed }
    }
}
