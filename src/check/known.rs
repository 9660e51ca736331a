//! The states the search knows, by fingerprint, and how the merge reads
//! and writes their numbers: straight into the seen sets, or, while the
//! workers read those sets to expand the next batch, into a small map
//! beside them that is moved in once the workers are done ([`Ahead`]).

use std::collections::HashMap;

use super::seen::Seen;

/// The seen sets: the canonical fingerprint of every state found, and
/// under symmetry the raw fingerprint of every form met, with the number
/// of the state they stand for.
#[derive(Default)]
pub(super) struct Known {
    pub(super) seen: Seen,
    pub(super) raw_seen: Seen,
}

/// What the merge asks of the states known and tells them. The merge asks
/// for a number only where the successor's worker did not find the state
/// in the seen sets it read ([`Ahead`] relies on that).
pub(super) trait Numbering {
    fn get(&self, fp: u64) -> Option<u32>;
    fn get_raw(&self, fp: u64) -> Option<u32>;
    /// Records a state's canonical fingerprint, unknown so far.
    fn insert(&mut self, fp: u64, i: u32);
    /// Records a raw fingerprint, unknown so far.
    fn insert_raw(&mut self, fp: u64, i: u32);
    /// The states found, so the next one's number.
    fn len(&self) -> usize;
}

impl Numbering for Known {
    fn get(&self, fp: u64) -> Option<u32> {
        self.seen.get(&fp)
    }

    fn get_raw(&self, fp: u64) -> Option<u32> {
        self.raw_seen.get(&fp)
    }

    fn insert(&mut self, fp: u64, i: u32) {
        self.seen.insert(fp, i);
    }

    fn insert_raw(&mut self, fp: u64, i: u32) {
        self.raw_seen.insert(fp, i);
    }

    fn len(&self) -> usize {
        self.seen.len()
    }
}

type Map = HashMap<u64, u32, foldhash::fast::FixedState>;

/// The seen sets as the workers read them, with what the merge found since
/// kept beside them: the merge numbers one batch while the workers expand
/// the next against the sets as they were. A worker then misses the states
/// of the batch being merged, and the merge looks those up again, as it
/// does for states found earlier in the same batch; so the numbers are the
/// same as one thread gives. [`Pending::settle`] moves the new fingerprints
/// in once the workers are done.
///
/// The merge asks only for states its workers did not find in the sets.
/// Where the fingerprints the last merge found (`since`) are all that came
/// into the sets after the workers read them, a state neither here nor
/// there is new, and the sets, larger than the caches, are not read: each
/// such read was a miss, in the thread the others wait for.
pub(super) struct Ahead<'k> {
    known: &'k Known,
    since: Option<&'k Pending>,
    seen: Map,
    raw_seen: Map,
}

impl<'k> Ahead<'k> {
    /// Room for `states` new states at once; `since`, where it is known,
    /// everything numbered after the workers of the batch to merge read
    /// the sets.
    pub(super) fn new(known: &'k Known, since: Option<&'k Pending>, states: usize) -> Self {
        Ahead {
            known,
            since,
            seen: Map::with_capacity_and_hasher(states, Default::default()),
            raw_seen: Map::default(),
        }
    }

    /// The canonical and the raw fingerprints that are or will be in
    /// memory, not on disk.
    pub(super) fn known_in_memory(&self) -> (usize, usize) {
        (
            self.known.seen.in_memory() + self.seen.len(),
            self.known.raw_seen.in_memory() + self.raw_seen.len(),
        )
    }

    /// What was found ahead of the sets, to be moved into them.
    pub(super) fn pending(self) -> Pending {
        Pending {
            seen: self.seen,
            raw_seen: self.raw_seen,
        }
    }
}

/// The fingerprints an [`Ahead`] gathered (named apart from search.rs's
/// `Found`, everything the search has found).
pub(super) struct Pending {
    seen: Map,
    raw_seen: Map,
}

impl Pending {
    /// Copies the fingerprints into the seen sets, and keeps them: the
    /// next merge's [`Ahead`] reads them as what came in since its workers
    /// read the sets.
    pub(super) fn settle(&self, known: &mut Known) {
        for (map, set) in [(&self.seen, &mut known.seen), (&self.raw_seen, &mut known.raw_seen)] {
            let new: Vec<(u64, u32)> = map.iter().map(|(&fp, &i)| (fp, i)).collect();
            for (k, &(fp, i)) in new.iter().enumerate() {
                if let Some(&(ahead, _)) = new.get(k + PREFETCH) {
                    set.prefetch(ahead);
                }
                set.insert(fp, i);
            }
        }
    }
}

/// Inserts ahead that a settling asks the cache for: each insert misses
/// in a set larger than the caches, and this way the misses overlap.
const PREFETCH: usize = 8;

/// Asked only for what the workers did not find (see [`Ahead`]).
impl Numbering for Ahead<'_> {
    fn get(&self, fp: u64) -> Option<u32> {
        self.seen.get(&fp).copied().or_else(|| match self.since {
            Some(since) => since.seen.get(&fp).copied(),
            None => self.known.seen.get(&fp),
        })
    }

    fn get_raw(&self, fp: u64) -> Option<u32> {
        self.raw_seen.get(&fp).copied().or_else(|| match self.since {
            Some(since) => since.raw_seen.get(&fp).copied(),
            None => self.known.raw_seen.get(&fp),
        })
    }

    fn insert(&mut self, fp: u64, i: u32) {
        debug_assert!(self.get(fp).is_none());
        self.seen.insert(fp, i);
    }

    fn insert_raw(&mut self, fp: u64, i: u32) {
        debug_assert!(self.get_raw(fp).is_none());
        self.raw_seen.insert(fp, i);
    }

    fn len(&self) -> usize {
        self.known.seen.len() + self.seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_found_ahead_read_as_the_sets_and_settle_into_them() {
        let mut known = Known::default();
        known.insert(10, 0);
        known.insert_raw(110, 0);
        let mut ahead = Ahead::new(&known, None, 4);
        assert_eq!((ahead.get(10), ahead.get(11), ahead.len()), (Some(0), None, 1));
        ahead.insert(11, 1);
        ahead.insert_raw(111, 1);
        assert_eq!((ahead.get(11), ahead.get_raw(111), ahead.len()), (Some(1), Some(1), 2));
        let pending = ahead.pending();
        assert_eq!(known.get(11), None, "the sets wait for the settling");
        pending.settle(&mut known);
        assert_eq!((known.get(11), known.get_raw(111), known.len()), (Some(1), Some(1), 2));
    }
}
