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

/// `cargo build` of the handoff executable in `tree`, into `target`.
pub(crate) fn cargo_build(tree: &Path, target: &Path, quiet: bool) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(tree)
        .args(["build", "-p", "handoff-cli", "--bin", "handoff", "--locked"])
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if profile() == "release" {
        cmd.arg("--release");
    }
    if quiet {
        cmd.stderr(Stdio::null());
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cargo build exited with {status}{}",
            if quiet {
                " (run without --quiet to see why)"
            } else {
                ""
            }
        ))
    }
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

/// Where the orders of `commit`'s build are kept (seeds 1 to `n`).
pub(crate) fn kept_orders(top: &Path, commit: &str, n: usize) -> Vec<PathBuf> {
    let short = &commit[..commit.len().min(12)];
    let dir = top
        .join("target")
        .join("against")
        .join(format!("{short}-{}", profile()));
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
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(tree)
        .args(["rustc", "-p", "handoff-cli", "--bin", "handoff"])
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if profile() == "release" {
        cmd.arg("--release");
    }
    if locked {
        cmd.arg("--locked");
    }
    cmd.args([
        "--",
        "-C",
        &format!("link-arg=-Wl,--shuffle-sections=*={seed}"),
    ]);
    if quiet {
        cmd.stderr(Stdio::null());
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo rustc exited with {status} (is the linker lld, which knows --shuffle-sections?{})",
            if quiet { " run without --quiet to see why" } else { "" }
        ));
    }
    Ok(target.join(profile()).join("handoff"))
}
