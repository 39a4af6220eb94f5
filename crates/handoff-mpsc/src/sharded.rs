//! The sharded channel: one single-producer ring per sender, drained in turns by the receiver.
//!
//! # Design
//!
//! * **Shards.** Every [`Sender`] owns the producer end of a bounded SPSC ring
//!   ([`handoff_spsc`]); the [`Receiver`] holds the consumer ends. A send is an SPSC push: no
//!   atomic read-modify-write, no cache line shared with other senders, hence throughput that
//!   grows with the number of senders instead of collapsing on one contended tail.
//! * **Registration.** Cloning a sender creates a ring, puts its consumer end in a
//!   mutex-protected list of pending shards and bumps an atomic `generation` counter (under the
//!   lock). The receiver compares `generation` with the last value it saw once per pass (one
//!   relaxed load) and takes the lock only when it changed. Registration is rare; the hot path
//!   never locks.
//! * **Retirement.** Dropping a sender drops its producer end, which marks the ring closed. The
//!   receiver keeps draining it and removes it only when a pop finds it both empty and closed,
//!   so nothing sent before the drop is lost.
//! * **Turns.** The receiver keeps a cursor on the shards and takes at most [`SHARD_TURN`]
//!   messages from a ring before moving to the next one (round-robin), in [`Receiver::recv`] and
//!   [`Receiver::recv_batch`] alike.
//! * **End of stream.** A live-sender count is decremented after a sender's ring has been
//!   closed. When the receiver finds every ring empty and reads a count of 0 (acquire), every
//!   message ever sent and every registration are visible to it: one more pass drains and
//!   retires everything, and then the stream has ended.
//! * **Sleeping** ([`Wake::Edge`], [`Wake::Every`]). The receiver sleeps on one
//!   [`Waiter`] shared by all senders, re-checking every ring, the generation and the sender
//!   count after announcing the sleep; a sender notifies it after each push. A sender facing a
//!   full ring sleeps on a waiter of its own shard, which the receiver notifies after taking
//!   messages from that ring.
//! * **Hot path.** [`Sender::send`], [`Sender::try_send`], [`Receiver::try_recv`] and
//!   [`Receiver::recv`] are always inlined into the caller's loop and their waiting halves never
//!   are. What runs per message is a ring push or pop and the wake policy's flag check, a handful
//!   of instructions; left out of line (as the compiler chose for a generic caller), the call
//!   and its register saves cost about as much again, on the receiver, which is the slower side
//!   of an ingress.

use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Mutex};
use crate::wake::Wake;
use crate::{CapacityError, TryPushError};
use crossbeam_utils::CachePadded;
use handoff_spsc::{Consumer, Producer, TryPopError, Wait, Waiter};
use std::fmt;

/// The most messages the receiver takes from one sender's ring before turning to the next one.
pub const SHARD_TURN: usize = 64;

/// State shared by the receiver and all senders.
struct Shared<T> {
    /// Where the receiver sleeps (`Edge` / `Every`); notified by senders after each push.
    receiver: CachePadded<Waiter>,
    /// Bumped, under the `registry` lock, each time a shard is registered.
    generation: AtomicUsize,
    /// Live senders. Decremented after the sender's ring has been closed.
    senders: AtomicUsize,
    registry: Mutex<Registry<T>>,
    /// Capacity of every ring (already a power of two).
    shard_capacity: usize,
}

/// Shards registered but not yet taken over by the receiver.
struct Registry<T> {
    pending: Vec<Shard<T>>,
    /// The receiver is gone: new shards are closed at once instead of registered.
    closed: bool,
}

/// The receiver's end of one sender's ring.
///
/// Dropping it closes the ring and then wakes the ring's sender if it sleeps, so that it sees
/// the receiver is gone; a panic while dropping the ring (a message's `drop`, when the sender is
/// gone too) still wakes it.
struct Shard<T> {
    // Field order matters: `ring` is dropped (marking the ring abandoned) before `sender` wakes.
    ring: Consumer<T>,
    /// Where this ring's sender sleeps when the ring is full.
    sender: SenderWaiter,
}

