//! An executable read for its code: functions by address, executable and data ranges, the
//! pointers its dynamic relocations put into data, and the tables of code pointers it holds.

use crate::digest::Fnv;
use crate::names::{canonical, names_crate, plain_path, stable_data_name};
use crate::{CodeDigest, CodeError};
use object::{
    Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionKind, SymbolKind,
};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::OnceLock;

/// At most this many 8-byte words of a table of code pointers are read (see [`Image::table`]
/// for where a table is taken to end before that).
const MAX_TABLE_WORDS: usize = 256;

/// Integers below this, between pointers, do not end a table that is not a trait object's
/// (a size, an alignment, a length, a flag).
const SMALL: u64 = 4096;

/// One function: where it is and what it is called.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub addr: u64,
    pub size: u64,
    /// Its symbol, with layout-dependent suffixes removed (see [`canonical`]).
    pub name: String,
    /// The digest of `name`, hashed in place of it wherever the function is referred to.
    pub name_hash: u64,
    /// Its symbol as the file spells it.
    pub raw: String,
}

/// A symbol of data: where its object is and, if its name says what it is, that name.
#[derive(Clone, Debug)]
pub(crate) struct DataSym {
    pub addr: u64,
    pub size: u64,
    /// The digest of its canonical name, when that names the object the same way in every
    /// build (see [`stable_data_name`]).
    pub name_hash: Option<u64>,
}

/// A range of the file mapped at an address.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub addr: u64,
    pub end: u64,
    /// File offset of `addr`, or `None` for memory the file does not hold (`.bss`).
    pub offset: Option<u64>,
}

/// What an 8-byte word of data holds, as far as the file tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Word {
    /// A pointer into this file's code.
    Code(u64),
    /// A pointer to a symbol another object defines (resolved by the loader): its index in
    /// [`Image::externals`].
    External(u32),
    /// A pointer into this file's data.
    Data,
    /// Anything else.
    Int(u64),
}

/// One function's own digest and the functions it refers to.
#[derive(Clone, Debug)]
pub(crate) struct Own {
    pub digest: u64,
    pub edges: Vec<usize>,
}

/// An executable's code, read from its file (ELF, x86-64).
///
/// It is `Send + Sync`: one image serves digests from any thread, and each function's own
/// digest is computed once however many root sets reach it.
pub struct Image {
    pub(crate) bytes: Vec<u8>,
    /// Runtime address minus file address (0 for a file read with [`Image::open`]).
    pub(crate) bias: u64,
    /// Position-independent (its tables hold relocated pointers, not addresses).
    pub(crate) pie: bool,
    /// Functions, sorted by address, one per address.
    pub(crate) funcs: Vec<Func>,
    /// Executable sections, sorted by address.
    pub(crate) exec: Vec<Range>,
    /// Every other allocated section (thread-local templates aside), sorted by address.
    pub(crate) data: Vec<Range>,
    /// The global offset table's sections: each word is one pointer, never a table.
    pub(crate) got: Vec<Range>,
    /// Symbols of data, sorted by address, one per address.
    pub(crate) data_syms: Vec<DataSym>,
    /// Pointer-sized words the loader fills in, sorted by where, and what they point to.
    pub(crate) relocs: Vec<(u64, Word)>,
    /// Names of the symbols other objects define that relocations refer to.
    pub(crate) externals: Vec<String>,
    /// Each function's own digest and edges, once computed.
    pub(crate) own: Vec<OnceLock<Own>>,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("functions", &self.funcs.len())
            .field("bias", &self.bias)
            .field("pie", &self.pie)
            .finish()
    }
}

