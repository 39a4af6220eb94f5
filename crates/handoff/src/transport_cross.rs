//! The contract of a transport whose channel can join two processes.
//!
//! A [`Transport`] builds both ends of a channel in one process. A `CrossProcess` transport can
//! also build them in two: one process *listens* (opens the channel and says how to reach it,
//! the **rendezvous**, a string), the other *joins* by that string, and the first then
//! *accepts*, taking its own end. The harness does the rest (see `crate::engine::processes`):
//! it starts the other process, hands it the rendezvous, meets it at a start line in shared
//! memory and collects what its side measured.
//!
//! Which end each process takes depends on the workload: in a stream, the listening process
//! receives and the joining one sends (one sender per producer); in ping-pong, each process
//! listens for one channel's other end, and takes both directions in turn.
//!
//! A rendezvous names something only the two processes can reach and that leaves nothing behind
//! when both are gone, however they end: an abstract Unix socket name, a TCP port on 127.0.0.1,
//! or a descriptor of the listening process as `/proc/<pid>/fd/<n>` (a pipe, an anonymous
//! shared-memory file). A file in the filesystem or in `/dev/shm` would outlive a process
//! killed with `SIGKILL`.
//!
//! ```text
//! impl CrossProcess for MyIpc {
//!     type Listener = MyListener;
//!     fn listen<M: Message>(&self, end: End, cfg: &ChannelConfig)
//!         -> Result<(MyListener, String), BuildError> { /* open; say where */ }
//!     fn accept_receiver<M: Message>(&self, l: MyListener, cfg: &ChannelConfig)
//!         -> Result<Self::Rx<M>, BuildError> { /* this side's reading end */ }
//!     fn accept_sender<M: Message>(&self, l: MyListener, cfg: &ChannelConfig)
//!         -> Result<Self::Tx<M>, BuildError> { /* this side's writing end */ }
//!     fn join_senders<M: Message>(&self, at: &str, cfg: &ChannelConfig)
//!         -> Result<Vec<Self::Tx<M>>, BuildError> { /* one per producer */ }
//!     fn join_receiver<M: Message>(&self, at: &str, cfg: &ChannelConfig)
//!         -> Result<Self::Rx<M>, BuildError> { /* the other side's reader */ }
//! }
//! // registered with `Entry::cross_process(MyIpc)`.
//! ```

use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Transport};

/// The end of a channel the listening process will take when it accepts.
///
/// A transport whose ports must exist before the other process joins (a publisher the joining
/// subscriber attaches to, say) creates this end in [`CrossProcess::listen`]; others ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The listening process will send ([`CrossProcess::accept_sender`]).
    Sender,
    /// The listening process will receive ([`CrossProcess::accept_receiver`]).
    Receiver,
}

/// A transport whose channel can join two processes (see the module docs). Its in-process
/// channel ([`Transport::channel`]) is the same mechanism between two threads: the baseline
/// without the process boundary.
pub trait CrossProcess: Transport {
    /// What the listening process holds between [`CrossProcess::listen`] and its `accept`.
    type Listener: Send + 'static;

    /// Opens a channel of `M` configured by `cfg` for another process to join, this process to
    /// accept its `end` of it: what this process keeps, and the rendezvous the other process
    /// joins by.
    fn listen<M: Message>(
        &self,
        end: End,
        cfg: &ChannelConfig,
    ) -> Result<(Self::Listener, String), BuildError>;

    /// This process's receiving end, once the other process has joined as the sender(s)
    /// ([`CrossProcess::join_senders`]).
    fn accept_receiver<M: Message>(
        &self,
        listener: Self::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError>;

    /// This process's sending end, once the other process has joined as the receiver
    /// ([`CrossProcess::join_receiver`]).
    fn accept_sender<M: Message>(
        &self,
        listener: Self::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Tx<M>, BuildError>;

    /// Joins the channel at `rendezvous` as `cfg.producers` senders.
    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<Self::Tx<M>>, BuildError>;

    /// Joins the channel at `rendezvous` as its receiver.
    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError>;
}
