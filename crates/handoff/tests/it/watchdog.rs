//! The watchdog judges progress, not speed: a slow transport that keeps delivering runs past the
//! watchdog interval and passes, in process and through the worker protocol; a stuck one is
//! `hung` within the interval and a margin; a child process that reports no progress is killed.
//!
//! Time bounds here are loose on purpose (an interval plus seconds of margin): they check that
//! a hang is caught about when it should be, not how fast this machine is.

use handoff::executor::{
    run_sample, Child, Executor, Heartbeat, SampleRequest, WorkerCommand, GRACE,
};
use handoff::outcome::{SampleOutcome, SampleStatus};
use handoff::payload::PayloadKind;
use handoff::placement::Placement;
use handoff::workload::{Messages, Pacing, TrialSpec, WorkloadKind};
use handoff_testing as testing;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The watchdog interval of these tests.
const WATCHDOG: Duration = Duration::from_secs(1);

fn spec(transport: &str, workload: WorkloadKind) -> TrialSpec {
    TrialSpec {
        transport: transport.into(),
        workload,
        driver: Default::default(),
        payload: PayloadKind::U64,
        capacity: 64,
        producers: 1,
        consumers: 1,
        messages: Messages::Fixed(2_000),
        batch: None,
        options: BTreeMap::new(),
        samples: 1,
        warmup: 0,
        timeout_ms: WATCHDOG.as_millis() as u64,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Default::default(),
        pacer: Default::default(),
        pipeline: None,
        layout: None,
    }
}

/// Runs one sample in process and returns it with how long it took.
fn timed(spec: &TrialSpec, messages: u64) -> (SampleOutcome, Duration) {
    let c = testing::catalog();
    let start = Instant::now();
    let o = run_sample(&c, spec, SampleRequest::of(messages));
    (o, start.elapsed())
}

#[test]
fn a_slow_stream_outlasts_the_interval_and_passes() {
    // About a millisecond per message: some 2.5 s in all, a delivery every millisecond.
    let (o, took) = timed(&spec("faulty-slow", WorkloadKind::Spsc), 2_500);
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 2_500);
    assert!(took > WATCHDOG, "{took:?}");
}

#[test]
fn a_slow_ping_pong_outlasts_the_interval_and_passes() {
    // Both directions pause: about 2 ms per round trip.
    let (o, took) = timed(&spec("faulty-slow", WorkloadKind::PingPong), 1_200);
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 1_200);
    assert!(took > WATCHDOG, "{took:?}");
}

#[test]
fn a_slowly_paced_run_outlasts_the_interval_and_passes() {
    // 100 messages per second for 2.5 s: the sink publishes by time, not only every so many.
    let mut s = spec("crossbeam-bounded", WorkloadKind::Paced);
    s.pacing = Pacing::Rate(100);
    let (o, took) = timed(&s, 250);
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 250);
    assert!(took > WATCHDOG, "{took:?}");
}

#[test]
fn a_stuck_stream_is_hung_after_about_one_interval() {
    let (o, took) = timed(&spec("faulty-hang", WorkloadKind::Spsc), 5_000);
    match &o.status {
        SampleStatus::Hung(why) => {
            assert!(why.starts_with("no message delivered for "), "{why}");
            assert!(why.contains(" of 5000 messages delivered"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert!(took >= WATCHDOG, "{took:?}");
    assert!(took < WATCHDOG + Duration::from_secs(5), "{took:?}");
}

/// Serves the worker protocol in process for one sample; returns the lines written.
fn serve(spec: &TrialSpec, messages: u64) -> Vec<String> {
    let input = format!(
        "{}\n{{\"messages\":{messages}}}\n",
        serde_json::to_string(spec).unwrap()
    );
    let mut out = Vec::new();
    handoff::worker::serve(&testing::catalog(), input.as_bytes(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_worker_beats_while_a_sample_runs_then_answers() {
    // About 1.5 s: two heartbeats or more, half a second apart.
    let lines = serve(&spec("faulty-slow", WorkloadKind::Spsc), 1_500);
    let (last, beats) = lines.split_last().expect("an answer");
    let outcome: SampleOutcome = serde_json::from_str(last).unwrap();
    assert_eq!(outcome.status, SampleStatus::Pass);
    assert_eq!(outcome.messages, 1_500);
    let counts: Vec<u64> = beats
        .iter()
        .map(|l| serde_json::from_str::<Heartbeat>(l).unwrap().progress)
        .collect();
    assert!(counts.len() >= 2, "{lines:?}");
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert!(*counts.last().unwrap() > 0, "{counts:?}");
    assert!(*counts.last().unwrap() <= 1_500, "{counts:?}");
    // An answer is never read as a heartbeat.
    assert!(serde_json::from_str::<Heartbeat>(last).is_err());
}

/// A child process running `script` under `sh` as the worker (it reads the protocol's lines
/// itself, or not at all).
#[cfg(unix)]
fn shell_worker(script: &str, arg: &str) -> Child {
    let cmd = WorkerCommand {
        program: "sh".into(),
        args: vec!["-c".into(), script.into(), "sh".into(), arg.into()],
    };
    Child::start(
        &cmd,
        spec("faulty-slow", WorkloadKind::Spsc),
        Default::default(),
    )
}

#[cfg(unix)]
#[test]
fn a_child_that_says_nothing_is_killed_after_the_interval_and_the_grace() {
    let mut child = shell_worker("exec sleep 60", "");
    let start = Instant::now();
    let o = child.sample(1_000);
    let took = start.elapsed();
    match &o.status {
        SampleStatus::Hung(why) => {
            assert!(why.contains("reported no progress"), "{why}");
            assert!(why.contains("about 0 of 1000 messages delivered"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert!(took >= WATCHDOG + GRACE, "{took:?}");
    assert!(took < WATCHDOG + GRACE + Duration::from_secs(5), "{took:?}");
}

#[cfg(unix)]
#[test]
fn a_child_whose_heartbeats_do_not_move_is_killed_too() {
    let script = r#"read spec; read req; while :; do echo '{"progress":7}'; sleep 0.2; done"#;
    let mut child = shell_worker(script, "");
    let start = Instant::now();
    let o = child.sample(1_000);
    let took = start.elapsed();
    match &o.status {
        SampleStatus::Hung(why) => {
            assert!(why.contains("about 7 of 1000 messages delivered"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    assert!(took < WATCHDOG + GRACE + Duration::from_secs(5), "{took:?}");
}

#[cfg(unix)]
#[test]
fn a_child_that_keeps_moving_is_waited_for_past_the_interval_and_the_grace() {
    // Progress every 0.25 s for about 7.5 s (longer than the 1 s interval plus the 5 s grace),
    // then the answer.
    let answer = serde_json::to_string(&SampleOutcome::status_only(
        SampleStatus::Pass,
        Placement::default(),
    ))
    .unwrap();
    let script = r#"read spec; read req; i=1
        while [ $i -le 30 ]; do echo "{\"progress\":$i}"; sleep 0.25; i=$((i+1)); done
        echo "$1"; exec sleep 60"#;
    let mut child = shell_worker(script, &answer);
    let start = Instant::now();
    let o = child.sample(1_000);
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert!(start.elapsed() > WATCHDOG + GRACE);
    child.close();
}
