//! Message brokers as handoff transports: a producer hands each message to a real server over
//! the network, and the consumer fetches it from there, every message verified as for any
//! in-process queue.
//!
//! | transport        | broker               | delivery      | how                                           |
//! |------------------|----------------------|---------------|-----------------------------------------------|
//! | `redis-streams`  | Redis 7 (Streams)    | at-least-once | `XADD`; `XREADGROUP` in a consumer group, `XACK` per message or per batch |
//! | `nats`           | NATS 2 (core)        | at-most-once  | publish; a subscription (a slow consumer loses messages, counted) |
//! | `nats-jetstream` | NATS 2 (JetStream)   | at-least-once | publish with acknowledgements in a window; a pull consumer, explicit acks |
//! | `kafka`          | Kafka 4 (KRaft)      | at-least-once | idempotent producer per producer; a consumer assigned every partition, offsets committed per message or per fetch |
//!
//! Each transport is built with its cargo feature (`kafka`, `redis`, `nats`; `all` for every one);
//! without it, it is listed as unavailable, with how to build it. The brokers themselves run on
//! 127.0.0.1, started by the project's `scripts/brokers start` on the ports [`Broker`] names; a
//! transport whose broker does not answer refuses its trials as unsupported (`no broker at
//! 127.0.0.1:PORT`), before any sample, so a run without brokers goes on.
//!
//! What the harness times: connections, streams, topics and consumer groups are made when the
//! channel is built, outside the timed region; the timed region holds every send (a network
//! round trip or a client's buffered write, as the transport says), the broker's work, and every
//! fetch and acknowledgement. The stream ends with an end record from each producer (a record
//! whose first byte says so), so a broker needs no notion of a closed stream.
//!
//! Where a broker fails mid-trial (stopped, unreachable), the operation that saw it panics with
//! the broker's error, and the harness reports the trial as crashed with that message; the run
//! goes on.

use handoff::catalog::{Catalog, Entry};
use handoff::transport::TransportInfo;

// Without a broker feature only the descriptions are built: the wire format and the broker's
// own helpers wait for a transport to use them.
#[cfg_attr(
    not(any(feature = "kafka", feature = "redis", feature = "nats")),
    allow(dead_code)
)]
mod broker;
pub use broker::Broker;
#[cfg_attr(
    not(any(feature = "kafka", feature = "redis", feature = "nats")),
    allow(dead_code)
)]
mod record;

#[cfg(feature = "nats")]
mod nats;
#[cfg(feature = "redis")]
mod redis_streams;

#[cfg(feature = "kafka")]
mod kafka;

/// The broker transports' names.
pub const NAMES: [&str; 4] = ["kafka", "redis-streams", "nats", "nats-jetstream"];

include!("options.rs");

/// Every broker transport's description, built or not.
pub fn infos() -> Vec<TransportInfo> {
    vec![kafka_info(), redis_info(), nats_info(), jetstream_info()]
}

fn nats_info() -> TransportInfo {
    #[cfg(feature = "nats")]
    {
        handoff::transport::Transport::info(&nats::NatsCore)
    }
    #[cfg(not(feature = "nats"))]
    {
        record::plain_info("nats")
    }
}

fn jetstream_info() -> TransportInfo {
    #[cfg(feature = "nats")]
    {
        handoff::transport::Transport::info(&nats::NatsJetStream)
    }
    #[cfg(not(feature = "nats"))]
    {
        record::plain_info("nats-jetstream")
    }
}

fn redis_info() -> TransportInfo {
    #[cfg(feature = "redis")]
    {
        handoff::transport::Transport::info(&redis_streams::RedisStreams)
    }
    #[cfg(not(feature = "redis"))]
    {
        record::plain_info("redis-streams")
    }
}

fn kafka_info() -> TransportInfo {
    #[cfg(feature = "kafka")]
    {
        handoff::transport::Transport::info(&kafka::Kafka)
    }
    #[cfg(not(feature = "kafka"))]
    {
        record::plain_info("kafka")
    }
}

/// Registers every broker transport: built ones as transports, the others as unavailable with
/// how to build them.
pub fn register(catalog: &mut Catalog) {
    #[cfg(feature = "redis")]
    catalog.register(Entry::pull(redis_streams::RedisStreams));
    #[cfg(not(feature = "redis"))]
    catalog.register(unbuilt(redis_info(), "redis"));
    #[cfg(feature = "nats")]
    {
        catalog.register(Entry::pull(nats::NatsCore));
        catalog.register(Entry::pull(nats::NatsJetStream));
    }
    #[cfg(not(feature = "nats"))]
    {
        catalog.register(unbuilt(nats_info(), "nats"));
        catalog.register(unbuilt(jetstream_info(), "nats"));
    }
    #[cfg(feature = "kafka")]
    catalog.register(Entry::pull(kafka::Kafka));
    #[cfg(not(feature = "kafka"))]
    catalog.register(unbuilt(kafka_info(), "kafka"));
}

/// An unavailable entry for a transport whose feature is off.
#[allow(dead_code)]
fn unbuilt(info: TransportInfo, feature: &str) -> Entry {
    handoff::plugin::unavailable(
        info,
        &format!(
            "built without the `{feature}` broker feature (scripts/brokers install, then cargo build --release -p handoff-cli --features brokers; see docs/brokers.md)"
        ),
    )
}

#[cfg(test)]
mod tests {
    /// `handoff list` declares the same of a broker transport whether it is built or not.
    #[test]
    fn built_or_not_a_transport_says_the_same_of_itself() {
        for info in super::infos() {
            let name: &'static str = super::OPTIONS
                .iter()
                .map(|(n, _)| *n)
                .find(|n| *n == info.name)
                .expect("a broker transport");
            let unbuilt = super::record::plain_info(name);
            assert_eq!(info.description, unbuilt.description, "{name}");
            assert_eq!(info.semantics, unbuilt.semantics, "{name}");
        }
    }

    /// What an unbuilt transport declares is what the built one takes.
    #[test]
    fn every_transport_declares_the_options_of_the_table() {
        for info in super::infos() {
            let declared: Vec<&str> = info.options.iter().map(|o| o.name.as_str()).collect();
            let (_, table) = super::OPTIONS
                .iter()
                .find(|(n, _)| *n == info.name)
                .unwrap_or_else(|| panic!("{} is not in OPTIONS", info.name));
            assert_eq!(&declared, table, "{}", info.name);
        }
    }
}
