//! The seen set: each state's fingerprint and number. It lives in memory
//! ([`FingerprintMap`]) until the search outgrows `--max-memory`; then, as
//! TLC's disk fingerprint set does, each spill sorts the fingerprints in
//! memory, merges them with the sorted file of those spilled before into a
//! new file, and empties the map. A lookup asks the map, then the file:
//! a sparse index held in memory (one fingerprint in [`BLOCK`]) names the
//! block where the fingerprint must be, and a binary search in that block
//! finds it or not. The file is read mapped, so the kernel keeps in
//! memory what fits and the process's own memory stays small.
//!
//! Where a fingerprint lives changes no answer: the search numbers states
//! and reads the same numbers back either way.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;

use super::graph::FingerprintMap;

/// Bytes per record in the file: the fingerprint, then the state's number,
/// little-endian.
const RECORD: usize = 12;

/// Records per block of the sparse index: a lookup reads at most this many
/// records' worth of the file (3 KiB), and the index costs 8 bytes per
/// this many states.
const BLOCK: usize = 256;

#[derive(Default)]
pub struct Seen {
    mem: FingerprintMap,
    disk: Option<Run>,
}

/// The spilled fingerprints, sorted, in a mapped file.
struct Run {
    map: Mmap,
    len: usize,
    /// The first fingerprint of every [`BLOCK`] records.
    index: Vec<u64>,
}

impl Run {
    fn fp(&self, i: usize) -> u64 {
        let at = i * RECORD;
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
    }

    fn number(&self, i: usize) -> u32 {
        let at = i * RECORD + 8;
        u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
    }

    fn get(&self, fp: u64) -> Option<u32> {
        let block = self.index.partition_point(|&f| f <= fp).checked_sub(1)?;
        let (mut lo, mut hi) = (block * BLOCK, ((block + 1) * BLOCK).min(self.len));
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.fp(mid).cmp(&fp) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.number(mid)),
            }
        }
        None
    }

    fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..self.len).map(|i| (self.fp(i), self.number(i)))
    }
}

impl From<FingerprintMap> for Seen {
    fn from(mem: FingerprintMap) -> Seen {
        Seen { mem, disk: None }
    }
}

impl Seen {
    pub fn get(&self, fp: &u64) -> Option<u32> {
        self.mem
            .get(fp)
            .copied()
            .or_else(|| self.disk.as_ref().and_then(|d| d.get(*fp)))
    }

    pub fn contains_key(&self, fp: &u64) -> bool {
        self.get(fp).is_some()
    }

    /// Asks the processor to bring where `fp` would be in memory into the
    /// cache, for a lookup soon after (the file is left to the kernel).
    pub fn prefetch(&self, fp: u64) {
        self.mem.prefetch(fp);
    }

    /// Records a fingerprint the set does not hold.
    pub fn insert(&mut self, fp: u64, i: u32) {
        debug_assert!(!self.contains_key(&fp));
        self.mem.insert(fp, i);
    }

    pub fn len(&self) -> usize {
        self.mem.len() + self.disk.as_ref().map_or(0, |d| d.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fingerprints in memory.
    pub fn in_memory(&self) -> usize {
        self.mem.len()
    }

    /// Fingerprints on disk.
    pub fn spilled(&self) -> usize {
        self.disk.as_ref().map_or(0, |d| d.len)
    }

    /// Every fingerprint with its number, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let disk = self.disk.iter().flat_map(Run::iter);
        self.mem.iter().map(|(fp, &i)| (fp, i)).chain(disk)
    }

    /// Moves the fingerprints in memory to a new file in `dir`, merged with
    /// those already there. The files have no name, so they go with the
    /// process however it ends; a failed write leaves the set as it was.
    pub fn spill(&mut self, dir: &Path) -> io::Result<()> {
        if self.mem.is_empty() {
            return Ok(());
        }
        let mut fresh: Vec<(u64, u32)> = self.mem.iter().map(|(fp, &i)| (fp, i)).collect();
        fresh.sort_unstable_by_key(|&(fp, _)| fp);
        let file = tempfile::tempfile_in(dir)?;
        let mut w = BufWriter::with_capacity(1 << 20, &file);
        let mut index = Vec::new();
        let mut len = 0;
        let mut old = self.disk.iter().flat_map(Run::iter).peekable();
        let mut new = fresh.into_iter().peekable();
        loop {
            let next = match (old.peek(), new.peek()) {
                (Some(a), Some(b)) if a.0 < b.0 => old.next(),
                (Some(_), Some(_)) | (None, Some(_)) => new.next(),
                (Some(_), None) => old.next(),
                (None, None) => break,
            };
            let (fp, i) = next.expect("peeked");
            if len % BLOCK == 0 {
                index.push(fp);
            }
            len += 1;
            w.write_all(&fp.to_le_bytes())?;
            w.write_all(&i.to_le_bytes())?;
        }
        drop(old);
        w.into_inner().map_err(|e| e.into_error())?;
        // SAFETY: the file is this search's own and nameless, and nothing
        // writes to it once it is mapped.
        let map = unsafe { Mmap::map(&file)? };
        self.disk = Some(Run { map, len, index });
        self.mem = FingerprintMap::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fingerprints spread as hashes are, and numbered in order.
    fn fps(n: u32) -> Vec<(u64, u32)> {
        (0..n)
            .map(|i| (u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555, i))
            .collect()
    }

    #[test]
    fn a_set_spilled_twice_answers_as_one_kept_in_memory() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let all = fps(3000);
        let mut seen = Seen::default();
        for (k, &(fp, i)) in all.iter().enumerate() {
            seen.insert(fp, i);
            if k == 999 || k == 2499 {
                seen.spill(dir.path()).expect("spills");
            }
        }
        assert_eq!((seen.len(), seen.spilled()), (3000, 2500));
        for &(fp, i) in &all {
            assert_eq!(seen.get(&fp), Some(i));
        }
        for (fp, _) in fps(3100).into_iter().skip(3000) {
            assert!(!seen.contains_key(&fp), "a fingerprint never inserted is not found");
        }
        let mut listed: Vec<_> = seen.iter().collect();
        listed.sort_by_key(|&(_, i)| i);
        assert_eq!(listed, all);
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("lists").count(),
            0,
            "the files have no names"
        );
    }
}
