//! The code identity on real executables: this test's own, and small programs built several
//! times with their functions placed differently.
//!
//! Where a compiler or linker a test needs is missing, the test says so on the terminal (not
//! in the captured output) and returns.

use handoff_code::{CodeError, Image};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[inline(never)]
fn adds(x: u64) -> u64 {
    black_box(x).wrapping_add(black_box(7))
}

#[inline(never)]
fn multiplies(x: u64) -> u64 {
    black_box(x).wrapping_mul(black_box(13)) ^ 0x55
}

#[inline(never)]
fn calls_adds(x: u64) -> u64 {
    adds(black_box(x)) + 1
}

#[inline(never)]
fn thread_marker() -> u64 {
    black_box(0x5eed)
}

#[inline(never)]
fn spawns() -> u64 {
    std::thread::spawn(thread_marker).join().unwrap_or(0)
}

#[inline(never)]
fn closure_marker(x: u64) -> u64 {
    black_box(x) ^ 0xc105
}

/// Spawns a closure: its body runs only through the boxed closure's table of pointers.
#[inline(never)]
fn spawns_a_closure(x: u64) -> u64 {
    std::thread::spawn(move || closure_marker(x))
        .join()
        .unwrap_or(0)
}

fn image() -> Image {
    Image::current().expect("this test's executable is readable")
}

fn addr(f: fn(u64) -> u64) -> usize {
    f as usize
}

/// Says on the terminal, whatever the harness captures, why a test did not run.
fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "\n{test}: SKIPPED: {why}");
}

#[test]
fn a_function_has_one_digest_and_two_different_functions_two() {
    let img = image();
    let a = img.reach(&[addr(adds)], &[]).unwrap();
    assert_eq!(a, img.reach(&[addr(adds)], &[]).unwrap());
    assert_eq!(
        a,
        image().reach(&[addr(adds)], &[]).unwrap(),
        "a second read"
    );
    let m = img.reach(&[addr(multiplies)], &[]).unwrap();
    assert_ne!(a.digest, m.digest);
    assert_eq!(a.digest.len(), 16);
    assert!(a.digest.bytes().all(|b| b.is_ascii_hexdigit()), "{a:?}");
    assert!(a.bytes > 0 && a.functions >= 1, "{a:?}");
    // Black-boxed, the two survive as functions of their own.
    assert!(black_box(adds(1)) != black_box(multiplies(1)));
}

#[test]
fn a_call_reaches_its_callee() {
    let img = image();
    let names = img.reached_names(&[addr(calls_adds)], &[]).unwrap();
    assert!(names.iter().any(|n| n.contains("4adds")), "{names:?}");
    let d = img.reach(&[addr(calls_adds)], &[]).unwrap();
    assert!(d.functions >= 2, "{d:?}");
    assert!(d.functions > img.reach(&[addr(adds)], &[]).unwrap().functions);
    assert_eq!(black_box(calls_adds(1)), 9);
}

#[test]
fn a_thread_body_is_reached_from_the_root_alone_through_the_closure_table() {
    let img = image();
    let names = img.reached_names(&[addr(spawns_a_closure)], &[]).unwrap();
    assert!(
        names.iter().any(|n| n.contains("14closure_marker")),
        "the closure's body is not reached from the function spawning it ({} functions)",
        names.len()
    );
    let names = img
        .reached_names(&[spawns as *const () as usize], &[])
        .unwrap();
    assert!(
        names.iter().any(|n| n.contains("13thread_marker")),
        "the thread's function is not reached ({} functions)",
        names.len()
    );
    assert_eq!(black_box(spawns()), 0x5eed);
    assert_eq!(black_box(spawns_a_closure(1)), 0xc104);
}

#[test]
fn the_functions_of_a_crate_are_roots_too() {
    let img = image();
    let by_crate = img.reached_names(&[], &["it"]).unwrap();
    for f in ["13thread_marker", "4adds", "10multiplies"] {
        assert!(by_crate.iter().any(|n| n.contains(f)), "{f} not found");
    }
    let none = img.reach(&[], &["no_such_crate"]).unwrap();
    assert_eq!(none.functions, 0);
}

#[test]
fn a_function_is_found_by_its_path() {
    let img = image();
    assert_eq!(img.function_address("it::adds"), Some(addr(adds)));
    assert_eq!(
        img.function_address("it::multiplies"),
        Some(addr(multiplies))
    );
    assert_eq!(img.function_address("it::no_such_function"), None);
    assert!(!img.function_names_containing("calls_adds").is_empty());
}

