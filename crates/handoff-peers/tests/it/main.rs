//! The peers' integration tests in one test binary.

mod peers;
mod registered;
