//! The plan builder's rules, over a catalog of real transports and two that declare options.

use super::*;
use crate::payload::PayloadKind;
use crate::semantics::{Semantics, WaitStrategy};
use crate::transport::OptionSpec;
use crate::workload::{Delivery, Driver, Messages, PacerMode, Pacing, WorkloadKind};

/// A std channel declaring two options: `wake` (edge or every) and `spin` (any value).
struct OptQueue(&'static str);

struct Tx<M>(std::sync::mpsc::Sender<M>);
struct Rx<M>(std::sync::mpsc::Receiver<M>);

impl<M: crate::message::Message> crate::transport::Sender<M> for Tx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

impl<M: crate::message::Message> crate::transport::Receiver<M> for Rx<M> {
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

impl crate::transport::Transport for OptQueue {
    type Tx<M: crate::message::Message> = Tx<M>;
    type Rx<M: crate::message::Message> = Rx<M>;

    fn info(&self) -> crate::transport::TransportInfo {
        crate::transport::TransportInfo {
            name: self.0.into(),
            description: "a std channel declaring options".into(),
            semantics: Semantics::mpsc().unbounded().wait(WaitStrategy::Block),
            test_only: true,
            options: vec![
                OptionSpec {
                    name: "wake".into(),
                    values: vec!["edge".into(), "every".into()],
                    help: "when to wake the consumer".into(),
                    waits: vec![],
                },
                OptionSpec {
                    name: "spin".into(),
                    values: vec![],
                    help: "spins before parking".into(),
                    waits: vec![],
                },
            ],
        }
    }

    fn channel<M: crate::message::Message>(
        &self,
        cfg: &crate::transport::ChannelConfig,
    ) -> Result<crate::transport::Endpoints<Tx<M>, Rx<M>>, crate::transport::BuildError> {
        let (tx, rx) = std::sync::mpsc::channel();
        Ok(crate::transport::Endpoints {
            senders: (0..cfg.producers).map(|_| Tx(tx.clone())).collect(),
            receivers: vec![Rx(rx)],
        })
    }
}

fn catalog() -> Catalog {
    let mut c = Catalog::builtin();
    c.register(crate::catalog::Entry::pull(OptQueue("opt-queue")));
    c.register(crate::catalog::Entry::pull(OptQueue("opt-queue-b")));
    c
}

fn parse(text: &str) -> Result<Plan, PlanError> {
    Plan::parse(text, "suites/t.toml", &catalog())
}

fn err(text: &str) -> PlanError {
    match parse(text) {
        Ok(s) => panic!("expected an error, got {} trials", s.trials.len()),
        Err(e) => e,
    }
}

/// Asserts the error is on `line` and its message contains `needle`.
fn assert_err(text: &str, line: usize, needle: &str) -> PlanError {
    let e = err(text);
    assert_eq!(e.line, Some(line), "{e}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
    e
}

#[test]
fn open_loop_keys_expand_and_misplaced_ones_are_errors() {
    let s = parse(
        "[[benchmark]]\nworkload = \"paced\"\ntransports = [\"crossbeam-bounded\"]\nrate = [1000, 50000, \"ramp\"]\npacer = \"yield\"\nproducers = [1, 2]\n",
    )
    .unwrap();
    assert_eq!(s.trials.len(), 6);
    assert_eq!(s.trials[0].pacing, Pacing::Rate(1000));
    assert!(matches!(s.trials[2].pacing, Pacing::Ramp(_)));
    assert_eq!(s.trials[0].pacer, PacerMode::Yield);

    let s = parse("[[benchmark]]\nworkload = \"ramp\"\ntransport = \"crossbeam-bounded\"\nramp = { start = 500, factor = 4, p99_bound_us = 200 }\n").unwrap();
    match &s.trials[0].pacing {
        Pacing::Ramp(r) => {
            assert_eq!((r.start, r.factor, r.p99_bound_ns), (500, 4, Some(200_000)))
        }
        other => panic!("{other:?}"),
    }

    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"crossbeam-bounded\"]\n";
    assert_err(
        &format!("{base}rate = 1000\n"),
        4,
        "`rate` does not apply to workload `spsc`",
    );
    assert_err(
        &format!("{base}hop_capacity = [1, 2]\n"),
        4,
        "applies only to workload `pipeline`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"ramp\"\ntransport = \"rtrb\"\nrate = 1000\n",
        4,
        "searches the rate itself",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"paced\"\ntransport = \"rtrb\"\npacer = \"spinn\"\n",
        4,
        "did you mean `spin`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"paced\"\ntransport = \"rtrb\"\nramp = { start = 10, maxx = 5 }\n",
        4,
        "unknown key `maxx`",
    );
}

#[test]
fn pipelines_expand_per_transport_or_from_hops_and_check_delivery() {
    let s = parse(
        "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"crossbeam-bounded\", \"rtrb\"]\nrate = [1000, \"ramp\"]\nstage_work_ns = 500\n",
    )
    .unwrap();
    assert_eq!(s.trials.len(), 4);
    let p = s.trials[0].pipeline.as_ref().unwrap();
    assert_eq!(p.hops.len(), 3);
    assert_eq!(p.hops[0].capacity, 64);
    assert_eq!(p.stage_work_ns, 500);
    assert_eq!(
        s.trials[1].pipeline.as_ref().unwrap().hops[2].transport,
        "rtrb"
    );

    let s = parse("[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"latest-cell\"]\nhop_capacity = [8, 1]\ndelivery = \"latest\"\n").unwrap();
    assert_eq!(s.trials.len(), 1);
    assert_eq!(
        s.trials[0].pipeline.as_ref().unwrap().delivery,
        Delivery::Latest
    );

    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtrb\"]\nhop_capacity = [8, 1, 4]\n",
        4,
        "has 3 values but `hops` names 2 hops",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\ndelivery = \"latest\"\n",
        4,
        "needs a conflating hop",
    );
    let e = err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"latest-cell\", \"rtrb\"]\n",
    );
    assert!(
        e.line.is_some() && e.message.contains("use delivery = \"latest\""),
        "{e}"
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtrb\", \"rtrb\"]\ntransports = [\"rtrb\"]\n",
        3,
        "either `hops`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\ncapacity = 64\n",
        4,
        "`hop_capacity`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtbr\", \"rtrb\"]\n",
        3,
        "did you mean `rtrb`",
    );
}

#[test]
fn expands_the_cartesian_product_in_file_order() {
    let s = parse(
        r#"
name = "x"
description = "d"
probes = false

[defaults]
samples = 3
capacity = 64
messages = 5000

[[benchmark]]
workloads = ["mpsc", "mpmc"]
transports = ["opt-queue-b", "opt-queue"]
payload = ["u64", "report64"]
producers = [1, 2]
options = { wake = ["edge", "every"], spin = 1 }

[[benchmark]]
workload = "ping-pong"
transport = "opt-queue-b"
capacity = [1, 2, 3]
messages = "auto"
target_ms = 7
batch = ["none", 16]
"#,
    )
    .unwrap();
    assert_eq!(s.name, "x");
    assert_eq!(s.description.as_deref(), Some("d"));
    assert!(!s.probes);
    // mpsc and mpmc: 2 transports x 2 payloads x 2 producers x 2 wake each;
    // ping-pong: 3 capacities x 2 batches.
    assert_eq!(s.trials.len(), 16 + 16 + 6);
    let labels: Vec<String> = s.trials.iter().map(|t| t.label()).collect();
    assert_eq!(
        labels[0],
        "opt-queue-b mpsc u64 cap=64 p=1 spin=1 wake=edge"
    );
    assert_eq!(
        labels[1],
        "opt-queue-b mpsc u64 cap=64 p=1 spin=1 wake=every"
    );
    assert_eq!(
        labels[2],
        "opt-queue-b mpsc u64 cap=64 p=2 spin=1 wake=edge"
    );
    assert_eq!(
        labels[4],
        "opt-queue-b mpsc report64 cap=64 p=1 spin=1 wake=edge"
    );
    assert_eq!(labels[8], "opt-queue mpsc u64 cap=64 p=1 spin=1 wake=edge");
    assert_eq!(
        labels[16],
        "opt-queue-b mpmc u64 cap=64 p=1 c=2 spin=1 wake=edge"
    );
    assert_eq!(labels[32], "opt-queue-b ping-pong u64 cap=1");
    assert_eq!(labels[33], "opt-queue-b ping-pong u64 cap=1 batch=16");
    assert_eq!(labels[37], "opt-queue-b ping-pong u64 cap=3 batch=16");
    let first = &s.trials[0];
    assert_eq!((first.samples, first.warmup), (3, defaults::WARMUP));
    assert_eq!(first.messages, Messages::Fixed(5000));
    assert_eq!(first.timeout_ms, defaults::TIMEOUT_MS);
    assert!(first.pin);
    assert_eq!(
        s.trials[32].messages,
        Messages::Auto {
            target_ms: 7,
            min: defaults::MIN_MESSAGES,
            max: defaults::MAX_MESSAGES
        }
    );
    assert!(s.trials[32..]
        .iter()
        .all(|t| (t.producers, t.consumers) == (1, 1)));
}

#[test]
fn defaults_fill_every_parameter() {
    let s = parse("[[benchmark]]\nworkload = \"mpmc\"\ntransports = \"opt-queue\"\n").unwrap();
    assert_eq!(s.name, "t");
    assert!(s.probes);
    let producers: Vec<usize> = s.trials.iter().map(|t| t.producers).collect();
    assert_eq!(producers, defaults::producers(WorkloadKind::Mpmc));
    let t = &s.trials[0];
    assert_eq!(t.consumers, defaults::consumers(WorkloadKind::Mpmc));
    assert_eq!(t.payload, PayloadKind::U64);
    assert_eq!(t.capacity, defaults::CAPACITY);
    assert_eq!(t.samples, defaults::SAMPLES);
    assert_eq!(t.batch, None);
    assert!(t.options.is_empty());
}

#[test]
fn topology_values_from_defaults_apply_only_where_they_can() {
    let s = parse(
        "[defaults]\nproducers = [2, 4]\nconsumers = 3\n\n[[benchmark]]\nworkload = [\"spsc\", \"mpsc\", \"mpmc\"]\ntransports = \"opt-queue\"\n",
    )
    .unwrap();
    let shape: Vec<(WorkloadKind, usize, usize)> = s
        .trials
        .iter()
        .map(|t| (t.workload, t.producers, t.consumers))
        .collect();
    use WorkloadKind::*;
    assert_eq!(
        shape,
        [
            (Spsc, 1, 1),
            (Mpsc, 2, 1),
            (Mpsc, 4, 1),
            (Mpmc, 2, 3),
            (Mpmc, 4, 3)
        ]
    );
    assert_err(
        "[[benchmark]]\nworkload = [\"mpsc\", \"spsc\"]\ntransports = \"opt-queue\"\nproducers = [1, 2]\n",
        4,
        "`producers` does not apply to workload `spsc`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"mpsc\"\ntransports = \"opt-queue\"\nconsumers = 2\n",
        4,
        "`consumers` does not apply to workload `mpsc`",
    );
}

#[test]
fn syntax_errors_carry_line_column_and_expectation() {
    let e = assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ncapacity = [1, 2\n",
        3,
        "expected `]`",
    );
    assert_eq!(e.column, Some(17));
    assert!(
        e.to_string()
            .starts_with("suites/t.toml:3:17: invalid TOML"),
        "{e}"
    );
    assert_err("name = \"a\"\nname = \"b\"\n", 2, "duplicate key `name`");
    assert_err("[defaults]\npin = tru\n", 2, "expected `true`");
}

#[test]
fn wrong_types_name_the_key_and_the_expected_type() {
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let e = assert_err(
        &format!("{base}capacity = \"big\"\n"),
        4,
        "`capacity`: expected an integer, found \"big\"",
    );
    assert_eq!(e.column, Some(12));
    assert_err(
        &format!("{base}capacity = [1, 2.5]\n"),
        4,
        "`capacity`: invalid type: floating point `2.5`, expected an integer",
    );
    assert_err(
        &format!("{base}samples = [3]\n"),
        4,
        "`samples`: invalid type: sequence, expected an integer",
    );
    assert_err(&format!("{base}pin = 1\n"), 4, "expected a boolean");
    assert_err(
        &format!("{base}capacity = -1\n"),
        4,
        "must be at least 0, got -1",
    );
    assert_err(
        &format!("{base}messages = \"lots\"\n"),
        4,
        "expected \"auto\" or a count",
    );
    assert_err(
        &format!("{base}options = 3\n"),
        4,
        "`options`: invalid type: integer `3`, expected a map",
    );
    assert_err(
        "description = 3\n[[benchmark]]\n",
        1,
        "`description`: invalid type: integer `3`, expected a string",
    );
    assert_err("[benchmark]\nworkload = \"spsc\"\n", 1, "`[[benchmark]]`");
    assert_err(
        "defaults = 1\n[[benchmark]]\n",
        1,
        "`defaults`: invalid type: integer `1`, expected a table",
    );
}

#[test]
fn unknown_keys_are_errors_with_suggestions() {
    assert_err(
        "[defaults]\nsamples = 3\ncapacty = 8\n",
        3,
        "in [defaults]: unknown key `capacty`; did you mean `capacity`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n\n[[benchmark]]\nworkload = \"spsc\"\nwarmpu = 1\n",
        7,
        "in [[benchmark]] #2: unknown key `warmpu`; did you mean `warmup`",
    );
    assert_err("nmae = \"x\"\n", 1, "did you mean `name`?");
    assert_err(
        "[defaults]\ntransports = [\"rtrb\"]\n",
        2,
        "`transports` belongs in a [[benchmark]], not in [defaults]",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\nworkloads = [\"spsc\"]\n",
        3,
        "`workload` is given twice (perhaps with its alias)",
    );
}

#[test]
fn options_must_be_declared_by_a_transport_of_the_benchmark() {
    let base =
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue-b\", \"opt-queue\"]\n";
    assert_err(
        &format!("{base}options = {{ wkae = \"edge\" }}\n"),
        4,
        "unknown option `wkae`; did you mean `wake`? (these transports take spin, wake)",
    );
    let e = assert_err(
        &format!("{base}options = {{ wake = [\"edge\", \"evrey\"] }}\n"),
        4,
        "unknown value for option `wake`: `evrey`; did you mean `every`",
    );
    assert!(e.message.ends_with("(it takes edge, every)"), "{e}");
    assert_eq!(e.column, Some(29));
    assert_err(
        &format!("{base}options = {{ wake = [] }}\n"),
        4,
        "`wake`: an empty list",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = \"crossbeam-bounded\"\noptions = { wake = \"edge\" }\n",
        4,
        "unknown option `wake` (these transports take no options)",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\", \"rtrb\"]\noptions = { wake = \"edge\" }\n",
        4,
        "transport `rtrb` does not take option `wake`",
    );
    // An option without a list of values takes any value.
    let s = parse(&format!(
        "{base}options = {{ spin = [0, 100], wake = \"every\" }}\n"
    ))
    .unwrap();
    assert_eq!(s.trials.len(), 4);
    assert_eq!(s.trials[3].options["spin"], "100");
}

#[test]
fn unknown_names_point_at_the_value_and_suggest() {
    let e = assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\n  \"opt-queue\",\n  \"opt-qeue\",\n]\n",
        5,
        "unknown transport `opt-qeue`; did you mean `opt-queue`",
    );
    assert_eq!(e.column, Some(3));
    assert_err(
        "[[benchmark]]\nworkload = \"spcs\"\ntransports = [\"opt-queue\"]\n",
        2,
        "unknown workload `spcs`; did you mean `spsc`?",
    );
    assert_err(
        "[defaults]\npayload = [\"u64\", \"event48\"]\n",
        2,
        "unknown payload `event48`; did you mean `event488`",
    );
    assert_err(
        "[defaults]\npayload = \"bytes:100\"\n",
        2,
        "supported sizes",
    );
}

#[test]
fn impossible_parameters_are_rejected_where_written() {
    let base = "[[benchmark]]\nworkload = \"mpmc\"\ntransports = [\"opt-queue\"]\n";
    for (line, needle) in [
        ("samples = 0", "`samples`: must be at least 1, got 0"),
        (
            "producers = [1, 0]",
            "`producers`: must be at least 1, got 0",
        ),
        ("consumers = 0", "`consumers`: must be at least 1, got 0"),
        ("target_ms = 0", "`target_ms`: must be at least 1, got 0"),
        ("batch = 0", "`batch`: must be at least 1, got 0"),
        ("messages = 0", "`messages`: must be at least 1, got 0"),
        ("timeout_ms = 0", "`timeout_ms`: must be at least 1, got 0"),
        ("producers = 70000", "`producers`: must be at most 65536"),
        (
            "min_messages = 10\nmax_messages = 5",
            "larger than `max_messages`",
        ),
    ] {
        assert_err(&format!("{base}{line}\n"), 4, needle);
    }
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = []\n",
        3,
        "`transports`: an empty list",
    );
    assert_err(
        "[[benchmark]]\ntransports = [\"rtrb\"]\n",
        1,
        "names no workload",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\n",
        1,
        "names no transport",
    );
    let e = err("name = \"x\"\n");
    assert_eq!((e.line, e.column), (None, None));
    assert!(
        e.to_string().starts_with("suites/t.toml: no [[benchmark]]"),
        "{e}"
    );
    // Capacity 0 is left to the transport (a rendezvous channel may accept it).
    assert!(parse(&format!("{base}capacity = 0\n")).is_ok());
}

