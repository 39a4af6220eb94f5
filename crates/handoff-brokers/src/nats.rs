//! `nats` and `nats-jetstream`: NATS core publish-subscribe, and JetStream streams with
//! explicit acknowledgements, through async-nats.
//!
//! async-nats is an async client on tokio: each connection is a task that owns the socket. A
//! channel therefore has a tokio runtime of its own, built with the channel (outside the timed
//! region), with one worker thread that runs the connections' tasks; the harness's producer and
//! consumer threads drive each operation with `block_on` on that runtime. The worker thread is
//! the client's I/O thread and part of what the figures include (it is not counted among the
//! harness's threads). Each producer and the consumer have a connection of their own, so each
//! producer's messages stay in order.
//!
//! **`nats`** (core NATS, at most once): a publish hands the message to the connection's
//! buffer, which the connection task writes out; nothing is acknowledged. A consumer that falls
//! behind loses messages (the client's subscription buffer of `pending` messages overflows, or
//! the server cuts a slow consumer), and the verifier counts what never arrived. Since an end
//! record may be lost as well, the stream also ends when every producer of this process has
//! made a round trip to the server after its last publish and gone, and a round trip of the
//! consumer's own connection then brought nothing more. A round trip is a request the server
//! answers with "no responders" (see `round_trip`); `Client::flush` is not one, since it only
//! writes the client's buffer to the socket, and the server may not yet have read it.
//!
//! **`nats-jetstream`** (at least once): a stream of its own per channel (memory or file
//! storage), a publish waits for the server's acknowledgement only when `window`
//! acknowledgements are outstanding (a full window is a refused `try_send`), and a pull
//! consumer fetches up to `fetch` messages per request and acknowledges each message
//! explicitly once the harness has taken it. An unacknowledged message would be redelivered
//! after the consumer's ack wait; the verifier counts redeliveries.

use crate::broker::NATS;
use crate::record::{self, Decoded, Ends};
use async_nats::jetstream;
use bytes::Bytes;
use futures_util::StreamExt;
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionTable, Receiver, Sender, Transport, TransportInfo,
    TrySendError, UncommittedProbe,
};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// The durable consumer's name, in the stream of each channel.
const CONSUMER: &str = "handoff";

/// How long the consumer waits for a message before it checks whether the producers are gone.
const IDLE: Duration = Duration::from_millis(100);
/// The bound on a round trip, or on an acknowledgement wait when a handle is dropped.
const CLOSING: Duration = Duration::from_secs(30);

/// The runtime a channel's connections run on, shared by its handles.
fn runtime() -> Result<Arc<Runtime>, BuildError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("nats-client")
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| BuildError::Unsupported(format!("nats: tokio runtime: {e}")))
}

/// A subject nobody subscribes to: a request to it is answered "no responders" by the server.
const ROUND_TRIP: &str = "handoff.round-trip";

/// One round trip of `client`'s connection through the server, bounded by [`CLOSING`].
///
/// The server reads a connection's operations in order, and it queues its answer to this
/// connection behind whatever it had already queued for it. So when the answer is here, the
/// server has processed everything this connection sent before (a subscription is in force,
/// every publish routed), and every message the server routed to this connection before it read
/// the request is in the client's subscription buffers.
async fn round_trip(client: &async_nats::Client) -> Result<(), String> {
    use async_nats::RequestErrorKind;
    match tokio::time::timeout(CLOSING, client.request(ROUND_TRIP, Bytes::new())).await {
        Err(_) => Err(format!("no answer within {CLOSING:?}")),
        // An answer of any kind came back through the server: the trip is made.
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) if e.kind() == RequestErrorKind::NoResponders => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
    }
}

fn connect(rt: &Runtime, pending: usize) -> Result<async_nats::Client, BuildError> {
    NATS.answers()?;
    rt.block_on(
        async_nats::ConnectOptions::new()
            .subscription_capacity(pending)
            .connection_timeout(Duration::from_secs(5))
            .connect(format!("nats://{}", NATS.addr())),
    )
    .map_err(|e| NATS.refused("connect", e))
}

