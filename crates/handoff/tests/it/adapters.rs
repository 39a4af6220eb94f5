//! Conformance tests for every built-in adapter, independent of the trial engine.
//!
//! Each transport moves a known stream through real threads and the consumer side checks what a
//! trial's verifier would: exact count, exactly-once delivery (across consumers too), per-producer
//! order where the transport declares FIFO, and intact bodies. Payloads with heap tails are
//! counted on creation and drop, so a double drop or a leak in an adapter's unsafe code fails
//! here rather than in a benchmark.

use handoff::catalog::Catalog;
use handoff::message::Message;
use handoff::payload::{Boxed, Event488, Word};
use handoff::prelude::*;
use handoff_transports::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering as AtomicOrdering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// Messages per producer in the main runs.
const N: u64 = if cfg!(miri) { 200 } else { 20_000 };
/// Messages per producer in the runs with heap payloads.
const N_HEAP: u64 = if cfg!(miri) { 50 } else { 2_000 };
/// A run that takes longer than this has hung.
const TIMEOUT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// The transports under test.

/// Something to do with each pull transport.
trait PullVisitor {
    fn visit<T: Transport>(&mut self, t: &T);
}

/// Something to do with each callback transport.
trait CallbackVisitor {
    fn visit<T: CallbackTransport>(&mut self, t: &T);
}

fn each_pull(v: &mut impl PullVisitor) {
    v.visit(&StdMpsc);
    v.visit(&StdMpscPoll);
    v.visit(&StdSyncChannel);
    v.visit(&CrossbeamBounded);
    v.visit(&CrossbeamUnbounded);
    v.visit(&CrossbeamArrayQueue);
    v.visit(&CrossbeamSegQueue);
    v.visit(&FlumeBounded);
    v.visit(&FlumeUnbounded);
    v.visit(&KanalBounded);
    v.visit(&Rtrb);
    v.visit(&Ringbuf);
    v.visit(&MutexDeque);
    v.visit(&HandoffSpsc);
    v.visit(&HandoffMpsc);
    v.visit(&VyukovMpsc);
    v.visit(&BusBroadcast);
    v.visit(&CrossbeamFanout);
}

fn each_callback(v: &mut impl CallbackVisitor) {
    v.visit(&Disruptor);
    v.visit(&DirectCallback);
}

// ---------------------------------------------------------------------------------------------
// Payloads.

/// Live `Tracked` messages, one counter per test so that tests can run in parallel.
static LIVE: [AtomicI64; 8] = [const { AtomicI64::new(0) }; 8];

/// A 488-byte event with two heap tails whose creations and drops are counted in `LIVE[ID]`.
struct Tracked<const ID: usize>(Event488<true>);

impl<const ID: usize> Message for Tracked<ID> {
    type Form = ();

    fn build(producer: u32, seq: u64) -> Self {
        LIVE[ID].fetch_add(1, AtomicOrdering::Relaxed);
        Tracked(Event488::build(producer, seq))
    }
    fn producer(&self) -> u32 {
        self.0.producer()
    }
    fn seq(&self) -> u64 {
        self.0.seq()
    }
    fn check(&self) -> Option<u64> {
        self.0.check()
    }
}

impl<const ID: usize> Clone for Tracked<ID> {
    fn clone(&self) -> Self {
        LIVE[ID].fetch_add(1, AtomicOrdering::Relaxed);
        Tracked(self.0.clone())
    }
}

impl<const ID: usize> Drop for Tracked<ID> {
    fn drop(&mut self) {
        LIVE[ID].fetch_sub(1, AtomicOrdering::Relaxed);
    }
}

fn live(id: usize) -> i64 {
    LIVE[id].load(AtomicOrdering::SeqCst)
}

// ---------------------------------------------------------------------------------------------
// Checking a delivered stream.

/// What one consumer saw: the sequence numbers of each producer, in arrival order.
#[derive(Default)]
struct Seen {
    seqs: Vec<Vec<u64>>,
}

impl Seen {
    fn new(producers: usize) -> Seen {
        Seen {
            seqs: vec![Vec::new(); producers],
        }
    }

    fn record<M: Message>(&mut self, m: &M) {
        assert!(
            m.check().is_some(),
            "corrupt body: producer {} seq {}",
            m.producer(),
            m.seq()
        );
        let p = m.producer() as usize;
        assert!(p < self.seqs.len(), "unknown producer {p}");
        self.seqs[p].push(m.seq());
    }
}

impl<M: Message> Sink<M> for Seen {
    fn accept(&mut self, msg: &M) {
        self.record(msg);
    }
}

