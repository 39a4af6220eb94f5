//! The process's `membarrier` state under every path it can take. That state is the process's
//! and changes once, so each test runs in a process of its own: this test binary started again
//! for that one test (see [`alone`]), never beside the other tests of the binary.

mod common;
#[cfg(target_os = "linux")]
mod degraded;
mod lazy;
mod refused;
mod switch;

use std::process::Command;

/// The variable that tells a test of this module it is the one its process was started for.
const ALONE: &str = "HANDOFF_SPSC_TEST_ALONE";

/// Runs `body` in a process of its own: this test binary again, asked for this module's test
/// `name` only, with `ALONE` naming it. In that process, the same test runs `body` itself.
fn alone(name: &str, body: fn()) {
    if std::env::var(ALONE).as_deref() == Ok(name) {
        body();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let test = format!("barrier::{name}");
    let out = Command::new(exe)
        .args([test.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, name)
        .output()
        .expect("the test binary starts again");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{test} failed in its own process ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // The process ran this test, not none (a filter that matched nothing also succeeds).
    assert!(
        stdout.contains("1 passed"),
        "{test} did not run in its own process:\n{stdout}\n{stderr}"
    );
}

#[test]
fn registration_waits_for_the_first_sleep() {
    alone(
        "registration_waits_for_the_first_sleep",
        lazy::registration_waits_for_the_first_sleep,
    );
}

#[test]
fn refused_registration_falls_back_to_symmetric_fences() {
    alone(
        "refused_registration_falls_back_to_symmetric_fences",
        refused::refused_registration_falls_back_to_symmetric_fences,
    );
}

#[cfg(target_os = "linux")]
#[test]
fn refused_registration_after_a_yes_degrades_without_losing_messages() {
    alone(
        "refused_registration_after_a_yes_degrades_without_losing_messages",
        degraded::refused_registration_after_a_yes_degrades_without_losing_messages,
    );
}

#[test]
fn wake_ups_survive_the_switch_to_asymmetric_fences() {
    alone(
        "wake_ups_survive_the_switch_to_asymmetric_fences",
        switch::wake_ups_survive_the_switch_to_asymmetric_fences,
    );
}
