//! The environment fingerprint recorded with every run: the record is
//! [`handoff_model::environment::Environment`]; this module reads it off this machine and build.

pub use handoff_model::environment::Environment;
use std::collections::BTreeSet;
use std::fs;

fn read(path: &str) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Reads the fingerprint of this machine and build.
pub fn detect() -> Environment {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let flags = field("flags");
    let cpus: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.id)
        .collect();
    let logical = cpus.len().max(
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(cpus.len().max(1)),
    );
    let physical: BTreeSet<usize> = cpus
        .iter()
        .map(|&c| crate::placement::physical_core(c))
        .collect();
    Environment {
        cpu_model: field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string()),
        logical_cpus: logical,
        physical_cores: physical.len().max(1),
        smt: physical.len() < cpus.len(),
        os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        kernel: read("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
        virtualized: flags
            .as_ref()
            .map(|f| f.split_whitespace().any(|x| x == "hypervisor")),
        governor: read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        rustc: env!("HANDOFF_RUSTC_VERSION").to_string(),
        build_profile: env!("HANDOFF_BUILD_PROFILE").to_string(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: git_commit(),
        invariant_tsc: flags.as_ref().map(|f| {
            let has = |x: &str| f.split_whitespace().any(|y| y == x);
            has("constant_tsc") && has("nonstop_tsc")
        }),
        clock_source: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        machine: Some(host_name()),
    }
}

/// The git commit of the program's build, set once by the program (`handoff_cli::main_with`
/// sets the command's own stamp) before anything is measured.
static GIT_COMMIT: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Sets the git commit [`detect`] reports (a short hash, `-dirty` for an edited tree). The first
/// call wins; a program that never calls it reports `unknown`. It is the program's to stamp,
/// not this library's: a stamp compiled in here would rebuild the engine and every adapter
/// crate on every commit.
pub fn set_git_commit(commit: &str) {
    let _ = GIT_COMMIT.set(commit.to_string());
}

fn git_commit() -> String {
    GIT_COMMIT
        .get()
        .cloned()
        .unwrap_or_else(|| "unknown".to_string())
}

/// This machine's host name (`unknown` where it cannot be read).
pub fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| read(p))
        .map(|s| s.trim().to_string())
        .find(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}
