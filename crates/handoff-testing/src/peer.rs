//! Test-only transports whose peer process fails, for proving that a cross-process trial
//! reports which side failed and that the run goes on:
//!
//! * `faulty-peer-abort` aborts the peer process after [`AFTER`] messages: the sample is
//!   `crashed`, naming the peer process and its signal;
//! * `faulty-peer-stall` stops sending after [`AFTER`] messages and holds its end open: the
//!   consumer has nothing to deliver, and the watchdog calls the sample `hung`.
//!
//! * `faulty-shm-peer-abort` is `faulty-peer-abort` over `shm-ring`, whose consumer must notice
//!   on its own that the producer's process is gone (nothing closes a shared mapping).
//!
//! The first two are the `pipe` transport; only the senders joined from another process
//! misbehave, so between threads of one process they pass.

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{BuildError, ChannelConfig, Endpoints, Sender, Transport, TransportInfo};
use handoff::transport_cross::{CrossProcess, End};
use handoff_transports::ipc::{pipe::Pipe, shm_ring::ShmRing, Ipc};

/// Messages a failing peer sends before it fails.
pub const AFTER: u64 = 1000;

/// How the peer fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerFault {
    /// It aborts.
    Abort,
    /// It stops sending and never ends.
    Stall,
}

impl PeerFault {
    /// Every fault.
    pub const ALL: [PeerFault; 2] = [PeerFault::Abort, PeerFault::Stall];

    /// The transport name.
    pub fn name(self) -> &'static str {
        match self {
            PeerFault::Abort => "faulty-peer-abort",
            PeerFault::Stall => "faulty-peer-stall",
        }
    }
}

/// A cross-process transport whose joined senders fail as `fault` says.
pub(crate) struct FailingPeer<T> {
    inner: T,
    fault: PeerFault,
    name: &'static str,
}

/// A sender that fails after [`AFTER`] messages when it was joined from another process.
pub(crate) struct FailingTx<S> {
    inner: S,
    /// The fault, for a sender joined from another process.
    fault: Option<PeerFault>,
    sent: u64,
}

impl<M: Message, S: Sender<M>> Sender<M> for FailingTx<S> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        if let Some(fault) = self.fault {
            if self.sent == AFTER {
                match fault {
                    PeerFault::Abort => std::process::abort(),
                    PeerFault::Stall => loop {
                        std::thread::park();
                    },
                }
            }
        }
        self.sent += 1;
        self.inner.send(msg)
    }

    fn failed_attempts(&self) -> u64 {
        self.inner.failed_attempts()
    }
}

impl<T: CrossProcess> Transport for FailingPeer<T> {
    type Tx<M: Message> = FailingTx<T::Tx<M>>;
    type Rx<M: Message> = T::Rx<M>;

    fn info(&self) -> TransportInfo {
        let mut info = self.inner.info();
        info.description = format!(
            "test-only: {} whose peer process {} mid-stream",
            info.name,
            match self.fault {
                PeerFault::Abort => "aborts",
                PeerFault::Stall => "stops sending",
            }
        );
        info.name = self.name.into();
        info
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let Endpoints { senders, receivers } = self.inner.channel::<M>(cfg)?;
        Ok(Endpoints {
            senders: senders.into_iter().map(|s| wrap(s, None)).collect(),
            receivers,
        })
    }
}

fn wrap<S>(inner: S, fault: Option<PeerFault>) -> FailingTx<S> {
    FailingTx {
        inner,
        fault,
        sent: 0,
    }
}

impl<T: CrossProcess> CrossProcess for FailingPeer<T> {
    type Listener = T::Listener;

    fn listen<M: Message>(
        &self,
        end: End,
        cfg: &ChannelConfig,
    ) -> Result<(Self::Listener, String), BuildError> {
        self.inner.listen::<M>(end, cfg)
    }

    fn accept_receiver<M: Message>(
        &self,
        listener: Self::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        self.inner.accept_receiver::<M>(listener, cfg)
    }

    fn accept_sender<M: Message>(
        &self,
        listener: Self::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Tx<M>, BuildError> {
        Ok(wrap(self.inner.accept_sender::<M>(listener, cfg)?, None))
    }

    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<Self::Tx<M>>, BuildError> {
        Ok(self
            .inner
            .join_senders::<M>(rendezvous, cfg)?
            .into_iter()
            .map(|s| wrap(s, Some(self.fault)))
            .collect())
    }

    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        self.inner.join_receiver::<M>(rendezvous, cfg)
    }
}

/// The name of the `shm-ring` whose peer aborts.
pub const SHM_ABORT: &str = "faulty-shm-peer-abort";

/// Registers all three.
pub fn register_all(c: &mut Catalog) {
    for fault in PeerFault::ALL {
        c.register(Entry::cross_process(FailingPeer {
            inner: Ipc(Pipe),
            fault,
            name: fault.name(),
        }));
    }
    c.register(Entry::cross_process(FailingPeer {
        inner: ShmRing,
        fault: PeerFault::Abort,
        name: SHM_ABORT,
    }));
}