/// The capacity of the client's buffer of messages received and not yet taken.
const PENDING: OptionTable<usize> = OptionTable {
    name: "pending",
    help:
        "messages the consumer's client buffers before it drops (async-nats subscription capacity)",
    values: &[("65536", 65536), ("1024", 1024), ("1048576", 1_048_576)],
    waits: &[],
};

/// `nats`.
pub(crate) struct NatsCore;

impl Transport for NatsCore {
    type Tx<M: Message> = CoreTx<M>;
    type Rx<M: Message> = CoreRx<M>;

    fn info(&self) -> TransportInfo {
        record::info("nats").with_option(PENDING.spec())
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<CoreTx<M>, CoreRx<M>>, BuildError> {
        record::wire_size::<M>()?;
        let rt = runtime()?;
        // The client spawns its connection tasks on the runtime it is made in.
        let _in = rt.enter();
        let subject = record::channel_name();
        let client = connect(&rt, PENDING.get(cfg))?;
        let subscriber = rt
            .block_on(client.subscribe(subject.clone()))
            .map_err(|e| NATS.refused("subscribe", e))?;
        // The subscription is in force at the server before any producer publishes: without
        // this round trip, a busy server may route a producer's first messages before it has
        // read the subscription, and drop them for want of interest.
        rt.block_on(round_trip(&client))
            .map_err(|e| NATS.refused("round trip after subscribing", e))?;
        let live = Arc::new(AtomicUsize::new(cfg.producers));
        let mut senders = Vec::with_capacity(cfg.producers);
        for p in 0..cfg.producers {
            senders.push(CoreTx {
                client: connect(&rt, PENDING.get(cfg))?,
                rt: rt.clone(),
                subject: async_nats::Subject::from(subject.as_str()),
                producer: p as u32,
                live: live.clone(),
                buf: Vec::new(),
                _m: PhantomData,
            });
        }
        Ok(Endpoints {
            senders,
            receivers: vec![CoreRx {
                client,
                subscriber,
                rt,
                ends: Ends::new(cfg.producers),
                live,
                peeked: None,
                _m: PhantomData,
            }],
        })
    }
}

/// A core NATS producer.
pub struct CoreTx<M> {
    client: async_nats::Client,
    rt: Arc<Runtime>,
    /// Shared bytes: a clone per publish costs a reference count, not an allocation.
    subject: async_nats::Subject,
    producer: u32,
    /// Producers of this channel not yet gone.
    live: Arc<AtomicUsize>,
    buf: Vec<u8>,
    _m: PhantomData<fn(M)>,
}

impl<M: Message> Sender<M> for CoreTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        record::encode(&msg, &mut self.buf);
        // The client owns what it publishes until it is written out: one allocation per
        // message is the client API's, whatever buffer the record is built in.
        let payload = Bytes::copy_from_slice(&self.buf);
        if let Err(e) = self
            .rt
            .block_on(self.client.publish(self.subject.clone(), payload))
        {
            panic!("nats: publish to {}: {e}", NATS.addr());
        }
        Ok(())
    }
}