#[test]
fn drivers_sweep_fastest_and_bad_names_point_at_the_value() {
    let s = parse(
        "[defaults]\ndriver = \"tokio-current\"\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\", \"rtrb\"]\ndriver = [\"threads\", \"tokio-multi:2\"]\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = \"opt-queue\"\n",
    )
    .unwrap();
    let got: Vec<(String, Driver)> = s
        .trials
        .iter()
        .map(|t| (t.transport.clone(), t.driver))
        .collect();
    let multi = Driver::TokioMulti { workers: 2 };
    assert_eq!(
        got,
        [
            ("opt-queue".to_string(), Driver::Threads),
            ("opt-queue".to_string(), multi),
            ("rtrb".to_string(), Driver::Threads),
            ("rtrb".to_string(), multi),
            ("opt-queue".to_string(), Driver::TokioCurrent),
        ]
    );
    assert_eq!(
        s.trials[1].label(),
        "opt-queue spsc u64 cap=1024 driver=tokio-multi:2"
    );

    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let e = assert_err(
        &format!("{base}driver = [\"threads\", \"tokio-curent\"]\n"),
        4,
        "unknown driver `tokio-curent`; did you mean `tokio-current`",
    );
    assert_eq!(e.column, Some(22));
    assert!(
        e.to_string()
            .starts_with("suites/t.toml:4:22: `driver`: unknown driver"),
        "{e}"
    );
    assert_err(
        &format!("{base}driver = \"tokio-multi:0\"\n"),
        4,
        "at least 1 worker",
    );
    assert_err(
        &format!("{base}driver = 2\n"),
        4,
        "`driver`: expected a name, found the integer 2",
    );
    assert_err(
        "[defaults]\ndrivr = \"threads\"\n",
        2,
        "did you mean `driver`",
    );
}

