//! The `handoff` command: handoff's own transports, and the C++ peers and the C ring built in
//! (those whose headers were found when it was built; the others are listed as unavailable), and
//! iceoryx2 (with the `iceoryx2` feature; listed as unavailable without it).
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut catalog = handoff_transports::builtin();
    handoff_peers::register(&mut catalog);
    handoff_iceoryx2::register(&mut catalog);
    handoff_brokers::register(&mut catalog);
    handoff_cli::main_with(catalog)
}
