//! The page faults of a sample: the process's count of page faults (minor and major, every
//! thread's, from `getrusage`) read just before a sample's members are released and again as
//! soon as they have all finished, so the difference is what the timed work took, the channel's
//! creation left out. It covers the transport's own threads as well as the harness's, which a
//! per-thread count would miss; the little else the process does meanwhile (a watchdog's wait,
//! a thread's start) takes a handful. A sample across two processes is not counted: its peer's
//! faults are another process's.
//!
//! The count is what the `page-faults` lint judges (see `lints/memory.rs`).

use crate::outcome::SampleOutcome;

/// The process's page-fault count at the start of a sample's timed work.
#[must_use = "close the window to read the faults taken in it"]
pub(crate) struct FaultWindow(Option<u64>);

impl FaultWindow {
    /// Reads the count now.
    pub(crate) fn open() -> FaultWindow {
        FaultWindow(process_faults())
    }

    /// The faults taken since [`FaultWindow::open`]; `None` where either read failed.
    pub(crate) fn close(self) -> Option<u64> {
        Some(process_faults()?.saturating_sub(self.0?))
    }
}

/// `outcome` with `faults` in its CPU record (which holds the sample's cost); an outcome
/// without a CPU record is returned as it is.
pub(crate) fn with_faults(mut outcome: SampleOutcome, faults: Option<u64>) -> SampleOutcome {
    if let Some(cpu) = outcome.cpu.as_mut() {
        cpu.page_faults = faults;
    }
    outcome
}

/// The page faults this process has taken so far, minor and major; `None` where the system
/// does not say.
#[cfg(unix)]
fn process_faults() -> Option<u64> {
    // SAFETY: `rusage` is plain integers and structs of integers, for which all zeros is a
    // valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `rusage` owned by this frame; `getrusage` writes
    // only into it.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return None;
    }
    let minor = u64::try_from(usage.ru_minflt).ok()?;
    let major = u64::try_from(usage.ru_majflt).ok()?;
    minor.checked_add(major)
}

/// The page faults this process has taken so far: not counted on this system.
#[cfg(not(unix))]
fn process_faults() -> Option<u64> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn memory_touched_for_the_first_time_inside_the_window_is_counted() {
        const PAGES: usize = 256;
        let len = PAGES * 4096;
        // SAFETY: a new private anonymous mapping, at an address the kernel chooses; no
        // existing memory is affected.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "an anonymous mapping");
        let window = FaultWindow::open();
        for page in 0..PAGES {
            // SAFETY: inside the mapping made above, readable and writable, used by nothing
            // else.
            unsafe { base.cast::<u8>().add(page * 4096).write_volatile(1) };
        }
        let faults = window.close().expect("getrusage counts page faults here");
        // SAFETY: the mapping made above, of `len` bytes, unmapped once.
        unsafe { libc::munmap(base, len) };
        // Huge pages could map the range in fewer faults; a 1 MiB range cannot hold one.
        assert!(
            faults >= PAGES as u64,
            "{faults} faults for {PAGES} fresh pages"
        );
    }
}
