//! `kafka`: Kafka through librdkafka (the rdkafka crate), driven as a service using it would be.
//!
//! * The channel is a topic of its own (`handoff-…`, `partitions` partitions, replication 1),
//!   made with the admin client when the channel is built and deleted, with its consumer group,
//!   when the consumer is dropped.
//! * Each producer has a client of its own: an idempotent `BaseProducer` (`acks = all`; with
//!   `acks` 1 or 0 idempotence is off, as librdkafka requires). A send enqueues the record in
//!   the client's buffer and returns; the client batches records (`linger-ms`, `batch-size`) and
//!   sends them on its own threads. Each record is keyed with its producer's id, so one
//!   producer's records stay in one partition, in order.
//! * The consumer is a `BaseConsumer` assigned every partition of the topic explicitly (no
//!   group membership, so no rebalance), offsets committed by hand (`commit`): after each
//!   message once the harness has taken it (`message`), for everything handed over before the
//!   next fetch (`batch`, the default), or for everything handed over once the consumer says it
//!   has processed it (`processed`: a pipeline's reactor says so after each run of its work, so
//!   a commit follows each graph execution, as in the scenario's stream accumulator; a consumer
//!   that never says so commits at the end of the stream). Commits are asynchronous: the
//!   client reports no failure of one (it logs it), and a later commit makes up for it; the end
//!   of the stream asks the group's offsets and commits the final ones again where they are
//!   short (see [`commits`]).
//! * Before the channel is handed over, each producer delivers an empty warm-up record to every
//!   partition and the consumer fetches the last of each, starting there, and commits that
//!   start: connections, leaders, the idempotent producer's id, the consumer's fetching and
//!   the group's coordinator are settled outside the timed region (the client would otherwise
//!   take up to half a second or more over them at the first send), and the stream is
//!   everything after the warm-ups.
//!
//! Delivery is at-least-once: records handed over but not committed would be read again by a
//! consumer resuming from the group's offsets (this one never resumes, so a fault-free run
//! delivers each message once). The client's buffer is bounded (librdkafka's
//! `queue.buffering.max.messages`, 100 000 records); a send that finds it full serves the
//! client's events and tries again, and a `try_send` then refuses. A record leaves that buffer
//! once the broker has taken it (the client reports failed deliveries only, which a producer's
//! next send raises).
//!
//! The stream ends with each producer's end record in every partition: the consumer ends it
//! once it has them all, whichever partition each producer's messages went to.

mod commits;

use crate::broker::KAFKA;
use crate::record::{self, Decoded, Ends};
use futures_executor::block_on;
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionTable, Receiver, Sender, Transport, TransportInfo,
    TrySendError, UncommittedProbe,
};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{Client, ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use rdkafka::message::{BorrowedMessage, Message as _};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{Offset, TopicPartitionList};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `kafka`.
pub(crate) struct Kafka;

/// What the producers wait for from the broker (`acks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Acks {
    /// Every in-sync replica; the producer is idempotent.
    All,
    /// The leader.
    Leader,
    /// Nothing.
    None,
}

impl Acks {
    fn value(self) -> &'static str {
        match self {
            Acks::All => "all",
            Acks::Leader => "1",
            Acks::None => "0",
        }
    }
}

/// When the consumer commits offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commit {
    /// Everything handed over, before the next fetch.
    Batch,
    /// Each message once the harness has taken it.
    Message,
    /// Everything handed over, once the consumer has processed it ([`Receiver::processed`]).
    Processed,
}

const ACKS: OptionTable<Acks> = OptionTable {
    name: "acks",
    help: "what a produce request waits for (acks): every in-sync replica, with an idempotent producer; the leader; or nothing (1 and 0 without idempotence)",
    values: &[("all", Acks::All), ("1", Acks::Leader), ("0", Acks::None)],
    waits: &[],
};

const LINGER_MS: OptionTable<u32> = OptionTable {
    name: "linger-ms",
    help: "how long the producer client waits to fill a batch, ms (linger.ms)",
    values: &[("5", 5), ("0", 0), ("1", 1), ("20", 20), ("100", 100)],
    waits: &[],
};

const BATCH_SIZE: OptionTable<u32> = OptionTable {
    name: "batch-size",
    help: "the most bytes of records in one produce batch per partition (batch.size)",
    values: &[
        ("16384", 16_384),
        ("1024", 1_024),
        ("65536", 65_536),
        ("1048576", 1_048_576),
    ],
    waits: &[],
};

const FETCH_WAIT_MAX_MS: OptionTable<u32> = OptionTable {
    name: "fetch-wait-max-ms",
    help: "how long the broker may hold a fetch that has nothing to return, ms (fetch.wait.max.ms)",
    values: &[("100", 100), ("1", 1), ("10", 10), ("500", 500)],
    waits: &[],
};

const PARTITIONS: OptionTable<i32> = OptionTable {
    name: "partitions",
    help: "partitions of the topic (each producer's records go to one, by key)",
    values: &[("1", 1), ("2", 2), ("4", 4), ("8", 8)],
    waits: &[],
};