impl Image {
    /// Reads the executable at `path`; addresses given to it are the file's own (bias 0).
    pub fn open(path: &Path) -> Result<Image, CodeError> {
        let bytes = std::fs::read(path).map_err(|source| CodeError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Image::parse(bytes, &path.display().to_string(), 0)
    }

    /// The running process's own executable (`/proc/self/exe`), with this process's load
    /// bias (where the loader put it minus where the file asks to be), so that addresses of
    /// its functions (`some_fn as usize`) can be given as roots.
    ///
    /// Only on x86-64 Linux; elsewhere [`CodeError::Unsupported`].
    pub fn current() -> Result<Image, CodeError> {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        {
            let exe = std::fs::read_link("/proc/self/exe")
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "/proc/self/exe".into());
            let bytes = std::fs::read("/proc/self/exe").map_err(|source| CodeError::Io {
                path: exe.clone(),
                source,
            })?;
            let bias = load_bias(&bytes, &exe)?;
            Image::parse(bytes, &exe, bias)
        }
        #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
        {
            Err(CodeError::Unsupported)
        }
    }

    fn parse(bytes: Vec<u8>, path: &str, bias: u64) -> Result<Image, CodeError> {
        let not_elf = |why: String| CodeError::NotElf {
            path: path.to_string(),
            why,
        };
        let parsed = object::File::parse(&*bytes).map_err(|e| not_elf(e.to_string()))?;
        let file = &parsed;
        if file.format() != object::BinaryFormat::Elf {
            return Err(not_elf(format!("a {:?} file", file.format())));
        }
        if file.architecture() != object::Architecture::X86_64 {
            return Err(not_elf(format!(
                "an ELF file for {:?}",
                file.architecture()
            )));
        }
        let (mut exec, mut data, mut got) = (Vec::new(), Vec::new(), Vec::new());
        for s in file.sections() {
            if s.address() == 0 || s.size() == 0 {
                continue;
            }
            let range = Range {
                addr: s.address(),
                end: s.address().saturating_add(s.size()),
                offset: s.file_range().map(|(o, _)| o),
            };
            match s.kind() {
                SectionKind::Text => exec.push(range),
                // The thread-local templates' addresses are not where the data lives.
                SectionKind::Tls | SectionKind::UninitializedTls => {}
                _ => {
                    if matches!(s.name(), Ok(".got" | ".got.plt")) {
                        got.push(range);
                    }
                    data.push(range);
                }
            }
        }
        exec.sort_by_key(|r| r.addr);
        data.sort_by_key(|r| r.addr);
        got.sort_by_key(|r| r.addr);
        let mut by_addr: BTreeMap<u64, Func> = BTreeMap::new();
        let mut data_by_addr: BTreeMap<u64, (u64, Option<String>)> = BTreeMap::new();
        for s in file.symbols().chain(file.dynamic_symbols()) {
            let Ok(raw) = s.name() else { continue };
            if raw.is_empty() || s.is_undefined() {
                continue;
            }
            match s.kind() {
                SymbolKind::Text if s.size() > 0 && range_at(&exec, s.address()).is_some() => {
                    let name = canonical(raw);
                    // Aliases: one name per address, the same one in every build.
                    if by_addr
                        .get(&s.address())
                        .is_some_and(|there| there.name <= name)
                    {
                        continue;
                    }
                    let f = Func {
                        addr: s.address(),
                        size: s.size(),
                        name_hash: name_hash(&name),
                        name,
                        raw: raw.to_string(),
                    };
                    by_addr.insert(f.addr, f);
                }
                SymbolKind::Data if range_at(&data, s.address()).is_some() => {
                    let name = canonical(raw);
                    let name = stable_data_name(&name).then_some(name);
                    let entry = (s.size(), name);
                    match data_by_addr.get(&s.address()) {
                        Some(there) if *there >= entry => {}
                        _ => {
                            data_by_addr.insert(s.address(), entry);
                        }
                    }
                }
                _ => {}
            }
        }
        if by_addr.is_empty() {
            return Err(CodeError::Stripped {
                path: path.to_string(),
            });
        }
        let (relocs, externals) = dynamic_pointers(file, &exec);
        let pie = file.kind() == object::ObjectKind::Dynamic;
        let funcs: Vec<Func> = by_addr.into_values().collect();
        let own = (0..funcs.len()).map(|_| OnceLock::new()).collect();
        Ok(Image {
            pie,
            bytes,
            bias,
            funcs,
            exec,
            data,
            got,
            data_syms: data_by_addr
                .into_iter()
                .map(|(addr, (size, name))| DataSym {
                    addr,
                    size,
                    name_hash: name.as_deref().map(name_hash),
                })
                .collect(),
            relocs,
            externals,
            own,
        })
    }

