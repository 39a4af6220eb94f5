//! Progress on standard error: a bar on a terminal, lines otherwise, nothing with `--quiet`.
//!
//! The timed samples of a run are interleaved: round 1 takes one sample of every trial, round 2
//! the next … so every trial finishes in the last round, and a count of finished trials stands
//! still for the whole run. What moves is the round: on a terminal the bar counts timed samples
//! and its message says the round and the time left by the schedule and the pace so far (see
//! [`crate::eta`]); elsewhere (a CI log) a line follows each round of a run of several trials,
//! with the time elapsed and left. Either way a line names each trial as it finishes (a ramp
//! when its search ends), numbered by trials finished, and each trial that stops early says
//! why. What the session plans (trials, their samples and schedules) comes with its
//! [`Event::Planned`].
//!
//! Labels name transports and option values a plugin or a suite chose, and a stopped trial's
//! status quotes what its worker printed: every line and bar message is escaped for the
//! terminal ([`escaped`]) as it is shown.

use crate::eta::{self, Pace};
use handoff::model::foreign::escaped;
use handoff::outcome::SampleStatus;
use handoff::session::Event;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Instant;

/// Where progress lines go when there is no bar.
type Lines = Box<dyn FnMut(&str)>;

/// Tracks and shows progress.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: Option<Lines>,
    finished: usize,
    /// Ramps searching, by trial index, with their labels: each is finished when its search
    /// ends, unless it stopped before.
    ramps: BTreeMap<usize, String>,
    started: Instant,
    pace: Pace,
    /// The last round finished, and the rounds in all.
    round: Option<(usize, usize)>,
}

