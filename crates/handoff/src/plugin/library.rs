//! Loading a plugin library into this process (with `libloading`), once.
//!
//! Only worker processes (and the short-lived process that describes a plugin to the parent,
//! see [`super::describe`]) load a plugin: a library whose constructor crashes or hangs then
//! costs that process, never the run. A loaded library is never unloaded: some runtimes (Go's)
//! cannot be, and a worker lives for one trial anyway.

use super::table::{self, Checked};
use super::{abi, PluginError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every library loaded in this process, by the path it was named with.
static LOADED: Mutex<Vec<(PathBuf, Result<Arc<Checked>, PluginError>)>> = Mutex::new(Vec::new());

/// Loads the plugin at `path` (once per process) and checks its table.
pub(crate) fn load(path: &Path) -> Result<Arc<Checked>, PluginError> {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, done)) = loaded.iter().find(|(p, _)| p == path) {
        return done.clone();
    }
    let done = open(path).map(Arc::new);
    loaded.push((path.to_path_buf(), done.clone()));
    done
}

fn open(path: &Path) -> Result<Checked, PluginError> {
    match std::fs::metadata(path) {
        Err(e) => return Err(PluginError::Unreadable(e.to_string())),
        Ok(m) if m.is_dir() => return Err(PluginError::Directory),
        Ok(_) => {}
    }
    let given = path.display().to_string();
    // A path without a slash would be looked up in the system's library path instead.
    let path = if path.components().count() == 1 {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    // SAFETY: loading a library runs its initialisers, which is what loading a plugin means;
    // this process exists to contain what they do.
    let library = unsafe { libloading::Library::new(&path) }.map_err(|e| {
        let reason = e.to_string();
        PluginError::CannotLoad {
            not_a_library: reason.contains("invalid ELF header")
                || reason.contains("file too short"),
            reason,
        }
    })?;
    let symbol = format!("{}\0", abi::ENTRY_POINT);
    // SAFETY: the symbol's type is the entry point's as include/handoff.h declares it.
    let entry: abi::Entry = match unsafe { library.get::<abi::Entry>(symbol.as_bytes()) } {
        Ok(f) => *f,
        Err(_) => return Err(PluginError::MissingEntryPoint),
    };
    // SAFETY: the entry point of a library that stays loaded (below); its table is checked
    // field by field before use.
    let checked = unsafe { table::check(entry(), Some(&given)) };
    // Never unloaded: the table and its functions live as long as the process.
    std::mem::forget(library);
    checked
}
