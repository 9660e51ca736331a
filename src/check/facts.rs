//! Per-state facts the liveness pass needs, stored by column so that a
//! state costs what its facts need rather than their widest form: who
//! wants the lock in as few bytes as the largest node id needs (one byte
//! up to eight nodes), and the depth not at all where the states were
//! numbered breadth-first (a depth is then the level a state's number
//! falls in). On the headline this is 1 byte a state instead of 12.

use super::pages::Pages;

/// One state's facts: who wants the lock (who holds it is no part of any
/// liveness property), and its depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// A bit per node id.
    pub wanting: u64,
    /// Number of actions taken from the initial state (BFS: the shortest).
    pub depth: u32,
}

/// The facts of states 0, 1, 2..., in the order they were pushed.
pub struct FactTable {
    /// Each state's `wanting`, `width` bytes little-endian, in pages that
    /// can move to disk with the rest of the graph (`Graph::spill`).
    wanting: Pages<u8>,
    width: usize,
    depths: Depths,
}

#[derive(Clone, Debug)]
enum Depths {
    /// `first[d]` is the first state of depth `d`: every state pushed so
    /// far was as deep as the one before it or one deeper, as breadth-first
    /// search numbers them.
    Levels(Vec<u32>),
    /// One depth a state, once a push broke that order (depth-first
    /// search, the liveness pass's lifted graphs).
    Each(Vec<u32>),
}

impl Default for FactTable {
    fn default() -> Self {
        FactTable {
            wanting: Pages::default(),
            width: 1,
            depths: Depths::Levels(Vec::new()),
        }
    }
}

impl FactTable {
    /// `n` states with no one wanting, all at depth 0.
    pub fn filled(n: usize) -> FactTable {
        let mut t = FactTable::default();
        for _ in 0..n {
            t.push(Facts::default());
        }
        t
    }

    pub fn len(&self) -> usize {
        self.wanting.len() / self.width
    }

    pub fn is_empty(&self) -> bool {
        self.wanting.is_empty()
    }

    pub fn push(&mut self, f: Facts) {
        let s = self.len() as u32;
        let needs = (8 - f.wanting.leading_zeros() as usize / 8).next_power_of_two();
        if needs > self.width {
            self.widen(needs);
        }
        for &b in &f.wanting.to_le_bytes()[..self.width] {
            self.wanting.push(b);
        }
        match &mut self.depths {
            Depths::Levels(first) if f.depth as usize == first.len() => first.push(s),
            Depths::Levels(first) if f.depth as usize + 1 == first.len() => {}
            Depths::Levels(_) => {
                let mut each: Vec<u32> = (0..s).map(|i| self.depth(i)).collect();
                each.push(f.depth);
                self.depths = Depths::Each(each);
            }
            Depths::Each(each) => each.push(f.depth),
        }
    }

    /// Re-encodes every `wanting` in `width` bytes, 2, 4 or 8 (a node id
    /// at 8 or above, 16, 32 was seen for the first time).
    fn widen(&mut self, width: usize) {
        let old = std::mem::take(&mut self.wanting);
        let mut wanting = Pages::default();
        for (k, &b) in old.iter().enumerate() {
            wanting.push(b);
            if k % self.width == self.width - 1 {
                (self.width..width).for_each(|_| wanting.push(0));
            }
        }
        self.wanting = wanting;
        self.width = width;
    }

    #[inline]
    pub fn wanting(&self, s: u32) -> u64 {
        let s = s as usize;
        // One arm a width: the liveness pass reads this for every edge.
        match self.width {
            1 => u64::from(self.wanting[s]),
            2 => u64::from(u16::from_le_bytes(self.at(s))),
            4 => u64::from(u32::from_le_bytes(self.at(s))),
            _ => u64::from_le_bytes(self.at(s)),
        }
    }

    fn at<const N: usize>(&self, s: usize) -> [u8; N] {
        std::array::from_fn(|k| self.wanting[s * N + k])
    }

    /// Moves the full pages of `wanting` to a file in `dir` (pages.rs).
    pub fn spill(&mut self, dir: &std::path::Path) -> std::io::Result<()> {
        self.wanting.spill(dir)
    }

    pub fn depth(&self, s: u32) -> u32 {
        match &self.depths {
            Depths::Levels(first) => first.partition_point(|&f| f <= s) as u32 - 1,
            Depths::Each(each) => each[s as usize],
        }
    }

    pub fn get(&self, s: u32) -> Facts {
        Facts {
            wanting: self.wanting(s),
            depth: self.depth(s),
        }
    }

    /// The deepest state's depth (0 with no state).
    pub fn max_depth(&self) -> u32 {
        match &self.depths {
            Depths::Levels(first) => first.len().saturating_sub(1) as u32,
            Depths::Each(each) => each.iter().copied().max().unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(facts: &[Facts]) -> FactTable {
        let mut t = FactTable::default();
        facts.iter().for_each(|&f| t.push(f));
        t
    }

    fn read(t: &FactTable) -> Vec<Facts> {
        (0..t.len() as u32).map(|s| t.get(s)).collect()
    }

    fn f(wanting: u64, depth: u32) -> Facts {
        Facts { wanting, depth }
    }

    #[test]
    fn breadth_first_depths_are_kept_as_levels() {
        let facts = [f(0, 0), f(1, 1), f(2, 1), f(3, 2), f(0, 3), f(1, 3), f(2, 3)];
        let t = table(&facts);
        assert!(matches!(&t.depths, Depths::Levels(first) if first == &[0, 1, 3, 4]));
        assert_eq!(read(&t), facts);
        assert_eq!((t.max_depth(), t.width, t.wanting.len()), (3, 1, 7));
    }

    #[test]
    fn a_depth_out_of_breadth_first_order_keeps_one_depth_a_state() {
        for facts in [
            vec![f(0, 0), f(0, 1), f(0, 2), f(0, 1)],
            vec![f(0, 0), f(0, 2)],
            vec![f(0, 1)],
            vec![f(0, 0), f(0, 1), f(0, u32::MAX)],
        ] {
            let t = table(&facts);
            assert!(matches!(t.depths, Depths::Each(_)));
            assert_eq!(read(&t), facts);
            assert_eq!(t.max_depth(), facts.iter().map(|f| f.depth).max().unwrap());
        }
    }

    #[test]
    fn a_wider_node_id_widens_every_state_before_it() {
        let facts = [
            f(0b101, 0),
            f(1 << 9, 1),
            f(3, 1),
            f(1 << 40, 1),
            f(u64::MAX, 2),
            f(0, 2),
        ];
        for n in 1..=facts.len() {
            assert_eq!(read(&table(&facts[..n])), facts[..n]);
        }
        assert_eq!(table(&facts).width, 8);
        assert_eq!(table(&facts[..3]).width, 2);
    }

    #[test]
    fn an_empty_table_has_depth_zero() {
        let t = FactTable::default();
        assert_eq!((t.len(), t.is_empty(), t.max_depth()), (0, true, 0));
        assert_eq!(read(&FactTable::filled(3)), vec![Facts::default(); 3]);
    }
}
