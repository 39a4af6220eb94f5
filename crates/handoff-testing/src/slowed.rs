//! `slowed-ring`: a spinning ring (`handoff-spsc`) whose hand-offs a test can make slower by a
//! known share, for measuring how small a change a comparison method can find (a channel with a
//! planted cost is [`super::planted`]).
//!
//! The consumer counts its receives; after every [`CHUNK`] of them it spins for the share of the
//! time that chunk took which the environment variable [`SHARE_VAR`] plants (a fraction of the
//! rate, `0.05` = 5% fewer messages per second): a slowdown by `s` lengthens every chunk by
//! `s / (1 - s)` of its own time. So the planted change is relative, the same on a fast machine
//! and a slow one, at a granularity no per-message spin could reach (a 2% slowdown of a 1.6 ns
//! hand-off is 0.03 ns). While the consumer spins, the producer fills the queue and then waits:
//! with a capacity far below a chunk (say 64), the whole pipeline loses the spin, and the rate
//! falls by the planted share. (Pausing the producer, or a queue that holds a chunk, lets the
//! other side overlap the pause: a spinning ring can even speed up when one side pauses, its two
//! cores then fighting less over the shared lines, and a blocking channel whose consumer pauses
//! parks and wakes less, measured at +10 to +19% for `crossbeam-bounded` at capacity 1024 with 5%
//! planted; at capacity 64 its producer parks instead, and the rate fell by 20 to 76%.) With nothing planted the counting is still
//! done, so the two builds compared differ in the environment only: the share is read when the
//! channel is created, never per message.
//!
//! As in [`super::planted`], the share is not an option on purpose: an option is part of a
//! result's identity, and a planted slowdown must be the same measurement getting slower.

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Sender, Transport, TransportInfo,
};
use handoff_transports::HandoffSpsc;
use std::time::{Duration, Instant};

/// The environment variable holding the planted slowdown, a fraction of the rate in [0, 0.9].
pub const SHARE_VAR: &str = "HANDOFF_PLANTED_SLOWDOWN";

/// Receives per chunk: long enough that reading the clock twice per chunk is noise (about 40 ns
/// over at least 6 µs) and that a small queue's buffer holds a small part of it, short enough
/// that every sample holds hundreds of chunks.
pub const CHUNK: u32 = 4096;

/// A transport slowed by the planted share (see the module docs).
pub struct Slowed<T> {
    name: &'static str,
    inner: T,
}

/// `slowed-ring`: `handoff-spsc` with its default wait (the harness's shared spin).
pub fn ring() -> Slowed<HandoffSpsc> {
    Slowed {
        name: "slowed-ring",
        inner: HandoffSpsc,
    }
}

/// The planted share from the environment: 0 when unset; an error for anything but a
/// fraction from 0 to 0.9.
fn planted() -> Result<f64, BuildError> {
    let Ok(text) = std::env::var(SHARE_VAR) else {
        return Ok(0.0);
    };
    match text.trim().parse::<f64>() {
        Ok(s) if (0.0..=0.9).contains(&s) => Ok(s),
        _ => Err(BuildError::Invalid(format!(
            "{SHARE_VAR}: expected a fraction of the rate from 0 to 0.9 (0.05 = 5% slower), got `{text}`"
        ))),
    }
}

/// The consumer's clock: counts receives and spins the planted share of each chunk's time.
struct Plant {
    /// `s / (1 - s)` for a planted slowdown `s`.
    stretch: f64,
    count: u32,
    since: Instant,
}

impl Plant {
    fn new(share: f64) -> Plant {
        Plant {
            stretch: share / (1.0 - share),
            count: 0,
            since: Instant::now(),
        }
    }

    #[inline]
    fn tick(&mut self) {
        self.count += 1;
        if self.count == CHUNK {
            self.chunk_done();
        }
    }

    #[cold]
    fn chunk_done(&mut self) {
        self.count = 0;
        let now = Instant::now();
        if self.stretch > 0.0 {
            let until =
                now + Duration::from_secs_f64((now - self.since).as_secs_f64() * self.stretch);
            while Instant::now() < until {
                std::hint::spin_loop();
            }
            self.since = Instant::now();
        } else {
            self.since = now;
        }
    }
}

/// Producer side: the inner sender.
pub struct SlowedTx<S> {
    inner: S,
}

/// Consumer side: the inner receiver, then the plant.
pub struct SlowedRx<R> {
    inner: R,
    plant: Plant,
}

impl<M: Message, S: Sender<M>> Sender<M> for SlowedTx<S> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.inner.send(msg)
    }

    fn failed_attempts(&self) -> u64 {
        self.inner.failed_attempts()
    }
}

impl<M: Message, R: Receiver<M>> Receiver<M> for SlowedRx<R> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        let m = self.inner.recv()?;
        self.plant.tick();
        Some(m)
    }

    fn failed_attempts(&self) -> u64 {
        self.inner.failed_attempts()
    }
}

impl<T: Transport> Transport for Slowed<T> {
    type Tx<M: Message> = SlowedTx<T::Tx<M>>;
    type Rx<M: Message> = SlowedRx<T::Rx<M>>;

    fn info(&self) -> TransportInfo {
        let inner = self.inner.info();
        TransportInfo {
            name: self.name.into(),
            description: format!(
                "test-only: {} whose consumer spins ${SHARE_VAR} of each {CHUNK} receives' time (a planted slowdown)",
                inner.name
            ),
            semantics: inner.semantics,
            options: vec![],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let share = planted()?;
        let ends = self.inner.channel::<M>(cfg)?;
        Ok(Endpoints {
            senders: ends
                .senders
                .into_iter()
                .map(|inner| SlowedTx { inner })
                .collect(),
            receivers: ends
                .receivers
                .into_iter()
                .map(|inner| SlowedRx {
                    inner,
                    plant: Plant::new(share),
                })
                .collect(),
        })
    }
}

/// Registers `slowed-ring`.
pub fn register_all(c: &mut Catalog) {
    // Slowed from outside its code (the environment): no code identity (see `planted`).
    c.register(Entry::pull(ring()).without_code_identity());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_is_stretched_by_the_planted_share_of_its_own_time() {
        let mut p = Plant::new(0.2);
        assert!((p.stretch - 0.25).abs() < 1e-12);
        // A chunk that took at least 4 ms is followed by a spin of at least a quarter of it.
        p.since = Instant::now() - Duration::from_millis(4);
        p.count = CHUNK - 1;
        let before = Instant::now();
        p.tick();
        assert!(before.elapsed() >= Duration::from_millis(1));
        assert_eq!(p.count, 0);
        // Nothing planted: no spin, the clock restarts.
        let mut q = Plant::new(0.0);
        q.count = CHUNK - 1;
        q.tick();
        assert_eq!(q.count, 0);
    }
}
