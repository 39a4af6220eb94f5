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
//!   loads the library itself (`register_library`), so a plugin that crashes or hangs in a
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
pub(crate) use queue::{PluginRx, PluginTx};

use crate::catalog::{Catalog, Entry};
use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Endpoints, Transport, TransportInfo};
use std::path::{Path, PathBuf};
use table::Funcs;

/// Why a plugin cannot be used, by kind; displayed as a sentence that completes "plugin X …".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// The file cannot be read (its metadata, the operating system's reason).
    #[error("cannot be read: {0}")]
    Unreadable(String),
    /// The path is a directory.
    #[error("is a directory, not a library")]
    Directory,
    /// The dynamic loader refused the library (its own words).
    #[error("cannot be loaded: {reason}{}", if *.not_a_library {
        " (it is not a shared library: build a plugin with `cc -shared -fPIC`)"
    } else {
        ""
    })]
    CannotLoad {
        /// What the dynamic loader said.
        reason: String,
        /// Whether the file is not a shared library at all (no ELF header, too short).
        not_a_library: bool,
    },
    /// The library has no entry point (`abi::ENTRY_POINT`).
    #[error(
        "has no `{}` function: it is not a handoff plugin (see include/handoff.h)",
        abi::ENTRY_POINT
    )]
    MissingEntryPoint,
    /// The entry point returned no table.
    #[error("its entry point returned NULL")]
    NullTable,
    /// The plugin was built for another version of the C ABI.
    #[error(
        "it was built for ABI version {found}, and this handoff speaks version {expected} \
         (rebuild it against this handoff's include/handoff.h)"
    )]
    AbiVersion {
        /// The version the plugin declares.
        found: u32,
        /// The version this handoff speaks ([`abi::ABI_VERSION`]).
        expected: u32,
    },
    /// The plugin's `handoff_transport` has another size than this handoff's (built against
    /// another header).
    #[error(
        "its handoff_transport is {found} bytes, and this handoff's is {expected} (rebuild it \
         against this handoff's include/handoff.h)"
    )]
    TransportSize {
        /// The size the plugin declares.
        found: u32,
        /// This handoff's size.
        expected: usize,
    },
    /// The table declares what handoff cannot use: every problem found, each a sentence.
    #[error("its table declares what handoff cannot use: {}", .0.join("; "))]
    BadTable(Vec<String>),
    /// One of its transports has the name of a transport the catalog already has.
    #[error(
        "its transport `{transport}` (plugin `{plugin}`) has the name of a transport from {from}"
    )]
    NameTaken {
        /// The transport's name.
        transport: String,
        /// The plugin's own name.
        plugin: String,
        /// Where the other transport of that name comes from ("handoff itself", "plugin …").
        from: String,
    },
    /// The process that describes the library could not be started.
    #[error("could not be described: {0}")]
    CannotDescribe(String),
    /// The describing process did not answer in time.
    #[error("hung while loading: no answer in {seconds} s")]
    Hung {
        /// How long it was given.
        seconds: u64,
    },
    /// The describing process crashed (how it ended).
    #[error("crashed while loading ({0})")]
    Crashed(String),
    /// The describing process answered, but not with a description.
    #[error("was described unreadably: {0}")]
    UnreadableDescription(String),
    /// The describing process refused the library, in its own words (its error of one of the
    /// other kinds, received as text).
    #[error("{0}")]
    Refused(String),
}

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
pub(crate) struct PluginTransport {
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
    .without_code_identity()
}

/// Loads the plugin library at `path` into this process and registers its transports: what a
/// worker does with each `--plugin` before it serves a trial.
pub(crate) fn register_library(catalog: &mut Catalog, path: &Path) -> Result<(), PluginError> {
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
            return Err(PluginError::NameTaken {
                transport: info.name.clone(),
                plugin: plugin.to_string(),
                from,
            });
        }
    }
    for (info, source) in entries {
        // A plugin's own code is reached through its table, at run time: its functions are
        // roots of its code identity where they are in this executable (a peer built in, a
        // library loaded here); a library only a worker loads has no identity here.
        let table = match &source {
            Source::Ready(f) => Some(f.addresses()),
            _ => None,
        };
        let entry = Entry::pull(PluginTransport { info, source });
        catalog.register(match table {
            Some(extra) => entry.with_code_roots(extra),
            None => entry.without_code_identity(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