/// Checks exactly-once delivery of `0..n` from every producer across all consumers, and
/// per-consumer, per-producer order if `fifo`.
fn check_delivery(what: &str, seen: &[Seen], producers: usize, n: u64, fifo: bool) {
    for p in 0..producers {
        if fifo {
            for (c, s) in seen.iter().enumerate() {
                if let Some(w) = s.seqs[p].windows(2).find(|w| w[0] >= w[1]) {
                    panic!(
                        "{what}: consumer {c} got producer {p}'s seq {} after {}",
                        w[1], w[0]
                    );
                }
            }
        }
        let mut all: Vec<u64> = seen
            .iter()
            .flat_map(|s| s.seqs[p].iter().copied())
            .collect();
        all.sort_unstable();
        assert_eq!(
            all.len() as u64,
            n,
            "{what}: producer {p}: {} messages delivered, {n} sent",
            all.len()
        );
        if let Some((i, &s)) = all.iter().enumerate().find(|&(i, &s)| s != i as u64) {
            panic!("{what}: producer {p}: seq {s} where {i} was expected (duplicate or loss)");
        }
    }
}

/// Runs `f` on a thread of its own and fails if it takes longer than [`TIMEOUT`].
fn within_timeout<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let worker = thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(TIMEOUT) {
        Ok(r) => {
            worker.join().unwrap();
            r
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!(),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: hung (no result after {TIMEOUT:?})")
        }
    }
}

/// How the consumers of a test read and the producers write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reads {
    /// `send` and `recv`, one message at a time.
    One,
    /// `send_batch` in runs of 32, `recv_batch` of up to 64, one message per call of `f`.
    Batches,
    /// `send_batch` in runs of 32, `recv_runs` of up to 64, lent as slices.
    Runs,
}

/// Sends `0..n` as producer `p`, one message at a time or in runs of 32.
fn produce<M: Message>(tx: &mut impl Sender<M>, p: usize, n: u64, batch: bool) {
    if batch {
        let mut msgs = (0..n).map(|s| M::build(p as u32, s));
        loop {
            let mut run = msgs.by_ref().take(32).peekable();
            if run.peek().is_none() {
                break;
            }
            assert!(
                tx.send_batch(&mut run).is_ok(),
                "producer {p}: consumer gone"
            );
        }
    } else {
        for s in 0..n {
            assert!(
                tx.send(M::build(p as u32, s)).is_ok(),
                "producer {p}: consumer gone at seq {s}"
            );
        }
    }
}

