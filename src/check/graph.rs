//! The explored state graph, kept compact: states are numbered in
//! discovery order and identified by a 64-bit fingerprint, as TLC and
//! stateright do; edges carry the action's position in `World::enabled`
//! (so a path replays without storing states) and its fairness class.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

pub use crate::world::fingerprint;

/// A fairness class: every non-fault action is weakly fair on its own;
/// faults are never fair. An edge marked [`Edge::strong`] (one outcome of
/// a random choice, [`crate::world::Actor::random`]) is strongly fair as
/// well, in the same class.
pub type Class = u32;
pub const FAULT: Class = u32::MAX;

/// A hasher for keys that already are fingerprints.
#[derive(Default)]
pub struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 fingerprints are hashed with Identity")
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// A fingerprint kept as two halves: a map entry with a `u32` value then
/// takes 12 bytes instead of the 16 that a `u64` key's alignment makes it,
/// and the seen set holds one per state.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key([u32; 2]);

impl Key {
    fn new(fp: u64) -> Key {
        Key([fp as u32, (fp >> 32) as u32])
    }

    fn get(self) -> u64 {
        u64::from(self.0[0]) | u64::from(self.0[1]) << 32
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.get());
    }
}

/// A map from fingerprints, which are their own hashes ([`Identity`]).
pub struct FingerprintMap<V>(HashMap<Key, V, BuildHasherDefault<Identity>>);

impl<V> Default for FingerprintMap<V> {
    fn default() -> Self {
        FingerprintMap(HashMap::default())
    }
}

impl<V> FingerprintMap<V> {
    pub fn get(&self, fp: &u64) -> Option<&V> {
        self.0.get(&Key::new(*fp))
    }

    pub fn contains_key(&self, fp: &u64) -> bool {
        self.0.contains_key(&Key::new(*fp))
    }

    pub fn insert(&mut self, fp: u64, v: V) -> Option<V> {
        self.0.insert(Key::new(fp), v)
    }

    /// The value of `fp`, inserting `v` first if it has none.
    pub fn get_or_insert(&mut self, fp: u64, v: V) -> &mut V {
        self.0.entry(Key::new(fp)).or_insert(v)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        self.0.iter().map(|(k, v)| (k.get(), v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An edge of the graph: 10 bytes, its two flags in the top bits of the
/// action's position and the whole packed to 2-byte alignment (a state
/// has about four edges, and the edges are most of the graph).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(2))]
pub struct Edge {
    pub to: u32,
    pub class: Class,
    /// The action's position, bits 0 to 13, and the flags, bits 14 and 15.
    bits: u16,
}

const STRONG: u16 = 1 << 14;
const RANDOM: u16 = 1 << 15;

impl Edge {
    /// `ordinal`: the position of the action in the source state's enabled
    /// list (below 16,384). `strong`: the action's class is strongly fair,
    /// a tick (time passes whenever it may infinitely often). `random`:
    /// the action is one outcome of a random choice, fair per state (a
    /// state visited for ever takes each of its outcomes for ever).
    pub fn new(to: u32, class: Class, ordinal: u16, strong: bool, random: bool) -> Edge {
        assert!(ordinal < STRONG, "a state enables fewer than 16,384 actions");
        let bits = ordinal | if strong { STRONG } else { 0 } | if random { RANDOM } else { 0 };
        Edge { to, class, bits }
    }

    /// The edge as [`Edge::bits`] gave it (a checkpoint's copy).
    pub fn from_bits(to: u32, class: Class, bits: u16) -> Edge {
        Edge { to, class, bits }
    }

    /// The ordinal and the flags, packed as the edge keeps them.
    pub fn bits(&self) -> u16 {
        self.bits
    }

    pub fn ordinal(&self) -> u16 {
        self.bits & (STRONG - 1)
    }

    pub fn strong(&self) -> bool {
        self.bits & STRONG != 0
    }

    pub fn random(&self) -> bool {
        self.bits & RANDOM != 0
    }
}

/// Per-state facts the liveness pass needs: who wants the lock (who holds
/// it is no part of any liveness property), and the depth. Packed to 4
/// bytes' alignment, so a state costs 12 bytes here instead of 24 (the
/// fields are read by value, never borrowed).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, packed(4))]
pub struct Facts {
    pub wanting: u64,
    /// Number of actions taken from the initial state (BFS: the shortest).
    pub depth: u32,
}

#[derive(Default)]
pub struct Graph {
    /// Discoverer and the ordinal of the action that discovered each state.
    pub parent: Vec<(u32, u16)>,
    pub facts: Vec<Facts>,
    /// Edges of each expanded state, in `offsets[i]..offsets[i + 1]` once
    /// [`Graph::seal`] has run.
    pub edges: Vec<Edge>,
    pub offsets: Vec<u32>,
    /// Edges as discovered out of order (depth-first search, the lifts of
    /// the liveness pass): (from, edge); sorted into `edges` by `seal`.
    pub raw: Vec<(u32, Edge)>,
}

impl Graph {
    /// Records an edge out of `from`, which is the state expanded last or
    /// a later one: breadth-first search expands states in the order it
    /// numbers them, so its edges go straight to their place, 10 bytes
    /// each, instead of through `raw` at 16.
    pub fn push_in_order(&mut self, from: u32, e: Edge) {
        debug_assert!(self.raw.is_empty() && self.offsets.len() <= from as usize + 1);
        while self.offsets.len() <= from as usize {
            self.offsets.push(self.edges.len() as u32);
        }
        self.edges.push(e);
    }

    /// Orders the edges by source state (DFS discovers them out of order)
    /// and closes the offsets of the states never expanded.
    pub fn seal(&mut self) {
        let n = self.facts.len();
        if self.raw.is_empty() {
            self.offsets.resize(n + 1, self.edges.len() as u32);
            return;
        }
        let mut counts = vec![0u32; n + 1];
        for (from, _) in &self.raw {
            counts[*from as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        // Edges that came sorted (a lift searched breadth-first) are moved
        // into place
        // in their own allocation (an in-place collect), not copied into a
        // second one, which would hold every edge twice at the peak.
        if self.raw.is_sorted_by_key(|(from, _)| *from) {
            self.offsets = counts;
            self.edges = std::mem::take(&mut self.raw).into_iter().map(|(_, e)| e).collect();
            return;
        }
        self.offsets = counts.clone();
        let mut slots = counts;
        let placeholder = Edge::new(0, FAULT, 0, false, false);
        self.edges = vec![placeholder; self.raw.len()];
        for (from, e) in self.raw.drain(..) {
            let slot = &mut slots[from as usize];
            self.edges[*slot as usize] = e;
            *slot += 1;
        }
    }

    pub fn out(&self, s: u32) -> &[Edge] {
        let s = s as usize;
        &self.edges[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }

    /// Ordinals of the actions from the initial state to `s`.
    pub fn path_to(&self, mut s: u32) -> Vec<u16> {
        let mut ords = Vec::new();
        while s != 0 {
            let (p, k) = self.parent[s as usize];
            ords.push(k);
            s = p;
        }
        ords.reverse();
        ords
    }
}
