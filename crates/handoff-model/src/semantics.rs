//! What a transport promises: the semantics it declares and the harness shows beside every figure.
//!
//! Rankings never mix a same-thread call with a cross-thread hand-off, or a non-FIFO queue with a
//! FIFO one, without saying so; these declarations are what makes that possible. They are also
//! what the verifier checks against: a transport that declares per-producer FIFO and reorders two
//! messages of one producer fails, whatever its speed.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How many producers or consumers a transport accepts on one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arity {
    /// Exactly one.
    One,
    /// Any number (the transport's handles can be cloned).
    Many,
    /// Any number of consumers, and every one of them receives every message (a broadcast, for
    /// fan-out). Only meaningful for consumers.
    Broadcast,
}

impl Arity {
    /// Whether `n` endpoints fit this arity.
    pub fn allows(self, n: usize) -> bool {
        match self {
            Arity::One => n == 1,
            Arity::Many | Arity::Broadcast => n >= 1,
        }
    }
}

/// The delivery order a transport promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ordering {
    /// One total order over every producer's messages (a single FIFO).
    ///
    /// The verifier checks the part of this that can be observed without a global clock: the
    /// messages of each producer arrive in the order they were sent.
    GlobalFifo,
    /// The messages of each producer arrive in the order that producer sent them; messages of
    /// different producers may interleave arbitrarily.
    PerProducerFifo,
    /// No order at all; only exactly-once delivery is promised.
    None,
    /// A conflating channel: a newer value replaces an older one not yet received, so only the
    /// newest is kept. Delivered sequence numbers of each producer only increase, and its final
    /// message is always delivered; intermediate ones may be skipped. Not usable where every
    /// message must arrive (the streaming workloads); used by `latest` pipelines.
    Latest,
}

impl Ordering {
    /// Whether a consumer may rely on per-producer order.
    pub fn is_fifo(self) -> bool {
        !matches!(self, Ordering::None)
    }

    /// Whether intermediate values may be skipped (latest-value delivery): the transport does not
    /// promise exactly-once delivery.
    pub fn is_conflating(self) -> bool {
        matches!(self, Ordering::Latest)
    }
}

/// Whether the transport has a capacity, and what capacities it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Bound {
    /// The transport holds at most `capacity` messages; a full transport applies backpressure.
    Bounded {
        /// Smallest capacity accepted (0 means a rendezvous channel is allowed).
        min_capacity: usize,
        /// Capacity must be a power of two.
        power_of_two: bool,
    },
    /// The transport holds at most `capacity` messages, and a full one overwrites its oldest
    /// message instead of applying backpressure: a receiver that lags loses messages. A flood
    /// (a closed-loop stream) cannot be verified over it; a paced stream or a ping-pong can.
    Overwriting {
        /// Smallest capacity accepted.
        min_capacity: usize,
        /// Capacity must be a power of two.
        power_of_two: bool,
    },
    /// The transport grows without limit; the workload's capacity is ignored.
    Unbounded,
}

impl Bound {
    /// The capacities accepted (the least, and whether only powers of two), for a transport
    /// that has a capacity.
    pub fn limits(self) -> Option<(usize, bool)> {
        match self {
            Bound::Bounded {
                min_capacity,
                power_of_two,
            }
            | Bound::Overwriting {
                min_capacity,
                power_of_two,
            } => Some((min_capacity, power_of_two)),
            Bound::Unbounded => None,
        }
    }

    /// Whether the workload's capacity applies.
    pub fn has_capacity(self) -> bool {
        self.limits().is_some()
    }
}

/// What a blocked producer or consumer does while it waits.
///
/// Two strategies never sleep, [`Spin`](WaitStrategy::Spin) and
/// [`SpinThenYield`](WaitStrategy::SpinThenYield): the waiting side keeps polling on its core
/// ([`busy_waits`](WaitStrategy::busy_waits)). An adapter that waits so counts its failed polls
/// (shown as failed sends and receives, never as throughput).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitStrategy {
    /// Parks the thread in the kernel and is woken by the other side.
    Block,
    /// Spins on the shared state, never sleeping (yielding its time slice now and then so that
    /// oversubscribed threads make progress).
    Spin,
    /// Spins for a while, then parks the thread (sleeps) until the other side wakes it.
    SpinThenPark,
    /// Suspends a task on an async runtime.
    Async,
    /// Never waits: the producer runs the consumer's code itself.
    None,
    /// Spins for a while, then yields its time slice on every failed poll; never sleeps.
    SpinThenYield,
}

