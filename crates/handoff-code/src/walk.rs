//! From roots to every function they reach, each digested without its placement.

use crate::digest::Fnv;
use crate::elf::{canonical, Image};
use crate::{CodeDigest, CodeError};
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic, OpKind, Register};
use std::collections::BTreeSet;

/// At most this many functions are followed from one set of roots.
const MAX_FUNCTIONS: usize = 200_000;

impl Image {
    /// The digest of the code reachable from these runtime addresses (function entry points,
    /// e.g. `some_fn as usize`, or any address inside a function) and from every function
    /// compiled for the named crates (see [`Image::functions_of`]).
    pub fn reach(&self, roots: &[usize], crates: &[&str]) -> Result<CodeDigest, CodeError> {
        reach(self, roots, crates)
    }

    /// The names (layout-dependent suffixes removed) of every function reachable from these
    /// roots, sorted: what [`Image::reach`] digests.
    pub fn reached_names(
        &self,
        roots: &[usize],
        crates: &[&str],
    ) -> Result<Vec<String>, CodeError> {
        reached(self, roots, crates).map(|set| {
            let mut names: Vec<String> = set
                .into_iter()
                .map(|i| self.funcs[i].name.clone())
                .collect();
            names.sort();
            names
        })
    }

    /// Every function reachable from these roots with its size and its own digest, sorted by
    /// name: what tells which functions differ between two builds.
    pub fn reached_functions(
        &self,
        roots: &[usize],
        crates: &[&str],
    ) -> Result<Vec<(String, u64, String)>, CodeError> {
        let mut all: Vec<(String, u64, String)> = reached(self, roots, crates)?
            .into_iter()
            .map(|i| {
                let f = &self.funcs[i];
                (
                    f.name.clone(),
                    f.size,
                    format!("{:016x}", own_digest(self, i)),
                )
            })
            .collect();
        all.sort();
        Ok(all)
    }

    /// The runtime address of the function whose symbol is `name` (exactly, or with its
    /// suffixes removed), if there is one.
    pub fn function_address(&self, name: &str) -> Option<usize> {
        let want = canonical(name);
        self.funcs
            .iter()
            .find(|f| f.name == want)
            .map(|f| f.addr.wrapping_add(self.bias) as usize)
    }

    /// The symbols (suffixes removed) of every function whose symbol contains `text`, sorted.
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
}

/// The digest of everything reachable from `roots` and from the functions of `crates`.
pub(crate) fn reach(
    img: &Image,
    roots: &[usize],
    crates: &[&str],
) -> Result<CodeDigest, CodeError> {
    let set = reached(img, roots, crates)?;
    let mut parts: Vec<(&str, u64)> = Vec::with_capacity(set.len());
    let mut bytes = 0;
    for &i in &set {
        let (d, _) = function(img, i);
        parts.push((&img.funcs[i].name, d));
        bytes += img.funcs[i].size;
    }
    parts.sort_unstable();
    let mut h = Fnv::new();
    for (name, d) in &parts {
        h.str(name);
        h.u64(*d);
    }
    Ok(CodeDigest {
        digest: format!("{:016x}", h.finish()),
        functions: u32::try_from(set.len()).unwrap_or(u32::MAX),
        bytes,
    })
}

/// Every function reachable from `roots` and from the functions of `crates` (indices into the
/// image's functions).
pub(crate) fn reached(
    img: &Image,
    roots: &[usize],
    crates: &[&str],
) -> Result<BTreeSet<usize>, CodeError> {
    let mut seen = BTreeSet::new();
    let mut todo = Vec::new();
    for i in img.functions_of(crates) {
        if seen.insert(i) {
            todo.push(i);
        }
    }
    for &r in roots {
        let a = (r as u64).wrapping_sub(img.bias);
        let i = img.func_at(a).ok_or(CodeError::NotAFunction(r))?;
        if seen.insert(i) {
            todo.push(i);
        }
    }
    while let Some(i) = todo.pop() {
        if seen.len() >= MAX_FUNCTIONS {
            break;
        }
        let (_, edges) = function(img, i);
        for e in edges {
            if seen.insert(e) {
                todo.push(e);
            }
        }
    }
    Ok(seen)
}

/// One function's own digest.
pub(crate) fn own_digest(img: &Image, i: usize) -> u64 {
    function(img, i).0
}

/// One function's digest and the functions it reaches, computed once per image.
fn function(img: &Image, i: usize) -> (u64, Vec<usize>) {
    if let Some(known) = img.seen.lock().unwrap_or_else(|e| e.into_inner()).get(&i) {
        return known.clone();
    }
    let computed = digest_function(img, i);
    img.seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(i, computed.clone());
    computed
}

