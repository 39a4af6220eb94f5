//! The module graph of every crate in the workspace has no import circle: no file reaches,
//! through `crate::…` and `super::…` paths, back to itself.
//!
//! Each `.rs` file under a crate's `src/` is a module (`lib.rs`/`main.rs` the crate root,
//! `a.rs` and `a/mod.rs` the module `a`, `a/b.rs` the module `a::b`). Every `crate::…` and
//! `super::…` path in its code (`use` trees and inline paths; not comments, doc comments or
//! string literals) names the longest module path that is a file; that makes an edge from the
//! file to that module's file. Edges to the crate root are ignored (it declares the modules and
//! re-exports from them), and so is test code: files named `tests.rs`, modules declared under
//! `#[cfg(test)]` and the items that attribute marks. A strongly connected component of more than
//! one file is a circle; the test lists each with one referencing line per edge. `self::…` and
//! bare relative paths (a parent naming its own child modules) are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("the workspace's crates directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    crates.sort();
    assert!(!crates.is_empty(), "no crate found under crates/");

    let mut report = String::new();
    let mut count = 0;
    for dir in &crates {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let src = dir.join("src");
        let mut files = Vec::new();
        read_sources(&src, &src, &mut files);
        for circle in circles(&files) {
            count += 1;
            report.push_str(&circle.describe(&format!("crates/{name}/src/")));
        }
    }
    assert!(
        count == 0,
        "{count} import circle(s) between modules:\n{report}"
    );
}

#[test]
fn the_detector_finds_a_circle_and_passes_a_chain() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());

    // `a` and `b` use each other: one circle of two files, through `super::` and `crate::`.
    let files = vec![
        file("lib.rs", "pub mod a;\npub mod b;\n"),
        file("a.rs", "use super::b::B;\npub struct A(B);\n"),
        file(
            "b.rs",
            "pub struct B;\nfn f() -> crate::a::A {\n    todo!()\n}\n",
        ),
    ];
    let found = circles(&files);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].files, ["a.rs", "b.rs"]);
    let edges: Vec<_> = found[0]
        .edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str(), e.line))
        .collect();
    assert_eq!(edges, [("a.rs", "b.rs", 1), ("b.rs", "a.rs", 2)]);
    assert!(found[0]
        .describe("src/")
        .contains("src/b.rs:2: fn f() -> crate::a::A {"));

    // A chain a -> b -> c through a nested `use` tree, and back-references that do not count:
    // a comment, a doc comment, a string, a test module, a test-only file and the crate root.
    let files = vec![
        file("lib.rs", "pub mod a;\npub mod b;\npub fn root() {}\n"),
        file("a.rs", "use crate::{b::{self, B}, root};\n"),
        file(
            "b/mod.rs",
            "pub mod c;\n#[cfg(test)]\nmod fixture;\n/// Like [`crate::a`].\npub struct B;\n\
             // use crate::a;\nconst S: &str = \"crate::a::X\";\nconst C: char = '\"';\n\
             fn g() { crate::root() }\n\
             #[cfg(test)]\nmod tests {\n    use crate::a;\n    fn t() { let _ = '{'; }\n}\n",
        ),
        file(
            "b/c.rs",
            "use super::super::b::B;\nuse crate::b::c::D as _;\n",
        ),
        file("b/fixture.rs", "use crate::a::*;\n"),
        file("b/tests.rs", "use crate::a::*;\n"),
    ];
    let found = circles(&files);
    assert!(found.is_empty(), "{found:?}");
    let (edges, _) = graph(&files);
    let pairs: Vec<_> = edges.keys().cloned().collect();
    assert_eq!(
        pairs,
        [
            ("a.rs".to_string(), "b/mod.rs".to_string()),
            ("b/c.rs".to_string(), "b/mod.rs".to_string()),
        ]
    );

    // `super` inside an inline module is that module's parent, and a block after the inline
    // module is the file's own again.
    let files = vec![
        file("lib.rs", "mod a;\nmod b;\n"),
        file(
            "a.rs",
            "mod inner {\n    use super::Here;\n}\nstruct Here;\n",
        ),
        file(
            "b.rs",
            "mod inner {\n    fn f() {}\n}\nuse super::a::Here;\n",
        ),
    ];
    let (edges, _) = graph(&files);
    let pairs: Vec<_> = edges.keys().cloned().collect();
    assert_eq!(pairs, [("b.rs".to_string(), "a.rs".to_string())]);
}

