//! The one shape every adapter is stated in.
//!
//! An adapter is a row: a unit struct with its name, description and semantics (a `const`
//! expression built with [`Semantics::spsc`] and its setters), its options, its handle types and
//! the few lines that create a channel (`transport!`). Thin handles over a crate's own channel
//! ends are rows too: the wrapped end and one expression per operation (`handles!`). Both
//! macros only write the trait boilerplate around what the row states: every operation is
//! statically dispatched and carries exactly the attributes (`#[inline]`) its row gives it.
//!
//! What channels share is written here once: `refused!` turns a crate's "full or disconnected"
//! error into [`TrySendError`] and [`check_spsc`] refuses a second producer or consumer.

use crate::prelude::*;

/// Declares transports ([`Transport`] or [`AsyncTransport`]), one row each: the unit struct and
/// its name, the trait with the handle types (`M` is the message type), the description, the
/// semantics (evaluated at compile time), options if any, and how a channel is created:
///
/// ```text
/// transport! {
///     /// `flume-bounded`: `flume::bounded(capacity)`.
///     FlumeBounded("flume-bounded"): Transport<FlumeTx<M>, FlumeRx<M>> {
///         description: "flume::bounded(capacity), blocking send/recv (0 = rendezvous)",
///         semantics: Semantics::mpmc().bounded(0, false).wait(WaitStrategy::Block),
///         options: [WAKE.spec()], // optional
///         channel(cfg) => Ok(Endpoints::cloned(cfg, flume::bounded(cfg.capacity), FlumeTx, FlumeRx)),
///     }
/// }
/// ```
#[macro_export]
macro_rules! transport {
    ($(
        $(#[$attr:meta])*
        $name:ident($label:literal): $kind:ident<$tx:ty, $rx:ty> {
            description: $description:expr,
            semantics: $semantics:expr,
            $(options: [$($option:expr),* $(,)?],)?
            channel($cfg:ident) => $body:expr $(,)?
        }
    )+) => {$(
        $(#[$attr])*
        pub struct $name;

        impl $kind for $name {
            type Tx<M: Message> = $tx;
            type Rx<M: Message> = $rx;

            fn info(&self) -> TransportInfo {
                const SEMANTICS: Semantics = $semantics;
                TransportInfo::new($label, $description, SEMANTICS)$($(.with_option($option))*)?
            }

            fn channel<M: Message>(
                &self,
                $cfg: &ChannelConfig,
            ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
                $body
            }
        }
    )+};
}

/// Declares handles that wrap one end of a crate's channel, one row each: the wrapped end, the
/// role ([`Sender`], [`Receiver`], [`AsyncSender`] or [`AsyncReceiver`]) and one expression per
/// operation, with its attributes, in which the first name is the wrapped end (`&mut`):
///
/// ```text
/// handles! {
///     /// Producer handle of the crossbeam channels.
///     CrossbeamTx(crossbeam_channel::Sender<M>): Sender {
///         #[inline(always)] send(tx, msg) => tx.send(msg).map_err(|e| e.0);
///         #[inline(always)] try_send(tx, msg) => tx.try_send(msg).map_err(Refused::refused);
///     }
/// }
/// ```
///
/// The shipped adapters mark every operation a thread calls per message `#[inline(always)]`: an
/// operation is an expression around the wrapped channel's own call, and the engine's loop should
/// hold that call as a user's loop would, never a call to the shim in between; so are the
/// adapter's own helpers those operations call (the shared-memory receivers' polling loop).
/// Left to the compiler's judgement, an adapter compiled in a crate of its own kept some shims
/// as a call per message (kanal's and ringbuf's receives, `shm-sharded`'s wait), which ran
/// their streams about 10% slower (BENCHMARKS §7).
///
/// Operations: `send`, `try_send`, `send_batch(tx, msgs)`, `recv`, `recv_batch(rx, max, f)` and
/// `recv_runs(rx, max, f)`, each the trait method of that name. For the async roles `send` and
/// `recv` are `async fn`s (the expression may `.await`); `send_ready` is a `send` whose result is
/// ready at once (a `std::future::ready` of the expression) and `recv_future` a `recv` whose
/// expression is itself the future.
#[macro_export]
macro_rules! handles {
    ($(
        $(#[$attr:meta])*
        $name:ident($inner:ty): $role:ident {
            $($(#[$op_attr:meta])* $op:ident($($arg:ident),+) => $body:expr;)+
        }
    )+) => {$(
        $(#[$attr])*
        pub struct $name<M>($inner);

        impl<M: Message> $role<M> for $name<M> {
            $($crate::handles!(@$role $(#[$op_attr])* $op($($arg),+) => $body);)+
        }
    )+};

    // One arm per operation: the trait method's signature, the wrapped end bound to the row's
    // first name, then the row's expression.
    (@Sender $(#[$a:meta])* send($h:ident, $m:ident) => $body:expr) => {
        $(#[$a])* fn send(&mut self, $m: M) -> Result<(), M> { let $h = &mut self.0; $body }
    };
    (@$_:ident $(#[$a:meta])* try_send($h:ident, $m:ident) => $body:expr) => {
        $(#[$a])* fn try_send(&mut self, $m: M) -> Result<(), TrySendError<M>> {
            let $h = &mut self.0;
            $body
        }
    };
    (@Sender $(#[$a:meta])* send_batch($h:ident, $ms:ident) => $body:expr) => {
        $(#[$a])* fn send_batch<I: Iterator<Item = M>>(&mut self, $ms: &mut I) -> Result<(), M> {
            let $h = &mut self.0;
            $body
        }
    };
    (@Receiver $(#[$a:meta])* recv($h:ident) => $body:expr) => {
        $(#[$a])* fn recv(&mut self) -> Option<M> { let $h = &mut self.0; $body }
    };
    (@Receiver $(#[$a:meta])* recv_batch($h:ident, $max:ident, $f:ident) => $body:expr) => {
        $(#[$a])* fn recv_batch<F: FnMut(M)>(&mut self, $max: usize, $f: F) -> usize {
            let $h = &mut self.0;
            $body
        }
    };
    (@Receiver $(#[$a:meta])* recv_runs($h:ident, $max:ident, $f:ident) => $body:expr) => {
        $(#[$a])* fn recv_runs<F: FnMut(&[M])>(&mut self, $max: usize, $f: F) -> usize {
            let $h = &mut self.0;
            $body
        }
    };
    (@AsyncSender $(#[$a:meta])* send($h:ident, $m:ident) => $body:expr) => {
        $(#[$a])* async fn send(&mut self, $m: M) -> Result<(), M> { let $h = &mut self.0; $body }
    };
    (@AsyncSender $(#[$a:meta])* send_ready($h:ident, $m:ident) => $body:expr) => {
        $(#[$a])* fn send(&mut self, $m: M) -> impl std::future::Future<Output = Result<(), M>> + Send {
            let $h = &mut self.0;
            std::future::ready($body)
        }
    };
    (@AsyncReceiver $(#[$a:meta])* recv($h:ident) => $body:expr) => {
        $(#[$a])* async fn recv(&mut self) -> Option<M> { let $h = &mut self.0; $body }
    };
    (@AsyncReceiver $(#[$a:meta])* recv_future($h:ident) => $body:expr) => {
        $(#[$a])* fn recv(&mut self) -> impl std::future::Future<Output = Option<M>> + Send {
            let $h = &mut self.0;
            $body
        }
    };
}

/// Declares `Refused`, a crate's refusal of a non-blocking send (full, or every receiver gone),
/// message included, turned into the harness's [`TrySendError`] by `Refused::refused`, and
/// implements it for crates' `TrySendError`s, one row each: the error type's path and its
/// "full" and "disconnected" variants:
///
/// ```text
/// refused! { flume::TrySendError { Full, Disconnected } }
/// ... tx.try_send(msg).map_err(Refused::refused)
/// ```
///
/// The trait is declared in the adapter crate that invokes the macro (once per crate): the
/// error types are other crates', and a trait of this crate could not be implemented for them
/// there.
#[macro_export]
macro_rules! refused {
    ($($($seg:ident)::+ { $full:ident, $gone:ident })+) => {
        /// A crate's refusal of a non-blocking send (full, or every receiver gone), message
        /// included.
        pub(crate) trait Refused<M> {
            /// The refusal as the harness's `TrySendError`.
            fn refused(self) -> $crate::transport::TrySendError<M>;
        }
        $(
        impl<M> Refused<M> for $($seg)::+<M> {
            #[inline]
            fn refused(self) -> $crate::transport::TrySendError<M> {
                match self {
                    $($seg)::+::$full(m) => $crate::transport::TrySendError::Full(m),
                    $($seg)::+::$gone(m) => $crate::transport::TrySendError::Disconnected(m),
                }
            }
        }
        )+
    };
}

/// Rejects a configuration with more than one producer or consumer, for single-producer,
/// single-consumer transports (the harness checks arity first; this keeps an adapter from
/// silently creating fewer handles than asked for).
pub fn check_spsc(cfg: &ChannelConfig) -> Result<(), BuildError> {
    if cfg.producers == 1 && cfg.consumers == 1 {
        Ok(())
    } else {
        Err(BuildError::Unsupported(format!(
            "single producer and single consumer only (asked for {} and {})",
            cfg.producers, cfg.consumers
        )))
    }
}
