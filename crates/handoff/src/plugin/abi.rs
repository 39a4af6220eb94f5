//! The Rust mirror of `include/handoff.h`: the C structures a plugin exports, field for field.
//!
//! Only `super::table` reads these structures (checking every field before anything else
//! uses them) and only `super::queue` calls their functions.

use std::ffi::{c_char, c_int, c_void};

/// `HANDOFF_ABI_VERSION`: the version of the C ABI this harness speaks.
pub const ABI_VERSION: u32 = 1;
/// `HANDOFF_ENTRY_POINT`: the symbol every plugin exports.
pub(crate) const ENTRY_POINT: &str = "handoff_plugin_entry";

/// `HANDOFF_ONE`.
pub(crate) const ONE: u32 = 1;
/// `HANDOFF_MANY`.
pub(crate) const MANY: u32 = 2;

/// `HANDOFF_FIFO`.
pub(crate) const FIFO: u32 = 1;
/// `HANDOFF_FIFO_PER_PRODUCER`.
pub(crate) const FIFO_PER_PRODUCER: u32 = 2;
/// `HANDOFF_UNORDERED`.
pub(crate) const UNORDERED: u32 = 3;

/// `HANDOFF_UNBOUNDED`.
pub(crate) const UNBOUNDED: u32 = 1;
/// `HANDOFF_POWER_OF_TWO`.
pub(crate) const POWER_OF_TWO: u32 = 2;

/// `handoff_transport`.
#[repr(C)]
#[derive(Debug)]
pub struct Transport {
    /// `name`.
    pub name: *const c_char,
    /// `description`.
    pub description: *const c_char,
    /// `language`.
    pub language: *const c_char,
    /// `producers`.
    pub producers: u32,
    /// `consumers`.
    pub consumers: u32,
    /// `ordering`.
    pub ordering: u32,
    /// `flags`.
    pub flags: u32,
    /// `min_capacity`.
    pub min_capacity: u64,
    /// `create`.
    pub create: Option<
        unsafe extern "C" fn(
            capacity: u64,
            message_size: u32,
            producers: u32,
            consumers: u32,
            error: *mut c_char,
            error_len: usize,
        ) -> *mut c_void,
    >,
    /// `try_push`.
    pub try_push: Option<unsafe extern "C" fn(queue: *mut c_void, message: *const c_void) -> c_int>,
    /// `try_push_batch`.
    pub try_push_batch: Option<
        unsafe extern "C" fn(queue: *mut c_void, messages: *const c_void, n: usize) -> usize,
    >,
    /// `try_pop`.
    pub try_pop: Option<unsafe extern "C" fn(queue: *mut c_void, out: *mut c_void) -> c_int>,
    /// `drain`.
    pub drain:
        Option<unsafe extern "C" fn(queue: *mut c_void, out: *mut c_void, max: usize) -> usize>,
    /// `push`.
    pub push: Option<unsafe extern "C" fn(queue: *mut c_void, message: *const c_void) -> c_int>,
    /// `pop`.
    pub pop: Option<unsafe extern "C" fn(queue: *mut c_void, out: *mut c_void) -> c_int>,
    /// `close`.
    pub close: Option<unsafe extern "C" fn(queue: *mut c_void)>,
    /// `destroy`.
    pub destroy: Option<unsafe extern "C" fn(queue: *mut c_void)>,
}

/// `handoff_plugin`.
#[repr(C)]
#[derive(Debug)]
pub struct Plugin {
    /// `abi_version`.
    pub abi_version: u32,
    /// `transport_size`.
    pub transport_size: u32,
    /// `name`.
    pub name: *const c_char,
    /// `count`.
    pub count: usize,
    /// `transports`.
    pub transports: *const Transport,
}

/// The type of `handoff_plugin_entry`.
pub type Entry = unsafe extern "C" fn() -> *const Plugin;
