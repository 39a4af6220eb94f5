//! The values that cross the boundary between the store's queries and a backend: what a query
//! binds to its `$N` parameters and what a row holds.
//!
//! Only four shapes exist, matching the schema's column types (`BIGINT`, `DOUBLE PRECISION`,
//! `TEXT`, and `NULL`), so one copy of every query can run on either backend.

use crate::error::StoreError;

/// One bound parameter or one column of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL `NULL`.
    Null,
    /// A `BIGINT`.
    Int(i64),
    /// A `DOUBLE PRECISION`.
    Real(f64),
    /// A `TEXT`.
    Text(String),
}

impl Value {
    /// An integer column from an unsigned count, saturating at `i64::MAX` (the exact figure is
    /// kept in the stored JSON).
    pub fn count(n: u64) -> Value {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// `NULL` for `None`, else the value.
    pub fn opt(v: Option<impl Into<Value>>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

/// One row of a query's result, its columns in `SELECT` order.
#[derive(Clone, Debug, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value, StoreError> {
        self.0
            .get(i)
            .ok_or_else(|| StoreError::Corrupt(format!("a row has no column {i}")))
    }

    /// Column `i` as an integer (`NULL` is an error).
    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        match self.at(i)? {
            Value::Int(v) => Ok(*v),
            other => Err(StoreError::Corrupt(format!(
                "column {i}: expected an integer, found {other:?}"
            ))),
        }
    }

    /// Column `i` as text (`NULL` is an error).
    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?
            .ok_or_else(|| StoreError::Corrupt(format!("column {i}: unexpected NULL")))
    }

    /// Column `i` as text, or `None` for `NULL`.
    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            other => Err(StoreError::Corrupt(format!(
                "column {i}: expected text, found {other:?}"
            ))),
        }
    }

    /// Column `i` as a float, or `None` for `NULL` (an integer is widened).
    pub fn opt_real(&self, i: usize) -> Result<Option<f64>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Real(v) => Ok(Some(*v)),
            Value::Int(v) => Ok(Some(*v as f64)),
            other => Err(StoreError::Corrupt(format!(
                "column {i}: expected a number, found {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_saturate_instead_of_wrapping() {
        assert_eq!(Value::count(7), Value::Int(7));
        assert_eq!(Value::count(u64::MAX), Value::Int(i64::MAX));
    }

    #[test]
    fn rows_read_their_columns_and_refuse_the_wrong_type() {
        let row = Row(vec![
            Value::Int(3),
            Value::Text("a".into()),
            Value::Null,
            Value::Int(2),
        ]);
        assert_eq!(row.int(0).unwrap(), 3);
        assert_eq!(row.text(1).unwrap(), "a");
        assert_eq!(row.opt_text(2).unwrap(), None);
        assert_eq!(row.opt_real(3).unwrap(), Some(2.0));
        assert!(row.int(1).is_err());
        assert!(row.text(2).is_err());
        assert!(row.int(9).is_err());
    }
}
