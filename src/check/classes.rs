//! The search's fairness classes: each action's fingerprint (its kind, its
//! node, its message: `graph::fingerprint`) numbered in the order the
//! search meets it. A few hundred on the headline, met once for every
//! successor, so a small table of the last class met in each of its slots
//! stands in front of the map: the map's lookup was a sixtieth of a
//! search's instructions (cachegrind, redlock-no-faults --no-symmetry).

use super::fingerprints::FingerprintMap;

/// Slots of the table in front of the map, a power of two.
const RECENT: usize = 1024;

pub(super) struct Classes {
    map: FingerprintMap,
    /// `(fingerprint, class)`, `(0, 0)` where empty: fingerprint 0 is
    /// always looked up in the map.
    recent: Box<[(u64, u32)]>,
}

impl Classes {
    /// The classes numbered so far (a checkpoint's).
    pub(super) fn from(map: FingerprintMap) -> Classes {
        Classes {
            map,
            recent: vec![(0, 0); RECENT].into_boxed_slice(),
        }
    }

    /// The class of the action whose fingerprint is `fp`, numbered next if
    /// it is new.
    pub(super) fn of(&mut self, fp: u64) -> u32 {
        let slot = &mut self.recent[fp as usize & (RECENT - 1)];
        if slot.0 == fp && fp != 0 {
            return slot.1;
        }
        let next = self.map.len() as u32;
        let class = *self.map.get_or_insert(fp, next);
        *slot = (fp, class);
        class
    }

    /// Every class numbered, for a checkpoint.
    pub(super) fn map(&self) -> &FingerprintMap {
        &self.map
    }
}

impl Default for Classes {
    fn default() -> Self {
        Classes::from(FingerprintMap::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classes are numbered in the order they are first met, whether the
    /// table in front of the map holds them or another class took their
    /// slot since; fingerprint 0 is a class like any other.
    #[test]
    fn a_class_keeps_its_number_whatever_its_slot_held_since() {
        let mut c = Classes::default();
        let clash = RECENT as u64;
        assert_eq!(c.of(5), 0);
        assert_eq!(c.of(5 + clash), 1);
        assert_eq!(c.of(0), 2);
        assert_eq!(c.of(5), 0);
        assert_eq!(c.of(5 + clash), 1);
        assert_eq!(c.of(clash), 3);
        assert_eq!(c.of(0), 2);
        assert_eq!(c.map().len(), 4);
        let mut again = Classes::from(std::mem::take(&mut c.map));
        assert_eq!(again.of(5 + clash), 1);
        assert_eq!(again.of(7), 4);
    }
}