impl WaitStrategy {
    /// Whether a waiting side keeps polling on its core and never sleeps (`spin`,
    /// `spin-then-yield`).
    pub fn busy_waits(self) -> bool {
        matches!(self, WaitStrategy::Spin | WaitStrategy::SpinThenYield)
    }

    /// The strategy with whether it sleeps, for listings: e.g. `spin-then-yield (never sleeps)`.
    pub fn described(self) -> String {
        match self {
            WaitStrategy::Spin | WaitStrategy::SpinThenYield => format!("{self} (never sleeps)"),
            WaitStrategy::Block | WaitStrategy::SpinThenPark => format!("{self} (sleeps)"),
            WaitStrategy::Async => format!("{self} (the task suspends)"),
            WaitStrategy::None => self.to_string(),
        }
    }
}

/// Where the consumer's code runs relative to the producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Locality {
    /// The message crosses from one thread to another.
    CrossThread,
    /// The producer's thread runs the consumer's code: no hand-off between cores happens.
    SameThread,
    /// The message crosses from a thread of one process to a thread of another.
    CrossProcess,
    /// The message goes through a broker: a server process of its own (Kafka, Redis, NATS)
    /// that the producer hands it to over the network and the consumer fetches it from.
    Broker,
}

/// What a transport promises about how many times each message is delivered.
///
/// The verifier checks the promise: an exactly-once transport that delivers a message twice or
/// loses one fails; an at-least-once transport may deliver a message again (each redelivery is
/// counted and shown) but never lose one; an at-most-once transport may lose messages (the lost
/// share is counted and shown) but never deliver one twice. A fault-free run that redelivers or
/// loses is flagged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    /// Every message exactly once (every in-process queue).
    #[default]
    ExactlyOnce,
    /// Every message at least once: a message may come again (a broker redelivering what was
    /// not acknowledged).
    AtLeastOnce,
    /// Every message at most once: a message may be lost (a broker dropping what a slow
    /// consumer could not take).
    AtMostOnce,
}

impl Delivery {
    /// Whether this is [`Delivery::ExactlyOnce`] (the default, not written out).
    pub fn is_exactly_once(&self) -> bool {
        *self == Delivery::ExactlyOnce
    }

    /// The guarantee of two hops in a row: the weaker one. A chain that may both repeat and
    /// lose a message is checked as one that may lose it (a loss is counted, a repeat fails).
    pub fn then(self, next: Delivery) -> Delivery {
        match (self, next) {
            (Delivery::ExactlyOnce, d) | (d, Delivery::ExactlyOnce) => d,
            (Delivery::AtLeastOnce, Delivery::AtLeastOnce) => Delivery::AtLeastOnce,
            _ => Delivery::AtMostOnce,
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Delivery::ExactlyOnce => "exactly-once",
            Delivery::AtLeastOnce => "at-least-once",
            Delivery::AtMostOnce => "at-most-once",
        })
    }
}

/// How the consumer side receives messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerStyle {
    /// The harness's consumer thread pulls messages (`recv`).
    Pull,
    /// The transport calls the harness's consumer back, on a thread of its own choosing.
    Callback,
}

/// Everything a transport declares about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Semantics {
    /// How many producers one channel accepts.
    pub producers: Arity,
    /// How many consumers one channel accepts.
    pub consumers: Arity,
    /// The delivery order promised.
    pub ordering: Ordering,
    /// Bounded or unbounded.
    pub bound: Bound,
    /// What a waiting side does.
    pub wait: WaitStrategy,
    /// The transport has native batch operations (`send_batch` / `recv_batch` do more than loop).
    pub batch: bool,
    /// Same-thread or cross-thread.
    pub locality: Locality,
    /// Pull or callback consumer.
    pub consumer_style: ConsumerStyle,
    /// How many times each message is delivered (exactly once unless declared otherwise;
    /// absent from reports written before it was declared).
    #[serde(default, skip_serializing_if = "Delivery::is_exactly_once")]
    pub delivery: Delivery,
}

