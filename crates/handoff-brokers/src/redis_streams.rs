//! `redis-streams`: Redis Streams, driven as a service using them would be.
//!
//! * The channel is a stream of its own (`handoff-…`) with one consumer group, made when the
//!   channel is built (`XGROUP CREATE … MKSTREAM`), and deleted when the consumer is dropped.
//! * Each producer has a connection of its own and appends with `XADD` (one round trip per
//!   message; a batch is one pipeline of `XADD`s, one round trip per batch).
//! * The consumer reads in the group (`XREADGROUP … COUNT fetch BLOCK 100 STREAMS key >`) and
//!   acknowledges with `XACK`: each message once the harness has taken it (`ack = message`), or
//!   every message of a fetch together before the next fetch (`ack = batch`, the default), or
//!   everything taken once the consumer says it has processed it (`ack = processed`: after each
//!   run of a pipeline reactor's work; a consumer that never says so acknowledges at the end).
//!
//! Delivery is at-least-once: a message read but not acknowledged stays pending in the group
//! and a consumer that claims it would see it again (this one never claims, so a fault-free
//! run delivers each message once). Each producer's messages arrive in the order it appended
//! them; a stream has no capacity, so nothing here applies backpressure.

use crate::broker::REDIS;
use crate::record::{self, Decoded, Ends};
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionTable, Receiver, Sender, Transport, TransportInfo,
    UncommittedProbe,
};
use redis::streams::{StreamInfoGroupsReply, StreamReadOptions, StreamReadReply};
use redis::{Commands, Connection, Value};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// `redis-streams`.
pub(crate) struct RedisStreams;

/// When the consumer acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ack {
    /// Every message of a fetch together, before the next fetch.
    Batch,
    /// Each message once the harness has taken it.
    Message,
    /// Everything taken, once the consumer has processed it ([`Receiver::processed`]).
    Processed,
}

const ACK: OptionTable<Ack> = OptionTable {
    name: "ack",
    help: "when the consumer acknowledges (XACK): every message of a fetch together, before the next fetch; each message once taken; or everything taken, once the consumer has processed it (after each run of a pipeline reactor's work)",
    values: &[
        ("batch", Ack::Batch),
        ("message", Ack::Message),
        ("processed", Ack::Processed),
    ],
    waits: &[],
};

const FETCH: OptionTable<usize> = OptionTable {
    name: "fetch",
    help: "messages one XREADGROUP may return (COUNT)",
    values: &[("256", 256), ("1", 1), ("16", 16), ("1024", 1024)],
    waits: &[],
};

/// The consumer group's name.
const GROUP: &str = "handoff";
/// How long one `XREADGROUP` waits for a message, ms (the consumer then asks again).
const BLOCK_MS: usize = 100;

fn connect() -> Result<Connection, BuildError> {
    REDIS.answers()?;
    let client = redis::Client::open(format!("redis://{}/", REDIS.addr()))
        .map_err(|e| REDIS.refused("client", e))?;
    client
        .get_connection()
        .map_err(|e| REDIS.refused("connect", e))
}

impl Transport for RedisStreams {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        record::info("redis-streams")
            .with_option(ACK.spec())
            .with_option(FETCH.spec())
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
        record::wire_size::<M>()?;
        let key = record::channel_name();
        let mut admin = connect()?;
        redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(&key)
            .arg(GROUP)
            .arg("$")
            .arg("MKSTREAM")
            .query::<()>(&mut admin)
            .map_err(|e| REDIS.refused("XGROUP CREATE", e))?;
        let mut senders = Vec::with_capacity(cfg.producers);
        for p in 0..cfg.producers {
            senders.push(Tx {
                conn: connect()?,
                key: key.clone(),
                producer: p as u32,
                buf: Vec::new(),
                _m: PhantomData,
            });
        }
        let receiver = Rx {
            conn: connect()?,
            stream: Arc::new(StreamKey {
                key: key.clone(),
                admin: Mutex::new(admin),
            }),
            key,
            ends: Ends::new(cfg.producers),
            fetched: VecDeque::new(),
            taken: Vec::new(),
            ack: ACK.get(cfg),
            fetch: FETCH.get(cfg),
            _m: PhantomData,
        };
        Ok(Endpoints {
            senders,
            receivers: vec![receiver],
        })
    }
}

/// A producer: a connection of its own.
pub struct Tx<M> {
    conn: Connection,
    key: String,
    producer: u32,
    buf: Vec<u8>,
    _m: PhantomData<fn(M)>,
}

impl<M: Message> Tx<M> {
    fn xadd(&self, record: &[u8]) -> redis::Cmd {
        let mut c = redis::cmd("XADD");
        c.arg(&self.key).arg("*").arg("m").arg(record);
        c
    }
}

impl<M: Message> Sender<M> for Tx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        record::encode(&msg, &mut self.buf);
        let cmd = self.xadd(&self.buf);
        if let Err(e) = cmd.query::<Value>(&mut self.conn) {
            panic!("redis-streams: XADD to {}: {e}", REDIS.addr());
        }
        Ok(())
    }

    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        let mut pipe = redis::pipe();
        let mut n = 0;
        for m in msgs {
            record::encode(&m, &mut self.buf);
            pipe.add_command(self.xadd(&self.buf)).ignore();
            n += 1;
        }
        if n > 0 {
            if let Err(e) = pipe.query::<()>(&mut self.conn) {
                panic!("redis-streams: XADD pipeline to {}: {e}", REDIS.addr());
            }
        }
        Ok(())
    }
}

