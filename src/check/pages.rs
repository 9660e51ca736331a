//! A growing list in fixed pages. A `Vec` that outgrows its buffer copies
//! it into one twice as large, and for that moment holds both: on the
//! search's per-state lists that added a third to its peak memory, and
//! the freed buffer stayed resident in the allocator for a while after.
//! Pages are never moved: the list grows by one page at a time.
//!
//! Full pages can move to a file, read back mapped ([`Pages::spill`]): the
//! search's per-state lists when it outgrows `--max-memory` (seen.rs says
//! why mapped).

use std::io::{self, BufWriter, Write};
use std::ops::Index;
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;

/// Items per page: a power of two, so that an index splits by shifting.
const SHIFT: u32 = 16;
const PAGE: usize = 1 << SHIFT;

pub struct Pages<T> {
    pages: Vec<Page<T>>,
    len: usize,
}

/// Items that may be written to a file as their bytes and read back from
/// it in place.
///
/// # Safety
/// The type has no padding and no pointers, every byte pattern one of its
/// values has is a value of it, and its alignment divides
/// `PAGE * size_of::<T>()` and the page size.
pub unsafe trait Plain: Copy {}

// SAFETY: plain integers.
unsafe impl Plain for u8 {}
// SAFETY: as above.
unsafe impl Plain for u32 {}

enum Page<T> {
    Mem(Vec<T>),
    /// A full page in a mapped file, from this byte on.
    Mapped(Arc<Mmap>, usize),
}

impl<T> Page<T> {
    fn items(&self) -> &[T] {
        match self {
            Page::Mem(v) => v,
            // SAFETY: `spill` wrote a full page of `T: Plain` here, at an
            // offset its alignment divides, into a map that lives as long
            // as this page and is never written.
            Page::Mapped(m, at) => unsafe { std::slice::from_raw_parts(m.as_ptr().add(*at).cast::<T>(), PAGE) },
        }
    }
}

impl<T> Default for Pages<T> {
    fn default() -> Self {
        Pages {
            pages: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Pages<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, v: T) {
        if self.len.is_multiple_of(PAGE) {
            self.pages.push(Page::Mem(Vec::with_capacity(PAGE)));
        }
        match self.pages.last_mut() {
            Some(Page::Mem(last)) => last.push(v),
            _ => unreachable!("the last page stays in memory"),
        }
        self.len += 1;
    }

    /// The last item, to change in place.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        match self.pages.last_mut()? {
            Page::Mem(last) => last.last_mut(),
            Page::Mapped(..) => unreachable!("the last page stays in memory"),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.pages.iter().flat_map(Page::items)
    }
}

impl<T: Plain> Pages<T> {
    /// Moves every page but the last (which may still grow or change) to
    /// a nameless file in `dir`, read back mapped. A failed write leaves
    /// the pages where they were.
    pub fn spill(&mut self, dir: &Path) -> io::Result<()> {
        let last = self.pages.len().saturating_sub(1);
        let pages: Vec<usize> = (0..last).filter(|&p| matches!(self.pages[p], Page::Mem(_))).collect();
        if pages.is_empty() {
            return Ok(());
        }
        let file = tempfile::tempfile_in(dir)?;
        let mut w = BufWriter::with_capacity(1 << 20, &file);
        for &p in &pages {
            let items = self.pages[p].items();
            // SAFETY: `T: Plain` has no padding, so all its bytes are
            // initialised.
            let bytes =
                unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), std::mem::size_of_val(items)) };
            w.write_all(bytes)?;
        }
        w.into_inner().map_err(|e| e.into_error())?;
        // SAFETY: the file is this search's own and nameless, and nothing
        // writes to it once it is mapped.
        let map = Arc::new(unsafe { Mmap::map(&file)? });
        let size = PAGE * std::mem::size_of::<T>();
        for (k, &p) in pages.iter().enumerate() {
            self.pages[p] = Page::Mapped(Arc::clone(&map), k * size);
        }
        Ok(())
    }
}

impl<T> Index<usize> for Pages<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of {} items", self.len);
        &self.pages[i >> SHIFT].items()[i & (PAGE - 1)]
    }
}

impl<T> FromIterator<T> for Pages<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut p = Pages::default();
        items.into_iter().for_each(|v| p.push(v));
        p
    }
}

/// A page of a byte list whose pages differ in length (the graph's
/// edges): in memory while it is written, or in a file once spilled.
pub enum BytePage {
    Mem(Vec<u8>),
    Mapped(Arc<Mmap>, std::ops::Range<usize>),
}