#[test]
fn quick_keeps_coverage_and_shortens_samples() {
    let mut s = parse(
        "[defaults]\nsamples = 10\nwarmup = 3\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\nmessages = [\"auto\", 100000, 5000, 500]\ntarget_ms = 40\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\nsamples = 2\nwarmup = 0\ntarget_ms = 12\n",
    )
    .unwrap();
    let before = s.trials.len();
    s.quick();
    assert_eq!(s.trials.len(), before);
    let m: Vec<Messages> = s.trials.iter().map(|t| t.messages).collect();
    let auto = |target_ms| Messages::Auto {
        target_ms,
        min: defaults::MIN_MESSAGES,
        max: defaults::MAX_MESSAGES,
    };
    assert_eq!(
        m,
        [
            auto(8),
            Messages::Fixed(10_000),
            Messages::Fixed(1000),
            Messages::Fixed(500),
            auto(5)
        ]
    );
    assert_eq!((s.trials[0].samples, s.trials[0].warmup), (3, 1));
    assert_eq!((s.trials[4].samples, s.trials[4].warmup), (2, 0));
}

#[test]
fn load_reports_unreadable_files() {
    let e = Plan::load(Path::new("/nonexistent/suite.toml"), &catalog()).unwrap_err();
    assert_eq!(e.file, "/nonexistent/suite.toml");
    assert_eq!(e.line, None);
    assert!(e.message.contains("cannot read"), "{e}");
}

