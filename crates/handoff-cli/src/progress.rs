//! Progress on standard error: a bar on a terminal, lines otherwise, nothing with `--quiet`.
//!
//! The timed samples of a run are interleaved: round 1 takes one sample of every trial, round 2
//! the next … so every trial finishes in the last round, and a count of finished trials stands
//! still for the whole run. What moves is the round: on a terminal the bar counts timed samples
//! and its message says the round and the time left at the pace so far (see [`crate::eta`]);
//! elsewhere (a CI log) a line follows each round of a run of several trials, with the time
//! elapsed and left. Either way a line names each trial as it finishes, numbered by trials
//! finished, and each trial that stops early says why.

use crate::eta::{self, Pace};
use handoff::outcome::SampleStatus;
use handoff::session::Event;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// Where progress lines go when there is no bar.
type Lines = Box<dyn FnMut(&str)>;

/// Tracks and shows progress.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: Option<Lines>,
    samples_per_trial: Vec<usize>,
    timed_done: Vec<usize>,
    finished: usize,
    started: Instant,
    pace: Pace,
    /// The last round finished, and the rounds in all.
    round: Option<(usize, usize)>,
}

impl Progress {
    /// A progress display for trials taking `samples_per_trial` timed samples each: a bar if
    /// standard error is a terminal, lines on it otherwise, nothing if `quiet`.
    pub fn new(quiet: bool, samples_per_trial: Vec<usize>) -> Progress {
        let total = samples_per_trial.iter().sum::<usize>();
        let tty = std::io::stderr().is_terminal();
        let mut p = Progress::with_lines(
            samples_per_trial,
            (!quiet && !tty).then(|| Box::new(|l: &str| eprintln!("{l}")) as Lines),
        );
        p.bar = (!quiet && tty).then(|| {
            let b = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
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
    pub fn with_lines(samples_per_trial: Vec<usize>, lines: Option<Lines>) -> Progress {
        let n = samples_per_trial.len();
        let mut pace = Pace::default();
        pace.plan(samples_per_trial.iter().sum());
        Progress {
            bar: None,
            lines,
            samples_per_trial,
            timed_done: vec![0; n],
            finished: 0,
            started: Instant::now(),
            pace,
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
            Event::Planned { timed_samples } => self.pace.plan(timed_samples),
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
                        "preparing {}/{}: {label}",
                        trial + 1,
                        self.samples_per_trial.len()
                    ));
                }
            }
            // Results are recorded by the run's journal, not shown here.
            Event::TrialDone { .. } => {}
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
        if self.bar.is_none() && self.samples_per_trial.len() > 1 {
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
        let planned = self.samples_per_trial.get(trial).copied().unwrap_or(0);
        let Some(done) = self.timed_done.get_mut(trial) else {
            return;
        };
        if timed {
            *done += 1;
            self.pace.sample(Instant::now());
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
                msg.push_str(label);
                b.set_message(msg.trim_start_matches(" · ").to_string());
            }
        }
        let stopped = !status.is_pass();
        let complete = timed && self.timed_done[trial] == planned;
        if !(stopped || complete) {
            return;
        }
        if stopped {
            // The trial stops here; its remaining samples will not run.
            let left = planned.saturating_sub(self.timed_done[trial]);
            if let Some(b) = &self.bar {
                b.inc(left as u64);
            }
            self.pace.skip(left);
            self.timed_done[trial] = planned;
        }
        self.finished += 1;
        let status = match status {
            SampleStatus::Pass => "pass".to_string(),
            SampleStatus::Fail(v) => format!("FAIL: {v}"),
            SampleStatus::Hung(s) => format!("HUNG: {s}"),
            SampleStatus::Crashed(s) => format!("CRASHED: {s}"),
            SampleStatus::Unsupported(s) => format!("unsupported: {s}"),
            SampleStatus::Invalid(s) => format!("invalid: {s}"),
        };
        if self.lines.is_some() {
            let line = format!(
                "[{}/{}] {label}: {status}",
                self.finished,
                self.samples_per_trial.len()
            );
            self.say(&line);
        } else if stopped {
            self.say(&format!("{label}: {status}"));
        }
    }

    fn say(&mut self, msg: &str) {
        if let Some(b) = &self.bar {
            b.println(msg);
        } else if let Some(lines) = &mut self.lines {
            lines(msg);
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
    use std::sync::{Arc, Mutex};

    fn outcome(status: SampleStatus) -> SampleOutcome {
        SampleOutcome::status_only(status, Placement::default())
    }

    /// Three trials of two timed samples, interleaved; the second fails in round 2.
    #[test]
    fn an_interleaved_run_says_each_round_and_numbers_trials_as_they_finish() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let mut p = Progress::with_lines(
            vec![2, 2, 2],
            Some(Box::new(move |l: &str| sink.lock().unwrap().push(l.into()))),
        );
        let pass = outcome(SampleStatus::Pass);
        let fail = outcome(SampleStatus::Fail(Violation {
            kind: ViolationKind::Missing,
            producer: 0,
            expected: 3,
            got: 1,
            consumer: None,
        }));
        p.on(Event::Planned { timed_samples: 6 });
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
        let mut p = Progress::with_lines(
            vec![5],
            Some(Box::new(move |l: &str| sink.lock().unwrap().push(l.into()))),
        );
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
        assert_eq!(p.timed_done, [5]);
    }

    #[test]
    fn quiet_says_nothing() {
        let mut p = Progress::with_lines(vec![1], None);
        p.on(Event::RoundDone {
            round: 1,
            rounds: 1,
            group: (1, 1),
        });
        p.finish();
    }
}
