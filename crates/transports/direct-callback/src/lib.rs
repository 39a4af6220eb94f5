//! `direct-callback`: no hand-off at all; the producer's `send` calls the consumer's code.
//!
//! This is what "register a callback" means in C: the sender stores an opaque context pointer and
//! a function pointer of C ABI, and each `send` calls the function with the context and a pointer
//! to the message, then drops the message. The context is the boxed sink; the function a
//! trampoline monomorphised for the message and sink types that casts both pointers back. The
//! function is `extern "C-unwind"` rather than `extern "C"` so that a panicking sink unwinds into
//! the producer thread (where the harness reports it) instead of aborting the process.
//!
//! It runs on the producer's thread, so it is declared same-thread with no wait, and must never
//! be ranked with cross-thread transports. One producer only: a second would need a lock around
//! the sink, which is a different transport.
//!
//! A crate of its own so that its trials' code is compiled apart from every other
//! transport's: an edit here changes no other transport's machine code (see the
//! `handoff-transports` crate).

use handoff::adapter::check_spsc;
use handoff::adapter::{SinkGuard, SinkHome};
use handoff::prelude::*;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

/// `direct-callback`: `send` calls the sink through a C-ABI function pointer on the producer's
/// thread.
pub struct DirectCallback;

/// The C-ABI callback signature: an opaque context and a pointer to the message.
pub type Callback = unsafe extern "C-unwind" fn(ctx: *mut c_void, msg: *const c_void);

/// Calls the sink behind `ctx` with the message behind `msg`.
///
/// # Safety
/// `ctx` must point to a live `SinkGuard<S>` that nothing else accesses during the call, and
/// `msg` to a live `M`.
unsafe extern "C-unwind" fn trampoline<M: Message, S: Sink<M>>(
    ctx: *mut c_void,
    msg: *const c_void,
) {
    // SAFETY: the caller guarantees `ctx` is a live, unaliased `SinkGuard<S>`.
    let sink = unsafe { &mut *ctx.cast::<SinkGuard<S>>() };
    // SAFETY: the caller guarantees `msg` points to a live `M`.
    let msg = unsafe { &*msg.cast::<M>() };
    sink.accept(msg);
}

/// Producer handle of `direct-callback`: owns the boxed sink, as a context pointer.
pub struct DirectTx<M, S> {
    /// A `Box<SinkGuard<S>>` turned into a raw pointer; reclaimed in `drop`.
    ctx: *mut c_void,
    /// `trampoline::<M, S>`.
    callback: Callback,
    _types: PhantomData<fn(M) -> S>,
}

// SAFETY: `ctx` is the only pointer to a boxed `SinkGuard<S>` that this handle owns exclusively
// (it is created from `Box::into_raw` in `connect` and never copied), so moving the handle to
// another thread moves that box, which is sound because `SinkGuard<S>` is `Send` for `S: Send`
// (every `Sink` is). `callback` is a plain function pointer and `PhantomData<fn(M) -> S>` holds
// no data.
unsafe impl<M, S: Send> Send for DirectTx<M, S> {}

/// The "consumer" of `direct-callback`: only waits for the sink to come back.
pub struct DirectHandle<S> {
    home: Arc<SinkHome<S>>,
}

impl<M: Message, S: Sink<M>> Sender<M> for DirectTx<M, S> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        // SAFETY: `ctx` is the live boxed `SinkGuard<S>` this handle owns, accessed only through
        // `&mut self` here, and `callback` is `trampoline::<M, S>`, whose types match `ctx` and
        // `msg`; `msg` lives until the end of this function.
        unsafe { (self.callback)(self.ctx, std::ptr::from_ref(&msg).cast()) };
        drop(msg);
        Ok(())
    }
}

impl<M, S> Drop for DirectTx<M, S> {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from `Box::into_raw(Box<SinkGuard<S>>)` in `connect`, and `drop`
        // runs once: the box is reclaimed exactly once. Dropping the guard hands the sink back.
        drop(unsafe { Box::from_raw(self.ctx.cast::<SinkGuard<S>>()) });
    }
}

impl<S: Send + 'static> CallbackHandle<S> for DirectHandle<S> {
    fn finish(self) -> Option<S> {
        self.home.wait_take()
    }
}

impl CallbackTransport for DirectCallback {
    type Tx<M: Message, S: Sink<M>> = DirectTx<M, S>;
    type Handle<M: Message, S: Sink<M>> = DirectHandle<S>;

    fn info(&self) -> TransportInfo {
        const SEMANTICS: Semantics = Semantics::spsc()
            .unbounded()
            .wait(WaitStrategy::None)
            .same_thread()
            .callback();
        TransportInfo::new(
            "direct-callback",
            "send calls the sink through a C-ABI function pointer and context, on the producer's thread \
             (no hand-off)",
            SEMANTICS,
        )
    }

    fn connect<M: Message, S: Sink<M>>(
        &self,
        cfg: &ChannelConfig,
        sink: S,
    ) -> Result<(Vec<DirectTx<M, S>>, DirectHandle<S>), BuildError> {
        check_spsc(cfg)?;
        let home = SinkHome::new();
        let guard = Box::new(SinkGuard::new(sink, Arc::clone(&home)));
        let tx = DirectTx {
            ctx: Box::into_raw(guard).cast::<c_void>(),
            callback: trampoline::<M, S>,
            _types: PhantomData,
        };
        Ok((vec![tx], DirectHandle { home }))
    }
}

/// Registers this crate's transports (DirectCallback).
pub fn register(catalog: &mut Catalog) {
    catalog.register(Entry::callback(DirectCallback));
}