/// A sender's waiter, as the receiver holds it: notified when dropped.
struct SenderWaiter(Arc<CachePadded<Waiter>>);

impl Drop for SenderWaiter {
    fn drop(&mut self) {
        self.0.notify();
    }
}

impl<T> Shard<T> {
    /// After taking messages from the ring: wake its sender if it sleeps on a full ring.
    #[inline(always)]
    fn released(&self, wake: Wake) {
        if wake.sleeps() {
            self.sender.0.notify();
        }
    }
}

/// Creates a sharded channel whose senders each own a ring of at least `shard_capacity`
/// messages (rounded up to a power of two), with the given wake policy.
///
/// # Errors
/// As [`handoff_spsc::channel`]: a capacity of 0, or one too large.
///
/// # Example
/// ```
/// use handoff_mpsc::{channel, Wake};
///
/// let (mut tx, mut rx) = channel::<&str>(100, Wake::Edge)?;
/// assert_eq!(tx.shard_capacity(), 128);
/// tx.send("hello").unwrap();
/// drop(tx);
/// assert_eq!(rx.recv(), Some("hello"));
/// assert_eq!(rx.recv(), None);
/// # Ok::<(), handoff_mpsc::CapacityError>(())
/// ```
pub fn channel<T>(
    shard_capacity: usize,
    wake: Wake,
) -> Result<(Sender<T>, Receiver<T>), CapacityError> {
    let (producer, consumer) = handoff_spsc::channel(shard_capacity, Wait::Spin)?;
    let shared = Arc::new(Shared {
        receiver: CachePadded::new(Waiter::new()),
        generation: AtomicUsize::new(0),
        senders: AtomicUsize::new(1),
        registry: Mutex::new(Registry {
            pending: Vec::new(),
            closed: false,
        }),
        shard_capacity: producer.capacity(),
    });
    let waiter = Arc::new(CachePadded::new(Waiter::new()));
    let receiver = Receiver {
        shared: shared.clone(),
        shards: vec![Shard {
            ring: consumer,
            sender: SenderWaiter(waiter.clone()),
        }],
        cursor: 0,
        turn: SHARD_TURN,
        generation: 0,
        wake,
        failed_polls: 0,
        _own_lines: CachePadded::new(()),
    };
    let sender = Sender {
        ring: producer,
        waiter,
        token: SenderToken(shared),
        wake,
        failed_polls: 0,
    };
    Ok((sender, receiver))
}

/// A producer handle of a sharded channel: owns one ring.
///
/// Cloning a sender registers a new ring for the clone. Dropping a sender closes its ring; the
/// receiver still receives what is in it.
///
/// # Threads
///
/// A sender can move to another thread (for messages that are `Send`):
///
/// ```
/// use handoff_mpsc::{channel, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<u32>(4, Wake::Spin).unwrap();
/// send(tx);
/// ```
///
/// It cannot be shared between threads (it is not `Sync`), so that only one thread sends on its ring (clone it to send from several threads):
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{channel, Wake};
/// fn share<S: Sync>(_: &S) {}
/// let (tx, rx) = channel::<u32>(4, Wake::Spin).unwrap();
/// share(&tx);
/// ```
///
/// Nor can it move to another thread with messages that may not (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{channel, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<std::rc::Rc<u32>>(4, Wake::Spin).unwrap();
/// send(tx);
/// ```
pub struct Sender<T> {
    // Field order matters: `ring` (which closes the ring) is dropped before `token` (which then
    // counts the sender out), so that a receiver that sees the count reach 0 sees every ring
    // closed.
    ring: Producer<T>,
    /// Where this sender sleeps when its ring is full.
    waiter: Arc<CachePadded<Waiter>>,
    token: SenderToken<T>,
    wake: Wake,
    /// See [`Sender::failed_polls`].
    failed_polls: u64,
}

