//! The `handoff` command.
use std::process::ExitCode;

fn main() -> ExitCode {
    handoff_cli::main_with(handoff::catalog::Catalog::builtin())
}
