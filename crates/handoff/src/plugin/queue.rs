//! A plugin's transport as a handoff [`Transport`]: blocks of bytes over the C functions.
//!
//! Every message crosses as its wire form ([`Message::write_wire`] on the producer's side,
//! [`Message::read_wire`] on the consumer's), so the verifier checks exactly the bytes the
//! plugin delivered. The adapter waits the way every spinning adapter of handoff waits
//! ([`Backoff`], each failed attempt counted) unless the transport waits by itself (`push`,
//! `pop`). Batches cross in one call each way (`try_push_batch`, `drain`): a plugin with batch
//! operations pays one call per run of messages, not one per message.
//!
//! The end of the stream is the harness's to know, as for the plain lock-free queues: a count
//! of live senders, whose last drop calls the plugin's `close`; a consumer that finds the queue
//! empty once every sender is gone looks once more, then ends the stream.

use super::table::Funcs;
use crate::adapter::Backoff;
use crate::message::Message;
use crate::transport::{BuildError, ChannelConfig, Endpoints, Receiver, Sender, TrySendError};
use std::ffi::{c_char, c_void, CStr};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The most bytes one batch call moves: a longer run is split into calls of this size.
const BATCH_BYTES: usize = 1 << 20;

/// One queue a plugin created, destroyed when its last endpoint is dropped.
struct Queue {
    funcs: Funcs,
    handle: *mut c_void,
    /// Bytes per block.
    size: usize,
    /// Senders not yet dropped.
    producers: AtomicUsize,
    /// Receivers not yet dropped.
    consumers: AtomicUsize,
}

// SAFETY: the C ABI lets producer calls run on producer threads and consumer calls on consumer
// threads (several at once only as the transport declares, which the harness checked against the
// trial), and `destroy` runs from `Drop` once no endpoint is left, so no other call is in flight.
unsafe impl Send for Queue {}
// SAFETY: as above; the handle is only passed to the plugin's functions.
unsafe impl Sync for Queue {}

impl Drop for Queue {
    fn drop(&mut self) {
        // SAFETY: the handle came from `create` and every endpoint is gone.
        unsafe { (self.funcs.destroy)(self.handle) }
    }
}

impl Queue {
    fn producers_gone(&self) -> bool {
        self.producers.load(Ordering::Acquire) == 0
    }

    fn consumers_gone(&self) -> bool {
        self.consumers.load(Ordering::Acquire) == 0
    }
}

/// Room for blocks of one size, 8-byte aligned, back to back.
struct Blocks {
    words: Vec<u64>,
    size: usize,
}

impl Blocks {
    fn new(size: usize, count: usize) -> Blocks {
        Blocks {
            words: vec![0; (size * count).div_ceil(8)],
            size,
        }
    }

    /// Blocks the room holds.
    fn count(&self) -> usize {
        self.words.len() * 8 / self.size
    }

    /// Makes room for at least `count` blocks.
    fn reserve(&mut self, count: usize) {
        if self.count() < count {
            self.words.resize((self.size * count).div_ceil(8), 0);
        }
    }

    /// Block `i` (within [`Blocks::count`]).
    fn at(&mut self, i: usize) -> *mut u8 {
        debug_assert!(i < self.count());
        // SAFETY: block `i` lies within the vector (i < count).
        unsafe { self.words.as_mut_ptr().cast::<u8>().add(i * self.size) }
    }
}

