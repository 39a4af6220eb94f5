//! The transport itself (see the crate docs).

use crate::domain::Domain;
use handoff::adapter::Backoff;
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Sender, Transport, TransportInfo,
};
use handoff::transport_cross::{CrossProcess, End};
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::port::update_connections::UpdateConnections;
use iceoryx2::prelude::*;
use iceoryx2::service::port_factory::publish_subscribe::PortFactory as PubSub;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

/// `iceoryx2`.
pub(crate) struct Iceoryx2;

/// A node and the service of one channel, opened with the settings every participant shares.
/// Fields drop in order: the node and service first, then the domain, which is removed if no
/// node of it is left.
struct Opened {
    /// Keeps the node alive for as long as the service and its port.
    _node: Node<ipc::Service>,
    service: PubSub<ipc::Service, [u8], ()>,
    _domain: Domain,
}

/// A fresh service name, unique on the machine.
fn service_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "handoff/{}/{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn refused(what: &str, e: impl std::fmt::Debug) -> BuildError {
    BuildError::Unsupported(format!("iceoryx2: {what}: {e:?}"))
}

/// Opens (or creates) the service `name` for channels of `cfg`, in a node of its own.
fn open(name: &str, cfg: &ChannelConfig) -> Result<Opened, BuildError> {
    static QUIET: Once = Once::new();
    // iceoryx2 logs warnings on standard error; a trial keeps what its transport prints, and
    // this is not the transport's measured behaviour.
    QUIET.call_once(|| set_log_level(LogLevel::Error));
    if cfg.producers != 1 || cfg.consumers != 1 {
        return Err(BuildError::Unsupported(format!(
            "iceoryx2 is driven here as one publisher and one subscriber ({} producers, {} consumers asked)",
            cfg.producers, cfg.consumers
        )));
    }
    let domain = Domain::of(name).map_err(|e| refused("domain", e))?;
    let node = NodeBuilder::new()
        .config(domain.config())
        .create::<ipc::Service>()
        .map_err(|e| refused("node", e))?;
    let service_name: ServiceName = name.try_into().map_err(|e| refused("service name", e))?;
    let service = node
        .service_builder(&service_name)
        .publish_subscribe::<[u8]>()
        .enable_safe_overflow(false)
        .history_size(0)
        .subscriber_max_buffer_size(cfg.capacity.max(1))
        .max_publishers(1)
        .max_subscribers(1)
        .open_or_create()
        .map_err(|e| refused("service", e))?;
    Ok(Opened {
        _node: node,
        service,
        _domain: domain,
    })
}

/// The wire size of `M`, or why it cannot cross.
fn wire<M: Message>() -> Result<usize, BuildError> {
    M::WIRE_SIZE.ok_or_else(|| {
        BuildError::Unsupported(
            "the payload owns heap memory, which has no form outside this process".into(),
        )
    })
}

/// A publisher with the node and service it came from.
pub struct PublisherPort {
    port: Publisher<ipc::Service, [u8], ()>,
    /// The node and service the port came from (alive as long as the port).
    opened: Opened,
}

/// A subscriber with the node and service it came from.
pub struct SubscriberPort {
    port: Subscriber<ipc::Service, [u8], ()>,
    opened: Opened,
}

fn publisher(opened: Opened, wire: usize) -> Result<PublisherPort, BuildError> {
    let port = opened
        .service
        .publisher_builder()
        .initial_max_slice_len(wire)
        .backpressure_strategy(BackpressureStrategy::RetryUntilDelivered)
        .create()
        .map_err(|e| refused("publisher", e))?;
    Ok(PublisherPort { port, opened })
}

fn subscriber(opened: Opened, cfg: &ChannelConfig) -> Result<SubscriberPort, BuildError> {
    let port = opened
        .service
        .subscriber_builder()
        .buffer_size(cfg.capacity.max(1))
        .create()
        .map_err(|e| refused("subscriber", e))?;
    Ok(SubscriberPort { port, opened })
}

/// How long a subscriber waits for its publisher to open its port.
const MEETING: Duration = Duration::from_secs(60);

