//! `handoff run --against OTHER`: the other build of a paired run, found or built.
//!
//! OTHER is either a handoff executable (a path to a file) or a git revision of the checkout the
//! command runs in. A revision is built once per commit, in a temporary worktree with the same
//! cargo profile as this executable, and kept as `target/against/<commit>/handoff` under the
//! checkout; the builds share one target directory (`target/against/target`), so a second
//! revision recompiles only what differs. Either way the executable is asked who it is
//! (`__identify`; a build older than that answers `--version`), so that a program that is not
//! handoff is refused before anything runs.

use crate::revision::{cargo_build, git, keep, kept_dir, link_revision, profile, Worktree};
use crate::CliError;
use handoff::model::foreign::escaped;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The other build, ready to serve workers.
#[derive(Clone, Debug)]
pub struct OtherBuild {
    /// What was named.
    pub label: String,
    /// Its executable.
    pub program: PathBuf,
    /// The commit it was built from, when known.
    pub commit: Option<String>,
    /// The checkout and full commit it was built from, when OTHER named a revision (not an
    /// executable): what `--link-orders` links again.
    pub revision: Option<Revision>,
}

/// A revision of a checkout.
#[derive(Clone, Debug)]
pub struct Revision {
    /// The checkout's top directory.
    pub top: PathBuf,
    /// The full commit.
    pub commit: String,
}

/// What `handoff __identify` prints: one line of JSON.
#[derive(serde::Serialize, serde::Deserialize)]
struct Identity {
    tool: String,
    version: String,
    commit: String,
    profile: String,
}

/// Prints this executable's identity (`handoff __identify`).
pub fn identify() -> Result<u8, CliError> {
    let env = handoff::environment::detect();
    let me = Identity {
        tool: "handoff".into(),
        version: env.tool_version,
        commit: env.git_commit,
        profile: env.build_profile,
    };
    println!(
        "{}",
        serde_json::to_string(&me).expect("an identity serialises")
    );
    Ok(crate::exit::OK)
}

/// Prints the code identity of each named transport's trials in this build (every transport's
/// when none is named) as one line of JSON, a map from name to identity (`handoff __code`).
/// Transports whose code cannot be identified here are left out.
pub fn code(catalog: &handoff::catalog::Catalog, names: &[String]) -> Result<u8, CliError> {
    let all: Vec<&str> = if names.is_empty() {
        catalog
            .entries()
            .iter()
            .map(|e| e.info().name.as_str())
            .collect()
    } else {
        names.iter().map(String::as_str).collect()
    };
    let map = handoff::code::identities(catalog, all);
    println!(
        "{}",
        serde_json::to_string(&map).expect("code identities serialise")
    );
    Ok(crate::exit::OK)
}

/// The code identities of `names` in the other build, asked of its executable. A build that
/// cannot say (one older than code identities) gives none, said once on standard error: its
/// rows then say their code is unknown.
pub fn code_of(
    program: &Path,
    names: &[&str],
    quiet: bool,
) -> std::collections::BTreeMap<String, handoff::report::CodeIdentity> {
    let asked = Command::new(program)
        .arg("__code")
        .args(names)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let parsed = asked.ok().filter(|o| o.status.success()).and_then(|o| {
        serde_json::from_slice::<std::collections::BTreeMap<String, handoff::report::CodeIdentity>>(
            &o.stdout,
        )
        .ok()
    });
    match parsed {
        Some(map) => map,
        None => {
            if !quiet {
                eprintln!(
                    "handoff: --against {}: that build cannot identify its code (older than code identities); every row's code is unknown",
                    program.display()
                );
            }
            Default::default()
        }
    }
}

/// Finds or builds OTHER; `quiet` keeps a build's compiler output off standard error. A
/// revision built now is linked in `orders` function orders as well (see
/// [`crate::link_orders`]), while its worktree stands.
pub fn resolve(other: &str, orders: usize, quiet: bool) -> Result<OtherBuild, CliError> {
    let path = Path::new(other);
    if path.is_file() {
        let program = path
            .canonicalize()
            .map_err(|e| CliError::bad_input(format!("--against {}: {e}", escaped(other))))?;
        let commit = identity_of(&program, other)?;
        return Ok(OtherBuild {
            label: other.to_string(),
            program,
            commit,
            revision: None,
        });
    }
    if path.is_dir() {
        return Err(CliError::bad_input(format!(
            "--against {}: a directory; name a handoff executable (e.g. target/release/handoff) or a git revision",
            escaped(other)
        )));
    }
    let top = git(&["rev-parse", "--show-toplevel"], None).map_err(|why| {
        CliError::bad_input(format!(
            "--against {}: no such file, and not in a git checkout to find it as a revision ({why})",
            escaped(other)
        ))
    })?;
    let top = PathBuf::from(top);
    let commit = git(
        &["rev-parse", "--verify", "--quiet", &format!("{other}^{{commit}}")],
        Some(&top),
    )
    .map_err(|_| {
        CliError::bad_input(format!(
            "--against {}: neither a file nor a revision of the checkout at {} (a commit, branch or tag, e.g. HEAD~1 or main)",
            escaped(other),
            top.display()
        ))
    })?;
    if !top.join("crates/handoff-cli/Cargo.toml").is_file() {
        return Err(CliError::bad_input(format!(
            "--against {}: the checkout at {} is not handoff's (no crates/handoff-cli), so the revision cannot be built; name an executable instead",
            escaped(other),
            top.display()
        )));
    }
    let program = build(&top, &commit, other, orders, quiet)?;
    identity_of(&program, other)?;
    Ok(OtherBuild {
        label: other.to_string(),
        program,
        commit: Some(commit[..commit.len().min(12)].to_string()),
        revision: Some(Revision { top, commit }),
    })
}

