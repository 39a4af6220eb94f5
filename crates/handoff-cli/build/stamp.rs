//! The git commit a build is made from, `-dirty` when tracked files differ from it, and the
//! paths whose change must make the build script stamp again.
//!
//! Used by the crate's build script (and by its own test, which runs it on scratch
//! repositories). The stamp must not claim a clean commit for an edited tree, so the script
//! reruns when the commit can change (`HEAD`, the branch it points to, `packed-refs`, the
//! index) **and** when sources change (this crate's and the workspace's: `crates/`, `suites/`,
//! the Cargo files): an edit to a tracked file then restamps the build `-dirty`. Git's own
//! directories are found with `git rev-parse`, so a worktree (whose `.git` is a file naming a
//! directory elsewhere) works like a clone. Without git, or outside a repository that tracks
//! this crate (a source archive, a vendored copy), the commit is `unknown`. Nothing here
//! panics. `git status` runs with `--no-optional-locks`: a build must not write the index it
//! watches.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the build script prints.
#[derive(Debug)]
pub struct Stamp {
    /// A short commit hash, with `-dirty` if tracked files differ from it, or `unknown`.
    pub commit: String,
    /// Paths (each existing) whose change must rerun the build script.
    pub watch: Vec<PathBuf>,
}

/// The stamp of the crate in `crate_dir`.
pub fn stamp(crate_dir: &Path) -> Stamp {
    let mut watch = vec![
        crate_dir.join("src"),
        crate_dir.join("Cargo.toml"),
        crate_dir.join("build.rs"),
        crate_dir.join("build"),
    ];
    let commit = match repository(crate_dir) {
        Some(repo) => {
            watch.extend(repo.watch);
            repo.commit
        }
        None => "unknown".to_string(),
    };
    watch.retain(|p| p.exists());
    watch.sort();
    watch.dedup();
    Stamp { commit, watch }
}

struct Repository {
    commit: String,
    watch: Vec<PathBuf>,
}

/// The commit and git's paths, if `crate_dir` is tracked by a git repository.
fn repository(crate_dir: &Path) -> Option<Repository> {
    // Inside someone else's repository (a vendored copy), this crate is not tracked.
    git(crate_dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let head = git(crate_dir, &["rev-parse", "--short=12", "HEAD"])?;
    let absolute = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            crate_dir.join(p)
        }
    };
    let git_dir = absolute(git(crate_dir, &["rev-parse", "--git-dir"])?);
    // Refs live in the common directory (a worktree's git directory holds its HEAD and index
    // only); older git prints it relative to the working directory.
    let common = git(
        crate_dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .or_else(|| git(crate_dir, &["rev-parse", "--git-common-dir"]))
    .map_or(git_dir.clone(), absolute);
    let top = absolute(git(crate_dir, &["rev-parse", "--show-toplevel"])?);
    let mut watch = vec![
        git_dir.join("HEAD"),
        git_dir.join("index"),
        common.join("packed-refs"),
        top.join("Cargo.toml"),
        top.join("Cargo.lock"),
        top.join("crates"),
        top.join("suites"),
    ];
    // The branch HEAD points to moves with every commit; HEAD itself does not.
    if let Some(branch) = git(crate_dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.push(common.join(branch));
    }
    let dirty = git(
        crate_dir,
        &[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=no",
        ],
    )
    .is_some_and(|s| !s.is_empty());
    Some(Repository {
        commit: if dirty { format!("{head}-dirty") } else { head },
        watch,
    })
}

/// The trimmed output of a git command run in `dir`, if it ran and succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    String::from_utf8(out.stdout)
        .ok()
        .map(|s| s.trim().to_string())
}
