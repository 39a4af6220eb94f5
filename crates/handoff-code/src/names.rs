//! Symbol names: the canonical name a function is known by in every build, and the plain
//! path a caller can look a function up by.

/// A symbol's name without the suffixes a compiler or linker adds that depend on where the
/// function was compiled rather than on what it is: ThinLTO's `.llvm.<digits>` (the module's
/// hash), numbered clones (`.cold.3`, `.part.1`, `.constprop.0`: the number dropped, the kind
/// kept), anonymous constants' hashes (`anon.<hash>.<n>` is `anon`).
pub(crate) fn canonical(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, part) in raw.split('.').enumerate() {
        if i == 0 {
            out.push_str(part);
            continue;
        }
        let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        let hexish = part.len() >= 8 && part.bytes().all(|b| b.is_ascii_hexdigit());
        if part == "llvm" || digits || hexish {
            continue;
        }
        out.push('.');
        out.push_str(part);
    }
    out
}

/// Whether a data symbol's canonical name names its object the same way in every build: not
/// an anonymous constant (`anon`), not a name the compiler numbers (`GCC_except_table12`).
pub(crate) fn stable_data_name(name: &str) -> bool {
    name != "anon" && !name.starts_with(".L") && !name.ends_with(|c: char| c.is_ascii_digit())
}

/// Whether a v0 symbol names the crate whose identifier is `token` (`<length><name>`): the
/// token right after a crate root's tag (`C`, or `Cs<disambiguator>_`).
pub(crate) fn names_crate(symbol: &str, token: &str) -> bool {
    symbol.match_indices(token).any(|(at, _)| {
        let before = &symbol[..at];
        before.ends_with('C')
            || before.rfind("Cs").is_some_and(|c| {
                let hash = &before[c + 2..];
                hash.len() > 1
                    && hash.ends_with('_')
                    && hash[..hash.len() - 1]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric())
            })
    })
}

/// The path a demangler prints for a symbol of plain names, without its hash: `a::b::c` for
/// the v0 `_RNvNtCs<hash>_1a1b1c` or the legacy `_ZN1a1b1c17h<hash>E`. `None` for any other
/// symbol (generic arguments, impls, closures, another language's scheme).
pub(crate) fn plain_path(sym: &str) -> Option<String> {
    let sym = sym.split('.').next().unwrap_or(sym);
    if let Some(rest) = sym.strip_prefix("_ZN") {
        let mut rest = rest.as_bytes();
        let mut parts: Vec<&str> = Vec::new();
        while rest.first().is_some_and(|&c| c != b'E') {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let len: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
            let ident = rest.get(digits..digits.checked_add(len)?)?;
            parts.push(std::str::from_utf8(ident).ok()?);
            rest = &rest[digits + len..];
        }
        if rest != b"E" {
            return None;
        }
        let is_hash = |p: &&str| {
            p.len() == 17 && p.starts_with('h') && p[1..].bytes().all(|b| b.is_ascii_hexdigit())
        };
        if parts.last().is_some_and(is_hash) {
            parts.pop();
        }
        if parts.is_empty() || parts.iter().any(|p| p.contains('$')) {
            return None;
        }
        return Some(parts.join("::"));
    }
    let mut parts = Vec::new();
    let rest = v0_path(sym.strip_prefix("_R")?.as_bytes(), &mut parts)?;
    // What may follow the path: the instantiating crate (a crate root), or nothing.
    if !rest.is_empty() && !rest.starts_with(b"C") {
        return None;
    }
    Some(parts.join("::"))
}

/// Parses a v0 `<path>` made of crate roots and named items only, pushing its names; returns
/// the rest of the symbol.
fn v0_path<'a>(s: &'a [u8], parts: &mut Vec<String>) -> Option<&'a [u8]> {
    let (&tag, rest) = s.split_first()?;
    match tag {
        b'C' => {
            let (ident, rest) = v0_ident(v0_disambiguator(rest))?;
            parts.push(ident);
            Some(rest)
        }
        b'N' => {
            let (&namespace, rest) = rest.split_first()?;
            // Lower-case namespaces (types `t`, values `v`) hold named items; upper-case ones
            // are closures and shims.
            if !namespace.is_ascii_lowercase() {
                return None;
            }
            let rest = v0_path(rest, parts)?;
            let (ident, rest) = v0_ident(v0_disambiguator(rest))?;
            parts.push(ident);
            Some(rest)
        }
        _ => None,
    }
}