/// Builds `commit` of the checkout at `top` (cached by commit and profile) and returns its
/// executable.
fn build(
    top: &Path,
    commit: &str,
    named: &str,
    orders: usize,
    quiet: bool,
) -> Result<PathBuf, CliError> {
    let base = top.join("target").join("against");
    let short = &commit[..commit.len().min(12)];
    let kept = kept_dir(top, commit).join("handoff");
    if kept.is_file() {
        if !quiet {
            eprintln!(
                "handoff: --against {}: commit {short}, built before ({})",
                escaped(named),
                kept.display()
            );
        }
        return Ok(kept);
    }
    let failed = |why: String| CliError {
        code: crate::exit::RUN_ERROR,
        message: format!(
            "--against {}: building commit {short} failed: {why}",
            escaped(named)
        ),
    };
    std::fs::create_dir_all(&base).map_err(|e| failed(format!("{}: {e}", base.display())))?;
    eprintln!(
        "handoff: --against {}: building commit {short} ({} profile) into {}; this takes minutes once, then it is kept",
        escaped(named),
        profile(),
        kept.display()
    );
    let tree = Worktree::add(top, commit).map_err(&failed)?;
    let result = cargo_build(&tree.path, &base.join("target"), quiet);
    let built = base.join("target").join(profile()).join("handoff");
    // The worktree goes whatever happened.
    let copied = result
        .and_then(|()| keep(&built, &kept))
        .and_then(|()| link_revision(&tree.path, top, commit, orders, quiet));
    drop(tree);
    copied.map_err(failed)?;
    Ok(kept)
}

/// Asks `program` who it is: its commit when it says (`__identify`), `None` for an older handoff
/// that only answers `--version`; an error when it is not handoff at all.
fn identity_of(program: &Path, named: &str) -> Result<Option<String>, CliError> {
    let not_handoff = |why: String| {
        CliError::bad_input(format!(
            "--against {}: not a handoff executable ({why})",
            escaped(named)
        ))
    };
    if let Ok(out) = output_within(program, &["__identify"], Duration::from_secs(10)) {
        if let Ok(id) = serde_json::from_str::<Identity>(out.trim()) {
            if id.tool == "handoff" {
                if id.profile != profile() {
                    eprintln!(
                        "handoff: warning: --against {} is a {} build, this one {}: the figures compare the profiles too",
                        escaped(named),
                        escaped(&id.profile),
                        profile()
                    );
                }
                return Ok(Some(id.commit));
            }
        }
    }
    let version =
        output_within(program, &["--version"], Duration::from_secs(10)).map_err(not_handoff)?;
    if version.starts_with("handoff ") {
        Ok(None)
    } else {
        let first = version.lines().next().unwrap_or("").trim();
        Err(not_handoff(format!(
            "its --version printed `{}`",
            escaped(&first.chars().take(80).collect::<String>())
        )))
    }
}

/// Runs `program args` and returns its standard output if it exits 0 within `limit`.
fn output_within(program: &Path, args: &[&str], limit: Duration) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let reader = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut s);
            s
        })
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{}` did not answer within {limit:?}",
                    args.join(" ")
                ));
            }
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    let out = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    if status.success() {
        Ok(out)
    } else {
        Err(format!("`{}` exited with {status}", args.join(" ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_or_an_unknown_revision_is_bad_input() {
        let e = resolve("/", 0, true).unwrap_err();
        assert_eq!(e.code, crate::exit::BAD_INPUT);
        assert!(e.message.contains("a directory"), "{}", e.message);
        let e = resolve("no-such-revision-or-file-xyz", 0, true).unwrap_err();
        assert_eq!(e.code, crate::exit::BAD_INPUT);
        assert!(
            e.message
                .starts_with("--against no-such-revision-or-file-xyz: "),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_program_that_is_not_handoff_is_refused() {
        let e = resolve("/bin/true", 0, true).unwrap_err();
        assert_eq!(e.code, crate::exit::BAD_INPUT);
        assert!(
            e.message.contains("not a handoff executable"),
            "{}",
            e.message
        );
    }
}