/// Reads every `.rs` file under `dir` into `out`, with its path relative to `src` (`/`-separated).
fn read_sources(src: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(src, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(src).unwrap();
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((rel.join("/"), text));
        }
    }
}

/// A circle: files that reach each other, and the edges between them.
#[derive(Debug)]
struct Circle {
    files: Vec<String>,
    edges: Vec<Edge>,
}

/// One file's reference to another module's file, with its first referencing line.
#[derive(Clone, Debug)]
struct Edge {
    from: String,
    to: String,
    line: usize,
    text: String,
}

impl Circle {
    fn describe(&self, prefix: &str) -> String {
        let mut s = format!("circle of {} files:\n", self.files.len());
        for f in &self.files {
            s.push_str(&format!("  {prefix}{f}\n"));
        }
        for e in &self.edges {
            s.push_str(&format!(
                "  {prefix}{} -> {prefix}{}\n    {prefix}{}:{}: {}\n",
                e.from, e.to, e.from, e.line, e.text
            ));
        }
        s
    }
}

/// The circles among `files` (paths relative to `src/`, with their text).
fn circles(files: &[(String, String)]) -> Vec<Circle> {
    let (edges, nodes) = graph(files);
    let nodes: Vec<String> = nodes.into_iter().collect();
    let index: BTreeMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut adjacency = vec![Vec::new(); nodes.len()];
    for (from, to) in edges.keys() {
        adjacency[index[from.as_str()]].push(index[to.as_str()]);
    }
    let mut found = Vec::new();
    for component in strongly_connected(&adjacency) {
        if component.len() < 2 {
            continue;
        }
        let mut members: Vec<String> = component.iter().map(|&i| nodes[i].clone()).collect();
        members.sort();
        let inside: BTreeSet<&str> = members.iter().map(String::as_str).collect();
        let circle_edges = edges
            .iter()
            .filter(|((f, t), _)| inside.contains(f.as_str()) && inside.contains(t.as_str()))
            .map(|(_, e)| e.clone())
            .collect();
        found.push(Circle {
            files: members,
            edges: circle_edges,
        });
    }
    found.sort_by(|a, b| a.files.cmp(&b.files));
    found
}

type Edges = BTreeMap<(String, String), Edge>;

/// The file-level edges among `files` (the first referencing line of each), and the files that
/// are not test code.
fn graph(files: &[(String, String)]) -> (Edges, BTreeSet<String>) {
    let scans: Vec<(String, Vec<String>, Scan)> = files
        .iter()
        .map(|(path, text)| {
            let module = module_of(path);
            let scan = scan(&module, text);
            (path.clone(), module, scan)
        })
        .collect();
    let test_only: Vec<&Vec<String>> = scans.iter().flat_map(|(_, _, s)| &s.test_modules).collect();
    let is_test = |module: &[String]| {
        module.iter().any(|m| m == "tests") || test_only.iter().any(|t| module.starts_with(t))
    };
    // The crate root (lib.rs, or main.rs) is left out: edges to it are ignored.
    let modules: BTreeMap<&[String], &str> = scans
        .iter()
        .filter(|(_, module, _)| !module.is_empty() && !is_test(module))
        .map(|(path, module, _)| (module.as_slice(), path.as_str()))
        .collect();
    let mut edges = Edges::new();
    for (path, module, scan) in &scans {
        if is_test(module) {
            continue;
        }
        let lines: Vec<&str> = files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.lines().collect())
            .unwrap_or_default();
        for r in &scan.references {
            let target = (1..=r.path.len())
                .rev()
                .find_map(|k| modules.get(&r.path[..k]).copied());
            let Some(target) = target else { continue };
            if target == path {
                continue;
            }
            edges
                .entry((path.clone(), target.to_string()))
                .or_insert_with(|| Edge {
                    from: path.clone(),
                    to: target.to_string(),
                    line: r.line,
                    text: lines.get(r.line - 1).map_or("", |l| l.trim()).to_string(),
                });
        }
    }
    let nodes = modules.values().map(|p| p.to_string()).collect();
    (edges, nodes)
}

