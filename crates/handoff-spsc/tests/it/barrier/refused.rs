//! A kernel that refuses the `membarrier` registration makes the wake protocol fall back to
//! symmetric fences, without aborting. (It runs in a process of its own: the state is the process's.)

use super::common;

use handoff_spsc::__barrier as barrier;

pub fn refused_registration_falls_back_to_symmetric_fences() {
    barrier::refuse_registration();
    common::stream_with_sleeps();
    // The kernel said no to the query: nobody tries to register.
    assert_eq!(barrier::registrations(), 0);
    assert_eq!(barrier::state(), "symmetric");
    assert!(!handoff_spsc::Waiter::new().is_asymmetric());
}
