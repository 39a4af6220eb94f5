//! From roots to every function they reach, each digested without its placement.

use crate::digest::Fnv;
use crate::elf::{Image, Own, Word};
use crate::{CodeDigest, CodeError};
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic, OpKind, Register};
use std::collections::BTreeSet;

/// At most this many functions are followed from one set of roots.
const MAX_FUNCTIONS: usize = 200_000;

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
        parts.push((&img.funcs[i].name, own(img, i).digest));
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

/// Every function reachable from `roots` and from the functions of `crates`: indices into
/// the image's functions, in address order.
pub(crate) fn reached(
    img: &Image,
    roots: &[usize],
    crates: &[&str],
) -> Result<Vec<usize>, CodeError> {
    let mut seen = vec![false; img.funcs.len()];
    let mut queue = Vec::new();
    let visit = |i: usize, seen: &mut Vec<bool>, queue: &mut Vec<usize>| {
        if !seen[i] {
            seen[i] = true;
            queue.push(i);
        }
    };
    for &r in roots {
        let a = (r as u64).wrapping_sub(img.bias);
        let i = img.func_at(a).ok_or(CodeError::NotAFunction(r))?;
        visit(i, &mut seen, &mut queue);
    }
    for i in img.functions_of(crates) {
        visit(i, &mut seen, &mut queue);
    }
    // Breadth first: what the bound cuts off is the farthest from the roots.
    let mut next = 0;
    while next < queue.len() && queue.len() < MAX_FUNCTIONS {
        let i = queue[next];
        next += 1;
        for &e in &own(img, i).edges {
            visit(e, &mut seen, &mut queue);
        }
    }
    queue.truncate(MAX_FUNCTIONS);
    queue.sort_unstable();
    Ok(queue)
}

/// One function's own digest and the functions it refers to, computed once per image.
pub(crate) fn own(img: &Image, i: usize) -> &Own {
    img.own[i].get_or_init(|| digest_function(img, i))
}

fn digest_function(img: &Image, i: usize) -> Own {
    let f = &img.funcs[i];
    let mut h = Fnv::new();
    let mut edges = BTreeSet::new();
    let Some(code) = img.at(&img.exec, f.addr, f.size) else {
        h.str("unreadable");
        return Own {
            digest: h.finish(),
            edges: Vec::new(),
        };
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
            let end = decoder.position().max(offset + 1).min(code.len());
            h.u8(0xff);
            h.bytes(&code[offset.min(end)..end]);
            continue;
        }
        h.u16(ins.code() as u16);
        for op in 0..ins.op_count() {
            let kind = ins.op_kind(op);
            h.u16(kind as u16);
            match kind {
                OpKind::Register => h.u16(ins.op_register(op) as u16),
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
                | OpKind::Immediate32to64 => {
                    let v = ins.immediate(op);
                    // An executable that is not position-independent takes addresses as
                    // immediates (`mov esi, offset table`).
                    if !img.pie && v != 0 && (img.in_exec(v) || img.in_data(v)) {
                        target(img, i, v, Ref::Address, &mut h, &mut edges);
                    } else {
                        h.u64(v);
                    }
                }
                OpKind::Memory => {
                    h.u16(ins.memory_size() as u16);
                    h.u16(ins.segment_prefix() as u16);
                    let displacement = ins.memory_displacement64();
                    let how = if ins.mnemonic() == Mnemonic::Lea {
                        // `lea` takes an address (of a table, say); any other instruction
                        // reads the word there (a pointer the loader filled in, say).
                        Ref::Address
                    } else {
                        Ref::Load
                    };
                    if ins.is_ip_rel_memory_operand() {
                        target(img, i, ins.ip_rel_memory_address(), how, &mut h, &mut edges);
                    } else if ins.segment_prefix() == Register::FS
                        || thread_pointer.contains(&ins.memory_base())
                    {
                        h.str("thread-local");
                        h.u16(ins.memory_index() as u16);
                    } else if !img.pie
                        && ins.memory_base() == Register::None
                        && (img.in_exec(displacement) || img.in_data(displacement))
                    {
                        // An absolute address (`jmp [table + rax*8]` without PIE): indexed,
                        // it reads a table.
                        h.u16(ins.memory_index() as u16);
                        h.u16(ins.memory_index_scale() as u16);
                        let how = if ins.memory_index() == Register::None {
                            how
                        } else {
                            Ref::Address
                        };
                        target(img, i, displacement, how, &mut h, &mut edges);
                    } else {
                        h.u16(ins.memory_base() as u16);
                        h.u16(ins.memory_index() as u16);
                        h.u16(ins.memory_index_scale() as u16);
                        h.u64(displacement);
                    }
                }
                _ => {}
            }
        }
        track_thread_pointer(&ins, &mut thread_pointer);
    }
    Own {
        digest: h.finish(),
        edges: edges.into_iter().collect(),
    }
}