    /// The digest of the code reachable from these runtime addresses (function entry points,
    /// e.g. `some_fn as usize`, or any address inside a function) and from every function
    /// compiled for the named crates (see [`Image::functions_of`]; `&[]` for the roots
    /// alone).
    ///
    /// Fails with [`CodeError::NotAFunction`] if a root lies in no function.
    pub fn reach(&self, roots: &[usize], crates: &[&str]) -> Result<CodeDigest, CodeError> {
        crate::walk::reach(self, roots, crates)
    }

    /// The canonical names (layout-dependent suffixes removed) of every function reachable
    /// from these roots and crates, sorted: what [`Image::reach`] digests.
    pub fn reached_names(
        &self,
        roots: &[usize],
        crates: &[&str],
    ) -> Result<Vec<String>, CodeError> {
        let mut names: Vec<String> = crate::walk::reached(self, roots, crates)?
            .into_iter()
            .map(|i| self.funcs[i].name.clone())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Every function reachable from these roots and crates with its size and its own digest
    /// (16 hex digits), sorted by name: what tells which functions differ between two builds.
    pub fn reached_functions(
        &self,
        roots: &[usize],
        crates: &[&str],
    ) -> Result<Vec<(String, u64, String)>, CodeError> {
        let mut all: Vec<(String, u64, String)> = crate::walk::reached(self, roots, crates)?
            .into_iter()
            .map(|i| {
                let f = &self.funcs[i];
                (
                    f.name.clone(),
                    f.size,
                    format!("{:016x}", crate::walk::own(self, i).digest),
                )
            })
            .collect();
        all.sort();
        Ok(all)
    }

    /// The runtime address of the one function whose symbol is `name`: its symbol exactly,
    /// the symbol with its layout-dependent suffixes removed, or its path as a demangler
    /// prints it without the hash (`prog::work` for `_RNvCs1a2b_4prog4work` or
    /// `_ZN4prog4work17h0123456789abcdefE`; paths of plain names only: no generic arguments,
    /// impls or closures). `None` if no function matches, or if functions at several addresses
    /// do (two `static` C functions of one name, say).
    pub fn function_address(&self, name: &str) -> Option<usize> {
        let want = canonical(name);
        let mut found = self.funcs.iter().filter(|f| {
            f.raw == name || f.name == want || plain_path(&f.raw).as_deref() == Some(name)
        });
        let first = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some(first.addr.wrapping_add(self.bias) as usize)
    }

    /// The canonical names of every function whose symbol contains `text`, sorted.
    pub fn function_names_containing(&self, text: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .funcs
            .iter()
            .filter(|f| f.name.contains(text))
            .map(|f| f.name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The functions (indices, in address order) compiled for the named crates: whose symbol
    /// (in Rust's v0 scheme) names one of them, as the crate that defines the function, a
    /// type of one of its arguments, or the crate that instantiated a generic function.
    /// Symbols in the legacy scheme name none of this: there, only what the roots reach
    /// counts.
    pub fn functions_of(&self, crates: &[&str]) -> Vec<usize> {
        let tokens: Vec<String> = crates.iter().map(|c| format!("{}{c}", c.len())).collect();
        self.funcs
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.name.starts_with("_R") && tokens.iter().any(|t| names_crate(&f.name, t))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The function containing file address `a`.
    pub(crate) fn func_at(&self, a: u64) -> Option<usize> {
        let i = self.funcs.partition_point(|f| f.addr <= a).checked_sub(1)?;
        let f = &self.funcs[i];
        (a < f.addr.saturating_add(f.size)).then_some(i)
    }

    /// The bytes of the file at address `a`, `len` of them, where the file holds them.
    pub(crate) fn at(&self, ranges: &[Range], a: u64, len: u64) -> Option<&[u8]> {
        let r = range_at(ranges, a)?;
        if a.checked_add(len)? > r.end {
            return None;
        }
        let start = usize::try_from(r.offset?.checked_add(a - r.addr)?).ok()?;
        self.bytes
            .get(start..start.checked_add(usize::try_from(len).ok()?)?)
    }

    /// Whether `a` lies in executable code.
    pub(crate) fn in_exec(&self, a: u64) -> bool {
        range_at(&self.exec, a).is_some()
    }

    /// Whether `a` lies in data the file maps.
    pub(crate) fn in_data(&self, a: u64) -> bool {
        range_at(&self.data, a).is_some()
    }

    /// The digest of the name of the data object at `a` and the offset into it, where a
    /// symbol names it the same way in every build.
    pub(crate) fn data_name(&self, a: u64) -> Option<(u64, u64)> {
        let i = self
            .data_syms
            .partition_point(|d| d.addr <= a)
            .checked_sub(1)?;
        let d = &self.data_syms[i];
        let name = d.name_hash?;
        (a < d.addr.saturating_add(d.size)).then_some((name, a - d.addr))
    }

    /// The pointer a relocation writes at `a`, if one does.
    pub(crate) fn reloc(&self, a: u64) -> Option<Word> {
        let i = self.relocs.binary_search_by_key(&a, |r| r.0).ok()?;
        Some(self.relocs[i].1)
    }

    /// The word of data at `a`: a relocation's pointer if the loader writes one there, else
    /// the file's bytes (in an executable that is not position-independent, a value inside
    /// the code or the data is taken for a pointer).
    pub(crate) fn word(&self, a: u64) -> Option<Word> {
        if let Some(w) = self.reloc(a) {
            return Some(w);
        }
        let b = self.at(&self.data, a, 8)?;
        let v = u64::from_le_bytes(b.try_into().ok()?);
        Some(self.classify(v))
    }

    fn classify(&self, v: u64) -> Word {
        if !self.pie && v != 0 {
            if self.in_exec(v) {
                return Word::Code(v);
            }
            if self.in_data(v) {
                return Word::Data;
            }
        }
        Word::Int(v)
    }

    /// The table of pointers whose address the code takes at `t`, as far as the file tells
    /// where it ends, without its trailing words that point to no code.
    ///
    /// It ends at the end of the data symbol holding it, before the next data symbol, after
    /// [`MAX_TABLE_WORDS`] words, and
    ///
    /// * a Rust trait object's table (`drop_in_place` or null, a size, a power-of-two
    ///   alignment dividing it, then the methods) at the first word that is neither a pointer
    ///   nor null, or where the header of the next such table begins (the tables one crate
    ///   uses lie side by side);
    /// * any other table at the first word that is neither a pointer nor a small integer
    ///   (below [`SMALL`]), or where a trait object's table begins.
    ///
    /// A slot of the global offset table is one pointer, never a table.
    pub(crate) fn table(&self, t: u64) -> Vec<Word> {
        if range_at(&self.got, t).is_some() {
            return self.word(t).into_iter().collect();
        }
        let Some(r) = range_at(&self.data, t) else {
            return Vec::new();
        };
        let mut end = t.saturating_add(8 * MAX_TABLE_WORDS as u64).min(r.end);
        let i = self.data_syms.partition_point(|d| d.addr <= t);
        if let Some(next) = self.data_syms.get(i) {
            end = end.min(next.addr);
        }
        if let Some(d) = i.checked_sub(1).map(|i| &self.data_syms[i]) {
            if d.size > 0 && t < d.addr.saturating_add(d.size) {
                end = end.min(d.addr + d.size);
            }
        }
        let n = usize::try_from(end.saturating_sub(t) / 8).unwrap_or(0);
        let bytes = r.offset.and_then(|_| self.at(&self.data, t, 8 * n as u64));
        let first_reloc = self.relocs.partition_point(|x| x.0 < t);
        let mut relocs = self.relocs[first_reloc..]
            .iter()
            .take_while(|x| x.0 < end)
            .peekable();
        let mut words = Vec::with_capacity(n.min(16));
        // Two words are read past the one that ends the run: the next table's header may
        // begin before it.
        let mut past: Option<u8> = None;
        for k in 0..n {
            let a = t + 8 * k as u64;
            while relocs.next_if(|x| x.0 < a).is_some() {}
            let w = match relocs.next_if(|x| x.0 == a) {
                Some(&(_, w)) => w,
                None => match bytes {
                    Some(b) => {
                        let mut v = [0u8; 8];
                        v.copy_from_slice(&b[8 * k..8 * k + 8]);
                        self.classify(u64::from_le_bytes(v))
                    }
                    // Memory the file does not hold (`.bss`): zero until the program runs.
                    None => Word::Int(0),
                },
            };
            let goes_on = match w {
                Word::Code(_) | Word::External(_) | Word::Int(0) => true,
                // A supertrait's table, in a trait object's table.
                Word::Data => true,
                Word::Int(v) => k < 3 || v < SMALL,
            };
            words.push(w);
            match past {
                Some(0) => break,
                Some(left) => past = Some(left - 1),
                None if !goes_on => past = Some(1),
                None => {}
            }
        }
        let vtable = is_vtable_header(&words);
        let first = if vtable { 3 } else { 1 };
        let mut n = words.len().min(first);
        for w in words.iter().skip(n) {
            let goes_on = match w {
                Word::Code(_) | Word::External(_) | Word::Int(0) | Word::Data => true,
                Word::Int(v) => !vtable && *v < SMALL,
            };
            if !goes_on {
                break;
            }
            n += 1;
        }
        // Where a trait object's table begins, this table has ended. After a trait object's
        // methods, the next one's header begins at most two words before the word that ended
        // the run (its drop and size, or its null drop, zero size and alignment); where both
        // read as a header, the later one is taken: a method followed by a null is a header
        // only for a zero-sized type aligned to the null's successor, rarer than a null drop.
        let mut starts = (first..n).filter(|&k| is_vtable_header(&words[k..]));
        let next = if vtable { starts.last() } else { starts.next() };
        words.truncate(next.unwrap_or(n));
        while matches!(words.last(), Some(Word::Int(_) | Word::Data)) {
            words.pop();
        }
        words
    }
}

/// The range holding `a`, of ranges sorted by address.
fn range_at(ranges: &[Range], a: u64) -> Option<&Range> {
    let i = ranges.partition_point(|r| r.addr <= a).checked_sub(1)?;
    let r = &ranges[i];
    (a < r.end).then_some(r)
}

/// The digest a name is hashed by.
fn name_hash(name: &str) -> u64 {
    let mut h = Fnv::new();
    h.str(name);
    h.finish()
}

/// The words the loader writes, from the dynamic relocations: `R_X86_64_RELATIVE` (base plus
/// addend), and `R_X86_64_64`, `GLOB_DAT` and `JUMP_SLOT` to a symbol, this file's or another
/// object's (then named in the second list).
fn dynamic_pointers(file: &object::File, exec: &[Range]) -> (Vec<(u64, Word)>, Vec<String>) {
    let mut relocs = Vec::new();
    let mut externals: Vec<String> = Vec::new();
    let mut external_index: HashMap<String, u32> = HashMap::new();
    let Some(dynamic) = file.dynamic_relocations() else {
        return (relocs, externals);
    };
    let dynsyms: HashMap<usize, (u64, String)> = file
        .dynamic_symbols()
        .map(|s| {
            let name = s.name().unwrap_or_default().to_string();
            let addr = if s.is_undefined() { 0 } else { s.address() };
            (s.index().0, (addr, name))
        })
        .collect();
    let pointer = |p: u64| {
        if range_at(exec, p).is_some() {
            Word::Code(p)
        } else {
            Word::Data
        }
    };
    for (at, r) in dynamic {
        let RelocationFlags::Elf { r_type } = r.flags() else {
            continue;
        };
        let word = match (r_type, r.target()) {
            (object::elf::R_X86_64_RELATIVE, _) => pointer(r.addend() as u64),
            (
                object::elf::R_X86_64_64
                | object::elf::R_X86_64_GLOB_DAT
                | object::elf::R_X86_64_JUMP_SLOT,
                RelocationTarget::Symbol(i),
            ) => match dynsyms.get(&i.0) {
                Some((a, _)) if *a != 0 => pointer(a.wrapping_add(r.addend() as u64)),
                Some((_, name)) if !name.is_empty() => {
                    let next = u32::try_from(externals.len()).unwrap_or(u32::MAX);
                    let i = *external_index.entry(name.clone()).or_insert_with(|| {
                        externals.push(name.clone());
                        next
                    });
                    Word::External(i)
                }
                _ => continue,
            },
            _ => continue,
        };
        relocs.push((at, word));
    }
    relocs.sort_by_key(|r| r.0);
    relocs.dedup_by_key(|r| r.0);
    (relocs, externals)
}

/// Whether `words` begin as a Rust trait object's table does: `drop_in_place` (or null when
/// the type needs no drop), the size, and the alignment (a power of two dividing the size).
fn is_vtable_header(words: &[Word]) -> bool {
    match words {
        [Word::Code(_) | Word::Int(0), Word::Int(size), Word::Int(align), ..] => {
            align.is_power_of_two() && *align <= 1 << 29 && size % align == 0
        }
        _ => false,
    }
}

/// This process's load bias: where the loader put the executable's program headers
/// (`getauxval(AT_PHDR)`) minus the address the file gives them (its `PT_PHDR` segment, or
/// the loadable segment holding them).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn load_bias(bytes: &[u8], path: &str) -> Result<u64, CodeError> {
    use object::read::elf::{FileHeader, ProgramHeader};
    let no = |why: String| CodeError::NotElf {
        path: path.to_string(),
        why,
    };
    let header = object::elf::FileHeader64::<object::Endianness>::parse(bytes)
        .map_err(|e| no(e.to_string()))?;
    let endian = header.endian().map_err(|e| no(e.to_string()))?;
    let phdrs = header
        .program_headers(endian, bytes)
        .map_err(|e| no(e.to_string()))?;
    let phoff = header.e_phoff(endian);
    let file_addr = phdrs
        .iter()
        .find(|p| p.p_type(endian) == object::elf::PT_PHDR)
        .map(|p| p.p_vaddr(endian))
        .or_else(|| {
            phdrs
                .iter()
                .filter(|p| p.p_type(endian) == object::elf::PT_LOAD)
                .find(|p| {
                    let off = p.p_offset(endian);
                    off <= phoff && phoff - off < p.p_filesz(endian)
                })
                .map(|p| p.p_vaddr(endian) + (phoff - p.p_offset(endian)))
        })
        .ok_or_else(|| no("no segment maps its program headers".into()))?;
    // SAFETY: getauxval only reads the auxiliary vector the kernel gave this process.
    let runtime = unsafe { libc::getauxval(libc::AT_PHDR) };
    if runtime == 0 {
        return Err(no(
            "the loader did not say where it mapped the program headers".into(),
        ));
    }
    Ok(runtime.wrapping_sub(file_addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trait_objects_table_ends_where_the_next_ones_header_begins() {
        let c = Word::Code;
        let i = Word::Int;
        let words = [c(1), i(24), i(8), c(2), c(3), c(4), i(0), i(16), i(8), c(5)];
        assert!(is_vtable_header(&words));
        assert!(is_vtable_header(&words[6..]));
        assert!(!is_vtable_header(&words[3..]));
        assert!(!is_vtable_header(&[c(1), i(24), i(3)]));
        assert!(!is_vtable_header(&[c(1), i(20), i(8)]));
        assert!(!is_vtable_header(&[Word::Data, i(24), i(8)]));
    }
}