/// Capacities worth testing for a transport: the smallest it accepts (full and empty all the
/// time) and a moderate one; 0 for the capacity-ignoring unbounded ones.
fn capacities(sem: &Semantics, producers: usize) -> Vec<usize> {
    match sem.bound.limits() {
        None => vec![0],
        Some((min_capacity, power_of_two)) => {
            let mut small = min_capacity.max(1);
            if sem.consumer_style == ConsumerStyle::Callback && producers > 1 {
                small = MIN_MULTI_PRODUCER_CAPACITY;
            }
            if power_of_two {
                small = small.next_power_of_two();
            }
            let mut caps = vec![small, 128];
            if min_capacity == 0 && producers == 1 {
                caps.insert(0, 0);
            }
            caps.dedup();
            caps
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pull transports.

/// Moves `n` messages from each of `producers` producers to `consumers` consumers and checks them.
fn pull_run<T: Transport, M: Message>(
    t: &T,
    cap: usize,
    producers: usize,
    consumers: usize,
    n: u64,
    reads: Reads,
) {
    pull_run_with::<T, M>(t, &BTreeMap::new(), cap, producers, consumers, n, reads)
}

/// [`pull_run`] with transport options.
fn pull_run_with<T: Transport, M: Message>(
    t: &T,
    options: &BTreeMap<String, String>,
    cap: usize,
    producers: usize,
    consumers: usize,
    n: u64,
    reads: Reads,
) {
    let batch = reads != Reads::One;
    let info = t.info();
    let what = format!(
        "{}{} ({} cap {cap}, {producers}p/{consumers}c{})",
        info.name,
        options
            .iter()
            .map(|(k, v)| format!(" {k}={v}"))
            .collect::<String>(),
        std::any::type_name::<M>()
            .rsplit("::")
            .next()
            .unwrap_or("?"),
        match reads {
            Reads::One => "",
            Reads::Batches => ", batched",
            Reads::Runs => ", in runs",
        }
    );
    let mut cfg = ChannelConfig::new(cap, producers, consumers);
    cfg.options = options.clone();
    let ep = t
        .channel::<M>(&cfg)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(ep.senders.len(), producers, "{what}: senders");
    assert_eq!(ep.receivers.len(), consumers, "{what}: receivers");
    let seen = within_timeout(&what.clone(), move || {
        let tx_threads: Vec<_> = ep
            .senders
            .into_iter()
            .enumerate()
            .map(|(p, mut tx)| thread::spawn(move || produce::<M>(&mut tx, p, n, batch)))
            .collect();
        let rx_threads: Vec<_> = ep
            .receivers
            .into_iter()
            .map(|mut rx| {
                thread::spawn(move || {
                    let mut seen = Seen::new(producers);
                    match reads {
                        Reads::One => {
                            while let Some(m) = rx.recv() {
                                seen.record(&m);
                            }
                        }
                        Reads::Batches => {
                            while rx.recv_batch(64, &mut |m: M| seen.record(&m)) > 0 {}
                        }
                        Reads::Runs => {
                            while rx.recv_runs(64, |run: &[M]| {
                                assert!(!run.is_empty(), "an empty run was lent");
                                run.iter().for_each(|m| seen.record(m));
                            }) > 0
                            {}
                        }
                    }
                    // The stream has ended: it stays ended.
                    assert!(rx.recv().is_none(), "a message after the end of the stream");
                    seen
                })
            })
            .collect();
        for t in tx_threads {
            t.join().expect("producer panicked");
        }
        rx_threads
            .into_iter()
            .map(|t| t.join().expect("consumer panicked"))
            .collect::<Vec<_>>()
    });
    let fifo = info.semantics.ordering.is_fifo();
    if info.semantics.is_broadcast() {
        // Every consumer of a broadcast sees the whole stream.
        for (c, s) in seen.iter().enumerate() {
            check_delivery(
                &format!("{what}, consumer {c}"),
                std::slice::from_ref(s),
                producers,
                n,
                fifo,
            );
        }
    } else {
        check_delivery(&what, &seen, producers, n, fifo);
    }
}

struct SingleProducer;

impl PullVisitor for SingleProducer {
    fn visit<T: Transport>(&mut self, t: &T) {
        for cap in capacities(&t.info().semantics, 1) {
            for reads in [Reads::One, Reads::Batches, Reads::Runs] {
                pull_run::<T, Word>(t, cap, 1, 1, N, reads);
            }
        }
    }
}

#[test]
fn pull_transports_deliver_one_producer_stream() {
    each_pull(&mut SingleProducer);
}

struct ManyProducers;

impl PullVisitor for ManyProducers {
    fn visit<T: Transport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        if sem.producers == Arity::Many {
            let cap = *capacities(&sem, 4).last().unwrap();
            pull_run::<T, Word>(t, cap, 4, 1, N / 2, Reads::One);
            pull_run::<T, Word>(t, cap, 4, 1, N / 4, Reads::Batches);
            pull_run::<T, Word>(t, cap, 4, 1, N / 4, Reads::Runs);
        }
    }
}

#[test]
fn pull_transports_deliver_four_producer_streams() {
    each_pull(&mut ManyProducers);
}

struct ManyConsumers;

impl PullVisitor for ManyConsumers {
    fn visit<T: Transport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        if sem.consumers == Arity::Many {
            let producers = if sem.producers == Arity::Many { 4 } else { 1 };
            for cap in capacities(&sem, producers) {
                pull_run::<T, Word>(t, cap, producers, 2, N / 4, Reads::One);
            }
            pull_run::<T, Word>(
                t,
                64.max(cap_floor(&sem)),
                producers,
                2,
                N / 4,
                Reads::Batches,
            );
        }
    }
}

fn cap_floor(sem: &Semantics) -> usize {
    sem.bound
        .limits()
        .map_or(0, |(min_capacity, _)| min_capacity)
}

#[test]
fn mpmc_transports_deliver_exactly_once_across_consumers() {
    each_pull(&mut ManyConsumers);
}

/// Runs every broadcast transport with three consumers, counting them.
struct Broadcasts(usize);

impl PullVisitor for Broadcasts {
    fn visit<T: Transport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        if sem.is_broadcast() {
            self.0 += 1;
            let producers = if sem.producers == Arity::Many { 2 } else { 1 };
            for cap in capacities(&sem, producers) {
                pull_run::<T, Word>(t, cap, producers, 3, N / 4, Reads::One);
            }
            pull_run::<T, Word>(t, 64, producers, 3, N / 4, Reads::Batches);
        }
    }
}

