//! Where a store is: a SQLite file or a PostgreSQL URL, and where it is when none is named.
//!
//! Without `--store`, the store is `$HANDOFF_STORE` if set, else
//! `$XDG_DATA_HOME/handoff/history.sqlite` (an absolute `XDG_DATA_HOME` only, as the XDG base
//! directory specification asks), else `~/.local/share/handoff/history.sqlite`.

use crate::error::StoreError;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

/// Bare words that mean "no store" elsewhere: as a location they would silently name a file in
/// the working directory, so they are refused with the flag that does mean it (`./none` is a
/// file, if one is wanted).
const NO_STORE_WORDS: [&str; 6] = ["none", "off", "no", "false", "null", "disabled"];

/// A store's location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created with its directory if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database, by URL (`postgres://user@host:port/db`).
    Postgres(String),
}

impl Location {
    /// A location as given on the command line or in `HANDOFF_STORE`: a `postgres://` or
    /// `postgresql://` URL, or a file path.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(StoreError::BadLocation(
                "empty store location: expected a file path or a postgres:// URL".into(),
            ));
        }
        match text.split_once("://") {
            Some(("postgres" | "postgresql", _)) => Ok(Location::Postgres(text.to_string())),
            Some((scheme, _)) if !scheme.is_empty() && scheme.chars().all(is_scheme_char) => {
                Err(StoreError::BadLocation(format!(
                    "unsupported store URL scheme `{scheme}://`: expected a file path or a postgres:// URL"
                )))
            }
            _ if NO_STORE_WORDS.iter().any(|w| text.eq_ignore_ascii_case(w)) => {
                Err(StoreError::BadLocation(format!(
                    "store location `{text}` would be a SQLite file named `{text}`: to keep no history, pass --no-store instead; to use such a file, write ./{text}"
                )))
            }
            _ => Ok(Location::Sqlite(PathBuf::from(text))),
        }
    }

    /// The default location, from this process's environment (see the module docs).
    pub fn default_location() -> Result<Location, StoreError> {
        Location::from_env(
            std::env::var_os("HANDOFF_STORE"),
            std::env::var_os("XDG_DATA_HOME"),
            std::env::var_os("HOME"),
        )
    }

    /// The default location given the values of `HANDOFF_STORE`, `XDG_DATA_HOME` and `HOME`.
    pub fn from_env(
        handoff_store: Option<OsString>,
        xdg_data_home: Option<OsString>,
        home: Option<OsString>,
    ) -> Result<Location, StoreError> {
        let set = |v: Option<OsString>| v.filter(|v| !v.is_empty());
        if let Some(s) = set(handoff_store) {
            let text = s.into_string().map_err(|s| {
                StoreError::BadLocation(format!("HANDOFF_STORE is not UTF-8: {s:?}"))
            })?;
            return Location::parse(&text).map_err(|e| match e {
                StoreError::BadLocation(m) => {
                    StoreError::BadLocation(format!("HANDOFF_STORE: {m}"))
                }
                other => other,
            });
        }
        let file = |dir: PathBuf| Location::Sqlite(dir.join("handoff").join("history.sqlite"));
        if let Some(xdg) = set(xdg_data_home).map(PathBuf::from) {
            if xdg.is_absolute() {
                return Ok(file(xdg));
            }
        }
        match set(home) {
            Some(home) => Ok(file(PathBuf::from(home).join(".local").join("share"))),
            None => Err(StoreError::BadLocation(
                "no place for the history store: neither HANDOFF_STORE, XDG_DATA_HOME nor HOME is set (pass --store PATH, or --no-store)".into(),
            )),
        }
    }
}

fn is_scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => write!(f, "{}", p.display()),
            Location::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

/// `url` without its password (in the user part or a `password=` parameter), for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some(("password", _)) => "password=***".to_string(),
                    _ => p.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// Whether `url` carries a password (which `ps` and shell history show to other users).
pub fn has_password(url: &str) -> bool {
    redact(url) != url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<OsString> {
        Some(s.into())
    }

    #[test]
    fn urls_name_postgres_and_anything_else_a_file() {
        assert_eq!(
            Location::parse("postgres://me@127.0.0.1:5432/h").unwrap(),
            Location::Postgres("postgres://me@127.0.0.1:5432/h".into())
        );
        assert!(matches!(
            Location::parse("postgresql://h/db").unwrap(),
            Location::Postgres(_)
        ));
        assert_eq!(
            Location::parse("runs/history.sqlite").unwrap(),
            Location::Sqlite("runs/history.sqlite".into())
        );
        let err = Location::parse("mysql://h/db").unwrap_err();
        assert!(err.is_bad_input());
        assert!(err.to_string().contains("`mysql://`"), "{err}");
        assert!(Location::parse("  ").unwrap_err().is_bad_input());
    }

    #[test]
    fn a_word_for_no_store_is_refused_with_the_flag_that_means_it() {
        for word in ["none", "None", "off", "false"] {
            let err = Location::parse(word).unwrap_err();
            assert!(err.is_bad_input(), "{word}");
            let msg = err.to_string();
            assert!(msg.contains("--no-store"), "{msg}");
            assert!(msg.contains(&format!("./{word}")), "{msg}");
        }
        // Written as a path, it is a file like any other.
        assert_eq!(
            Location::parse("./none").unwrap(),
            Location::Sqlite("./none".into())
        );
        assert_eq!(
            Location::parse("none.sqlite").unwrap(),
            Location::Sqlite("none.sqlite".into())
        );
    }

    #[test]
    fn passwords_are_hidden_wherever_the_url_puts_them() {
        let url = "postgres://me:s3cret@db:5432/h?sslmode=require&password=other";
        assert_eq!(
            redact(url),
            "postgres://me:***@db:5432/h?sslmode=require&password=***"
        );
        assert!(has_password(url));
        assert!(has_password("postgres://me@db/h?password=x"));
        assert!(!has_password("postgres://me@db/h?sslmode=require"));
        assert!(!has_password("history.sqlite"));
    }

    #[test]
    fn the_default_follows_handoff_store_then_xdg_then_home() {
        assert_eq!(
            Location::from_env(os("/s/h.db"), os("/x"), os("/home/u")).unwrap(),
            Location::Sqlite("/s/h.db".into())
        );
        assert_eq!(
            Location::from_env(None, os("/x"), os("/home/u")).unwrap(),
            Location::Sqlite("/x/handoff/history.sqlite".into())
        );
        // A relative XDG_DATA_HOME is ignored, as the specification says.
        assert_eq!(
            Location::from_env(os(""), os("rel"), os("/home/u")).unwrap(),
            Location::Sqlite("/home/u/.local/share/handoff/history.sqlite".into())
        );
        let err = Location::from_env(None, None, None).unwrap_err();
        assert!(err.to_string().contains("--no-store"), "{err}");
        let err = Location::from_env(os("ftp://x"), None, None).unwrap_err();
        assert!(err.to_string().starts_with("HANDOFF_STORE: "), "{err}");
    }
}
