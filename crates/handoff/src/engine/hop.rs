//! The hops of an open-loop run, as the engine receives them: boxed endpoints of stamped
//! messages, built by whoever knows the transports by name (the catalog) through [`HopSource`].
//!
//! Hops of different transports have different endpoint types, so each hop's endpoints are
//! boxed ([`BoxedHop`]); the open-loop engine is compiled once per payload, not once per
//! transport and payload.
//!
//! The payload is chosen at run time and the transport sits behind a trait object, yet the hop's
//! message type is checked at compile time: a transport's hop builder implements
//! [`BuildHop<M>`] for every payload type `M` (collected in [`HopBuilder`], an object-safe trait
//! whose supertraits name each payload type once), and [`HopPayload`] picks the right one for a
//! payload type. A payload type missing from that list does not compile where the pipeline is
//! instantiated for it (`with_payload!`), rather than failing a trial.

use crate::message::Message;
use crate::open_loop::Stamped;
use crate::payload::{Boxed, Event488, Inline, Report64, Word};
use crate::transport::{
    map_in_order, BuildError, ChannelConfig, Endpoints, Receiver, Sender, TransportInfo,
};

/// A hop's endpoints, boxed.
pub type BoxedHop<M> = Endpoints<Box<dyn Sender<M>>, Box<dyn Receiver<M>>>;

/// Boxes a hop's endpoints.
pub(crate) fn boxed<M: 'static, S: Sender<M>, R: Receiver<M>>(e: Endpoints<S, R>) -> BoxedHop<M> {
    Endpoints {
        senders: map_in_order(e.senders, |s| Box::new(s) as Box<dyn Sender<M>>),
        receivers: map_in_order(e.receivers, |r| Box::new(r) as Box<dyn Receiver<M>>),
    }
}

/// Builds hops of one transport carrying stamped messages of payload `M`.
pub trait BuildHop<M: Message> {
    /// One channel of [`Stamped<M>`] for a hop configured by `cfg`, its endpoints boxed.
    /// Transports that cannot be a hop (callback consumers) refuse.
    fn build_hop(&self, cfg: &ChannelConfig) -> Result<BoxedHop<Stamped<M>>, BuildError>;
}

/// The source of a pipeline's hops: the transports of its hops, by name. The catalog
/// implements it.
pub trait HopSource {
    /// The transport named `name`: its declared info and its hop builder; or an error naming
    /// the closest valid names.
    fn hop_transport(
        &self,
        name: &str,
    ) -> Result<(&TransportInfo, &dyn HopBuilder), crate::suggest::LookupError>;
}

/// A payload type a [`HopBuilder`] builds hops for: every message type of
/// [`with_payload!`](crate::with_payload).
pub trait HopPayload: Message {
    /// Builds one hop of `builder`'s transport carrying stamped messages of this payload.
    fn build_hop(
        builder: &dyn HopBuilder,
        cfg: &ChannelConfig,
    ) -> Result<BoxedHop<Stamped<Self>>, BuildError>;
}

/// Declares [`HopBuilder`] over the payload types, and [`HopPayload`] for each of them.
macro_rules! hop_payloads {
    ($($M:ty),* $(,)?) => {
        /// Builds hops of one transport for every payload type (object safe): one
        /// [`BuildHop`] supertrait per payload type. Implemented by everything that implements
        /// each of them.
        pub trait HopBuilder: $(BuildHop<$M> +)* {}

        impl<T: ?Sized $(+ BuildHop<$M>)*> HopBuilder for T {}

        $(
            impl HopPayload for $M {
                fn build_hop(
                    builder: &dyn HopBuilder,
                    cfg: &ChannelConfig,
                ) -> Result<BoxedHop<Stamped<Self>>, BuildError> {
                    BuildHop::<$M>::build_hop(builder, cfg)
                }
            }
        )*
    };
}

hop_payloads!(
    Word,
    Report64,
    Event488<false>,
    Event488<true>,
    Inline<0>,
    Inline<6>,
    Inline<30>,
    Inline<126>,
    Inline<510>,
    Boxed,
);