#[test]
fn consensus_is_a_top_level_switch_that_flags_can_turn_on() {
    let suite = r#"
[[benchmark]]
workload = "spsc"
transports = ["rtrb", "crossbeam-bounded"]
"#;
    assert!(!parse(suite).unwrap().consensus);
    assert!(
        parse(&format!("consensus = true\n{suite}"))
            .unwrap()
            .consensus
    );
    assert!(
        !parse(&format!("consensus = false\n{suite}"))
            .unwrap()
            .consensus
    );
    let on = Overlay {
        consensus: true,
        ..Overlay::default()
    };
    let plan = Plan::parse_with(suite, "suites/t.toml", &catalog(), &on).unwrap();
    assert!(plan.consensus);
    // A setting of the run, not of a benchmark.
    assert_err(
        "[defaults]\nconsensus = true\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\n",
        2,
        "consensus",
    );
    assert_err("consensus = \"yes\"\n", 1, "consensus");
}

#[test]
fn consensus_refuses_fixed_counts_it_cannot_compare_where_the_second_is_written() {
    // Two benchmarks of one stream at different fixed counts.
    let e = assert_err(
        r#"consensus = true
[[benchmark]]
workload = "spsc"
transports = ["rtrb"]
messages = 10000

[[benchmark]]
workload = "spsc"
transports = ["crossbeam-bounded"]
messages = 20000
"#,
        10,
        "one message count",
    );
    assert!(e.message.contains("`rtrb spsc u64"), "{e}");
    assert!(e.message.contains("asks for 10000"), "{e}");
    assert!(e.message.contains("for 20000"), "{e}");
    // A fixed count and `auto`.
    assert_err(
        r#"consensus = true
[defaults]
messages = 5000
[[benchmark]]
workload = "spsc"
transports = ["rtrb"]
[[benchmark]]
workload = "spsc"
messages = "auto"
transports = ["crossbeam-bounded"]
"#,
        9,
        "auto(40 ms)",
    );
    // A count sweep gives one stream two counts.
    assert_err(
        "consensus = true\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\nmessages = [1000, 2000]\n",
        5,
        "one message count",
    );
    // Different streams may run different counts, and without consensus anything goes.
    let fine = r#"
[[benchmark]]
workload = "spsc"
transports = ["rtrb"]
messages = 10000
[[benchmark]]
workload = "spsc"
payload = "report64"
transports = ["crossbeam-bounded"]
messages = 20000
"#;
    assert!(
        parse(&format!("consensus = true\n{fine}"))
            .unwrap()
            .consensus
    );
    let sweep =
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\nmessages = [1000, 2000]\n";
    assert_eq!(parse(sweep).unwrap().trials.len(), 2);
    // A flag override gives every trial one count.
    let one = Overlay {
        consensus: true,
        params: Params {
            messages: Some(At::flag(
                "--messages",
                value::List(vec![value::Count::Fixed(3000)]),
            )),
            ..Params::default()
        },
        ..Overlay::default()
    };
    let two = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\nmessages = 1000\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"crossbeam-bounded\"]\nmessages = 2000\n";
    let plan = Plan::parse_with(two, "suites/t.toml", &catalog(), &one).unwrap();
    assert!(plan
        .trials
        .iter()
        .all(|t| t.messages == Messages::Fixed(3000)));
}

#[test]
fn consensus_needs_a_stream_it_can_compare() {
    let e = assert_err(
        "consensus = true\n[[benchmark]]\nworkload = \"ramp\"\ntransports = [\"rtrb\"]\n",
        1,
        "no trial here delivers a stream that can be compared",
    );
    assert!(e.message.contains("ramp"), "{e}");
    let on = Overlay {
        consensus: true,
        ..Overlay::default()
    };
    let e = Plan::parse_with(
        "[[benchmark]]\nworkload = \"ramp\"\ntransports = [\"rtrb\"]\n",
        "suites/t.toml",
        &catalog(),
        &on,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("command line: --consensus: consensus compares"),
        "{e}"
    );
    // A ramp beside streams is left out, not an error.
    assert!(parse(
        "consensus = true\n[[benchmark]]\nworkload = [\"spsc\", \"ramp\"]\ntransports = [\"rtrb\"]\n"
    )
    .unwrap()
    .consensus);
}