/// Creates one queue of the transport whose functions are `funcs` (`name` for messages).
pub(crate) fn channel<M: Message>(
    name: &str,
    funcs: Funcs,
    cfg: &ChannelConfig,
) -> Result<Endpoints<PluginTx<M>, PluginRx<M>>, BuildError> {
    let Some(size) = M::WIRE_SIZE else {
        return Err(BuildError::Unsupported(
            "a payload with heap parts (boxed:N, bytes:N at a size not compiled inline, event488+tails) cannot cross the C ABI: a \
             plugin moves plain blocks of bytes"
                .into(),
        ));
    };
    if size % 8 != 0 || u32::try_from(size).is_err() {
        return Err(BuildError::Unsupported(format!(
            "messages of {size} bytes cannot cross the C ABI (a multiple of 8 bytes is needed)"
        )));
    }
    let mut error: [c_char; 512] = [0; 512];
    // SAFETY: `create` is the plugin's; the error buffer is writable for its length.
    let handle = unsafe {
        (funcs.create)(
            cfg.capacity as u64,
            size as u32,
            cfg.producers as u32,
            cfg.consumers as u32,
            error.as_mut_ptr(),
            error.len(),
        )
    };
    if handle.is_null() {
        error[error.len() - 1] = 0;
        // SAFETY: the buffer is NUL-terminated (its last byte was just set).
        let said = unsafe { CStr::from_ptr(error.as_ptr()) }.to_string_lossy();
        let said = if said.trim().is_empty() {
            "its create returned NULL without a reason".to_string()
        } else {
            said.trim().to_string()
        };
        return Err(BuildError::Unsupported(format!("{name}: {said}")));
    }
    let queue = Arc::new(Queue {
        funcs,
        handle,
        size,
        producers: AtomicUsize::new(cfg.producers),
        consumers: AtomicUsize::new(cfg.consumers),
    });
    Ok(Endpoints {
        senders: (0..cfg.producers)
            .map(|_| PluginTx {
                one: Blocks::new(size, 1),
                run: Blocks::new(size, 0),
                queue: queue.clone(),
                failed: 0,
                _message: PhantomData,
            })
            .collect(),
        receivers: (0..cfg.consumers)
            .map(|_| PluginRx {
                blocks: Blocks::new(size, 1),
                run: Vec::new(),
                queue: queue.clone(),
                failed: 0,
            })
            .collect(),
    })
}

/// The most blocks of `size` bytes one batch call moves.
fn batch_limit(size: usize) -> usize {
    (BATCH_BYTES / size).max(1)
}

/// Takes up to `max` blocks with one `drain` call into `blocks` (room for `max`) and hands each
/// message to `f`; how many there were.
#[inline]
fn drain_into<M: Message>(
    queue: &Queue,
    drain: unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> usize,
    blocks: &mut Blocks,
    max: usize,
    f: &mut impl FnMut(M),
) -> usize {
    // SAFETY: the plugin's function, on its queue, with room for `max` blocks.
    let n = unsafe { drain(queue.handle, blocks.at(0).cast(), max) }.min(max);
    for i in 0..n {
        // SAFETY: the plugin wrote `n` blocks.
        f(unsafe { M::read_wire(blocks.at(i)) });
    }
    n
}

/// Producer handle of a plugin's transport.
pub(crate) struct PluginTx<M> {
    queue: Arc<Queue>,
    /// Room for one message.
    one: Blocks,
    /// Room for a run of messages (grown on the first batch).
    run: Blocks,
    failed: u64,
    _message: PhantomData<fn(M) -> M>,
}

impl<M> Drop for PluginTx<M> {
    fn drop(&mut self) {
        if self.queue.producers.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(close) = self.queue.funcs.close {
                // SAFETY: every producer has returned from its last push.
                unsafe { close(self.queue.handle) }
            }
        }
    }
}

impl<M: Message> PluginTx<M> {
    /// Pushes the block at `block`, waiting as the transport does: in its blocking `push`, or
    /// by retrying `try_push`. `false` if every consumer is gone (or the queue closed).
    #[inline]
    fn push_block(queue: &Queue, failed: &mut u64, block: *const u8) -> bool {
        let (handle, block) = (queue.handle, block.cast::<c_void>());
        if let Some(push) = queue.funcs.push {
            // SAFETY: the plugin's function, on its queue, with one whole block.
            return unsafe { push(handle, block) } == 1;
        }
        let mut backoff = Backoff::new();
        // SAFETY: as above.
        while unsafe { (queue.funcs.try_push)(handle, block) } != 1 {
            if queue.consumers_gone() {
                return false;
            }
            *failed += 1;
            backoff.snooze();
        }
        true
    }
}

