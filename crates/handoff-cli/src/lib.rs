//! The `handoff` command-line tool, as a library so that a crate measuring its own transports can
//! ship the same command with its catalog:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     let catalog = handoff_transports::builtin();
//!     // catalog.register(handoff::catalog::Entry::pull(MyQueue));
//!     handoff_cli::main_with(catalog)
//! }
//! ```
#![deny(missing_docs)]

pub mod against;
pub mod args;
pub mod baseline;
pub mod compare;
pub mod destination;
pub mod eta;
pub mod exit;
pub mod flags;
pub mod history;
pub mod journal;
pub mod link_orders;
pub mod list;
pub mod percent;
pub mod plugins;
pub mod progress;
pub mod recommend;
pub mod record;
pub mod revision;
pub mod run;
pub mod show;
pub mod sides;
pub mod source;
pub mod store;
mod usage_error;

use args::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use handoff::catalog::Catalog;
use handoff::model::foreign::escaped_lines;
use std::process::ExitCode;

/// An error that ends the command with a message and an exit code.
#[derive(Debug)]
pub struct CliError {
    /// Exit code (see [`exit`]).
    pub code: u8,
    /// What went wrong.
    pub message: String,
}

impl CliError {
    /// A bad-input error (exit code 2).
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::BAD_INPUT,
            message: message.into(),
        }
    }

    /// A run error (exit code 3: the run could not be carried out).
    pub fn run_error(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::RUN_ERROR,
            message: message.into(),
        }
    }
}

/// A name that names nothing is bad input (exit 2).
impl From<handoff::suggest::LookupError> for CliError {
    fn from(e: handoff::suggest::LookupError) -> CliError {
        CliError::bad_input(e.to_string())
    }
}

/// A plan that cannot run as asked is bad input (exit 2).
impl From<handoff::preflight::PreflightError> for CliError {
    fn from(e: handoff::preflight::PreflightError) -> CliError {
        CliError::bad_input(e.to_string())
    }
}

/// The source identity of each crate this executable is built from (see `build/sources.rs`).
mod sources {
    include!(concat!(env!("OUT_DIR"), "/sources.rs"));
}

/// Parses the command line and runs it with `catalog`. Trials run in child processes started
/// from this same executable (`__worker`), so the catalog must be the same in every process:
/// build it deterministically at the top of `main`.
///
/// Built with this crate's `testing` feature (its own tests), the test-only faulty transports
/// are added to `catalog`.
pub fn main_with(catalog: Catalog) -> ExitCode {
    handoff::environment::set_git_commit(env!("HANDOFF_GIT_COMMIT"));
    handoff::code::set_sources(sources::SOURCES);
    #[cfg(feature = "testing")]
    let catalog = {
        let mut catalog = catalog;
        handoff_testing::register_all(&mut catalog);
        catalog
    };
    let matches = match Cli::command()
        .after_help(args::after_help())
        .try_get_matches()
    {
        Ok(m) => m,
        // Help and version as clap prints them (the help for no subcommand, exit 2).
        Err(e)
            if !e.use_stderr()
                || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("{}", usage_error::one_line(&e.render().to_string()));
            return ExitCode::from(exit::BAD_INPUT);
        }
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if !matches!(
        cli.command,
        Command::Worker(_)
            | Command::DescribePlugin { .. }
            | Command::Identify
            | Command::Code { .. }
    ) {
        end_workers_on_signals();
    }
    let result = match cli.command {
        Command::List(a) => plugins::attach(&catalog, &a.plugins.plugin).and_then(|catalog| {
            let mut out = std::io::stdout().lock();
            list::list(&catalog, a.all, &mut out)
                .map(|_| exit::OK)
                .map_err(|e| CliError {
                    code: exit::RUN_ERROR,
                    message: e.to_string(),
                })
        }),
        Command::Run(a) => run::run(&catalog, &a, &store::Reports::new(&a.store)),
        Command::Compare(a) => compare::compare(&a, &store::Reports::new(&a.store)),
        Command::Recommend(a) => recommend::recommend(&a, &store::Reports::new(&a.store)),
        Command::History(a) => history::history(&a),
        Command::Show(a) => show::show(&a),
        Command::Baseline(a) => baseline::baseline(&a),
        Command::DescribePlugin { path } => plugins::describe(&path),
        Command::Identify => against::identify(),
        Command::Code { names } => against::code(&catalog, &names),
        Command::Worker(a) => {
            // The protocol moves off the standard streams, which the transport may print on.
            handoff::worker::serve_stdio(&catalog, &a.plugin)
                .map(|_| exit::OK)
                .map_err(|e| CliError {
                    code: exit::RUN_ERROR,
                    message: format!("worker: {e}"),
                })
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // The message may quote what others wrote (a name, a plugin's words, a file's).
            eprintln!("error: {}", escaped_lines(&e.message));
            ExitCode::from(e.code)
        }
    }
}

/// On Ctrl-C or a termination signal, kills every live worker's process group before the
/// command exits (130, as a shell reports an interrupted command). Workers die with their parent
/// anyway (see `handoff::executor::spawn`); this also ends whatever their transports started.
fn end_workers_on_signals() {
    // A second handler cannot be set (a crate embedding this command may have one): then the
    // workers still die with the process.
    let _ = ctrlc::set_handler(|| {
        let workers = handoff::executor::spawn::alive();
        handoff::executor::spawn::end_all();
        let mut said = String::from("interrupted");
        if workers > 0 {
            said.push_str(&format!(
                ": {workers} worker{} stopped",
                if workers == 1 { "" } else { "s" }
            ));
        }
        if let Some(path) = journal::open_path() {
            said.push_str(&format!(
                "; the results finished so far are in {} (`handoff show {}` renders them)",
                path.display(),
                path.display()
            ));
        }
        eprintln!("\n{}", escaped_lines(&said));
        std::process::exit(exit::INTERRUPTED.into());
    });
}
