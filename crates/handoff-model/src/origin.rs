//! Where a transport comes from: its language and the plugin that provides it.

use serde::{Deserialize, Serialize};

/// Where a transport comes from (see `handoff::transport::TransportInfo::origin`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The language the transport is written in: `Rust` for the harness's own adapters, or what
    /// a plugin declares (`C`, `C++`, `Go`, ...).
    pub language: String,
    /// The plugin library that provides it, as given on the command line or in the suite file;
    /// `None` for transports compiled into the harness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// Why the transport cannot run here (e.g. a header was missing when the harness was built,
    /// with the command that installs it); `None` for a transport that can run. Listings show it;
    /// its trials are `unsupported` with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl Default for Origin {
    fn default() -> Origin {
        Origin {
            language: "Rust".into(),
            plugin: None,
            unavailable: None,
        }
    }
}

impl Origin {
    /// A Rust transport compiled into the harness, which is what a report leaves unsaid.
    pub fn is_default(&self) -> bool {
        *self == Origin::default()
    }
}
