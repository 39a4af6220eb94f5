//! Whether two builds of a program run the same machine code from a set of entry points.
//!
//! A benchmark of two builds is only a benchmark of a *change* where the change is the only
//! difference in the code measured. Compilers re-partition and re-inline a whole crate when one
//! line of it changes, and linkers move every function when one grows, so "the source of this
//! function did not change" says little about what the processor runs. This crate answers the
//! question from the executable itself:
//!
//! 1. [`Image`] reads an ELF x86-64 executable: its function symbols (`.symtab`, else
//!    `.dynsym`), its sections, its data symbols and its dynamic relocations.
//! 2. [`Image::reach`] starts at the functions containing the given addresses and follows,
//!    breadth first, every direct call and jump out of a function, every function whose
//!    address is taken (`lea`), every pointer the code loads from the global offset table, and
//!    every table of code pointers whose address the code takes: a Rust trait object's table
//!    of methods, the boxed closure a thread runs, a C table of function pointers. A table's
//!    pointers are the words the loader relocates (position-independent executables) or the
//!    words that hold addresses of code (others); where a table ends is read from the data
//!    symbol holding it, or else from the shape of a trait object's table (a drop, a size, an
//!    alignment, then methods, up to the next such header), or else at the first word that is
//!    neither a pointer nor a small integer.
//! 3. Each function reached is digested (FNV-1a, 64 bits: the same on every platform and
//!    toolchain) by its instructions: each one's opcode and operands (registers, immediates,
//!    memory base, index, scale and displacement), with placement taken out: a branch inside
//!    the function by its offset from the start, a call, jump or reference to another function
//!    by that function's canonical name and the offset into it, a call to another object's
//!    function (a PLT stub, a relocated slot) by the symbol's name, a reference to data by a
//!    marker (and the data symbol's name where the symbol has a stable one), a table's code
//!    pointers by their functions, thread-local offsets by a marker. The canonical name is the
//!    symbol without the suffixes that depend on where the function was compiled
//!    (`.llvm.<digits>`, the numbers of `.cold.N`, `.part.N`, `.constprop.N`; `anon.<hash>.N`
//!    is `anon`); mangled names are kept as they are (the hash in a Rust legacy symbol depends
//!    on the item, its crate and its generic arguments, not on its code or placement).
//! 4. The digest of the whole is taken over the sorted list of the canonical names and own
//!    digests of the functions reached; [`CodeDigest`] also counts them and their bytes.
//!
//! Equal digests mean the same instructions, however differently the two executables place
//! them (another link order, functions added elsewhere in the binary); a different digest
//! means some instruction the entry points can reach differs. Each function's own digest is
//! kept in the [`Image`], so digesting many root sets over one executable decodes each
//! function once.
//!
//! **Limits.** x86-64 ELF only; elsewhere [`Image::current`] returns
//! [`CodeError::Unsupported`] ([`Image::open`] reads an x86-64 file on any platform). Calls
//! through pointers made at run time (a table built on the heap, a plugin loaded by `dlopen`)
//! are not followed: give their functions as roots where the program knows them. What is
//! statically reachable is more than what a given run executes (a trait object's table brings
//! in every method of it). Data the code reads (constants, strings) is not digested, only the
//! code and the code pointers of tables. Where a table's end cannot be told from the file
//! (no data symbol, an unusual layout), a table may be read a few words short or long.
//! Functions without a symbol cannot be told apart; a stripped executable is refused. At most
//! 200 000 functions are followed from one set of roots.

#![deny(missing_docs)]

mod digest;
mod elf;
mod names;
mod walk;

pub use elf::Image;

/// The digest of the code reached from a set of roots.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// This platform's running executable is not read ([`Image::current`] off x86-64 Linux).
    #[error("the running executable can be read on x86-64 Linux only")]
    Unsupported,
}
