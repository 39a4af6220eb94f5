//! `json`: the whole [`RunReport`], pretty-printed. It carries `schema_version`, so a reader can
//! refuse a report it does not understand; it parses back into the same [`RunReport`].

use super::Exporter;
use crate::report::RunReport;
use std::io::{self, Write};

/// Writes the report as pretty JSON.
pub(super) struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)
    }
}
