//! Where a command's output goes, checked before any work is done.
//!
//! A run can take an hour; an output file it cannot write must stop it before the first trial,
//! not cost every result at the end. [`Destination::check`] refuses a file in a missing
//! directory, a directory, a read-only file and a directory it cannot create files in, and a
//! closed standard output (whose writes would vanish without an error). A file is written
//! whole or not at all: the output goes to a temporary file beside it, then takes its name.

use crate::{exit, CliError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the output goes.
#[derive(Clone, Debug)]
pub enum Destination {
    /// Standard output.
    Stdout,
    /// A file.
    File(PathBuf),
}

impl Destination {
    /// Checks that output can be written to `out` (standard output when `None`); `flag` names
    /// the option in errors. Exit code 2 when it cannot.
    pub fn check(out: Option<&Path>, flag: &str) -> Result<Destination, CliError> {
        let Some(path) = out else {
            if stdout_is_closed() {
                return Err(CliError::bad_input(format!(
                    "standard output is closed, so the report would be lost: give {flag} FILE"
                )));
            }
            return Ok(Destination::Stdout);
        };
        let refuse = |why: String| CliError::bad_input(format!("{flag} {}: {why}", path.display()));
        if path.is_dir() {
            return Err(refuse("is a directory".into()));
        }
        let dir = directory_of(path);
        if !dir.is_dir() {
            return Err(refuse(format!(
                "the directory {} does not exist",
                dir.display()
            )));
        }
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().readonly() {
                return Err(refuse("the file is read-only".into()));
            }
            if !meta.is_file() {
                // A device or a pipe (`/dev/stdout`, a named pipe): it must open for writing.
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| refuse(format!("cannot be opened for writing: {e}")))?;
                return Ok(Destination::File(path.to_path_buf()));
            }
        }
        // The output is written beside its file and renamed: the directory must take new files.
        let probe = temporary(path);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .map_err(|e| refuse(format!("cannot create files in {}: {e}", dir.display())))?;
        let _ = std::fs::remove_file(&probe);
        Ok(Destination::File(path.to_path_buf()))
    }

    /// The regular file the output goes to, if it goes to one (not standard output, a device
    /// or a pipe): a run's journal is kept beside it.
    pub fn regular_file(&self) -> Option<&Path> {
        match self {
            Destination::File(p) if std::fs::metadata(p).map_or(true, |m| m.is_file()) => Some(p),
            _ => None,
        }
    }

    /// Writes `buf` whole: a regular file through a temporary file beside it, renamed onto it
    /// once written; a device or pipe directly; standard output with a flush. Exit code 3 when
    /// it fails.
    pub fn write(&self, buf: &[u8]) -> Result<(), CliError> {
        let failed = |what: &str, e: std::io::Error| CliError {
            code: exit::RUN_ERROR,
            message: format!("cannot write {what}: {e}"),
        };
        match self {
            Destination::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(buf)
                    .and_then(|_| out.flush())
                    .map_err(|e| failed("to standard output", e))
            }
            Destination::File(path) => {
                let name = path.display().to_string();
                let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
                if !regular {
                    return std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)
                        .and_then(|mut f| f.write_all(buf).and_then(|_| f.flush()))
                        .map_err(|e| failed(&name, e));
                }
                let tmp = temporary(path);
                let written = std::fs::write(&tmp, buf).and_then(|_| std::fs::rename(&tmp, path));
                if written.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                written.map_err(|e| failed(&name, e))
            }
        }
    }
}

/// The directory `path` is in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The temporary file a report to `path` is written to before it takes its name.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    directory_of(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Whether this process's standard output was closed when it started (`>&-`): writes to it
/// would be dropped without an error.
///
/// The Rust runtime opens `/dev/null` (read-write) on any standard descriptor closed at start,
/// so a closed standard output shows as `/dev/null` open for reading and writing; a shell's
/// `>/dev/null` opens it for writing only, and is a choice, not a mistake.
#[cfg(unix)]
fn stdout_is_closed() -> bool {
    let fd = libc::STDOUT_FILENO;
    // SAFETY: F_GETFL only reads the descriptor's flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 {
        return true;
    }
    if flags & libc::O_ACCMODE != libc::O_RDWR {
        return false;
    }
    let (Ok(null), Some(out)) = (std::fs::metadata("/dev/null"), fstat(fd)) else {
        return false;
    };
    use std::os::unix::fs::MetadataExt;
    (null.dev(), null.ino(), null.rdev()) == out
}

/// The device, inode and represented device of descriptor `fd`.
#[cfg(unix)]
fn fstat(fd: libc::c_int) -> Option<(u64, u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes a `stat` into the buffer it is given, which is large enough; it is
    // read only when the call succeeded.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: fstat succeeded, so the buffer is initialised.
    let st = unsafe { st.assume_init() };
    // The fields are not 64 bits wide on every Unix.
    #[allow(clippy::unnecessary_cast)]
    Some((st.st_dev as u64, st.st_ino as u64, st.st_rdev as u64))
}

#[cfg(not(unix))]
fn stdout_is_closed() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_a_directory_and_a_read_only_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/report.json");
        let e = Destination::check(Some(&missing), "--out").unwrap_err();
        assert_eq!(e.code, exit::BAD_INPUT);
        assert!(e.message.contains("does not exist"), "{}", e.message);

        let e = Destination::check(Some(dir.path()), "--out").unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);

        let ro = dir.path().join("ro.json");
        std::fs::write(&ro, "old").unwrap();
        let mut perms = std::fs::metadata(&ro).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&ro, perms).unwrap();
        let e = Destination::check(Some(&ro), "--out").unwrap_err();
        assert!(e.message.contains("read-only"), "{}", e.message);
    }

    #[test]
    fn a_file_is_written_whole_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        let d = Destination::check(Some(&path), "--out").unwrap();
        assert!(!path.exists(), "checking creates nothing");
        d.write(b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_that_fails_fails_the_write() {
        let d = Destination::check(Some(Path::new("/dev/full")), "--out").unwrap();
        let e = d.write(b"report").unwrap_err();
        assert_eq!(e.code, exit::RUN_ERROR);
        assert!(e.message.contains("/dev/full"), "{}", e.message);
    }
}
