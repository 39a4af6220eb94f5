//! An iceoryx2 domain of its own for each channel, removed when the channel's last node is gone.
//!
//! iceoryx2 keeps a management segment per domain in `/dev/shm` and a directory tree under its
//! root path (in the temporary directory) that outlive every node, by design: other programs
//! of the same domain may be about to use them. In the default domain, which every iceoryx2
//! program on the machine shares, handoff may remove neither, so a run would leave them behind.
//! A channel therefore opens its nodes in a domain of its own: prefix `iox2_handoff_<id>_` and
//! root path `$TMPDIR/handoff-iceoryx2-<id>/`, where `<id>` is made from the channel's service
//! name (unique on the machine: the creating process's id and a counter), so both processes
//! of a channel find the same domain and no other program uses it. When a side lets go of its
//! node it lists the domain's nodes; the side that finds none alive removes the domain (the
//! two may both find none, and removing what is already gone is harmless).
//!
//! A process killed with `SIGKILL` cannot remove its domain; the next channel opened in any
//! handoff process sweeps the domains whose creating process is gone.

use iceoryx2::prelude::*;
use std::path::PathBuf;
use std::sync::Once;

/// How the root path of every channel's domain, in the temporary directory, begins.
const ROOT: &str = "handoff-iceoryx2-";
/// What every shared-memory object of handoff's domains is named with.
const PREFIX: &str = "iox2_handoff_";

/// One channel's domain: the configuration its nodes are opened with, and what to remove.
pub(crate) struct Domain {
    config: Config,
    id: String,
}

impl Domain {
    /// The domain of the channel whose service is `service` (`handoff/PID/N`).
    pub(crate) fn of(service: &str) -> Result<Domain, String> {
        static SWEEP: Once = Once::new();
        SWEEP.call_once(sweep_orphans);
        let id: String = service
            .strip_prefix("handoff/")
            .unwrap_or(service)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let config = config_for(&id)?;
        Ok(Domain { config, id })
    }

    /// The configuration to open the channel's nodes with.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// Removes the domain if no node of it is alive; a node left by a dead process is cleaned
    /// up first.
    fn remove_if_unused(&self) {
        remove_if_unused(&self.config, &self.id);
    }
}

impl Drop for Domain {
    fn drop(&mut self) {
        self.remove_if_unused();
    }
}

/// The root path of domain `id`.
fn root(id: &str) -> PathBuf {
    std::env::temp_dir().join(format!("{ROOT}{id}"))
}

/// The configuration of domain `id`.
fn config_for(id: &str) -> Result<Config, String> {
    let mut config = Config::default();
    let prefix = format!("{PREFIX}{id}_");
    config.global.prefix = FileName::new(prefix.as_bytes())
        .map_err(|e| format!("iceoryx2 domain prefix {prefix}: {e:?}"))?;
    // iceoryx2 takes a directory path with its trailing separator.
    let root = format!("{}/", root(id).display());
    let path =
        Path::new(root.as_bytes()).map_err(|e| format!("iceoryx2 root path {root}: {e:?}"))?;
    config.global.set_root_path(&path);
    Ok(config)
}

/// Removes domain `id` (configured by `config`) when none of its nodes is alive.
fn remove_if_unused(config: &Config, id: &str) {
    let mut alive = 0usize;
    let listed = Node::<ipc::Service>::list(config, |state| {
        match state {
            NodeState::Alive(_) => alive += 1,
            NodeState::Dead(view) => {
                // What a killed process left; failing that, the files go with the domain.
                let _ = view.try_remove_stale_resources();
            }
            NodeState::Inaccessible(_) | NodeState::Undefined(_) => alive += 1,
        }
        CallbackProgression::Continue
    });
    if listed.is_err() || alive > 0 {
        return;
    }
    // SAFETY: `remove_global_mgmt_segment` requires that no other process uses the domain.
    // The domain is this channel's alone (its prefix and root path are made from the channel's
    // service name, unique on the machine) and none of its nodes is alive: the processes of the
    // channel have let go of it, and nothing else opens it.
    let _ = unsafe { iceoryx2::testing::remove_global_mgmt_segment::<ipc::Service>(config) };
    let _ = std::fs::remove_dir_all(root(id));
}

/// Removes the domains whose creating process is gone (a run killed with `SIGKILL`).
fn sweep_orphans() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_prefix(ROOT).map(str::to_string) else {
            continue;
        };
        let Some(pid) = id.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if std::path::Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        if let Ok(config) = config_for(&id) {
            remove_if_unused(&config, &id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether anything of domain `id` is left in `/dev/shm` or the temporary directory.
    fn leftovers(id: &str) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir("/dev/shm")
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with(&format!("{PREFIX}{id}_")))
                    .collect()
            })
            .unwrap_or_default();
        if root(id).exists() {
            out.push(root(id).display().to_string());
        }
        out
    }

    #[test]
    fn a_domain_whose_last_node_is_gone_leaves_nothing() {
        let service = format!("handoff/{}/domain-test", std::process::id());
        let domain = Domain::of(&service).unwrap();
        let id = domain.id.clone();
        let node = NodeBuilder::new()
            .config(domain.config())
            .create::<ipc::Service>()
            .unwrap();
        assert!(
            !leftovers(&id).is_empty(),
            "a node makes the domain's files"
        );
        // With a node alive, the domain stays.
        domain.remove_if_unused();
        assert!(!leftovers(&id).is_empty());
        drop(node);
        drop(domain);
        assert_eq!(leftovers(&id), Vec::<String>::new());
    }

    #[test]
    fn a_domain_of_a_process_that_is_gone_is_swept_once_no_node_of_it_is_alive() {
        // A pid above the kernel's largest (2^22) belongs to no process: as after SIGKILL, the
        // domain was never removed by a side letting go.
        let id = "4194999-0".to_string();
        let config = config_for(&id).unwrap();
        let node = NodeBuilder::new()
            .config(&config)
            .create::<ipc::Service>()
            .unwrap();
        sweep_orphans();
        assert!(
            !leftovers(&id).is_empty(),
            "a domain with a node alive is never removed"
        );
        drop(node);
        assert!(!leftovers(&id).is_empty(), "the domain outlives its nodes");
        sweep_orphans();
        assert_eq!(leftovers(&id), Vec::<String>::new());
    }
}
