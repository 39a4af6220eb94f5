//! `scripts/check-shared-features` on scratch workspaces: a crate that the command's build and
//! the test build would compile with different features is named with the features; once the
//! command's build asks for the union, the check passes.

use std::path::Path;
use std::process::Command;

/// A workspace whose `handoff-cli` depends on `shared` with feature `a`, and whose tests (a
/// dev-dependency) turn on `b` too; `command_asks` is what `handoff-cli`'s own dependency asks.
fn workspace(root: &Path, command_asks: &str) {
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[workspace]\nresolver = \"2\"\nmembers = [\"cli\", \"shared\", \"plain\"]\n",
    );
    write(
        "shared/Cargo.toml",
        "[package]\nname = \"shared\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         [features]\na = []\nb = []\n",
    );
    write("shared/src/lib.rs", "");
    // A crate both builds use with the same features: never named.
    write(
        "plain/Cargo.toml",
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write("plain/src/lib.rs", "");
    write(
        "cli/Cargo.toml",
        &format!(
            "[package]\nname = \"handoff-cli\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             [dependencies]\nshared = {{ path = \"../shared\", features = [{command_asks}] }}\n\
             plain = {{ path = \"../plain\" }}\n\
             [dev-dependencies]\nshared = {{ path = \"../shared\", features = [\"b\"] }}\n"
        ),
    );
    write("cli/src/lib.rs", "");
    let lock = Command::new("cargo")
        .args(["generate-lockfile", "--offline"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        lock.status.success(),
        "{}",
        String::from_utf8_lossy(&lock.stderr)
    );
}

fn check(root: &Path) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check-shared-features");
    Command::new("python3")
        .arg(script)
        .current_dir(root)
        .output()
        .unwrap()
}

#[test]
fn a_feature_only_the_tests_turn_on_is_named_and_the_union_passes() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path(), "\"a\"");
    let out = check(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let named: Vec<&str> = stderr.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(
        named[0].starts_with("  shared v0.1.0") && named[0].ends_with(": the tests add b"),
        "{stderr}"
    );
    assert!(stderr.contains("handoff-workspace-hack"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path(), "\"a\", \"b\"");
    let out = check(dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("the 3 crates"), "{stdout}");
}
