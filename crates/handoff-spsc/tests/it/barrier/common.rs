//! What the barrier tests share (each test runs in a process of its own: the barrier state is
//! the process's).

use handoff_spsc::{channel, Wait};
use std::thread;
use std::time::Duration;

/// Streams 1000 messages through a `Wait::Block` ring of 2 slots, the producer pausing 50 ms
/// four times so that the consumer falls (or tries to fall) asleep, and checks that every message
/// arrived once, in order.
pub fn stream_with_sleeps() {
    let (mut tx, mut rx) = channel::<u32>(2, Wait::Block).unwrap();
    let producer = thread::spawn(move || {
        for i in 0..1000 {
            if i % 250 == 0 {
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
}
