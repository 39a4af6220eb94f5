//! Whether two builds of a program run the same machine code from a set of entry points.
//!
//! A benchmark of two builds is only a benchmark of a *change* where the change is the only
//! difference in the code measured. Compilers re-partition and re-inline a whole crate when one
//! line of it changes, and linkers move every function when one grows, so "the source of this
//! function did not change" says little about what the processor runs. This crate answers the
//! question from the executable itself:
//!
//! 1. [`Image`] reads an ELF x86-64 executable: its function symbols, its sections and its
//!    dynamic relocations.
//! 2. [`Image::reach`] starts at the functions containing the given addresses and follows every
//!    direct call and jump, every function whose address is taken, and every table of code
//!    pointers the code refers to (a Rust vtable, the boxed closure a thread runs), until
//!    nothing new is reached.
//! 3. Each function reached is digested by its instructions with its placement taken out: a
//!    branch inside the function by its offset, a call or a reference to another function by
//!    that function's name (compiler-made suffixes that depend on the module, such as
//!    `.llvm.<n>`, removed) and the offset into it, a reference to data by a marker. The digest
//!    of the whole is taken over the sorted names and digests of the functions reached.
//!
//! Equal digests mean the same instructions, however differently the two executables place
//! them; a different digest means some instruction the entry points can reach differs.
//!
//! **Limits.** x86-64 ELF only (elsewhere [`Image::current`] says so). Calls through pointers
//! made at run time (a plugin's table loaded by `dlopen`) are not followed: give their
//! functions as roots where the program knows them. Data the code reads (constants, jump tables)
//! is not digested, only the code. Functions without a symbol cannot be told apart; a stripped
//! executable is refused.

#![deny(missing_docs)]

mod digest;
mod elf;
mod walk;

pub use elf::Image;

/// The digest of the code reached from a set of roots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeDigest {
    /// 16 hex digits over every function reached (see the crate's documentation).
    pub digest: String,
    /// Functions reached.
    pub functions: u32,
    /// Their bytes of machine code.
    pub bytes: u64,
}

/// Why an executable's code cannot be digested.
#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not an executable this crate reads.
    #[error("{path}: not an ELF x86-64 executable ({why})")]
    NotElf {
        /// The file.
        path: String,
        /// What the reader said.
        why: String,
    },
    /// The executable has no function symbols to name its code by.
    #[error("{path}: no function symbols (a stripped executable cannot be digested)")]
    Stripped {
        /// The file.
        path: String,
    },
    /// An address given as a root lies in no function.
    #[error("address {0:#x} is in no function of the executable")]
    NotAFunction(usize),
    /// This platform's executables are not read.
    #[error("code identity needs an x86-64 Linux executable")]
    Unsupported,
}
