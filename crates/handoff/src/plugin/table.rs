//! Reading a plugin's table: every field checked, every problem named, before any transport of
//! the plugin is registered.
//!
//! A table that declares nonsense (an unknown topology, an ordering that is not one of the
//! three, a missing required function, a name that is not a valid transport name, no transports
//! at all) is refused as a whole, with each problem listed, so that its author can fix them all
//! in one go.

use super::abi;
use super::PluginError;
use crate::semantics::{
    Arity, Bound, ConsumerStyle, Delivery, Locality, Ordering, Semantics, WaitStrategy,
};
use crate::transport::{Origin, TransportInfo};
use std::ffi::{c_char, CStr};

/// The functions of one transport, the required ones known present.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Funcs {
    pub create:
        unsafe extern "C" fn(u64, u32, u32, u32, *mut c_char, usize) -> *mut std::ffi::c_void,
    pub try_push:
        unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_void) -> std::ffi::c_int,
    pub try_push_batch: Option<
        unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_void, usize) -> usize,
    >,
    pub try_pop:
        unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void) -> std::ffi::c_int,
    pub drain:
        Option<unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void, usize) -> usize>,
    pub push: Option<
        unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_void) -> std::ffi::c_int,
    >,
    pub pop: Option<
        unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void) -> std::ffi::c_int,
    >,
    pub close: Option<unsafe extern "C" fn(*mut std::ffi::c_void)>,
    pub destroy: unsafe extern "C" fn(*mut std::ffi::c_void),
}

impl Funcs {
    /// The addresses of every function of the table, for the code identity of a transport
    /// whose functions are in this executable (see [`crate::code`]).
    pub(crate) fn addresses(&self) -> Vec<usize> {
        let mut all = vec![
            self.create as *const () as usize,
            self.try_push as *const () as usize,
            self.try_pop as *const () as usize,
            self.destroy as *const () as usize,
        ];
        all.extend(self.try_push_batch.map(|f| f as *const () as usize));
        all.extend(self.drain.map(|f| f as *const () as usize));
        all.extend(self.push.map(|f| f as *const () as usize));
        all.extend(self.pop.map(|f| f as *const () as usize));
        all.extend(self.close.map(|f| f as *const () as usize));
        all
    }
}

/// A plugin's table, checked.
#[derive(Debug)]
pub(crate) struct Checked {
    /// The plugin's own name.
    pub name: String,
    /// Each transport: what it declares, and its functions.
    pub transports: Vec<(TransportInfo, Funcs)>,
}

/// The most transports one plugin may declare (more is taken for a corrupt count).
const MAX_TRANSPORTS: usize = 1024;
/// The longest name, description or language accepted.
const MAX_TEXT: usize = 1024;

/// Reads and checks the table `plugin` points at; `origin` is how the plugin was named (its
/// path), recorded in each transport's [`Origin`].
///
/// # Safety
/// `plugin` is null or points at a `handoff_plugin` whose pointers are null or valid (strings
/// NUL-terminated, `transports` holding `count` entries when `transport_size` matches) for as
/// long as the process lives.
pub(crate) unsafe fn check(
    plugin: *const abi::Plugin,
    origin: Option<&str>,
) -> Result<Checked, PluginError> {
    // SAFETY: the caller's contract.
    let Some(p) = (unsafe { plugin.as_ref() }) else {
        return Err(PluginError::NullTable);
    };
    if p.abi_version != abi::ABI_VERSION {
        return Err(PluginError::AbiVersion {
            found: p.abi_version,
            expected: abi::ABI_VERSION,
        });
    }
    if p.transport_size as usize != std::mem::size_of::<abi::Transport>() {
        return Err(PluginError::TransportSize {
            found: p.transport_size,
            expected: std::mem::size_of::<abi::Transport>(),
        });
    }
    let mut problems = Vec::new();
    // SAFETY: the caller's contract.
    let name = unsafe { text(p.name, "the plugin's name", &mut problems) }.unwrap_or_default();
    if p.count == 0 || p.transports.is_null() {
        problems.push("it declares no transports (count 0 or a NULL table)".into());
    } else if p.count > MAX_TRANSPORTS {
        problems.push(format!(
            "it declares {} transports, more than the {MAX_TRANSPORTS} one plugin may have",
            p.count
        ));
    }
    let mut transports = Vec::new();
    if problems.is_empty() {
        // SAFETY: the caller's contract: `count` entries of the size checked above.
        let table = unsafe { std::slice::from_raw_parts(p.transports, p.count) };
        for (i, t) in table.iter().enumerate() {
            // SAFETY: the caller's contract.
            if let Some(checked) = unsafe { transport(i, t, origin, &mut problems) } {
                if transports
                    .iter()
                    .any(|(info, _): &(TransportInfo, Funcs)| info.name == checked.0.name)
                {
                    problems.push(format!("transport `{}` is declared twice", checked.0.name));
                }
                transports.push(checked);
            }
        }
    }
    if problems.is_empty() {
        Ok(Checked { name, transports })
    } else {
        Err(PluginError::BadTable(problems))
    }
}