/// Counts a sender in the live-sender count while it lives.
struct SenderToken<T>(Arc<Shared<T>>);

impl<T> Drop for SenderToken<T> {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last sender: a sleeping receiver must wake up to see the end of the stream.
            self.0.receiver.notify();
        }
    }
}

impl<T> Sender<T> {
    /// Sends `value`, waiting (as the channel's [`Wake`] policy says) while this sender's ring
    /// is full.
    ///
    /// Returns the message back if the receiver is gone and the ring is full. A send that finds
    /// room in the ring succeeds even if the receiver is already gone (the message is then
    /// dropped with the channel), as a send can always race with the receiver's drop; use
    /// [`is_disconnected`](Sender::is_disconnected) to ask.
    #[inline(always)]
    pub fn send(&mut self, value: T) -> Result<(), T> {
        match self.ring.try_push(value) {
            Ok(()) => {
                self.wake.after_send(&self.token.0.receiver);
                Ok(())
            }
            Err(refused) => self.send_slow(refused.into_inner()),
        }
    }

    #[cold]
    #[inline(never)]
    fn send_slow(&mut self, mut value: T) -> Result<(), T> {
        let mut backoff = self.wake.backoff();
        loop {
            if self.ring.is_abandoned() {
                return Err(value);
            }
            self.failed_polls += 1;
            if backoff.snooze() {
                let ring = &self.ring;
                // The receiver notifies this waiter after taking messages from the ring and
                // when it is dropped.
                self.waiter
                    .sleep_unless(|| !ring.is_full() || ring.is_abandoned());
            }
            match self.ring.try_push(value) {
                Ok(()) => {
                    self.wake.after_send(&self.token.0.receiver);
                    return Ok(());
                }
                Err(refused) => value = refused.into_inner(),
            }
        }
    }

    /// Sends `value` if this sender's ring has room, without waiting.
    ///
    /// # Errors
    /// [`TryPushError::Full`] if the ring is full, [`TryPushError::Disconnected`] if it is full
    /// and the receiver is gone.
    #[inline(always)]
    pub fn try_send(&mut self, value: T) -> Result<(), TryPushError<T>> {
        self.ring.try_push(value)?;
        self.wake.after_send(&self.token.0.receiver);
        Ok(())
    }

    /// Sends every item of `items`, waiting while the ring is full, and returns how many were
    /// sent. Runs of items are published to the receiver at once (and the receiver notified
    /// once per run).
    ///
    /// Returns `Err(item)` with the item in hand if the receiver is gone and the ring is full;
    /// the items before it were sent, the rest are still in the iterator.
    #[inline]
    pub fn send_batch<I>(&mut self, items: &mut I) -> Result<usize, T>
    where
        I: Iterator<Item = T> + ?Sized,
    {
        let mut sent = 0;
        loop {
            let n = self.try_send_batch(items);
            if n > 0 {
                sent += n;
                continue;
            }
            // The ring is full, or the iterator is done.
            let Some(item) = items.next() else {
                return Ok(sent);
            };
            self.send(item)?;
            sent += 1;
        }
    }

    /// Sends items of `items` while this sender's ring has room, without waiting, publishing
    /// them to the receiver at once (and notifying it once). Returns how many were sent: 0 if
    /// the ring is full or the iterator is done. No item is taken from the iterator unless there
    /// is a slot for it. As with [`try_send`](Sender::try_send), items that find room are sent
    /// even if the receiver is already gone.
    #[inline]
    pub fn try_send_batch<I>(&mut self, items: &mut I) -> usize
    where
        I: Iterator<Item = T> + ?Sized,
    {
        let n = self.ring.try_push_batch(items);
        if n > 0 {
            self.wake.after_send(&self.token.0.receiver);
        }
        n
    }

