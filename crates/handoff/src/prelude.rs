//! The names a transport adapter needs: `use handoff::prelude::*;`.

pub use crate::catalog::{Catalog, Entry};
pub use crate::message::Message;
pub use crate::semantics::{
    Arity, Bound, ConsumerStyle, Delivery, Locality, Ordering, Semantics, WaitStrategy,
};
pub use crate::transport::{
    BuildError, CallbackHandle, CallbackTransport, ChannelConfig, Endpoints, OptionSpec, Receiver,
    Sender, Sink, Transport, TransportInfo, TrySendError,
};
pub use crate::transport_async::{AsyncReceiver, AsyncSender, AsyncTransport};