/// Checks transport number `i` of a table.
///
/// # Safety
/// As for [`check`].
unsafe fn transport(
    i: usize,
    t: &abi::Transport,
    origin: Option<&str>,
    problems: &mut Vec<String>,
) -> Option<(TransportInfo, Funcs)> {
    let before = problems.len();
    // SAFETY: the caller's contract.
    let name = unsafe { text(t.name, &format!("transport {i}'s name"), problems) };
    let what = match &name {
        Some(n) => format!("transport `{n}`"),
        None => format!("transport {i}"),
    };
    if let Some(n) = &name {
        if !valid_name(n) {
            problems.push(format!(
                "{what}: a name must be lowercase letters, digits and '-', starting with a \
                 letter or digit, at most 64 characters"
            ));
        }
    }
    // SAFETY: the caller's contract.
    let description = unsafe { text(t.description, &format!("{what}'s description"), problems) };
    // SAFETY: the caller's contract.
    let language = unsafe { text(t.language, &format!("{what}'s language"), problems) };
    let arity = |v: u32, side: &str, problems: &mut Vec<String>| match v {
        abi::ONE => Some(Arity::One),
        abi::MANY => Some(Arity::Many),
        other => {
            problems.push(format!(
                "{what}: {side} {other} is neither HANDOFF_ONE (1) nor HANDOFF_MANY (2)"
            ));
            None
        }
    };
    let producers = arity(t.producers, "producers", problems);
    let consumers = arity(t.consumers, "consumers", problems);
    let ordering = match t.ordering {
        abi::FIFO => Some(Ordering::GlobalFifo),
        abi::FIFO_PER_PRODUCER => Some(Ordering::PerProducerFifo),
        abi::UNORDERED => Some(Ordering::None),
        other => {
            problems.push(format!(
                "{what}: ordering {other} is not HANDOFF_FIFO (1), HANDOFF_FIFO_PER_PRODUCER (2) \
                 or HANDOFF_UNORDERED (3)"
            ));
            None
        }
    };
    if t.flags & !(abi::UNBOUNDED | abi::POWER_OF_TWO) != 0 {
        problems.push(format!(
            "{what}: flags {:#x} has bits that are neither HANDOFF_UNBOUNDED (1) nor \
             HANDOFF_POWER_OF_TWO (2)",
            t.flags
        ));
    }
    let unbounded = t.flags & abi::UNBOUNDED != 0;
    if unbounded && t.flags & abi::POWER_OF_TWO != 0 {
        problems.push(format!(
            "{what}: HANDOFF_UNBOUNDED and HANDOFF_POWER_OF_TWO together (an unbounded transport \
             has no capacity to round)"
        ));
    }
    if t.min_capacity > 1 << 32 {
        problems.push(format!(
            "{what}: min_capacity {} is more than any capacity handoff asks for (2^32)",
            t.min_capacity
        ));
    }
    let mut required = |f: bool, field: &str| {
        if !f {
            problems.push(format!("{what}: `{field}` is NULL, and it is required"));
        }
    };
    required(t.create.is_some(), "create");
    required(t.try_push.is_some(), "try_push");
    required(t.try_pop.is_some(), "try_pop");
    required(t.destroy.is_some(), "destroy");
    if t.pop.is_some() && t.close.is_none() {
        problems.push(format!(
            "{what}: it has a blocking `pop` but no `close`, so a consumer waiting in `pop` could \
             never learn that the stream ended"
        ));
    }
    if problems.len() > before {
        return None;
    }
    let blocks = t.push.is_some() || t.pop.is_some();
    let semantics = Semantics {
        producers: producers?,
        consumers: consumers?,
        ordering: ordering?,
        bound: if unbounded {
            Bound::Unbounded
        } else {
            Bound::Bounded {
                min_capacity: t.min_capacity as usize,
                power_of_two: t.flags & abi::POWER_OF_TWO != 0,
            }
        },
        // handoff spins on the non-blocking calls itself unless the transport waits by itself.
        wait: if blocks {
            WaitStrategy::Block
        } else {
            WaitStrategy::Spin
        },
        batch: t.try_push_batch.is_some() || t.drain.is_some(),
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
        delivery: Delivery::ExactlyOnce,
    };
    let mut info = TransportInfo::new(&name?, &description?, semantics);
    info.origin = Origin {
        language: language?,
        plugin: origin.map(str::to_string),
        unavailable: None,
    };
    let funcs = Funcs {
        create: t.create?,
        try_push: t.try_push?,
        try_push_batch: t.try_push_batch,
        try_pop: t.try_pop?,
        drain: t.drain,
        push: t.push,
        pop: t.pop,
        close: t.close,
        destroy: t.destroy?,
    };
    Some((info, funcs))
}

/// A non-empty UTF-8 string of at most [`MAX_TEXT`] bytes, or a problem noted.
///
/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text(s: *const c_char, what: &str, problems: &mut Vec<String>) -> Option<String> {
    if s.is_null() {
        problems.push(format!("{what} is NULL"));
        return None;
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { CStr::from_ptr(s) }.to_bytes();
    match std::str::from_utf8(bytes) {
        Ok("") => problems.push(format!("{what} is empty")),
        Ok(t) if t.len() > MAX_TEXT => problems.push(format!(
            "{what} is {} bytes long (at most {MAX_TEXT})",
            t.len()
        )),
        Ok(t) => return Some(t.to_string()),
        Err(_) => problems.push(format!("{what} is not UTF-8")),
    }
    None
}

/// Whether `name` is a valid transport name: `[a-z0-9][a-z0-9-]*`, at most 64 characters.
fn valid_name(name: &str) -> bool {
    name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
}
