//! Test-only transports that deliver every message correctly but misbehave towards the process
//! they run in, for proving that the run around the trials survives them:
//!
//! * `faulty-prints` prints on standard output (and standard error) while it runs: it must
//!   pass, with what it printed kept and a `printed` lint;
//! * `faulty-leaks` keeps 1 MiB of touched memory every 1000 messages it delivers: it must
//!   pass, with a `memory-growth` lint;
//! * `faulty-stuck-build` never returns from creating its channel, after starting a `sleep`
//!   process of its own: when the parent is killed, neither may outlive it.
//!
//! Each is a std channel with the producer side and the semantics of [`super::paused`] (many
//! producers, one consumer, FIFO per producer, unbounded).

use super::paused::{self, PausedTx};
use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, Receiver, Transport, TransportInfo,
};
use std::sync::mpsc;

/// Messages between two prints of `faulty-prints`, and between two leaks of `faulty-leaks`.
pub const EVERY: u64 = 1000;

/// Bytes `faulty-leaks` keeps every [`EVERY`] messages.
pub const LEAK: usize = 1 << 20;

/// What the transport does to its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misdeed {
    /// Prints on both standard streams.
    Prints,
    /// Leaks memory.
    Leaks,
    /// Never returns from `channel()`, after starting a process of its own.
    StuckBuild,
}

impl Misdeed {
    /// Every misdeed.
    pub const ALL: [Misdeed; 3] = [Misdeed::Prints, Misdeed::Leaks, Misdeed::StuckBuild];

    /// The transport name.
    pub fn name(self) -> &'static str {
        match self {
            Misdeed::Prints => "faulty-prints",
            Misdeed::Leaks => "faulty-leaks",
            Misdeed::StuckBuild => "faulty-stuck-build",
        }
    }
}

/// A std channel whose consumer misbehaves towards its process (see the module docs).
pub struct Misbehaving(pub Misdeed);

/// Consumer side: a std receiver that misbehaves every [`EVERY`] messages.
pub struct MisbehavingRx<M> {
    rx: mpsc::Receiver<M>,
    misdeed: Misdeed,
    received: u64,
}

impl<M: Message> Receiver<M> for MisbehavingRx<M> {
    fn recv(&mut self) -> Option<M> {
        let m = self.rx.recv().ok()?;
        self.received += 1;
        if self.received % EVERY == 0 {
            match self.misdeed {
                Misdeed::Prints => {
                    println!("faulty-prints: received {} messages", self.received);
                    eprintln!("faulty-prints: and this on standard error");
                }
                Misdeed::Leaks => {
                    // Touched, so that it is resident, and never freed.
                    let kept: &'static mut [u8] = Box::leak(vec![1u8; LEAK].into_boxed_slice());
                    std::hint::black_box(kept);
                }
                Misdeed::StuckBuild => {}
            }
        }
        Some(m)
    }
}

impl Transport for Misbehaving {
    type Tx<M: Message> = PausedTx<M>;
    type Rx<M: Message> = MisbehavingRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: self.0.name().into(),
            description: format!(
                "test-only: std channel whose consumer misbehaves towards its process ({:?})",
                self.0
            ),
            semantics: paused::SEMANTICS,
            options: vec![],
            test_only: true,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<PausedTx<M>, MisbehavingRx<M>>, BuildError> {
        match self.0 {
            Misdeed::StuckBuild => {
                // A process of its own, which must die with the worker's group.
                let _sleeper = std::process::Command::new("sleep").arg("600").spawn();
                loop {
                    std::thread::park();
                }
            }
            Misdeed::Prints => println!("faulty-prints: channel built"),
            Misdeed::Leaks => {}
        }
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| PausedTx(tx.clone())).collect(),
            receivers: vec![MisbehavingRx {
                rx,
                misdeed: self.0,
                received: 0,
            }],
        })
    }
}

/// Registers every transport of this module.
pub fn register_all(c: &mut Catalog) {
    for m in Misdeed::ALL {
        c.register(Entry::pull(Misbehaving(m)));
    }
}
