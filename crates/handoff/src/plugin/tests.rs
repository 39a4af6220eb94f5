//! The adapter against a plugin written in Rust behind the same C ABI: a mutex-protected queue
//! with every optional function, in a non-blocking and a blocking table. Exact counts with
//! several producers and consumers, per message and in batches, through both tables.

use super::abi;
use super::table;
use crate::message::Message;
use crate::payload::{Report64, Word};
use crate::transport::{ChannelConfig, Receiver, Sender, Transport};
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Condvar, Mutex};

struct Queue {
    size: usize,
    capacity: usize,
    state: Mutex<(VecDeque<Vec<u8>>, bool)>,
    changed: Condvar,
}

unsafe fn queue<'a>(q: *mut c_void) -> &'a Queue {
    // SAFETY: every handle is a `Queue` made by `create`, alive until `destroy`.
    unsafe { &*(q as *const Queue) }
}

unsafe extern "C" fn create(
    capacity: u64,
    size: u32,
    _producers: u32,
    _consumers: u32,
    error: *mut c_char,
    len: usize,
) -> *mut c_void {
    if capacity == 0 {
        let said = b"capacity 0 is not supported\0";
        // SAFETY: the harness gives `len` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(said.as_ptr().cast(), error, said.len().min(len)) };
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(Queue {
        size: size as usize,
        capacity: capacity as usize,
        state: Mutex::new((VecDeque::new(), false)),
        changed: Condvar::new(),
    }))
    .cast()
}

unsafe extern "C" fn try_push(q: *mut c_void, m: *const c_void) -> c_int {
    // SAFETY: (here and below) a live handle, and blocks of the queue's size.
    unsafe { try_push_batch(q, m, 1) as c_int }
}

unsafe extern "C" fn try_push_batch(q: *mut c_void, m: *const c_void, n: usize) -> usize {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let q = unsafe { queue(q) };
    let mut s = q.state.lock().unwrap();
    let k = n.min(q.capacity - s.0.len());
    for i in 0..k {
        // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
        let b = unsafe { std::slice::from_raw_parts(m.cast::<u8>().add(i * q.size), q.size) };
        s.0.push_back(b.to_vec());
    }
    q.changed.notify_all();
    k
}

unsafe extern "C" fn try_pop(q: *mut c_void, out: *mut c_void) -> c_int {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    unsafe { drain(q, out, 1) as c_int }
}

unsafe extern "C" fn drain(q: *mut c_void, out: *mut c_void, max: usize) -> usize {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let q = unsafe { queue(q) };
    let mut s = q.state.lock().unwrap();
    let k = max.min(s.0.len());
    for i in 0..k {
        let b = s.0.pop_front().unwrap();
        // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
        unsafe {
            std::ptr::copy_nonoverlapping(b.as_ptr(), out.cast::<u8>().add(i * q.size), q.size)
        };
    }
    q.changed.notify_all();
    k
}

unsafe extern "C" fn push(q: *mut c_void, m: *const c_void) -> c_int {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let qq = unsafe { queue(q) };
    let mut s = qq.state.lock().unwrap();
    while s.0.len() == qq.capacity {
        s = qq.changed.wait(s).unwrap();
    }
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let b = unsafe { std::slice::from_raw_parts(m.cast::<u8>(), qq.size) };
    s.0.push_back(b.to_vec());
    qq.changed.notify_all();
    1
}

unsafe extern "C" fn pop(q: *mut c_void, out: *mut c_void) -> c_int {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let qq = unsafe { queue(q) };
    let mut s = qq.state.lock().unwrap();
    loop {
        if !s.0.is_empty() {
            drop(s);
            // Another consumer may take it first: then wait again.
            // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
            if unsafe { try_pop(q, out) } == 1 {
                return 1;
            }
            s = qq.state.lock().unwrap();
            continue;
        }
        if s.1 {
            return 0;
        }
        s = qq.changed.wait(s).unwrap();
    }
}

unsafe extern "C" fn close(q: *mut c_void) {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    let q = unsafe { queue(q) };
    q.state.lock().unwrap().1 = true;
    q.changed.notify_all();
}

unsafe extern "C" fn destroy(q: *mut c_void) {
    // SAFETY: a live handle from `create`, and blocks of its size (the ABI's contract).
    drop(unsafe { Box::from_raw(q.cast::<Queue>()) });
}

fn table(name: &'static [u8], blocking: bool) -> abi::Transport {
    abi::Transport {
        name: name.as_ptr().cast(),
        description: c"a mutex-protected queue written in Rust".as_ptr(),
        language: c"Rust (C ABI)".as_ptr(),
        producers: abi::MANY,
        consumers: abi::MANY,
        ordering: abi::FIFO,
        flags: 0,
        min_capacity: 1,
        create: Some(create),
        try_push: Some(try_push),
        try_push_batch: Some(try_push_batch),
        try_pop: Some(try_pop),
        drain: Some(drain),
        push: blocking.then_some(push as _),
        pop: blocking.then_some(pop as _),
        close: Some(close),
        destroy: Some(destroy),
    }
}