    /// How many times, since creation, this sender found its ring full and then waited (a
    /// spin, a yield or a sleep, as the [`Wake`] policy says) before looking again: the failed
    /// polls of the waiting operations ([`send`](Sender::send),
    /// [`send_batch`](Sender::send_batch)). A statistic for benchmarks, kept in the handle (no
    /// shared write); the `try_*` operations never wait and do not count.
    pub fn failed_polls(&self) -> u64 {
        self.failed_polls
    }

    /// The capacity of this sender's ring (a power of two; the same for every sender).
    pub fn shard_capacity(&self) -> usize {
        self.ring.capacity()
    }

    /// The channel's wake policy.
    pub fn wake(&self) -> Wake {
        self.wake
    }

    /// Whether the receiver has been dropped.
    pub fn is_disconnected(&self) -> bool {
        self.ring.is_abandoned()
    }
}

impl<T> Clone for Sender<T> {
    /// A new sender with a ring of its own, registered with the receiver.
    fn clone(&self) -> Self {
        let shared = &self.token.0;
        // Counted in before this sender (alive, so the count is at least 1) can go away.
        shared.senders.fetch_add(1, Ordering::Relaxed);
        let token = SenderToken(shared.clone());
        let (ring, consumer) = handoff_spsc::channel(shared.shard_capacity, Wait::Spin)
            .expect("the capacity was accepted when the channel was created");
        let waiter = Arc::new(CachePadded::new(Waiter::new()));
        let shard = Shard {
            ring: consumer,
            sender: SenderWaiter(waiter.clone()),
        };
        {
            let mut registry = crate::loom::lock(&shared.registry);
            if registry.closed {
                // The receiver is gone: the new ring starts out abandoned.
                drop(registry);
                drop(shard);
            } else {
                registry.pending.push(shard);
                // Under the lock, so that the receiver, which reads it under the lock when it
                // takes the pending shards, never records a generation newer than what it took.
                shared.generation.fetch_add(1, Ordering::Release);
            }
        }
        Sender {
            ring,
            waiter,
            token,
            wake: self.wake,
            failed_polls: 0,
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("shard_capacity", &self.shard_capacity())
            .field("wake", &self.wake)
            .finish_non_exhaustive()
    }
}

/// The consumer handle of a sharded channel.
///
/// # Threads
///
/// A receiver can move to another thread (for messages that are `Send`):
///
/// ```
/// use handoff_mpsc::{channel, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<u32>(4, Wake::Spin).unwrap();
/// send(rx);
/// ```
///
/// It cannot be shared between threads (it is not `Sync`), so that only one thread receives:
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{channel, Wake};
/// fn share<S: Sync>(_: &S) {}
/// let (tx, rx) = channel::<u32>(4, Wake::Spin).unwrap();
/// share(&rx);
/// ```
///
/// Nor can it move to another thread with messages that may not (`Rc` here):
///
/// ```compile_fail,E0277
/// use handoff_mpsc::{channel, Wake};
/// fn send<S: Send>(_: S) {}
/// let (tx, rx) = channel::<std::rc::Rc<u32>>(4, Wake::Spin).unwrap();
/// send(rx);
/// ```
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The rings taken over from the registry, in turn order.
    shards: Vec<Shard<T>>,
    /// The shard whose turn it is (may be out of range after a retirement; then the next turn
    /// starts at 0).
    cursor: usize,
    /// Messages the current shard may still give in its turn.
    turn: usize,
    /// The registry generation whose shards are all in `shards`.
    generation: usize,
    wake: Wake,
    /// See [`Receiver::failed_polls`].
    failed_polls: u64,
    /// The receiver writes its turn on every message: it keeps whole cache-line pairs of its
    /// own, so that no placement puts it on a line a sender reads (see
    /// [`handoff_spsc::Producer`], Placement). Senders already do, through their rings.
    _own_lines: CachePadded<()>,
}

