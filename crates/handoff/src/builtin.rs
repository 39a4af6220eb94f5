//! The built-in catalog: the one place that knows both the catalog and the shipped transports.
//!
//! The transports register themselves in a [`Catalog`] (see [`crate::transports`]); the catalog
//! itself knows none of them.

use crate::catalog::Catalog;

impl Catalog {
    /// Every transport shipped with handoff. The test-only faulty transports are not among them:
    /// they come with the `testing` feature (see `testing::register_all`).
    pub fn builtin() -> Catalog {
        let mut c = Catalog::new();
        crate::transports::register_all(&mut c);
        c
    }
}
