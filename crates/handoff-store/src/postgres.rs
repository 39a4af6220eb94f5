//! The shared backend: a PostgreSQL database (through the synchronous `postgres` client), for
//! a fleet of machines recording into one history.
//!
//! The connection is made once, when the store is opened; a server that cannot be reached is
//! reported then, with the location (without its password) and the client's reason. Without a
//! `connect_timeout` in the URL, connecting gives up after [`CONNECT_TIMEOUT`].
//!
//! Besides the client's own URL parameters, the URL takes libpq's `sslmode` and `sslrootcert`
//! (see [`crate::tls`]) and `passfile` (see [`crate::credentials`]); without a password in the
//! URL, one is looked for the libpq way.

use crate::connection::{Connection, Dialect};
use crate::credentials::{self, Target};
use crate::error::StoreError;
use crate::tls::Tls;
use crate::value::{Row, Value};
use bytes::BytesMut;
use postgres::config::Host;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use std::cell::RefCell;
use std::error::Error;
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

/// How long connecting waits for an unresponsive server, unless the URL says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The URL parameters handoff reads itself (libpq's), which the client does not know.
const OURS: [&str; 3] = ["sslmode", "sslrootcert", "passfile"];

/// An open PostgreSQL store.
pub struct Postgres {
    // The client needs `&mut` for every statement; the store is used from one thread.
    client: RefCell<postgres::Client>,
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://` or `postgresql://`), with this
    /// process's environment (`PGPASSWORD`, `PGPASSFILE`, `HOME`).
    pub fn open(url: &str) -> Result<Postgres, StoreError> {
        Postgres::open_with(url, &|name| std::env::var_os(name))
    }

    /// Connects to the database at `url`, reading the environment through `env`.
    pub fn open_with(
        url: &str,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<Postgres, StoreError> {
        let shown = redact(url);
        let (rest, ours) = split_params(url)?;
        let mut config: postgres::Config = rest.parse().map_err(|e| {
            StoreError::BadLocation(format!("malformed PostgreSQL URL `{shown}`: {e}"))
        })?;
        let param = |k: &str| {
            ours.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let home = env("HOME").filter(|h| !h.is_empty());
        let tls = Tls::new(
            param("sslmode"),
            param("sslrootcert"),
            home.as_deref().map(Path::new),
        )?;
        config.ssl_mode(tls.wire());
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("handoff");
        if config.get_password().is_none() {
            if let Some(pw) = credentials::password(&target(&config), param("passfile"), env)? {
                config.password(pw);
            }
        }
        let unreachable = |e: postgres::Error| StoreError::Unreachable {
            location: shown.clone(),
            reason: reason(&e),
        };
        let client = match tls.connector()? {
            Some(tls) => config.connect(tls),
            None => config.connect(postgres::NoTls),
        }
        .map_err(unreachable)?;
        Ok(Postgres {
            client: RefCell::new(client),
        })
    }
}

/// Who and where `config` connects to, for the password file: its first host and port, the
/// database (the user's name when none is given, as the server takes it).
fn target(config: &postgres::Config) -> Target<'_> {
    let user = config.get_user().unwrap_or("");
    Target {
        host: match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h,
            _ => "localhost",
        },
        port: config.get_ports().first().copied().unwrap_or(5432),
        database: config.get_dbname().unwrap_or(user),
        user,
    }
}

/// `url` without the parameters handoff reads itself, and those parameters, decoded.
fn split_params(url: &str) -> Result<(String, Vec<(String, String)>), StoreError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), Vec::new()));
    };
    let mut kept = Vec::new();
    let mut ours = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if OURS.contains(&key) {
            if ours.iter().any(|(k, _)| k == key) {
                return Err(StoreError::BadLocation(format!(
                    "the store URL gives `{key}` twice"
                )));
            }
            ours.push((key.to_string(), percent_decode(value)?));
        } else {
            kept.push(pair);
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((rest, ours))
}

/// `%XX` escapes decoded (a path such as `sslrootcert=/etc/ssl/my%20ca.pem`).
fn percent_decode(text: &str) -> Result<String, StoreError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    StoreError::BadLocation(format!(
                        "malformed %-escape in the store URL parameter `{text}`"
                    ))
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| StoreError::BadLocation(format!("store URL parameter `{text}` is not UTF-8")))
}

