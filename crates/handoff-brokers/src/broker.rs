//! Where a broker listens, and whether it answers.

use handoff::transport::BuildError;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A broker the project's `scripts/brokers` starts: its name, the port it listens on by default,
/// and the variable that moves it (read by that script and by the transport alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broker {
    /// The broker's name in `scripts/brokers`.
    pub name: &'static str,
    /// Its port on 127.0.0.1 unless `port_variable` says otherwise.
    pub default_port: u16,
    /// The environment variable that moves it.
    pub port_variable: &'static str,
}

/// Redis.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub const REDIS: Broker = Broker {
    name: "redis",
    default_port: 16379,
    port_variable: "HANDOFF_REDIS_PORT",
};

/// NATS (with JetStream).
#[cfg_attr(not(feature = "nats"), allow(dead_code))]
pub const NATS: Broker = Broker {
    name: "nats",
    default_port: 14222,
    port_variable: "HANDOFF_NATS_PORT",
};

/// Kafka (one KRaft node).
#[cfg_attr(not(feature = "kafka"), allow(dead_code))]
pub const KAFKA: Broker = Broker {
    name: "kafka",
    default_port: 19092,
    port_variable: "HANDOFF_KAFKA_PORT",
};

/// How long a check that the broker answers may take.
const ANSWER: Duration = Duration::from_secs(2);

impl Broker {
    /// The port it listens on: `port_variable`'s value if that is a port, else the default.
    pub fn port(&self) -> u16 {
        std::env::var(self.port_variable)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&p| p != 0)
            .unwrap_or(self.default_port)
    }

    /// Its address: 127.0.0.1 and [`Broker::port`].
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port()))
    }

    /// Why a trial cannot run when the broker does not answer.
    pub fn absent(&self) -> BuildError {
        BuildError::Unsupported(format!(
            "no broker at {} (scripts/brokers start {})",
            self.addr(),
            self.name
        ))
    }

    /// `Ok` if something accepts connections at [`Broker::addr`], else [`Broker::absent`].
    pub fn answers(&self) -> Result<(), BuildError> {
        TcpStream::connect_timeout(&self.addr(), ANSWER)
            .map(drop)
            .map_err(|_| self.absent())
    }

    /// A failure of the broker while a channel is being made (refused as unsupported, naming
    /// the broker and what failed).
    pub fn refused(&self, what: &str, e: impl std::fmt::Display) -> BuildError {
        BuildError::Unsupported(format!("{} at {}: {what}: {e}", self.name, self.addr()))
    }
}
