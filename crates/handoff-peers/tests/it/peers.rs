//! Every peer built into this executable, through its C table: what the table declares matches
//! what the crate registers, every queue moves a multi-threaded stream of blocks with exact
//! counts, the declared order and every byte intact, holds what its declaration says, and
//! refuses what it cannot take with a reason.
//!
//! Streams run one at a time (the machines that run these tests may have two cores): each spin
//! yields its time slice now and then, so oversubscribed threads make progress.

use handoff::plugin::abi;
use handoff::semantics::{Arity, Bound, Ordering as Order, Semantics};
use handoff_peers::{peers, Declared, Peer};
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Messages in each stream.
const MESSAGES: u64 = 200_000;
/// Blocks in each batch pushed or drained.
const BATCH: usize = 16;
/// A stream that takes longer than this has hung.
const TIMEOUT: Duration = Duration::from_secs(60);

/// One stream at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------------
// The tables.

/// Every built transport, with its peer and its Rust declaration.
fn built() -> Vec<(&'static Peer, &'static Declared, &'static abi::Transport)> {
    let mut all = Vec::new();
    for peer in peers() {
        let Some(table) = peer.table() else {
            eprintln!("{}: {}", peer.name, peer.unavailable().unwrap_or_default());
            continue;
        };
        // SAFETY: a built peer's table is a valid static handoff_plugin.
        let table = unsafe { &*table };
        // SAFETY: `count` transports follow, static too.
        let transports = unsafe { std::slice::from_raw_parts(table.transports, table.count) };
        for t in transports {
            let declared = peer
                .transports
                .iter()
                .find(|d| d.name == text(t.name))
                .unwrap_or_else(|| panic!("{} is not declared in the crate", text(t.name)));
            all.push((peer, declared, t));
        }
    }
    all
}

fn text(s: *const c_char) -> &'static str {
    // SAFETY: the tables' strings are static, NUL-terminated UTF-8.
    unsafe { CStr::from_ptr(s) }.to_str().expect("UTF-8")
}

/// The semantics handoff reads from a table entry.
fn semantics_of(t: &abi::Transport, base: Semantics) -> Semantics {
    let arity = |v| if v == 1 { Arity::One } else { Arity::Many };
    Semantics {
        producers: arity(t.producers),
        consumers: arity(t.consumers),
        ordering: match t.ordering {
            1 => Order::GlobalFifo,
            2 => Order::PerProducerFifo,
            _ => Order::None,
        },
        bound: if t.flags & 1 != 0 {
            Bound::Unbounded
        } else {
            Bound::Bounded {
                min_capacity: t.min_capacity as usize,
                power_of_two: t.flags & 2 != 0,
            }
        },
        batch: t.try_push_batch.is_some() || t.drain.is_some(),
        ..base
    }
}

#[test]
fn tables_say_what_the_crate_declares() {
    for peer in peers() {
        let Some(table) = peer.table() else { continue };
        // SAFETY: as in `built`.
        let table = unsafe { &*table };
        assert_eq!(table.abi_version, abi::ABI_VERSION, "{}", peer.name);
        assert_eq!(
            table.transport_size as usize,
            size_of::<abi::Transport>(),
            "{}",
            peer.name
        );
        assert_eq!(text(table.name), peer.name);
        assert_eq!(table.count, peer.transports.len(), "{}", peer.name);
    }
    for (peer, declared, t) in built() {
        assert_eq!(
            text(t.description),
            declared.description,
            "{}",
            declared.name
        );
        assert_eq!(text(t.language), peer.language, "{}", declared.name);
        assert_eq!(
            semantics_of(t, declared.semantics),
            declared.semantics,
            "{}",
            declared.name
        );
        assert!(
            t.push.is_none() && t.pop.is_none() && t.close.is_none(),
            "{}",
            declared.name
        );
    }
}

/// Whether a Debian package is installed (`None`: no dpkg here).
fn installed(package: &str) -> Option<bool> {
    let out = std::process::Command::new("dpkg-query")
        .args(["-W", "-f=${db:Status-Status}", package])
        .output()
        .ok()?;
    Some(out.status.success() && out.stdout == b"installed")
}