/// Follows which registers hold the thread pointer after `ins`.
fn track_thread_pointer(ins: &Instruction, thread_pointer: &mut Vec<Register>) {
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
    if img.in_exec(t) {
        code(img, from, t, h, edges);
        return;
    }
    if img.in_data(t) {
        h.str("data");
        if let Some((name, offset)) = img.data_name(t) {
            h.u64(name);
            h.u64(offset);
        }
        match how {
            // A slot of the global offset table, or any one pointer: what it points to.
            Ref::Load => {
                if let Some(w @ (Word::Code(_) | Word::External(_))) = img.word(t) {
                    word(img, from, w, h, edges);
                }
            }
            // A table whose address is taken (a trait object's methods, the boxed closure a
            // thread runs): every word of it, code pointers by their function.
            Ref::Address => {
                let table = img.table(t);
                h.u64(table.len() as u64);
                for w in table {
                    word(img, from, w, h, edges);
                }
            }
        }
        return;
    }
    h.str("elsewhere");
}

/// Hashes one word of a table and records the function it points to.
fn word(img: &Image, from: usize, w: Word, h: &mut Fnv, edges: &mut BTreeSet<usize>) {
    match w {
        Word::Code(p) => code(img, from, p, h, edges),
        Word::External(i) => {
            h.str("external");
            h.str(img.externals.get(i as usize).map_or("", String::as_str));
        }
        Word::Data => h.str("ptr"),
        Word::Int(v) => h.u64(v),
    }
}

/// Hashes a reference to code address `t` by the function it lies in and the offset into it.
fn code(img: &Image, from: usize, t: u64, h: &mut Fnv, edges: &mut BTreeSet<usize>) {
    let f = &img.funcs[from];
    if f.addr <= t && t - f.addr < f.size {
        h.str("self");
        h.u64(t - f.addr);
        return;
    }
    if let Some(j) = img.func_at(t) {
        h.u64(img.funcs[j].name_hash);
        h.u64(t - img.funcs[j].addr);
        edges.insert(j);
        return;
    }
    // A stub without a symbol: a PLT entry, named by the slot it jumps through.
    match stub_target(img, t) {
        Some(Word::External(i)) => word(img, from, Word::External(i), h, edges),
        Some(Word::Code(p)) if img.func_at(p).is_some() => code(img, from, p, h, edges),
        _ => h.str("stub"),
    }
}

/// Where the stub at `t` jumps: a PLT entry is `jmp [rip + slot]`, maybe after `endbr64`,
/// and the slot's relocation says what the loader puts there.
fn stub_target(img: &Image, t: u64) -> Option<Word> {
    let bytes = [32, 16, 8].iter().find_map(|&n| img.at(&img.exec, t, n))?;
    let mut decoder = Decoder::with_ip(64, bytes, t, DecoderOptions::NONE);
    for _ in 0..2 {
        if !decoder.can_decode() {
            break;
        }
        let ins = decoder.decode();
        if ins.mnemonic() == Mnemonic::Endbr64 {
            continue;
        }
        if ins.mnemonic() == Mnemonic::Jmp
            && ins.op_count() == 1
            && ins.op0_kind() == OpKind::Memory
            && ins.is_ip_rel_memory_operand()
        {
            return img.reloc(ins.ip_rel_memory_address());
        }
        break;
    }
    None
}
