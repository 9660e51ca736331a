//! A map from fingerprints to state numbers: the search's seen set in
//! memory, and its tables of action classes.
//!
//! Open addressing with linear probing, as TLC's fingerprint set does, in
//! slots of 12 bytes holding the fingerprint's two halves and the number
//! together. A lookup in a set larger than the caches misses once, in the
//! slot's cache line (a general hash table misses twice: its control bytes,
//! then the entry); and since the slot is known from the fingerprint alone,
//! a worker asks for the slots of all a state's successors
//! ([`FingerprintMap::prefetch`]) before it looks the first one up, so that
//! the misses overlap.
//!
//! Fingerprints are random 64-bit hashes and are their own hashes here:
//! bits 32 to 39 pick one of [`SHARDS`] tables, the low bits the slot. A
//! table that grows holds its old and its new slots at once; split, only
//! one shard's are held twice, where a single table would add half its
//! size again to the search's peak.

/// The value an empty slot holds in both halves of its fingerprint; the
/// fingerprint 0 itself is kept beside the tables.
const EMPTY: [u32; 2] = [0, 0];

const SHARDS: usize = 256;

/// A table is grown before it is fuller than this (three quarters): linear
/// probing then looks at 2.5 slots for a fingerprint present and 8.5 for
/// one absent, on average, most of them in one or two cache lines.
const LOAD: (usize, usize) = (3, 4);

pub struct FingerprintMap {
    shards: Box<[Table]>,
    /// The number of fingerprint 0, whose halves mark an empty slot.
    zero: Option<u32>,
    len: usize,
}

/// One shard: a power of two of slots, or none.
#[derive(Default)]
struct Table {
    /// `[low half, high half, number]`, empty where both halves are 0.
    slots: Vec<[u32; 3]>,
    len: usize,
}

fn shard(fp: u64) -> usize {
    (fp >> 32) as usize % SHARDS
}

fn halves(fp: u64) -> [u32; 2] {
    [fp as u32, (fp >> 32) as u32]
}

fn whole(slot: &[u32; 3]) -> u64 {
    u64::from(slot[0]) | u64::from(slot[1]) << 32
}

fn is_empty(slot: &[u32; 3]) -> bool {
    [slot[0], slot[1]] == EMPTY
}

impl Table {
    /// Where `fp` is, or the empty slot where it would go (the table must
    /// have slots).
    fn find(&self, fp: u64) -> usize {
        let key = halves(fp);
        let mask = self.slots.len() - 1;
        let mut i = fp as usize & mask;
        loop {
            let slot = &self.slots[i];
            if [slot[0], slot[1]] == key || is_empty(slot) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, fp: u64) -> Option<&u32> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = &self.slots[self.find(fp)];
        (!is_empty(slot)).then_some(&slot[2])
    }

    /// The number slot of `fp`, filled with `v` if `fp` was absent, and
    /// whether it was.
    fn entry(&mut self, fp: u64, v: u32) -> (&mut u32, bool) {
        if (self.len + 1) * LOAD.1 > self.slots.len() * LOAD.0 {
            self.grow();
        }
        let i = self.find(fp);
        let slot = &mut self.slots[i];
        let absent = is_empty(slot);
        if absent {
            let [lo, hi] = halves(fp);
            *slot = [lo, hi, v];
            self.len += 1;
        }
        (&mut slot[2], absent)
    }

    fn grow(&mut self) {
        // Zeroed slots are empty, so the new table is allocated zeroed
        // (`calloc`): its pages cost nothing until they are written.
        let size = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![[0; 3]; size]);
        for slot in old.iter().filter(|s| !is_empty(s)) {
            let i = self.find(whole(slot));
            self.slots[i] = *slot;
        }
    }

    fn prefetch(&self, fp: u64) {
        if self.slots.is_empty() {
            return;
        }
        let slot = &self.slots[fp as usize & (self.slots.len() - 1)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint that reads nothing the program sees;
        // the address is a slot of the table.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.as_ptr().cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }
}

impl Default for FingerprintMap {
    fn default() -> Self {
        FingerprintMap {
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
            zero: None,
            len: 0,
        }
    }
}

impl FingerprintMap {
    pub fn get(&self, fp: &u64) -> Option<&u32> {
        match *fp {
            0 => self.zero.as_ref(),
            fp => self.shards[shard(fp)].get(fp),
        }
    }

    /// Sets the number of `fp`: its old number, if it had one.
    pub fn insert(&mut self, fp: u64, v: u32) -> Option<u32> {
        let (slot, absent) = self.entry(fp, v);
        (!absent).then(|| std::mem::replace(slot, v))
    }

    /// The number of `fp`, set to `v` first if it has none.
    pub fn get_or_insert(&mut self, fp: u64, v: u32) -> &mut u32 {
        self.entry(fp, v).0
    }

    fn entry(&mut self, fp: u64, v: u32) -> (&mut u32, bool) {
        let (slot, absent) = match fp {
            0 => {
                let absent = self.zero.is_none();
                (self.zero.get_or_insert(v), absent)
            }
            fp => self.shards[shard(fp)].entry(fp, v),
        };
        self.len += usize::from(absent);
        (slot, absent)
    }

    /// Asks the processor to bring `fp`'s first slot into the cache, for a
    /// lookup soon after.
    pub fn prefetch(&self, fp: u64) {
        self.shards[shard(fp)].prefetch(fp);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &u32)> {
        let tables = self
            .shards
            .iter()
            .flat_map(|t| t.slots.iter().filter(|s| !is_empty(s)).map(|s| (whole(s), &s[2])));
        self.zero.iter().map(|v| (0, v)).chain(tables)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_keeps_every_number_it_was_given_through_its_growth() {
        let mut m = FingerprintMap::default();
        // Fingerprints that share a shard and a home slot, and 0.
        let fps: Vec<u64> = (1..5_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .chain([0, 1 << 40, 2 << 40, 3 << 40])
            .collect();
        for (i, &fp) in fps.iter().enumerate() {
            assert_eq!(m.insert(fp, i as u32), None);
        }
        assert_eq!(m.len(), fps.len());
        for (i, &fp) in fps.iter().enumerate() {
            assert_eq!(m.get(&fp), Some(&(i as u32)), "{fp:#x}");
        }
        assert_eq!(m.get(&(4 << 40)), None);
        assert_eq!(*m.get_or_insert(1 << 40, 7), (fps.len() - 3) as u32);
        assert_eq!(*m.get_or_insert(4 << 40, 7), 7);
        assert_eq!(m.insert(0, 9), Some((fps.len() - 4) as u32));
        assert_eq!(m.get(&0), Some(&9));
        let mut all: Vec<u64> = m.iter().map(|(fp, _)| fp).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), fps.len() + 1);
        assert_eq!(m.len(), fps.len() + 1);
    }
}
