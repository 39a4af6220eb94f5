//! Reading a suite file: the document as `toml` parses it, with every key's and value's span,
//! so that every error says where it is.
//!
//! Every position comes from the TOML parser, never from the text of an error message:
//!
//! * a file that is not TOML fails `toml`'s own parse ([`DeTable::parse`]), and the error's span
//!   is the position;
//! * a file that is TOML but not a suite fails serde, and the error's span is that of a key or
//!   a value; the document, parsed again with its spans, says which key (and in which table) the
//!   span belongs to, so a message is prefixed with its key and an unknown key gets the keys of
//!   its own table ([`keys_of`]) as suggestions;
//! * a rule the builder checks ([`Broken`]) carries the span of the value it is about
//!   ([`Origin`]), and the element of a list it names is found among the list's parsed elements
//!   ([`Broken::locate`]);
//! * a list too long for the trial limit is refused before the document is built ([`long_list`]),
//!   by counting values over the parser's tokens (`toml_parser`, the parser `toml` itself uses),
//!   and the parser's events name its key.

use super::error::{Broken, PlanError, PlanErrorKind};
use super::fields::keys_of;
use super::schema::{Benchmark, Params, SuiteFile, ALIASES, BENCHMARK_ONLY, PARAM_KEYS, TOP_KEYS};
use super::value::{refused, Origin};
use crate::suggest::{LookupError, Thing};
use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;
use toml_parser::lexer::TokenKind;
use toml_parser::parser::EventReceiver;
use toml_parser::{ErrorSink, Source, Span};

impl Broken {
    /// Resolves the position in `text` (the file named `file`), and the key written there.
    pub fn locate(self, text: &str, file: &str) -> PlanError {
        match self.origin {
            Some(Origin::File(span)) => {
                let doc = DeTable::parse(text).ok();
                let at = doc
                    .as_ref()
                    .zip(self.word)
                    .and_then(|(doc, (w, nth))| element(doc, &span, &w, nth))
                    .unwrap_or(span.start);
                let key = self.key.or_else(|| {
                    let (path, _) = find(doc.as_ref()?, &span)?;
                    key_of(&path)
                });
                PlanError::at_offset(self.kind, text, file, at, self.message).about(key)
            }
            Some(Origin::Flag(flag)) => PlanError::in_file(
                self.kind,
                "command line",
                format!("{flag}: {}", self.message),
            )
            .about(self.key),
            None => PlanError::in_file(self.kind, file, self.message).about(self.key),
        }
    }
}

/// The offset of the `nth` element (0: the first) reading as `word` of the value spanning
/// `span` in `doc`: an element of the list written there, or the value itself.
fn element(
    doc: &Spanned<DeTable<'_>>,
    span: &Range<usize>,
    word: &str,
    nth: usize,
) -> Option<usize> {
    let mut found = None;
    walk_values(doc, &mut |v| {
        if found.is_none() && v.span() == *span {
            found = Some(match v.get_ref() {
                DeValue::Array(items) => items
                    .iter()
                    .filter(|x| reads_as(x.get_ref(), word))
                    .nth(nth)
                    .map(|x| x.span().start),
                one => (nth == 0 && reads_as(one, word)).then_some(span.start),
            });
        }
    });
    found.flatten()
}

/// Calls `f` on every value of `doc`, depth first.
fn walk_values<'a>(doc: &'a Spanned<DeTable<'a>>, f: &mut dyn FnMut(&'a Spanned<DeValue<'a>>)) {
    fn value<'a>(v: &'a Spanned<DeValue<'a>>, f: &mut dyn FnMut(&'a Spanned<DeValue<'a>>)) {
        f(v);
        match v.get_ref() {
            DeValue::Table(t) => t.values().for_each(|x| value(x, f)),
            DeValue::Array(a) => a.iter().for_each(|x| value(x, f)),
            _ => {}
        }
    }
    doc.get_ref().values().for_each(|x| value(x, f));
}

