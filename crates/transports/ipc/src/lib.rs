//! Byte channels of the operating system as transports: the mechanisms two processes use to
//! hand messages over (`uds-stream`, `uds-seqpacket`, `tcp-loopback`, `pipe`). Each runs
//! between two processes ([`CrossProcess`]: one listens, the other joins by a rendezvous that
//! leaves nothing behind, see [`Mechanism::listen`]) and between two threads of one process,
//! the baseline the same mechanism has without the process boundary.
//!
//! | name            | what                                               | declared semantics                          |
//! |-----------------|----------------------------------------------------|---------------------------------------------|
//! | `uds-stream`    | a Unix stream socket (abstract address), connected  | SPSC, FIFO, bounded (kernel buffer), block, batch |
//! | `uds-seqpacket` | a Unix sequenced-packet socket pair                 | SPSC, FIFO, bounded (kernel buffer), block, batch |
//! | `tcp-loopback`  | TCP over 127.0.0.1 (`nodelay` option)               | SPSC, FIFO, bounded (kernel buffer), block, batch |
//! | `pipe`          | an anonymous pipe; several writers                  | MPSC, per-producer FIFO, bounded (kernel buffer), block, batch |
//!
//! Every message crosses as its fixed-size wire form ([`wire`]): a payload that owns heap
//! memory (`boxed`) has none and is `unsupported`. A send is one `write` system call, a batch one
//! `write` of the whole run (a pipe with several writers cuts it at `PIPE_BUF`, the size the
//! kernel writes atomically, so writers never interleave inside a message); a receive takes what
//! the kernel has with one `read` and hands out whole messages from it. Both sides block in the
//! kernel, so a wait costs a sleep and a wake-up, as it does between processes.
//!
//! **Capacity.** These channels are bounded in bytes, not messages: the kernel buffer of the
//! writing side (a socket's `SO_SNDBUF`, a pipe's `F_SETPIPE_SZ`) is set to `capacity` ×
//! the message's wire size, which the kernel rounds up to its own minimum and granularity (a
//! socket's doubled value, a pipe's page multiple), so the capacity a trial asks for is a
//! floor, not the exact figure.
//!
//! **Refusals.** A byte stream can accept part of a message, so none of these can refuse a send
//! whole without waiting; open-loop runs show their refusals as not observable and measure
//! their waits as latency.

pub mod pipe;
pub mod shm_ring;
pub mod shm_sharded;
mod socket;
pub mod wire;

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{BuildError, ChannelConfig, Endpoints, Transport, TransportInfo};
use handoff::transport_cross::{CrossProcess, End};
use std::io::{self, Read, Write};
use wire::{WireRx, WireTx};

/// Which way this process uses its end of a channel that joins two processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// This process reads.
    Read,
    /// This process writes.
    Write,
}

