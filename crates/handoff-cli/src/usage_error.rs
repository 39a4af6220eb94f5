//! A command line clap refuses, said in one line: its error and its usage line, without the
//! blank lines and the "For more information" trailer clap adds (every error of the command is
//! one line; `--help` is one flag away, and the error names the flag and value at fault).

/// The lines of clap's rendered error that say what is wrong, joined into one: blank lines and
/// the trailer are left out, a line ending in `:` runs on into the next, a `tip:` and the usage
/// line (which names the flags a missing argument is required by) follow after a `;`.
pub fn one_line(rendered: &str) -> String {
    let mut out = String::new();
    for line in rendered.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("For more information") {
            break;
        }
        if !out.is_empty() {
            out.push_str(if out.ends_with(':') { " " } else { "; " });
        }
        out.push_str(t);
        if t.starts_with("Usage:") {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_goes_and_a_tip_and_the_usage_stay() {
        let e = "error: invalid value 'spcs' for '--workload <WORKLOAD>': unknown workload `spcs`; did you mean `spsc`?\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(e),
            "error: invalid value 'spcs' for '--workload <WORKLOAD>': unknown workload `spcs`; did you mean `spsc`?"
        );
        let e = "error: unexpected argument '-x' found\n\n  tip: to pass '-x' as a value, use '-- -x'\n\nUsage: handoff run [OPTIONS] [SUITE]\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(e),
            "error: unexpected argument '-x' found; tip: to pass '-x' as a value, use '-- -x'; Usage: handoff run [OPTIONS] [SUITE]"
        );
        let e = "error: the following required arguments were not provided:\n  <--baseline <BASELINE>|--against <OTHER>>\n\nUsage: handoff run --max-regression <MAX_REGRESSION> <--baseline <BASELINE>|--against <OTHER>>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(e),
            "error: the following required arguments were not provided: <--baseline <BASELINE>|--against <OTHER>>; Usage: handoff run --max-regression <MAX_REGRESSION> <--baseline <BASELINE>|--against <OTHER>>"
        );
    }
}