fn digest_function(img: &Image, i: usize) -> (u64, Vec<usize>) {
    let f = &img.funcs[i];
    let mut h = Fnv::new();
    let mut edges = BTreeSet::new();
    let Some(code) = img.at(&img.exec, f.addr, f.size) else {
        h.str("unreadable");
        return (h.finish(), Vec::new());
    };
    let mut decoder = Decoder::with_ip(64, code, f.addr, DecoderOptions::NONE);
    let mut ins = Instruction::default();
    // The register holding the thread pointer (`mov reg, fs:[0]`): offsets from it are where
    // the linker placed thread-locals, placement like any address.
    let mut thread_pointer: Vec<Register> = Vec::new();
    while decoder.can_decode() {
        let offset = decoder.position();
        decoder.decode_out(&mut ins);
        if ins.is_invalid() {
            // Padding or data in the code: hashed as bytes, the walk goes on.
            h.bytes(&code[offset..offset + ins.len().max(1)]);
            continue;
        }
        h.u64(ins.code() as u64);
        for op in 0..ins.op_count() {
            let kind = ins.op_kind(op);
            h.u64(kind as u64);
            match kind {
                OpKind::Register => h.u64(ins.op_register(op) as u64),
                OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64 => target(
                    img,
                    i,
                    ins.near_branch_target(),
                    Ref::Address,
                    &mut h,
                    &mut edges,
                ),
                OpKind::Immediate8
                | OpKind::Immediate8_2nd
                | OpKind::Immediate16
                | OpKind::Immediate32
                | OpKind::Immediate64
                | OpKind::Immediate8to16
                | OpKind::Immediate8to32
                | OpKind::Immediate8to64
                | OpKind::Immediate32to64 => h.u64(ins.immediate(op)),
                OpKind::Memory => {
                    h.u64(ins.memory_size() as u64);
                    h.u64(ins.segment_prefix() as u64);
                    if ins.is_ip_rel_memory_operand() {
                        // `lea` takes an address (of a table, say); any other instruction
                        // reads the word there (a pointer the loader filled in, say).
                        let how = if ins.mnemonic() == Mnemonic::Lea {
                            Ref::Address
                        } else {
                            Ref::Load
                        };
                        target(img, i, ins.ip_rel_memory_address(), how, &mut h, &mut edges);
                    } else if ins.segment_prefix() == Register::FS
                        || thread_pointer.contains(&ins.memory_base())
                    {
                        h.str("thread-local");
                        h.u64(ins.memory_index() as u64);
                    } else {
                        h.u64(ins.memory_base() as u64);
                        h.u64(ins.memory_index() as u64);
                        h.u64(u64::from(ins.memory_index_scale()));
                        h.u64(ins.memory_displacement64());
                    }
                }
                _ => {}
            }
        }
        let loads_thread_pointer = ins.op_count() == 2
            && ins.op0_kind() == OpKind::Register
            && ins.op1_kind() == OpKind::Memory
            && ins.segment_prefix() == Register::FS
            && ins.memory_base() == Register::None
            && ins.memory_displacement64() == 0;
        let copies_thread_pointer = ins.mnemonic() == Mnemonic::Mov
            && ins.op_count() == 2
            && ins.op0_kind() == OpKind::Register
            && ins.op1_kind() == OpKind::Register
            && thread_pointer.contains(&ins.op1_register());
        let written = (ins.op_count() > 0 && ins.op0_kind() == OpKind::Register)
            .then(|| ins.op0_register())
            .filter(|_| {
                !matches!(
                    ins.mnemonic(),
                    Mnemonic::Cmp | Mnemonic::Test | Mnemonic::Push
                )
            });
        if let Some(r) = written {
            thread_pointer.retain(|&t| t != r);
            if loads_thread_pointer || copies_thread_pointer {
                thread_pointer.push(r);
            }
        }
        // A 64-bit immediate can be an absolute address (a non-PIE executable).
        if ins.op_count() > 0 && ins.memory_base() == Register::None {
            if let Ok(v) = ins.try_immediate(ins.op_count() - 1) {
                if !img.pie && img.func_at(v).is_some() {
                    target(img, i, v, Ref::Address, &mut h, &mut edges);
                }
            }
        }
    }
    (h.finish(), edges.into_iter().collect())
}

/// How an instruction refers to an address.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ref {
    /// It branches to it or takes it (`call`, `jmp`, `lea`).
    Address,
    /// It reads the word there (`mov`, `call [..]`): a pointer filled in by the loader is
    /// followed as one pointer, not as a table.
    Load,
}

/// Hashes a reference from function `from` to address `t` by what it is, not where, and
/// records the functions it reaches.
fn target(img: &Image, from: usize, t: u64, how: Ref, h: &mut Fnv, edges: &mut BTreeSet<usize>) {
    let f = &img.funcs[from];
    if f.addr <= t && t < f.addr + f.size {
        h.str("self");
        h.u64(t - f.addr);
        return;
    }
    if let Some(j) = img.func_at(t) {
        h.str(&img.funcs[j].name);
        h.u64(t - img.funcs[j].addr);
        edges.insert(j);
        return;
    }
    if img.in_exec(t) {
        // A stub without a symbol (a PLT entry): another library's function.
        h.str("stub");
        return;
    }
    if img.in_data(t) {
        h.str("data");
        // A slot of the global offset table, or any one pointer: what it points to. (A table
        // of pointers whose address is taken, a vtable say, is not read: where it ends cannot
        // be told from the file, and reading past it would reach whatever the linker placed
        // next. The functions such tables hold are reached by their crate.)
        if let (Ref::Load, Some(&p)) = (how, img.relocs.get(&t)) {
            match img.func_at(p) {
                Some(j) => {
                    h.str(&img.funcs[j].name);
                    edges.insert(j);
                }
                None if img.in_exec(p) => h.str("stub"),
                None => h.str("ptr"),
            }
        }
        return;
    }
    h.str("elsewhere");
}
