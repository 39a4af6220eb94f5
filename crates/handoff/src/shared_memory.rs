//! Memory two processes share: an anonymous file (`memfd`) mapped by both.
//!
//! One process creates the region; the other opens it by the path of the creator's descriptor,
//! `/proc/<pid>/fd/<n>`. Nothing gets a name in the filesystem or in `/dev/shm`: the region is
//! freed by the kernel when the last descriptor and the last mapping are gone, however the
//! processes end (even by `SIGKILL`), so a killed run leaves nothing behind.

use memmap2::MmapMut;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

/// A region of memory mapped shared, in this process and any other that opens it.
pub struct Region {
    /// The anonymous file; the other process opens it through `/proc`.
    file: File,
    map: MmapMut,
}

impl Region {
    /// A new region of `len` bytes (zeroed), named `name` in `/proc/<pid>/fd` listings only.
    pub fn create(name: &str, len: usize) -> io::Result<Region> {
        let name = std::ffi::CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a region's name"))?;
        // SAFETY: memfd_create reads the NUL-terminated name and returns a new descriptor or -1.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is owned by nothing else.
        let file = unsafe { File::from_raw_fd(fd) };
        file.set_len(len as u64)?;
        Region::map(file)
    }

    /// Opens the region another process created, by the path [`Region::path`] gave there.
    pub fn open(path: &str) -> io::Result<Region> {
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        Region::map(file)
    }

    fn map(file: File) -> io::Result<Region> {
        // SAFETY: the mapping is of an anonymous file only handoff's own processes open; what
        // either side does through it goes through atomics (see the users of `as_ptr`), so the
        // other process writing it is not undefined behaviour for the Rust code here.
        let map = unsafe { MmapMut::map_mut(&file)? };
        Ok(Region { file, map })
    }

    /// The path by which another process of the same user opens this region while this one
    /// holds it.
    pub fn path(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.file.as_raw_fd())
    }

    /// The region's length in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the region has no bytes (never, for a region `create` made).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The first byte of the mapping (page-aligned).
    pub fn as_ptr(&self) -> *mut u8 {
        self.map.as_ptr() as *mut u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_region_opened_by_its_path_is_the_same_memory() {
        let a = Region::create("handoff-test", 4096).unwrap();
        let b = Region::open(&a.path()).unwrap();
        assert_eq!(b.len(), 4096);
        assert_ne!(a.as_ptr(), b.as_ptr(), "two mappings of one file");
        // SAFETY: both mappings are at least 8 bytes, page-aligned, and only used atomically.
        let (x, y) = unsafe {
            (
                &*(a.as_ptr() as *const AtomicU64),
                &*(b.as_ptr() as *const AtomicU64),
            )
        };
        assert_eq!(y.load(Ordering::Acquire), 0);
        x.store(42, Ordering::Release);
        assert_eq!(y.load(Ordering::Acquire), 42);
    }
}
