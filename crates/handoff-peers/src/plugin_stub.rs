//! A stand-in for `handoff::plugin` while it is not yet in the core crate: the same names and
//! signatures, enough for this crate to build and test its tables. Registering a built table is
//! refused here (the core crate's version runs it); to be removed when `handoff::plugin` exists.

use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Sender, Transport, TransportInfo,
};
use std::marker::PhantomData;

/// The C structures of `include/handoff.h`, field for field.
pub mod abi {
    use std::ffi::{c_char, c_int, c_void};

    /// `HANDOFF_ABI_VERSION`.
    pub const ABI_VERSION: u32 = 1;

    /// `handoff_transport`.
    #[repr(C)]
    #[derive(Debug)]
    #[allow(missing_docs)]
    #[allow(clippy::type_complexity)]
    pub struct Transport {
        pub name: *const c_char,
        pub description: *const c_char,
        pub language: *const c_char,
        pub producers: u32,
        pub consumers: u32,
        pub ordering: u32,
        pub flags: u32,
        pub min_capacity: u64,
        pub create:
            Option<unsafe extern "C" fn(u64, u32, u32, u32, *mut c_char, usize) -> *mut c_void>,
        pub try_push: Option<unsafe extern "C" fn(*mut c_void, *const c_void) -> c_int>,
        pub try_push_batch:
            Option<unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> usize>,
        pub try_pop: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
        pub drain: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> usize>,
        pub push: Option<unsafe extern "C" fn(*mut c_void, *const c_void) -> c_int>,
        pub pop: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
        pub close: Option<unsafe extern "C" fn(*mut c_void)>,
        pub destroy: Option<unsafe extern "C" fn(*mut c_void)>,
    }

    /// `handoff_plugin`.
    #[repr(C)]
    #[derive(Debug)]
    #[allow(missing_docs)]
    pub struct Plugin {
        pub abi_version: u32,
        pub transport_size: u32,
        pub name: *const c_char,
        pub count: usize,
        pub transports: *const Transport,
    }

    /// The type of an entry point.
    pub type Entry = unsafe extern "C" fn() -> *const Plugin;
}

/// Why a plugin cannot be used.
#[derive(Debug)]
pub struct PluginError(String);

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Refused in this stand-in: linked tables are run by the core crate's version.
///
/// # Safety
/// `table` points at a valid `handoff_plugin` that lives as long as the process.
pub unsafe fn register_static(_: &mut Catalog, _: *const abi::Plugin) -> Result<(), PluginError> {
    Err(PluginError("cannot be run by this build yet".into()))
}

/// A transport that cannot run here, for the reason `why`.
pub fn unavailable(info: TransportInfo, why: &str) -> Entry {
    Entry::pull(Unavailable {
        info,
        why: why.into(),
    })
}

/// `TransportInfo::in_language`, which the core crate's version has.
pub trait InLanguage {
    /// The same info (this stand-in has no language field).
    fn in_language(self, language: &str) -> Self;
}

impl InLanguage for TransportInfo {
    fn in_language(self, _: &str) -> Self {
        self
    }
}

struct Unavailable {
    info: TransportInfo,
    why: String,
}

/// The endpoints of a channel never made.
struct Never<M>(PhantomData<fn() -> M>);

impl<M: Message> Sender<M> for Never<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        Err(msg)
    }
}

impl<M: Message> Receiver<M> for Never<M> {
    fn recv(&mut self) -> Option<M> {
        None
    }
}

impl Transport for Unavailable {
    type Tx<M: Message> = Never<M>;
    type Rx<M: Message> = Never<M>;

    fn info(&self) -> TransportInfo {
        self.info.clone()
    }

    fn channel<M: Message>(
        &self,
        _: &ChannelConfig,
    ) -> Result<Endpoints<Never<M>, Never<M>>, BuildError> {
        Err(BuildError::Unsupported(self.why.clone()))
    }
}