/// Starting points and setters for declaring semantics in a `const` expression, so that a
/// transport's declaration states only what differs from its starting point:
///
/// ```
/// use handoff_model::semantics::*;
///
/// // crossbeam's bounded channel: MPMC, per-producer FIFO, rendezvous allowed, spin-then-park.
/// const CROSSBEAM: Semantics = Semantics::mpmc().bounded(0, false).wait(WaitStrategy::SpinThenPark);
/// assert_eq!(CROSSBEAM.summary(), "MPMC, per-producer FIFO, bounded, spin-then-park, cross-thread");
/// ```
///
/// Every starting point is cross-thread, pull-style, without native batch operations, and
/// bounded with a minimum capacity of 1 (any capacity, not only powers of two).
impl Semantics {
    /// One producer, one consumer, FIFO; spins while it waits (a ring).
    pub const fn spsc() -> Semantics {
        Semantics {
            producers: Arity::One,
            consumers: Arity::One,
            ordering: Ordering::GlobalFifo,
            bound: Bound::Bounded {
                min_capacity: 1,
                power_of_two: false,
            },
            wait: WaitStrategy::Spin,
            batch: false,
            locality: Locality::CrossThread,
            consumer_style: ConsumerStyle::Pull,
            delivery: Delivery::ExactlyOnce,
        }
    }

    /// Any number of producers, one consumer, per-producer FIFO; spins, then parks, while it
    /// waits (a channel).
    pub const fn mpsc() -> Semantics {
        Semantics {
            producers: Arity::Many,
            ordering: Ordering::PerProducerFifo,
            wait: WaitStrategy::SpinThenPark,
            ..Semantics::spsc()
        }
    }

    /// Any number of producers and consumers, per-producer FIFO; spins, then parks, while it
    /// waits (a channel whose receivers can be cloned).
    pub const fn mpmc() -> Semantics {
        Semantics {
            consumers: Arity::Many,
            ..Semantics::mpsc()
        }
    }

    /// Every consumer receives every message (a broadcast, for fan-out).
    pub const fn broadcast(self) -> Semantics {
        Semantics {
            consumers: Arity::Broadcast,
            ..self
        }
    }

    /// The delivery order promised.
    pub const fn ordering(self, ordering: Ordering) -> Semantics {
        Semantics { ordering, ..self }
    }

    /// Bounded, accepting capacities of at least `min_capacity` (0 allows a rendezvous), only
    /// powers of two if `power_of_two`.
    pub const fn bounded(self, min_capacity: usize, power_of_two: bool) -> Semantics {
        Semantics {
            bound: Bound::Bounded {
                min_capacity,
                power_of_two,
            },
            ..self
        }
    }

    /// A bounded transport that overwrites its oldest message when full instead of applying
    /// backpressure (see [`Bound::Overwriting`]); after [`bounded`](Self::bounded).
    pub const fn overwriting(self) -> Semantics {
        let bound = match self.bound {
            Bound::Bounded {
                min_capacity,
                power_of_two,
            }
            | Bound::Overwriting {
                min_capacity,
                power_of_two,
            } => Bound::Overwriting {
                min_capacity,
                power_of_two,
            },
            Bound::Unbounded => Bound::Unbounded,
        };
        Semantics { bound, ..self }
    }

    /// Unbounded: the workload's capacity is ignored.
    pub const fn unbounded(self) -> Semantics {
        Semantics {
            bound: Bound::Unbounded,
            ..self
        }
    }

    /// What a waiting side does.
    pub const fn wait(self, wait: WaitStrategy) -> Semantics {
        Semantics { wait, ..self }
    }

    /// Native batch operations (`send_batch` / `recv_batch` do more than loop).
    pub const fn batch(self) -> Semantics {
        Semantics {
            batch: true,
            ..self
        }
    }

    /// The producer's thread runs the consumer's code: no hand-off between cores.
    pub const fn same_thread(self) -> Semantics {
        Semantics {
            locality: Locality::SameThread,
            ..self
        }
    }

    /// The message goes through a broker (see [`Locality::Broker`]).
    pub const fn through_broker(self) -> Semantics {
        Semantics {
            locality: Locality::Broker,
            ..self
        }
    }

    /// How many times each message is delivered (see [`Delivery`]).
    pub const fn delivery(self, delivery: Delivery) -> Semantics {
        Semantics { delivery, ..self }
    }

    /// The transport calls the harness's consumer back instead of being pulled from.
    pub const fn callback(self) -> Semantics {
        Semantics {
            consumer_style: ConsumerStyle::Callback,
            ..self
        }
    }
}

