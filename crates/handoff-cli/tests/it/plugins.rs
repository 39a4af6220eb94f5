//! Plugins behind the C ABI, end to end: a C plugin with planted faults (each reported as the
//! verdict it deserves, the other results kept), libraries refused before any trial with the
//! reason, plugins named in a suite file, the example C plugin built as the docs say, and the
//! Go plugin built by the project's script.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles `source` into a shared library named `name` in this test's scratch directory,
/// with `defines`.
fn compile(source: &Path, name: &str, defines: &[&str]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugins");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let status = std::process::Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-Wall", "-Werror"])
        .arg("-I")
        .arg(root().join("include"))
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(source)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("a C compiler (cc) is installed");
    assert!(status.success(), "compiling {}", source.display());
    out
}

/// The faulty plugin, compiled with `defines` into `name`.
fn faulty(name: &str, defines: &[&str]) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/faulty.c");
    compile(&source, name, defines)
}

fn handoff() -> Command {
    Command::cargo_bin("handoff").expect("binary built")
}

/// `handoff run` with JSON output: (exit code, report, stderr).
fn run(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = handoff()
        .args([
            "run",
            "--no-store",
            "--no-probes",
            "--quiet",
            "--format",
            "json",
        ])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, stderr)
}

fn result<'a>(v: &'a Value, transport: &str) -> &'a Value {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["transport"] == transport)
        .unwrap_or_else(|| panic!("no result of {transport}"))
}