/// Whether a parsed value reads as `word` (a value's `Display`): a string holding it, or a
/// number or boolean of that value, however written (`0x40`, `1_000`).
fn reads_as(v: &DeValue<'_>, word: &str) -> bool {
    match v {
        DeValue::String(s) => s == word,
        DeValue::Integer(i) => {
            i128::from_str_radix(i.as_str(), i.radix()).is_ok_and(|n| n.to_string() == word)
        }
        DeValue::Float(f) => f.as_str() == word,
        DeValue::Boolean(b) => b.to_string() == word,
        _ => false,
    }
}

/// The suite file in `text` read into its schema, or the first mistake, in the words of this
/// tool: unknown keys with suggestions, misplaced keys named as such, value errors prefixed with
/// their key.
pub(crate) fn read(text: &str, file: &str) -> Result<SuiteFile, PlanError> {
    use PlanErrorKind as Kind;
    // Forget what an earlier parse on this thread refused.
    refused();
    let e = match toml::from_str(text) {
        Ok(suite) => return Ok(suite),
        Err(e) => e,
    };
    // A value refused by the schema's own rules, which say what kind of mistake it is; serde's
    // own refusals are of a value of the wrong type (`pin = 1`).
    let kind = refused().map_or(Kind::WrongType, Kind::from);
    // The same parse `toml` ran first: if it fails, the file is not TOML.
    let doc = match DeTable::parse(text) {
        Ok(doc) => doc,
        Err(syntax) => return Err(not_toml(text, file, &syntax)),
    };
    let raw = e.message().trim();
    let Some(span) = e.span() else {
        return Err(PlanError::in_file(kind, file, raw));
    };
    let Some((path, on)) = find(&doc, &span) else {
        return Err(PlanError::at_offset(kind, text, file, span.start, raw));
    };
    let table = Table::of(&path[..path.len() - usize::from(on == On::Key)]);
    if on == On::Key {
        let Some(Step::Key { name, .. }) = path.last() else {
            unreachable!("a key's path ends with the key")
        };
        if let Some(table) = table.filter(|t| !t.keys().contains(&name.as_str())) {
            let lookup = LookupError::new(Thing::Key, name, table.keys().iter().copied());
            let message = unknown_key(name, table);
            return Err(PlanError::at_offset(
                Kind::Unknown(Box::new(lookup)),
                text,
                file,
                span.start,
                message,
            )
            .about(Some(name.clone())));
        }
    }
    if let (On::Value, Some(DeValue::Table(t))) = (on, path.last().map(Step::value)) {
        let given = |k: &str| t.iter().find(|(key, _)| key.get_ref() == k);
        for (field, alias) in ALIASES {
            if table.is_some_and(|t| t.keys().contains(&field)) {
                if let (Some(a), Some(b)) = (given(field), given(alias)) {
                    let second = a.0.span().start.max(b.0.span().start);
                    let message =
                        format!("`{field}` is given twice (perhaps with its alias): give it once");
                    return Err(
                        PlanError::at_offset(Kind::Duplicate, text, file, second, message)
                            .about(Some(field.to_string())),
                    );
                }
            }
        }
    }
    let key = key_of(&path);
    let message = match &key {
        Some(key) => format!("`{key}`: {raw}"),
        None => raw.to_string(),
    };
    Err(PlanError::at_offset(kind, text, file, span.start, message).about(key))
}

/// A file that is not TOML: the parser's message and position; a key or table given twice is
/// named as such.
fn not_toml(text: &str, file: &str, e: &toml::de::Error) -> PlanError {
    let raw = e.message().trim();
    let Some(span) = e.span() else {
        return PlanError::in_file(PlanErrorKind::Syntax, file, format!("invalid TOML: {raw}"));
    };
    // The one message of the parser this layer names apart (`toml` gives its errors no kind);
    // any other wording reads as the parser's own, at the same place.
    if raw != "duplicate key" {
        let message = format!("invalid TOML: {raw}");
        return PlanError::at_offset(PlanErrorKind::Syntax, text, file, span.start, message);
    }
    let key = text.get(span.clone()).unwrap_or("?");
    let message = match headers(text).into_iter().find(|h| h.contains(&span.start)) {
        Some(header) => {
            let table = text
                .get(header)
                .map_or_else(|| format!("[{key}]"), str::to_string);
            format!("table {table} is given twice: give one {table} table with every key in it")
        }
        None => format!("duplicate key `{key}`: each key may be set once per table"),
    };
    PlanError::at_offset(PlanErrorKind::Duplicate, text, file, span.start, message)
        .about(Some(key.to_string()))
}