#[test]
fn one_image_serves_several_threads() {
    fn shared<T: Send + Sync>(_: &T) {}
    let img = image();
    shared(&img);
    let roots = [addr(calls_adds), addr(multiplies)];
    let digests: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| img.reach(&roots, &[]).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(digests.windows(2).all(|w| w[0] == w[1]), "{digests:?}");
}

#[test]
fn an_address_in_no_function_and_files_that_are_not_executables_are_refused() {
    let img = image();
    let data = &img as *const Image as usize;
    let e = img.reach(&[data], &[]).unwrap_err();
    assert!(matches!(e, CodeError::NotAFunction(a) if a == data), "{e}");
    assert!(e.to_string().contains("in no function"), "{e}");

    let dir = scratch("refused");
    let text = dir.join("text");
    std::fs::write(&text, "not an executable").unwrap();
    let e = Image::open(&text).unwrap_err();
    assert!(matches!(e, CodeError::NotElf { .. }), "{e:?}");
    let e = e.to_string();
    assert!(
        e.contains("not an ELF x86-64 executable") && e.contains("text"),
        "{e}"
    );

    let e = Image::open(&dir.join("missing")).unwrap_err();
    assert!(matches!(e, CodeError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("missing"), "{e}");

    // This executable, said to be for another machine (e_machine = AArch64).
    let mut other = std::fs::read("/proc/self/exe").unwrap();
    other[18..20].copy_from_slice(&183u16.to_le_bytes());
    let arm = dir.join("arm");
    std::fs::write(&arm, other).unwrap();
    let e = Image::open(&arm).unwrap_err().to_string();
    assert!(e.contains("not an ELF x86-64 executable"), "{e}");
    assert!(e.contains("an ELF file for Aarch64"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_stripped_executable_is_refused() {
    let dir = scratch("stripped");
    let Some(exe) = gcc(&dir, "stripped", &c_program("abcdw", 11, "getenv"), &["-s"]) else {
        skip("a_stripped_executable_is_refused", "no gcc here");
        return;
    };
    let e = Image::open(&exe).unwrap_err();
    assert!(matches!(e, CodeError::Stripped { .. }), "{e:?}");
    assert!(e.to_string().contains("stripped"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A program whose `work` calls helpers, calls trait objects' methods and closures, and runs
/// a closure on a thread; the placeholders are replaced by each build's constants.
const RUST_PROGRAM: &str = r#"
use std::hint::black_box;
trait Shape { fn area(&self) -> u64; fn name(&self) -> &'static str { "shape" } fn scale(&mut self, k: u64); }
struct Sq(u64); struct Rect(u64, u64); struct Zst; struct Big([u64; 9]); struct Named(String);
impl Shape for Sq { fn area(&self) -> u64 { self.0 * self.0 } fn scale(&mut self, k: u64) { self.0 *= k } }
impl Shape for Rect { fn area(&self) -> u64 { self.0 * self.1 + RECT_AREA } fn name(&self) -> &'static str { "rect" } fn scale(&mut self, k: u64) { self.0 *= k; self.1 += k } }
impl Shape for Zst { fn area(&self) -> u64 { 7 } fn scale(&mut self, _k: u64) {} }
impl Shape for Big { fn area(&self) -> u64 { self.0.iter().sum() } fn scale(&mut self, k: u64) { for x in &mut self.0 { *x ^= k } } }
impl Shape for Named { fn area(&self) -> u64 { self.0.len() as u64 } fn scale(&mut self, k: u64) { self.0.push(char::from(b'a' + (k % 26) as u8)) } }
#[inline(never)] fn shapes(n: u64) -> Vec<Box<dyn Shape>> {
    vec![Box::new(Sq(n)), Box::new(Rect(n, 2)), Box::new(Zst), Box::new(Big([n; 9])), Box::new(Named("x".repeat(n as usize)))]
}
#[inline(never)] fn closures(n: u64) -> Vec<Box<dyn Fn(u64) -> u64>> {
    let s = String::from("abc");
    vec![Box::new(|x| x + 1), Box::new(move |x| x * n), Box::new(move |x| x + s.len() as u64 + CLOSURE), Box::new(|x| x.rotate_left(5))]
}
#[inline(never)] fn helper(x: u64) -> u64 { black_box(x) * 3 + HELPER }
#[no_mangle] #[inline(never)] pub extern "C" fn work(n: u64) -> u64 {
    let mut t = helper(n);
    for mut s in shapes(black_box(n)) { s.scale(2); t += s.area() + s.name().len() as u64; }
    for c in closures(n) { t = c(t); }
    let h = std::thread::spawn(move || { let v: Vec<u64> = (0..n).map(|i| i * THREAD).collect(); v.iter().sum::<u64>() });
    t + h.join().unwrap()
}
#[inline(never)] fn unrelated(n: u64) -> Box<dyn Fn() -> u64> { Box::new(move || n * UNRELATED) }
fn main() { let n = std::env::args().count() as u64; println!("{} {}", work(n), unrelated(n)()); }
"#;

/// The constants of one build of [`RUST_PROGRAM`].
#[derive(Clone, Copy)]
struct Constants {
    rect_area: u64,
    closure: u64,
    thread: u64,
    helper: u64,
    unrelated: u64,
}

const BASE: Constants = Constants {
    rect_area: 0,
    closure: 3,
    thread: 5,
    helper: 9,
    unrelated: 7,
};

/// Builds [`RUST_PROGRAM`] with `c`, and with `link` (the linker flags that place its
/// sections), as crate `prog` (symbols are named after their crate).
fn rustc(dir: &Path, name: &str, c: Constants, link: &[String]) -> Result<PathBuf, String> {
    let dir = dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("prog.rs");
    let text = RUST_PROGRAM
        .replace("RECT_AREA", &c.rect_area.to_string())
        .replace("CLOSURE", &c.closure.to_string())
        .replace("THREAD", &c.thread.to_string())
        .replace("HELPER", &c.helper.to_string())
        .replace("UNRELATED", &c.unrelated.to_string());
    std::fs::write(&src, text).unwrap();
    let out = dir.join("prog");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let mut cmd = Command::new(rustc);
    cmd.args(["-O", "--edition", "2021", "-C", "debuginfo=0"])
        .args(["--crate-name", "prog", "-C", "symbol-mangling-version=v0"]);
    for flag in link {
        cmd.arg("-C").arg(format!("link-arg={flag}"));
    }
    let done = cmd
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| format!("rustc: {e}"))?;
    if !done.status.success() {
        return Err(String::from_utf8_lossy(&done.stderr).into_owned());
    }
    Ok(out)
}

fn shuffled(seed: u64) -> Vec<String> {
    vec![
        "-fuse-ld=lld".into(),
        format!("-Wl,--shuffle-sections=*={seed}"),
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("handoff-code-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The digest of what `root` reaches in the executable at `path`.
fn digest_of(path: &Path, root: &str) -> handoff_code::CodeDigest {
    let img = Image::open(path).unwrap();
    let at = img
        .function_address(root)
        .unwrap_or_else(|| panic!("{root} is in {}", path.display()));
    img.reach(&[at], &[]).unwrap()
}

#[test]
fn rust_code_placed_differently_has_one_digest_and_a_changed_constant_another() {
    let test = "rust_code_placed_differently_has_one_digest_and_a_changed_constant_another";
    let dir = scratch("rust-placement");
    // The program builds with the default linker; whether lld can place it otherwise is a
    // question of this machine.
    if let Err(e) = rustc(&dir, "plain", BASE, &[]) {
        if e.starts_with("rustc:") {
            skip(test, &e);
            return;
        }
        panic!("the program does not build: {e}");
    }
    let one = match rustc(&dir, "one", BASE, &shuffled(1)) {
        Ok(p) => p,
        Err(e) => {
            skip(
                test,
                &format!("rustc cannot link with lld --shuffle-sections: {e}"),
            );
            let _ = std::fs::remove_dir_all(dir);
            return;
        }
    };
    let build =
        |name: &str, c: Constants, seed: u64| rustc(&dir, name, c, &shuffled(seed)).unwrap();
    let two = build("two", BASE, 2);
    assert_ne!(
        std::fs::read(&one).unwrap(),
        std::fs::read(&two).unwrap(),
        "the two seeds placed the sections alike"
    );
    let a = digest_of(&one, "work");
    assert!(a.functions > 10, "{a:?}");
    assert_eq!(
        a,
        digest_of(&two, "work"),
        "the same code, placed otherwise"
    );

    // Each change is reachable from `work` by one path only: a call, a trait object's
    // table, a closure's table, the table of the closure a thread runs.
    let changes = [
        ("helper", Constants { helper: 10, ..BASE }),
        (
            "rect",
            Constants {
                rect_area: 1,
                ..BASE
            },
        ),
        ("closure", Constants { closure: 4, ..BASE }),
        ("thread", Constants { thread: 6, ..BASE }),
    ];
    for (name, c) in changes {
        let changed = digest_of(&build(name, c, 1), "work");
        assert_ne!(
            a.digest, changed.digest,
            "a change reached through `{name}`"
        );
    }
    let elsewhere = build(
        "elsewhere",
        Constants {
            unrelated: 8,
            ..BASE
        },
        2,
    );
    assert_eq!(
        a,
        digest_of(&elsewhere, "work"),
        "a change `work` cannot reach"
    );

    // A function found by its path in the v0 scheme; every function of the crate as roots.
    let img = Image::open(&one).unwrap();
    assert!(img.function_address("prog::helper").is_some());
    let whole = |p: &Path| Image::open(p).unwrap().reach(&[], &["prog"]).unwrap();
    let w = whole(&one);
    assert!(w.functions > a.functions, "{w:?}");
    assert_eq!(w, whole(&two), "the crate's code, placed otherwise");
    assert_ne!(
        w.digest,
        whole(&elsewhere).digest,
        "the crate's code changed"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A C program: `work` calls `helper`, jumps through a `switch` table, calls one of two
/// functions through a table of pointers, and calls the C library's `libc_fn`; its functions
/// are defined in `order` (letters a, b, c, d, w), `by_table` subtracts `k`.
fn c_program(order: &str, k: u64, libc_fn: &str) -> String {
    let def = |c: char| match c {
        'a' => "NI static long helper(long x) { return x * 3 + 5; }".to_string(),
        'b' => format!("NI static long by_table(long x) {{ return x - {k}; }}"),
        'c' => "NI static long other(long x) { return x ^ 0x1234; }".to_string(),
        'd' => "NI long unrelated(long x) { return x << 3; }".to_string(),
        'w' => format!(
            "NI long work(long x) {{
    long (*volatile f)(long) = OPS.run[x & 1];
    long r;
    switch (x & 7) {{
    case 0: r = 11; break; case 1: r = x * 7; break; case 2: r = helper(x); break;
    case 3: r = x - 99; break; case 4: r = x << 5; break; case 5: r = x / 3; break;
    default: r = (long){libc_fn}(OPS.name + (x & 1));
    }}
    return r + f(x);
}}"
        ),
        _ => unreachable!(),
    };
    let mut text = String::from(
        "#define _GNU_SOURCE\n#include <stdio.h>\n#include <stdlib.h>\n\
         #define NI __attribute__((noinline))\n\
         NI static long helper(long); NI static long by_table(long); \
         NI static long other(long); NI long unrelated(long); NI long work(long);\n\
         struct ops { const char *name; long (*run[2])(long); };\n\
         static const struct ops OPS = { \"ops\", { by_table, other } };\n",
    );
    for c in order.chars() {
        text.push_str(&def(c));
        text.push('\n');
    }
    text.push_str(
        "int main(int argc, char **argv) { (void)argv; \
         printf(\"%ld %ld\\n\", work(argc), unrelated(argc)); return 0; }\n",
    );
    text
}

/// Compiles `source` with gcc and the BFD linker; `None` if gcc does not run here.
fn gcc(dir: &Path, name: &str, source: &str, flags: &[&str]) -> Option<PathBuf> {
    Command::new("gcc").arg("--version").output().ok()?;
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(name);
    let done = Command::new("gcc")
        .args(["-O2", "-ffunction-sections", "-fuse-ld=bfd"])
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    Some(out)
}

#[test]
fn c_code_placed_differently_has_one_digest_and_a_changed_callee_another() {
    let test = "c_code_placed_differently_has_one_digest_and_a_changed_callee_another";
    let dir = scratch("c-placement");
    for (kind, flags) in [
        ("pie", &["-fpie", "-pie"][..]),
        ("no-pie", &["-fno-pie", "-no-pie"][..]),
    ] {
        let build = |name: &str, order: &str, k: u64, libc_fn: &str| {
            gcc(
                &dir,
                &format!("{name}-{kind}"),
                &c_program(order, k, libc_fn),
                flags,
            )
        };
        let Some(one) = build("one", "abcdw", 11, "getenv") else {
            skip(test, "no gcc here");
            return;
        };
        let a = digest_of(&one, "work");
        assert_eq!(
            a.functions, 4,
            "work, helper and the two in the table: {a:?}"
        );
        for order in ["wdcba", "cwadb"] {
            let other = build(order, order, 11, "getenv").unwrap();
            assert_eq!(
                a,
                digest_of(&other, "work"),
                "{kind}: functions in order {order}"
            );
        }
        let table = build("table", "wdcba", 12, "getenv").unwrap();
        assert_ne!(
            a.digest,
            digest_of(&table, "work").digest,
            "{kind}: by_table changed"
        );
        let libc = build("libc", "abcdw", 11, "secure_getenv").unwrap();
        let l = digest_of(&libc, "work");
        assert_eq!(
            a.bytes, l.bytes,
            "{kind}: the same instructions, another callee"
        );
        assert_ne!(a.digest, l.digest, "{kind}: another C library function");
    }
    let _ = std::fs::remove_dir_all(dir);
}