const COMMIT: OptionTable<Commit> = OptionTable {
    name: "commit",
    help: "when the consumer commits offsets (asynchronously): everything handed over, before the next fetch; each message once taken; or everything taken, once the consumer has processed it (after each run of a pipeline reactor's work)",
    values: &[
        ("batch", Commit::Batch),
        ("message", Commit::Message),
        ("processed", Commit::Processed),
    ],
    waits: &[],
};

/// The longest an admin request (create or delete a topic or group) may take, all told.
const ADMIN_WAIT: Duration = Duration::from_secs(15);
/// The longest a made topic may take to show in the broker's metadata with every partition led.
const TOPIC_READY: Duration = Duration::from_secs(10);
/// The longest one metadata request may take.
const METADATA_WAIT: Duration = Duration::from_secs(5);
/// How long one poll of the consumer waits for a record (the consumer then polls again).
const POLL: Duration = Duration::from_millis(100);
/// The most records taken from the client's queue in one fetch.
const FETCH_MAX: usize = 4096;
/// Sends between two polls of a producer's events (failed deliveries, errors); a power of two.
const POLL_EVERY: u32 = 256;
const _: () = assert!(POLL_EVERY.is_power_of_two());
/// The longest the warm-up of a channel's clients may take (see [`Kafka::channel`]).
const READY: Duration = Duration::from_secs(10);
/// The longest a dropped producer waits for its records to be delivered.
const FLUSH: Duration = Duration::from_secs(30);
/// The longest the end of the stream waits for the group's offsets to show the final ones
/// (committing them again where they are short).
const SETTLE: Duration = Duration::from_secs(60);

/// The settings every client starts from.
fn client_config() -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", KAFKA.addr().to_string())
        .set("client.id", "handoff");
    c
}

/// The first failure a client reported from one of its own threads, for the thread using the
/// client to raise.
#[derive(Default)]
struct Failure {
    failed: AtomicBool,
    first: Mutex<Option<String>>,
}

impl Failure {
    fn note(&self, what: String) {
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some(what);
        }
        self.failed.store(true, Ordering::Release);
    }

    /// Whether a failure was noted: one load on the hot path.
    #[inline]
    fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    fn what(&self) -> String {
        self.first
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default()
    }
}

/// A producer client's context: notes the first record the broker did not take, and the
/// broker being unreachable.
#[derive(Default)]
struct Deliveries(Failure);

impl ClientContext for Deliveries {
    fn error(&self, error: KafkaError, reason: &str) {
        // With one broker, a connection lost or every broker down means the broker is gone (the
        // client would wait for it, and fail its records only when they time out, minutes
        // later).
        if matches!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::AllBrokersDown | RDKafkaErrorCode::BrokerTransportFailure)
        ) {
            self.0.note(format!("{error}: {reason}"));
        }
    }
}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((e, _)) = result {
            self.0.note(format!("delivery failed: {e}"));
        }
    }
}

/// The channel's topic, deleted with its consumer group when dropped.
struct Topic {
    admin: AdminClient<DefaultClientContext>,
    name: String,
    partitions: i32,
}

impl Topic {
    /// Makes a fresh topic and waits until the broker leads every partition of it.
    fn create(partitions: i32) -> Result<Topic, BuildError> {
        let admin: AdminClient<DefaultClientContext> = client_config()
            .create()
            .map_err(|e| KAFKA.refused("admin client", e))?;
        let name = record::channel_name();
        let new = NewTopic::new(&name, partitions, TopicReplication::Fixed(1));
        let opts = AdminOptions::new()
            .request_timeout(Some(ADMIN_WAIT))
            .operation_timeout(Some(ADMIN_WAIT));
        let results = block_on(admin.create_topics([&new], &opts))
            .map_err(|e| KAFKA.refused("create topic", e))?;
        for r in results {
            if let Err((topic, code)) = r {
                return Err(KAFKA.refused(&format!("create topic {topic}"), code));
            }
        }
        let topic = Topic {
            admin,
            name,
            partitions,
        };
        topic.await_leaders()?;
        Ok(topic)
    }