/// Both tables, checked as a loaded plugin's would be.
fn transports() -> Vec<super::PluginTransport> {
    let tables = Box::leak(Box::new([
        table(b"abi-spin\0", false),
        table(b"abi-block\0", true),
    ]));
    let plugin = Box::leak(Box::new(abi::Plugin {
        abi_version: abi::ABI_VERSION,
        transport_size: std::mem::size_of::<abi::Transport>() as u32,
        name: c"rust-abi".as_ptr(),
        count: 2,
        transports: tables.as_ptr(),
    }));
    // SAFETY: the tables are leaked, so they live as long as the process.
    let checked = unsafe { table::check(plugin, None) }.expect("a valid table");
    checked
        .transports
        .into_iter()
        .map(|(info, f)| super::PluginTransport {
            info,
            source: super::Source::Ready(f),
        })
        .collect()
}

/// `producers` × `per` messages through `t`, with `consumers` consumers, per message or in
/// batches of `batch`: every message arrives once, intact, each producer's in order.
fn stream<M: Message>(
    t: &super::PluginTransport,
    producers: usize,
    consumers: usize,
    per: u64,
    batch: Option<usize>,
) {
    let cfg = ChannelConfig::new(64, producers, consumers);
    let ends = t.channel::<M>(&cfg).expect("a channel");
    let got = std::thread::scope(|s| {
        for (p, mut tx) in ends.senders.into_iter().enumerate() {
            s.spawn(move || match batch {
                None => (0..per).for_each(|i| tx.send(M::build(p as u32, i)).ok().unwrap()),
                Some(b) => {
                    let mut all = (0..per).map(|i| M::build(p as u32, i)).peekable();
                    while all.peek().is_some() {
                        let mut run = all.by_ref().take(b);
                        tx.send_batch(&mut run).ok().unwrap();
                    }
                }
            });
        }
        let readers: Vec<_> = ends
            .receivers
            .into_iter()
            .map(|mut rx| {
                s.spawn(move || {
                    let mut seen = Vec::new();
                    match batch {
                        None => {
                            while let Some(m) = rx.recv() {
                                seen.push(m);
                            }
                        }
                        Some(b) => while rx.recv_runs(b, |run| seen.extend_from_slice(run)) > 0 {},
                    }
                    seen
                })
            })
            .collect();
        readers
            .into_iter()
            .map(|r| r.join().unwrap())
            .collect::<Vec<_>>()
    });
    let mut all = Vec::new();
    for seen in got {
        let mut last = vec![None; producers];
        for m in seen {
            assert!(m.check().is_some(), "a damaged message");
            let p = m.producer() as usize;
            assert!(last[p] < Some(m.seq()), "producer {p} out of order");
            last[p] = Some(m.seq());
            all.push((m.producer(), m.seq()));
        }
    }
    all.sort_unstable();
    let expected: Vec<_> = (0..producers as u32)
        .flat_map(|p| (0..per).map(move |i| (p, i)))
        .collect();
    assert_eq!(all.len(), expected.len(), "{}", t.info.name);
    assert_eq!(all, expected, "{}", t.info.name);
}

#[test]
fn every_message_crosses_once_per_message_and_in_batches_spinning_and_blocking() {
    for t in transports() {
        for batch in [None, Some(1), Some(7), Some(256)] {
            stream::<Word>(&t, 1, 1, 20_000, batch);
            stream::<Report64>(&t, 2, 2, 10_000, batch);
        }
    }
}

#[test]
fn the_declared_wait_follows_the_functions_given() {
    use crate::semantics::WaitStrategy;
    let t = transports();
    assert_eq!(t[0].info.semantics.wait, WaitStrategy::Spin);
    assert_eq!(t[1].info.semantics.wait, WaitStrategy::Block);
    assert!(t[0].info.semantics.batch);
    assert_eq!(t[0].info.origin.language, "Rust (C ABI)");
}

#[test]
fn a_refused_creation_and_a_heap_payload_are_unsupported_with_the_reason() {
    let t = &transports()[0];
    let e = t
        .channel::<Word>(&ChannelConfig::new(0, 1, 1))
        .err()
        .unwrap();
    assert!(e.to_string().contains("capacity 0 is not supported"), "{e}");
    let e = t
        .channel::<crate::payload::Boxed>(&ChannelConfig::new(8, 1, 1))
        .err()
        .unwrap();
    assert!(e.to_string().contains("heap parts"), "{e}");
}

#[test]
fn a_table_that_cannot_be_used_is_refused_by_kind() {
    use super::PluginError;
    // SAFETY: null is allowed.
    let e = unsafe { table::check(std::ptr::null(), None) }.unwrap_err();
    assert_eq!(e, PluginError::NullTable);
    let tables = Box::leak(Box::new([table(b"Not A Name\0", false)]));
    let plugin = |abi_version, count| {
        &*Box::leak(Box::new(abi::Plugin {
            abi_version,
            transport_size: std::mem::size_of::<abi::Transport>() as u32,
            name: c"broken".as_ptr(),
            count,
            transports: tables.as_ptr(),
        }))
    };
    // SAFETY: (both) the tables are leaked, so they live as long as the process.
    let e = unsafe { table::check(plugin(99, 1), None) }.unwrap_err();
    assert_eq!(
        e,
        PluginError::AbiVersion {
            found: 99,
            expected: abi::ABI_VERSION
        }
    );
    assert_eq!(
        e.to_string(),
        "it was built for ABI version 99, and this handoff speaks version 1 (rebuild it against this handoff's include/handoff.h)"
    );
    // SAFETY: as above.
    match unsafe { table::check(plugin(abi::ABI_VERSION, 1), None) }.unwrap_err() {
        PluginError::BadTable(problems) => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(
                problems[0].contains("a name must be lowercase"),
                "{problems:?}"
            );
        }
        e => panic!("{e:?}"),
    }
}