#[test]
fn every_peer_whose_package_is_installed_is_built() {
    for peer in peers() {
        let wanted = match peer.package {
            None => true, // the C ring needs only the C compiler
            Some(package) => installed(package) == Some(true),
        };
        if wanted {
            assert!(
                peer.built(),
                "{}: {}",
                peer.name,
                peer.unavailable().unwrap_or_default()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One queue, through its table.

struct Queue {
    t: &'static abi::Transport,
    q: *mut c_void,
    size: usize,
}

// SAFETY: the queues are made for use from several threads, as their declarations say (one
// producer and one consumer at a time for ONE).
unsafe impl Send for Queue {}
unsafe impl Sync for Queue {}

impl Queue {
    fn create(
        t: &'static abi::Transport,
        capacity: u64,
        size: usize,
        producers: u32,
        consumers: u32,
    ) -> Result<Queue, String> {
        let mut error = [0 as c_char; 256];
        let create = t.create.expect("create");
        // SAFETY: the contract of `create`; `error` has the length given.
        let q = unsafe {
            create(
                capacity,
                size as u32,
                producers,
                consumers,
                error.as_mut_ptr(),
                error.len(),
            )
        };
        if q.is_null() {
            // SAFETY: `create` wrote a NUL-terminated reason.
            let why = unsafe { CStr::from_ptr(error.as_ptr()) };
            return Err(why.to_string_lossy().into_owned());
        }
        Ok(Queue { t, q, size })
    }

    fn push(&self, m: &[u64]) -> bool {
        debug_assert_eq!(m.len() * 8, self.size);
        // SAFETY: one block, 8-byte aligned.
        unsafe { self.t.try_push.expect("try_push")(self.q, m.as_ptr().cast()) == 1 }
    }

    fn push_batch(&self, m: &[u64]) -> usize {
        let n = m.len() * 8 / self.size;
        // SAFETY: n blocks back to back.
        let pushed = unsafe { self.t.try_push_batch.expect("batch")(self.q, m.as_ptr().cast(), n) };
        assert!(pushed <= n, "pushed {pushed} of {n}");
        pushed
    }

    fn pop(&self, out: &mut [u64]) -> bool {
        // SAFETY: room for one block.
        unsafe { self.t.try_pop.expect("try_pop")(self.q, out.as_mut_ptr().cast()) == 1 }
    }

    fn drain(&self, out: &mut [u64]) -> usize {
        let max = out.len() * 8 / self.size;
        // SAFETY: room for `max` blocks.
        let popped = unsafe { self.t.drain.expect("drain")(self.q, out.as_mut_ptr().cast(), max) };
        assert!(popped <= max, "drained {popped} into room for {max}");
        popped
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // SAFETY: no other call in flight; the queue is not used again.
        unsafe { self.t.destroy.expect("destroy")(self.q) }
    }
}

// ---------------------------------------------------------------------------------------------
// Messages: a word with the producer and the sequence number, then bytes derived from both.

fn fill(block: &mut [u64], producer: u64, seq: u64) {
    block[0] = producer << 48 | seq;
    for (i, w) in block.iter_mut().enumerate().skip(1) {
        *w = (seq ^ producer << 40)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(i as u32);
    }
}

/// The producer and sequence number of a block whose every byte is as `fill` wrote it.
fn check(block: &[u64]) -> (u64, u64) {
    let (producer, seq) = (block[0] >> 48, block[0] & ((1 << 48) - 1));
    let mut expected = vec![0; block.len()];
    fill(&mut expected, producer, seq);
    assert_eq!(
        block, expected,
        "corrupted block (producer {producer}, seq {seq})"
    );
    (producer, seq)
}

// ---------------------------------------------------------------------------------------------
// Streams.

/// How a stream is run.
#[derive(Clone, Copy, Debug)]
struct Stream {
    size: usize,
    capacity: u64,
    producers: u64,
    consumers: u64,
    /// Pushes with try_push_batch and pops with drain, where the table has them.
    batch: bool,
    messages: u64,
}

/// Waits for a spin's next attempt: yields now and then, panics once the stream has hung.
fn backoff(failed: &mut u64, start: Instant, what: &str) {
    *failed += 1;
    if *failed % 64 == 0 {
        thread::yield_now();
        if start.elapsed() > TIMEOUT {
            panic!("{what}: not done after {TIMEOUT:?}");
        }
    }
}

fn stream(name: &str, t: &'static abi::Transport, s: Stream) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let what = format!("{name} {s:?}");
    let q = Queue::create(
        t,
        s.capacity,
        s.size,
        s.producers as u32,
        s.consumers as u32,
    )
    .unwrap_or_else(|e| panic!("{what}: create refused: {e}"));
    let q = Arc::new(q);
    let words = s.size / 8;
    let per_producer = s.messages / s.producers;
    let seen: Arc<Vec<AtomicU8>> = Arc::new((0..s.messages).map(|_| AtomicU8::new(0)).collect());
    let received = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    let fifo = t.ordering != 3;
    let start = Instant::now();

    let producers: Vec<_> = (0..s.producers)
        .map(|p| {
            let (q, what, failed) = (q.clone(), what.clone(), failed.clone());
            let batch = s.batch && t.try_push_batch.is_some();
            thread::spawn(move || {
                let mut buf = vec![0u64; words * BATCH];
                let (mut seq, mut spins) = (0, 0);
                while seq < per_producer && !failed.load(Ordering::Relaxed) {
                    let n = if batch {
                        BATCH.min((per_producer - seq) as usize)
                    } else {
                        1
                    };
                    for (i, block) in buf.chunks_mut(words).take(n).enumerate() {
                        fill(block, p, seq + i as u64);
                    }
                    let mut done = 0;
                    while done < n {
                        let rest = &buf[done * words..n * words];
                        let k = if batch {
                            q.push_batch(rest)
                        } else {
                            q.push(rest) as usize
                        };
                        if k == 0 {
                            backoff(&mut spins, start, &what);
                        }
                        done += k;
                    }
                    seq += n as u64;
                }
            })
        })
        .collect();

    let consumers: Vec<_> = (0..s.consumers)
        .map(|_| {
            let (q, what, seen, received) =
                (q.clone(), what.clone(), seen.clone(), received.clone());
            let failed = failed.clone();
            let batch = s.batch && t.drain.is_some();
            let (one_consumer, total) = (s.consumers == 1, s.messages);
            thread::spawn(move || {
                let mut buf = vec![0u64; words * BATCH];
                let mut next = vec![0u64; s.producers as usize];
                let mut spins = 0;
                while received.load(Ordering::Relaxed) < total {
                    let k = if batch {
                        q.drain(&mut buf)
                    } else {
                        q.pop(&mut buf[..words]) as usize
                    };
                    if k == 0 {
                        if failed.load(Ordering::Relaxed) {
                            return;
                        }
                        backoff(&mut spins, start, &what);
                        continue;
                    }
                    for block in buf.chunks(words).take(k) {
                        let (p, seq) = check(block);
                        assert!(p < s.producers && seq < per_producer, "{what}: {p}/{seq}");
                        if fifo {
                            // One consumer sees each producer's every message in order; several
                            // see each producer's messages in increasing order.
                            let ok = if one_consumer {
                                seq == next[p as usize]
                            } else {
                                seq >= next[p as usize]
                            };
                            assert!(
                                ok,
                                "{what}: producer {p}: got {seq}, expected {}",
                                next[p as usize]
                            );
                            next[p as usize] = seq + 1;
                        }
                        let slot = &seen[(p * per_producer + seq) as usize];
                        assert_eq!(
                            slot.fetch_add(1, Ordering::Relaxed),
                            0,
                            "{what}: {p}/{seq} twice"
                        );
                    }
                    received.fetch_add(k as u64, Ordering::Relaxed);
                }
            })
        })
        .collect();

    let mut panicked = Vec::new();
    for h in producers.into_iter().chain(consumers) {
        if let Err(e) = h.join() {
            failed.store(true, Ordering::Relaxed);
            panicked.push(e);
        }
    }
    if let Some(e) = panicked.into_iter().next() {
        std::panic::resume_unwind(e);
    }
    assert_eq!(received.load(Ordering::Relaxed), s.messages, "{what}");
    assert!(
        seen.iter().all(|c| c.load(Ordering::Relaxed) == 1),
        "{what}: a message lost"
    );
    assert!(!q.pop(&mut vec![0; words]), "{what}: a block left over");
}

/// The capacities a stream tries on a transport: the least it takes, and one that is not a
/// power of two where that is allowed (twice the least otherwise).
fn capacities(t: &abi::Transport) -> [u64; 2] {
    let least = t.min_capacity.max(1);
    if t.flags & 2 != 0 {
        [least, least * 2]
    } else {
        [least, least + 99]
    }
}

fn streams_of(name: &str) {
    let Some((_, _, t)) = built().into_iter().find(|(_, d, _)| d.name == name) else {
        eprintln!("{name} not built: skipped");
        return;
    };
    let (producers, consumers) = (
        if t.producers == 2 { 2 } else { 1 },
        if t.consumers == 2 { 2 } else { 1 },
    );
    let [least, other] = capacities(t);
    let base = Stream {
        size: 8,
        capacity: least,
        producers,
        consumers,
        batch: false,
        messages: MESSAGES,
    };
    stream(name, t, base);
    stream(
        name,
        t,
        Stream {
            size: 64,
            capacity: other,
            batch: true,
            ..base
        },
    );
    stream(
        name,
        t,
        Stream {
            size: 4112,
            capacity: other,
            batch: true,
            messages: MESSAGES / 10,
            ..base
        },
    );
    if producers > 1 {
        // One producer and one consumer of a many-to-many queue, per message.
        stream(
            name,
            t,
            Stream {
                size: 16,
                capacity: other,
                producers: 1,
                consumers: 1,
                ..base
            },
        );
    }
}

#[test]
fn boost_spsc_streams() {
    streams_of("boost-spsc");
}

#[test]
fn moodycamel_rwq_streams() {
    streams_of("moodycamel-rwq");
}

#[test]
fn moodycamel_cq_streams() {
    streams_of("moodycamel-cq");
}

#[test]
fn atomic_queue_spsc_streams() {
    streams_of("atomic-queue-spsc");
}

#[test]
fn atomic_queue_mpmc_streams() {
    streams_of("atomic-queue-mpmc");
}

#[test]
fn tbb_bounded_streams() {
    streams_of("tbb-bounded");
}

#[test]
fn c_ring_streams() {
    streams_of("c-ring");
}

// ---------------------------------------------------------------------------------------------
// Capacity and refusals.

/// How many blocks a queue of `capacity` holds, by what its library does (see its adapter).
fn expected_hold(name: &str, capacity: u64) -> std::ops::RangeInclusive<u64> {
    match name {
        // One block of the least power of two above the capacity, less the slot that tells full
        // from empty; from 1024, blocks of 511 usable slots.
        "moodycamel-rwq" if capacity < 1024 => {
            let slots = (capacity + 1).next_power_of_two() - 1;
            slots..=slots
        }
        "moodycamel-rwq" => capacity..=(capacity + 1021) / 511 * 511,
        // ceil(capacity / 32) - 1 blocks of 32, plus 2 for the one producer.
        "moodycamel-cq" => capacity..=(capacity.div_ceil(32) + 1) * 32,
        _ => capacity..=capacity,
    }
}

#[test]
fn queues_hold_what_they_declare() {
    for (_, d, t) in built() {
        let [least, other] = capacities(t);
        for capacity in [least, other, 1024.max(least)] {
            let q = Queue::create(t, capacity, 24, 1, 1).expect("create");
            let mut block = [0u64; 3];
            let mut held = 0;
            loop {
                fill(&mut block, 0, held);
                if !q.push(&block) {
                    break;
                }
                held += 1;
                assert!(held <= 1 << 20, "{}: no end", d.name);
            }
            let range = expected_hold(d.name, capacity);
            assert!(
                range.contains(&held),
                "{} of capacity {capacity} held {held}, not {range:?}",
                d.name
            );
            let mut first = 0;
            if t.try_push_batch.is_some() {
                let mut batch = [0u64; 3 * 4];
                assert_eq!(
                    q.push_batch(&batch),
                    0,
                    "{}: a full queue took a batch",
                    d.name
                );
                if range.start() == range.end() {
                    // Room for one more once one is popped: a batch of four pushes exactly one.
                    fill(&mut batch[..3], 0, held);
                    assert!(q.pop(&mut block));
                    assert_eq!(check(&block), (0, 0));
                    assert_eq!(q.push_batch(&batch), 1, "{}: pushed past its room", d.name);
                    (first, held) = (1, held + 1);
                }
            }
            // What was pushed comes back in order; the queue is destroyed holding the rest.
            for seq in first..held - held / 2 {
                assert!(q.pop(&mut block), "{}: {seq} of {held} missing", d.name);
                assert_eq!(check(&block), (0, seq), "{}", d.name);
            }
        }
    }
}

#[test]
fn queues_refuse_what_they_cannot_take() {
    for (_, d, t) in built() {
        let capacity = t.min_capacity.max(1);
        let refused = |capacity, size, producers, consumers| {
            Queue::create(t, capacity, size, producers, consumers).err()
        };
        if d.name == "c-ring" {
            // The C ring copies blocks of any size.
            assert!(
                refused(capacity, 12, 1, 1).is_none(),
                "c-ring refused 12 bytes"
            );
        } else {
            let why = refused(capacity, 12, 1, 1).expect("12 bytes refused");
            assert!(
                why.contains("message size 12 is not supported (sizes: 8, 16"),
                "{why}"
            );
        }
        for size in [
            8, 16, 24, 32, 64, 80, 256, 272, 488, 504, 1024, 1040, 4096, 4112,
        ] {
            assert!(
                refused(capacity, size, 1, 1).is_none(),
                "{}: refused {size} bytes",
                d.name
            );
        }
        if t.producers == 1 {
            assert!(
                refused(capacity, 8, 2, 1).is_some(),
                "{}: took two producers",
                d.name
            );
        }
        if t.consumers == 1 {
            assert!(
                refused(capacity, 8, 1, 2).is_some(),
                "{}: took two consumers",
                d.name
            );
        }
        if capacity > 1 {
            let why = refused(capacity - 1, 8, 1, 1).expect("below the least");
            assert!(why.contains("is below"), "{why}");
        }
        if t.flags & 2 != 0 {
            let why = refused(capacity * 3, 8, 1, 1).expect("not a power of two");
            assert!(why.contains("not a power of two"), "{why}");
        }
    }
}