#[test]
fn broadcast_transports_deliver_every_message_to_every_consumer() {
    let mut broadcasts = Broadcasts(0);
    each_pull(&mut broadcasts);
    assert_eq!(broadcasts.0, 2, "bus and crossbeam-fanout");
}

struct HeapPayloads;

impl PullVisitor for HeapPayloads {
    fn visit<T: Transport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        let producers = if sem.producers == Arity::Many { 2 } else { 1 };
        let cap = capacities(&sem, producers)[0];
        pull_run::<T, Tracked<0>>(t, cap, producers, 1, N_HEAP, Reads::One);
        assert_eq!(
            live(0),
            0,
            "{}: messages leaked or dropped twice",
            t.info().name
        );
        for reads in [Reads::Batches, Reads::Runs] {
            pull_run::<T, Tracked<0>>(t, cap.max(8), producers, 1, N_HEAP, reads);
            assert_eq!(
                live(0),
                0,
                "{}: messages leaked or dropped twice ({reads:?})",
                t.info().name
            );
        }
        pull_run::<T, Boxed>(t, cap, producers, 1, N_HEAP, Reads::One);
    }
}

#[test]
fn pull_transports_move_heap_payloads_without_leaks() {
    each_pull(&mut HeapPayloads);
}

struct DrainAfterDisconnect;

impl PullVisitor for DrainAfterDisconnect {
    fn visit<T: Transport>(&mut self, t: &T) {
        let info = t.info();
        // As many messages as fit without a consumer running (none for a rendezvous channel).
        let (cap, k) = match info.semantics.bound {
            Bound::Unbounded => (0, 10),
            Bound::Bounded {
                min_capacity: 0, ..
            } => {
                self.drain(t, 0, 0);
                (4, 4)
            }
            Bound::Bounded { .. } | Bound::Overwriting { .. } => (4, 4),
        };
        self.drain(t, cap, k);
    }
}

impl DrainAfterDisconnect {
    fn drain<T: Transport>(&self, t: &T, cap: usize, k: u64) {
        let name = t.info().name;
        let ep = t
            .channel::<Tracked<1>>(&ChannelConfig::new(cap, 1, 1))
            .unwrap();
        let (mut senders, mut receivers) = (ep.senders, ep.receivers);
        for s in 0..k {
            assert!(
                senders[0].send(Tracked::build(0, s)).is_ok(),
                "{name}: send {s}"
            );
        }
        drop(senders);
        let rx = &mut receivers[0];
        for s in 0..k {
            let m = rx
                .recv()
                .unwrap_or_else(|| panic!("{name}: stream ended after {s} of {k} messages"));
            assert_eq!((m.producer(), m.seq()), (0, s), "{name}");
        }
        assert!(rx.recv().is_none(), "{name}: stream did not end");
        assert_eq!(
            rx.recv_batch(8, &mut |_| panic!("{name}: message after the end")),
            0,
            "{name}"
        );
        assert_eq!(
            rx.recv_runs(8, |_: &[Tracked<1>]| panic!("{name}: run after the end")),
            0,
            "{name}"
        );
        drop(receivers);
        assert_eq!(live(1), 0, "{name}: messages leaked or dropped twice");
    }
}

#[test]
fn receivers_drain_then_see_the_end_once_senders_are_gone() {
    each_pull(&mut DrainAfterDisconnect);
}

struct SendAfterConsumersGone;

impl PullVisitor for SendAfterConsumersGone {
    fn visit<T: Transport>(&mut self, t: &T) {
        let info = t.info();
        let (cap, allowed) = match info.semantics.bound {
            Bound::Unbounded => (0, 1),
            Bound::Bounded { .. } | Bound::Overwriting { .. } => (4, 5),
        };
        let ep = t
            .channel::<Tracked<2>>(&ChannelConfig::new(cap, 1, 1))
            .unwrap();
        let mut senders = ep.senders;
        drop(ep.receivers);
        let refused = within_timeout(&info.name, move || {
            let tx = &mut senders[0];
            (0..allowed).find_map(|s| tx.send(Tracked::build(0, s)).err())
        });
        let m = refused.unwrap_or_else(|| {
            panic!(
                "{}: sends still accepted with every consumer gone",
                info.name
            )
        });
        assert!(
            m.check().is_some(),
            "{}: returned message is corrupt",
            info.name
        );
        assert_eq!(m.producer(), 0, "{}", info.name);
        drop(m);
        assert_eq!(
            live(2),
            0,
            "{}: messages leaked or dropped twice",
            info.name
        );
    }
}

