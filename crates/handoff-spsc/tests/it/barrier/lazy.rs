//! Rings that never sleep leave the process alone: no `membarrier` registration until a waiter
//! first sleeps. (It runs in a process of its own: the state is the process's.)

use handoff_spsc::{__barrier as barrier, channel, Wait};
use std::thread;
use std::time::Duration;

pub fn registration_waits_for_the_first_sleep() {
    // Spinning rings, and a blocking one whose sides never have to wait.
    for wait in [Wait::Spin, Wait::SpinThenYield, Wait::Block] {
        let (mut tx, mut rx) = channel::<u32>(4, wait).unwrap();
        tx.push(1).unwrap();
        assert_eq!(rx.pop(), Some(1));
    }
    // The blocking ring's notifies asked the kernel whether it could (no side effect), so its
    // wakers use the free barrier; nobody registered.
    assert!(
        matches!(barrier::state(), "available" | "symmetric"),
        "{}",
        barrier::state()
    );
    assert_eq!(barrier::registrations(), 0);

    // A consumer that waits long enough goes to sleep, which registers the process (or finds
    // that it cannot, and falls back to symmetric fences).
    let (mut tx, mut rx) = channel::<u32>(4, Wait::Block).unwrap();
    let producer = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        tx.push(7).unwrap();
    });
    assert_eq!(rx.pop(), Some(7));
    producer.join().unwrap();
    let expected = if barrier::state() == "symmetric" {
        0
    } else {
        1
    };
    assert_eq!(barrier::registrations(), expected);
    assert!(matches!(barrier::state(), "asymmetric" | "symmetric"));
}