/// One step from the document's root towards a span.
#[derive(Clone, Debug)]
enum Step<'a> {
    /// A key and its value.
    Key {
        name: String,
        key: Range<usize>,
        value: &'a Spanned<DeValue<'a>>,
    },
    /// An element of an array.
    Item {
        index: usize,
        value: &'a Spanned<DeValue<'a>>,
    },
}

impl<'a> Step<'a> {
    /// Whether this is the key `name`.
    fn is_key(&self, name: &str) -> bool {
        matches!(self, Step::Key { name: n, .. } if n == name)
    }

    fn value(&self) -> &'a DeValue<'a> {
        match self {
            Step::Key { value, .. } | Step::Item { value, .. } => value.get_ref(),
        }
    }

    /// A key written `key = value` (or `a.b = value`), not in a `[table]` header: a header's
    /// span holds its key, a key/value pair's key comes before its value.
    fn written_key(&self) -> Option<&str> {
        match self {
            Step::Key { name, key, value } if value.span().start >= key.start => Some(name),
            _ => None,
        }
    }

    /// A dotted key's table (`a` of `a.b = 1`), whose span is its key's.
    fn dotted(&self) -> bool {
        matches!(self, Step::Key { key, value, .. }
            if value.span() == *key && matches!(value.get_ref(), DeValue::Table(_)))
    }
}

/// Whether an error's span is that of a key or of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum On {
    Key,
    Value,
}

