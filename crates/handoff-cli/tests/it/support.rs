//! Helpers the end-to-end tests share.

// Each test binary includes this module and uses only some of its helpers.
#![allow(dead_code)]

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

/// A finished command's exit code, standard output and standard error, as text.
pub fn outcome(out: std::process::Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
