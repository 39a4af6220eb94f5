//! Plugins of a command: `--plugin` libraries and a suite file's `plugins`, described by child
//! processes and added to the catalog before anything is planned.
//!
//! The parent never loads a plugin (see `handoff::plugin`): a library that crashes, hangs or
//! declares nonsense while it is described is a bad-input error (exit 2) naming the library and
//! what went wrong, before any trial runs. Workers are told the same libraries
//! ([`worker_args`]) and load them themselves.

use crate::CliError;
use handoff::catalog::Catalog;
use handoff::executor::WorkerCommand;
use handoff::plugin;
use std::path::{Path, PathBuf};

/// `catalog` with the transports of every plugin in `paths` added.
pub fn attach(catalog: &Catalog, paths: &[PathBuf]) -> Result<Catalog, CliError> {
    let mut catalog = catalog.clone();
    if paths.is_empty() {
        return Ok(catalog);
    }
    let exe = own_executable()?;
    for path in paths {
        let cmd = WorkerCommand {
            program: exe.clone(),
            args: vec!["__describe-plugin".into(), path.display().to_string()],
        };
        // The project's own plugins are built by a script, not by cargo.
        let ours = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("libhandoff_"));
        let hint = if ours && !path.exists() {
            " (handoff's own plugins are built by scripts/build-plugins)"
        } else {
            ""
        };
        let bad = |e: plugin::PluginError| {
            CliError::bad_input(format!("plugin {}: {e}{hint}", path.display()))
        };
        let description = plugin::describe_in_child(&cmd).map_err(bad)?;
        plugin::register_described(&mut catalog, path, &description).map_err(bad)?;
    }
    Ok(catalog)
}

/// The plugins named by `--plugin` and by the suite file, each once, in that order; a suite's
/// paths are taken relative to the suite file's directory.
pub fn wanted(flags: &[PathBuf], suite: Option<&Path>) -> Vec<PathBuf> {
    let mut all = flags.to_vec();
    if let Some(suite) = suite {
        all.extend(handoff::plan::plugins_of(suite));
    }
    let mut seen = Vec::new();
    all.retain(|p| {
        let fresh = !seen.contains(p);
        seen.push(p.clone());
        fresh
    });
    all
}

/// The arguments that tell a worker to load `paths`.
pub fn worker_args(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .flat_map(|p| ["--plugin".to_string(), p.display().to_string()])
        .collect()
}

/// The child's side of [`attach`]: describes the library at `path` on standard output.
pub fn describe(path: &Path) -> Result<u8, CliError> {
    let description = plugin::describe(path).map_err(|e| CliError::bad_input(e.to_string()))?;
    println!(
        "{}{}",
        plugin::DESCRIPTION_PREFIX,
        serde_json::to_string(&description).expect("a description serialises")
    );
    Ok(crate::exit::OK)
}

/// This executable, which plugin descriptions and workers run.
pub fn own_executable() -> Result<PathBuf, CliError> {
    std::env::current_exe().map_err(|e| CliError {
        code: crate::exit::RUN_ERROR,
        message: format!("cannot locate own executable: {e}"),
    })
}
