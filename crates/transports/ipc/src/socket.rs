//! `uds-stream`, `uds-seqpacket` and `tcp-loopback`: sockets, one connection per channel.
//!
//! The stream sockets are opened as two processes open them: the reader listens (a Unix socket
//! on an abstract address, which leaves no file behind, or TCP on 127.0.0.1 and a port the
//! kernel picks), the writer connects, the reader accepts. Within one process the packet socket
//! is a connected pair (`socketpair`); across two it listens on an abstract address too. Each
//! channel has one writer: a stream socket has no message boundaries for two writers to
//! respect.
//!
//! Between two processes the rendezvous is `@name` for a Unix socket (its abstract address) and
//! `127.0.0.1:port` for TCP.

use super::{Dir, Mechanism};
use handoff::semantics::{Semantics, WaitStrategy};
use handoff::transport::{BuildError, ChannelConfig, OptionTable, TransportInfo};
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
    size_end(writer, Dir::Write, bytes)?;
    size_end(reader, Dir::Read, bytes)
}

/// Sets the buffer of one end, used `dir`, to `bytes` (its sending or its receiving buffer).
fn size_end(fd: RawFd, dir: Dir, bytes: usize) -> io::Result<()> {
    let name = match dir {
        Dir::Write => libc::SO_SNDBUF,
        Dir::Read => libc::SO_RCVBUF,
    };
    set_int(fd, libc::SOL_SOCKET, name, bytes)
}

/// A socket channel takes one end per side: a second writer is refused.
fn one_end(count: usize) -> io::Result<()> {
    if count == 1 {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a socket connection has one writer, not {count}"),
        ))
    }
}

