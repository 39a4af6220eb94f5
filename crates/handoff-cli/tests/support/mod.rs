//! Helpers the end-to-end tests share.

/// Processes (other than zombies) whose environment holds `HANDOFF_TEST_MARK=mark`.
pub fn marked(mark: &str) -> Vec<u32> {
    let needle = format!("HANDOFF_TEST_MARK={mark}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .map(|env| env.split(|b| *b == 0).any(|var| var == needle.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}
