//! Transports in any language: plugins behind the C ABI of `include/handoff.h`.
//!
//! A plugin is a table of transports whose functions move fixed-size blocks of bytes (each
//! message's wire form, [`crate::message::Message::write_wire`]), so the verifier, the digest and
//! the latency stamps work on a C++ queue or a Go channel exactly as on a Rust ring. Where a
//! plugin comes from:
//!
//! * **linked into the executable** (the C++ peers and the C ring, compiled by the project):
//!   [`register_static`] with the table the linked code returns;
//! * **a shared library named at run time** (`--plugin`, `plugins = [...]`): the parent process
//!   never loads it. It asks a short-lived child process to [`describe`] the library (what a
//!   crashing or hanging initialiser costs is that child: an error, exit 2, before any trial),
//!   registers the transports as described ([`register_described`]), and each trial's worker
//!   loads the library itself ([`register_library`]), so a plugin that crashes or hangs in a
//!   trial is that trial's `crashed` or `hung`.
//!
//! A transport that could not be built here (a header missing when the executable was built) is
//! registered as [`unavailable`]: listed with the reason, and `unsupported` in a run.
//!
//! | file         | concept                                                     |
//! |--------------|-------------------------------------------------------------|
//! | `abi.rs`     | the C structures, mirrored field for field                  |
//! | `table.rs`   | a plugin's table checked, every problem named               |
//! | `queue.rs`   | one transport's queue as a [`Transport`]'s endpoints        |
//! | `library.rs` | loading a shared library once per process                   |
//! | `describe.rs`| a library described by a child process, for the parent      |

pub mod abi;
mod describe;
mod library;
mod queue;
mod table;

pub use describe::{describe, describe_in_child, Description, DESCRIPTION_PREFIX};
pub use queue::{PluginRx, PluginTx};

use crate::catalog::{Catalog, Entry};
use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Endpoints, Transport, TransportInfo};
use std::path::{Path, PathBuf};
use table::Funcs;

/// Why a plugin cannot be used: a sentence that completes "plugin X …".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginError(String);

impl PluginError {
    fn new(message: impl Into<String>) -> PluginError {
        PluginError(message.into())
    }
}

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PluginError {}

/// Where a plugin transport's functions come from.
enum Source {
    /// Checked and loaded in this process.
    Ready(Funcs),
    /// A library this process loads the first time a channel is asked for (the parent's view of
    /// a plugin it had described; a worker loads its libraries up front instead).
    Library(PathBuf),
    /// Not available here, for this reason.
    Unavailable(String),
}

/// A transport of a plugin (see the module docs).
pub struct PluginTransport {
    info: TransportInfo,
    source: Source,
}

impl PluginTransport {
    fn funcs(&self) -> Result<Funcs, BuildError> {
        match &self.source {
            Source::Ready(f) => Ok(*f),
            Source::Unavailable(why) => Err(BuildError::Unsupported(why.clone())),
            Source::Library(path) => {
                let checked = library::load(path).map_err(|e| {
                    BuildError::Unsupported(format!("plugin {}: {e}", path.display()))
                })?;
                checked
                    .transports
                    .iter()
                    .find(|(info, _)| info.name == self.info.name)
                    .map(|(_, f)| *f)
                    .ok_or_else(|| {
                        BuildError::Unsupported(format!(
                            "plugin {} no longer has transport `{}`",
                            path.display(),
                            self.info.name
                        ))
                    })
            }
        }
    }
}

impl Transport for PluginTransport {
    type Tx<M: Message> = PluginTx<M>;
    type Rx<M: Message> = PluginRx<M>;

    fn info(&self) -> TransportInfo {
        self.info.clone()
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PluginTx<M>, PluginRx<M>>, BuildError> {
        queue::channel(&self.info.name, self.funcs()?, cfg)
    }
}

/// Registers every transport of a plugin table linked into this executable.
///
/// # Safety
/// `table` is null or points at a valid `handoff_plugin` (see `include/handoff.h`) that, with
/// everything it points at, lives as long as the process.
pub unsafe fn register_static(
    catalog: &mut Catalog,
    table: *const abi::Plugin,
) -> Result<(), PluginError> {
    // SAFETY: the caller's contract.
    let checked = unsafe { table::check(table, None) }?;
    let entries = checked
        .transports
        .iter()
        .map(|(info, f)| (info.clone(), Source::Ready(*f)))
        .collect();
    add(catalog, &checked.name, entries)
}

/// A transport that cannot run here, for the reason `why` (e.g. "not built: … was missing when
/// handoff was built; `apt-get install …`, then rebuild"): listed with the reason, `unsupported`
/// in a run.
pub fn unavailable(mut info: TransportInfo, why: &str) -> Entry {
    info.origin.unavailable = Some(why.to_string());
    Entry::pull(PluginTransport {
        info,
        source: Source::Unavailable(why.to_string()),
    })
}

/// Loads the plugin library at `path` into this process and registers its transports: what a
/// worker does with each `--plugin` before it serves a trial.
pub fn register_library(catalog: &mut Catalog, path: &Path) -> Result<(), PluginError> {
    let checked = library::load(path)?;
    let entries = checked
        .transports
        .iter()
        .map(|(info, f)| (info.clone(), Source::Ready(*f)))
        .collect();
    add(catalog, &checked.name, entries)
}

/// Registers the transports of the library at `path` as `description` describes them,
/// without loading it (see [`describe_in_child`]).
pub fn register_described(
    catalog: &mut Catalog,
    path: &Path,
    description: &Description,
) -> Result<(), PluginError> {
    let entries = description
        .transports
        .iter()
        .map(|info| (info.clone(), Source::Library(path.to_path_buf())))
        .collect();
    add(catalog, &description.name, entries)
}

/// Adds a plugin's transports, refusing names the catalog already has.
fn add(
    catalog: &mut Catalog,
    plugin: &str,
    entries: Vec<(TransportInfo, Source)>,
) -> Result<(), PluginError> {
    for (info, _) in &entries {
        if let Some(there) = catalog.get(&info.name) {
            let from = match &there.info().origin.plugin {
                Some(p) => format!("plugin {p}"),
                None => "handoff itself".into(),
            };
            return Err(PluginError::new(format!(
                "its transport `{}` (plugin `{plugin}`) has the name of a transport from {from}",
                info.name
            )));
        }
    }
    for (info, source) in entries {
        catalog.register(Entry::pull(PluginTransport { info, source }));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
