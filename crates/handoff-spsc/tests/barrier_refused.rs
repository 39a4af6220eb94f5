//! A kernel that refuses the `membarrier` registration makes the wake protocol fall back to
//! symmetric fences, without aborting. (One test per file: the state is the process's.)

#![cfg(not(handoff_loom))]

use handoff_spsc::{__barrier as barrier, channel, Wait};
use std::thread;
use std::time::Duration;

#[test]
fn refused_registration_falls_back_to_symmetric_fences() {
    barrier::refuse_registration();
    let (mut tx, mut rx) = channel::<u32>(2, Wait::Block).unwrap();
    let producer = thread::spawn(move || {
        for i in 0..1000 {
            if i % 250 == 0 {
                // Let the consumer fall asleep now and then.
                thread::sleep(Duration::from_millis(50));
            }
            tx.push(i).unwrap();
        }
    });
    let mut next = 0;
    while let Some(i) = rx.pop() {
        assert_eq!(i, next);
        next += 1;
    }
    assert_eq!(next, 1000);
    producer.join().unwrap();
    // The kernel said no to the query: nobody tries to register.
    assert_eq!(barrier::registrations(), 0);
    assert_eq!(barrier::state(), "symmetric");
    assert!(!handoff_spsc::Waiter::new().is_asymmetric());
}
