//! The start line two processes share: the crew's spinning [`StartLine`], placed in a region of
//! shared memory (see [`crate::shared_memory`]) that the peer process maps too. Every thread of
//! both processes arrives at it, and all leave within a cache-line transfer of each other.

use super::super::crew::{Line, StartLine};
use crate::shared_memory::Region;
use std::io;

/// A [`StartLine`] in shared memory.
pub(crate) struct SharedLine {
    region: Region,
}

// SAFETY: the line is reached only through `&StartLine`, whose fields are an atomic and a count
// written once before any other thread or process can see the region.
unsafe impl Send for SharedLine {}
// SAFETY: as above: shared access goes through the atomic only.
unsafe impl Sync for SharedLine {}

impl SharedLine {
    /// A new line for `members` threads (of both processes).
    pub fn create(members: usize) -> io::Result<SharedLine> {
        let region = Region::create("handoff-start-line", 4096)?;
        // SAFETY: the region is a fresh page-aligned mapping of 4096 bytes, larger than a
        // StartLine and aligned for it; nobody else has it yet.
        unsafe {
            std::ptr::write(region.as_ptr() as *mut StartLine, StartLine::new(members));
        }
        Ok(SharedLine { region })
    }

    /// The line another process created, by its [`SharedLine::path`].
    pub fn open(path: &str) -> io::Result<SharedLine> {
        let region = Region::open(path)?;
        if region.len() < std::mem::size_of::<StartLine>() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the shared start line is too small",
            ));
        }
        Ok(SharedLine { region })
    }

    /// How the peer process opens this line.
    pub fn path(&self) -> String {
        self.region.path()
    }

    fn line(&self) -> &StartLine {
        // SAFETY: the creator wrote a StartLine at the start of the page-aligned region before
        // the path was handed out, and the region lives as long as `self`.
        unsafe { &*(self.region.as_ptr() as *const StartLine) }
    }
}

impl Line for SharedLine {
    fn arrive(&self) {
        self.line().wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn two_mappings_of_one_line_release_together() {
        let a = Arc::new(SharedLine::create(2).unwrap());
        let b = SharedLine::open(&a.path()).unwrap();
        let t = std::thread::spawn(move || b.arrive());
        a.arrive();
        t.join().unwrap();
    }
}