impl<T> Receiver<T> {
    /// Receives a message without waiting.
    ///
    /// # Errors
    /// [`TryPopError::Empty`] if no ring holds a message, [`TryPopError::Disconnected`] if
    /// moreover every sender is gone (nothing will ever come).
    #[inline(always)]
    pub fn try_recv(&mut self) -> Result<T, TryPopError> {
        // The current shard's turn goes on while it has messages and turn left.
        if self.turn > 0 {
            if let Some(shard) = self.shards.get_mut(self.cursor) {
                if let Ok(value) = shard.ring.try_pop() {
                    self.turn -= 1;
                    shard.released(self.wake);
                    return Ok(value);
                }
            }
        }
        self.try_recv_slow()
    }

    #[cold]
    #[inline(never)]
    fn try_recv_slow(&mut self) -> Result<T, TryPopError> {
        if let Some(value) = self.next_turns() {
            return Ok(value);
        }
        if self.shared.senders.load(Ordering::Acquire) == 0 {
            // Every sender is gone, and everything they did (sends, closing their rings,
            // registering clones) is visible now: one more pass drains or retires every ring.
            if let Some(value) = self.next_turns() {
                return Ok(value);
            }
            if self.shards.is_empty() {
                return Err(TryPopError::Disconnected);
            }
        }
        Err(TryPopError::Empty)
    }

    /// Receives a message, waiting as the channel's [`Wake`] policy says while there is none.
    /// Returns `None` once every sender is gone and everything they sent has been received.
    #[inline(always)]
    pub fn recv(&mut self) -> Option<T> {
        match self.try_recv() {
            Ok(value) => Some(value),
            Err(TryPopError::Disconnected) => None,
            Err(TryPopError::Empty) => self.recv_slow(),
        }
    }

    #[cold]
    #[inline(never)]
    fn recv_slow(&mut self) -> Option<T> {
        let mut backoff = self.wake.backoff();
        loop {
            // The last look found every ring empty.
            self.failed_polls += 1;
            if backoff.snooze() {
                self.sleep();
            }
            match self.try_recv() {
                Ok(value) => return Some(value),
                Err(TryPopError::Disconnected) => return None,
                Err(TryPopError::Empty) => {}
            }
        }
    }

    /// Receives up to `max` messages without waiting, calling `f` on each, taking turns over
    /// the rings (at most [`SHARD_TURN`] from one ring per turn). Each ring's slots are released
    /// to its sender once per turn. Returns how many were received (at least one).
    ///
    /// # Errors
    /// As [`try_recv`](Receiver::try_recv) when no message is available (and `max > 0`).
    #[inline]
    pub fn try_recv_batch<F>(&mut self, max: usize, mut f: F) -> Result<usize, TryPopError>
    where
        F: FnMut(T),
    {
        self.try_take(max, |rx| rx.drain(max, &mut f))
    }

    /// Receives up to `max` messages, calling `f` on each, waiting as the channel's [`Wake`]
    /// policy says until there is at least one. Takes turns over the rings as
    /// [`try_recv_batch`](Receiver::try_recv_batch). Returns how many were received: 0 only when
    /// `max` is 0, or once every sender is gone and everything was received.
    #[inline]
    pub fn recv_batch<F>(&mut self, max: usize, mut f: F) -> usize
    where
        F: FnMut(T),
    {
        self.take_waiting(|rx| rx.try_recv_batch(max, &mut f))
    }

    /// Receives up to `max` messages without waiting, lending each ring's run to `f` where it
    /// lies (one or two slices per turn, see [`Consumer::pop_slices`]), then dropping it; takes
    /// turns over the rings as [`try_recv_batch`](Receiver::try_recv_batch). Returns how many
    /// were received (at least one).
    ///
    /// # Errors
    /// As [`try_recv`](Receiver::try_recv) when no message is available (and `max > 0`).
    ///
    /// [`Consumer::pop_slices`]: handoff_spsc::Consumer::pop_slices
    #[inline]
    pub fn try_recv_slices<F>(&mut self, max: usize, mut f: F) -> Result<usize, TryPopError>
    where
        F: FnMut(&[T]),
    {
        self.try_take(max, |rx| rx.lend(max, &mut f))
    }