impl BytePage {
    /// The page being written, which is never spilled.
    pub fn mem(&mut self) -> &mut Vec<u8> {
        match self {
            BytePage::Mem(v) => v,
            BytePage::Mapped(..) => unreachable!("the page written last stays in memory"),
        }
    }
}

impl std::ops::Deref for BytePage {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            BytePage::Mem(v) => v,
            BytePage::Mapped(m, r) => &m[r.clone()],
        }
    }
}

/// Moves every page but the last (the one still written) to a nameless
/// file in `dir`, read back mapped. A failed write leaves the pages where
/// they were.
pub fn spill_bytes(pages: &mut [BytePage], dir: &Path) -> io::Result<()> {
    let last = pages.len().saturating_sub(1);
    let moved: Vec<usize> = (0..last).filter(|&p| matches!(pages[p], BytePage::Mem(_))).collect();
    if moved.is_empty() {
        return Ok(());
    }
    let file = tempfile::tempfile_in(dir)?;
    let mut w = BufWriter::with_capacity(1 << 20, &file);
    let mut at = Vec::with_capacity(moved.len());
    let mut end = 0;
    for &p in &moved {
        w.write_all(&pages[p])?;
        at.push(end);
        end += pages[p].len();
    }
    w.into_inner().map_err(|e| e.into_error())?;
    // SAFETY: the file is this search's own and nameless, and nothing
    // writes to it once it is mapped.
    let map = Arc::new(unsafe { Mmap::map(&file)? });
    for (&p, &from) in moved.iter().zip(&at) {
        let len = pages[p].len();
        pages[p] = BytePage::Mapped(Arc::clone(&map), from..from + len);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_read_back_by_index_and_in_order_across_pages() {
        let n = 2 * PAGE + 7;
        let p: Pages<u32> = (0..n as u32).collect();
        assert_eq!(p.len(), n);
        assert!((0..n).all(|i| p[i] == i as u32));
        assert!(p.iter().copied().eq(0..n as u32));
        assert_eq!(p.pages.len(), 3);
        assert!(p
            .pages
            .iter()
            .all(|page| matches!(page, Page::Mem(v) if v.capacity() == PAGE)));
    }

    #[test]
    fn pages_moved_to_disk_read_back_the_same() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let n = 3 * PAGE + 7;
        let mut p: Pages<u32> = Pages::default();
        for i in 0..n as u32 {
            p.push(i);
            if i as usize == PAGE + 5 || i as usize == 3 * PAGE {
                p.spill(dir.path()).expect("spills");
            }
        }
        *p.last_mut().unwrap() = 1;
        assert_eq!(
            p.pages.iter().filter(|page| matches!(page, Page::Mapped(..))).count(),
            3
        );
        assert!((0..n - 1).all(|i| p[i] == i as u32) && p[n - 1] == 1);
        assert_eq!(p.iter().count(), n);
    }

    #[test]
    fn byte_pages_moved_to_disk_read_back_the_same_but_the_last() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let bytes = |n: usize| (0..n).map(|i| (i * 7 + n) as u8).collect::<Vec<u8>>();
        let mut pages: Vec<BytePage> = [5000, 1, 70_000, 3].iter().map(|&n| BytePage::Mem(bytes(n))).collect();
        spill_bytes(&mut pages, dir.path()).expect("spills");
        spill_bytes(&mut pages, dir.path()).expect("nothing more to move");
        for (page, n) in pages.iter().zip([5000, 1, 70_000, 3]) {
            assert_eq!(**page, bytes(n)[..]);
        }
        assert!(pages[..3].iter().all(|p| matches!(p, BytePage::Mapped(..))));
        pages[3].mem().push(9);
        assert_eq!(pages[3].len(), 4);
    }

    #[test]
    fn the_last_item_changes_in_place() {
        let mut p: Pages<u8> = Pages::default();
        assert!(p.last_mut().is_none() && p.is_empty());
        (0..PAGE + 1).for_each(|_| p.push(1));
        *p.last_mut().unwrap() = 9;
        assert_eq!((p[PAGE - 1], p[PAGE]), (1, 9));
    }

    #[test]
    #[should_panic(expected = "index 3 out of 3 items")]
    fn an_index_past_the_end_panics() {
        let p: Pages<u8> = [1, 2, 3].into_iter().collect();
        let _ = p[3];
    }
}
