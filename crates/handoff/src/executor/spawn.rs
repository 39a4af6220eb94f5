//! Starting and ending worker processes so that none outlives the run.
//!
//! The lifecycle of a worker (see also `docs/methodology.md`, "Workers"):
//!
//! * **Started** by `start` with its three standard streams piped to the parent, in a
//!   **process group of its own** (so that ending it also ends anything its transport started),
//!   and, on Linux, with a **parent-death signal**: if the parent dies, however it dies (even by
//!   `SIGKILL`), the kernel sends the worker `PARENT_DEATH_SIGNAL`, on which the worker kills
//!   its whole group, itself included (see [`crate::worker`]). A worker whose parent is
//!   already gone when it starts exits at once.
//! * **Watched**: a worker also ends itself when its protocol input closes while a sample runs
//!   (see [`crate::worker`]), which covers systems without a parent-death signal.
//! * **Ended** by `end`: its whole process group is killed and the worker reaped.
//! * **On Ctrl-C or a termination signal** the command line calls [`end_all`], which kills the
//!   process group of every worker still alive, before it exits.
//!
//! Every live worker's group is listed in a registry for [`end_all`].

use super::WorkerCommand;
use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// The signal a worker receives when its parent dies (Linux): `SIGTERM`, which the worker
/// answers by killing its whole process group; until it has set that answer up, the signal's
/// default action ends the worker alone, which has started nothing yet.
#[cfg(unix)]
pub(crate) const PARENT_DEATH_SIGNAL: libc::c_int = libc::SIGTERM;

/// The process groups of the workers alive now.
static LIVE: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<u32>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts `cmd` as a worker: standard streams piped, its own process group, and (on Linux) a
/// parent-death signal.
pub(crate) fn start(cmd: &WorkerCommand) -> std::io::Result<std::process::Child> {
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    // The signal is tied to the thread that starts the worker; a session starts and ends its
    // workers on one thread.
    #[cfg(target_os = "linux")]
    dies_with_parent(&mut command, PARENT_DEATH_SIGNAL);
    let child = command.spawn()?;
    live().insert(child.id());
    Ok(child)
}

/// Makes the process `command` starts receive `signal` when the thread of this process that starts it
/// dies, however it dies (Linux's parent-death signal); a child whose parent is already gone
/// when it starts exits at once.
#[cfg(target_os = "linux")]
pub(crate) fn dies_with_parent(command: &mut Command, signal: libc::c_int) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the forked child before exec and calls only prctl, getppid and
    // _exit, which are async-signal-safe; it allocates nothing and touches no lock.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent died before the signal was set up: nobody will ever read us.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Ends a worker: kills its process group (the worker and whatever it started) and reaps it.
pub(crate) fn end(child: &mut std::process::Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    live().remove(&child.id());
}

/// Kills the process group of every worker alive now; for a Ctrl-C or termination handler.
/// The workers are reaped by whoever reaps the parent's children after it exits.
pub fn end_all() {
    for group in live().iter() {
        kill_group(*group);
    }
}

/// How many workers are alive now.
pub fn alive() -> usize {
    live().len()
}

#[cfg(unix)]
fn kill_group(group: u32) {
    // The worker leads its own group (process_group(0)), so the group's id is its pid. It is
    // not reaped yet when this runs, so the id cannot have been reused.
    if let Ok(group) = libc::pid_t::try_from(group) {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_group: u32) {}