    /// Waits (up to [`TOPIC_READY`]) until the broker's metadata shows every partition of the
    /// topic with a leader.
    fn await_leaders(&self) -> Result<(), BuildError> {
        let start = Instant::now();
        loop {
            let md = self
                .admin
                .inner()
                .fetch_metadata(Some(&self.name), METADATA_WAIT)
                .map_err(|e| KAFKA.refused("metadata", e))?;
            let ready = md.topics().iter().any(|t| {
                t.name() == self.name
                    && t.error().is_none()
                    && t.partitions().len() == self.partitions as usize
                    && t.partitions()
                        .iter()
                        .all(|p| p.error().is_none() && p.leader() >= 0)
            });
            // The leader answering for each partition is what says it has taken it on: a record
            // sent before that (with `acks=0`, whose sends nobody confirms) can be lost.
            let deadline = start + TOPIC_READY;
            if ready
                && (0..self.partitions)
                    .all(|p| watermarks(self.admin.inner(), &self.name, p, deadline).is_ok())
            {
                return Ok(());
            }
            if start.elapsed() > TOPIC_READY {
                return Err(KAFKA.refused(
                    &format!("topic {}", self.name),
                    format!("partitions not led after {TOPIC_READY:?}"),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The consumer group's name: the topic's (one group per channel).
    fn group(&self) -> &str {
        &self.name
    }
}

impl Drop for Topic {
    fn drop(&mut self) {
        // Best effort, each request bounded by ADMIN_WAIT: a broker that is gone has already
        // failed the trial, and is not waited for. The group goes after the consumer (dropped
        // before this).
        if KAFKA.answers().is_err() {
            return;
        }
        let opts = AdminOptions::new()
            .request_timeout(Some(ADMIN_WAIT))
            .operation_timeout(Some(ADMIN_WAIT));
        let _ = block_on(self.admin.delete_topics(&[&self.name], &opts));
        let _ = block_on(self.admin.delete_groups(&[self.group()], &opts));
    }
}

impl Transport for Kafka {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        record::info("kafka")
            .with_option(ACKS.spec())
            .with_option(LINGER_MS.spec())
            .with_option(BATCH_SIZE.spec())
            .with_option(FETCH_WAIT_MAX_MS.spec())
            .with_option(PARTITIONS.spec())
            .with_option(COMMIT.spec())
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
        record::wire_size::<M>()?;
        KAFKA.answers()?;
        let partitions = PARTITIONS.get(cfg);
        let topic = Topic::create(partitions)?;

        let acks = ACKS.get(cfg);
        let mut senders = Vec::with_capacity(cfg.producers);
        for p in 0..cfg.producers {
            let mut c = client_config();
            c.set(
                "enable.idempotence",
                if acks == Acks::All { "true" } else { "false" },
            )
            .set("acks", acks.value())
            .set("linger.ms", LINGER_MS.get(cfg).to_string())
            .set("batch.size", BATCH_SIZE.get(cfg).to_string())
            // A record the broker took leaves the client's buffer at once; only failures come
            // back, to the producer's thread as it polls.
            .set("delivery.report.only.error", "true");
            let producer: BaseProducer<Deliveries> =
                c.create_with_context(Deliveries::default())
                    .map_err(|e| KAFKA.refused("producer client", e))?;
            senders.push(Tx {
                out: Out {
                    producer,
                    topic: topic.name.clone(),
                    id: p as u32,
                    key: (p as u32).to_le_bytes(),
                    partitions,
                    failed_attempts: 0,
                },
                buf: Vec::new(),
                sends: 0,
                _m: PhantomData,
            });
        }
        // Each producer warms up with an empty record to every partition, delivered before the
        // trial: its connections, the partitions' leaders and (idempotent) its producer id are
        // settled, which the client otherwise does at the first send, retrying the id every half
        // second. The consumer starts after the warm-ups and never hands them over.
        let deadline = Instant::now() + READY;
        for tx in &senders {
            for p in 0..partitions {
                tx.out
                    .enqueue(&[], Some(p))
                    .map_err(|e| KAFKA.refused("warm-up", e))?;
            }
        }
        for tx in &senders {
            let delivered = drain(&tx.out.producer, deadline);
            let failure = tx.out.producer.context().0.failed();
            if !delivered || failure {
                let why = if failure {
                    tx.out.producer.context().0.what()
                } else {
                    format!("not delivered within {READY:?}")
                };
                return Err(KAFKA.refused("warm-up", why));
            }
        }

        let consumer: BaseConsumer = client_config()
            .set("group.id", topic.group())
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", "earliest")
            .set("fetch.wait.max.ms", FETCH_WAIT_MAX_MS.get(cfg).to_string())
            .create()
            .map_err(|e| KAFKA.refused("consumer client", e))?;
        // Each partition is assigned from its last warm-up record, which the consumer then
        // fetches here: when the channel is returned, it is fetching every partition, past
        // everything but the stream.
        let mut assignment = TopicPartitionList::with_capacity(partitions as usize);
        let mut last = Vec::with_capacity(partitions as usize);
        let mut begin = Vec::with_capacity(partitions as usize);
        for p in 0..partitions {
            // Every producer's warm-up must be in the partition before the consumer is placed
            // after the last one. With `acks=0` a record counts as delivered once it is written
            // to the socket, before the broker appends it, so its end offset is waited for.
            let high = loop {
                let (_, high) = watermarks(consumer.client(), &topic.name, p, deadline)
                    .map_err(|e| KAFKA.refused("watermarks", e))?;
                if high >= cfg.producers as i64 {
                    break high;
                }
                if Instant::now() >= deadline {
                    return Err(KAFKA.refused(
                        "warm-up",
                        format!(
                            "partition {p} holds {high} of its {} warm-up records after {READY:?}",
                            cfg.producers
                        ),
                    ));
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            assignment
                .add_partition_offset(&topic.name, p, Offset::Offset(high - 1))
                .map_err(|e| KAFKA.refused("assignment", e))?;
            last.push(Some(high - 1));
            begin.push(high);
        }
        consumer
            .assign(&assignment)
            .map_err(|e| KAFKA.refused("assign", e))?;
        while last.iter().any(Option::is_some) {
            if Instant::now() >= deadline {
                return Err(KAFKA.refused(
                    "consumer",
                    format!("warm-up records not fetched within {READY:?}"),
                ));
            }
            match consumer.poll(POLL) {
                None | Some(Err(KafkaError::PartitionEOF(_))) => {}
                Some(Err(e)) => return Err(KAFKA.refused("consumer", e)),
                Some(Ok(m)) => {
                    let p = m.partition() as usize;
                    if last.get(p).copied().flatten() == Some(m.offset()) {
                        last[p] = None;
                    }
                }
            }
        }
        // The group's offsets start at the stream's start, committed synchronously: the group's
        // coordinator is found (on a fresh broker, made) here rather than by the stream's first
        // commit, and the group has nothing to catch up on before the stream.
        let mut start = TopicPartitionList::with_capacity(partitions as usize);
        for (p, &b) in begin.iter().enumerate() {
            start
                .add_partition_offset(&topic.name, p as i32, Offset::Offset(b))
                .map_err(|e| KAFKA.refused("offsets", e))?;
        }
        commits::commit_until(&consumer, &start, deadline)
            .map_err(|e| KAFKA.refused("committing the stream's start", e))?;
        let receiver = Rx {
            consumer,
            ends: Ends::new(cfg.producers * partitions as usize),
            partitions,
            begin,
            fetched: VecDeque::new(),
            taken: vec![None; partitions as usize],
            position: vec![None; partitions as usize],
            commit: COMMIT.get(cfg),
            commits: 0,
            settled: false,
            poll_wait: POLL,
            topic: Arc::new(topic),
        };
        Ok(Endpoints {
            senders,
            receivers: vec![receiver],
        })
    }
}

/// Serves `producer`'s events until every record it was given is delivered (or failed), or
/// until `deadline`; whether it got there. (The client's own `flush` serves events 100 ms at a
/// time, so it returns up to 100 ms late.)
fn drain(producer: &BaseProducer<Deliveries>, deadline: Instant) -> bool {
    loop {
        // Records lingering in a batch go at once while flushing, and a 1 ms poll serves the
        // delivery reports.
        if producer.flush(Duration::from_millis(1)).is_ok() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
    }
}

/// A partition's low and high offsets, as its leader answers them. A topic just created may
/// still be electing its leaders (the metadata can name a leader before that broker has taken
/// the partition on), and a client just created may hold metadata from before the election:
/// those answers are asked again, until `deadline`.
fn watermarks<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    partition: i32,
    deadline: Instant,
) -> KafkaResult<(i64, i64)> {
    loop {
        match client.fetch_watermarks(topic, partition, METADATA_WAIT) {
            Err(e) if electing(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            answer => return answer,
        }
    }
}

/// Whether an error only says a partition's leadership is not settled yet.
fn electing(e: &KafkaError) -> bool {
    matches!(
        e.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::NotLeaderForPartition
                | RDKafkaErrorCode::LeaderNotAvailable
                | RDKafkaErrorCode::UnknownTopicOrPartition
                | RDKafkaErrorCode::UnknownPartition
        )
    )
}

/// Whether a send failed only because the client's buffer is full.
fn full(e: &KafkaError) -> bool {
    matches!(
        e,
        KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)
    )
}

/// A producer's client and where its records go.
struct Out {
    producer: BaseProducer<Deliveries>,
    topic: String,
    id: u32,
    /// The records' key: the producer's id, little-endian.
    key: [u8; 4],
    partitions: i32,
    failed_attempts: u64,
}

impl Out {
    /// Panics with the first failure the client reported, if any.
    #[inline]
    fn check(&self) {
        if self.producer.context().0.failed() {
            self.fail();
        }
    }

    #[cold]
    #[inline(never)]
    fn fail(&self) -> ! {
        panic!(
            "kafka: producing to {}: {}",
            KAFKA.addr(),
            self.producer.context().0.what()
        );
    }

    /// Enqueues one record, to the key's partition or to `partition`, if the client's buffer
    /// has room (see [`full`]).
    #[inline]
    fn enqueue(&self, payload: &[u8], partition: Option<i32>) -> KafkaResult<()> {
        let mut rec = BaseRecord::to(&self.topic).key(&self.key).payload(payload);
        if let Some(p) = partition {
            rec = rec.partition(p);
        }
        self.producer.send(rec).map_err(|(e, _)| e)
    }

    /// Enqueues one record to the key's partition, waiting while the client's buffer is full
    /// (serving its events meanwhile).
    #[inline]
    fn produce(&mut self, payload: &[u8]) {
        loop {
            match self.enqueue(payload, None) {
                Ok(()) => return,
                Err(e) if full(&e) => {
                    self.failed_attempts += 1;
                    self.producer.poll(Duration::from_millis(1));
                    self.check();
                }
                Err(e) => panic!("kafka: producing to {}: {e}", KAFKA.addr()),
            }
        }
    }
}

/// A producer: a client of its own.
pub struct Tx<M> {
    out: Out,
    buf: Vec<u8>,
    sends: u32,
    _m: PhantomData<fn(M)>,
}

impl<M> Tx<M> {
    /// Serves the client's events (failed deliveries, errors) every [`POLL_EVERY`] sends.
    #[inline]
    fn tick(&mut self) {
        self.sends = self.sends.wrapping_add(1);
        if self.sends & (POLL_EVERY - 1) == 0 {
            self.out.producer.poll(Duration::ZERO);
        }
    }
}

impl<M: Message> Sender<M> for Tx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.out.check();
        record::encode(&msg, &mut self.buf);
        self.out.produce(&self.buf);
        self.tick();
        Ok(())
    }

    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        self.out.check();
        for m in msgs {
            record::encode(&m, &mut self.buf);
            self.out.produce(&self.buf);
        }
        // The client batches by itself; serve its events once per run.
        self.out.producer.poll(Duration::ZERO);
        Ok(())
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.out.check();
        record::encode(&msg, &mut self.buf);
        match self.out.enqueue(&self.buf, None) {
            Ok(()) => {}
            Err(e) if full(&e) => {
                self.out.producer.poll(Duration::ZERO);
                return Err(TrySendError::Full(msg));
            }
            Err(e) => panic!("kafka: producing to {}: {e}", KAFKA.addr()),
        }
        self.tick();
        Ok(())
    }

    fn failed_attempts(&self) -> u64 {
        self.out.failed_attempts
    }
}

impl<M> Drop for Tx<M> {
    fn drop(&mut self) {
        // A client that already failed has failed the trial; the consumer will not end.
        if self.out.producer.context().0.failed() || std::thread::panicking() {
            return;
        }
        // The end of this producer's stream, in every partition (the consumer counts them), then
        // every record delivered. A broker that is gone has already failed the consumer, so a
        // failure here is left alone, and nothing waits longer than FLUSH.
        let end = record::end(self.out.id);
        let deadline = Instant::now() + FLUSH;
        for p in 0..self.out.partitions {
            loop {
                match self.out.enqueue(&end, Some(p)) {
                    Ok(()) => break,
                    Err(e) if full(&e) && Instant::now() < deadline => {
                        self.out.producer.poll(Duration::from_millis(1));
                    }
                    Err(_) => return,
                }
            }
        }
        drain(&self.out.producer, deadline);
    }
}

/// The consumer: a client of its own, assigned every partition.
pub struct Rx<M> {
    consumer: BaseConsumer,
    /// End records seen, one per producer and partition (`producer * partitions + partition`).
    ends: Ends,
    partitions: i32,
    /// Each partition's first offset of the stream (after the warm-ups).
    begin: Vec<i64>,
    /// Records fetched and not yet handed over: partition, offset, and what the record holds.
    fetched: VecDeque<(i32, i64, Decoded<M>)>,
    /// For each partition, the offset after the last record handed over, if not yet committed.
    taken: Vec<Option<i64>>,
    /// For each partition, the offset after the last record handed over, committed or not.
    position: Vec<Option<i64>>,
    commit: Commit,
    /// Commits made during the stream.
    commits: u64,
    /// Whether the end of the stream's commits are settled (see [`commits`]).
    settled: bool,
    /// How long a refill waits for the first record ([`POLL`]; none when only looking).
    poll_wait: Duration,
    /// Dropped after the consumer: the topic and group are deleted once it is closed (and the
    /// probe, which shares it, is gone).
    topic: Arc<Topic>,
}

/// A fetched record's partition, offset and what it holds.
fn fetched<M: Message>(m: &BorrowedMessage<'_>) -> (i32, i64, Decoded<M>) {
    let record = record::decode::<M>(m.payload().unwrap_or(&[]));
    (m.partition(), m.offset(), record)
}

impl<M: Message> Rx<M> {
    /// Takes what the client has fetched: waits up to `poll_wait` ([`POLL`]) for the first
    /// record, then takes what else is there without waiting, up to [`FETCH_MAX`].
    fn refill(&mut self) {
        let mut wait = self.poll_wait;
        while self.fetched.len() < FETCH_MAX {
            match self.consumer.poll(wait) {
                None => break,
                Some(Ok(m)) => self.fetched.push_back(fetched(&m)),
                Some(Err(KafkaError::PartitionEOF(_))) => {}
                Some(Err(e)) => panic!("kafka: consuming from {}: {e}", KAFKA.addr()),
            }
            wait = Duration::ZERO;
        }
    }

