//! A growing list in fixed pages. A `Vec` that outgrows its buffer copies
//! it into one twice as large, and for that moment holds both: on the
//! search's per-state lists that added a third to its peak memory, and
//! the freed buffer stayed resident in the allocator for a while after.
//! Pages are never moved: the list grows by one page at a time.

use std::ops::Index;

/// Items per page: a power of two, so that an index splits by shifting.
const SHIFT: u32 = 16;
const PAGE: usize = 1 << SHIFT;

pub struct Pages<T> {
    pages: Vec<Vec<T>>,
    len: usize,
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
            self.pages.push(Vec::with_capacity(PAGE));
        }
        let last = self.pages.len() - 1;
        self.pages[last].push(v);
        self.len += 1;
    }

    /// The last item, to change in place.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.pages.last_mut().and_then(|p| p.last_mut())
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.pages.iter().flatten()
    }
}

impl<T> Index<usize> for Pages<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of {} items", self.len);
        &self.pages[i >> SHIFT][i & (PAGE - 1)]
    }
}

impl<T> FromIterator<T> for Pages<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut p = Pages::default();
        items.into_iter().for_each(|v| p.push(v));
        p
    }
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
        assert!(p.pages.iter().all(|page| page.capacity() == PAGE));
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
