//! An executable read for its code: functions by address, executable ranges, and the code
//! pointers its dynamic relocations put into data.

use crate::CodeError;
use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SymbolKind};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

/// One function: where it is and what it is called.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub addr: u64,
    pub size: u64,
    /// Its symbol, with layout-dependent suffixes removed (see [`canonical`]).
    pub name: String,
}

/// A range of the file mapped at an address.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub addr: u64,
    pub end: u64,
    /// File offset of `addr`, or `None` for memory the file does not hold (`.bss`).
    pub offset: Option<u64>,
}

/// An executable's code, read from its file (ELF, x86-64).
pub struct Image {
    pub(crate) bytes: Vec<u8>,
    /// Runtime address minus file address (0 for a file read with [`Image::open`]).
    pub(crate) bias: u64,
    /// Position-independent (its tables hold relocated pointers, not addresses).
    pub(crate) pie: bool,
    /// Functions, sorted by address, one per address.
    pub(crate) funcs: Vec<Func>,
    pub(crate) exec: Vec<Range>,
    pub(crate) data: Vec<Range>,
    /// Pointer-sized words the loader fills in: where, and the address they point to.
    pub(crate) relocs: BTreeMap<u64, u64>,
    /// Each function's own digest and the functions it reaches, once computed.
    pub(crate) seen: Mutex<HashMap<usize, (u64, Vec<usize>)>>,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("functions", &self.funcs.len())
            .field("bias", &self.bias)
            .finish()
    }
}

impl Image {
    /// Reads the executable at `path`; addresses given to it are the file's own.
    pub fn open(path: &Path) -> Result<Image, CodeError> {
        let bytes = std::fs::read(path).map_err(|source| CodeError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Image::parse(bytes, &path.display().to_string(), 0)
    }

    /// The running process's own executable, with this process's load address, so that
    /// addresses of its functions (`some_fn as usize`) can be given as roots.
    pub fn current() -> Result<Image, CodeError> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err(CodeError::Unsupported);
        }
        let exe = std::fs::read_link("/proc/self/exe").map_err(|source| CodeError::Io {
            path: "/proc/self/exe".into(),
            source,
        })?;
        let bytes = std::fs::read("/proc/self/exe").map_err(|source| CodeError::Io {
            path: exe.display().to_string(),
            source,
        })?;
        let base = load_base(&exe).ok_or_else(|| CodeError::NotElf {
            path: exe.display().to_string(),
            why: "its mapping is not in /proc/self/maps".into(),
        })?;
        let name = exe.display().to_string();
        let lowest = lowest_load(&bytes, &name)?;
        Image::parse(bytes, &name, base.wrapping_sub(lowest & !0xfff))
    }

    fn parse(bytes: Vec<u8>, path: &str, bias: u64) -> Result<Image, CodeError> {
        let not_elf = |why: String| CodeError::NotElf {
            path: path.to_string(),
            why,
        };
        let parsed = object::File::parse(&*bytes).map_err(|e| not_elf(e.to_string()))?;
        let file = &parsed;
        if file.format() != object::BinaryFormat::Elf
            || file.architecture() != object::Architecture::X86_64
        {
            return Err(not_elf(format!(
                "{:?} {:?}",
                file.format(),
                file.architecture()
            )));
        }
        let (mut exec, mut data) = (Vec::new(), Vec::new());
        for s in file.sections() {
            if s.address() == 0 || s.size() == 0 {
                continue;
            }
            let range = Range {
                addr: s.address(),
                end: s.address() + s.size(),
                offset: s.file_range().map(|(o, _)| o),
            };
            match s.kind() {
                object::SectionKind::Text => exec.push(range),
                _ => data.push(range),
            }
        }
        let mut by_addr: BTreeMap<u64, Func> = BTreeMap::new();
        let symbols = file.symbols().chain(file.dynamic_symbols());
        for s in symbols {
            if s.kind() != SymbolKind::Text || s.size() == 0 {
                continue;
            }
            let Ok(raw) = s.name() else { continue };
            let f = Func {
                addr: s.address(),
                size: s.size(),
                name: canonical(raw),
            };
            // Aliases: one name per address, the same one in every build.
            match by_addr.get(&f.addr) {
                Some(there) if there.name <= f.name => {}
                _ => {
                    by_addr.insert(f.addr, f);
                }
            }
        }
        if by_addr.is_empty() {
            return Err(CodeError::Stripped {
                path: path.to_string(),
            });
        }
        let mut relocs = BTreeMap::new();
        if let Some(dynamic) = file.dynamic_relocations() {
            let dynsyms: HashMap<usize, u64> = file
                .dynamic_symbols()
                .map(|s| (s.index().0, s.address()))
                .collect();
            for (at, r) in dynamic {
                let RelocationFlags::Elf { r_type } = r.flags() else {
                    continue;
                };
                let target = match (r_type, r.target()) {
                    // R_X86_64_RELATIVE: base + addend.
                    (object::elf::R_X86_64_RELATIVE, _) => r.addend() as u64,
                    // R_X86_64_64 / GLOB_DAT / JUMP_SLOT to a symbol this file defines.
                    (
                        object::elf::R_X86_64_64
                        | object::elf::R_X86_64_GLOB_DAT
                        | object::elf::R_X86_64_JUMP_SLOT,
                        RelocationTarget::Symbol(i),
                    ) => match dynsyms.get(&i.0) {
                        Some(&a) if a != 0 => a.wrapping_add(r.addend() as u64),
                        _ => continue,
                    },
                    _ => continue,
                };
                relocs.insert(at, target);
            }
        }
        exec.sort_by_key(|r| r.addr);
        data.sort_by_key(|r| r.addr);
        let pie = file.kind() == object::ObjectKind::Dynamic;
        Ok(Image {
            pie,
            bytes,
            bias,
            funcs: by_addr.into_values().collect(),
            exec,
            data,
            relocs,
            seen: Mutex::new(HashMap::new()),
        })
    }

    /// The functions compiled for the named crates: whose symbol (in Rust's v0 scheme) names
    /// one of them, as the crate that defines the function, a type of one of its arguments, or
    /// the crate that instantiated a generic function. Functions a crate's code only reaches
    /// through a table of pointers (a closure a thread runs, a trait object's methods) are
    /// found this way. Symbols in the legacy scheme name none of this: there, only what the
    /// roots reach by calls counts.
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
        let i = self.funcs.partition_point(|f| f.addr <= a);
        let i = i.checked_sub(1)?;
        let f = &self.funcs[i];
        (a < f.addr + f.size).then_some(i)
    }

    /// The bytes of the file at address `a`, `len` of them, where the file holds them.
    pub(crate) fn at(&self, ranges: &[Range], a: u64, len: u64) -> Option<&[u8]> {
        let r = ranges.iter().find(|r| r.addr <= a && a + len <= r.end)?;
        let start = usize::try_from(r.offset? + (a - r.addr)).ok()?;
        self.bytes.get(start..start + usize::try_from(len).ok()?)
    }

    /// Whether `a` lies in executable code.
    pub(crate) fn in_exec(&self, a: u64) -> bool {
        self.exec.iter().any(|r| r.addr <= a && a < r.end)
    }

    /// Whether `a` lies in data the file maps.
    pub(crate) fn in_data(&self, a: u64) -> bool {
        self.data.iter().any(|r| r.addr <= a && a < r.end)
    }
}