    /// Commits the offsets of everything handed over since the last commit.
    fn commit_taken(&mut self) {
        if self.taken.iter().all(Option::is_none) {
            return;
        }
        let mut tpl = TopicPartitionList::with_capacity(self.taken.len());
        for (p, next) in self.taken.iter_mut().enumerate() {
            if let Some(next) = next.take() {
                if let Err(e) =
                    tpl.add_partition_offset(&self.topic.name, p as i32, Offset::Offset(next))
                {
                    panic!("kafka: offsets for {}: {e}", self.topic.name);
                }
            }
        }
        // Asynchronous: the client sends it and goes on; a failure is only logged, and the next
        // commit (or the end of the stream's, see `settle_commits`) makes up for it. A
        // synchronous commit here stalled a ping-pong after 256 round trips.
        self.commits += 1;
        let mode = CommitMode::Async;
        if let Err(e) = self.consumer.commit(&tpl, mode) {
            panic!("kafka: committing offsets at {}: {e}", KAFKA.addr());
        }
    }
}

impl<M> Rx<M> {
    /// At the end of the stream, once: the group's offsets confirmed at the end of what was
    /// handed over, committed again where they are short (see [`commits`]). Past [`SETTLE`],
    /// the consumer fails.
    fn settle_commits(&mut self) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        let deadline = Instant::now() + SETTLE;
        if let Err(e) = commits::confirm(&self.consumer, &self.topic.name, &self.position, deadline)
        {
            panic!(
                "kafka: the stream's end not committed at {} after {SETTLE:?} ({} commits made): {e}",
                KAFKA.addr(),
                self.commits
            );
        }
    }
}

