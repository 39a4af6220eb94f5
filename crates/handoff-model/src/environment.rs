//! The environment fingerprint recorded with every run.

use serde::{Deserialize, Serialize};

/// Where and with what a run was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// CPU model name.
    pub cpu_model: String,
    /// Logical CPUs available to the process.
    pub logical_cpus: usize,
    /// Distinct physical cores among them.
    pub physical_cores: usize,
    /// Whether SMT siblings exist among the available CPUs.
    pub smt: bool,
    /// Operating system and architecture.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// Running under a hypervisor (per the CPU flags), if known.
    pub virtualized: Option<bool>,
    /// CPU frequency governor of CPU 0, where readable.
    pub governor: Option<String>,
    /// Compiler that built handoff.
    pub rustc: String,
    /// Build profile (`release`, `debug`).
    pub build_profile: String,
    /// handoff's version.
    pub tool_version: String,
    /// Git commit handoff was built from.
    pub git_commit: String,
    /// Invariant TSC available (cheap, stable clock for per-message stamps).
    pub invariant_tsc: Option<bool>,
    /// The kernel's clock source (`tsc`, `kvm-clock`, …), where readable: a sample across two
    /// processes stamps on the time-stamp counter only where it is `tsc` (absent in older
    /// reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_source: Option<String>,
    /// The machine's label: `--machine` or `HANDOFF_MACHINE` (a testbed's name a fleet shares),
    /// else its host name (absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

impl Environment {
    /// One line: `AMD EPYC, 2 cores (2 physical, no SMT), linux 6.1, rustc 1.95, release`.
    pub fn summary(&self) -> String {
        format!(
            "{}, {} cpus ({} physical{}){}, {} {}, {}, {} build, handoff {} ({})",
            self.cpu_model,
            self.logical_cpus,
            self.physical_cores,
            if self.smt { ", SMT" } else { ", no SMT" },
            if self.virtualized == Some(true) {
                ", virtualized"
            } else {
                ""
            },
            self.os,
            self.kernel,
            self.rustc,
            self.build_profile,
            self.tool_version,
            self.git_commit,
        )
    }
}
