//! A worker that loses its parent ends, with everything its transport started.
//!
//! The worker leads a process group of its own (see [`crate::executor::spawn`]); a transport's
//! own processes are in it too, unless they leave it. When the parent dies, the kernel sends the
//! worker [`crate::executor::spawn::PARENT_DEATH_SIGNAL`] (Linux), and when the parent's end of
//! the protocol closes in the middle of a sample the worker notices it; either way the worker
//! kills its whole group, itself included.

/// Answers the parent-death signal by killing the worker's group.
#[cfg(unix)]
pub(super) fn on_parent_death() {
    extern "C" fn handler(_: libc::c_int) {
        // SAFETY: kill is async-signal-safe; 0 names this process's own group.
        unsafe {
            libc::kill(0, libc::SIGKILL);
        }
    }
    // SAFETY: installs a handler that calls only an async-signal-safe function; the handler
    // is a plain `extern "C"` function that lives for the whole program.
    unsafe {
        libc::signal(
            crate::executor::spawn::PARENT_DEATH_SIGNAL,
            handler as *const () as libc::sighandler_t,
        );
    }
}

#[cfg(not(unix))]
pub(super) fn on_parent_death() {}

/// Kills the worker's group (itself included); where there are no groups, exits with `code`.
pub(super) fn end_group(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: kill has no memory-safety preconditions; 0 names this process's own group.
    unsafe {
        libc::kill(0, libc::SIGKILL);
    }
    std::process::exit(code)
}
