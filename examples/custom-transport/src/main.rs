//! Measuring a transport of your own with handoff, without changing handoff.
//!
//! `MySpinQueue` stands for the queue of your own crate: here a bounded `Mutex<VecDeque>` whose
//! sides spin instead of sleeping. It implements `handoff::transport::Transport`, is registered
//! next to the built-in catalog, and the stock command line runs it:
//!
//! ```sh
//! cargo run --release -p custom-transport -- \
//!     run --transport my-spin-queue,crossbeam-bounded --workload spsc,mpsc --quick
//! ```
//!
//! Trials run in child processes started from this same executable, so every handoff feature
//! (watchdog, verification, interleaving, all output formats) applies to your transport too.

use handoff::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

/// The queue under test.
struct Shared<M> {
    queue: Mutex<VecDeque<M>>,
    capacity: usize,
    senders: AtomicUsize,
    receiver_alive: std::sync::atomic::AtomicBool,
}

struct MySpinQueue;

struct Tx<M> {
    shared: Arc<Shared<M>>,
    failed: u64,
}

struct Rx<M> {
    shared: Arc<Shared<M>>,
    failed: u64,
}

impl<M: Message> Sender<M> for Tx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        loop {
            if !self.shared.receiver_alive.load(AtomicOrdering::Acquire) {
                return Err(msg);
            }
            {
                let mut q = self.shared.queue.lock().unwrap();
                if q.len() < self.shared.capacity {
                    q.push_back(msg);
                    return Ok(());
                }
            }
            self.failed += 1;
            if self.failed % 64 == 0 {
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M> Drop for Tx<M> {
    fn drop(&mut self) {
        self.shared.senders.fetch_sub(1, AtomicOrdering::AcqRel);
    }
}

impl<M: Message> Receiver<M> for Rx<M> {
    fn recv(&mut self) -> Option<M> {
        loop {
            // Read the sender count before looking at the queue: if it was 0 and the queue is
            // then empty, nothing can arrive any more.
            let senders = self.shared.senders.load(AtomicOrdering::Acquire);
            if let Some(m) = self.shared.queue.lock().unwrap().pop_front() {
                return Some(m);
            }
            if senders == 0 {
                return None;
            }
            self.failed += 1;
            if self.failed % 64 == 0 {
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

impl<M> Drop for Rx<M> {
    fn drop(&mut self) {
        self.shared
            .receiver_alive
            .store(false, AtomicOrdering::Release);
    }
}

impl Transport for MySpinQueue {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "my-spin-queue".into(),
            description: "example: a user's bounded Mutex<VecDeque> with spinning sides".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::One,
                ordering: Ordering::GlobalFifo,
                bound: Bound::Bounded {
                    min_capacity: 1,
                    power_of_two: false,
                },
                wait: WaitStrategy::Spin,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
                delivery: handoff::semantics::Delivery::ExactlyOnce,
            },
            options: vec![],
            test_only: false,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::with_capacity(cfg.capacity)),
            capacity: cfg.capacity,
            senders: AtomicUsize::new(cfg.producers),
            receiver_alive: std::sync::atomic::AtomicBool::new(true),
        });
        Ok(Endpoints {
            senders: (0..cfg.producers)
                .map(|_| Tx {
                    shared: shared.clone(),
                    failed: 0,
                })
                .collect(),
            receivers: vec![Rx { shared, failed: 0 }],
        })
    }
}

fn main() -> std::process::ExitCode {
    let mut catalog = handoff_transports::builtin();
    catalog.register(Entry::pull(MySpinQueue));
    handoff_cli::main_with(catalog)
}
