//! The shared backend: a PostgreSQL database (through the synchronous `postgres` client), for
//! a fleet of machines recording into one history.
//!
//! The connection is made once, when the store is opened; a server that cannot be reached is
//! reported then, with the location (without its password) and the client's reason. Without a
//! `connect_timeout` in the URL, connecting gives up after [`CONNECT_TIMEOUT`].

use crate::connection::{Connection, Dialect};
use crate::error::StoreError;
use crate::value::{Row, Value};
use bytes::BytesMut;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use std::cell::RefCell;
use std::error::Error;
use std::time::Duration;

/// How long connecting waits for an unresponsive server, unless the URL says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An open PostgreSQL store.
pub struct Postgres {
    // The client needs `&mut` for every statement; the store is used from one thread.
    client: RefCell<postgres::Client>,
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://` or `postgresql://`).
    pub fn open(url: &str) -> Result<Postgres, StoreError> {
        let shown = redact(url);
        let mut config: postgres::Config = url.parse().map_err(|e| {
            StoreError::BadLocation(format!("malformed PostgreSQL URL `{shown}`: {e}"))
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("handoff");
        let client = config
            .connect(postgres::NoTls)
            .map_err(|e| StoreError::Unreachable {
                location: shown,
                reason: reason(&e),
            })?;
        Ok(Postgres {
            client: RefCell::new(client),
        })
    }
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
    if outer.contains(&inner) {
        outer
    } else {
        format!("{outer}: {inner}")
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
