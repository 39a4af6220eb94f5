//! Every document states what its commands need before they can run: a paragraph beginning
//! `Prerequisites:` above the first command, and above any later command that needs more. What
//! a command needs is read from its text by the `[[setup]]` rules of `commands.toml` (a
//! `--features brokers` build needs librdkafka's build dependencies, `suites/brokers.toml` the
//! brokers running, …); a document whose commands need a step its prerequisites do not name
//! fails, and so does one that names a step none of its commands needs.
//!
//! The test command does every set-up step before the docs tests run, so running the commands
//! cannot catch a step a document forgot to name; this check reads the documents instead.

use crate::extract::Documented;
use serde::Deserialize;

/// A set-up step some commands need, from `commands.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Ways a document may name the step (any one will do): a script, a package, a build.
    pub names: Vec<String>,
    /// Fragments of a command's text that show it needs the step, each matched at the start of
    /// a word (`--features brokers`, `suites/brokers.toml`), or at the start of the command
    /// when written with a leading `^` (`^handoff `).
    pub when: Vec<String>,
    /// Why the step is needed, for the failure message.
    pub why: String,
}

impl Setup {
    /// Whether `command` needs this step.
    fn needed_by(&self, command: &str) -> bool {
        self.when.iter().any(|w| at_word_start(command, w))
    }
}

/// Whether `fragment` occurs in `text` at its start or after a space, `=`, `(` or `$`; with a
/// leading `^`, whether `text` begins with the rest.
fn at_word_start(text: &str, fragment: &str) -> bool {
    if let Some(head) = fragment.strip_prefix('^') {
        return text.starts_with(head);
    }
    text.match_indices(fragment)
        .any(|(at, _)| at == 0 || matches!(text.as_bytes()[at - 1], b' ' | b'=' | b'(' | b'$'))
}

/// A paragraph of a document that begins `Prerequisites:` (outside code blocks): the line it
/// begins on and its text, lines joined.
#[derive(Debug)]
pub struct Paragraph {
    pub line: usize,
    pub text: String,
}

/// The `Prerequisites:` paragraphs of a document's text.
pub fn paragraphs(text: &str) -> Vec<Paragraph> {
    let mut out: Vec<Paragraph> = Vec::new();
    let mut current: Option<Paragraph> = None;
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            out.extend(current.take());
            continue;
        }
        if in_code || trimmed.is_empty() {
            out.extend(current.take());
            continue;
        }
        match current.as_mut() {
            Some(p) => {
                p.text.push(' ');
                p.text.push_str(trimmed);
            }
            None if trimmed
                .trim_start_matches('*')
                .starts_with("Prerequisites:") =>
            {
                current = Some(Paragraph {
                    line: i + 1,
                    text: trimmed.to_string(),
                });
            }
            None => {}
        }
    }
    out.extend(current);
    out
}

/// What is wrong with the prerequisites `doc` (its `text`) states for its `commands`, by the
/// `setups`: each problem a line naming the document and line.
pub fn problems(doc: &str, text: &str, commands: &[&Documented], setups: &[Setup]) -> Vec<String> {
    let Some(first) = commands.first() else {
        return Vec::new();
    };
    let paragraphs = paragraphs(text);
    let mut out = Vec::new();
    if !paragraphs.iter().any(|p| p.line < first.line) {
        out.push(format!(
            "{doc}: no paragraph beginning `Prerequisites:` above its first command (line {}): \
             say what a reader installs, starts and builds before running it",
            first.line
        ));
    }
    for s in setups {
        let unnamed: Vec<&&Documented> = commands
            .iter()
            .filter(|c| s.needed_by(&c.text))
            .filter(|c| {
                !paragraphs
                    .iter()
                    .filter(|p| p.line < c.line)
                    .any(|p| s.names.iter().any(|n| p.text.contains(n.as_str())))
            })
            .collect();
        if let Some(c) = unnamed.first() {
            let more = match unnamed.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} command(s) after it)"),
            };
            out.push(format!(
                "{doc}:{}: `{}`{more} needs {}, which no `Prerequisites:` paragraph above it \
                 names (one of: {})",
                c.line,
                c.text,
                s.why,
                s.names.join(", ")
            ));
        }
    }
    let needed: Vec<&Setup> = setups
        .iter()
        .filter(|s| commands.iter().any(|c| s.needed_by(&c.text)))
        .collect();
    for p in &paragraphs {
        for s in setups {
            for n in s.names.iter().filter(|n| p.text.contains(n.as_str())) {
                let wanted = needed.iter().any(|w| w.names.contains(n));
                if !wanted {
                    out.push(format!(
                        "{doc}:{}: its prerequisites name `{n}`, which none of its commands needs",
                        p.line
                    ));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setups() -> Vec<Setup> {
        vec![
            Setup {
                names: vec!["scripts/brokers start".into()],
                when: vec!["suites/brokers.toml".into()],
                why: "the brokers running".into(),
            },
            Setup {
                names: vec!["a C compiler".into()],
                when: vec!["cc ".into()],
                why: "a C compiler".into(),
            },
        ]
    }

    fn check(text: &str) -> Vec<String> {
        let commands = crate::extract::in_text("d.md", text);
        let refs: Vec<&Documented> = commands.iter().collect();
        problems("d.md", text, &refs, &setups())
    }

    #[test]
    fn a_document_that_names_what_its_commands_need_passes() {
        let doc = "# D\n\nPrerequisites: the brokers running\n(`scripts/brokers start`).\n\n```sh\nhandoff run suites/brokers.toml\n```\n";
        assert_eq!(check(doc), Vec::<String>::new());
    }

    #[test]
    fn a_missing_paragraph_a_step_named_too_late_and_a_step_not_needed_are_each_said() {
        let none = "# D\n\n```sh\nhandoff list\n```\n";
        let found = check(none);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("above its first command (line 4)"));

        let late = "# D\n\nPrerequisites: nothing.\n\n```sh\nhandoff run suites/brokers.toml\n```\n\nPrerequisites: `scripts/brokers start`.\n";
        let found = check(late);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0]
            .starts_with("d.md:6: `handoff run suites/brokers.toml` needs the brokers running"));

        let stale = "# D\n\n**Prerequisites:** a C compiler.\n\n```sh\nhandoff list\n```\n";
        let found = check(stale);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("name `a C compiler`, which none of its commands needs"));
    }

    #[test]
    fn fragments_match_at_the_start_of_a_word_only() {
        assert!(at_word_start("cc -O2 x.c", "cc "));
        assert!(at_word_start("x=$(cc -v)", "cc "));
        assert!(!at_word_start("gcc -O2 x.c", "cc "));
        assert!(at_word_start(
            "run --features brokers --bin",
            "--features brokers"
        ));
        assert!(at_word_start("handoff run", "^handoff "));
        assert!(!at_word_start("cargo handoff run", "^handoff "));
    }

    #[test]
    fn paragraphs_inside_code_blocks_do_not_count() {
        let text = "```sh\nPrerequisites: no\n```\nPrerequisites: one\nline two\n\nafter\n";
        let found = paragraphs(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, 4);
        assert_eq!(found[0].text, "Prerequisites: one line two");
    }
}