/// The path from the root of `doc` to the key or value spanning `span`: the key of that span,
/// or else the innermost value of that span.
fn find<'a>(doc: &'a Spanned<DeTable<'a>>, span: &Range<usize>) -> Option<(Vec<Step<'a>>, On)> {
    fn table<'a>(
        t: &'a DeTable<'a>,
        span: &Range<usize>,
        path: &mut Vec<Step<'a>>,
        best: &mut Option<(Vec<Step<'a>>, On)>,
    ) -> bool {
        for (k, v) in t.iter() {
            path.push(Step::Key {
                name: k.get_ref().to_string(),
                key: k.span(),
                value: v,
            });
            if k.span() == *span {
                *best = Some((std::mem::take(path), On::Key));
                return true;
            }
            if value(v, span, path, best) {
                return true;
            }
            path.pop();
        }
        false
    }
    fn value<'a>(
        v: &'a Spanned<DeValue<'a>>,
        span: &Range<usize>,
        path: &mut Vec<Step<'a>>,
        best: &mut Option<(Vec<Step<'a>>, On)>,
    ) -> bool {
        if v.span() == *span {
            // The innermost value of that span wins (an array of tables and its first table
            // share the first header's span).
            *best = Some((path.clone(), On::Value));
        }
        match v.get_ref() {
            DeValue::Table(t) => table(t, span, path, best),
            DeValue::Array(a) => {
                for (index, x) in a.iter().enumerate() {
                    path.push(Step::Item { index, value: x });
                    if value(x, span, path, best) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            _ => false,
        }
    }
    let mut best = None;
    table(doc.get_ref(), span, &mut Vec::new(), &mut best);
    best
}

/// The key a value at the end of `path` was written under: the innermost key written
/// `key = value` (with the dotted keys before it, `ramp.start`), unless a `[table]` header comes
/// after it (the value is then a table of its own, or in one).
fn key_of(path: &[Step<'_>]) -> Option<String> {
    let last = path.iter().rposition(|s| matches!(s, Step::Key { .. }))?;
    let name = path[last].written_key()?;
    let mut parts = vec![name];
    for step in path[..last].iter().rev() {
        match step {
            Step::Key { name, .. } if step.dotted() => parts.push(name),
            _ => break,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The tables of a suite file that take a fixed set of keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Table {
    /// The top level.
    Top,
    /// `[defaults]`.
    Defaults,
    /// The nth `[[benchmark]]` (1-based).
    Benchmark(usize),
    /// A `ramp` table.
    Ramp,
    /// The nth `[[gate]]` (1-based).
    Gate(usize),
}

impl Table {
    /// The table at the end of `path`, if it is one of these.
    fn of(path: &[Step<'_>]) -> Option<Table> {
        match path {
            [] => Some(Table::Top),
            [d] if d.is_key("defaults") => Some(Table::Defaults),
            [b, Step::Item { index, .. }] if b.is_key("benchmark") => {
                Some(Table::Benchmark(index + 1))
            }
            [g, Step::Item { index, .. }] if g.is_key("gate") => Some(Table::Gate(index + 1)),
            [parent @ .., r] if r.is_key("ramp") => matches!(
                Table::of(parent),
                Some(Table::Defaults | Table::Benchmark(_))
            )
            .then_some(Table::Ramp),
            _ => None,
        }
    }

    /// The keys the table takes, as its type declares them.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Table::Top => keys_of::<SuiteFile>(),
            Table::Defaults => keys_of::<Params>(),
            Table::Benchmark(_) => keys_of::<Benchmark>(),
            Table::Ramp => super::value::ramp_keys(),
            Table::Gate(_) => keys_of::<super::schema::GateSpec>(),
        }
    }

    /// Where the table is, for a message: "in [[benchmark]] #2".
    fn place(self) -> String {
        match self {
            Table::Top => "at the top level".into(),
            Table::Defaults => "in [defaults]".into(),
            Table::Benchmark(n) => format!("in [[benchmark]] #{n}"),
            Table::Ramp => "in `ramp`".into(),
            Table::Gate(n) => format!("in [[gate]] #{n}"),
        }
    }
}

/// An unknown key `name` in `table`: where it belongs if it is a key elsewhere, else the
/// closest keys of its table.
fn unknown_key(name: &str, table: Table) -> String {
    let allowed = table.keys();
    let place = table.place();
    let top = table == Table::Top;
    let gate = matches!(table, Table::Gate(_));
    let ramp = table == Table::Ramp;
    let param = PARAM_KEYS.contains(&name);
    let bench_only = BENCHMARK_ONLY.contains(&name);
    let ramp_key = Table::Ramp.keys().contains(&name);
    if name == "max_trials" {
        return "`max_trials`: the trial limit is set on the command line (--max-trials N), not in a suite file".into();
    }
    if top && param {
        return format!("`{name}` belongs in [defaults] or a [[benchmark]], not at the top level");
    }
    if top && bench_only {
        return format!("`{name}` belongs in a [[benchmark]], not at the top level");
    }
    if table == Table::Defaults && bench_only {
        return format!("`{name}` belongs in a [[benchmark]], not in [defaults]");
    }
    if !top && !gate && TOP_KEYS.contains(&name) {
        return format!(
            "{place}: `{name}` is a setting of the whole suite: write it at the top of the file, above the first [table] (a key below a table's header belongs to that table)"
        );
    }
    if !top && !gate && !ramp && ramp_key {
        return format!(
            "{place}: `{name}` is a key of the rate search: write `ramp = {{ {name} = … }}`"
        );
    }
    if gate && (param || bench_only) {
        return format!(
            "{place}: unknown key `{name}` (a gate takes {}): a key below a [[gate]] header belongs to that gate; move it to [defaults] or a [[benchmark]]",
            allowed.join(", ")
        );
    }
    if top && ramp_key {
        return format!(
            "`{name}` is a key of the rate search: write `ramp = {{ {name} = … }}` in [defaults] or a [[benchmark]]"
        );
    }
    format!(
        "{place}: {}",
        LookupError::new(Thing::Key, name, allowed.iter().copied())
    )
}

/// The spans of the `[table]` and `[[table]]` headers of `text`, as the parser reads them.
fn headers(text: &str) -> Vec<Range<usize>> {
    #[derive(Default)]
    struct Headers {
        open: Option<usize>,
        spans: Vec<Range<usize>>,
    }
    impl EventReceiver for Headers {
        fn std_table_open(&mut self, span: Span, _: &mut dyn ErrorSink) {
            self.open = Some(span.start());
        }
        fn array_table_open(&mut self, span: Span, _: &mut dyn ErrorSink) {
            self.open = Some(span.start());
        }
        fn std_table_close(&mut self, span: Span, _: &mut dyn ErrorSink) {
            self.spans.extend(self.open.take().map(|s| s..span.end()));
        }
        fn array_table_close(&mut self, span: Span, _: &mut dyn ErrorSink) {
            self.spans.extend(self.open.take().map(|s| s..span.end()));
        }
    }
    let tokens = Source::new(text).lex().into_vec();
    let mut headers = Headers::default();
    toml_parser::parser::parse_document(&tokens, &mut headers, &mut ());
    headers.spans
}

/// The first array of `text` holding more than `limit` values: the offset of its `[` and its key.
/// Read from the parser's tokens before the document is built: a list of hundreds of thousands
/// of values is refused after reading `limit` of them.
pub(crate) fn long_list(text: &str, limit: u64) -> Option<(usize, Option<String>)> {
    /// An open bracket: an array (counting values) or an inline table.
    struct Open {
        array: bool,
        /// The offset of the bracket.
        at: usize,
        values: u64,
        /// A value may start here (after `[` or `,`).
        fresh: bool,
    }
    let mut tokens = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    for token in Source::new(text).lex() {
        tokens.push(token);
        let kind = token.kind();
        if matches!(
            kind,
            TokenKind::Whitespace | TokenKind::Newline | TokenKind::Comment | TokenKind::Eof
        ) {
            continue;
        }
        // A value starts: count it in the innermost array. (A header's brackets count at most
        // one value each, its name.)
        if let Some(top) = open.last_mut() {
            if top.array && top.fresh && kind != TokenKind::RightSquareBracket {
                top.fresh = false;
                top.values += 1;
                if top.values > limit {
                    let at = top.at;
                    let bracket = tokens.iter().rposition(|t| t.span().start() == at)?;
                    return Some((at, key_of_array(text, &tokens[..=bracket], at)));
                }
            }
        }
        match kind {
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => open.push(Open {
                array: kind == TokenKind::LeftSquareBracket,
                at: token.span().start(),
                values: 0,
                fresh: true,
            }),
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                open.pop();
            }
            TokenKind::Comma => {
                if let Some(top) = open.last_mut() {
                    top.fresh = true;
                }
            }
            _ => {}
        }
    }
    None
}

/// The key of the array whose `[` is at offset `at`, the last of `tokens`: the innermost key
/// written `key = …` around it (a list's own key, for a list inside a list).
fn key_of_array(text: &str, tokens: &[toml_parser::lexer::Token], at: usize) -> Option<String> {
    struct Keys<'t> {
        text: &'t str,
        at: usize,
        /// Inside a `[table]` header, whose keys are not keys of a value.
        header: bool,
        /// The parts of the key being read (`a.b`).
        parts: Vec<String>,
        /// The key whose value comes next.
        pending: Option<String>,
        /// The open arrays and inline tables, each with its key.
        open: Vec<(bool, Option<String>)>,
        found: Option<Option<String>>,
    }
    impl EventReceiver for Keys<'_> {
        fn std_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.header = true;
        }
        fn array_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.header = true;
        }
        fn std_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.header = false;
            self.parts.clear();
        }
        fn array_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.header = false;
            self.parts.clear();
        }
        fn simple_key(
            &mut self,
            span: Span,
            kind: Option<toml_parser::decoder::Encoding>,
            _: &mut dyn ErrorSink,
        ) {
            if self.header {
                return;
            }
            let mut name = String::new();
            if let Some(raw) = self.text.get(span.start()..span.end()) {
                toml_parser::Raw::new_unchecked(raw, kind, span).decode_key(&mut name, &mut ());
            }
            self.parts.push(name);
        }
        fn key_val_sep(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.pending = Some(std::mem::take(&mut self.parts).join("."));
        }
        fn scalar(
            &mut self,
            _: Span,
            _: Option<toml_parser::decoder::Encoding>,
            _: &mut dyn ErrorSink,
        ) {
            self.pending = None;
        }
        fn array_open(&mut self, span: Span, _: &mut dyn ErrorSink) -> bool {
            let key = self.pending.take().or_else(|| match self.open.last() {
                Some((true, key)) => key.clone(),
                _ => None,
            });
            if span.start() == self.at && self.found.is_none() {
                self.found = Some(key.clone());
            }
            self.open.push((true, key));
            true
        }
        fn array_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.open.pop();
        }
        fn inline_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) -> bool {
            let key = self.pending.take();
            self.open.push((false, key));
            true
        }
        fn inline_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
            self.open.pop();
        }
    }
    let mut keys = Keys {
        text,
        at,
        header: false,
        parts: Vec::new(),
        pending: None,
        open: Vec::new(),
        found: None,
    };
    toml_parser::parser::parse_document(tokens, &mut keys, &mut ());
    keys.found.flatten().filter(|k| !k.is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::error::position;
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position("a\nbc", 0), (1, 1));
        assert_eq!(position("a\nbc", 3), (2, 2));
        assert_eq!(position("é = 1", 3), (1, 3));
    }

    #[test]
    fn the_key_of_a_value_is_found_through_lists_and_inline_tables() {
        let text = "[[benchmark]]\ncapacity = [1,\n  0]\nramp = { start = 5, max = 0 }\n[defaults]\nramp.start = 1\n\"q\" = 2\n";
        let doc = DeTable::parse(text).unwrap();
        let key = |needle: &str| {
            let at = text.find(needle).unwrap();
            let mut span = None;
            walk_values(&doc, &mut |v| {
                if v.span().start == at && span.is_none() {
                    span = Some(v.span());
                }
            });
            let (path, on) = find(&doc, &span.unwrap()).unwrap();
            assert_eq!(on, On::Value);
            key_of(&path)
        };
        assert_eq!(key("0]").as_deref(), Some("capacity"));
        assert_eq!(key("5,").as_deref(), Some("start"));
        assert_eq!(key("0 }").as_deref(), Some("max"));
        assert_eq!(key("1\n").as_deref(), Some("ramp.start"));
        assert_eq!(key("2\n").as_deref(), Some("q"));
        // A table written with a header has no key of its own.
        let (path, _) = find(&doc, &(0..13)).unwrap();
        assert_eq!(key_of(&path), None);
        assert_eq!(Table::of(&path), Some(Table::Benchmark(1)));
    }

    #[test]
    fn unknown_keys_are_placed_and_suggested() {
        let m = unknown_key("capacit", Table::Benchmark(2));
        assert!(
            m.starts_with("in [[benchmark]] #2") && m.contains("`capacity`"),
            "{m}"
        );
        let m = unknown_key("transports", Table::Top);
        assert!(m.contains("belongs in a [[benchmark]]"), "{m}");
    }

    #[test]
    fn every_table_declares_its_keys_and_aliases() {
        for t in [
            Table::Top,
            Table::Defaults,
            Table::Benchmark(1),
            Table::Ramp,
            Table::Gate(1),
        ] {
            assert!(!t.keys().is_empty(), "{t:?}");
        }
        let bench = Table::Benchmark(1).keys();
        for (field, alias) in ALIASES {
            assert!(bench.contains(&field) && bench.contains(&alias), "{field}");
        }
        assert!(Table::Defaults
            .keys()
            .iter()
            .all(|k| PARAM_KEYS.contains(k)));
        assert!(Table::Ramp.keys().contains(&"step_ms"));
    }

    #[test]
    fn the_parsers_duplicate_key_error_is_the_one_named_apart() {
        // `not_toml` names this one message of the parser; a new wording would fall back to
        // "invalid TOML: …", still at the right place.
        let e = DeTable::parse("a = 1\na = 2\n").unwrap_err();
        assert_eq!(e.message(), "duplicate key");
        assert_eq!(e.span(), Some(6..7));
    }
}