impl SubscriberPort {
    /// Waits until the publisher's port is registered with the service, then attaches this
    /// subscriber to it.
    ///
    /// iceoryx2 connects a publisher and a subscriber lazily: the publisher attaches itself when
    /// it is created and on every send, the subscriber on its next `receive`. Until both have
    /// attached, a publisher whose subscriber's buffer is full *discards* the sample instead of
    /// waiting (there is "no connected receiver"). A subscriber thread that was slow to make its
    /// first `receive` (a busy machine) would lose messages. Attaching here, before the start
    /// line and after the publisher exists, makes the connection whole before the first message.
    fn meet(self) -> Result<Self, BuildError> {
        let dynamic = self.opened.service.dynamic_config();
        let deadline = Instant::now() + MEETING;
        let mut backoff = Backoff::new();
        while dynamic.number_of_publishers() == 0 {
            if Instant::now() > deadline {
                return Err(BuildError::Unsupported(format!(
                    "iceoryx2: no publisher opened the service within {} s",
                    MEETING.as_secs()
                )));
            }
            backoff.snooze();
        }
        self.port
            .update_connections()
            .map_err(|e| refused("attaching the subscriber", e))?;
        Ok(self)
    }
}

/// The producer's handle.
pub struct IceoryxTx<M> {
    end: PublisherPort,
    wire: usize,
    _m: std::marker::PhantomData<fn(M)>,
}

/// The consumer's handle.
pub struct IceoryxRx<M> {
    /// The subscriber, until the end of the stream: it is let go as soon as the end marker
    /// arrives (see [`IceoryxTx`]'s `Drop`).
    end: Option<SubscriberPort>,
    failed: u64,
    _m: std::marker::PhantomData<fn() -> M>,
}

// SAFETY: iceoryx2's `ipc::Service` ports share their node and service through `Rc`s, which is
// why they are not `Send`. A handle owns its own node, service and port — every clone of those
// `Rc`s lives inside the handle — and moves to another thread whole before it is used, so no
// count is ever touched from two threads.
unsafe impl<M> Send for IceoryxTx<M> {}
// SAFETY: as for `IceoryxTx`.
unsafe impl<M> Send for IceoryxRx<M> {}

impl<M: Message> IceoryxTx<M> {
    fn new(end: PublisherPort, wire: usize) -> Self {
        IceoryxTx {
            end,
            wire,
            _m: std::marker::PhantomData,
        }
    }
}

impl<M: Message> IceoryxRx<M> {
    fn new(end: SubscriberPort) -> Self {
        IceoryxRx {
            end: Some(end),
            failed: 0,
            _m: std::marker::PhantomData,
        }
    }
}

impl<M: Message> Sender<M> for IceoryxTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let mut backoff = Backoff::new();
        let mut sample = loop {
            match self.end.port.loan_slice_uninit(self.wire) {
                Ok(sample) => break sample,
                // Every sample is held by the subscriber: wait while it is there.
                Err(_)
                    if self
                        .end
                        .opened
                        .service
                        .dynamic_config()
                        .number_of_subscribers()
                        > 0 =>
                {
                    backoff.snooze()
                }
                Err(_) => return Err(msg),
            }
        };
        let out = sample.payload_mut();
        // SAFETY: the loaned slice holds `wire` bytes, `M::WIRE_SIZE`; `write_wire` writes every
        // one of them.
        unsafe { msg.write_wire(out.as_mut_ptr().cast::<u8>()) };
        // SAFETY: every byte of the payload was written just above.
        let sample = unsafe { sample.assume_init() };
        match sample.send() {
            Ok(_) => Ok(()),
            Err(_) => Err(msg),
        }
    }
}

/// The end of a stream: a sample shorter than any message. iceoryx2 drops the samples a
/// subscriber has not yet received when their publisher goes away, so a publisher that simply
/// left after its last message could take messages with it. Instead the producer's handle, when
/// dropped, sends this marker and waits until the subscriber has let go of its port, which the
/// consumer's handle does as soon as the marker arrives, after every message before it.
const END: usize = 1;

impl<M> Drop for IceoryxTx<M> {
    fn drop(&mut self) {
        let service = &self.end.opened.service;
        let mut backoff = Backoff::new();
        // A loan fails while the subscriber holds every sample of the publisher's memory: wait
        // for it to release some, as long as it is there.
        loop {
            if let Ok(mut sample) = self.end.port.loan_slice_uninit(END) {
                sample.payload_mut()[0].write(0);
                // SAFETY: the marker's one byte was written just above.
                let _ = unsafe { sample.assume_init() }.send();
                break;
            }
            if service.dynamic_config().number_of_subscribers() == 0 {
                break;
            }
            backoff.snooze();
        }
        while service.dynamic_config().number_of_subscribers() > 0 {
            backoff.snooze();
        }
    }
}

