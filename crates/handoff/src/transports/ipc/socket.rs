//! `uds-stream`, `uds-seqpacket` and `tcp-loopback`: sockets, one connection per channel.
//!
//! The stream sockets are opened as two processes open them: the reader listens (a Unix socket
//! on an abstract address, which leaves no file behind, or TCP on 127.0.0.1 and a port the
//! kernel picks), the writer connects, the reader accepts. The packet socket is a connected
//! pair (`socketpair`). Each channel has one writer: a stream socket has no message boundaries
//! for two writers to respect.

use super::Mechanism;
use crate::semantics::{Semantics, WaitStrategy};
use crate::transport::{BuildError, ChannelConfig, OptionTable, TransportInfo};
use std::fs::File;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::{AtomicU64, Ordering};

/// Every socket mechanism: one writer, FIFO, bounded by the kernel buffer, blocking, one write
/// per batch.
const SOCKET: Semantics = Semantics::spsc()
    .bounded(1, false)
    .wait(WaitStrategy::Block)
    .batch();

/// The most one write carries.
const CHUNK: usize = 64 * 1024;
/// The most one packet carries (a packet must fit the sending buffer whole).
const PACKET: usize = 16 * 1024;

/// Sets an integer socket option.
fn set_int(fd: RawFd, level: libc::c_int, name: libc::c_int, value: usize) -> io::Result<()> {
    let v = libc::c_int::try_from(value).unwrap_or(libc::c_int::MAX);
    // SAFETY: `fd` is an open socket of the caller's, and the option value is a c_int whose
    // size is passed with it.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets the sending buffer of `writer` and the receiving buffer of `reader` to `bytes`.
fn size_buffers(writer: RawFd, reader: RawFd, bytes: usize) -> io::Result<()> {
    set_int(writer, libc::SOL_SOCKET, libc::SO_SNDBUF, bytes)?;
    set_int(reader, libc::SOL_SOCKET, libc::SO_RCVBUF, bytes)
}

/// A fresh abstract socket name, unique in this process.
fn abstract_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "handoff-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// `uds-stream`: a Unix stream socket.
pub(crate) struct UdsStream;

impl Mechanism for UdsStream {
    type Writer = UnixStream;
    type Reader = UnixStream;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "uds-stream",
            "Unix stream socket on an abstract address (listen, connect, accept); one write per send or batch, reads take what the kernel has",
            SOCKET,
        )
    }

    fn open(
        &self,
        _cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<(Vec<UnixStream>, UnixStream)> {
        let addr = SocketAddr::from_abstract_name(abstract_name())?;
        let listener = UnixListener::bind_addr(&addr)?;
        let writer = UnixStream::connect_addr(&addr)?;
        let (reader, _) = listener.accept()?;
        size_buffers(writer.as_raw_fd(), reader.as_raw_fd(), bytes)?;
        Ok((vec![writer], reader))
    }

    fn chunk(&self, _wire: usize, _writers: usize) -> Result<usize, BuildError> {
        Ok(CHUNK)
    }
}

/// `uds-seqpacket`: a Unix sequenced-packet socket pair.
pub(crate) struct UdsSeqpacket;

impl Mechanism for UdsSeqpacket {
    type Writer = File;
    type Reader = File;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "uds-seqpacket",
            "Unix sequenced-packet socket pair: each send or batch one packet (at most 16 KiB), each read one packet",
            SOCKET,
        )
    }

    fn open(&self, _cfg: &ChannelConfig, bytes: usize) -> io::Result<(Vec<File>, File)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors socketpair writes.
        let r = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: socketpair succeeded, so both descriptors are open and owned by nobody else.
        let (reader, writer) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // A packet must fit the sending buffer whole.
        size_buffers(
            writer.as_raw_fd(),
            reader.as_raw_fd(),
            bytes.max(2 * PACKET),
        )?;
        Ok((vec![File::from(writer)], File::from(reader)))
    }

    fn chunk(&self, wire: usize, _writers: usize) -> Result<usize, BuildError> {
        if wire > PACKET {
            return Err(BuildError::Unsupported(format!(
                "a message of {wire} B is larger than one packet ({PACKET} B)"
            )));
        }
        Ok(PACKET)
    }
}

/// Whether `tcp-loopback` sets `TCP_NODELAY`.
const NODELAY: OptionTable<bool> = OptionTable {
    name: "nodelay",
    help: "on: TCP_NODELAY, each write goes out at once; off: Nagle's algorithm may hold a small write until the previous one is acknowledged",
    values: &[("on", true), ("off", false)],
    waits: &[],
};

/// `tcp-loopback`: TCP over 127.0.0.1.
pub(crate) struct TcpLoopback;

impl Mechanism for TcpLoopback {
    type Writer = TcpStream;
    type Reader = TcpStream;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "tcp-loopback",
            "TCP over 127.0.0.1 (listen on a port the kernel picks, connect, accept); one write per send or batch",
            SOCKET,
        )
        .with_option(NODELAY.spec())
    }

    fn open(&self, cfg: &ChannelConfig, bytes: usize) -> io::Result<(Vec<TcpStream>, TcpStream)> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let writer = TcpStream::connect(listener.local_addr()?)?;
        let (reader, _) = listener.accept()?;
        writer.set_nodelay(NODELAY.get(cfg))?;
        size_buffers(writer.as_raw_fd(), reader.as_raw_fd(), bytes)?;
        Ok((vec![writer], reader))
    }

    fn chunk(&self, _wire: usize, _writers: usize) -> Result<usize, BuildError> {
        Ok(CHUNK)
    }
}
