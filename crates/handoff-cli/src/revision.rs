//! Building a revision of the checkout: a worktree of one commit, a `cargo build` of the
//! `handoff` executable in it, and links of that executable in other function orders, each kept
//! under `target/against/` (see [`crate::against`] and [`crate::link_orders`], which decide what
//! to build).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The profile this executable was built with, which the other build's is made to match, as
/// cargo names it in the target directory and in the build's identity (`debug` for the dev
/// profile).
pub(crate) fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

/// A detached worktree of a checkout at one commit, removed when dropped.
pub(crate) struct Worktree {
    top: PathBuf,
    /// Its directory.
    pub(crate) path: PathBuf,
}

impl Worktree {
    /// Checks `commit` of the checkout at `top` out under `top/target/against/`.
    pub(crate) fn add(top: &Path, commit: &str) -> Result<Worktree, String> {
        let short = &commit[..commit.len().min(12)];
        let path = top
            .join("target")
            .join("against")
            .join(format!("src-{short}-{}", std::process::id()));
        let tree = Worktree {
            top: top.to_path_buf(),
            path,
        };
        git(
            &[
                "worktree",
                "add",
                "--detach",
                "--force",
                &tree.path.to_string_lossy(),
                commit,
            ],
            Some(top),
        )?;
        Ok(tree)
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let path = self.path.to_string_lossy().into_owned();
        let _ = git(&["worktree", "remove", "--force", &path], Some(&self.top));
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = git(&["worktree", "prune"], Some(&self.top));
    }
}

/// Copies the executable `built` to `kept`, under a temporary name first and then renamed: a
/// copy cut short never leaves a half-written executable where the cache looks.
pub(crate) fn keep(built: &Path, kept: &Path) -> Result<(), String> {
    let dir = kept.parent().expect("a kept executable has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let part = kept.with_extension("part");
    std::fs::copy(built, &part).map_err(|e| format!("{}: {e}", built.display()))?;
    std::fs::rename(&part, kept).map_err(|e| format!("{}: {e}", kept.display()))
}

/// Cargo's `sub` command (`build`, `rustc`) for the handoff executable of the workspace in
/// `tree`, into `target`, in this executable's profile; its compiler output on standard error
/// unless `quiet`.
fn cargo(sub: &str, tree: &Path, target: &Path, quiet: bool) -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.current_dir(tree)
        .args([sub, "-p", "handoff-cli", "--bin", "handoff"])
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if profile() == "release" {
        cmd.arg("--release");
    }
    if quiet {
        cmd.stderr(Stdio::null());
    }
    cmd
}

/// Runs `cmd` (cargo's `sub` command), or says why it failed.
fn status(mut cmd: Command, sub: &str, hint: &str, quiet: bool) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        return Ok(());
    }
    let why = match (hint.is_empty(), quiet) {
        (true, false) => String::new(),
        (true, true) => " (run without --quiet to see why)".to_string(),
        (false, false) => format!(" ({hint})"),
        (false, true) => format!(" ({hint}; run without --quiet to see why)"),
    };
    Err(format!("cargo {sub} exited with {status}{why}"))
}

/// `cargo build` of the handoff executable in `tree`, into `target`.
pub(crate) fn cargo_build(tree: &Path, target: &Path, quiet: bool) -> Result<(), String> {
    let mut cmd = cargo("build", tree, target, quiet);
    cmd.arg("--locked");
    status(cmd, "build", "", quiet)
}

/// Runs git with `args` (in `dir`, else here) and returns its trimmed output, or why not.
pub(crate) fn git(args: &[&str], dir: Option<&Path>) -> Result<String, String> {
    let mut cmd = Command::new("git");
    cmd.args(args).stdin(Stdio::null());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.output().map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err
            .lines()
            .next()
            .unwrap_or("git failed")
            .trim()
            .to_string())
    }
}

/// Where the build of `commit` of the checkout at `top` is kept, with its orders.
pub(crate) fn kept_dir(top: &Path, commit: &str) -> PathBuf {
    let short = &commit[..commit.len().min(12)];
    top.join("target")
        .join("against")
        .join(format!("{short}-{}", profile()))
}

/// Where the orders of `commit`'s build are kept (seeds 1 to `n`).
pub(crate) fn kept_orders(top: &Path, commit: &str, n: usize) -> Vec<PathBuf> {
    let dir = kept_dir(top, commit);
    (1..=n)
        .map(|seed| dir.join(format!("handoff-order-{seed}")))
        .collect()
}

/// Links the build of `commit`, checked out in the worktree `tree` of the checkout at `top`,
/// in the orders 1 to `n` that are not kept yet, and keeps them. Run in the worktree the build
/// was just made in, each is a relink of the executable only.
pub(crate) fn link_revision(
    tree: &Path,
    top: &Path,
    commit: &str,
    n: usize,
    quiet: bool,
) -> Result<(), String> {
    let target = top.join("target").join("against").join("target");
    for (seed, kept) in (1..=n).zip(kept_orders(top, commit, n)) {
        if !kept.is_file() {
            relink(tree, &target, seed, true, quiet).and_then(|built| keep(&built, &kept))?;
        }
    }
    Ok(())
}

/// Links the `handoff` executable of the workspace in `tree` (built into `target`) with its
/// sections shuffled by `seed`, and returns where cargo left it.
pub(crate) fn relink(
    tree: &Path,
    target: &Path,
    seed: usize,
    locked: bool,
    quiet: bool,
) -> Result<PathBuf, String> {
    let mut cmd = cargo("rustc", tree, target, quiet);
    if locked {
        cmd.arg("--locked");
    }
    cmd.args([
        "--",
        "-C",
        &format!("link-arg=-Wl,--shuffle-sections=*={seed}"),
    ]);
    status(
        cmd,
        "rustc",
        "is the linker lld, which knows --shuffle-sections?",
        quiet,
    )?;
    Ok(target.join(profile()).join("handoff"))
}
