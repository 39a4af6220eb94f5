//! The records a broker carries: a message's wire form behind a one-byte tag, or a producer's
//! end of stream.
//!
//! Brokers move bytes; a message crosses as its wire form ([`Message::write_wire`]), the same
//! block the C ABI transports carry, behind one tag byte. A producer that is dropped sends an
//! end record (tag [`END`] and its producer id), and the consumer ends the stream once it has
//! the end record of every producer, so no broker needs a notion of a closed stream. A record
//! of any other shape is a broken transport, and the consumer panics saying so.

use handoff::message::Message;
use handoff::transport::BuildError;

/// Tag of a message record.
pub const MESSAGE: u8 = 0;
/// Tag of a producer's end record.
pub const END: u8 = 1;

/// The wire size of `M`, or why it cannot cross a broker.
pub fn wire_size<M: Message>() -> Result<usize, BuildError> {
    M::WIRE_SIZE.ok_or_else(|| {
        BuildError::Unsupported(
            "the payload owns heap memory, which has no form outside this process".into(),
        )
    })
}

/// Writes `msg`'s record into `out` (cleared first).
pub fn encode<M: Message>(msg: &M, out: &mut Vec<u8>) {
    let n = M::WIRE_SIZE.expect("checked when the channel was made");
    out.clear();
    out.reserve(n + 1);
    out.push(MESSAGE);
    // SAFETY: `WIRE_SIZE` is `Some(n)` and the spare capacity reserved above holds `n` bytes,
    // which `write_wire` initialises in full before `set_len` exposes them.
    unsafe {
        msg.write_wire(out.as_mut_ptr().add(1));
        out.set_len(n + 1);
    }
}

/// Producer `producer`'s end record.
pub fn end(producer: u32) -> Vec<u8> {
    let mut r = vec![END];
    r.extend_from_slice(&producer.to_le_bytes());
    r
}

/// What a record holds.
#[derive(Debug)]
pub enum Decoded<M> {
    /// A message.
    Message(M),
    /// The end of a producer's stream.
    End(u32),
}

/// Reads a record back; panics (the trial is then reported as crashed) on a record that is
/// neither a message of `M` nor an end record.
pub fn decode<M: Message>(record: &[u8]) -> Decoded<M> {
    let n = M::WIRE_SIZE.expect("checked when the channel was made");
    match record.split_first() {
        Some((&MESSAGE, body)) if body.len() == n => {
            // SAFETY: `WIRE_SIZE` is `Some(n)` and `body` holds exactly `n` readable bytes;
            // `read_wire` accepts any bytes (a damaged block fails the message's check).
            Decoded::Message(unsafe { M::read_wire(body.as_ptr()) })
        }
        Some((&END, id)) if id.len() == 4 => {
            Decoded::End(u32::from_le_bytes(id.try_into().expect("four bytes")))
        }
        _ => panic!(
            "a record of {} bytes that is neither a message of {n} bytes nor an end record",
            record.len()
        ),
    }
}

/// Counts the producers' end records: the stream ends when every producer's has arrived.
#[derive(Debug)]
pub struct Ends {
    seen: Vec<bool>,
    left: usize,
}

impl Ends {
    /// Waiting for `producers` end records.
    pub fn new(producers: usize) -> Ends {
        Ends {
            seen: vec![false; producers],
            left: producers,
        }
    }

    /// Notes producer `p`'s end record (a repeated one counts once).
    pub fn note(&mut self, p: u32) {
        if let Some(s) = self.seen.get_mut(p as usize) {
            if !*s {
                *s = true;
                self.left -= 1;
            }
        }
    }

    /// Whether every producer's end record has arrived.
    pub fn all(&self) -> bool {
        self.left == 0
    }
}

/// A unique name for one channel's stream, topic or subject: `handoff-<pid>-<n>-<time>`, so
/// that two runs against one broker never share one.
pub fn channel_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!(
        "handoff-{}-{}-{nanos:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// What a broker transport says of itself, built or not: its description and semantics, one
/// text for both, so `handoff list` declares the same whichever features the command was
/// built with (only the options' values and help need the built transport).
pub fn described(name: &str) -> (&'static str, handoff::semantics::Semantics) {
    use handoff::semantics::Delivery;
    match name {
        "kafka" => (
            "Kafka on a local KRaft node (librdkafka): an idempotent producer client per producer, batching by itself; one consumer assigned every partition, committing offsets per message or per fetch",
            semantics(Delivery::AtLeastOnce).batch(),
        ),
        "redis-streams" => (
            "Redis Streams on a local Redis 7: XADD from a connection per producer, XREADGROUP in a consumer group, XACK per message or per fetch",
            semantics(Delivery::AtLeastOnce).batch(),
        ),
        "nats" => (
            "core NATS on a local nats-server 2: publish from a connection per producer, a subscription on the consumer's; at most once (a slow consumer loses messages, counted)",
            semantics(Delivery::AtMostOnce),
        ),
        "nats-jetstream" => (
            "NATS JetStream on a local nats-server 2: a stream per channel, publishes acknowledged within a window, a pull consumer acknowledging each message",
            semantics(Delivery::AtLeastOnce),
        ),
        other => panic!("no broker transport `{other}`"),
    }
}

/// A broker transport's name, description and semantics ([`described`]), before its options.
pub fn info(name: &'static str) -> handoff::transport::TransportInfo {
    let (about, semantics) = described(name);
    handoff::transport::TransportInfo::new(name, about, semantics)
}

/// The description of a broker transport that is not built (see the crate docs): as the built
/// one describes itself ([`info`]), with its options taking any value.
#[allow(dead_code)]
pub fn plain_info(name: &'static str) -> handoff::transport::TransportInfo {
    let mut info = info(name);
    let options = crate::OPTIONS.iter().find(|(n, _)| *n == name);
    for option in options.map_or(&[][..], |(_, o)| *o) {
        info = info.with_option(handoff::transport::OptionSpec {
            name: option.to_string(),
            values: Vec::new(),
            help: "(the transport is not built: see docs/brokers.md)".into(),
            waits: Vec::new(),
        });
    }
    info
}

/// What every broker transport declares besides its delivery: many producers into one
/// consumer, each producer's messages in order, no bound the harness sets (the broker keeps
/// what it is sent), blocking waits, through a broker.
pub const fn semantics(delivery: handoff::semantics::Delivery) -> handoff::semantics::Semantics {
    use handoff::semantics::{Semantics, WaitStrategy};
    Semantics::mpsc()
        .unbounded()
        .wait(WaitStrategy::Block)
        .through_broker()
        .delivery(delivery)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::payload::{Report64, Word};

    #[test]
    fn records_carry_messages_and_ends() {
        let mut buf = Vec::new();
        let m = Report64::build(3, 77);
        encode(&m, &mut buf);
        assert_eq!(buf.len(), 65);
        match decode::<Report64>(&buf) {
            Decoded::Message(back) => assert_eq!(back.check(), m.check()),
            other => panic!("{other:?}"),
        }
        match decode::<Word>(&end(5)) {
            Decoded::End(p) => assert_eq!(p, 5),
            other => panic!("{other:?}"),
        }
        let mut ends = Ends::new(2);
        ends.note(1);
        ends.note(1);
        assert!(!ends.all());
        ends.note(0);
        assert!(ends.all());
    }

    #[test]
    #[should_panic(expected = "neither a message")]
    fn a_foreign_record_is_refused() {
        decode::<Word>(&[0, 1, 2]);
    }
}