    /// Receives up to `max` messages, lending them to `f` in place as
    /// [`try_recv_slices`](Receiver::try_recv_slices) does, waiting as the channel's [`Wake`]
    /// policy says until there is at least one. Returns how many were received: 0 only when
    /// `max` is 0, or once every sender is gone and everything was received.
    #[inline]
    pub fn recv_slices<F>(&mut self, max: usize, mut f: F) -> usize
    where
        F: FnMut(&[T]),
    {
        self.take_waiting(|rx| rx.try_recv_slices(max, &mut f))
    }

    /// The non-waiting batch receive, for any way of taking messages: `take` takes up to `max`
    /// over the rings and returns how many it took. Once every sender is gone, one more pass
    /// (see `try_recv_slow`) drains or retires every ring before the end is reported.
    #[inline]
    fn try_take(
        &mut self,
        max: usize,
        mut take: impl FnMut(&mut Self) -> usize,
    ) -> Result<usize, TryPopError> {
        if max == 0 {
            return Ok(0);
        }
        let n = take(self);
        if n > 0 {
            return Ok(n);
        }
        if self.shared.senders.load(Ordering::Acquire) == 0 {
            let n = take(self);
            if n > 0 {
                return Ok(n);
            }
            if self.shards.is_empty() {
                return Err(TryPopError::Disconnected);
            }
        }
        Err(TryPopError::Empty)
    }

    /// The waiting batch receive around a non-waiting one (`try_take`): retries it, waiting as
    /// the channel's [`Wake`] policy says, until it takes something or reports the end (0).
    #[inline]
    fn take_waiting(
        &mut self,
        mut try_take: impl FnMut(&mut Self) -> Result<usize, TryPopError>,
    ) -> usize {
        let mut backoff = self.wake.backoff();
        loop {
            match try_take(self) {
                Ok(n) => return n,
                Err(TryPopError::Disconnected) => return 0,
                Err(TryPopError::Empty) => {}
            }
            self.failed_polls += 1;
            if backoff.snooze() {
                self.sleep();
            }
        }
    }

    /// How many times, since creation, this receiver found every ring empty and then waited (a
    /// spin, a yield or a sleep, as the [`Wake`] policy says) before looking again: the failed
    /// polls of the waiting operations ([`recv`](Receiver::recv),
    /// [`recv_batch`](Receiver::recv_batch), [`recv_slices`](Receiver::recv_slices)). A
    /// statistic for benchmarks, kept in the handle (no shared write); the `try_*` operations
    /// never wait and do not count.
    pub fn failed_polls(&self) -> u64 {
        self.failed_polls
    }

    /// The number of senders' rings the receiver currently drains (rings of dropped senders
    /// count until they are drained; clones count once the receiver has noticed them).
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// Whether every sender has been dropped. Messages may still be waiting to be received.
    pub fn is_disconnected(&self) -> bool {
        self.shared.senders.load(Ordering::Acquire) == 0
    }

    /// The channel's wake policy.
    pub fn wake(&self) -> Wake {
        self.wake
    }

    /// Gives the turn to the following shards, for one full pass at most, and returns the first
    /// message found. Retires drained rings of dropped senders on the way.
    fn next_turns(&mut self) -> Option<T> {
        self.adopt();
        let mut misses = 0;
        while misses < self.shards.len() {
            self.advance();
            let shard = &mut self.shards[self.cursor];
            match shard.ring.try_pop() {
                Ok(value) => {
                    self.turn -= 1;
                    shard.released(self.wake);
                    return Some(value);
                }
                Err(TryPopError::Empty) => misses += 1,
                Err(TryPopError::Disconnected) => self.retire(),
            }
        }
        None
    }

    /// Takes turns over the shards, at most a turn's worth from each, until `max` messages or
    /// a full round in which no shard gave anything.
    fn drain(&mut self, max: usize, f: &mut impl FnMut(T)) -> usize {
        self.drain_with(max, |ring, want| ring.try_pop_batch(want, &mut *f))
    }