impl<M> Drop for CoreTx<M> {
    fn drop(&mut self) {
        let end = Bytes::from(record::end(self.producer));
        let client = self.client.clone();
        let subject = self.subject.clone();
        let _ = self.rt.block_on(async move {
            tokio::time::timeout(CLOSING, async {
                let _ = client.publish(subject, end).await;
                // The server has routed every message of this producer when this returns.
                let _ = round_trip(&client).await;
            })
            .await
        });
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The core NATS consumer.
pub struct CoreRx<M> {
    client: async_nats::Client,
    subscriber: async_nats::Subscriber,
    rt: Arc<Runtime>,
    ends: Ends,
    live: Arc<AtomicUsize>,
    /// A message taken from the subscription by [`Receiver::pending`], handed over next.
    peeked: Option<async_nats::Message>,
    _m: PhantomData<fn() -> M>,
}

/// The next item of `stream` if it is there without waiting (polled in `rt`'s context, whose
/// timers and I/O the stream uses).
fn ready_now<S: futures_util::Stream + Unpin>(rt: &Runtime, stream: &mut S) -> Option<S::Item> {
    use std::task::{Context, Poll};
    let _in = rt.enter();
    let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
    match stream.poll_next_unpin(&mut cx) {
        Poll::Ready(item) => item,
        Poll::Pending => None,
    }
}

impl<M: Message> Receiver<M> for CoreRx<M> {
    fn recv(&mut self) -> Option<M> {
        loop {
            if self.ends.all() {
                return None;
            }
            // The timer is made inside the runtime: a tokio timer needs its context.
            let subscriber = &mut self.subscriber;
            let next = match self.peeked.take() {
                Some(m) => Ok(Some(m)),
                None => self
                    .rt
                    .block_on(async { tokio::time::timeout(IDLE, subscriber.next()).await }),
            };
            let message = match next {
                Ok(Some(m)) => m,
                Ok(None) => panic!("nats: the subscription at {} closed", NATS.addr()),
                Err(_idle) => {
                    if self.live.load(Ordering::Acquire) == 0 {
                        // Every producer's messages were routed before it went: after one
                        // round trip of this connection, whatever the server had for it is in
                        // the subscription's buffer.
                        if let Err(e) = self.rt.block_on(round_trip(&self.client)) {
                            panic!("nats: round trip at {}: {e}", NATS.addr());
                        }
                        let subscriber = &mut self.subscriber;
                        match self
                            .rt
                            .block_on(async { tokio::time::timeout(IDLE, subscriber.next()).await })
                        {
                            Ok(Some(m)) => m,
                            _ => return None,
                        }
                    } else {
                        continue;
                    }
                }
            };
            match record::decode::<M>(&message.payload) {
                Decoded::Message(m) => return Some(m),
                Decoded::End(p) => self.ends.note(p),
            }
        }
    }

    fn pending(&mut self) -> Option<usize> {
        if self.peeked.is_none() {
            self.peeked = ready_now(&self.rt, &mut self.subscriber);
        }
        Some(usize::from(self.peeked.is_some()))
    }
}

/// Acknowledgements a JetStream producer may have outstanding.
const WINDOW: OptionTable<usize> = OptionTable {
    name: "window",
    help: "publish acknowledgements a producer may have outstanding before a send waits (a full window refuses a try_send)",
    values: &[("256", 256), ("1", 1), ("16", 16), ("4096", 4096)],
    waits: &[],
};

/// Messages one pull request asks for.
const FETCH: OptionTable<usize> = OptionTable {
    name: "fetch",
    help: "messages one pull request of the consumer asks for",
    values: &[("256", 256), ("1", 1), ("16", 16), ("1024", 1024)],
    waits: &[],
};

/// Where the stream keeps its messages.
const STORAGE: OptionTable<jetstream::stream::StorageType> = OptionTable {
    name: "storage",
    help:
        "where the stream keeps its messages: files (fsync left to the server's defaults) or memory",
    values: &[
        ("file", jetstream::stream::StorageType::File),
        ("memory", jetstream::stream::StorageType::Memory),
    ],
    waits: &[],
};

/// `nats-jetstream`.
pub(crate) struct NatsJetStream;

impl Transport for NatsJetStream {
    type Tx<M: Message> = JsTx<M>;
    type Rx<M: Message> = JsRx<M>;

    fn info(&self) -> TransportInfo {
        record::info("nats-jetstream")
            .with_option(WINDOW.spec())
            .with_option(FETCH.spec())
            .with_option(STORAGE.spec())
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<JsTx<M>, JsRx<M>>, BuildError> {
        record::wire_size::<M>()?;
        let rt = runtime()?;
        let _in = rt.enter();
        let name = record::channel_name();
        let client = connect(&rt, PENDING.values[0].1)?;
        let js = jetstream::new(client);
        let stream = rt
            .block_on(js.create_stream(jetstream::stream::Config {
                name: name.clone(),
                subjects: vec![name.clone()],
                storage: STORAGE.get(cfg),
                ..Default::default()
            }))
            .map_err(|e| NATS.refused("create stream", e))?;
        let consumer = rt
            .block_on(stream.create_consumer(jetstream::consumer::pull::Config {
                durable_name: Some(CONSUMER.into()),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ..Default::default()
            }))
            .map_err(|e| NATS.refused("create consumer", e))?;
        let messages = rt
            .block_on(
                consumer
                    .stream()
                    .max_messages_per_batch(FETCH.get(cfg))
                    .messages(),
            )
            .map_err(|e| NATS.refused("pull", e))?;
        let mut senders = Vec::with_capacity(cfg.producers);
        for p in 0..cfg.producers {
            let client = connect(&rt, PENDING.values[0].1)?;
            senders.push(JsTx {
                js: jetstream::new(client),
                rt: rt.clone(),
                subject: async_nats::Subject::from(name.as_str()),
                producer: p as u32,
                acks: VecDeque::new(),
                window: WINDOW.get(cfg),
                buf: Vec::new(),
                _m: PhantomData,
            });
        }
        Ok(Endpoints {
            senders,
            receivers: vec![JsRx {
                messages,
                stream: Arc::new(JsStream {
                    js,
                    name: name.clone(),
                    rt: rt.clone(),
                }),
                name,
                rt,
                ends: Ends::new(cfg.producers),
                peeked: None,
                _m: PhantomData,
            }],
        })
    }
}

/// A publish acknowledgement being waited for (the future of a `PublishAckFuture`, kept so
/// that it can be polled without being consumed).
type AckFuture = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = Result<jetstream::publish::PublishAck, jetstream::context::PublishError>,
            > + Send,
    >,
>;

/// A JetStream producer.
pub struct JsTx<M> {
    js: jetstream::Context,
    rt: Arc<Runtime>,
    /// Shared bytes: a clone per publish costs a reference count, not an allocation.
    subject: async_nats::Subject,
    producer: u32,
    /// Publish acknowledgements outstanding, oldest first.
    acks: VecDeque<AckFuture>,
    window: usize,
    buf: Vec<u8>,
    _m: PhantomData<fn(M)>,
}

impl<M: Message> JsTx<M> {
    fn publish(&mut self) {
        let payload = Bytes::copy_from_slice(&self.buf);
        match self
            .rt
            .block_on(self.js.publish(self.subject.clone(), payload))
        {
            Ok(ack) => self
                .acks
                .push_back(std::future::IntoFuture::into_future(ack)),
            Err(e) => panic!("nats-jetstream: publish to {}: {e}", NATS.addr()),
        }
    }

    /// Takes the acknowledgements that have arrived off the front of the window, without
    /// waiting.
    fn settle_arrived(&mut self) {
        use std::task::{Context, Poll};
        // The acknowledgement's timer is tokio's: polled inside the runtime's context.
        let _in = self.rt.enter();
        let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
        while let Some(front) = self.acks.front_mut() {
            match front.as_mut().poll(&mut cx) {
                Poll::Ready(Ok(_)) => {
                    self.acks.pop_front();
                }
                Poll::Ready(Err(e)) => panic!(
                    "nats-jetstream: publish acknowledgement from {}: {e}",
                    NATS.addr()
                ),
                Poll::Pending => break,
            }
        }
    }

    /// Waits for the oldest outstanding acknowledgement.
    fn settle_oldest(&mut self) {
        if let Some(ack) = self.acks.pop_front() {
            if let Err(e) = self.rt.block_on(ack) {
                panic!(
                    "nats-jetstream: publish acknowledgement from {}: {e}",
                    NATS.addr()
                );
            }
        }
    }
}

impl<M: Message> Sender<M> for JsTx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        if self.acks.len() >= self.window {
            self.settle_arrived();
        }
        while self.acks.len() >= self.window {
            self.settle_oldest();
        }
        record::encode(&msg, &mut self.buf);
        self.publish();
        Ok(())
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.acks.len() >= self.window {
            self.settle_arrived();
        }
        if self.acks.len() >= self.window {
            return Err(TrySendError::Full(msg));
        }
        record::encode(&msg, &mut self.buf);
        self.publish();
        Ok(())
    }
}

impl<M> Drop for JsTx<M> {
    fn drop(&mut self) {
        let acks: Vec<AckFuture> = self.acks.drain(..).collect();
        let end = Bytes::from(record::end(self.producer));
        let js = self.js.clone();
        let subject = self.subject.clone();
        let _ = self.rt.block_on(async move {
            tokio::time::timeout(CLOSING, async {
                for ack in acks {
                    let _ = ack.await;
                }
                if let Ok(ack) = js.publish(subject, end).await {
                    let _ = ack.await;
                }
            })
            .await
        });
    }
}

/// The JetStream consumer.
pub struct JsRx<M> {
    messages: jetstream::consumer::pull::Stream,
    /// Deletes the stream once this consumer and its probe are gone.
    stream: Arc<JsStream>,
    name: String,
    rt: Arc<Runtime>,
    ends: Ends,
    /// A message taken from the pull by [`Receiver::pending`], handed over next.
    peeked: Option<jetstream::Message>,
    _m: PhantomData<fn() -> M>,
}

impl<M: Message> Receiver<M> for JsRx<M> {
    fn recv(&mut self) -> Option<M> {
        loop {
            if self.ends.all() {
                return None;
            }
            let next = match self.peeked.take() {
                Some(m) => Some(Ok(m)),
                None => self.rt.block_on(self.messages.next()),
            };
            let message = match next {
                Some(Ok(m)) => m,
                Some(Err(e)) => panic!("nats-jetstream: pull from {}: {e}", NATS.addr()),
                None => panic!("nats-jetstream: the pull at {} ended", NATS.addr()),
            };
            // Acknowledged once taken: the harness has it when `recv` returns.
            if let Err(e) = self.rt.block_on(message.ack()) {
                panic!("nats-jetstream: ack to {}: {e}", NATS.addr());
            }
            match record::decode::<M>(&message.payload) {
                Decoded::Message(m) => return Some(m),
                Decoded::End(p) => self.ends.note(p),
            }
        }
    }