#[test]
fn senders_get_their_message_back_once_consumers_are_gone() {
    each_pull(&mut SendAfterConsumersGone);
}

/// Every value of an option that chooses how a transport waits, with the wait it gives.
fn wait_options(info: &TransportInfo) -> Vec<(BTreeMap<String, String>, WaitStrategy)> {
    let mut out = Vec::new();
    for o in info.options.iter().filter(|o| !o.waits.is_empty()) {
        for (v, w) in o.values.iter().zip(&o.waits) {
            out.push((BTreeMap::from([(o.name.clone(), v.clone())]), *w));
        }
    }
    if out.is_empty() {
        out.push((BTreeMap::new(), info.semantics.wait));
    }
    out
}

struct EveryWaitOption;

impl PullVisitor for EveryWaitOption {
    fn visit<T: Transport>(&mut self, t: &T) {
        let info = t.info();
        for (options, _) in wait_options(&info)
            .into_iter()
            .filter(|(o, _)| !o.is_empty())
        {
            let small = capacities(&info.semantics, 1)[0].max(1);
            for reads in [Reads::One, Reads::Batches, Reads::Runs] {
                pull_run_with::<T, Word>(t, &options, small, 1, 1, N / 4, reads);
                if info.semantics.producers == Arity::Many {
                    pull_run_with::<T, Word>(t, &options, small, 4, 1, N / 16, reads);
                }
            }
        }
    }
}

#[test]
fn pull_transports_deliver_under_every_wait_option() {
    each_pull(&mut EveryWaitOption);
}

// ---------------------------------------------------------------------------------------------
// Failed attempts.

/// The project's reference transports: they count failed attempts under every wait they offer,
/// their own included.
const REFERENCE: [&str; 3] = ["handoff-spsc", "handoff-mpsc", "vyukov-mpsc"];

/// How long the late side of a run waits before it starts.
const LATE: Duration = Duration::from_millis(20);

/// Tries `run` up to ten times until it sees a failed attempt: a side starts late only if the
/// other one runs during the pause, which a loaded machine may not grant every time.
fn counted(what: &str, run: impl Fn() -> u64) {
    assert!(
        (0..10).any(|_| run() > 0),
        "{what}: no failed attempt counted in ten runs"
    );
}

/// The failed receives of a run whose producer starts late, after the consumer has started.
fn late_producer<T: Transport>(t: &T, options: &BTreeMap<String, String>, cap: usize) -> u64 {
    let mut cfg = ChannelConfig::new(cap, 1, 1);
    cfg.options = options.clone();
    let mut ep = t.channel::<Word>(&cfg).unwrap();
    let started = Arc::new(AtomicBool::new(false));
    within_timeout(&t.info().name, move || {
        let (mut tx, mut rx) = (ep.senders, ep.receivers.pop().unwrap());
        let go = started.clone();
        let consumer = thread::spawn(move || {
            go.store(true, AtomicOrdering::Release);
            let mut n = 0;
            while rx.recv().is_some() {
                n += 1;
            }
            (n, rx.failed_attempts())
        });
        while !started.load(AtomicOrdering::Acquire) {
            thread::yield_now();
        }
        thread::sleep(LATE);
        produce::<Word>(&mut tx[0], 0, 8, false);
        drop(tx);
        let (n, failed) = consumer.join().unwrap();
        assert_eq!(n, 8);
        failed
    })
}

/// The failed sends of a run whose consumer starts late, after the producer has filled the
/// queue.
fn late_consumer<T: Transport>(t: &T, options: &BTreeMap<String, String>, cap: usize) -> u64 {
    let mut cfg = ChannelConfig::new(cap, 1, 1);
    cfg.options = options.clone();
    let mut ep = t.channel::<Word>(&cfg).unwrap();
    let n = 4 * cap.max(1) as u64;
    within_timeout(&t.info().name, move || {
        let (mut tx, mut rx) = (ep.senders.pop().unwrap(), ep.receivers);
        let producer = thread::spawn(move || {
            produce::<Word>(&mut tx, 0, n, false);
            tx.failed_attempts()
        });
        thread::sleep(LATE);
        let mut got = 0;
        while rx[0].recv().is_some() {
            got += 1;
        }
        assert_eq!(got, n);
        producer.join().unwrap()
    })
}

struct CountsFailedAttempts;