impl<M: Message> Receiver<M> for Rx<M> {
    fn recv(&mut self) -> Option<M> {
        loop {
            if self.commit == Commit::Message {
                self.commit_taken();
            }
            if let Some((partition, offset, record)) = self.fetched.pop_front() {
                if let Some(next) = self.taken.get_mut(partition as usize) {
                    *next = Some(offset + 1);
                    self.position[partition as usize] = Some(offset + 1);
                }
                match record {
                    Decoded::Message(m) => return Some(m),
                    Decoded::End(p) => {
                        let partitions = self.partitions as u32;
                        self.ends.note(
                            p.saturating_mul(partitions)
                                .saturating_add(partition as u32),
                        );
                        continue;
                    }
                }
            }
            // Everything fetched has been handed over: commit it before the next fetch (under
            // `processed`, once the consumer says so, or at the end).
            if self.commit != Commit::Processed || self.ends.all() {
                self.commit_taken();
            }
            if self.ends.all() {
                self.settle_commits();
                return None;
            }
            self.refill();
        }
    }

    fn processed(&mut self) {
        if self.commit == Commit::Processed {
            self.commit_taken();
        }
    }

    fn pending(&mut self) -> Option<usize> {
        if self.fetched.is_empty() && !self.ends.all() {
            // What the client has fetched already is there without waiting.
            let wait = std::mem::replace(&mut self.poll_wait, Duration::ZERO);
            self.refill();
            self.poll_wait = wait;
        }
        Some(self.fetched.len())
    }