    fn pending(&mut self) -> Option<usize> {
        if self.peeked.is_none() {
            self.peeked = match ready_now(&self.rt, &mut self.messages) {
                Some(Ok(m)) => Some(m),
                Some(Err(e)) => panic!("nats-jetstream: pull from {}: {e}", NATS.addr()),
                None => None,
            };
        }
        Some(usize::from(self.peeked.is_some()))
    }

    fn uncommitted_probe(&self) -> Option<Box<dyn UncommittedProbe>> {
        // The client spawns its connection tasks on the runtime it is made in.
        let _in = self.rt.enter();
        let js = jetstream::new(connect(&self.rt, PENDING.values[0].1).ok()?);
        let stream = self.rt.block_on(js.get_stream_no_info(&self.name)).ok()?;
        Some(Box::new(AckPending {
            stream,
            rt: self.rt.clone(),
            _kept: self.stream.clone(),
        }))
    }
}

/// The longest one question of an [`AckPending`] probe may take (it is asked on the window
/// clock's thread).
const PROBE_WAIT: Duration = Duration::from_secs(2);

/// Asks the server, on a connection of its own, what the consumer has not finished: messages
/// of the stream not yet delivered to it and messages delivered and not acknowledged.
struct AckPending {
    stream: jetstream::stream::Stream<()>,
    rt: Arc<Runtime>,
    /// Keeps the stream for the last question, asked after the sample.
    _kept: Arc<JsStream>,
}

impl UncommittedProbe for AckPending {
    fn uncommitted(&mut self) -> Option<u64> {
        let info = self.rt.block_on(async {
            tokio::time::timeout(PROBE_WAIT, self.stream.consumer_info(CONSUMER)).await
        });
        let info = info.ok()?.ok()?;
        Some(info.num_pending + info.num_ack_pending as u64)
    }
}

/// The channel's stream, deleted when the consumer and its probe are both gone.
struct JsStream {
    js: jetstream::Context,
    name: String,
    rt: Arc<Runtime>,
}

impl Drop for JsStream {
    fn drop(&mut self) {
        let js = self.js.clone();
        let name = self.name.clone();
        let _ = self
            .rt
            .block_on(async move { tokio::time::timeout(CLOSING, js.delete_stream(name)).await });
    }
}
