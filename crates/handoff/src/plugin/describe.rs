//! A plugin library described by a child process, so the parent never loads it.
//!
//! The parent needs a plugin's transports (names, semantics) to plan a run and to list them,
//! but a library's initialisers run as soon as it is loaded, and a broken one crashes or hangs
//! the process that loads it. So the parent starts a child (the same executable, as for a
//! worker) that loads the library, checks its table and prints a [`Description`] on one line
//! behind [`DESCRIPTION_PREFIX`], or an error and a non-zero exit. A child that crashes, hangs
//! or says nothing becomes a [`PluginError`] naming what happened.

use super::{library, PluginError};
use crate::executor::{spawn, WorkerCommand};
use crate::transport::TransportInfo;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// What a plugin library provides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Description {
    /// The plugin's own name.
    pub name: String,
    /// Its transports, as declared.
    pub transports: Vec<TransportInfo>,
}

/// What precedes the description on the describing child's standard output (anything else the
/// library prints there is ignored).
pub const DESCRIPTION_PREFIX: &str = "handoff-plugin-description: ";

/// How long a library may take to load and describe itself.
const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(30);

/// Loads the library at `path` into this process and describes it: the child's side.
pub fn describe(path: &Path) -> Result<Description, PluginError> {
    let checked = library::load(path)?;
    Ok(Description {
        name: checked.name.clone(),
        transports: checked.transports.iter().map(|(i, _)| i.clone()).collect(),
    })
}

/// Runs `cmd`, a child that [`describe`]s one library and prints the result (see the module
/// docs), and reads its answer: the parent's side.
pub fn describe_in_child(cmd: &WorkerCommand) -> Result<Description, PluginError> {
    let mut child = spawn::start(cmd).map_err(|e| PluginError::CannotDescribe(e.to_string()))?;
    drop(child.stdin.take());
    let read = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut s) = stream {
                // What cannot be read is left out; the exit status still tells what happened.
                let _ = s.read_to_string(&mut text);
            }
            text
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < DESCRIBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => break None,
        }
    };
    spawn::end(&mut child);
    let Some(status) = status else {
        return Err(PluginError::Hung {
            seconds: DESCRIBE_TIMEOUT.as_secs(),
        });
    };
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    if status.success() {
        if let Some(json) = out.lines().find_map(|l| l.strip_prefix(DESCRIPTION_PREFIX)) {
            return serde_json::from_str(json)
                .map_err(|e| PluginError::UnreadableDescription(e.to_string()));
        }
    }
    // The child's own words (the reason it refused the library), else how it ended.
    let said = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .map(str::to_string);
    Err(match said {
        Some(reason) if !status.success() && status.code().is_some() => {
            PluginError::Refused(reason)
        }
        _ => PluginError::Crashed(crate::executor::describe_exit(status)),
    })
}
