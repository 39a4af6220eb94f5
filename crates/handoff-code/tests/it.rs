//! The code identity on real executables: this test's own, and small programs built twice with
//! the functions placed differently.

use handoff_code::{CodeError, Image};
use std::hint::black_box;
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

fn image() -> Image {
    Image::current().expect("this test's executable is readable")
}

#[test]
fn a_function_has_one_digest_and_two_different_functions_two() {
    let img = image();
    let a = img.reach(&[adds as *const () as usize], &[]).unwrap();
    assert_eq!(a, img.reach(&[adds as *const () as usize], &[]).unwrap());
    let m = img.reach(&[multiplies as *const () as usize], &[]).unwrap();
    assert_ne!(a.digest, m.digest);
    assert_eq!(a.digest.len(), 16);
    assert!(a.bytes > 0 && a.functions >= 1, "{a:?}");
    // Black-boxed, the two survive as functions of their own.
    assert!(black_box(adds(1)) != black_box(multiplies(1)));
}

#[test]
fn a_call_reaches_its_callee_and_a_thread_reaches_its_body() {
    let img = image();
    let names = img
        .reached_names(&[calls_adds as *const () as usize], &[])
        .unwrap();
    assert!(names.iter().any(|n| n.contains("4adds")), "{names:?}");
    assert!(
        img.reach(&[calls_adds as *const () as usize], &[])
            .unwrap()
            .functions
            >= 2
    );
    // The function a thread runs is called by the standard library through the boxed
    // closure's table of pointers: whatever calls reach, it is reached as a function of its
    // crate.
    let by_crate = img
        .reached_names(&[spawns as *const () as usize], &["it"])
        .unwrap();
    assert!(
        by_crate.iter().any(|n| n.contains("13thread_marker")),
        "thread body not reached by its crate: {} functions",
        by_crate.len()
    );
    assert_eq!(black_box(spawns()), 0x5eed);
}

#[test]
fn an_address_in_no_function_and_files_that_are_not_executables_are_refused() {
    let img = image();
    let data = &img as *const Image as usize;
    assert!(matches!(
        img.reach(&[data], &[]),
        Err(CodeError::NotAFunction(_))
    ));
    let dir = scratch("not-elf");
    let text = dir.join("text");
    std::fs::write(&text, "not an executable").unwrap();
    let e = Image::open(&text).unwrap_err().to_string();
    assert!(e.contains("not an ELF x86-64 executable"), "{e}");
    let e = Image::open(&dir.join("missing")).unwrap_err().to_string();
    assert!(e.contains("missing"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A program whose `work` calls two helpers and runs one on a thread.
const PROGRAM: &str = r#"
#[inline(never)] fn helper_a(x: u64) -> u64 { std::hint::black_box(x) * 3 + CONSTANT }
#[inline(never)] fn helper_b(x: u64) -> u64 { std::hint::black_box(x) ^ 0x1234 }
#[inline(never)] fn unrelated(x: u64) -> u64 { std::hint::black_box(x).rotate_left(UNRELATED) }
#[no_mangle] #[inline(never)] pub extern "C" fn work(x: u64) -> u64 {
    let t = std::thread::spawn(move || helper_b(x));
    helper_a(x) + t.join().unwrap()
}
fn main() {
    let n = std::env::args().count() as u64;
    println!("{} {}", work(n), unrelated(n));
}
"#;

/// Builds PROGRAM with these constants, its sections shuffled with `seed` by the linker.
fn build(dir: &Path, name: &str, constant: u64, unrelated: u32, seed: u64) -> Option<PathBuf> {
    // One crate name for every build: symbols are named after their crate.
    let dir = dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("prog.rs");
    let text = PROGRAM
        .replace("CONSTANT", &constant.to_string())
        .replace("UNRELATED", &unrelated.to_string());
    std::fs::write(&src, text).unwrap();
    let out = dir.join("prog");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let status = Command::new(rustc)
        .args(["-O", "--edition", "2021", "-C", "debuginfo=0"])
        .args(["--crate-name", "prog", "-C", "symbol-mangling-version=v0"])
        .arg("-C")
        .arg("link-arg=-fuse-ld=lld")
        .arg("-C")
        .arg(format!("link-arg=-Wl,--shuffle-sections=*={seed}"))
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .ok()?;
    status.success().then_some(out)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("handoff-code-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_same_code_placed_differently_has_one_digest_and_a_changed_constant_another() {
    let dir = scratch("placement");
    let (Some(one), Some(two)) = (build(&dir, "one", 5, 3, 1), build(&dir, "two", 5, 3, 2)) else {
        eprintln!("skipped: rustc cannot link with lld's --shuffle-sections here");
        let _ = std::fs::remove_dir_all(dir);
        return;
    };
    let changed = build(&dir, "changed", 6, 3, 1).expect("built once, builds again");
    let elsewhere = build(&dir, "elsewhere", 5, 9, 2).expect("built once, builds again");
    let digest = |p: &Path| {
        let img = Image::open(p).unwrap();
        let root = img.function_address("work").expect("work is exported");
        img.reach(&[root], &[]).unwrap()
    };
    // Every function of the crate, the thread's closure among them.
    let whole = |p: &Path| Image::open(p).unwrap().reach(&[], &["prog"]).unwrap();
    assert_ne!(
        std::fs::read(&one).unwrap(),
        std::fs::read(&two).unwrap(),
        "the two seeds placed the sections alike"
    );
    let (a, b) = (digest(&one), digest(&two));
    assert_eq!(a, b, "the same code, placed otherwise");
    assert_ne!(
        a.digest,
        digest(&changed).digest,
        "a constant of a reachable helper changed"
    );
    assert_eq!(
        a.digest,
        digest(&elsewhere).digest,
        "a change in code `work` cannot reach"
    );
    let w = whole(&one);
    assert!(w.functions > 3, "{w:?}");
    assert_eq!(w, whole(&two), "the crate's code, placed otherwise");
    assert_ne!(w.digest, whole(&changed).digest);
    assert_ne!(w.digest, whole(&elsewhere).digest);
    let _ = std::fs::remove_dir_all(dir);
}