impl PullVisitor for CountsFailedAttempts {
    fn visit<T: Transport>(&mut self, t: &T) {
        let info = t.info();
        let reference = REFERENCE.contains(&info.name.as_str());
        for (options, wait) in wait_options(&info) {
            // Every adapter that busy-waits counts, and the reference ones whatever they do.
            if !(wait.busy_waits() || reference) {
                continue;
            }
            let what = format!("{} {options:?}", info.name);
            let cap = capacities(&info.semantics, 1)[0].max(4);
            counted(&format!("{what}, failed receives"), || {
                late_producer(t, &options, cap)
            });
            if matches!(info.semantics.bound, Bound::Bounded { .. }) {
                counted(&format!("{what}, failed sends"), || {
                    late_consumer(t, &options, cap)
                });
            }
        }
    }
}

#[test]
fn spinning_adapters_count_their_failed_attempts() {
    each_pull(&mut CountsFailedAttempts);
}

/// A sink that starts late: it sleeps on its first message, so the ring fills behind it.
struct LateSink(bool);

impl<M: Message> Sink<M> for LateSink {
    fn accept(&mut self, _: &M) {
        if !self.0 {
            self.0 = true;
            thread::sleep(LATE);
        }
    }
}

struct CallbackCountsFailedSends;

impl CallbackVisitor for CallbackCountsFailedSends {
    fn visit<T: CallbackTransport>(&mut self, t: &T) {
        let info = t.info();
        if !info.semantics.wait.busy_waits() {
            return;
        }
        counted(&format!("{}, failed sends", info.name), || {
            let cap = 4;
            let (mut senders, handle) = t
                .connect::<Word, LateSink>(&ChannelConfig::new(cap, 1, 1), LateSink(false))
                .unwrap();
            within_timeout(&info.name, move || {
                let mut tx = senders.pop().unwrap();
                produce::<Word>(&mut tx, 0, 4 * cap as u64, false);
                let failed = tx.failed_attempts();
                drop(tx);
                assert!(handle.finish().is_some());
                failed
            })
        });
    }
}

#[test]
fn spinning_callback_transports_count_their_failed_sends() {
    each_callback(&mut CallbackCountsFailedSends);
}

// ---------------------------------------------------------------------------------------------
// Callback transports.

fn callback_run<T: CallbackTransport, M: Message>(t: &T, cap: usize, producers: usize, n: u64) {
    let info = t.info();
    let what = format!(
        "{} ({} cap {cap}, {producers}p)",
        info.name,
        std::any::type_name::<M>()
            .rsplit("::")
            .next()
            .unwrap_or("?")
    );
    let cfg = ChannelConfig::new(cap, producers, 1);
    let (senders, handle) = t
        .connect::<M, Seen>(&cfg, Seen::new(producers))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(senders.len(), producers, "{what}: senders");
    let seen = within_timeout(&what.clone(), move || {
        let tx_threads: Vec<_> = senders
            .into_iter()
            .enumerate()
            .map(|(p, mut tx)| thread::spawn(move || produce::<M>(&mut tx, p, n, false)))
            .collect();
        for t in tx_threads {
            t.join().expect("producer panicked");
        }
        handle.finish()
    });
    let seen = seen.unwrap_or_else(|| panic!("{what}: finish() returned no sink"));
    check_delivery(
        &what,
        &[seen],
        producers,
        n,
        info.semantics.ordering.is_fifo(),
    );
}

struct CallbackStreams;

impl CallbackVisitor for CallbackStreams {
    fn visit<T: CallbackTransport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        for cap in capacities(&sem, 1) {
            callback_run::<T, Word>(t, cap, 1, N);
        }
        if sem.producers == Arity::Many {
            for cap in capacities(&sem, 4) {
                callback_run::<T, Word>(t, cap, 4, N / 4);
            }
        }
    }
}

#[test]
fn callback_transports_deliver_and_hand_the_sink_back() {
    each_callback(&mut CallbackStreams);
}

struct CallbackHeapPayloads;

impl CallbackVisitor for CallbackHeapPayloads {
    fn visit<T: CallbackTransport>(&mut self, t: &T) {
        let sem = t.info().semantics;
        let name = t.info().name;
        for producers in [1, 2] {
            if producers > 1 && sem.producers == Arity::One {
                continue;
            }
            let cap = capacities(&sem, producers)[0];
            callback_run::<T, Tracked<3>>(t, cap, producers, N_HEAP);
            assert_eq!(live(3), 0, "{name}: messages leaked or dropped twice");
            callback_run::<T, Boxed>(t, cap, producers, N_HEAP);
        }
    }
}

