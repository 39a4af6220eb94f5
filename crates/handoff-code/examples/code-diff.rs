//! Which functions differ between two executables, reached from the functions compiled for a
//! crate: `cargo run --release -p handoff-code --example code-diff -- A B CRATE` (for example
//! `handoff_transport_rtrb`).
//! The tool behind a `code changed` that nobody expected: it names the functions whose
//! instructions differ, and those reached in one executable only.

use handoff_code::Image;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b, krate] = args.as_slice() else {
        eprintln!("usage: code-diff EXECUTABLE_A EXECUTABLE_B CRATE");
        std::process::exit(2);
    };
    let open = |p: &str| {
        Image::open(Path::new(p)).unwrap_or_else(|e| {
            eprintln!("code-diff: {e}");
            std::process::exit(2)
        })
    };
    let (ia, ib) = (open(a), open(b));
    let fa = ia.reached_functions(&[], &[krate]).expect("no roots");
    let fb = ib.reached_functions(&[], &[krate]).expect("no roots");
    if fa.is_empty() {
        eprintln!("code-diff: no function of {a} is compiled for crate `{krate}`");
        std::process::exit(2);
    }
    println!("{} function(s) reached in A, {} in B", fa.len(), fb.len());
    for f in &fa {
        match fb.iter().find(|g| g.0 == f.0) {
            None => println!("only in A: {} ({} bytes)", f.0, f.1),
            Some(g) if g != f => println!("differs:   {} ({} / {} bytes)", f.0, f.1, g.1),
            Some(_) => {}
        }
    }
    for g in &fb {
        if !fa.iter().any(|f| f.0 == g.0) {
            println!("only in B: {} ({} bytes)", g.0, g.1);
        }
    }
}
