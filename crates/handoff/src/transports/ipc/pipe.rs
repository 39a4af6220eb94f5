//! `pipe`: an anonymous pipe, with one write end per producer.
//!
//! The kernel writes at most `PIPE_BUF` bytes (4096 on Linux) atomically: writes of several
//! writers never interleave inside one of them. So with several producers a batch is cut into
//! writes of whole messages of at most `PIPE_BUF` bytes, and a message larger than that cannot
//! be sent by two writers at once (`unsupported`); with one producer a write carries up to
//! 64 KiB. The stream ends when every write end is closed.

use super::Mechanism;
use crate::semantics::{Semantics, WaitStrategy};
use crate::transport::{BuildError, ChannelConfig, TransportInfo};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The most bytes the kernel writes into a pipe atomically.
const PIPE_BUF: usize = libc::PIPE_BUF;
/// The most one write carries with a single writer.
const CHUNK: usize = 64 * 1024;
/// The largest pipe buffer an unprivileged process may ask for by default
/// (`/proc/sys/fs/pipe-max-size`).
const MAX_PIPE_SIZE: usize = 1 << 20;

/// `pipe`: an anonymous pipe.
pub(crate) struct Pipe;

impl Mechanism for Pipe {
    type Writer = File;
    type Reader = File;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "pipe",
            "anonymous pipe, one write end per producer (writes of several writers cut at PIPE_BUF, which the kernel writes whole)",
            Semantics::mpsc()
                .bounded(1, false)
                .wait(WaitStrategy::Block)
                .batch(),
        )
    }

    fn open(&self, cfg: &ChannelConfig, bytes: usize) -> io::Result<(Vec<File>, File)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
        let (reader, writer) = unsafe {
            (
                File::from(OwnedFd::from_raw_fd(fds[0])),
                File::from(OwnedFd::from_raw_fd(fds[1])),
            )
        };
        let size = libc::c_int::try_from(bytes.clamp(PIPE_BUF, MAX_PIPE_SIZE)).unwrap_or(0);
        // SAFETY: `writer` is an open pipe; F_SETPIPE_SZ takes an int and changes no memory
        // of ours.
        if unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_SETPIPE_SZ, size) } < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut writers = Vec::with_capacity(cfg.producers);
        for _ in 1..cfg.producers.max(1) {
            writers.push(writer.try_clone()?);
        }
        writers.push(writer);
        Ok((writers, reader))
    }

    fn chunk(&self, wire: usize, writers: usize) -> Result<usize, BuildError> {
        if writers <= 1 {
            return Ok(CHUNK);
        }
        if wire > PIPE_BUF {
            return Err(BuildError::Unsupported(format!(
                "a message of {wire} B is larger than PIPE_BUF ({PIPE_BUF} B): two writers' messages could interleave"
            )));
        }
        Ok(PIPE_BUF)
    }
}
