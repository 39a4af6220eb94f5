//! The commands a reader can copy from README.md and docs/*.md: every line of a ```sh block
//! that is not a comment, with continuation lines joined and the trailing comment dropped.

use std::path::Path;

/// One documented command.
#[derive(Clone, Debug)]
pub struct Documented {
    /// The file it is in, relative to the repository (`docs/history.md`).
    pub doc: String,
    /// Its line there.
    pub line: usize,
    /// As written, without the comment and with runs of spaces made one: what is run, and the
    /// key of its expectations.
    pub text: String,
}

/// Every documented command of the repository at `root`, README first, then docs/ by name.
pub fn commands(root: &Path) -> Vec<Documented> {
    let mut docs = vec!["README.md".to_string()];
    let mut names: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    docs.extend(names.into_iter().map(|n| format!("docs/{n}")));
    let mut out = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(root.join(&doc)).expect("a readable doc");
        out.extend(in_text(&doc, &text));
    }
    out
}

/// The commands of one document.
pub fn in_text(doc: &str, text: &str) -> Vec<Documented> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(lang) = trimmed.strip_prefix("```") {
            in_sh = !in_sh && (lang == "sh" || lang == "console" || lang == "bash");
            continue;
        }
        if !in_sh {
            continue;
        }
        let (start, mut joined) = match pending.take() {
            Some((start, so_far)) => (start, format!("{so_far} {trimmed}")),
            None if !trimmed.is_empty() && !trimmed.starts_with('#') => {
                (i + 1, trimmed.to_string())
            }
            None => continue,
        };
        if let Some(body) = joined.strip_suffix('\\') {
            joined = body.trim_end().to_string();
            pending = Some((start, joined));
            continue;
        }
        out.push(Documented {
            doc: doc.to_string(),
            line: start,
            text: without_comment(&joined),
        });
    }
    out
}

/// The command as written, up to its comment, with runs of spaces made one.
fn without_comment(line: &str) -> String {
    let mut end = line.len();
    let (mut single, mut double) = (false, false);
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && (i == 0 || bytes[i - 1] == b' ') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    line[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn words_and_comments_are_read_as_a_shell_would() {
    assert_eq!(
        without_comment(r#"handoff run --note "a # b"   -t x # comment"#),
        r#"handoff run --note "a # b" -t x"#
    );
    let doc = "text\n```sh\n# a comment\ncargo handoff run -t a \\\n    -w spsc   # why\nls\n```\n```rust\nhandoff run\n```\n";
    let found = in_text("d.md", doc);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].text, "cargo handoff run -t a -w spsc");
    assert_eq!(found[0].line, 4);
    assert_eq!(found[1].text, "ls");
}
