//! Both sides of a paired run start their workers from paths of one length.
//!
//! Where an executable lies changes how its process starts: the kernel copies the path into
//! the new process's stack (its first argument and the `AT_EXECFN` string), so the main
//! thread's stack, the loader's first allocations and everything placed after them move by the
//! path's length. A spinning ring can run measurably faster or slower for it with the same
//! machine code (Mytkowicz et al., "Producing wrong data without doing anything obviously
//! wrong", ASPLOS 2009, found the same for the size of the environment). Measured here: one
//! executable copied to two directories whose paths differ by 40 characters and paired
//! against itself, 160 pairs: handoff-spsc −12.6 % one way and +17.9 % with the roles swapped,
//! both with p < 10⁻⁵ (BENCHMARKS.md, §7). A paired run whose two builds sit in different
//! directories (`target/release/handoff` against `target/against/<commit>-release/handoff`)
//! would carry that into every comparison as a difference between the builds.
//!
//! So every worker executable of a paired run (both sides, every link order) is given a path
//! of the same length for the run: a hard link (a copy where the file system refuses one) in a
//! directory of the run's own beside this executable, `handoff-sides-<pid>/<n>/handoff` with
//! `n` of a fixed width. The per-sample layouts (`handoff::layout`) still vary the heap and the
//! threads' stacks within each process; this makes the start of the two sides' processes the
//! same. The directory is removed when the run ends, and one left by a run that was killed is
//! removed by the next paired run.

use crate::CliError;
use std::path::{Path, PathBuf};

/// A run's directory of equal-length worker paths; removed when dropped.
#[derive(Debug)]
pub struct EqualPaths {
    dir: PathBuf,
    placed: usize,
}

/// How many digits the index of a placed executable takes: every path has the same length.
const WIDTH: usize = 4;

impl EqualPaths {
    /// A directory for this run beside `beside` (an executable: hard links need one file
    /// system), after removing those of paired runs no longer alive.
    pub fn new(beside: &Path) -> Result<EqualPaths, CliError> {
        let parent = beside.parent().unwrap_or(Path::new("."));
        sweep(parent);
        let dir = parent.join(format!("handoff-sides-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| failed(&dir, e))?;
        Ok(EqualPaths { dir, placed: 0 })
    }

    /// `program` at a path of the run's one length.
    pub fn place(&mut self, program: &Path) -> Result<PathBuf, CliError> {
        let slot = self.dir.join(format!("{:0WIDTH$}", self.placed));
        self.placed += 1;
        std::fs::create_dir_all(&slot).map_err(|e| failed(&slot, e))?;
        let placed = slot.join("handoff");
        if std::fs::hard_link(program, &placed).is_err() {
            std::fs::copy(program, &placed).map_err(|e| {
                CliError::run_error(format!(
                    "cannot place {} for the paired run at {}: {e}",
                    program.display(),
                    placed.display()
                ))
            })?;
        }
        Ok(placed)
    }

    /// The run's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for EqualPaths {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn failed(dir: &Path, e: std::io::Error) -> CliError {
    CliError::run_error(format!(
        "cannot make {} for the paired run's workers: {e}",
        dir.display()
    ))
}

/// Removes the `handoff-sides-<pid>` directories in `parent` whose run is no longer alive.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("handoff-sides-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !alive(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn alive(_pid: u32) -> bool {
    // Without /proc, a directory is never taken for a dead run's.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placed_program_has_a_path_of_one_length_and_the_directory_goes_with_the_run() {
        let root = tempfile::tempdir().unwrap();
        let short = root.path().join("h");
        let long_dir = root.path().join("a-much-longer-directory-name");
        std::fs::create_dir_all(&long_dir).unwrap();
        let long = long_dir.join("handoff-order-12");
        std::fs::write(&short, b"one").unwrap();
        std::fs::write(&long, b"two").unwrap();
        // A directory of a run that is no longer alive (no process has pid u32::MAX - 1).
        let stale = root.path().join(format!("handoff-sides-{}", u32::MAX - 1));
        std::fs::create_dir_all(stale.join("0000")).unwrap();
        let dir;
        {
            let mut equal = EqualPaths::new(&short).unwrap();
            assert!(!stale.exists(), "a dead run's directory is removed");
            let a = equal.place(&short).unwrap();
            let b = equal.place(&long).unwrap();
            assert_ne!(a, b);
            assert_eq!(a.as_os_str().len(), b.as_os_str().len());
            assert_eq!(std::fs::read(&a).unwrap(), b"one");
            assert_eq!(std::fs::read(&b).unwrap(), b"two");
            dir = equal.dir().to_path_buf();
            assert!(dir.starts_with(root.path()));
        }
        assert!(!dir.exists(), "removed when the run ends");
        assert!(short.exists() && long.exists(), "the originals stay");
    }
}