    fn uncommitted_probe(&self) -> Option<Box<dyn UncommittedProbe>> {
        let client: BaseConsumer = client_config()
            .set("group.id", self.topic.group())
            .set("enable.auto.commit", "false")
            .create()
            .ok()?;
        Some(Box::new(Lag {
            client,
            topic: self.topic.clone(),
            begin: self.begin.clone(),
        }))
    }
}

/// Asks the broker how far the group's committed offsets are behind the partitions' ends: a
/// client of its own in the consumer's group that never joins it (it only reads the group's
/// offsets), so the consumer's fetching and commits are untouched.
struct Lag {
    client: BaseConsumer,
    /// Dropped after the client: kept for the last question, asked after the sample.
    topic: Arc<Topic>,
    /// Each partition's first offset of the stream: the group has committed nothing before it.
    begin: Vec<i64>,
}

/// The longest one question of a [`Lag`] probe may take: it is asked on the window clock's
/// thread, which a broker that stopped answering must not hold for long.
const LAG_WAIT: Duration = Duration::from_secs(2);

impl UncommittedProbe for Lag {
    fn uncommitted(&mut self) -> Option<u64> {
        let mut partitions = TopicPartitionList::new();
        for p in 0..self.begin.len() as i32 {
            partitions.add_partition(&self.topic.name, p);
        }
        let committed = self.client.committed_offsets(partitions, LAG_WAIT).ok()?;
        let mut sum = 0;
        for (p, &begin) in self.begin.iter().enumerate() {
            let (_, end) = self
                .client
                .fetch_watermarks(&self.topic.name, p as i32, LAG_WAIT)
                .ok()?;
            let done = match committed
                .find_partition(&self.topic.name, p as i32)?
                .offset()
            {
                Offset::Offset(o) => o.max(begin),
                _ => begin,
            };
            sum += end.saturating_sub(done).max(0) as u64;
        }
        Some(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::payload::Word;
    use handoff::semantics::Ordering as Order;
    use handoff::verify::{Verdict, Verifier};
    use std::sync::mpsc;

    /// The longest one test's stream may take.
    const STREAM_WAIT: Duration = Duration::from_secs(180);
    /// The longest the committed offsets may stand still before the last commits show.
    const COMMITTED_WAIT: Duration = Duration::from_secs(30);

    /// Fails (never passes silently) when the broker is not running.
    fn need_broker() {
        if let Err(e) = KAFKA.answers() {
            panic!("these tests need a Kafka broker ({e}): run `scripts/brokers start kafka`");
        }
    }

    fn config(producers: usize, options: &[(&str, &str)]) -> ChannelConfig {
        let mut cfg = ChannelConfig::new(1024, producers, 1);
        for (k, v) in options {
            cfg.options.insert(k.to_string(), v.to_string());
        }
        cfg
    }

    /// How a producer thread hands its messages over.
    #[derive(Clone, Copy)]
    enum Sending {
        One,
        Batches,
        Tries,
    }

    /// Streams `per` messages from each producer (a thread each) to the consumer, which runs on
    /// a thread bounded by [`STREAM_WAIT`]; returns the verdict and the consumer.
    fn stream(cfg: &ChannelConfig, per: u64, sending: Sending) -> (Verdict, Rx<Word>) {
        need_broker();
        let producers = cfg.producers;
        let Endpoints {
            senders,
            mut receivers,
        } = Kafka.channel::<Word>(cfg).expect("a channel");
        let mut rx = receivers.pop().expect("one receiver");
        let threads: Vec<_> = senders
            .into_iter()
            .enumerate()
            .map(|(p, mut tx)| {
                std::thread::spawn(move || {
                    let p = p as u32;
                    match sending {
                        Sending::One => {
                            for s in 0..per {
                                tx.send(Word::build(p, s)).expect("sent");
                            }
                        }
                        Sending::Batches => {
                            let mut s = 0;
                            while s < per {
                                let n = (per - s).min(100);
                                tx.send_batch(&mut (s..s + n).map(|s| Word::build(p, s)))
                                    .expect("sent");
                                s += n;
                            }
                        }
                        Sending::Tries => {
                            for s in 0..per {
                                let mut m = Word::build(p, s);
                                loop {
                                    match tx.try_send(m) {
                                        Ok(()) => break,
                                        Err(TrySendError::Full(back)) => {
                                            m = back;
                                            std::thread::yield_now();
                                        }
                                        Err(e) => panic!("{e:?}"),
                                    }
                                }
                            }
                        }
                    }
                })
            })
            .collect();
        let (done, verdict) = mpsc::channel();
        let consumer = std::thread::spawn(move || {
            let mut v = Verifier::new(producers, per, Order::PerProducerFifo, 1);
            while let Some(m) = rx.recv() {
                v.observe(&m);
            }
            let _ = done.send(());
            (v.finish(), rx)
        });
        verdict
            .recv_timeout(STREAM_WAIT)
            .expect("the stream ended in time");
        for t in threads {
            t.join().expect("a producer");
        }
        consumer.join().expect("the consumer")
    }

    fn all_delivered(v: &Verdict, n: u64) {
        assert_eq!(v.violation, None);
        assert_eq!(v.count, n);
    }

    /// The group's committed offsets, summed over the partitions, and the partitions' ends,
    /// likewise.
    fn committed_and_ends(rx: &Rx<Word>) -> (i64, i64) {
        let deadline = Instant::now() + COMMITTED_WAIT;
        let mut ends = TopicPartitionList::new();
        let mut high = 0;
        for p in 0..rx.partitions {
            let (_, h) =
                watermarks(rx.consumer.client(), &rx.topic.name, p, deadline).expect("watermarks");
            high += h;
            ends.add_partition(&rx.topic.name, p);
        }
        // A busy machine may time one question out; the answer itself is not waited for.
        let committed = loop {
            match rx.consumer.committed_offsets(ends.clone(), METADATA_WAIT) {
                Ok(c) => break c,
                Err(_) if Instant::now() < deadline => {}
                Err(e) => panic!("committed offsets: {e}"),
            }
        };
        let sum = committed
            .elements()
            .iter()
            .map(|e| match e.offset() {
                Offset::Offset(o) => o,
                _ => 0,
            })
            .sum();
        (sum, high)
    }

    /// The group's committed offsets are at the ends of the partitions as soon as the stream
    /// has ended: its end confirmed them (see `commits`).
    fn committed_to_end(rx: &Rx<Word>) {
        let (committed, high) = committed_and_ends(rx);
        assert_eq!(
            committed, high,
            "committed offsets against the partitions' ends"
        );
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn two_producers_two_partitions_deliver_every_message_in_order() {
        let cfg = config(2, &[("partitions", "2")]);
        let (v, rx) = stream(&cfg, 10_000, Sending::One);
        all_delivered(&v, 20_000);
        committed_to_end(&rx);
        // The topic goes with the consumer.
        let name = rx.topic.name.clone();
        drop(rx);
        let admin: AdminClient<DefaultClientContext> =
            client_config().create().expect("an admin client");
        let md = admin
            .inner()
            .fetch_metadata(Some(&name), METADATA_WAIT)
            .expect("metadata");
        assert!(
            md.topics()
                .iter()
                .all(|t| t.name() != name || t.error().is_some()),
            "topic {name} is still there"
        );
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn acks_1_and_a_commit_per_message() {
        let cfg = config(2, &[("acks", "1"), ("commit", "message")]);
        let (v, rx) = stream(&cfg, 10_000, Sending::One);
        all_delivered(&v, 20_000);
        committed_to_end(&rx);
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn the_end_of_the_stream_commits_again_where_the_group_is_short() {
        let cfg = config(1, &[("partitions", "2"), ("commit", "batch")]);
        let (v, rx) = stream(&cfg, 1_000, Sending::One);
        all_delivered(&v, 1_000);
        // Confirmed at the end: nothing to make again.
        let again = commits::confirm(
            &rx.consumer,
            &rx.topic.name,
            &rx.position,
            Instant::now() + COMMITTED_WAIT,
        );
        assert_eq!(again, Ok(0));
        // The group short of what was handed over (as after failed commits): made again.
        let (committed, high) = committed_and_ends(&rx);
        assert_eq!(committed, high);
        let further: Vec<_> = rx.position.iter().map(|p| p.map(|o| o + 5)).collect();
        let again = commits::confirm(
            &rx.consumer,
            &rx.topic.name,
            &further,
            Instant::now() + COMMITTED_WAIT,
        );
        assert_eq!(again, Ok(1));
        let (committed, _) = committed_and_ends(&rx);
        assert_eq!(committed, high + 10);
    }

    /// Asks `probe` until its answer passes `want`, for up to [`COMMITTED_WAIT`] (commits are
    /// asynchronous); fails with the last answer.
    fn settles(probe: &mut Box<dyn UncommittedProbe>, want: impl Fn(u64) -> bool) -> u64 {
        let start = Instant::now();
        loop {
            let now = probe.uncommitted();
            match now {
                Some(n) if want(n) => return n,
                _ if start.elapsed() > COMMITTED_WAIT => panic!("the probe said {now:?}"),
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn the_probe_counts_what_the_group_has_not_committed() {
        need_broker();
        let cfg = config(1, &[("partitions", "2"), ("commit", "processed")]);
        let Endpoints {
            senders,
            mut receivers,
        } = Kafka.channel::<Word>(&cfg).expect("a channel");
        let mut rx = receivers.pop().expect("one receiver");
        let mut probe = rx.uncommitted_probe().expect("a probe");
        // The warm-ups are not part of the stream.
        assert_eq!(probe.uncommitted(), Some(0));
        for mut tx in senders {
            for s in 0..500 {
                tx.send(Word::build(0, s)).expect("sent");
            }
            // Its end record in each partition, and every record delivered.
            drop(tx);
        }
        settles(&mut probe, |n| n == 502);
        for _ in 0..250 {
            rx.recv().expect("a message");
        }
        // Received is not committed: the consumer has not said it processed them.
        assert_eq!(probe.uncommitted(), Some(502));
        rx.processed();
        // Committed up to what was handed over (and an end record, if one partition ended).
        settles(&mut probe, |n| (251..=252).contains(&n));
        while rx.recv().is_some() {}
        settles(&mut probe, |n| n == 0);
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn batches_over_four_partitions_without_lingering() {
        let cfg = config(3, &[("partitions", "4"), ("linger-ms", "0"), ("acks", "0")]);
        let (v, _) = stream(&cfg, 5_000, Sending::Batches);
        all_delivered(&v, 15_000);
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn tries_deliver_every_message() {
        // Enough records to fill the client's buffer now and then (refused tries are retried).
        let cfg = config(1, &[("batch-size", "1024"), ("fetch-wait-max-ms", "1")]);
        let (v, _) = stream(&cfg, 300_000, Sending::Tries);
        all_delivered(&v, 300_000);
    }

    #[test]
    #[ignore = "needs a Kafka broker: scripts/brokers start kafka (the test command starts it)"]
    fn declares_its_options_and_refuses_heap_payloads() {
        let info = Kafka.info();
        let names: Vec<_> = info.options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "acks",
                "linger-ms",
                "batch-size",
                "fetch-wait-max-ms",
                "partitions",
                "commit"
            ]
        );
        assert!(info.semantics.batch);
        assert!(matches!(
            Kafka.channel::<handoff::payload::Boxed>(&config(1, &[])),
            Err(BuildError::Unsupported(_))
        ));
    }
}
