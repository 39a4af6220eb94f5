//! The memory a worker process uses: its resident set after each sample and its peak during it.
//!
//! Read on Linux from `/proc/self/status` (`VmRSS`, `VmHWM`). Before each sample the peak is
//! reset (writing `5` to `/proc/self/clear_refs`), so a sample's peak is its own, not the
//! highest of the process's life; where the kernel refuses the reset, the peak is the process's
//! so far and [`SampleMemory::peak_is_lifetime`] says so. Elsewhere nothing is recorded.
//!
//! Only a worker process measures this: inside the `handoff` process itself, the figures would
//! include everything else the command holds.

pub use handoff_model::memory::{MemoryFigures, SampleMemory};

/// A sample about to run: resets the peak. Returns whether it could.
pub(crate) fn before_sample() -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::write("/proc/self/clear_refs", "5").is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// A sample just ended: its figures, if this system shows them. `reset` is what
/// [`before_sample`] returned.
pub(crate) fn after_sample(reset: bool) -> Option<SampleMemory> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let (peak, after) = parse_status(&status)?;
    Some(SampleMemory {
        peak: peak.max(after),
        after,
        peak_is_lifetime: !reset,
    })
}

/// This process's resident set now, bytes, if this system shows it.
pub(crate) fn resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status(&status).map(|(_, rss)| rss)
}

/// `(VmHWM, VmRSS)` in bytes from the text of `/proc/<pid>/status`.
fn parse_status(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_bytes() {
        let text = "Name:\thandoff\nVmPeak:\t  900 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        assert_eq!(parse_status(text), Some((2048 * 1024, 1024 * 1024)));
        assert_eq!(parse_status("Name: x\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_a_resident_set() {
        let reset = before_sample();
        let m = after_sample(reset).expect("linux shows /proc/self/status");
        assert!(m.after > 0 && m.peak >= m.after);
    }
}