/// Whether a v0 symbol names the crate whose identifier is `token` (`<length><name>`): the
/// token right after a crate root's tag (`C`, or `Cs<disambiguator>_`).
fn names_crate(symbol: &str, token: &str) -> bool {
    symbol.match_indices(token).any(|(at, _)| {
        let before = &symbol[..at];
        before.ends_with('C')
            || before.rfind("Cs").is_some_and(|c| {
                let hash = &before[c + 2..];
                hash.len() > 1
                    && hash.ends_with('_')
                    && hash[..hash.len() - 1]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric())
            })
    })
}

/// A symbol's name without the suffixes a compiler or linker adds that depend on where the
/// function was compiled rather than on what it is: ThinLTO's `.llvm.<digits>` (the module's
/// hash), numbered clones (`.cold.3`, `.part.1`, `.constprop.0`: the number dropped, the kind
/// kept), anonymous constants' hashes.
pub(crate) fn canonical(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, part) in raw.split('.').enumerate() {
        if i == 0 {
            out.push_str(part);
            continue;
        }
        let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        let hexish = part.len() >= 8 && part.bytes().all(|b| b.is_ascii_hexdigit());
        if part == "llvm" || digits || hexish {
            continue;
        }
        out.push('.');
        out.push_str(part);
    }
    out
}

/// Where this process mapped `exe` first (its lowest mapping of file offset 0).
fn load_base(exe: &Path) -> Option<u64> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let exe = exe.to_string_lossy();
    maps.lines()
        .filter(|l| l.ends_with(&*exe))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let range = f.next()?;
            let _perms = f.next()?;
            let offset = u64::from_str_radix(f.next()?, 16).ok()?;
            let start = u64::from_str_radix(range.split('-').next()?, 16).ok()?;
            (offset == 0).then_some(start)
        })
        .min()
}

/// The lowest address a loadable segment of the file asks for.
fn lowest_load(bytes: &[u8], path: &str) -> Result<u64, CodeError> {
    let file = object::File::parse(bytes).map_err(|e| CodeError::NotElf {
        path: path.to_string(),
        why: e.to_string(),
    })?;
    Ok(object::Object::segments(&file)
        .map(|s| object::ObjectSegment::address(&s))
        .min()
        .unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn layout_dependent_suffixes_are_removed_and_kinds_kept() {
        assert_eq!(
            canonical("_ZN3foo3bar17h0123456789abcdefE.llvm.1234567890123"),
            "_ZN3foo3bar17h0123456789abcdefE"
        );
        assert_eq!(canonical("memcpy.cold.3"), "memcpy.cold");
        assert_eq!(canonical("f.part.0"), "f.part");
        assert_eq!(
            canonical("anon.0123456789abcdef0123456789abcdef.12"),
            "anon"
        );
        assert_eq!(canonical("main"), "main");
    }
}
