//! A number per state for the liveness pass (Tarjan's discovery and low
//! numbers), zeroed at the start: in memory, or, when the search moved its
//! graph to disk (seen.rs), in a nameless mapped file, so that the pass
//! over a graph bigger than memory keeps its arrays where the kernel can
//! write them out and read them again.

use std::ops::{Deref, DerefMut};

use memmap2::MmapMut;

pub enum Slots {
    Mem(Vec<u32>),
    Mapped(MmapMut, usize),
}

impl Slots {
    /// `k` zeroes, in a mapped file when `on_disk`.
    pub fn new(k: usize, on_disk: bool) -> std::io::Result<Slots> {
        if !on_disk || k == 0 {
            return Ok(Slots::Mem(vec![0; k]));
        }
        let file = tempfile::tempfile()?;
        file.set_len(k as u64 * 4)?;
        // SAFETY: the file is this pass's own and nameless; only this map
        // reads or writes it.
        let map = unsafe { MmapMut::map_mut(&file)? };
        Ok(Slots::Mapped(map, k))
    }
}

impl Deref for Slots {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match self {
            Slots::Mem(v) => v,
            // SAFETY: the map is page-aligned, `4 * k` bytes long, and any
            // bytes are a u32; a new file reads as zeroes.
            Slots::Mapped(m, k) => unsafe { std::slice::from_raw_parts(m.as_ptr().cast::<u32>(), *k) },
        }
    }
}

impl DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            Slots::Mem(v) => v,
            // SAFETY: as for `deref`, and the map is borrowed mutably.
            Slots::Mapped(m, k) => unsafe { std::slice::from_raw_parts_mut(m.as_mut_ptr().cast::<u32>(), *k) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_slots_start_at_zero_and_keep_what_is_written() {
        let mut s = Slots::new(100_000, true).expect("a mapped file");
        assert!(matches!(s, Slots::Mapped(..)) && s.iter().all(|&v| v == 0));
        s[99_999] = 7;
        s[0] = 3;
        assert_eq!((s[0], s[1], s[99_999], s.len()), (3, 0, 7, 100_000));
    }
}