impl<M: Message> Receiver<M> for IceoryxRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        let mut backoff = Backoff::new();
        loop {
            let end = self.end.as_ref()?;
            match end.port.receive() {
                Ok(Some(sample)) => {
                    let bytes = sample.payload();
                    if bytes.len() < M::WIRE_SIZE.unwrap_or(usize::MAX) {
                        // The end marker: every message is in; let the publisher go.
                        drop(sample);
                        self.end = None;
                        return None;
                    }
                    // SAFETY: the sample holds at least `WIRE_SIZE` bytes (checked above); any
                    // bytes give a value (`read_wire`'s contract).
                    return Some(unsafe { M::read_wire(bytes.as_ptr()) });
                }
                Ok(None) => {}
                Err(_) => return None,
            }
            // Empty, and no publisher left (one that died sends no marker): the stream ended.
            if end.opened.service.dynamic_config().number_of_publishers() == 0
                && !end.port.has_samples().unwrap_or(false)
            {
                return None;
            }
            self.failed += 1;
            backoff.snooze();
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl Transport for Iceoryx2 {
    type Tx<M: Message> = IceoryxTx<M>;
    type Rx<M: Message> = IceoryxRx<M>;

    fn info(&self) -> TransportInfo {
        crate::info()
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let wire = wire::<M>()?;
        let name = service_name();
        // Each side its own node and service, as two processes would have.
        let rx = subscriber(open(&name, cfg)?, cfg)?;
        let tx = publisher(open(&name, cfg)?, wire)?;
        // The publisher exists now: the subscriber attaches without waiting.
        let rx = rx.meet()?;
        Ok(Endpoints::one(IceoryxTx::new(tx, wire), IceoryxRx::new(rx)))
    }
}

impl CrossProcess for Iceoryx2 {
    /// This side's port, created when it listens, so that the joining side finds it.
    type Listener = ListeningPort;

    fn listen<M: Message>(
        &self,
        end: End,
        cfg: &ChannelConfig,
    ) -> Result<(Self::Listener, String), BuildError> {
        let wire = wire::<M>()?;
        let name = service_name();
        let opened = open(&name, cfg)?;
        let port = match end {
            End::Sender => ListeningPort::Publisher(publisher(opened, wire)?),
            End::Receiver => ListeningPort::Subscriber(subscriber(opened, cfg)?),
        };
        Ok((port, name))
    }

    fn accept_receiver<M: Message>(
        &self,
        listener: Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        match listener {
            ListeningPort::Subscriber(port) => Ok(IceoryxRx::new(port.meet()?)),
            ListeningPort::Publisher(_) => Err(crossed_ends("receive")),
        }
    }

    fn accept_sender<M: Message>(
        &self,
        listener: Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<Self::Tx<M>, BuildError> {
        match listener {
            ListeningPort::Publisher(port) => Ok(IceoryxTx::new(port, wire::<M>()?)),
            ListeningPort::Subscriber(_) => Err(crossed_ends("send")),
        }
    }

    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<Self::Tx<M>>, BuildError> {
        let wire = wire::<M>()?;
        // A new publisher attaches itself to the subscriber that is already there.
        Ok(vec![IceoryxTx::new(
            publisher(open(rendezvous, cfg)?, wire)?,
            wire,
        )])
    }

    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        Ok(IceoryxRx::new(
            subscriber(open(rendezvous, cfg)?, cfg)?.meet()?,
        ))
    }
}

/// Why an accept asked for the end the channel was not opened for.
fn crossed_ends(verb: &str) -> BuildError {
    BuildError::Unsupported(format!(
        "iceoryx2: asked to {verb} on a channel this process opened for the other end"
    ))
}

/// The listening side's port, waiting for the other process.
pub enum ListeningPort {
    /// The listening process sends.
    Publisher(PublisherPort),
    /// The listening process receives.
    Subscriber(SubscriberPort),
}

// SAFETY: as for `IceoryxTx`: every `Rc` clone of the node, service and port lives inside.
unsafe impl Send for ListeningPort {}
