//! Deliberately faulty transports for the harness's own tests (in progress).
use crate::catalog::Catalog;
/// Registers the faulty transports.
pub fn register_all(_c: &mut Catalog) {}