/// The abstract name in a rendezvous `@name`.
fn abstract_rendezvous(rendezvous: &str) -> io::Result<&str> {
    rendezvous.strip_prefix('@').ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{rendezvous}` is not an abstract socket address (`@name`)"),
        )
    })
}

/// The address of the abstract Unix socket `name`, and its length.
fn abstract_sockaddr(name: &str) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    // SAFETY: sockaddr_un is plain data; all zeroes is a valid (empty) value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = name.as_bytes();
    // The first byte of the path stays 0: an abstract address.
    if bytes.len() + 1 > addr.sun_path.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "abstract socket name too long",
        ));
    }
    for (i, b) in bytes.iter().enumerate() {
        addr.sun_path[i + 1] = *b as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + 1 + bytes.len();
    Ok((addr, len as libc::socklen_t))
}

/// A new Unix socket of `kind` (`SOCK_SEQPACKET`, …), closed on exec.
fn unix_socket(kind: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: socket creates a descriptor or returns -1; no memory is passed.
    let fd = unsafe { libc::socket(libc::AF_UNIX, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A Unix socket of `kind` listening on the abstract address `name`.
fn listen_abstract(kind: libc::c_int, name: &str) -> io::Result<OwnedFd> {
    let fd = unix_socket(kind)?;
    let (addr, len) = abstract_sockaddr(name)?;
    // SAFETY: `addr` is a valid sockaddr_un of `len` bytes and `fd` an open socket.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_un).cast(),
            len,
        )
    };
    // SAFETY: listen takes an open socket and a backlog.
    if r != 0 || unsafe { libc::listen(fd.as_raw_fd(), 4) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// A Unix socket of `kind` connected to the abstract address `name`.
fn connect_abstract(kind: libc::c_int, name: &str) -> io::Result<OwnedFd> {
    let fd = unix_socket(kind)?;
    let (addr, len) = abstract_sockaddr(name)?;
    loop {
        // SAFETY: `addr` is a valid sockaddr_un of `len` bytes and `fd` an open socket.
        let r = unsafe {
            libc::connect(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                len,
            )
        };
        if r == 0 {
            return Ok(fd);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// The next connection on the listening socket `fd`.
fn accept_fd(fd: &OwnedFd) -> io::Result<OwnedFd> {
    loop {
        // SAFETY: accept4 on an open listening socket, with no address asked for.
        let c = unsafe {
            libc::accept4(
                fd.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if c >= 0 {
            // SAFETY: accept4 returned a new descriptor owned by nobody else.
            return Ok(unsafe { OwnedFd::from_raw_fd(c) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
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
pub struct UdsStream;

impl Mechanism for UdsStream {
    type End = UnixStream;
    type Listener = UnixListener;

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

    fn listen(&self, _cfg: &ChannelConfig, _bytes: usize) -> io::Result<(UnixListener, String)> {
        let name = abstract_name();
        let listener = UnixListener::bind_addr(&SocketAddr::from_abstract_name(&name)?)?;
        Ok((listener, format!("@{name}")))
    }

    fn accept(
        &self,
        listener: UnixListener,
        dir: Dir,
        _cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<UnixStream> {
        let (end, _) = listener.accept()?;
        size_end(end.as_raw_fd(), dir, bytes)?;
        Ok(end)
    }

    fn join(
        &self,
        rendezvous: &str,
        dir: Dir,
        count: usize,
        _cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<Vec<UnixStream>> {
        one_end(count)?;
        let name = abstract_rendezvous(rendezvous)?;
        let end = UnixStream::connect_addr(&SocketAddr::from_abstract_name(name)?)?;
        size_end(end.as_raw_fd(), dir, bytes)?;
        Ok(vec![end])
    }

    fn chunk(&self, _wire: usize, _writers: usize) -> Result<usize, BuildError> {
        Ok(CHUNK)
    }
}

/// `uds-seqpacket`: a Unix sequenced-packet socket pair.
pub struct UdsSeqpacket;

impl Mechanism for UdsSeqpacket {
    type End = File;
    type Listener = OwnedFd;

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

    fn listen(&self, _cfg: &ChannelConfig, _bytes: usize) -> io::Result<(OwnedFd, String)> {
        let name = abstract_name();
        let listener = listen_abstract(libc::SOCK_SEQPACKET, &name)?;
        Ok((listener, format!("@{name}")))
    }

    fn accept(
        &self,
        listener: OwnedFd,
        dir: Dir,
        _cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<File> {
        let end = accept_fd(&listener)?;
        size_end(end.as_raw_fd(), dir, bytes.max(2 * PACKET))?;
        Ok(File::from(end))
    }

    fn join(
        &self,
        rendezvous: &str,
        dir: Dir,
        count: usize,
        _cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<Vec<File>> {
        one_end(count)?;
        let end = connect_abstract(libc::SOCK_SEQPACKET, abstract_rendezvous(rendezvous)?)?;
        size_end(end.as_raw_fd(), dir, bytes.max(2 * PACKET))?;
        Ok(vec![File::from(end)])
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
pub struct TcpLoopback;

impl Mechanism for TcpLoopback {
    type End = TcpStream;
    type Listener = TcpListener;

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

    fn listen(&self, _cfg: &ChannelConfig, _bytes: usize) -> io::Result<(TcpListener, String)> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let at = listener.local_addr()?.to_string();
        Ok((listener, at))
    }

    fn accept(
        &self,
        listener: TcpListener,
        dir: Dir,
        cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<TcpStream> {
        let (end, _) = listener.accept()?;
        end.set_nodelay(NODELAY.get(cfg))?;
        size_end(end.as_raw_fd(), dir, bytes)?;
        Ok(end)
    }

    fn join(
        &self,
        rendezvous: &str,
        dir: Dir,
        count: usize,
        cfg: &ChannelConfig,
        bytes: usize,
    ) -> io::Result<Vec<TcpStream>> {
        one_end(count)?;
        let at: std::net::SocketAddr = rendezvous.parse().map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{rendezvous}` is not a socket address"),
            )
        })?;
        let end = TcpStream::connect(at)?;
        end.set_nodelay(NODELAY.get(cfg))?;
        size_end(end.as_raw_fd(), dir, bytes)?;
        Ok(vec![end])
    }

    fn chunk(&self, _wire: usize, _writers: usize) -> Result<usize, BuildError> {
        Ok(CHUNK)
    }
}
