//! The commands the documented lines call, in a scratch directory: `handoff` (the binary under
//! test, in its quick form) and `cargo handoff …` (the alias the README uses, which runs the
//! same binary).

use std::path::Path;

/// What `handoff run` is given by the docs tests unless the documented command sets it: no
/// probe of the machine's limits, 5 samples of 5000 messages, no warm-up, and `--quick` (3
/// samples, a tenth of the messages, shorter ramps) unless the run is judged against a
/// baseline or its figures are compared (`full_samples` in `commands.toml`), where 5 samples
/// a side are kept: the least a comparison can judge at alpha 0.05, with room to spare. A
/// paired run (`--against`) keeps its own sample count: the pairs it needs, and a soak
/// (`--duration`) its length.
pub const QUICK: &[(&str, Option<&str>, &str)] = &[
    ("--no-probes", None, ""),
    ("--messages", None, "5000"),
    ("--samples", None, "5"),
    ("--warmup", None, "0"),
];

/// Writes `handoff` and `cargo` into `bin`: `handoff` runs `binary`, adding the [`QUICK`] flags
/// to `run` (none when `HANDOFF_DOCS_AS_WRITTEN` is set: the command as written); `cargo handoff ARGS` and `cargo run -p handoff-cli … --bin handoff -- ARGS` run
/// `handoff ARGS`, and any other cargo command is refused
/// (a documented cargo command other than the alias is not run by these tests).
pub fn write(bin: &Path, binary: &Path) {
    std::fs::create_dir_all(bin).unwrap();
    let mut quick = String::new();
    for (flag, short, value) in QUICK {
        let mut test = match short {
            Some(s) => format!("has {flag} || has {s}"),
            None => format!("has {flag}"),
        };
        if *flag == "--samples" {
            // A paired run takes the pairs it needs to judge anything (at least 12).
            test.push_str(" || has --against");
        }
        if *flag == "--messages" {
            // A soak is as long as its duration, not a count.
            test.push_str(" || has --duration");
        }
        let add = if value.is_empty() {
            format!("extra+=({flag})")
        } else {
            format!("extra+=({flag} {value})")
        };
        quick.push_str(&format!("  {test} || {add}\n"));
    }
    let handoff = format!(
        r#"#!/usr/bin/env bash
# The binary under test; `run` in the docs tests' quick form.
has() {{ local a; for a in "${{args[@]}}"; do [ "$a" = "$1" ] && return 0; case $a in "$1="*) return 0;; esac; done; return 1; }}
# A command marked `as_written` runs exactly as the document writes it.
[ -z "${{HANDOFF_DOCS_AS_WRITTEN-}}" ] || exec "{binary}" "$@"
args=("$@")
extra=()
if [ "${{1-}}" = run ]; then
{quick}  [ -n "${{HANDOFF_DOCS_FULL-}}" ] || has --baseline || has --quick || extra+=(--quick)
fi
exec "{binary}" "$@" "${{extra[@]}}"
"#,
        binary = binary.display()
    );
    let cargo = r#"#!/usr/bin/env bash
# `cargo handoff ARGS` is the README's alias for the release binary: here, the binary under test.
if [ "${1-}" = handoff ]; then shift; exec handoff "$@"; fi
# `cargo run --release -p handoff-cli [--features F] --bin handoff -- ARGS`, the long form the
# docs use for a build with a feature: the binary under test has the tests' features.
if [ "${1-}" = run ] && [[ " $* " == *" -p handoff-cli "* ]] && [[ " $* " == *" --bin handoff -- "* ]]; then
  while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
  shift
  exec handoff "$@"
fi
echo "docs tests: only the \`cargo handoff\` alias and \`cargo run -p handoff-cli --bin handoff --\` are run, not \`cargo $*\`" >&2
exit 99
"#;
    for (name, text) in [("handoff", handoff.as_str()), ("cargo", cargo)] {
        let path = bin.join(name);
        std::fs::write(&path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