impl Progress {
    /// A progress display: a bar if standard error is a terminal, lines on it otherwise,
    /// nothing if `quiet`.
    pub fn new(quiet: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        let mut p = Progress::with_lines(
            (!quiet && !tty).then(|| Box::new(|l: &str| eprintln!("{l}")) as Lines),
        );
        p.bar = (!quiet && tty).then(|| {
            let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} samples  {msg}",
                )
                .expect("valid template"),
            );
            b
        });
        p
    }

    /// A progress display without a bar that hands each line to `lines` (none: silent).
    pub fn with_lines(lines: Option<Lines>) -> Progress {
        Progress {
            bar: None,
            lines,
            finished: 0,
            ramps: BTreeMap::new(),
            started: Instant::now(),
            pace: Pace::default(),
            round: None,
        }
    }

    /// Handles one session event.
    pub fn on(&mut self, ev: Event) {
        match ev {
            Event::ProbesStarted => {
                self.say("measuring limits (cache-line round trip, streaming bandwidth)")
            }
            Event::ProbesDone(l) => self.say(&format!(
                "limits: cache-line round trip {:.0} ns ({}), streaming {:.1} GB/s",
                l.rtt_ns(),
                match (l.rtt_stamped_ns(), l.clock_step_ns) {
                    (Some(p50), Some(step)) => {
                        format!("stamped per trip {p50:.0} ns, timer step {step:.1} ns")
                    }
                    (Some(p50), None) => format!("stamped per trip {p50:.0} ns"),
                    _ => "bulk-timed".to_string(),
                },
                l.stream_bytes() / 1e9
            )),
            Event::Reprobed(l) => self.say(&format!(
                "limits probed again: cache-line round trip {:.0} ns, streaming {:.1} GB/s",
                l.rtt_ns(),
                l.stream_bytes() / 1e9
            )),
            Event::Planned {
                timed_samples,
                trials,
            } => {
                self.pace.plan(trials);
                if let Some(b) = &self.bar {
                    b.set_length(timed_samples as u64);
                }
            }
            Event::CountFixed {
                stream,
                messages,
                trials,
            } => self.say(&format!(
                "consensus: {stream}: {trials} trials run {messages} messages per sample"
            )),
            Event::Preparing { trial, label } => {
                if let Some(b) = &self.bar {
                    b.set_message(format!(
                        "preparing {}/{}: {}",
                        trial + 1,
                        self.pace.trials(),
                        escaped(label)
                    ));
                }
            }
            // Results are recorded by the run's journal, not shown here; a ramp's search has
            // ended (its step count was an estimate until now).
            Event::TrialDone { trial, .. } => {
                if let Some(label) = self.ramps.remove(&trial) {
                    self.finished_line(&label, "pass");
                }
            }
            Event::RoundDone {
                round,
                rounds,
                group,
            } => self.round_done(round, rounds, group),
            Event::Sample {
                trial,
                label,
                timed,
                outcome,
            } => self.sample(trial, label, timed, &outcome.status),
        }
    }

    /// A round finished: said on its own line in a run of several trials without a bar.
    /// In a run of several groups of trials (see `handoff::session::live_worker_limit`), the
    /// group is said first: `group 2/7 · round 3/5 done · …`.
    fn round_done(&mut self, round: usize, rounds: usize, group: (usize, usize)) {
        self.round = Some((round, rounds));
        if self.bar.is_none() && self.pace.trials() > 1 {
            let now = Instant::now();
            let group = match group {
                (_, 1) => String::new(),
                (g, groups) => format!("group {g}/{groups} · "),
            };
            let line = format!(
                "{group}round {round}/{rounds} done · {} elapsed{}",
                eta::clock(now.saturating_duration_since(self.started)),
                self.left(now)
            );
            self.say(&line);
        }
    }

    /// ` · about 1:22 left`, once the pace is known.
    fn left(&self, now: Instant) -> String {
        self.pace
            .left(now)
            .map_or_else(String::new, |d| format!(" · about {} left", eta::clock(d)))
    }

    fn sample(&mut self, trial: usize, label: &str, timed: bool, status: &SampleStatus) {
        let Some(plan) = self.pace.trial(trial).copied() else {
            return;
        };
        if timed {
            self.pace.sample(trial, Instant::now());
            if plan.ramp {
                self.ramps.entry(trial).or_insert_with(|| label.to_string());
            }
            if let Some(b) = &self.bar {
                b.inc(1);
                // `round 3/5 · about 1:22 left · rtrb spsc u64 cap=1024`
                let mut msg = match self.round {
                    Some((r, rounds)) if r < rounds => format!("round {}/{rounds}", r + 1),
                    _ => String::new(),
                };
                msg.push_str(&self.left(Instant::now()));
                if !msg.is_empty() {
                    msg.push_str(" · ");
                }
                msg.push_str(&escaped(label));
                b.set_message(msg.trim_start_matches(" · ").to_string());
            }
        } else {
            self.pace.untimed(trial);
        }
        let stopped = !status.is_pass();
        // A ramp is finished when its search ends (see `TrialDone`), not at a count.
        let complete = timed && !plan.ramp && self.pace.done_of(trial) == plan.samples;
        if !(stopped || complete) {
            return;
        }
        if stopped {
            // The trial stops here; its remaining samples will not run.
            let left = plan.samples.saturating_sub(self.pace.done_of(trial));
            if let Some(b) = &self.bar {
                b.inc(left as u64);
            }
            self.pace.stop(trial);
            self.ramps.remove(&trial);
        }
        let status = match status {
            SampleStatus::Pass => "pass".to_string(),
            SampleStatus::Fail(v) => format!("FAIL: {v}"),
            SampleStatus::Hung(s) => format!("HUNG: {s}"),
            SampleStatus::Crashed(s) => format!("CRASHED: {s}"),
            SampleStatus::Unsupported(s) => format!("unsupported: {s}"),
            SampleStatus::Invalid(s) => format!("invalid: {s}"),
        };
        if self.lines.is_some() {
            self.finished_line(label, &status);
        } else {
            // A bar shows only the stops.
            self.finished += 1;
            if stopped {
                self.say(&format!("{label}: {status}"));
            }
        }
    }

    /// `[2/7] rtrb spsc u64 cap=1024: pass`, on lines (a bar shows only the stops).
    fn finished_line(&mut self, label: &str, status: &str) {
        self.finished += 1;
        if self.lines.is_some() {
            let line = format!(
                "[{}/{}] {label}: {status}",
                self.finished,
                self.pace.trials()
            );
            self.say(&line);
        }
    }

    /// Shows one line, escaped for the terminal.
    fn say(&mut self, msg: &str) {
        let msg = escaped(msg);
        if let Some(b) = &self.bar {
            b.println(msg);
        } else if let Some(lines) = &mut self.lines {
            lines(&msg);
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar hidden, so neither mars the other.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::outcome::{SampleOutcome, Violation, ViolationKind};
    use handoff::placement::Placement;
    use handoff::session::TrialPlan;
    use std::sync::{Arc, Mutex};

    fn closed(samples: usize) -> TrialPlan {
        TrialPlan {
            samples,
            ..TrialPlan::default()
        }
    }

    fn outcome(status: SampleStatus) -> SampleOutcome {
        SampleOutcome::status_only(status, Placement::default())
    }

    /// Three trials of two timed samples, interleaved; the second fails in round 2.
    #[test]
    fn an_interleaved_run_says_each_round_and_numbers_trials_as_they_finish() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let mut p = Progress::with_lines(Some(Box::new(move |l: &str| {
            sink.lock().unwrap().push(l.into())
        })));
        let pass = outcome(SampleStatus::Pass);
        let fail = outcome(SampleStatus::Fail(Violation {
            kind: ViolationKind::Missing,
            producer: 0,
            expected: 3,
            got: 1,
            consumer: None,
        }));
        p.on(Event::Planned {
            timed_samples: 6,
            trials: &[closed(2); 3],
        });
        for (i, label) in ["a", "b", "c"].iter().enumerate() {
            p.on(Event::Preparing { trial: i, label });
            // A warm-up sample: not timed, not counted.
            p.on(Event::Sample {
                trial: i,
                label,
                timed: false,
                outcome: &pass,
            });
        }
        for round in 1..=2 {
            for (i, label) in ["a", "b", "c"].iter().enumerate() {
                let o = if round == 2 && i == 1 { &fail } else { &pass };
                p.on(Event::Sample {
                    trial: i,
                    label,
                    timed: true,
                    outcome: o,
                });
            }
            p.on(Event::RoundDone {
                round,
                rounds: 2,
                group: (1, 1),
            });
        }
        let lines = seen.lock().unwrap().clone();
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(
            lines[0].starts_with("round 1/2 done · 0:00 elapsed"),
            "{lines:?}"
        );
        // After one round the pace is known: time left is said.
        assert!(lines[0].contains("left"), "{lines:?}");
        assert_eq!(lines[1], "[1/3] a: pass");
        assert_eq!(
            lines[2],
            "[2/3] b: FAIL: producer 0: stream ended without seq 3 (1 of its messages missing)"
        );
        assert_eq!(lines[3], "[3/3] c: pass");
        assert!(lines[4].starts_with("round 2/2 done"), "{lines:?}");
        assert_eq!(p.pace.done(), 6);
    }

    #[test]
    fn a_single_trial_has_no_round_lines_and_a_trial_that_stops_early_is_finished() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let mut p = Progress::with_lines(Some(Box::new(move |l: &str| {
            sink.lock().unwrap().push(l.into())
        })));
        p.on(Event::Planned {
            timed_samples: 5,
            trials: &[closed(5)],
        });
        let hung = outcome(SampleStatus::Hung("no end after 10 ms".into()));
        p.on(Event::Sample {
            trial: 0,
            label: "x",
            timed: false,
            outcome: &hung,
        });
        p.on(Event::RoundDone {
            round: 1,
            rounds: 5,
            group: (1, 1),
        });
        assert_eq!(*seen.lock().unwrap(), ["[1/1] x: HUNG: no end after 10 ms"]);
        assert_eq!(p.pace.done(), 0);
        assert_eq!(p.pace.left(Instant::now()), None);
    }

    /// A ramp's steps are an estimate until its search ends: it is finished then, not when
    /// the count of its steps reaches the estimate.
    #[test]
    fn a_ramp_is_finished_when_its_search_ends() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let mut p = Progress::with_lines(Some(Box::new(move |l: &str| {
            sink.lock().unwrap().push(l.into())
        })));
        let ramp = TrialPlan {
            samples: 2,
            scheduled: Some(std::time::Duration::from_millis(200)),
            ramp: true,
            ..TrialPlan::default()
        };
        p.on(Event::Planned {
            timed_samples: 2,
            trials: &[ramp],
        });
        let pass = outcome(SampleStatus::Pass);
        for _ in 0..3 {
            p.on(Event::Sample {
                trial: 0,
                label: "r",
                timed: true,
                outcome: &pass,
            });
        }
        assert!(seen.lock().unwrap().is_empty());
        let result = handoff_model::fixture::stream();
        p.on(Event::TrialDone {
            trial: 0,
            result: &result,
        });
        assert_eq!(*seen.lock().unwrap(), ["[1/1] r: pass"]);
    }

    /// A label from a plugin and a crash report quoting what the worker printed reach the
    /// terminal escaped: no escape sequence, bell or bidirectional override is passed on.
    #[test]
    fn a_crash_report_quoting_foreign_output_is_escaped() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let mut p = Progress::with_lines(Some(Box::new(move |l: &str| {
            sink.lock().unwrap().push(l.into())
        })));
        p.on(Event::Planned {
            timed_samples: 2,
            trials: &[closed(1), closed(1)],
        });
        let crashed = outcome(SampleStatus::Crashed(
            "worker exited with code 101; output: boom\u{1b}[2J\u{1b}]0;pwned\u{7} | \u{202e}txet\r\nforged line".into(),
        ));
        p.on(Event::Sample {
            trial: 0,
            label: "plug\u{9b}31m spsc",
            timed: true,
            outcome: &crashed,
        });
        let hung = outcome(SampleStatus::Hung("quiet\u{1b}[A".into()));
        p.on(Event::Sample {
            trial: 1,
            label: "x",
            timed: true,
            outcome: &hung,
        });
        assert_eq!(
            *seen.lock().unwrap(),
            [
                r"[1/2] plug\u{9b}31m spsc: CRASHED: worker exited with code 101; output: boom\e[2J\e]0;pwned\a | \u{202e}txet\r\nforged line",
                r"[2/2] x: HUNG: quiet\e[A",
            ]
        );
    }

    #[test]
    fn quiet_says_nothing() {
        let mut p = Progress::with_lines(None);
        p.on(Event::RoundDone {
            round: 1,
            rounds: 1,
            group: (1, 1),
        });
        p.finish();
    }
}