/// One mechanism: how its channel's ends are opened, in one process or in two.
pub trait Mechanism: Send + Sync + 'static {
    /// An end of the channel (both directions use the same kind of descriptor).
    type End: Read + Write + Send + 'static;
    /// What the listening process holds until the other has joined.
    type Listener: Send + 'static;

    /// Name, description and declared semantics.
    fn info(&self) -> TransportInfo;

    /// The channel's ends in this process: `cfg.producers` writers and one reader, with a
    /// kernel buffer of about `bytes`.
    fn open(&self, cfg: &ChannelConfig, bytes: usize) -> io::Result<(Vec<Self::End>, Self::End)>;

    /// Opens a channel with a kernel buffer of about `bytes` for another process to join: what
    /// this process keeps, and the rendezvous (an abstract socket name, a port on 127.0.0.1,
    /// descriptors under `/proc/<pid>/fd`: nothing a killed process would leave behind).
    fn listen(&self, cfg: &ChannelConfig, bytes: usize) -> io::Result<(Self::Listener, String)>;

    /// This process's end, used `dir`, once the other process has joined.
    fn accept(
        &self,
        listener: Self::Listener,
        dir: Dir,
        cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<Self::End>;

    /// Joins the channel at `rendezvous` with `count` ends used `dir` (several writers where
    /// the mechanism takes them).
    fn join(
        &self,
        rendezvous: &str,
        dir: Dir,
        count: usize,
        cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<Vec<Self::End>>;

    /// The most bytes one write may carry for messages of `wire` bytes from `writers` writers
    /// (whole messages are cut to fit), or why such messages cannot cross.
    fn chunk(&self, wire: usize, writers: usize) -> Result<usize, BuildError>;
}

/// A mechanism as a catalog transport.
pub struct Ipc<K>(pub K);

/// The room a reader keeps for the largest write (a packet socket delivers a packet whole or
/// cuts it).
fn read_buffer(chunk: usize) -> usize {
    chunk.max(64 * 1024)
}

impl<K: Mechanism> Ipc<K> {
    /// The wire size of `M`, the most one write carries for `writers` writers, and the kernel
    /// buffer for `cfg`'s capacity.
    fn sizes<M: Message>(
        &self,
        cfg: &ChannelConfig,
        writers: usize,
    ) -> Result<(usize, usize), BuildError> {
        let size = wire::wire_size::<M>()?;
        let chunk = self.0.chunk(size, writers)?;
        Ok((chunk, cfg.capacity.max(1).saturating_mul(size)))
    }

    /// An I/O error of the mechanism, as the transport's refusal.
    fn refused(&self, e: io::Error) -> BuildError {
        BuildError::Unsupported(format!("{}: {e}", self.0.info().name))
    }
}

impl<K: Mechanism> Transport for Ipc<K> {
    type Tx<M: Message> = WireTx<K::End, M>;
    type Rx<M: Message> = WireRx<K::End, M>;

    fn info(&self) -> TransportInfo {
        self.0.info()
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let (chunk, bytes) = self.sizes::<M>(cfg, cfg.producers)?;
        let (writers, reader) = self.0.open(cfg, bytes).map_err(|e| self.refused(e))?;
        let senders = writers
            .into_iter()
            .map(|w| WireTx::new(w, chunk))
            .collect::<Result<Vec<_>, _>>()?;
        let receiver = WireRx::new(reader, read_buffer(chunk))?;
        Ok(Endpoints {
            senders,
            receivers: vec![receiver],
        })
    }
}

impl<K: Mechanism> CrossProcess for Ipc<K> {
    type Listener = K::Listener;

    fn listen<M: Message>(
        &self,
        _end: End,
        cfg: &ChannelConfig,
    ) -> Result<(K::Listener, String), BuildError> {
        let (_, bytes) = self.sizes::<M>(cfg, cfg.producers)?;
        self.0.listen(cfg, bytes).map_err(|e| self.refused(e))
    }

    fn accept_receiver<M: Message>(
        &self,
        listener: K::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        let (chunk, bytes) = self.sizes::<M>(cfg, cfg.producers)?;
        let end = self
            .0
            .accept(listener, Dir::Read, cfg, bytes)
            .map_err(|e| self.refused(e))?;
        WireRx::new(end, read_buffer(chunk))
    }

    fn accept_sender<M: Message>(
        &self,
        listener: K::Listener,
        cfg: &ChannelConfig,
    ) -> Result<Self::Tx<M>, BuildError> {
        let (chunk, bytes) = self.sizes::<M>(cfg, 1)?;
        let end = self
            .0
            .accept(listener, Dir::Write, cfg, bytes)
            .map_err(|e| self.refused(e))?;
        WireTx::new(end, chunk)
    }

    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<Self::Tx<M>>, BuildError> {
        let (chunk, bytes) = self.sizes::<M>(cfg, cfg.producers)?;
        self.0
            .join(rendezvous, Dir::Write, cfg.producers.max(1), cfg, bytes)
            .map_err(|e| self.refused(e))?
            .into_iter()
            .map(|w| WireTx::new(w, chunk))
            .collect()
    }

    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Self::Rx<M>, BuildError> {
        let (chunk, bytes) = self.sizes::<M>(cfg, cfg.producers)?;
        let mut ends = self
            .0
            .join(rendezvous, Dir::Read, 1, cfg, bytes)
            .map_err(|e| self.refused(e))?;
        let end = ends
            .pop()
            .ok_or_else(|| BuildError::Invalid("joined with no end".into()))?;
        WireRx::new(end, read_buffer(chunk))
    }
}

/// Registers every IPC mechanism, each runnable in one process and across two.
pub fn register(c: &mut Catalog) {
    c.register(Entry::cross_process(Ipc(socket::UdsStream)));
    c.register(Entry::cross_process(Ipc(socket::UdsSeqpacket)));
    c.register(Entry::cross_process(Ipc(socket::TcpLoopback)));
    c.register(Entry::cross_process(Ipc(pipe::Pipe)));
    shm_ring::register(c);
    shm_sharded::register(c);
}
