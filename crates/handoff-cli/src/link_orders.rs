//! `handoff run --against REV --link-orders N`: both builds linked in N function orders.
//!
//! The linker decides where each function sits, and a spinning loop's speed can depend on it;
//! one build per side is one draw of that placement. With `--link-orders N`, each side is
//! linked again N times with its input sections shuffled (`--shuffle-sections=*=SEED`, seeds 1
//! to N, a flag of LLVM's lld, which Rust uses by default on x86-64 Linux): the same machine
//! code in N placements. Only the `handoff` executable is linked again (`cargo rustc` with the
//! flag for its final link), so an order costs seconds once its side is built.
//!
//! The other side (a git revision) is linked in a worktree of that commit, with the shared
//! target directory of `--against`, and its orders are kept beside its build
//! (`target/against/<commit>-<profile>/handoff-order-<seed>`). This side is the checkout as it
//! is now, built into a target directory of its own (`target/against/this`) so that the
//! user's own build is never touched, and linked again on every run (its sources may have
//! changed). Its orders must run the code this executable runs: a build whose code differs
//! (this executable is older than the checkout's sources) is refused.

use crate::against::{self, OtherBuild};
use crate::revision::{self, kept_orders, link_revision, relink};
use crate::CliError;
use handoff::model::foreign::escaped;
use std::path::{Path, PathBuf};

/// Each side's executables, one per order (seed 1 first).
pub struct Orders {
    /// This build's.
    pub this: Vec<PathBuf>,
    /// The other build's.
    pub other: Vec<PathBuf>,
}

/// Links both sides of `other` in `n` orders; `names` are the transports the run measures,
/// whose code this side's orders must share with this executable (`catalog`'s).
pub fn link_orders(
    catalog: &handoff::catalog::Catalog,
    other: &OtherBuild,
    n: usize,
    names: &[&str],
    quiet: bool,
) -> Result<Orders, CliError> {
    let Some(rev) = &other.revision else {
        return Err(CliError::bad_input(format!(
            "--link-orders: --against {} names an executable, which cannot be linked again; name a git revision (e.g. HEAD~1)",
            escaped(&other.label)
        )));
    };
    let failed = |side: &str, why: String| CliError {
        code: crate::exit::RUN_ERROR,
        message: format!("--link-orders: linking {side} failed: {why}"),
    };
    let base = rev.top.join("target").join("against");
    let short = &rev.commit[..rev.commit.len().min(12)];
    let profile = revision::profile();

    // The other build's orders, kept by commit; a worktree only if one is missing (they are
    // linked with the build when it is made for the run: see `against::resolve`).
    let other_orders = kept_orders(&rev.top, &rev.commit, n);
    if other_orders.iter().any(|p| !p.is_file()) {
        say(
            quiet,
            &format!(
                "linking commit {short} in {n} order(s) (its build was made without them: it is built again first, minutes)"
            ),
        );
        let tree = revision::Worktree::add(&rev.top, &rev.commit)
            .map_err(|e| failed(&format!("commit {short}"), e))?;
        link_revision(&tree.path, &rev.top, &rev.commit, n, quiet)
            .map_err(|e| failed(&format!("commit {short}"), e))?;
    }

    // This build's orders, from the checkout as it is.
    say(
        quiet,
        &format!(
            "linking this checkout in {n} order(s) into {}",
            base.join("this").display()
        ),
    );
    let this_dir = base.join(format!("this-{profile}"));
    let mut this_orders = Vec::new();
    for seed in 1..=n {
        let kept = this_dir.join(format!("handoff-order-{seed}"));
        relink(&rev.top, &base.join("this"), seed, false, quiet)
            .and_then(|built| revision::keep(&built, &kept))
            .map_err(|e| failed("this checkout", e))?;
        this_orders.push(kept);
    }
    same_code_as_me(catalog, &this_orders[0], names)?;
    Ok(Orders {
        this: this_orders,
        other: other_orders,
    })
}

/// Refuses this side's orders if they run other code than this executable for any of `names`
/// (this executable was built from other sources than the checkout's current ones).
fn same_code_as_me(
    catalog: &handoff::catalog::Catalog,
    order: &Path,
    names: &[&str],
) -> Result<(), CliError> {
    let mine = handoff::code::identities(catalog, names.iter().copied());
    let theirs = against::code_of(order, names, true);
    let differ: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| match (mine.get(*n), theirs.get(*n)) {
            (Some(a), Some(b)) => a.digest != b.digest,
            _ => false,
        })
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(CliError::bad_input(format!(
            "--link-orders: this executable runs other code for {} than the checkout's sources built now: it is older than them; build it again (cargo build --release) and rerun",
            differ.join(", ")
        )))
    }
}

fn say(quiet: bool, what: &str) {
    if !quiet {
        eprintln!("handoff: --link-orders: {what}");
    }
}