impl<M: Message> Sender<M> for PluginTx<M> {
    #[inline]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let block = self.one.at(0);
        // SAFETY: the room holds one block of the wire size.
        unsafe { msg.write_wire(block) };
        if Self::push_block(&self.queue, &mut self.failed, block) {
            Ok(())
        } else {
            Err(msg)
        }
    }

    #[inline]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        let block = self.one.at(0);
        // SAFETY: the room holds one block of the wire size.
        unsafe { msg.write_wire(block) };
        // SAFETY: the plugin's function, on its queue, with one whole block.
        if unsafe { (self.queue.funcs.try_push)(self.queue.handle, block.cast()) } == 1 {
            Ok(())
        } else if self.queue.consumers_gone() {
            Err(TrySendError::Disconnected(msg))
        } else {
            Err(TrySendError::Full(msg))
        }
    }

    /// Writes the run into blocks back to back, at most [`batch_limit`] at a time, and hands
    /// each stretch over with `try_push_batch` calls; a call that finds the queue full is
    /// followed by a wait (the blocking `push` of the next block, or a counted retry).
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        let Some(push_batch) = self.queue.funcs.try_push_batch else {
            for m in msgs {
                self.send(m)?;
            }
            return Ok(());
        };
        let limit = batch_limit(self.queue.size);
        loop {
            self.run.reserve(msgs.size_hint().0.clamp(1, limit));
            let room = self.run.count().min(limit);
            let mut n = 0;
            while n < room {
                let Some(m) = msgs.next() else { break };
                // SAFETY: block `n` is within the room.
                unsafe { m.write_wire(self.run.at(n)) };
                n += 1;
            }
            if n == 0 {
                return Ok(());
            }
            let mut done = 0;
            let mut backoff = Backoff::new();
            while done < n {
                let from = self.run.at(done).cast::<c_void>();
                // SAFETY: the plugin's function, on its queue, with `n - done` whole blocks.
                let pushed = unsafe { push_batch(self.queue.handle, from, n - done) };
                if pushed > 0 {
                    done += pushed.min(n - done);
                    backoff = Backoff::new();
                    continue;
                }
                if self.queue.funcs.push.is_some() {
                    if !Self::push_block(&self.queue, &mut self.failed, from.cast()) {
                        // SAFETY: the block holds a message written above.
                        return Err(unsafe { M::read_wire(from.cast()) });
                    }
                    done += 1;
                    continue;
                }
                if self.queue.consumers_gone() {
                    // SAFETY: the block holds a message written above.
                    return Err(unsafe { M::read_wire(from.cast()) });
                }
                self.failed += 1;
                backoff.snooze();
            }
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

/// Consumer handle of a plugin's transport.
pub(crate) struct PluginRx<M> {
    queue: Arc<Queue>,
    /// Room for the blocks of one receive.
    blocks: Blocks,
    /// The messages of one run, read from their blocks, lent to the verifier at once.
    run: Vec<M>,
    failed: u64,
}

impl<M> Drop for PluginRx<M> {
    fn drop(&mut self) {
        self.queue.consumers.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<M: Message> Receiver<M> for PluginRx<M> {
    #[inline]
    fn recv(&mut self) -> Option<M> {
        let queue = &*self.queue;
        let block = self.blocks.at(0);
        // SAFETY (every call below): the plugin's functions, on its queue, with room for one
        // block; a block is read only after the plugin said it wrote one.
        let pop = || unsafe { (queue.funcs.try_pop)(queue.handle, block.cast()) } == 1;
        let read = || unsafe { M::read_wire(block) };
        let mut backoff = Backoff::new();
        loop {
            if pop() {
                return Some(read());
            }
            if let Some(wait) = queue.funcs.pop {
                return (unsafe { wait(queue.handle, block.cast()) } == 1).then(read);
            }
            if queue.producers_gone() {
                return pop().then(read);
            }
            self.failed += 1;
            backoff.snooze();
        }
    }

    /// Takes up to `max` messages with one `drain` call (split at [`batch_limit`]); when there
    /// is nothing, waits as [`recv`](Receiver::recv) does.
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        let Some(drain) = self.queue.funcs.drain else {
            return match self.recv() {
                Some(m) => {
                    f(m);
                    1
                }
                None => 0,
            };
        };
        // Disjoint borrows of the handle's fields: no reference count touched per call.
        let PluginRx {
            queue,
            blocks,
            failed,
            ..
        } = self;
        let queue: &Queue = queue;
        let max = max.clamp(1, batch_limit(queue.size));
        blocks.reserve(max);
        let mut backoff = Backoff::new();
        loop {
            let n = drain_into(queue, drain, blocks, max, &mut f);
            if n > 0 {
                return n;
            }
            if let Some(wait) = queue.funcs.pop {
                // SAFETY: the plugin's function, on its queue, with room for one block.
                if unsafe { wait(queue.handle, blocks.at(0).cast()) } != 1 {
                    return 0;
                }
                // SAFETY: the plugin wrote one block.
                f(unsafe { M::read_wire(blocks.at(0)) });
                return 1;
            }
            if queue.producers_gone() {
                return drain_into(queue, drain, blocks, max, &mut f);
            }
            *failed += 1;
            backoff.snooze();
        }
    }

    /// Reads a [`recv_batch`](Receiver::recv_batch)'s blocks into one run and lends it whole,
    /// so the verifier checks a plugin's batch as it checks a Rust ring's.
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        let mut run = std::mem::take(&mut self.run);
        let n = self.recv_batch(max, |m| run.push(m));
        if n > 0 {
            f(&run);
        }
        run.clear();
        self.run = run;
        n
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}