/// The module a file under `src/` is: `lib.rs`/`main.rs` the root (empty), `a.rs` and
/// `a/mod.rs` `["a"]`, `a/b.rs` `["a", "b"]`.
fn module_of(path: &str) -> Vec<String> {
    let stem = path.strip_suffix(".rs").unwrap_or(path);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

/// Tarjan's strongly connected components of a graph given by adjacency lists.
fn strongly_connected(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adjacency: &'a [Vec<usize>],
        next: usize,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        components: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.adjacency[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let n = adjacency.len();
    let mut s = State {
        adjacency,
        next: 0,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        components: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.components
}

/// What a file's code refers to.
#[derive(Debug, Default)]
struct Scan {
    /// Absolute paths (crate root = empty) named by `crate::…` and `super::…`, with their line.
    references: Vec<Reference>,
    /// Modules declared under `#[cfg(test)]` as files (`#[cfg(test)] mod fixture;`).
    test_modules: Vec<Vec<String>>,
}

#[derive(Debug)]
struct Reference {
    path: Vec<String>,
    line: usize,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// The references in the text of the file that is module `module`.
fn scan(module: &[String], text: &str) -> Scan {
    let toks = tokens(&code_only(text));
    let is = |i: usize, t: Tok| toks.get(i).is_some_and(|x| x.tok == t);
    let ident = |i: usize| match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let mut out = Scan::default();
    // Inline modules the scan is in: name and the brace depth inside them.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let current = |inline: &[(String, usize)]| -> Vec<String> {
        let mut m = module.to_vec();
        m.extend(inline.iter().map(|(n, _)| n.clone()));
        m
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        if is_cfg_test(&toks, i) {
            // The item the attribute marks (after any further attributes and a visibility).
            let mut j = i + 7;
            while is(j, Tok::Punct('#')) && is(j + 1, Tok::Punct('[')) {
                j = skip_group(&toks, j + 1);
            }
            let item = j;
            if ident(j) == Some("pub") {
                j += 1;
                if is(j, Tok::Punct('(')) {
                    j = skip_group(&toks, j);
                }
            }
            if ident(j) == Some("mod") && is(j + 2, Tok::Punct(';')) {
                if let Some(name) = ident(j + 1) {
                    let mut m = current(&inline);
                    m.push(name.to_string());
                    out.test_modules.push(m);
                }
            }
            i = skip_item(&toks, item);
            continue;
        }
        match &toks[i].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| depth < *d) {
                    inline.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" && is(i + 2, Tok::Punct('{')) => {
                if let Some(name) = ident(i + 1) {
                    depth += 1;
                    inline.push((name.to_string(), depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let mut paths = Vec::new();
                let mut j = i + 1;
                if is(j, Tok::PathSep) {
                    j += 1;
                }
                use_tree(&toks, &mut j, Vec::new(), &mut paths);
                let here = current(&inline);
                for (path, line) in paths {
                    if let Some(path) = resolve(&path, &here) {
                        out.references.push(Reference { path, line });
                    }
                }
                // On to the end of the declaration.
                while j < toks.len() && !is(j, Tok::Punct(';')) {
                    j += 1;
                }
                i = j + 1;
                continue;
            }
            Tok::Ident(kw)
                if (kw == "crate" || kw == "super")
                    && is(i + 1, Tok::PathSep)
                    && !(i > 0 && is(i - 1, Tok::PathSep)) =>
            {
                let mut path = vec![kw.clone()];
                let mut line = toks[i].line;
                let mut j = i + 2;
                while let Some(seg) = ident(j) {
                    path.push(seg.to_string());
                    line = toks[j].line;
                    if is(j + 1, Tok::PathSep) {
                        j += 2;
                    } else {
                        j += 1;
                        break;
                    }
                }
                if let Some(path) = resolve(&path, &current(&inline)) {
                    out.references.push(Reference { path, line });
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether `#[cfg(test)]` starts at token `i`.
fn is_cfg_test(toks: &[Token], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.len() >= i + want.len()
        && toks[i..i + want.len()]
            .iter()
            .zip(&want)
            .all(|(t, w)| t.tok == *w)
}

/// The index after the bracketed group (`(…)`, `[…]` or `{…}`) that opens at `i`.
fn skip_group(toks: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < toks.len() {
        match toks[j].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// The index after the item that starts at `i`: its `;` outside brackets, or its `{…}` block.
fn skip_item(toks: &[Token], i: usize) -> usize {
    let mut j = i;
    while j < toks.len() {
        match toks[j].tok {
            Tok::Punct(';') => return j + 1,
            Tok::Punct('{') => return skip_group(toks, j),
            Tok::Punct('(' | '[') => j = skip_group(toks, j),
            _ => j += 1,
        }
    }
    j
}

/// Expands the `use` tree at `*i` into full paths (each with the line of its last segment).
fn use_tree(
    toks: &[Token],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, usize)>,
) {
    let mut path = prefix;
    while let Some(t) = toks.get(*i) {
        match &t.tok {
            Tok::Ident(s) => {
                if s != "self" || path.is_empty() {
                    path.push(s.clone());
                }
                *i += 1;
                if toks.get(*i).is_some_and(|t| t.tok == Tok::PathSep) {
                    *i += 1;
                    continue;
                }
                if toks
                    .get(*i)
                    .is_some_and(|t| t.tok == Tok::Ident("as".into()))
                {
                    *i += 2;
                }
                out.push((path, t.line));
                return;
            }
            Tok::Punct('*') => {
                *i += 1;
                out.push((path, t.line));
                return;
            }
            Tok::Punct('{') => {
                *i += 1;
                while let Some(t) = toks.get(*i) {
                    match t.tok {
                        Tok::Punct('}') => {
                            *i += 1;
                            return;
                        }
                        Tok::Punct(',') => *i += 1,
                        _ => {
                            let before = *i;
                            use_tree(toks, i, path.clone(), out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
                return;
            }
            _ => return,
        }
    }
}

/// The absolute module path `path` names from module `here`, when it starts with `crate` or
/// `super` (other paths are another crate's, or relative ones this check does not follow).
fn resolve(path: &[String], here: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "super" => {
            let mut b = here.to_vec();
            b.pop()?;
            b
        }
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    if first == "super" {
        while rest.peek().is_some_and(|s| *s == "super") {
            rest.next();
            base.pop()?;
        }
    }
    base.extend(rest.cloned());
    Some(base)
}

/// `text` with comments, string literals and character literals blanked out (newlines kept, so
/// line numbers stay).
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if ch == 'r' && raw_string_start(&c, i, ident_char) {
            let mut hashes = 0;
            let mut j = i + 1;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            // Past the opening quote, to a quote followed by as many hashes.
            j += 1;
            while j < c.len() {
                if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &x in &c[i..j.min(c.len())] {
                out.push(blank(x));
            }
            i = j;
        } else if ch == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            if i < c.len() {
                out.push(' ');
                i += 1;
            }
        } else if ch == '\'' && next == Some('\\') {
            // An escaped character literal: '\n', '\'', '\u{…}'.
            let mut j = i + 3;
            while j < c.len() && c[j] != '\'' {
                j += 1;
            }
            for &x in &c[i..(j + 1).min(c.len())] {
                out.push(blank(x));
            }
            i = j + 1;
        } else if ch == '\'' && c.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // Code, or a lifetime's quote.
            out.push(ch);
            i += 1;
        }
    }
    out
}

/// Whether a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) starts with the `r` at `i`.
fn raw_string_start(c: &[char], i: usize, ident_char: impl Fn(char) -> bool) -> bool {
    let starts_token = match i {
        0 => true,
        1 => !ident_char(c[0]) || c[0] == 'b',
        _ => !ident_char(c[i - 1]) || (c[i - 1] == 'b' && !ident_char(c[i - 2])),
    };
    if !starts_token {
        return false;
    }
    let mut j = i + 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    c.get(j) == Some(&'"')
}

/// The tokens of code (comments and literals already blanked): identifiers (and numbers), `::`
/// and single punctuation characters, each with its line.
fn tokens(code: &str) -> Vec<Token> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(c[start..i].iter().collect()),
                line,
            });
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}
