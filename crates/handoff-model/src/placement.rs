//! Where a sample's threads ran: the placement a result records (which cores, pinned or not,
//! SMT siblings shared, oversubscribed).

use serde::{Deserialize, Serialize};

/// Where a sample's threads ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// Threads the workload ran.
    pub threads: usize,
    /// Cores available to the process.
    pub cores_available: usize,
    /// Core id per thread, consumers first then producers; empty when not pinned.
    pub cores: Vec<usize>,
    /// Whether every requested pin succeeded.
    pub pinned: bool,
    /// Two of the pinned threads share a physical core (SMT siblings).
    pub smt_shared: bool,
    /// More threads than cores.
    pub oversubscribed: bool,
    /// Why pinning was not done or not obtained, if so.
    pub note: Option<String>,
}

impl Placement {
    /// A short label: `cores 0,1`, `unpinned (oversubscribed: 9 threads on 2 cores)`.
    pub fn label(&self) -> String {
        if self.oversubscribed {
            format!(
                "unpinned (oversubscribed: {} threads on {} cores)",
                self.threads, self.cores_available
            )
        } else if self.pinned {
            let list: Vec<String> = self.cores.iter().map(|c| c.to_string()).collect();
            let smt = if self.smt_shared {
                ", SMT siblings shared"
            } else {
                ""
            };
            format!("cores {}{smt}", list.join(","))
        } else {
            format!(
                "unpinned ({})",
                self.note.as_deref().unwrap_or("pinning off")
            )
        }
    }
}