#[test]
fn callback_transports_move_heap_payloads_without_leaks() {
    each_callback(&mut CallbackHeapPayloads);
}

#[test]
fn callback_sink_comes_back_with_no_message_sent() {
    struct Idle;
    impl CallbackVisitor for Idle {
        fn visit<T: CallbackTransport>(&mut self, t: &T) {
            let sem = t.info().semantics;
            let cap = capacities(&sem, 1)[0];
            let (senders, handle) = t
                .connect::<Word, Seen>(&ChannelConfig::new(cap, 1, 1), Seen::new(1))
                .unwrap();
            drop(senders);
            let seen =
                within_timeout(&t.info().name, move || handle.finish()).expect("sink handed back");
            assert!(seen.seqs[0].is_empty());
        }
    }
    each_callback(&mut Idle);
}

/// A sink that panics on its tenth message.
struct Panicking(u64);

impl<M: Message> Sink<M> for Panicking {
    fn accept(&mut self, _: &M) {
        self.0 += 1;
        assert!(self.0 < 10, "sink fails on purpose");
    }
}

#[test]
fn a_panicking_sink_ends_the_run_without_hanging() {
    struct PanickingSink;
    impl CallbackVisitor for PanickingSink {
        fn visit<T: CallbackTransport>(&mut self, t: &T) {
            let name = t.info().name;
            let cap = capacities(&t.info().semantics, 1)[0].max(8);
            let (mut senders, handle) = t
                .connect::<Word, Panicking>(&ChannelConfig::new(cap, 1, 1), Panicking(0))
                .unwrap();
            let mut tx = senders.pop().unwrap();
            let producer = thread::spawn(move || {
                // Either `send` refuses once the consumer is dead, or (same thread) it panics.
                (0..N).find(|&s| tx.send(Word::build(0, s)).is_err())
            });
            let outcome = within_timeout(&name, move || {
                (producer.join().map_err(|_| ()), handle.finish().is_some())
            });
            match outcome {
                (Ok(refused), sink_back) => {
                    assert!(
                        refused.is_some(),
                        "{name}: sends accepted after the consumer died"
                    );
                    assert!(
                        !sink_back,
                        "{name}: finish() returned the sink of a dead consumer"
                    );
                }
                (Err(()), sink_back) => {
                    assert_eq!(
                        t.info().semantics.locality,
                        Locality::SameThread,
                        "{name}: producer panicked"
                    );
                    assert!(
                        !sink_back,
                        "{name}: finish() returned the sink of a dead consumer"
                    );
                }
            }
        }
    }
    each_callback(&mut PanickingSink);
}

#[test]
fn disruptor_rejects_capacities_it_cannot_build() {
    let bad = |cap, producers| {
        Disruptor
            .connect::<Word, Seen>(&ChannelConfig::new(cap, producers, 1), Seen::new(producers))
            .err()
    };
    assert!(matches!(bad(100, 1), Some(BuildError::Invalid(_))));
    assert!(matches!(bad(0, 1), Some(BuildError::Invalid(_))));
    assert!(matches!(bad(32, 2), Some(BuildError::Invalid(_))));
    assert!(bad(64, 1).is_none());
    assert!(bad(64, 2).is_none());
}

// ---------------------------------------------------------------------------------------------
// The catalog.

