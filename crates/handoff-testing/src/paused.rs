//! The channel under `faulty-slow` and `planted-delay`: an unbounded std channel whose single
//! consumer pauses for a set time on every message, sleeping before the receive or spinning
//! after it. Unbounded, so that the producer never blocks and the consumer seldom finds it
//! empty: what a message costs is the pause, not wake-ups between the threads.

use handoff::message::Message;
use handoff::semantics::{
    Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
};
use handoff::transport::{ChannelConfig, Endpoints, Receiver, Sender};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How the consumer spends its time on each message.
#[derive(Clone, Copy, Debug)]
pub enum Pause {
    /// Sleeps this long before each receive (slow, and idle while it waits).
    SleepBefore(Duration),
    /// Spins this long after each receive (steady work that keeps its core busy).
    SpinAfter(Duration),
}

/// Producer side: a plain std sender (also the producer side of the transports in
/// [`super::process`]).
pub struct PausedTx<M>(pub(super) mpsc::Sender<M>);

/// Consumer side: a std receiver that pauses on every message.
pub struct PausedRx<M> {
    rx: mpsc::Receiver<M>,
    pause: Pause,
}

impl<M: Message> Sender<M> for PausedTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

impl<M: Message> Receiver<M> for PausedRx<M> {
    fn recv(&mut self) -> Option<M> {
        match self.pause {
            Pause::SleepBefore(d) => {
                std::thread::sleep(d);
                self.rx.recv().ok()
            }
            Pause::SpinAfter(d) => {
                let m = self.rx.recv().ok()?;
                let until = Instant::now() + d;
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                Some(m)
            }
        }
    }
}

/// What the channel declares: many producers, one consumer, FIFO per producer, unbounded,
/// blocking, cross-thread.
pub const SEMANTICS: Semantics = Semantics {
    producers: Arity::Many,
    consumers: Arity::One,
    ordering: Ordering::PerProducerFifo,
    bound: Bound::Unbounded,
    wait: WaitStrategy::Block,
    batch: false,
    locality: Locality::CrossThread,
    consumer_style: ConsumerStyle::Pull,
    delivery: handoff::semantics::Delivery::ExactlyOnce,
};

/// A channel for `cfg.producers` producers whose consumer pauses as `pause` says.
pub fn endpoints<M: Message>(
    cfg: &ChannelConfig,
    pause: Pause,
) -> Endpoints<PausedTx<M>, PausedRx<M>> {
    let (tx, rx) = mpsc::channel();
    Endpoints {
        senders: (0..cfg.producers).map(|_| PausedTx(tx.clone())).collect(),
        receivers: vec![PausedRx { rx, pause }],
    }
}
