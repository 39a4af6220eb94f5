//! Adapters for third-party and standard-library transports, one file each.

use crate::catalog::Catalog;

/// Registers every adapter in this module.
pub fn register_all(_catalog: &mut Catalog) {}