impl Semantics {
    /// A short topology label: `SPSC`, `MPSC`, `SPMC`, `MPMC`, or `SPMC broadcast` /
    /// `MPMC broadcast` when every consumer sees every message.
    pub fn topology_label(&self) -> &'static str {
        match (self.producers, self.consumers) {
            (Arity::One, Arity::One) => "SPSC",
            (_, Arity::One) => "MPSC",
            (Arity::One, Arity::Many) => "SPMC",
            (_, Arity::Many) => "MPMC",
            (Arity::One, Arity::Broadcast) => "SPMC broadcast",
            (_, Arity::Broadcast) => "MPMC broadcast",
        }
    }

    /// Whether every consumer receives every message (a broadcast transport, for fan-out).
    pub fn is_broadcast(&self) -> bool {
        self.consumers == Arity::Broadcast
    }

    /// The label a table's semantics column shows, e.g. `MPSC fifo/pp bounded spin-park`
    /// (`cb`: a callback consumer; `batch`: native batch operations).
    pub fn short(&self) -> String {
        let order = match self.ordering {
            Ordering::GlobalFifo => "fifo",
            Ordering::PerProducerFifo => "fifo/pp",
            Ordering::None => "unordered",
            Ordering::Latest => "latest",
        };
        let bound = match self.bound {
            Bound::Bounded { .. } => "bounded",
            Bound::Overwriting { .. } => "overwriting",
            Bound::Unbounded => "unbounded",
        };
        let wait = match self.wait {
            WaitStrategy::Block => "block",
            WaitStrategy::Spin => "spin",
            WaitStrategy::SpinThenPark => "spin-park",
            WaitStrategy::SpinThenYield => "spin-yield",
            WaitStrategy::Async => "async",
            WaitStrategy::None => "no-wait",
        };
        let mut out = format!("{} {order} {bound} {wait}", self.topology_label());
        if self.consumer_style == ConsumerStyle::Callback {
            out.push_str(" cb");
        }
        if self.batch {
            out.push_str(" batch");
        }
        match self.delivery {
            Delivery::ExactlyOnce => {}
            Delivery::AtLeastOnce => out.push_str(" ≥1"),
            Delivery::AtMostOnce => out.push_str(" ≤1"),
        }
        out
    }

    /// A one-line summary used in listings and table footers, e.g.
    /// `MPSC, per-producer FIFO, bounded, block, cross-thread`.
    pub fn summary(&self) -> String {
        let bound = match self.bound {
            Bound::Bounded {
                power_of_two: true, ..
            } => "bounded (2^n)",
            Bound::Bounded { .. } => "bounded",
            Bound::Overwriting {
                power_of_two: true, ..
            } => "bounded (2^n), overwrites when full",
            Bound::Overwriting { .. } => "bounded, overwrites when full",
            Bound::Unbounded => "unbounded",
        };
        let mut s = format!(
            "{}, {}, {}, {}, {}",
            self.topology_label(),
            self.ordering,
            bound,
            self.wait,
            self.locality
        );
        if self.batch {
            s.push_str(", batch");
        }
        if self.consumer_style == ConsumerStyle::Callback {
            s.push_str(", callback consumer");
        }
        if !self.delivery.is_exactly_once() {
            s.push_str(&format!(", {}", self.delivery));
        }
        s
    }
}

impl fmt::Display for Ordering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ordering::GlobalFifo => "FIFO",
            Ordering::PerProducerFifo => "per-producer FIFO",
            Ordering::None => "unordered",
            Ordering::Latest => "latest value",
        })
    }
}

impl fmt::Display for WaitStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WaitStrategy::Block => "block",
            WaitStrategy::Spin => "spin",
            WaitStrategy::SpinThenPark => "spin-then-park",
            WaitStrategy::Async => "async",
            WaitStrategy::None => "no wait",
            WaitStrategy::SpinThenYield => "spin-then-yield",
        })
    }
}

impl fmt::Display for Locality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Locality::CrossThread => "cross-thread",
            Locality::SameThread => "same-thread",
            Locality::CrossProcess => "cross-process",
            Locality::Broker => "broker",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Delivery::{self, *};

    #[test]
    fn a_chain_delivers_as_its_weakest_hop() {
        let all = [ExactlyOnce, AtLeastOnce, AtMostOnce];
        for d in all {
            assert_eq!(ExactlyOnce.then(d), d);
            assert_eq!(d.then(ExactlyOnce), d);
            assert_eq!(d.then(d), d);
        }
        assert_eq!(AtLeastOnce.then(AtMostOnce), AtMostOnce);
        assert_eq!(AtMostOnce.then(AtLeastOnce), AtMostOnce);
        let folded = all.iter().fold(Delivery::default(), |a, b| a.then(*b));
        assert_eq!(folded, AtMostOnce);
    }
}
