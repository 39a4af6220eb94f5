//! A kernel that offers expedited barriers but refuses to register the process: wakers may
//! already be using the free barrier, so sleepers must not block for them. The process moves to
//! the degraded state, where a `Wait::Block` ring keeps working by yielding instead of sleeping.
//! (It runs in a process of its own: the state is the process's.)

use super::common;

use handoff_spsc::__barrier as barrier;

pub fn refused_registration_after_a_yes_degrades_without_losing_messages() {
    barrier::refuse_registration_after_query();
    common::stream_with_sleeps();
    match barrier::state() {
        // The kernel offered the barriers, then refused the registration.
        "degraded" => assert_eq!(barrier::registrations(), 1),
        // A kernel without expedited barriers never gets that far.
        "symmetric" => assert_eq!(barrier::registrations(), 0),
        other => panic!("state {other}"),
    }
    assert!(!handoff_spsc::Waiter::new().is_asymmetric());
}