/// The innermost cause of a connection failure ("Connection refused (os error 111)"), after
/// the client's own summary when that says more than "error connecting to server".
fn reason(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut inner: &dyn Error = e;
    while let Some(next) = inner.source() {
        inner = next;
    }
    let (outer, inner) = (e.to_string(), inner.to_string());
    let text = if outer.contains(&inner) {
        outer
    } else {
        format!("{outer}: {inner}")
    };
    // rustls names this cause by its variant only.
    if text.ends_with("UnknownIssuer") {
        format!("{text} (the server's certificate is not signed by the root certificate given)")
    } else {
        text
    }
}

pub use crate::location::redact;

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Checked per value in `to_sql`: each shape encodes only as its own column type.
        true
    }

    to_sql_checked!();
}

fn value(row: &postgres::Row, i: usize) -> Result<Value, StoreError> {
    let ty = row.columns()[i].type_();
    let v = if *ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?.map(Value::Int)
    } else if *ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?
            .map(|v| Value::Int(v.into()))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map(Value::Real)
    } else if *ty == Type::TEXT || *ty == Type::VARCHAR || *ty == Type::NAME {
        row.try_get::<_, Option<String>>(i)?.map(Value::Text)
    } else {
        return Err(StoreError::Corrupt(format!(
            "column {} has type {ty}, which the store never writes",
            row.columns()[i].name()
        )));
    };
    Ok(v.unwrap_or(Value::Null))
}

fn bound(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl Connection for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        Ok(self.client.borrow_mut().execute(sql, &bound(params))?)
    }

    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let rows = self.client.borrow_mut().query(sql, &bound(params))?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| value(r, i))
                    .collect::<Result<_, _>>()
                    .map(Row)
            })
            .collect()
    }

    fn batch(&self, sql: &str) -> Result<(), StoreError> {
        Ok(self.client.borrow_mut().batch_execute(sql)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redact("postgres://me:secret@db.example:5432/h?sslmode=disable"),
            "postgres://me:***@db.example:5432/h?sslmode=disable"
        );
        assert_eq!(
            redact("postgres://me@127.0.0.1/h"),
            "postgres://me@127.0.0.1/h"
        );
        assert_eq!(redact("postgresql://host/db"), "postgresql://host/db");
    }

    #[test]
    fn libpqs_parameters_are_taken_out_of_the_url_and_decoded() {
        let (rest, ours) = split_params(
            "postgres://ci@h/db?connect_timeout=3&sslmode=verify-full&sslrootcert=/my%20ca.pem&passfile=/p",
        )
        .unwrap();
        assert_eq!(rest, "postgres://ci@h/db?connect_timeout=3");
        assert_eq!(
            ours,
            [
                ("sslmode".to_string(), "verify-full".to_string()),
                ("sslrootcert".into(), "/my ca.pem".into()),
                ("passfile".into(), "/p".into())
            ]
        );
        assert_eq!(
            split_params("postgres://h/db").unwrap().0,
            "postgres://h/db"
        );
        assert!(
            split_params("postgres://h/db?sslmode=require&sslmode=disable")
                .unwrap_err()
                .is_bad_input()
        );
        assert!(split_params("postgres://h/db?passfile=%zz")
            .unwrap_err()
            .is_bad_input());
        let e = Postgres::open("postgres://h/db?sslmode=sometimes")
            .err()
            .expect("refused");
        assert!(
            e.is_bad_input() && e.to_string().contains("sometimes"),
            "{e}"
        );
    }

    #[test]
    fn a_malformed_url_is_bad_input() {
        let err = Postgres::open("postgres://me@127.0.0.1:notaport/db")
            .err()
            .expect("refused");
        assert!(err.is_bad_input(), "{err}");
        assert!(
            err.to_string().contains("malformed PostgreSQL URL"),
            "{err}"
        );
    }

    #[test]
    fn an_unreachable_server_says_so() {
        // Port 1 on the loopback: nothing listens there.
        let err = Postgres::open("postgres://me@127.0.0.1:1/db")
            .err()
            .expect("refused");
        assert!(!err.is_bad_input(), "{err}");
        let text = err.to_string();
        assert!(
            text.starts_with("cannot open the history store at postgres://me@127.0.0.1:1/db: "),
            "{text}"
        );
    }
}