fn verdict(v: &Value, transport: &str) -> String {
    result(v, transport)["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

fn violation(v: &Value, transport: &str) -> String {
    result(v, transport)["violation"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn planted_faults_get_their_verdicts_and_the_other_results_are_kept() {
    let lib = faulty("faulty-verdicts.so", &[]);
    let lib = lib.to_str().unwrap();
    let transports = "c-fault-none,c-fault-drop,c-fault-dup,c-fault-swap,c-fault-segv,\
                      c-fault-hang,rtrb";
    let (code, v, stderr) = run(&[
        "--plugin",
        lib,
        "-t",
        transports,
        "-w",
        "spsc",
        "--messages",
        "20000",
        "--samples",
        "2",
        "--warmup",
        "0",
        "--timeout-ms",
        "1000",
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(verdict(&v, "c-fault-none"), "pass");
    assert_eq!(verdict(&v, "rtrb"), "pass");
    // Dropped: the consumer meets 1001 where 1000 was due.
    assert_eq!(verdict(&v, "c-fault-drop"), "fail");
    assert!(violation(&v, "c-fault-drop").contains("expected seq 1000, got 1001"));
    assert_eq!(verdict(&v, "c-fault-dup"), "fail");
    assert!(violation(&v, "c-fault-dup").contains("seq 1000 delivered twice"));
    assert_eq!(verdict(&v, "c-fault-swap"), "fail");
    assert!(violation(&v, "c-fault-swap").contains("expected seq 1000, got 1001"));
    assert_eq!(verdict(&v, "c-fault-segv"), "crashed");
    assert!(violation(&v, "c-fault-segv").contains("SIGSEGV"));
    assert_eq!(verdict(&v, "c-fault-hang"), "hung");
    // The control's result says where it came from.
    let none = result(&v, "c-fault-none");
    assert_eq!(none["origin"]["language"], "C");
    assert_eq!(none["origin"]["plugin"], lib);
    assert_eq!(none["samples"].as_array().unwrap().len(), 2);
}

#[test]
fn a_broken_library_is_refused_before_any_trial_runs() {
    let text = Path::new(env!("CARGO_TARGET_TMPDIR")).join("not-a-library.so");
    std::fs::write(&text, "not a library\n").unwrap();
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            faulty("wrong-abi.so", &["WRONG_ABI"]),
            "built for ABI version 99",
        ),
        (
            faulty("nonsense.so", &["NONSENSE"]),
            "ordering 7 is not HANDOFF_FIFO",
        ),
        (
            faulty("no-entry.so", &["NO_ENTRY"]),
            "has no `handoff_plugin_entry`",
        ),
        (
            faulty("load-crash.so", &["LOAD_CRASH"]),
            "crashed while loading",
        ),
        (faulty("clash.so", &["CLASH"]), "`rtrb`"),
        (text, "not a shared library"),
        (PathBuf::from("no/such/plugin.so"), "cannot be read"),
    ];
    for (lib, says) in cases {
        let run = ["run", "--no-store", "-t", "rtrb", "-w", "spsc"];
        for command in [&run[..], &["list"][..]] {
            let out = handoff()
                .args(command)
                .arg("--plugin")
                .arg(&lib)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{}: {stderr}", lib.display());
            assert!(stderr.contains(says), "{}: {stderr}", lib.display());
            assert!(stderr.contains(&lib.display().to_string()), "{stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
            assert!(out.stdout.is_empty(), "nothing ran or was listed");
        }
    }
    // Several problems of one table are named together.
    let out = handoff()
        .args(["list", "--plugin"])
        .arg(faulty("nonsense-again.so", &["NONSENSE"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("producers 5"), "{stderr}");
    assert!(stderr.contains("`destroy` is NULL"), "{stderr}");
}

#[test]
fn a_listing_shows_a_plugins_transports_with_their_language_and_semantics() {
    let lib = faulty("faulty-list.so", &[]);
    let out = handoff()
        .args(["list", "--plugin"])
        .arg(&lib)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("c-fault-none"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("SPSC"), "{line}");
    assert!(line.contains("bounded, spin"), "{line}");
    assert!(line.contains(", C, plugin "), "{line}");
}

#[test]
fn a_suite_file_names_its_plugins_relative_to_itself() {
    let lib = faulty("faulty.so", &[]);
    let dir = lib.parent().unwrap();
    let suite = dir.join("plugin-suite.toml");
    std::fs::write(
        &suite,
        "plugins = [\"faulty.so\"]\nconsensus = true\n\n[defaults]\nsamples = 2\nwarmup = 0\n\
         messages = 5000\npayload = [\"u64\", \"report64\", \"bytes:4096\", \"event488\"]\n\n\
         [[benchmark]]\nworkload = \"spsc\"\ntransports = [\"c-fault-none\", \"rtrb\"]\n",
    )
    .unwrap();
    // Run from elsewhere: the path is the suite file's, not the working directory's.
    let (code, v, stderr) = run(&[suite.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 8);
    assert!(results.iter().all(|r| r["verdict"] == "pass"), "{v}");
    // Every payload crossed the C ABI byte for byte: the C ring's digest is rtrb's.
    assert_agreement(&v, 2);
}

#[test]
fn payloads_with_heap_parts_are_unsupported_and_stamped_ones_cross() {
    let lib = faulty("faulty-payloads.so", &[]);
    let lib = lib.to_str().unwrap();
    let (code, v, stderr) = run(&[
        "--plugin",
        lib,
        "-t",
        "c-fault-none",
        "-w",
        "spsc",
        "-p",
        "boxed:64",
        "--messages",
        "1000",
        "--samples",
        "1",
        "--warmup",
        "0",
    ]);
    // The one transport named could not run what was asked: exit 2, said why.
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("exit 2: nothing ran: c-fault-none spsc (unsupported: "),
        "{stderr}"
    );
    assert_eq!(verdict(&v, "c-fault-none"), "unsupported");
    assert!(violation(&v, "c-fault-none").contains("heap parts"), "{v}");
    // An open-loop run: each message carries its send stamps through the plugin.
    let (code, v, stderr) = run(&[
        "--plugin",
        lib,
        "-t",
        "c-fault-none",
        "-w",
        "paced",
        "--rate",
        "20000",
        "--messages",
        "4000",
        "--samples",
        "1",
        "--warmup",
        "0",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let r = result(&v, "c-fault-none");
    assert_eq!(r["verdict"], "pass", "{r}");
    assert_eq!(r["latency"]["count"], 4000, "{r}");
}

/// Every consensus group of the run has `members` members, all with the group's digest.
fn assert_agreement(v: &Value, members: usize) {
    let groups = v["consensus"]["groups"].as_array().expect("a consensus");
    assert!(!groups.is_empty());
    for g in groups {
        let digest = g["digest"].as_str().unwrap_or_else(|| panic!("{g}"));
        let all = g["members"].as_array().unwrap();
        assert_eq!(all.len(), members, "{g}");
        assert!(all.iter().all(|m| m["digest"] == digest), "{g}");
    }
}

/// Builds the project's shared-library plugins (`scripts/build-plugins`, as the docs say) and
/// returns the directory they are in.
fn project_plugins() -> PathBuf {
    let status = std::process::Command::new("bash")
        .arg(root().join("scripts/build-plugins"))
        .status()
        .expect("bash runs");
    assert!(status.success(), "scripts/build-plugins failed");
    root().join("target/plugins")
}

#[test]
fn the_go_plugin_delivers_the_stream_rtrb_delivers() {
    let go = project_plugins().join("libhandoff_go.so");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-suite");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("go.toml");
    std::fs::write(
        &suite,
        format!(
            "plugins = [{go:?}]\nconsensus = true\n\n[defaults]\nsamples = 2\nwarmup = 0\n\
             messages = 20000\npayload = [\"u64\", \"report64\"]\n\n\
             [[benchmark]]\nworkload = \"spsc\"\ntransports = [\"go-chan\", \"rtrb\"]\n\
             capacity = 1024\n\n\
             [[benchmark]]\nworkload = \"spsc\"\ntransports = \"go-chan\"\ncapacity = 1024\n\
             batch = 256\n\n\
             [[benchmark]]\nworkload = \"spsc\"\ntransports = \"go-chan-rendezvous\"\n\
             capacity = 0\n"
        ),
    )
    .unwrap();
    let (code, v, stderr) = run(&[suite.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 8);
    for r in results {
        assert_eq!(r["verdict"], "pass", "{r}");
    }
    assert_eq!(result(&v, "go-chan")["origin"]["language"], "Go");
    assert_agreement(&v, 4);
}

#[test]
fn the_example_plugin_builds_as_the_readme_says_and_agrees_with_rtrb() {
    // The README's command: cc -O2 -shared -fPIC -I include examples/plugin-c/handoff_ring.c
    let lib = compile(
        &root().join("examples/plugin-c/handoff_ring.c"),
        "libhandoff_ring.so",
        &[],
    );
    let (code, v, stderr) = run(&[
        "--plugin",
        lib.to_str().unwrap(),
        "-t",
        "c-ring-plugin,rtrb",
        "-w",
        "spsc",
        "-p",
        "u64,report64",
        "--batch",
        "none,256",
        "--messages",
        "100000",
        "--samples",
        "2",
        "--consensus",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 8);
    assert!(results.iter().all(|r| r["verdict"] == "pass"), "{v}");
    assert_agreement(&v, 4);
}

#[test]
fn the_bakeoff_runs_every_transport_and_they_agree() {
    project_plugins();
    let out = handoff()
        .current_dir(root())
        .args([
            "run",
            "suites/spsc-bakeoff.toml",
            "--quick",
            "--no-store",
            "--no-probes",
        ])
        .args(["--quiet", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    let results = v["results"].as_array().unwrap();
    for r in results {
        assert_eq!(
            r["verdict"], "pass",
            "{} (a C++ peer is built only where its package is: scripts/install-peers): {}",
            r["transport"], r["violation"]
        );
    }
    // 12 transports at two capacities, every language among them.
    assert_eq!(results.len(), 24);
    for language in ["Rust", "C", "C++", "Go"] {
        assert!(
            results
                .iter()
                .any(|r| r["origin"]["language"].as_str().unwrap_or("Rust") == language),
            "{language}"
        );
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_agreement(&v, 24);
    // Every sample ran in a fresh process: the trials ask for it.
    assert!(
        results.iter().all(|r| r["params"]["fresh_process"] == true),
        "{v}"
    );
}
