//! `pipe`: an anonymous pipe, with one write end per producer.
//!
//! The kernel writes at most `PIPE_BUF` bytes (4096 on Linux) atomically: writes of several
//! writers never interleave inside one of them. So with several producers a batch is cut into
//! writes of whole messages of at most `PIPE_BUF` bytes, and a message larger than that cannot
//! be sent by two writers at once (`unsupported`); with one producer a write carries up to
//! 64 KiB. The stream ends when every write end is closed.
//!
//! Between two processes the listening process creates the pipe and the other opens the end it
//! needs through `/proc/<pid>/fd/<n>` (the rendezvous names both ends: `read-path write-path`),
//! once per producer for the writing side; the listening process then closes the end it does
//! not use, so that the other side's exit ends the stream.

use super::{Dir, Mechanism};
use handoff::semantics::{Semantics, WaitStrategy};
use handoff::transport::{BuildError, ChannelConfig, TransportInfo};
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
pub struct Pipe;

/// A pipe waiting for the other process: both ends.
pub struct Ends {
    reader: File,
    writer: File,
}

/// A new pipe whose buffer holds about `bytes`: `(reader, writer)`.
fn new_pipe(bytes: usize) -> io::Result<(File, File)> {
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
    // SAFETY: `writer` is an open pipe; F_SETPIPE_SZ takes an int and changes no memory of ours.
    if unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_SETPIPE_SZ, size) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((reader, writer))
}

/// The path another process opens `file` of this one by.
fn proc_path(file: &File) -> String {
    format!("/proc/{}/fd/{}", std::process::id(), file.as_raw_fd())
}

impl Mechanism for Pipe {
    type End = File;
    type Listener = Ends;

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
        let (reader, writer) = new_pipe(bytes)?;
        let mut writers = Vec::with_capacity(cfg.producers);
        for _ in 1..cfg.producers.max(1) {
            writers.push(writer.try_clone()?);
        }
        writers.push(writer);
        Ok((writers, reader))
    }

    fn listen(&self, _cfg: &ChannelConfig, bytes: usize) -> io::Result<(Ends, String)> {
        let (reader, writer) = new_pipe(bytes)?;
        let at = format!("{} {}", proc_path(&reader), proc_path(&writer));
        Ok((Ends { reader, writer }, at))
    }

    fn accept(
        &self,
        ends: Ends,
        dir: Dir,
        _cfg: &ChannelConfig,
        _bytes: usize,
    ) -> io::Result<File> {
        // The end this process does not use closes here: only the other process holds it now.
        Ok(match dir {
            Dir::Read => ends.reader,
            Dir::Write => ends.writer,
        })
    }

    fn join(
        &self,
        rendezvous: &str,
        dir: Dir,
        count: usize,
        _cfg: &ChannelConfig,
        _bytes: usize,
    ) -> io::Result<Vec<File>> {
        let mut paths = rendezvous.split(' ');
        let (Some(read), Some(write), None) = (paths.next(), paths.next(), paths.next()) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{rendezvous}` is not a pipe's two ends"),
            ));
        };
        (0..count)
            .map(|_| match dir {
                Dir::Read => File::open(read),
                Dir::Write => std::fs::OpenOptions::new().write(true).open(write),
            })
            .collect()
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