#[test]
fn registered_names_are_the_public_interface_and_all_tested() {
    /// Name, declared semantics and smallest capacity (`None`: unbounded) of every transport.
    const EXPECTED: [(&str, &str, Option<usize>); 20] = [
        (
            "std-mpsc",
            "MPSC, per-producer FIFO, unbounded, spin-then-park, cross-thread",
            None,
        ),
        (
            "std-mpsc-poll",
            "MPSC, per-producer FIFO, unbounded, spin-then-park, cross-thread",
            None,
        ),
        (
            "std-sync-channel",
            "MPSC, per-producer FIFO, bounded, spin-then-park, cross-thread",
            Some(0),
        ),
        (
            "crossbeam-bounded",
            "MPMC, per-producer FIFO, bounded, spin-then-park, cross-thread",
            Some(0),
        ),
        (
            "crossbeam-unbounded",
            "MPMC, per-producer FIFO, unbounded, spin-then-park, cross-thread",
            None,
        ),
        (
            "crossbeam-array-queue",
            "MPMC, FIFO, bounded, spin, cross-thread",
            Some(1),
        ),
        (
            "crossbeam-seg-queue",
            "MPMC, FIFO, unbounded, spin, cross-thread",
            None,
        ),
        (
            "flume-bounded",
            "MPMC, per-producer FIFO, bounded, block, cross-thread",
            Some(0),
        ),
        (
            "flume-unbounded",
            "MPMC, per-producer FIFO, unbounded, block, cross-thread",
            None,
        ),
        (
            "kanal-bounded",
            "MPMC, per-producer FIFO, bounded, spin-then-park, cross-thread",
            Some(0),
        ),
        (
            "rtrb",
            "SPSC, FIFO, bounded, spin, cross-thread, batch",
            Some(1),
        ),
        (
            "ringbuf",
            "SPSC, FIFO, bounded, spin, cross-thread",
            Some(1),
        ),
        (
            "mutex-deque",
            "MPMC, FIFO, bounded, block, cross-thread",
            Some(1),
        ),
        (
            "disruptor",
            "MPSC, FIFO, bounded (2^n), spin, cross-thread, callback consumer",
            Some(1),
        ),
        (
            "direct-callback",
            "SPSC, FIFO, unbounded, no wait, same-thread, callback consumer",
            None,
        ),
        (
            "handoff-spsc",
            "SPSC, FIFO, bounded (2^n), spin, cross-thread, batch",
            Some(1),
        ),
        (
            "handoff-mpsc",
            "MPSC, per-producer FIFO, bounded (2^n), spin-then-park, cross-thread, batch",
            Some(1),
        ),
        (
            "vyukov-mpsc",
            "MPSC, per-producer FIFO, unbounded, spin-then-park, cross-thread",
            None,
        ),
        (
            "bus",
            "SPMC broadcast, FIFO, bounded, spin-then-park, cross-thread",
            Some(1),
        ),
        (
            "crossbeam-fanout",
            "MPMC broadcast, per-producer FIFO, bounded, spin-then-park, cross-thread",
            Some(1),
        ),
    ];
    const NAMES: [&str; 20] = {
        let mut names = [""; 20];
        let mut i = 0;
        while i < 20 {
            names[i] = EXPECTED[i].0;
            i += 1;
        }
        names
    };
    let mut catalog = Catalog::new();
    register_all(&mut catalog);
    // The async transports are exercised, and their names checked, in `async_drivers.rs`; the
    // conflating `latest-cell` cannot deliver every message of a stream, and is exercised by
    // `open_loop.rs` (latest pipelines) and its own unit test; the IPC transports (those that
    // cross processes) carry only payloads with a wire form, and are exercised, and their names
    // checked, in `ipc.rs`.
    let registered: Vec<&str> = catalog
        .entries()
        .iter()
        .filter(|e| e.info().semantics.wait != WaitStrategy::Async)
        .filter(|e| !e.info().semantics.ordering.is_conflating())
        .filter(|e| !e.crosses_processes())
        .map(|e| e.info().name.as_str())
        .collect();
    assert_eq!(registered, NAMES);

    struct Names(Vec<(String, ConsumerStyle)>);
    impl PullVisitor for Names {
        fn visit<T: Transport>(&mut self, t: &T) {
            self.0.push((t.info().name, ConsumerStyle::Pull));
        }
    }
    impl CallbackVisitor for Names {
        fn visit<T: CallbackTransport>(&mut self, t: &T) {
            self.0.push((t.info().name, ConsumerStyle::Callback));
        }
    }
    let mut tested = Names(Vec::new());
    each_pull(&mut tested);
    each_callback(&mut tested);
    let mut tested_names: Vec<&str> = tested.0.iter().map(|(n, _)| n.as_str()).collect();
    tested_names.sort_unstable();
    let mut sorted = NAMES.to_vec();
    sorted.sort_unstable();
    assert_eq!(
        tested_names, sorted,
        "every registered transport is exercised by these tests"
    );

    for (name, style) in &tested.0 {
        let info = catalog.get(name).unwrap().info();
        let sem = info.semantics;
        assert_eq!(
            sem.consumer_style, *style,
            "{name}: declared consumer style"
        );
        assert!(!info.test_only, "{name}");
        assert!(!info.description.is_empty(), "{name}");
        let (_, summary, min_capacity) = EXPECTED.iter().find(|e| e.0 == name).unwrap();
        assert_eq!(sem.summary(), *summary, "{name}: declared semantics");
        let declared_min = sem.bound.limits().map(|(min_capacity, _)| min_capacity);
        assert_eq!(declared_min, *min_capacity, "{name}: smallest capacity");
        if sem.locality == Locality::SameThread {
            assert_eq!(
                sem.wait,
                WaitStrategy::None,
                "{name}: a same-thread call never waits"
            );
        }
    }
}
