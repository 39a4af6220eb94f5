//! The catalog: every transport the harness knows, by name.
//!
//! A [`Catalog`] holds [`Entry`]s, each a transport behind the object-safe [`Runner`] (both
//! defined in a module of their own, which the catalog and the transports import).
//! `handoff_transports::builtin()` (a crate above this one, where each shipped adapter is
//! compiled in a crate of its own) fills one with every transport shipped with handoff; the
//! test-only faulty transports are in the `handoff-testing` crate. The catalog is the
//! [`HopSource`] of open-loop runs: it builds each hop by the hop's transport name. It also holds
//! the drivers trials can run under ([`crate::driver`]): the built-in ones, and any registered.

use crate::driver::{Drivers, TaskDriver};
use crate::engine::hop::{HopBuilder, HopSource};
use crate::transport::TransportInfo;
use std::sync::Arc;

pub use crate::runner::{Entry, Runner};
pub use crate::suggest::{LookupError, Thing};

/// A set of transports, looked up by name.
#[derive(Clone, Default)]
pub struct Catalog {
    entries: Vec<Entry>,
    drivers: Drivers,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Adds a transport; a transport of the same name is replaced.
    pub fn register(&mut self, entry: Entry) {
        self.entries.retain(|e| e.info().name != entry.info().name);
        self.entries.push(entry);
    }

    /// The transport of that name.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.info().name == name)
    }

    /// The transport of that name, or an error naming the closest valid names.
    pub fn lookup(&self, name: &str) -> Result<&Entry, LookupError> {
        self.get(name).ok_or_else(|| {
            LookupError::new(
                Thing::Transport,
                name,
                self.entries.iter().map(|e| e.info().name.as_str()),
            )
            .otherwise("`handoff list` names every transport")
        })
    }

    /// Every transport, in registration order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Adds a driver (see [`crate::driver`]); a driver of the same name is replaced.
    pub fn register_driver(&mut self, driver: impl TaskDriver) {
        self.drivers.register(driver);
    }

    /// The drivers beyond `threads`: the built-in ones and those registered.
    pub fn drivers(&self) -> &Drivers {
        &self.drivers
    }

    /// The driver of that name, or an error naming the closest valid names.
    pub fn driver(&self, name: &str) -> Result<&Arc<dyn TaskDriver>, LookupError> {
        self.drivers.lookup(name)
    }
}

impl crate::engine::processes::Remotes for Catalog {
    fn remote(&self, name: &str) -> Result<Option<&dyn crate::engine::processes::Remote>, String> {
        self.lookup(name)
            .map(|e| e.remote())
            .map_err(|e| e.to_string())
    }
}

impl HopSource for Catalog {
    fn hop_transport(&self, name: &str) -> Result<(&TransportInfo, &dyn HopBuilder), LookupError> {
        let entry = self.lookup(name)?;
        Ok((entry.info(), entry.runner().hops()))
    }

    fn drivers(&self) -> &Drivers {
        &self.drivers
    }
}
