//! The sets of states the liveness passes read: a bit a state, and the
//! states a component search runs over.

/// One bit a state.
#[derive(Clone)]
pub(super) struct Bits(pub(super) Vec<u64>);

impl Bits {
    pub(super) fn new(k: usize) -> Bits {
        Bits(vec![0; k.div_ceil(64)])
    }

    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64] & 1 << (i % 64) != 0
    }

    pub(super) fn set(&mut self, i: usize, on: bool) {
        if on {
            self.0[i / 64] |= 1 << (i % 64);
        } else {
            self.0[i / 64] &= !(1 << (i % 64));
        }
    }
}

/// The states a component search runs over: the whole graph's first `n`
/// (a state's slot is its number, and no list of them is kept: on a
/// search bigger than memory it would be one more array as long as the
/// graph), or a sorted list of some (a slot is a position in it).
#[derive(Clone, Copy)]
pub(super) enum Nodes<'a> {
    All(u32),
    Listed(&'a [u32]),
}

impl<'a> Nodes<'a> {
    pub(super) fn len(self) -> usize {
        match self {
            Nodes::All(n) => n as usize,
            Nodes::Listed(l) => l.len(),
        }
    }

    pub(super) fn slot(self, s: u32) -> Option<usize> {
        match self {
            Nodes::All(n) => (s < n).then_some(s as usize),
            Nodes::Listed(l) => l.binary_search(&s).ok(),
        }
    }

    pub(super) fn iter(self) -> impl Iterator<Item = u32> + 'a {
        let (n, list) = match self {
            Nodes::All(n) => (n as usize, None),
            Nodes::Listed(l) => (l.len(), Some(l)),
        };
        (0..n).map(move |r| list.map_or(r as u32, |l| l[r]))
    }
}
