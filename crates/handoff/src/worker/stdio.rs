//! A worker keeps its standard input and output to itself.
//!
//! The parent talks to a worker over the worker's standard input and output, but a transport
//! runs inside the worker and may print (a `println!` left in a consumer) or even read. So,
//! before anything else runs, the worker moves the protocol onto descriptors of its own and
//! gives the transport harmless ones: standard input reads `/dev/null`, and standard output
//! writes where standard error does, to the pipe whose lines the parent keeps with the trial's
//! result (see [`crate::executor::Printed`]).

use std::fs::File;
use std::io;

/// The protocol's ends once the standard streams are handed over: `(input, output)`.
pub(crate) struct Protocol {
    /// Where the parent's requests arrive.
    pub input: File,
    /// Where heartbeats and outcomes go.
    pub output: File,
}

/// Moves the protocol off standard input and output (see the module docs).
#[cfg(unix)]
pub(crate) fn take() -> io::Result<Protocol> {
    use std::os::fd::{FromRawFd, OwnedFd};
    // Duplicates a descriptor above the standard three, closed on exec.
    let dup = |fd: libc::c_int| -> io::Result<OwnedFd> {
        // SAFETY: fcntl with F_DUPFD_CLOEXEC only creates a descriptor; failure is checked.
        let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        if new < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `new` is a descriptor just created and owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(new) })
    };
    let input = dup(libc::STDIN_FILENO)?;
    let output = dup(libc::STDOUT_FILENO)?;
    let null = File::open("/dev/null")?;
    let onto = |from: libc::c_int, to: libc::c_int| -> io::Result<()> {
        // SAFETY: dup2 replaces descriptor `to` (one of the standard three) with a duplicate
        // of `from`, both open; no Rust object owns the standard descriptors.
        if unsafe { libc::dup2(from, to) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    use std::os::fd::AsRawFd;
    onto(null.as_raw_fd(), libc::STDIN_FILENO)?;
    onto(libc::STDERR_FILENO, libc::STDOUT_FILENO)?;
    Ok(Protocol {
        input: File::from(input),
        output: File::from(output),
    })
}

/// Elsewhere the protocol cannot be moved: it stays on the standard streams, and a transport
/// must not print on standard output.
#[cfg(not(unix))]
pub(crate) fn take() -> io::Result<Protocol> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "workers need a Unix system",
    ))
}
