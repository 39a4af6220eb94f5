//! The stages of a pipeline: each receives from one hop, spins for the stage's work, and sends
//! into the next hop.

use super::gauge::Gauge;
use crate::engine::hop::{DynAsyncReceiver, DynAsyncSender};
use crate::open_loop::clock::Clock;
use crate::transport::{Receiver, Sender};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

/// One stage, as it is handed to its thread (its endpoints apart).
pub(in crate::engine) struct Stage {
    /// The hop it reads (it writes the next one).
    pub h: usize,
    /// Nanoseconds it spins for each event.
    pub work: u64,
    /// Every hop's counters.
    pub gauges: Arc<Vec<Gauge>>,
    /// The sample's clock.
    pub clock: Clock,
}

/// What one stage reports: failed non-blocking (send, receive) attempts, and the wake-ups of
/// the async hop it awaits.
pub(in crate::engine) struct StageReport {
    /// The hop it reads.
    pub h: usize,
    pub failed: (u64, u64),
    pub wakeups: Option<u64>,
}

impl Stage {
    /// Passes every event from `rx` to `tx`, after the stage's work, until `rx` ends.
    pub fn run<M, R: Receiver<M>, S: Sender<M>>(self, mut rx: R, mut tx: S) -> StageReport {
        let (mut received, mut sent) = (0u64, 0u64);
        while let Some(m) = rx.recv() {
            self.on_receive(&mut received);
            if tx.send(m).is_err() {
                break;
            }
            self.on_sent(&mut sent);
        }
        let failed = (tx.failed_attempts(), rx.failed_attempts());
        drop(tx);
        StageReport {
            h: self.h,
            failed,
            wakeups: None,
        }
    }

    /// [`Stage::run`] as a task awaiting async hops.
    pub async fn run_async<M: Send + 'static>(
        self,
        mut rx: Box<dyn DynAsyncReceiver<M>>,
        mut tx: Box<dyn DynAsyncSender<M>>,
    ) -> StageReport {
        let (mut received, mut sent) = (0u64, 0u64);
        while let Some(m) = rx.recv_boxed().await {
            self.on_receive(&mut received);
            if tx.send_boxed(m).await.is_err() {
                break;
            }
            self.on_sent(&mut sent);
        }
        drop(tx);
        StageReport {
            h: self.h,
            failed: (0, 0),
            wakeups: Some(rx.wakeups()),
        }
    }

    /// Counts one event in and spins for the stage's work.
    #[inline]
    fn on_receive(&self, received: &mut u64) {
        *received += 1;
        self.gauges[self.h].received[0].store(*received, AtomicOrdering::Relaxed);
        if self.work > 0 {
            let until = self.clock.now_ns().saturating_add(self.work);
            while self.clock.now_ns() < until {
                std::hint::spin_loop();
            }
        }
    }

    /// Counts one event out into the next hop.
    #[inline]
    fn on_sent(&self, sent: &mut u64) {
        *sent += 1;
        self.gauges[self.h + 1].sent[0].store(*sent, AtomicOrdering::Relaxed);
    }
}