/// Skips a v0 `s<base-62>_` disambiguator.
fn v0_disambiguator(s: &[u8]) -> &[u8] {
    if let Some(rest) = s.strip_prefix(b"s") {
        if let Some(end) = rest.iter().position(|&b| b == b'_') {
            if rest[..end].iter().all(u8::is_ascii_alphanumeric) {
                return &rest[end + 1..];
            }
        }
    }
    s
}

/// A v0 `<identifier>`: its decimal length, an `_` if the name begins with a digit or `_`,
/// then the name (a punycode one, `u`-prefixed, is refused).
fn v0_ident(s: &[u8]) -> Option<(String, &[u8])> {
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let len: usize = std::str::from_utf8(&s[..digits]).ok()?.parse().ok()?;
    let mut rest = &s[digits..];
    if let Some(r) = rest.strip_prefix(b"_") {
        rest = r;
    }
    let name = std::str::from_utf8(rest.get(..len)?).ok()?.to_string();
    Some((name, &rest[len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_dependent_suffixes_are_removed_and_kinds_kept() {
        assert_eq!(
            canonical("_ZN3foo3bar17h0123456789abcdefE.llvm.1234567890123"),
            "_ZN3foo3bar17h0123456789abcdefE"
        );
        assert_eq!(canonical("memcpy.cold.3"), "memcpy.cold");
        assert_eq!(canonical("memcpy.cold"), "memcpy.cold");
        assert_eq!(canonical("f.part.0"), "f.part");
        assert_eq!(canonical("f.constprop.2.isra.0"), "f.constprop.isra");
        assert_eq!(
            canonical("anon.0123456789abcdef0123456789abcdef.12"),
            "anon"
        );
        assert_eq!(
            canonical("anon.0123456789abcdef0123456789abcdef.12.llvm.99"),
            "anon"
        );
        assert_eq!(canonical("main"), "main");
    }

    #[test]
    fn data_names_numbered_by_the_compiler_are_not_identities() {
        assert!(stable_data_name("_RNvCs1a2b3c_4prog6GLOBAL"));
        assert!(stable_data_name("ops"));
        assert!(!stable_data_name("anon"));
        assert!(!stable_data_name("GCC_except_table12"));
    }

    #[test]
    fn plain_paths_of_v0_and_legacy_symbols() {
        assert_eq!(
            plain_path("_RNvCs1a2b3c_4prog4work").as_deref(),
            Some("prog::work")
        );
        assert_eq!(
            plain_path("_RNvNtCs1a2b3c_4prog5inner4work").as_deref(),
            Some("prog::inner::work")
        );
        // A name beginning with a digit or `_` has a separator.
        assert_eq!(
            plain_path("_RNvCs1a2b3c_4prog4__run").as_deref(),
            Some("prog::_run")
        );
        assert_eq!(plain_path("_RNvC4prog4main").as_deref(), Some("prog::main"));
        assert_eq!(
            plain_path("_RNvCs1a2b3c_4prog4work.llvm.123").as_deref(),
            Some("prog::work")
        );
        assert_eq!(
            plain_path("_ZN4prog5inner4work17h0123456789abcdefE").as_deref(),
            Some("prog::inner::work")
        );
        // Closures, generic instances and impls have no plain path.
        assert_eq!(plain_path("_RNCNvCs1a2b3c_4prog4work0B3_"), None);
        assert_eq!(plain_path("_RINvCs1a2b3c_4prog4workmEB2_"), None);
        assert_eq!(plain_path("_ZN4prog3foo"), None);
        assert_eq!(plain_path("work"), None);
        assert_eq!(plain_path("_R"), None);
        assert_eq!(plain_path("_RNvC99prog"), None);
    }

    #[test]
    fn a_crate_is_found_in_v0_symbols_as_a_crate_root() {
        assert!(names_crate("_RNvCs1a2b3c_4prog4work", "4prog"));
        assert!(names_crate("_RNvC4prog4work", "4prog"));
        assert!(!names_crate("_RNvCs1a2b3c_5other4prog", "4prog"));
    }
}
