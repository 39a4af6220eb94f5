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
            origin: Default::default(),
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
    let mut c = crate::test_catalog::catalog();
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

/// `reactor` sweeps over the same hops; a merge source needs both keys, a middle hop and no
/// conflation after it; a latest reactor needs a last hop that does not conflate already; and
/// every reactor key belongs to pipelines only.
#[test]
fn reactor_strategies_sweep_on_the_same_hops_and_a_merge_source_is_checked() {
    use crate::workload::{MergeSource, PipelineSpec, Reactor};
    let pipe = "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"crossbeam-bounded\", \"crossbeam-bounded\", \"crossbeam-bounded\"]\nrate = 1000\n";
    let s = parse(&format!(
        "{pipe}reactor = [\"sequential\", \"latest\"]\nreactor_work_ns = 5000\nmerge_hop = 2\nmerge_rate = 500\n"
    ))
    .unwrap();
    assert_eq!(s.trials.len(), 2);
    let ps: Vec<&PipelineSpec> = s
        .trials
        .iter()
        .map(|t| t.pipeline.as_ref().unwrap())
        .collect();
    assert_eq!(
        ps.iter().map(|p| p.reactor).collect::<Vec<_>>(),
        [Reactor::Sequential, Reactor::Latest]
    );
    assert_eq!(
        ps[0].hops, ps[1].hops,
        "both strategies run on the same hops"
    );
    assert_eq!(ps[1].reactor_work_ns, 5000);
    assert_eq!(ps[1].merge, Some(MergeSource { hop: 2, rate: 500 }));

    assert_err(
        &format!("{pipe}reactor = \"lastest\"\n"),
        5,
        "did you mean `latest`",
    );
    assert_err(&format!("{pipe}merge_hop = 2\n"), 5, "no `merge_rate`");
    assert_err(&format!("{pipe}merge_rate = 10\n"), 5, "no `merge_hop`");
    assert_err(
        &format!("{pipe}merge_hop = 1\nmerge_rate = 10\n"),
        5,
        "must be at least 2",
    );
    assert_err(
        &format!("{pipe}merge_hop = 4\nmerge_rate = 10\n"),
        5,
        "not hop 4",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"crossbeam-bounded\", \"latest-cell\"]\nhop_capacity = [64, 1]\ndelivery = \"latest\"\nreactor = \"latest\"\n",
        6,
        "already keeps only the newest value",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"crossbeam-bounded\", \"latest-cell\", \"crossbeam-bounded\"]\ndelivery = \"latest\"\nmerge_hop = 2\nmerge_rate = 10\n",
        5,
        "conflates at or after the merge",
    );
    for key in [
        "reactor = \"latest\"",
        "reactor_work_ns = 10",
        "merge_hop = 2",
        "merge_rate = 5",
    ] {
        assert_err(
            &format!("[[benchmark]]\nworkload = \"paced\"\ntransports = [\"rtrb\"]\nrate = 1000\n{key}\n"),
            5,
            "applies only to workload `pipeline`",
        );
    }
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
        "`capacity`: expected an integer from 0 to 4294967296, found \"big\"",
    );
    assert_eq!(e.column, Some(12));
    assert_err(
        &format!("{base}capacity = [1, 2.5]\n"),
        4,
        "`capacity`: 2.5 is not an integer; expected an integer from 0 to 4294967296",
    );
    assert_err(
        &format!("{base}samples = [3]\n"),
        4,
        "`samples`: invalid type: sequence, expected an integer from 1 to 10000",
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

/// A suite's `name` and `description` are kept with its runs: longer than their limits is an
/// error at the value, in characters (not bytes); at the limit is fine.
#[test]
fn a_suite_name_or_description_too_long_is_refused_where_it_is_written() {
    let bench = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let name = "é".repeat(bounds::MAX_NAME_CHARS);
    let s = parse(&format!("name = \"{name}\"\n{bench}")).unwrap();
    assert_eq!(s.name, name);
    let e = assert_err(
        &format!("probes = false\nname = \"{name}x\"\n{bench}"),
        2,
        "`name`: 201 characters; at most 200 are accepted",
    );
    assert_eq!(e.column, Some(8), "{e}");
    assert_eq!(e.kind, PlanErrorKind::Invalid);
    let description = "d".repeat(bounds::MAX_DESCRIPTION_CHARS + 1);
    let e = assert_err(
        &format!("description = \"{description}\"\n{bench}"),
        1,
        "`description`: 2001 characters; at most 2000 are accepted",
    );
    assert!(e.to_string().starts_with("suites/t.toml:1:15: "), "{e}");
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
        "[defaults]\npayload = \"bytes:2MiB\"\n",
        2,
        "from 8 bytes to 1 MiB",
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
        (
            "producers = 70000",
            "`producers`: must be at most 1024, got 70000",
        ),
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
    // A registered driver's name parses; the catalog refuses it at the key's value list.
    assert_eq!(e.column, Some(10));
    assert!(
        e.to_string()
            .starts_with("suites/t.toml:4:10: unknown driver `tokio-curent`"),
        "{e}"
    );
    assert_err(
        &format!("{base}driver = \"tokio-multi:0\"\n"),
        4,
        "worker count is at least 1",
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

/// A plan built with a fixed memory budget (1 GB), so that the memory checks do not depend on
/// the machine running the tests.
fn with(text: &str, overlay: Overlay) -> Result<Plan, PlanError> {
    let overlay = Overlay {
        memory: overlay.memory.or(Some(1_000_000_000)),
        ..overlay
    };
    Plan::parse_with(text, "suites/t.toml", &catalog(), &overlay)
}

fn sixty() -> String {
    (1..=60)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn a_sweep_bomb_is_counted_and_refused_before_any_trial_is_made() {
    let v = sixty();
    let bomb = format!(
        "[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"opt-queue\"]\ncapacity = [{v}]\nproducers = [{v}]\nmessages = [{v}]\nbatch = [{v}]\n"
    );
    assert!(bomb.len() < 2500);
    let start = std::time::Instant::now();
    let e = with(&bomb, Overlay::default()).unwrap_err();
    // 13 M trials would take seconds and gigabytes to expand; counting them takes nothing.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(e.line, Some(1), "{e}");
    assert_eq!(
        e.message,
        "benchmark 1 expands to 12,960,000 trials: capacity (60) × producers (60) × batch (60) × messages (60); the limit is 10,000 (--max-trials to raise it)"
    );
    // Raised, the limit lets a large plan through, and no further.
    let two = "[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"opt-queue\"]\ncapacity = [1, 2, 3]\nproducers = [1, 2]\n";
    let limit = |n| Overlay {
        max_trials: Some(n),
        ..Overlay::default()
    };
    assert_eq!(with(two, limit(6)).unwrap().trials.len(), 6);
    let e = with(two, limit(5)).unwrap_err();
    assert!(
        e.message
            .contains("expands to 6 trials: capacity (3) × producers (2); the limit is 5"),
        "{e}"
    );
}

#[test]
fn the_limit_counts_the_whole_suite_and_names_each_benchmark() {
    let bench = "[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"opt-queue\", \"opt-queue-b\"]\ncapacity = [1, 2, 3]\n";
    let three = format!("{bench}{bench}{bench}");
    let limit = Overlay {
        max_trials: Some(20),
        ..Overlay::default()
    };
    // 3 benchmarks of 2 × 3 × 4 (default producer counts) = 24 trials each.
    let e = with(&three, limit.clone()).unwrap_err();
    assert!(
        e.message.starts_with(
            "benchmark 1 expands to 24 trials: transports (2) × capacity (3) × producers (4)"
        ),
        "{e}"
    );
    let limit = Overlay {
        max_trials: Some(60),
        ..Overlay::default()
    };
    let e = with(&three, limit).unwrap_err();
    assert_eq!(e.line, None, "{e}");
    assert!(
        e.message.starts_with("the suite expands to 72 trials: benchmark 1: 24 (transports (2) × capacity (3) × producers (4)), benchmark 2: 24"),
        "{e}"
    );
    // Several workloads of one benchmark are counted each.
    let e = with(
        "[[benchmark]]\nworkload = [\"spsc\", \"mpsc\"]\ntransports = [\"opt-queue\"]\ncapacity = [1, 2, 3]\n",
        Overlay { max_trials: Some(10), ..Overlay::default() },
    )
    .unwrap_err();
    assert!(
        e.message.contains(
            "expands to 15 trials: spsc: capacity (3) + mpsc: capacity (3) × producers (4)"
        ),
        "{e}"
    );
}

#[test]
fn filters_apply_before_counting() {
    let v = sixty();
    let big = format!(
        "[[benchmark]]\nworkload = [\"spsc\", \"mpsc\"]\ntransports = [\"opt-queue\", \"opt-queue-b\", \"rtrb\"]\ncapacity = [{v}]\ndriver = [\"threads\", \"tokio-current\"]\n"
    );
    // 3 transports × 60 × 2 drivers (spsc) + the same × 4 producers (mpsc) = 1800.
    let limit = |n, o: Overlay| Overlay {
        max_trials: Some(n),
        ..o
    };
    assert!(with(&big, limit(1799, Overlay::default())).is_err());
    assert_eq!(
        with(&big, limit(1800, Overlay::default()))
            .unwrap()
            .trials
            .len(),
        1800
    );
    // What the filters keep is all that counts: one transport, one workload, one driver.
    let kept = Overlay {
        transports: vec!["rtrb".into()],
        workloads: vec![WorkloadKind::Spsc],
        drivers: vec![Driver::Threads],
        ..Overlay::default()
    };
    let plan = with(&big, limit(60, kept)).unwrap();
    assert_eq!(plan.trials.len(), 60);
    assert!(plan.trials.iter().all(|t| t.transport == "rtrb"
        && t.workload == WorkloadKind::Spsc
        && t.driver == Driver::Threads));
    let labels: Vec<String> = plan.trials.iter().take(2).map(|t| t.label()).collect();
    assert_eq!(labels, ["rtrb spsc u64 cap=1", "rtrb spsc u64 cap=2"]);
}

#[test]
fn a_list_longer_than_the_limit_is_refused_as_it_is_read() {
    let names = vec!["\"opt-queue\""; 700_000].join(", ");
    let text = format!("[[benchmark]]\nworkload = \"spsc\"\n\ntransports = [{names}]\n");
    let start = std::time::Instant::now();
    let e = with(&text, Overlay::default()).unwrap_err();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!((e.line, e.column), (Some(4), Some(14)), "{e}");
    assert_eq!(
        e.message,
        "`transports` lists more than 10,000 values, the trial limit (--max-trials to raise it)"
    );
    // Strings, comments, inline tables and nested lists are read as TOML reads them.
    let tricky = "# [1, 2, 3]\nname = \"a, b, c [d]\"\n[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"opt-queue\", # x, y\n  \"opt-queue-b\"]\noptions = { wake = [\"edge\", \"every\"], spin = 1 }\n";
    let limit = |n| Overlay {
        max_trials: Some(n),
        ..Overlay::default()
    };
    assert!(with(tricky, limit(16)).is_ok());
    let e = with(tricky, limit(1)).unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
    // From flags (no text to scan), the list itself is checked.
    let flags = Overlay {
        params: Params {
            capacity: Some(At::flag(
                "--capacity",
                value::List((1..=30).map(value::Int).collect()),
            )),
            ..Params::default()
        },
        max_trials: Some(20),
        ..Overlay::default()
    };
    let e = with(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = \"rtrb\"\n",
        flags,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "command line: --capacity: `capacity` lists 30 values, more than the trial limit of 20 allows (--max-trials to raise it)"
    );
}

#[test]
fn every_parameter_is_checked_against_its_documented_range() {
    let base = "[[benchmark]]\nworkload = \"mpmc\"\ntransports = [\"opt-queue\"]\n";
    for (line, needle) in [
        (
            "samples = 10001",
            "`samples`: must be at most 10000, got 10001",
        ),
        ("warmup = 1001", "`warmup`: must be at most 1000, got 1001"),
        (
            "timeout_ms = 3600001",
            "`timeout_ms`: must be at most 3600000",
        ),
        ("target_ms = 60001", "`target_ms`: must be at most 60000"),
        (
            "capacity = 4294967297",
            "`capacity`: must be at most 4294967296",
        ),
        (
            "capacity = 18446744073709551615",
            "`capacity`: must be at most 4294967296",
        ),
        (
            "producers = [1, 1025]",
            "`producers`: must be at most 1024, got 1025",
        ),
        (
            "consumers = 1025",
            "`consumers`: must be at most 1024, got 1025",
        ),
        ("batch = 1048577", "`batch`: must be at most 1048576"),
        (
            "messages = 281474976710656",
            "`messages`: must be at most 281474976710655 (2^48 - 1",
        ),
        (
            "min_messages = 281474976710656",
            "`min_messages`: must be at most 281474976710655",
        ),
        (
            "max_messages = 281474976710656",
            "`max_messages`: must be at most 281474976710655",
        ),
        (
            "driver = \"tokio-multi:100000\"",
            "at most 1024 worker threads",
        ),
        (
            "driver = \"tokio-multi:99999999999999999999999\"",
            "at most 1024 worker threads",
        ),
    ] {
        assert_err(&format!("{base}{line}\n"), 4, needle);
    }
    let open = "[[benchmark]]\nworkload = \"paced\"\ntransports = [\"opt-queue\"]\n";
    for (line, needle) in [
        ("rate = 1000000001", "`rate`: must be at most 1000000000"),
        ("rate = 0", "`rate`: must be at least 1, got 0"),
        (
            "ramp = { p99_bound_us = 0 }",
            "`p99_bound_us = 0` could never be met",
        ),
        (
            "ramp = { p99_bound_us = 60000001 }",
            "`p99_bound_us`: must be at most 60000000",
        ),
        (
            "ramp = { start = 1000000001 }",
            "`start`: must be at most 1000000000",
        ),
        ("ramp = { max = 0 }", "`max`: must be at least 1"),
        ("ramp = { factor = 1 }", "`factor`: must be at least 2"),
        ("ramp = { factor = 1001 }", "`factor`: must be at most 1000"),
        ("ramp = { refine = 21 }", "`refine`: must be at most 20"),
        ("ramp = { step_ms = 0 }", "`step_ms`: must be at least 1"),
        (
            "ramp = { step_ms = 60001 }",
            "`step_ms`: must be at most 60000",
        ),
        (
            "ramp = { start = 5000, max = 4000 }",
            "start (5000/s) is above max (4000/s)",
        ),
    ] {
        assert_err(&format!("{open}{line}\n"), 4, needle);
    }
    let pipe = "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\n";
    for (line, needle) in [
        (
            "stage_work_ns = 1000000001",
            "`stage_work_ns`: must be at most 1000000000",
        ),
        // Written out, 18446744074 s of work per event once wrapped to 0.2 s.
        (
            "stage_work_ns = 18446744074000000000",
            "`stage_work_ns`: must be at most 1000000000, got 18446744074000000000",
        ),
        (
            "hop_capacity = [64, 0, 64]",
            "`hop_capacity`: must be at least 1",
        ),
        (
            "hop_capacity = [64, 4294967297, 64]",
            "`hop_capacity`: must be at most 4294967296",
        ),
    ] {
        assert_err(&format!("{pipe}{line}\n"), 4, needle);
    }
    let hops = vec!["\"rtrb\""; 65].join(", ");
    assert_err(
        &format!("[[benchmark]]\nworkload = \"pipeline\"\nhops = [{hops}]\n"),
        3,
        "`hops` gives 65 hops; a pipeline has at most 64",
    );
    // The bounds themselves pass.
    let fine = format!(
        "{base}samples = 10000\nwarmup = 1000\ntimeout_ms = 3600000\ntarget_ms = 60000\nproducers = 1024\nconsumers = 1\nbatch = 1048576\nmessages = \"auto\"\nmax_messages = 281474976710655\n"
    );
    let t = &parse(&fine).unwrap().trials[0];
    assert_eq!(
        (t.samples, t.warmup, t.timeout_ms, t.producers, t.batch),
        (10_000, 1_000, 3_600_000, 1024, Some(1 << 20))
    );
    assert!(parse(&format!("{pipe}stage_work_ns = 1000000000\n")).is_ok());
    assert!(parse(&format!(
        "{open}rate = 1000000000\nramp = {{ p99_bound_us = 1 }}\n"
    ))
    .is_ok());
}

#[test]
fn what_a_trial_allocates_up_front_must_fit_the_memory_budget() {
    let gb = Overlay::default(); // 1 GB (see `with`)
    let spsc = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\n";
    // The ring: capacity × message size.
    let e = with(
        &format!("{spsc}payload = \"bytes:4096\"\ncapacity = [64, 4294967296]\n"),
        gb.clone(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
    assert_eq!(
        e.message,
        "capacity 4294967296 × 4096-byte messages (`bytes:4096`) is a 17.6 TB ring; the memory budget is 1.00 GB (the budget given)"
    );
    assert!(with(
        &format!("{spsc}payload = \"bytes:4096\"\ncapacity = 65536\n"),
        gb.clone()
    )
    .is_ok());
    // An unbounded transport has no ring to allocate.
    assert!(with(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\ncapacity = 4294967296\n",
        gb.clone()
    )
    .is_ok());
    // A pipeline's hops together.
    let e = with(
        "[[benchmark]]\nworkload = \"pipeline\"\ntransports = [\"rtrb\"]\npayload = \"bytes:1024\"\nhop_capacity = [1048576, 1048576]\n",
        gb.clone(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
    assert!(
        e.message.starts_with(
            "the hops hold 2097152 1024-byte messages (`bytes:1024`) together, 2.15 GB;"
        ),
        "{e}"
    );
    // The verifier's bitmap: several consumers each check messages off, one bit per message.
    let mpmc = "[[benchmark]]\nworkload = \"mpmc\"\ntransports = [\"crossbeam-bounded\"]\nproducers = 1\nconsumers = 4\n";
    let e = with(
        &format!("{mpmc}messages = [1000, 10000000000]\n"),
        gb.clone(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(6), "{e}");
    assert_eq!(
        e.message,
        "10000000000 messages need a 5.00 GB verifier bitmap (one bit per message per consumer): 4 consumers share `crossbeam-bounded`'s stream, so each checks messages off in a bitmap; the memory budget is 1.00 GB (the budget given); lower `messages` (or `max_messages`)"
    );
    // `auto` is bounded by `max_messages`.
    let e = with(&format!("{mpmc}max_messages = 10000000000\n"), gb.clone()).unwrap_err();
    assert_eq!(e.line, Some(6), "{e}");
    assert!(with(&format!("{mpmc}messages = 1000000000\n"), gb.clone()).is_ok());
    // One FIFO consumer counts instead: no bitmap, any count the header holds.
    assert!(with(&format!("{spsc}messages = 281474976710655\n"), gb).is_ok());
}

#[test]
fn a_value_listed_twice_is_named_where_it_is_written_again() {
    let base = "[[benchmark]]\nworkload = \"spsc\"\n";
    let e = assert_err(
        &format!("{base}transports = [\"rtrb\", \"opt-queue\",\n  \"rtrb\"]\n"),
        4,
        "`transports` lists `rtrb` twice: give each value once",
    );
    assert_eq!(e.column, Some(3));
    let e = assert_err(
        &format!("{base}transports = \"rtrb\"\ncapacity = [64, 1024, 64]\n"),
        4,
        "`capacity` lists `64` twice",
    );
    assert_eq!(e.column, Some(23));
    for (line, needle) in [
        (
            "payload = [\"u64\", \"u64\"]",
            "`payload` lists `u64` twice",
        ),
        (
            "batch = [\"none\", 16, \"none\"]",
            "`batch` lists `none` twice",
        ),
        (
            "messages = [\"auto\", \"auto\"]",
            "`messages` lists `auto` twice",
        ),
        (
            "driver = [\"threads\", \"threads\"]",
            "`driver` lists `threads` twice",
        ),
    ] {
        assert_err(&format!("{base}transports = \"rtrb\"\n{line}\n"), 4, needle);
    }
    assert_err(
        "[[benchmark]]\nworkload = [\"spsc\", \"mpsc\", \"spsc\"]\ntransports = \"rtrb\"\n",
        2,
        "`workload` lists `spsc` twice",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"paced\"\ntransports = \"rtrb\"\nrate = [\"ramp\", 1000, \"ramp\"]\n",
        4,
        "`rate` lists `ramp` twice",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"mpsc\"\ntransports = \"opt-queue\"\nproducers = [1, 2, 2]\n",
        4,
        "`producers` lists `2` twice",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = \"opt-queue\"\noptions = { wake = [\"edge\", \"edge\"] }\n",
        4,
        "`wake` lists `edge` twice",
    );
    // A pipeline's hops and their capacities are one value per hop, not a sweep.
    let s = parse("[[benchmark]]\nworkload = \"pipeline\"\nhops = [\"rtrb\", \"rtrb\"]\nhop_capacity = [64, 64]\n").unwrap();
    assert_eq!(s.trials.len(), 1);
    // The command line's filters too.
    let twice = Overlay {
        transports: vec!["rtrb".into(), "rtrb".into()],
        ..Overlay::default()
    };
    let e = with(&format!("{base}transports = \"rtrb\"\n"), twice).unwrap_err();
    assert_eq!(
        e.to_string(),
        "command line: --transport: `rtrb` is listed twice: give each value once"
    );
}

#[test]
fn an_override_must_apply_to_a_trial_the_filters_keep() {
    let suite = "[[benchmark]]\nworkload = [\"spsc\", \"mpmc\"]\ntransports = \"opt-queue\"\n";
    let consumers = |workloads: Vec<WorkloadKind>| Overlay {
        workloads,
        params: Params {
            consumers: Some(At::flag("--consumers", value::List(vec![value::Int(2)]))),
            ..Params::default()
        },
        ..Overlay::default()
    };
    // `-c 2 -w spsc` on a suite with mpmc benchmarks: only spsc is kept, where it cannot apply.
    let e = with(suite, consumers(vec![WorkloadKind::Spsc])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "command line: --consumers: `consumers` applies to none of the trials that --transport, --workload and --driver keep"
    );
    let plan = with(suite, consumers(vec![WorkloadKind::Mpmc])).unwrap();
    assert!(plan.trials.iter().all(|t| t.consumers == 2));
    assert!(with(suite, consumers(vec![])).is_ok());
}

#[test]
fn misplaced_and_malformed_values_say_what_is_wrong() {
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let e = assert_err(&format!("{base}messages = 1e30\n"), 4, "`messages`: 1e30 is not an integer; expected \"auto\" or a count of messages from 1 to 281474976710655");
    assert_eq!(e.column, Some(12));
    assert_err(
        &format!("{base}messages = [1000, 2.5]\n"),
        4,
        "`messages`: 2.5 is not an integer",
    );
    assert_err(
        &format!("{base}samples = \"5\"\n"),
        4,
        "found \"5\": write the number without quotes",
    );
    assert_err(
        "samples = 5\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n",
        1,
        "`samples` belongs in [defaults] or a [[benchmark]], not at the top level",
    );
    assert_err(
        "transports = [\"rtrb\"]\n[[benchmark]]\nworkload = \"spsc\"\n",
        1,
        "`transports` belongs in a [[benchmark]], not at the top level",
    );
    assert_err(
        "[defaults]\nsamples = 3\nprobes = false\n",
        3,
        "in [defaults]: `probes` is a setting of the whole suite: write it at the top of the file",
    );
    assert_err(
        &format!("{base}consensus = true\n"),
        4,
        "in [[benchmark]] #1: `consensus` is a setting of the whole suite",
    );
    assert_err(
        "[defaults]\nstep_ms = 100\n",
        2,
        "`step_ms` is a key of the rate search: write `ramp = { step_ms = … }`",
    );
    assert_err(
        "max_trials = 20000\n",
        1,
        "the trial limit is set on the command line (--max-trials N), not in a suite file",
    );
    assert_err(
        "[[gate]]\nkind = \"scaling\"\nmin = 1.5\nsamples = 3\n",
        4,
        "in [[gate]] #1: unknown key `samples` (a gate takes kind,",
    );
    // Unknown keys that are no key elsewhere still get their suggestion.
    assert_err("[defaults]\nsampels = 3\n", 2, "did you mean `samples`");
}

#[test]
fn hand_fuzzed_mistakes_get_messages_that_point_at_the_fix() {
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    // A whole number written as a float.
    assert_err(
        &format!("{base}samples = 1e3\n"),
        4,
        "1000.0 is not an integer; expected an integer from 1 to 10000 (write it 1000, without a decimal point or exponent)",
    );
    // Past i64: a range error, not "invalid type ... as i128".
    assert_err(
        &format!("{base}capacity = 99999999999999999999999\n"),
        4,
        "`capacity`: must be at most 4294967296, got 99999999999999999999999",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n[defaults]\nsamples = 3\n[defaults]\nwarmup = 1\n",
        6,
        "table [defaults] is given twice",
    );
    // Case alone does not hide the suggestion; with nothing close, the short lists are named.
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"OPT-QUEUE\"]\n",
        3,
        "did you mean `opt-queue`",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"bogus\"\ntransports = [\"opt-queue\"]\n",
        2,
        "unknown workload `bogus` (one of spsc, mpsc, mpmc, ping-pong, paced, ramp, pipeline)",
    );
    assert_err(
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"zzzzzz\"]\n",
        3,
        "unknown transport `zzzzzz` (`handoff list` names every transport)",
    );
}

#[test]
fn errors_carry_their_kind_and_key() {
    use crate::suggest::Thing;
    let unknown = |e: &PlanError, what: Thing, first: Option<&str>| match &e.kind {
        PlanErrorKind::Unknown(l) => {
            assert_eq!(l.what, what, "{e}");
            assert_eq!(l.suggestions.first().map(String::as_str), first, "{e}");
        }
        other => panic!("{other:?}: {e}"),
    };
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    for (text, kind, key) in [
        (
            "[defaults]\ncapacity = [1, 2\n",
            PlanErrorKind::Syntax,
            None,
        ),
        (
            "name = \"a\"\nname = \"b\"\n",
            PlanErrorKind::Duplicate,
            Some("name"),
        ),
        (
            &format!("{base}capacity = \"big\"\n"),
            PlanErrorKind::WrongType,
            Some("capacity"),
        ),
        (
            &format!("{base}pin = 1\n"),
            PlanErrorKind::WrongType,
            Some("pin"),
        ),
        (
            &format!("{base}samples = 0\n"),
            PlanErrorKind::OutOfRange,
            Some("samples"),
        ),
        (
            &format!("{base}driver = \"tokio-multi:0\"\n"),
            PlanErrorKind::OutOfRange,
            Some("driver"),
        ),
        (
            "[defaults]\nramp.start = 0\n",
            PlanErrorKind::OutOfRange,
            Some("ramp.start"),
        ),
        (
            "[defaults]\ncapacity = []\n",
            PlanErrorKind::Invalid,
            Some("capacity"),
        ),
        (
            "[[benchmark]]\ntransports = [\"rtrb\"]\n",
            PlanErrorKind::Missing,
            None,
        ),
        (
            &format!("{base}[[gate]]\nmin = 1.5\n"),
            PlanErrorKind::Missing,
            Some("kind"),
        ),
        (
            &format!("{base}rate = 1000\n"),
            PlanErrorKind::Conflict,
            Some("rate"),
        ),
        (
            &format!("{base}capacity = [64, 1024, 64]\n"),
            PlanErrorKind::Duplicate,
            Some("capacity"),
        ),
        (
            "[[benchmark]]\nworkload = \"spsc\"\nworkloads = [\"spsc\"]\n",
            PlanErrorKind::Duplicate,
            Some("workload"),
        ),
        (
            &format!("{base}hops = [{}]\n", vec!["\"rtrb\""; 65].join(", ")),
            PlanErrorKind::Limit,
            Some("hops"),
        ),
    ] {
        let e = err(text);
        assert_eq!((&e.kind, e.key.as_deref()), (&kind, key), "{e}");
    }
    let e = err("[defaults]\ncapacty = 8\n");
    unknown(&e, Thing::Key, Some("capacity"));
    assert_eq!(e.key.as_deref(), Some("capacty"));
    let e = err("[[benchmark]]\nworkload = \"spcs\"\ntransports = [\"opt-queue\"]\n");
    unknown(&e, Thing::Workload, Some("spsc"));
    assert_eq!(e.key.as_deref(), Some("workload"));
    let e = err("[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-qeue\"]\n");
    unknown(&e, Thing::Transport, Some("opt-queue"));
    assert_eq!(e.key.as_deref(), Some("transports"));
    let e = err(&format!("{base}options = {{ wake = \"evrey\" }}\n"));
    unknown(&e, Thing::OptionValue("wake".into()), Some("every"));
    assert_eq!(e.key.as_deref(), Some("wake"));
    let e = err("[[gate]]\nkind = \"scalign\"\nmin = 1.5\n[[benchmark]]\nworkload = \"spsc\"\ntransports = \"rtrb\"\n");
    unknown(&e, Thing::GateKind, Some("scaling"));
    // The trial limit, as a list is read and as the plan is counted.
    let limit = Overlay {
        max_trials: Some(2),
        ..Overlay::default()
    };
    let e = with(&format!("{base}capacity = [1, 2, 3]\n"), limit.clone()).unwrap_err();
    assert_eq!(
        (&e.kind, e.key.as_deref()),
        (&PlanErrorKind::Limit, Some("capacity"))
    );
    let e = with(&format!("{base}capacity = [1, 2]\nbatch = [1, 2]\n"), limit).unwrap_err();
    assert_eq!(e.kind, PlanErrorKind::Limit, "{e}");
    // From the flags: the key the builder names.
    let flags = Overlay {
        params: Params {
            consumers: Some(At::flag("--consumers", value::List(vec![value::Int(2)]))),
            ..Params::default()
        },
        ..Overlay::default()
    };
    let e = with(base, flags).unwrap_err();
    assert_eq!(
        (&e.kind, e.key.as_deref()),
        (&PlanErrorKind::Conflict, Some("consumers"))
    );
    let e = Plan::load(Path::new("/nonexistent/suite.toml"), &catalog()).unwrap_err();
    assert_eq!(e.kind, PlanErrorKind::Unreadable);
}

#[test]
fn a_regression_gate_may_let_what_it_cannot_judge_pass() {
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let gate = "[[gate]]\nkind = \"regression\"\nbaseline = \"main\"\nmax = \"5%\"\n";
    for (extra, allowed) in [("", false), ("allow_unjudged = true\n", true)] {
        let plan = parse(&format!("{base}{gate}{extra}")).unwrap();
        assert_eq!(
            plan.gates,
            [handoff_model::gate::Gate::Regression {
                baseline: "main".into(),
                max: 0.05,
                allow_unjudged: allowed,
            }]
        );
    }
    // Only a regression gate takes it.
    let e = err(&format!(
        "{base}[[gate]]\nkind = \"scaling\"\nmin = 1.5\nallow_unjudged = true\n"
    ));
    assert_eq!(
        (&e.kind, e.key.as_deref()),
        (&PlanErrorKind::Conflict, Some("allow_unjudged")),
        "{e}"
    );
}

#[test]
fn a_scaling_gate_names_its_producer_count_and_its_rate() {
    use handoff_model::gate::{Gate, Rate, UpTo};
    let base = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"opt-queue\"]\n";
    let gate = "[[gate]]\nkind = \"scaling\"\nmin = 1.5\n";
    for (extra, up_to, metric) in [
        ("", UpTo::Cores, Rate::Delivery),
        ("up_to = \"top\"\n", UpTo::Top, Rate::Delivery),
        (
            "up_to = 8\nmetric = \"submit\"\n",
            UpTo::Producers(8),
            Rate::Submit,
        ),
        (
            "up_to = \"cores\"\nmetric = \"delivery\"\n",
            UpTo::Cores,
            Rate::Delivery,
        ),
    ] {
        let plan = parse(&format!("{base}{gate}{extra}")).unwrap();
        assert_eq!(
            plan.gates,
            [Gate::Scaling {
                transports: vec![],
                min: 1.5,
                up_to,
                metric,
            }],
            "{extra}"
        );
    }
    // One producer is what is compared against; a count needs at least two. The line is the
    // value's own (line 7 of the file).
    let e = assert_err(
        &format!("{base}{gate}up_to = 1\n"),
        7,
        "must be at least 2, got 1",
    );
    assert_eq!(e.kind, PlanErrorKind::OutOfRange, "{e}");
    let e = assert_err(&format!("{base}{gate}up_to = \"all\"\n"), 7, "\"cores\"");
    assert_eq!(e.key.as_deref(), Some("up_to"), "{e}");
    let e = err(&format!("{base}{gate}metric = \"submt\"\n"));
    match &e.kind {
        PlanErrorKind::Unknown(l) => {
            assert_eq!(
                l.what,
                crate::suggest::Thing::Other("gate metric".into()),
                "{e}"
            );
            assert_eq!(
                l.suggestions.first().map(String::as_str),
                Some("submit"),
                "{e}"
            );
        }
        other => panic!("{other:?}: {e}"),
    }
    assert_eq!(e.line, Some(7), "{e}");
    // Only a scaling gate takes them.
    let ratio = "[[gate]]\nkind = \"ratio\"\ntransport = \"opt-queue\"\nmin = 1.0\n";
    for extra in ["up_to = 4\n", "metric = \"submit\"\n"] {
        let e = err(&format!("{base}{ratio}{extra}"));
        assert_eq!(e.kind, PlanErrorKind::Conflict, "{e}");
    }
}

#[test]
fn a_soak_lasts_its_duration_in_windows_and_misplaced_soak_keys_are_errors() {
    let base =
        "[[benchmark]]\nworkload = \"paced\"\ntransports = [\"crossbeam-bounded\"]\nrate = 1000\n";
    let s = parse(&format!("{base}duration = \"5m\"\n")).unwrap();
    assert_eq!(
        s.trials[0].messages,
        Messages::Soak {
            duration_ms: 300_000,
            window_ms: 10_000
        }
    );
    assert_eq!(s.trials[0].messages.to_string(), "soak 5m in 10s windows");
    let s = parse(&format!("{base}duration = \"1m30s\"\nwindow = \"500ms\"\n")).unwrap();
    assert_eq!(
        s.trials[0].messages,
        Messages::Soak {
            duration_ms: 90_000,
            window_ms: 500
        }
    );
    // From [defaults]: the open-loop benchmarks soak, a closed-loop one keeps its count.
    let s = parse(
        "[defaults]\nduration = \"1m\"\nmessages = 5000\n\n[[benchmark]]\nworkload = \"paced\"\ntransport = \"rtrb\"\nrate = 100\n\n[[benchmark]]\nworkload = \"spsc\"\ntransport = \"rtrb\"\n",
    )
    .unwrap();
    assert!(matches!(s.trials[0].messages, Messages::Soak { .. }));
    assert_eq!(s.trials[1].messages, Messages::Fixed(5000));
    // `--quick`: at most 20 s, in windows of a tenth of that.
    let mut q = parse(&format!("{base}duration = \"5m\"\n")).unwrap();
    q.quick();
    assert_eq!(
        q.trials[0].messages,
        Messages::Soak {
            duration_ms: 20_000,
            window_ms: 2_000
        }
    );

    let spsc = "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"]\n";
    assert_err(
        &format!("{spsc}duration = \"5m\"\n"),
        4,
        "a soak is an open-loop run",
    );
    assert_err(
        &format!("{base}window = \"10s\"\n"),
        5,
        "give its `duration` too",
    );
    assert_err(
        &format!("{base}duration = \"5m\"\nmessages = 1000\n"),
        5,
        "not both",
    );
    assert_err(
        &format!("{base}duration = \"15s\"\nwindow = \"10s\"\n"),
        6,
        "fewer than two windows",
    );
    assert_err(
        &format!("{base}duration = 300\n"),
        5,
        "write its unit: \"300s\"",
    );
    assert_err(&format!("{base}duration = \"2d\"\n"), 5, "a length of time");
    assert_err(
        &format!("{base}window = \"50ms\"\nduration = \"1m\"\n"),
        5,
        "at least 100ms",
    );
}
