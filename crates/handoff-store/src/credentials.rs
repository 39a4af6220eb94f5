//! A PostgreSQL password found the libpq way, so that it need not be in the URL (where `ps`
//! and shell history show it to others).
//!
//! When the URL has no password: `PGPASSWORD`, else the first matching line of the password
//! file, which is the URL's `passfile=PATH`, else `PGPASSFILE`, else `~/.pgpass`. A line is
//! `host:port:database:user:password`; `*` in one of the first four fields matches anything,
//! and `\:` and `\\` stand for `:` and `\`. As libpq does, a password file that its group or
//! others can read is not used; unlike libpq, which warns and goes on without it, handoff
//! refuses it with the reason, since the store is often opened where nobody reads warnings.
//!
//! The password is handed to the client and kept nowhere else: never in a report, the store,
//! a log line or an error.

use crate::error::StoreError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Who and where a connection goes, for matching a password file's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target<'a> {
    /// Host name or address, as in the URL (`localhost` for a Unix socket).
    pub host: &'a str,
    /// Port.
    pub port: u16,
    /// Database name.
    pub database: &'a str,
    /// User name.
    pub user: &'a str,
}

/// The password for `target`: `PGPASSWORD`, else the password file's (see the module docs).
/// `passfile` is the URL's `passfile` parameter; `env` reads an environment variable.
pub fn password(
    target: &Target<'_>,
    passfile: Option<&str>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<String>, StoreError> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(pw) = set("PGPASSWORD") {
        return pw
            .into_string()
            .map(Some)
            .map_err(|_| StoreError::BadLocation("PGPASSWORD is not UTF-8".into()));
    }
    let file = match (passfile, set("PGPASSFILE"), set("HOME")) {
        (Some(p), _, _) => PathBuf::from(p),
        (None, Some(p), _) => PathBuf::from(p),
        (None, None, Some(home)) => PathBuf::from(home).join(".pgpass"),
        (None, None, None) => return Ok(None),
    };
    let Ok(meta) = std::fs::metadata(&file) else {
        // libpq: a password file that does not exist is no error.
        return Ok(None);
    };
    if !meta.is_file() {
        return Err(StoreError::BadLocation(format!(
            "password file {} is not a regular file",
            file.display()
        )));
    }
    refuse_if_shared(&file, &meta)?;
    let text = std::fs::read_to_string(&file).map_err(|e| {
        StoreError::BadLocation(format!("cannot read password file {}: {e}", file.display()))
    })?;
    Ok(lookup(&text, target))
}

/// Refuses a password file its group or others can read or write.
#[cfg(unix)]
fn refuse_if_shared(file: &Path, meta: &std::fs::Metadata) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(StoreError::BadLocation(format!(
            "password file {} can be read by its group or others (mode {mode:04o}): not using it, as libpq would not; make it private with `chmod 600 {}`",
            file.display(),
            file.display()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_if_shared(_file: &Path, _meta: &std::fs::Metadata) -> Result<(), StoreError> {
    Ok(())
}

/// The password of the first line of `text` that matches `target`.
pub fn lookup(text: &str, target: &Target<'_>) -> Option<String> {
    let port = target.port.to_string();
    let wanted = [target.host, port.as_str(), target.database, target.user];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .filter_map(fields)
        .find(|f| {
            f.iter()
                .zip(wanted)
                .all(|(field, want)| field == "*" || field == want)
        })
        .map(|mut f| f.pop().unwrap_or_default())
}

/// A line's five fields, unescaped; `None` for a line with fewer.
fn fields(line: &str) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.last_mut()?.push(next);
                }
            }
            // The password is the rest of the line, colons and all.
            ':' if out.len() < 5 => out.push(String::new()),
            c => out.last_mut()?.push(c),
        }
    }
    (out.len() == 5).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI: Target<'static> = Target {
        host: "127.0.0.1",
        port: 5432,
        database: "runs",
        user: "ci",
    };

    #[test]
    fn the_first_matching_line_wins_with_wildcards_and_escapes() {
        let text = "# comment\n\
                    db.example:5432:runs:ci:not-this-host\n\
                    127.0.0.1:5433:*:ci:not-this-port\n\
                    127.0.0.1:*:runs:ci:pa\\:ss:word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(lookup(text, &CI).as_deref(), Some("pa:ss:word"));
        let other = Target {
            user: "someone",
            ..CI.clone()
        };
        assert_eq!(lookup(text, &other).as_deref(), Some("fallback"));
        assert_eq!(lookup("127.0.0.1:5432:runs\n", &CI), None);
        assert_eq!(
            lookup("h\\\\x:*:*:*:pw\n", &Target { host: "h\\x", ..CI }).as_deref(),
            Some("pw")
        );
    }

    fn env(vars: Vec<(&'static str, OsString)>) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[cfg(unix)]
    #[test]
    fn pgpassword_comes_first_then_the_file_which_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join(".pgpass");
        std::fs::write(&file, "*:*:runs:ci:from-file\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let home_env = || vec![("HOME", home.path().as_os_str().to_owned())];
        assert_eq!(
            password(&CI, None, &env(home_env())).unwrap().as_deref(),
            Some("from-file")
        );
        let mut with_pw = home_env();
        with_pw.push(("PGPASSWORD", "from-env".into()));
        assert_eq!(
            password(&CI, None, &env(with_pw)).unwrap().as_deref(),
            Some("from-env")
        );
        // A file named by the URL, one by PGPASSFILE, and one that does not exist.
        let named = home.path().join("named");
        std::fs::write(&named, "*:*:*:*:named\n").unwrap();
        std::fs::set_permissions(&named, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(
            password(&CI, named.to_str(), &env(home_env()))
                .unwrap()
                .as_deref(),
            Some("named")
        );
        let mut by_env = home_env();
        by_env.push(("PGPASSFILE", named.clone().into()));
        assert_eq!(
            password(&CI, None, &env(by_env)).unwrap().as_deref(),
            Some("named")
        );
        assert_eq!(
            password(&CI, Some("/no/such/pgpass"), &env(home_env())).unwrap(),
            None
        );
        // Readable by others: refused, with the reason and the fix, and no password shown.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = password(&CI, None, &env(home_env())).unwrap_err();
        let m = e.to_string();
        assert!(e.is_bad_input(), "{m}");
        assert!(m.contains("mode 0644") && m.contains("chmod 600"), "{m}");
        assert!(!m.contains("from-file"), "{m}");
    }
}