    /// As [`drain`](Receiver::drain), lending each ring's run to `f` in place.
    #[inline]
    fn lend(&mut self, max: usize, f: &mut impl FnMut(&[T])) -> usize {
        self.drain_with(max, |ring, want| ring.try_pop_slices(want, &mut *f))
    }

    /// Takes turns over the rings, taking up to `max` messages in all with `pop` (which pops up
    /// to the count it is given from one ring without waiting), and releases each ring's slots
    /// to its sender once per turn.
    #[inline]
    fn drain_with(
        &mut self,
        max: usize,
        mut pop: impl FnMut(&mut Consumer<T>, usize) -> Result<usize, TryPopError>,
    ) -> usize {
        self.adopt();
        let mut total = 0;
        // Shards in a row that gave nothing.
        let mut idle = 0;
        while total < max && idle < self.shards.len() {
            if self.turn == 0 || self.cursor >= self.shards.len() {
                self.advance();
            }
            let want = self.turn.min(max - total);
            let shard = &mut self.shards[self.cursor];
            match pop(&mut shard.ring, want) {
                Ok(n) => {
                    shard.released(self.wake);
                    total += n;
                    idle = 0;
                    // A ring that gave less than asked is empty for now: its turn ends.
                    self.turn = if n < want { 0 } else { self.turn - n };
                }
                Err(TryPopError::Empty) => {
                    idle += 1;
                    self.turn = 0;
                }
                Err(TryPopError::Disconnected) => {
                    self.retire();
                    self.turn = 0;
                }
            }
        }
        total
    }

    /// Starts the next shard's turn.
    #[inline]
    fn advance(&mut self) {
        self.cursor = self.cursor.wrapping_add(1);
        if self.cursor >= self.shards.len() {
            self.cursor = 0;
        }
        self.turn = SHARD_TURN;
    }

    /// Removes the shard under the cursor (empty, and its sender gone). The last shard takes
    /// its place, and the cursor steps back so that the next `advance` visits it.
    fn retire(&mut self) {
        let shard = self.shards.swap_remove(self.cursor);
        drop(shard);
        self.cursor = self.cursor.wrapping_sub(1);
    }

    /// Takes over newly registered shards, if the generation moved.
    #[inline]
    fn adopt(&mut self) {
        if self.shared.generation.load(Ordering::Relaxed) != self.generation {
            self.adopt_slow();
        }
    }

    #[cold]
    fn adopt_slow(&mut self) {
        let mut registry = crate::loom::lock(&self.shared.registry);
        self.generation = self.shared.generation.load(Ordering::Relaxed);
        self.shards.append(&mut registry.pending);
    }

    /// Sleeps until a sender may have sent, registered a ring or gone away.
    fn sleep(&self) {
        let shared = &*self.shared;
        let (shards, generation) = (&self.shards, self.generation);
        // Senders notify `receiver` after every push and the last one when it goes; a clone's
        // registration is visible through `generation` before the clone can push.
        shared.receiver.sleep_unless(|| {
            shared.senders.load(Ordering::Acquire) == 0
                || shared.generation.load(Ordering::Acquire) != generation
                || shards.iter().any(|shard| !shard.ring.is_empty())
        });
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // No more registrations: a clone made from now on gets an abandoned ring.
        let pending = {
            let mut registry = crate::loom::lock(&self.shared.registry);
            registry.closed = true;
            std::mem::take(&mut registry.pending)
        };
        // Abandon every ring and wake senders asleep on full ones, so they see it (dropping a
        // shard does both). Messages left in a ring are dropped with it, once its sender is gone
        // too; if one of them panics, the vectors still drop (close) the remaining shards.
        drop(pending);
        self.shards.clear();
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("shards", &self.shards.len())
            .field("wake", &self.wake)
            .finish_non_exhaustive()
    }
}
