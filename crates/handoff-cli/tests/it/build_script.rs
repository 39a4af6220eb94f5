//! The build script's two parts on scratch directories. The stamp: a clean commit, an edited
//! tree, a worktree, and a directory git does not track (skipped, with a note, where `git`
//! cannot run). The source identities: a scratch workspace whose members are edited one at a
//! time.

#[path = "../../build/sources.rs"]
mod sources;
#[path = "../../build/stamp.rs"]
#[allow(dead_code)]
mod stamp;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch directory of this test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("handoff-stamp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A repository with a workspace and one crate (`crates/k`), committed.
fn workspace(root: &Path) -> Option<PathBuf> {
    let k = root.join("crates/k");
    std::fs::create_dir_all(k.join("src")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
    std::fs::write(k.join("Cargo.toml"), "[package]\n").unwrap();
    std::fs::write(k.join("src/lib.rs"), "// one\n").unwrap();
    (git(root, &["init", "-q"])
        && git(root, &["add", "."])
        && git(root, &["commit", "-q", "-m", "one"]))
    .then_some(k)
}

#[test]
fn an_edited_tree_is_dirty_and_every_watched_path_exists() {
    let s = Scratch::new("clone");
    let Some(k) = workspace(&s.0) else {
        eprintln!("git cannot run here: build stamp test skipped");
        return;
    };
    let clean = stamp::stamp(&k);
    assert_eq!(clean.commit.len(), 12, "{clean:?}");
    assert!(clean.watch.iter().all(|p| p.exists()), "{clean:?}");
    for watched in ["src", ".git/HEAD", ".git/index", "crates"] {
        assert!(
            clean.watch.iter().any(|p| p.ends_with(watched)),
            "{watched} not watched: {clean:?}"
        );
    }
    // The branch HEAD points to is watched: it moves with every commit.
    assert!(
        clean
            .watch
            .iter()
            .any(|p| p.to_string_lossy().contains("refs/heads")),
        "{clean:?}"
    );
    std::fs::write(k.join("src/lib.rs"), "// two\n").unwrap();
    let edited = stamp::stamp(&k);
    assert_eq!(edited.commit, format!("{}-dirty", clean.commit));
    // An untracked file alone does not make the tree dirty.
    assert!(git(&s.0, &["commit", "-q", "-am", "two"]));
    std::fs::write(k.join("src/scratch.rs"), "").unwrap();
    let committed = stamp::stamp(&k);
    assert!(!committed.commit.ends_with("-dirty"), "{committed:?}");
    assert_ne!(committed.commit, clean.commit);
}

#[test]
fn a_worktree_is_stamped_like_a_clone() {
    let s = Scratch::new("worktree");
    let Some(_) = workspace(&s.0) else {
        eprintln!("git cannot run here: build stamp test skipped");
        return;
    };
    let wt = s.0.join("wt");
    assert!(git(
        &s.0,
        &["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]
    ));
    let k = wt.join("crates/k");
    let clean = stamp::stamp(&k);
    assert_eq!(clean.commit.len(), 12, "{clean:?}");
    assert!(clean.watch.iter().all(|p| p.exists()), "{clean:?}");
    // The worktree's own HEAD and index, not the main tree's.
    assert!(
        clean
            .watch
            .iter()
            .any(|p| p.ends_with("HEAD") && p.to_string_lossy().contains("worktrees")),
        "{clean:?}"
    );
    assert!(
        clean.watch.iter().any(|p| p.ends_with("refs/heads/side")),
        "{clean:?}"
    );
    std::fs::write(k.join("src/lib.rs"), "// edited in the worktree\n").unwrap();
    assert!(stamp::stamp(&k).commit.ends_with("-dirty"));
}

#[test]
fn outside_a_repository_the_commit_is_unknown() {
    let s = Scratch::new("archive");
    let k = s.0.join("k");
    std::fs::create_dir_all(k.join("src")).unwrap();
    std::fs::write(k.join("Cargo.toml"), "[package]\n").unwrap();
    let st = stamp::stamp(&k);
    assert_eq!(st.commit, "unknown");
    // Its sources are still watched, and nothing that does not exist (which would rerun the
    // build script every time).
    assert!(st.watch.iter().any(|p| p.ends_with("src")), "{st:?}");
    assert!(st.watch.iter().all(|p| p.exists()), "{st:?}");
    // A repository that does not track this crate (a vendored copy) is not its repository.
    if git(&s.0, &["init", "-q"]) {
        assert_eq!(stamp::stamp(&k).commit, "unknown");
    }
}

/// A scratch workspace: `engine`, two adapters on it (`a`, `b`), and a registry crate; the
/// engine's tests depend on both adapters, as handoff's do.
fn scratch_workspace(dir: &Path) {
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\", \"crates/t/*\"]\n",
    );
    write(
        "crates/engine/Cargo.toml",
        "[package]\nname = \"engine\"\n[dependencies]\nlibc = \"0.2\"\n[dev-dependencies]\na = { path = \"../t/a\" }\nb = { path = \"../t/b\" }\n",
    );
    write("crates/engine/src/lib.rs", "pub fn run() {}\n");
    write("crates/engine/tests/it.rs", "#[test] fn t() {}\n");
    for name in ["a", "b"] {
        write(
            &format!("crates/t/{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\n[dependencies]\nthe-engine = {{ path = \"../../engine\", package = \"engine\" }}\n"),
        );
        write(&format!("crates/t/{name}/src/lib.rs"), "pub fn send() {}\n");
    }
    write(
        "Cargo.lock",
        "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\"engine\"]\n\n\
         [[package]]\nname = \"b\"\nversion = \"0.1.0\"\ndependencies = [\"engine\"]\n\n\
         [[package]]\nname = \"engine\"\nversion = \"0.1.0\"\ndependencies = [\"a\", \"b\", \"libc\"]\n\n\
         [[package]]\nname = \"libc\"\nversion = \"0.2.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"00\"\n",
    );
}

fn identities(dir: &Path) -> std::collections::BTreeMap<String, String> {
    sources::identities(dir).into_iter().collect()
}

#[test]
fn an_edit_changes_the_source_identity_of_its_crate_and_its_dependents_only() {
    let ws = Scratch::new("sources");
    scratch_workspace(&ws.0);
    let before = identities(&ws.0);
    assert_eq!(
        before.keys().map(String::as_str).collect::<Vec<_>>(),
        ["a", "b", "engine"],
        "every member, none of the registry's"
    );
    let edit = |rel: &str, text: &str| std::fs::write(ws.0.join(rel), text).unwrap();

    // An adapter's edit is its own: the other adapter and the engine keep theirs, though the
    // engine's tests depend on both adapters.
    edit("crates/t/a/src/lib.rs", "pub fn send() { let _ = 1; }\n");
    let after = identities(&ws.0);
    assert_ne!(after["a"], before["a"]);
    assert_eq!(after["b"], before["b"]);
    assert_eq!(after["engine"], before["engine"]);

    // The engine's edit reaches both adapters; its tests' edit reaches nothing.
    edit("crates/engine/tests/it.rs", "#[test] fn u() {}\n");
    assert_eq!(identities(&ws.0), after);
    edit("crates/engine/src/lib.rs", "pub fn run() { let _ = 2; }\n");
    let engine_edited = identities(&ws.0);
    for k in ["a", "b", "engine"] {
        assert_ne!(engine_edited[k], after[k], "{k}");
    }

    // The workspace's build settings reach every crate.
    edit(
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\", \"crates/t/*\"]\n[profile.release]\ncodegen-units = 1\n",
    );
    let settings = identities(&ws.0);
    for k in ["a", "b", "engine"] {
        assert_ne!(settings[k], engine_edited[k], "{k}");
    }

    // Nothing changed: the same identities, computed again.
    assert_eq!(identities(&ws.0), settings);
}

#[test]
fn a_workspace_without_a_readable_lock_has_no_source_identities() {
    let ws = Scratch::new("sources-nolock");
    scratch_workspace(&ws.0);
    std::fs::remove_file(ws.0.join("Cargo.lock")).unwrap();
    assert!(sources::identities(&ws.0).is_empty());
    std::fs::write(ws.0.join("Cargo.lock"), "[[package]\nname = ").unwrap();
    assert!(sources::identities(&ws.0).is_empty());
}