impl<M> Drop for Tx<M> {
    fn drop(&mut self) {
        // The end of this producer's stream; a broker that is gone has already failed the
        // consumer, so an error here is left alone.
        let _ = redis::cmd("XADD")
            .arg(&self.key)
            .arg("*")
            .arg("m")
            .arg(record::end(self.producer))
            .query::<Value>(&mut self.conn);
    }
}

/// The consumer: a connection of its own, reading in the group.
pub struct Rx<M> {
    conn: Connection,
    key: String,
    /// Deletes the stream once this consumer and its probe are gone.
    stream: Arc<StreamKey>,
    ends: Ends,
    /// Records fetched and not yet handed over: entry id and record.
    fetched: VecDeque<(String, Vec<u8>)>,
    /// Entry ids handed over and not yet acknowledged.
    taken: Vec<String>,
    ack: Ack,
    fetch: usize,
    _m: PhantomData<fn() -> M>,
}

impl<M: Message> Rx<M> {
    fn acknowledge(&mut self) {
        if self.taken.is_empty() {
            return;
        }
        let r: redis::RedisResult<usize> = self.conn.xack(&self.key, GROUP, &self.taken);
        if let Err(e) = r {
            panic!("redis-streams: XACK at {}: {e}", REDIS.addr());
        }
        self.taken.clear();
    }

    /// Fetches what the group has for this consumer, waiting up to [`BLOCK_MS`].
    fn refill(&mut self) {
        let opts = StreamReadOptions::default()
            .group(GROUP, "consumer")
            .count(self.fetch)
            .block(BLOCK_MS);
        let reply: StreamReadReply = match self.conn.xread_options(&[&self.key], &[">"], &opts) {
            Ok(r) => r,
            Err(e) => panic!("redis-streams: XREADGROUP at {}: {e}", REDIS.addr()),
        };
        for key in reply.keys {
            for entry in key.ids {
                let record = match entry.map.get("m") {
                    Some(Value::BulkString(b)) => b.clone(),
                    other => panic!("redis-streams: entry {} holds {other:?}", entry.id),
                };
                self.fetched.push_back((entry.id, record));
            }
        }
    }
}

impl<M: Message> Receiver<M> for Rx<M> {
    fn recv(&mut self) -> Option<M> {
        loop {
            if self.ack == Ack::Message {
                self.acknowledge();
            }
            if let Some((id, record)) = self.fetched.pop_front() {
                self.taken.push(id);
                match record::decode::<M>(&record) {
                    Decoded::Message(m) => return Some(m),
                    Decoded::End(p) => {
                        self.ends.note(p);
                        continue;
                    }
                }
            }
            // Everything fetched has been handed over: acknowledge it before the next fetch
            // (under `processed`, once the consumer says so, or at the end).
            if self.ack != Ack::Processed || self.ends.all() {
                self.acknowledge();
            }
            if self.ends.all() {
                return None;
            }
            self.refill();
        }
    }

    fn processed(&mut self) {
        if self.ack == Ack::Processed {
            self.acknowledge();
        }
    }

    fn pending(&mut self) -> Option<usize> {
        // What was fetched and not handed over; asking the server would be a round trip.
        Some(self.fetched.len())
    }

    fn uncommitted_probe(&self) -> Option<Box<dyn UncommittedProbe>> {
        let conn = connect().ok()?;
        conn.set_read_timeout(Some(PROBE_WAIT)).ok()?;
        Some(Box::new(Unacked {
            conn,
            key: self.key.clone(),
            _stream: self.stream.clone(),
        }))
    }
}

/// The longest one question of an [`Unacked`] probe may take (it is asked on the window
/// clock's thread).
const PROBE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Asks the server, on a connection of its own, what the group has not finished: entries not
/// yet delivered to it (`lag`) and entries delivered and not acknowledged (`pending`), from
/// `XINFO GROUPS`.
struct Unacked {
    conn: Connection,
    key: String,
    /// Keeps the stream for the last question, asked after the sample.
    _stream: Arc<StreamKey>,
}

impl UncommittedProbe for Unacked {
    fn uncommitted(&mut self) -> Option<u64> {
        let info: StreamInfoGroupsReply = self.conn.xinfo_groups(&self.key).ok()?;
        let group = info.groups.iter().find(|g| g.name == GROUP)?;
        Some((group.pending + group.lag?) as u64)
    }
}

/// The channel's stream, deleted with its group when the consumer and its probe are both gone.
struct StreamKey {
    key: String,
    /// The connection that made the stream.
    admin: Mutex<Connection>,
}

impl Drop for StreamKey {
    fn drop(&mut self) {
        // A broker that is gone has already failed the trial: an error here is left alone.
        if let Ok(conn) = self.admin.get_mut() {
            let _ = redis::cmd("DEL").arg(&self.key).query::<Value>(conn);
        }
    }
}
