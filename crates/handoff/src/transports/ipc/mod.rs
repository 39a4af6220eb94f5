//! Byte channels of the operating system as transports: the mechanisms two processes use to
//! hand messages over (`uds-stream`, `uds-seqpacket`, `tcp-loopback`, `pipe`), here measured
//! between two threads of one process, the baseline the same mechanism has without the process
//! boundary.
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

mod pipe;
mod socket;
pub(crate) mod wire;

use crate::catalog::{Catalog, Entry};
use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Endpoints, Transport, TransportInfo};
use std::io::{Read, Write};
use wire::{WireRx, WireTx};

/// One mechanism: how its channel's ends are opened in this process.
pub(crate) trait Mechanism: Send + Sync + 'static {
    /// The writing end.
    type Writer: Write + Send + 'static;
    /// The reading end.
    type Reader: Read + Send + 'static;

    /// Name, description and declared semantics.
    fn info(&self) -> TransportInfo;

    /// The channel's ends: `cfg.producers` writers and one reader, with a kernel buffer of
    /// about `bytes`.
    fn open(
        &self,
        cfg: &ChannelConfig,
        bytes: usize,
    ) -> std::io::Result<(Vec<Self::Writer>, Self::Reader)>;

    /// The most bytes one write may carry for messages of `wire` bytes from `writers` writers
    /// (whole messages are cut to fit), or why such messages cannot cross.
    fn chunk(&self, wire: usize, writers: usize) -> Result<usize, BuildError>;
}

/// A mechanism as a catalog transport.
pub(crate) struct Ipc<K>(pub K);

impl<K: Mechanism> Transport for Ipc<K> {
    type Tx<M: Message> = WireTx<K::Writer, M>;
    type Rx<M: Message> = WireRx<K::Reader, M>;

    fn info(&self) -> TransportInfo {
        self.0.info()
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let size = wire::wire_size::<M>()?;
        let chunk = self.0.chunk(size, cfg.producers)?;
        let bytes = cfg.capacity.max(1).saturating_mul(size);
        let (writers, reader) = self
            .0
            .open(cfg, bytes)
            .map_err(|e| BuildError::Unsupported(format!("{}: {e}", self.0.info().name)))?;
        let senders = writers
            .into_iter()
            .map(|w| WireTx::new(w, chunk))
            .collect::<Result<Vec<_>, _>>()?;
        // Room for the largest write (a packet socket delivers a packet whole or cuts it).
        let receiver = WireRx::new(reader, chunk.max(64 * 1024))?;
        Ok(Endpoints {
            senders,
            receivers: vec![receiver],
        })
    }
}

/// Registers every IPC mechanism.
pub(crate) fn register(c: &mut Catalog) {
    c.register(Entry::pull(Ipc(socket::UdsStream)));
    c.register(Entry::pull(Ipc(socket::UdsSeqpacket)));
    c.register(Entry::pull(Ipc(socket::TcpLoopback)));
    c.register(Entry::pull(Ipc(pipe::Pipe)));
}
