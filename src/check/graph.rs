//! The explored state graph, kept compact: states are numbered in
//! discovery order and identified by a 64-bit fingerprint, as TLC and
//! stateright do; edges carry the action's position in `World::enabled`
//! (so a path replays without storing states) and its fairness class, and
//! are stored as small variable-length numbers ([`OutEdges`]).

use std::io;
use std::path::Path;

pub use super::facts::{FactTable, Facts};
pub use super::fingerprints::FingerprintMap;
use super::pages::{self, BytePage, Pages, Plain};
pub use crate::world::fingerprint;
use crate::world::pack::{put_varint, write_into};

/// A fairness class: every non-fault action is weakly fair on its own;
/// faults are never fair. An edge marked [`Edge::strong`] (one outcome of
/// a random choice, [`crate::world::Actor::random`]) is strongly fair as
/// well, in the same class.
pub type Class = u32;
pub const FAULT: Class = u32::MAX;

/// An edge of the graph as the liveness pass reads it: the graph stores
/// it encoded, in about 5 bytes ([`OutEdges`]); this form packs its two flags
/// in the top bits of the action's position, 10 bytes in all (the lifts
/// of the liveness pass keep edges in it until they are sealed).
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

/// A state's discoverer and the ordinal of the action that discovered it,
/// packed to 6 bytes (a tuple of the two takes 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(2))]
pub struct Parent(pub u32, pub u16);

// SAFETY: two integers, packed without padding; alignment 2.
unsafe impl Plain for Parent {}

#[derive(Default)]
pub struct Graph {
    /// Discoverer and the ordinal of the action that discovered each state.
    pub parent: Pages<Parent>,
    pub facts: FactTable,
    /// Edges of each expanded state, encoded (see [`OutEdges`]), one state's
    /// after another's: about 5 bytes an edge instead of 10, and a state
    /// has about four. In pages of [`PAGE_BYTES`] that never move (as
    /// [`Pages`], for the same reason); a state's edges are on one page.
    edge_pages: Vec<BytePage>,
    /// Where each expanded state's edges start, its low 32 bits: page
    /// `at / PAGE_BYTES`, byte `at % PAGE_BYTES`; `bases` holds the whole
    /// offset of every [`BASE`]th, so that a graph may pass 4 GiB of edges
    /// while a state costs 4 bytes here.
    starts: Pages<u32>,
    bases: Vec<u64>,
    /// Edges stored.
    count: u64,
    /// Edges as discovered out of order (depth-first search, the lifts of
    /// the liveness pass): (from, edge); sorted into place by `seal`.
    pub raw: Vec<(u32, Edge)>,
}

/// States per whole offset in [`Graph::bases`]: few enough that their
/// edges stay below 4 GiB (4,096 states of at most 16,384 edges of at most
/// 13 bytes, each on a page of its own at the worst).
const BASE: usize = 1 << 12;

/// Bytes per page of edges: far more than one state's edges can take
/// (16,384 edges of at most 13 bytes).
const PAGE_BYTES: usize = 1 << 20;

/// The most bytes one edge takes: three LEB128 numbers of up to 64 bits.
/// A page turns when fewer than this are left on it.
const EDGE_MAX: usize = 30;

impl Graph {
    /// Records an edge out of `from`, which is the state expanded last or
    /// a later one: breadth-first search expands states in the order it
    /// numbers them, so its edges go straight to their place instead of
    /// through `raw` at 16 bytes each.
    pub fn push_in_order(&mut self, from: u32, e: Edge) {
        debug_assert!(self.raw.is_empty() && self.starts.len() <= from as usize + 1);
        while self.starts.len() <= from as usize {
            self.open();
        }
        let to = i64::from(e.to) - i64::from(from);
        let class = if e.class == FAULT { 0 } else { u64::from(e.class) + 1 };
        if self.edge_pages.last().is_none_or(|p| p.len() + EDGE_MAX > PAGE_BYTES) {
            self.turn_page();
        }
        let page = self.edge_pages.last_mut().expect("a page").mem();
        // Through the queue's writer (world/pack.rs), into the room the
        // page has: with a `push` a byte, the page's length went back to
        // memory at every byte.
        write_into(page, EDGE_MAX, |out| {
            for v in [u64::from(e.bits.rotate_left(2)), class, ((to << 1) ^ (to >> 63)) as u64] {
                put_varint(out, v);
            }
        });
        self.count += 1;
    }

    /// Where the next byte goes.
    fn end(&self) -> usize {
        self.edge_pages
            .last()
            .map_or(0, |p| (self.edge_pages.len() - 1) * PAGE_BYTES + p.len())
    }

    /// Starts the next state's edges at the end.
    fn open(&mut self) {
        let at = self.end() as u64;
        if self.starts.len().is_multiple_of(BASE) {
            self.bases.push(at);
        }
        self.starts.push(at as u32);
    }

    /// Starts a new page, and moves onto it what the state being written
    /// has on the last page: a state's edges stay on one page.
    fn turn_page(&mut self) {
        let mut page = Vec::with_capacity(PAGE_BYTES);
        // push_in_order has opened the state it writes.
        let s = self.starts.len() - 1;
        let at = self.start(s);
        if at / PAGE_BYTES + 1 == self.edge_pages.len() {
            let last = self.edge_pages.last_mut().expect("a page").mem();
            page.extend_from_slice(&last[at % PAGE_BYTES..]);
            last.truncate(at % PAGE_BYTES);
        }
        self.edge_pages.push(BytePage::Mem(page));
        let at = (self.edge_pages.len() - 1) * PAGE_BYTES;
        if s.is_multiple_of(BASE) {
            self.bases[s / BASE] = at as u64;
        }
        *self.starts.last_mut().expect("a state") = at as u32;
    }

    #[inline]
    fn start(&self, s: usize) -> usize {
        let base = self.bases[s / BASE];
        (base + u64::from(self.starts[s].wrapping_sub(base as u32))) as usize
    }

    /// Moves every page of edges, discoverers and offsets but the last
    /// (the one still written) to files in `dir`, read back mapped: the
    /// graph of a search that outgrows `--max-memory` (seen.rs says why
    /// mapped). The files have no names: they go with the process, however
    /// that ends. A failed write leaves the pages where they were.
    pub fn spill(&mut self, dir: &Path) -> io::Result<()> {
        self.parent.spill(dir)?;
        self.starts.spill(dir)?;
        self.facts.spill(dir)?;
        pages::spill_bytes(&mut self.edge_pages, dir)
    }

    /// Orders the edges by source state (DFS discovers them out of order)
    /// and closes the offsets of the states never expanded.
    pub fn seal(&mut self) {
        if !self.raw.is_empty() {
            // Stable: a state's edges keep their order.
            let mut raw = std::mem::take(&mut self.raw);
            raw.sort_by_key(|(from, _)| *from);
            for (from, e) in raw {
                self.push_in_order(from, e);
            }
        }
        while self.starts.len() <= self.facts.len() {
            self.open();
        }
    }

    /// The edges out of `s`, in the order they were found. Before
    /// [`Graph::seal`], the last state expanded has no closing offset yet:
    /// its edges run to the end of what is written.
    #[inline]
    pub fn out(&self, s: u32) -> OutEdges<'_> {
        let i = s as usize;
        let at = self.start(i);
        let page = self.edge_pages.get(at / PAGE_BYTES).map_or(&[][..], |p| &p[..]);
        // Up to the next state's start, or to the page's end where the
        // next state's edges are on a later page.
        let end = match self.starts.len() > i + 1 {
            true if self.start(i + 1) / PAGE_BYTES == at / PAGE_BYTES => self.start(i + 1) % PAGE_BYTES,
            _ => page.len(),
        };
        OutEdges {
            bytes: &page[at % PAGE_BYTES..end],
            from: s,
            offset: 0,
        }
    }

    /// The edges out of `s` from the one [`OutEdges::offset`] gave on.
    pub fn out_at(&self, s: u32, offset: u32) -> OutEdges<'_> {
        let mut out = self.out(s);
        out.offset = offset;
        out
    }

    /// Whether part of the graph is in files ([`Graph::spill`]): the
    /// liveness pass then maps its own arrays too (slots.rs).
    pub fn on_disk(&self) -> bool {
        self.edge_pages.iter().any(|p| matches!(p, BytePage::Mapped(..)))
    }

    /// The states whose edges are stored (every state once sealed; while
    /// the search runs, those expanded up to the last with an edge).
    pub fn expanded(&self) -> u32 {
        self.starts.len() as u32
    }

    /// The edges stored.
    pub fn edge_count(&self) -> u64 {
        self.count
    }

    /// Stores `edges`, listed state by state with `offsets[s]` the number
    /// of edges before state `s`'s first (a checkpoint's copy).
    pub fn load_edges(&mut self, edges: Vec<Edge>, offsets: &[u32]) {
        let mut from = 0;
        for (j, e) in edges.into_iter().enumerate() {
            // The last state whose edges start at or before this one.
            while from + 1 < offsets.len() && offsets[from + 1] as usize <= j {
                from += 1;
            }
            self.push_in_order(from as u32, e);
        }
        while self.starts.len() < offsets.len() {
            self.open();
        }
    }

    /// Ordinals of the actions from the initial state to `s`.
    pub fn path_to(&self, mut s: u32) -> Vec<u16> {
        let mut ords = Vec::new();
        while s != 0 {
            let Parent(p, k) = self.parent[s as usize];
            ords.push(k);
            s = p;
        }
        ords.reverse();
        ords
    }
}

/// A state's edges as the graph encodes them: per edge, three LEB128
/// numbers: the ordinal with the two flags as its low bits (one byte
/// below 32 actions), the class plus one (0 for a fault), and the
/// distance from the source state to the target, zigzagged.
#[derive(Clone)]
pub struct OutEdges<'g> {
    /// The state's edges, all of them: read at `offset`, one index a byte
    /// (a slice cut shorter at every byte took two registers' updates
    /// where this takes one).
    bytes: &'g [u8],
    from: u32,
    offset: u32,
}

impl OutEdges<'_> {
    /// How far into its state's edges this reads (see [`Graph::out_at`]).
    pub fn offset(&self) -> u32 {
        self.offset
    }

    #[inline(always)]
    fn number(&mut self) -> u64 {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = self.bytes[self.offset as usize];
            self.offset += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }
}

impl Iterator for OutEdges<'_> {
    type Item = Edge;

    #[inline]
    fn next(&mut self) -> Option<Edge> {
        if self.offset as usize >= self.bytes.len() {
            return None;
        }
        let bits = (self.number() as u16).rotate_right(2);
        let class = match self.number() {
            0 => FAULT,
            c => (c - 1) as Class,
        };
        let z = self.number() as i64;
        let to = (i64::from(self.from) + ((z >> 1) ^ -(z & 1))) as u32;
        Some(Edge { to, class, bits })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of `n` states with edges of every kind the encoding must
    /// keep: faults, large classes, flags, the largest ordinal, targets
    /// far behind and far ahead, and states without edges.
    fn sample(n: u32) -> Vec<(u32, Edge)> {
        let mut edges = Vec::new();
        for from in 0..n {
            if from % 7 == 3 {
                continue;
            }
            let k = (from % 5) as u16;
            edges.push((from, Edge::new(from, FAULT, 0, false, false)));
            edges.push((from, Edge::new(n - 1 - from, from * 977, 16_383 - k, true, false)));
            edges.push((from, Edge::new(u32::MAX - from, u32::MAX - 1, k, false, true)));
            edges.push((from, Edge::new(0, 0, k, true, true)));
        }
        edges
    }

    fn built(n: u32, edges: &[(u32, Edge)]) -> Graph {
        let mut g = Graph {
            facts: FactTable::filled(n as usize),
            ..Graph::default()
        };
        for &(from, e) in edges {
            g.push_in_order(from, e);
        }
        g.seal();
        g
    }

    fn read(g: &Graph, n: u32) -> Vec<(u32, Edge)> {
        (0..n).flat_map(|s| g.out(s).map(move |e| (s, e))).collect()
    }

    #[test]
    fn every_edge_reads_back_as_it_was_stored_across_many_bases() {
        let n = 3 * BASE as u32 + 5;
        let edges = sample(n);
        assert_eq!(read(&built(n, &edges), n), edges);
    }

    #[test]
    fn a_state_whose_edges_would_straddle_two_pages_moves_to_the_next() {
        // About 150 KB of edges a state (10-byte targets, 5-byte classes),
        // every fourth state none: pages turn in the middle of states and
        // right after states without edges.
        let n = 40u32;
        let mut edges = Vec::new();
        for from in (0..n).filter(|s| s % 4 != 1) {
            for k in 0..10_000u16 {
                let to = u32::MAX - u32::from(k) - from;
                edges.push((from, Edge::new(to, u32::MAX - 2 - from, k, k % 2 == 0, k % 3 == 0)));
            }
        }
        let g = built(n, &edges);
        assert!(g.edge_pages.len() >= 4, "{} pages", g.edge_pages.len());
        assert!(g.edge_pages.iter().all(|p| p.len() <= PAGE_BYTES));
        assert_eq!(read(&g, n), edges);
    }

    #[test]
    fn edges_found_out_of_order_are_sealed_into_state_order() {
        let n = 50;
        let edges = sample(n);
        let mut g = Graph {
            facts: FactTable::filled(n as usize),
            raw: edges.clone(),
            ..Graph::default()
        };
        g.raw.sort_by_key(|(from, _)| std::cmp::Reverse(*from));
        g.seal();
        assert_eq!(read(&g, n), edges);
    }

    #[test]
    fn reading_resumes_where_an_offset_left_it() {
        let n = 20;
        let g = built(n, &sample(n));
        let mut all = g.out(11);
        let first = all.next().expect("an edge");
        let rest: Vec<Edge> = g.out_at(11, all.offset()).collect();
        assert_eq!([vec![first], rest].concat(), g.out(11).collect::<Vec<_>>());
    }

    #[test]
    fn a_checkpoint_copy_loads_into_the_same_graph() {
        let n = BASE as u32 + 9;
        let edges = sample(n);
        // Unsealed, as a search saves it: the last states expanded have
        // no offsets yet.
        let mut g = Graph::default();
        for &(from, e) in edges.iter().filter(|(from, _)| *from < n - 2) {
            g.push_in_order(from, e);
        }
        let copy = |g: &Graph| {
            let mut offsets = Vec::new();
            let mut list: Vec<Edge> = Vec::new();
            for s in 0..g.expanded() {
                offsets.push(list.len() as u32);
                list.extend(g.out(s));
            }
            (list, offsets)
        };
        let (list, offsets) = copy(&g);
        assert_eq!(list.len() as u64, g.edge_count());
        let mut h = Graph::default();
        h.load_edges(list.clone(), &offsets);
        assert_eq!(copy(&h), (list, offsets));
        g.facts = FactTable::filled(n as usize);
        h.facts = FactTable::filled(n as usize);
        g.seal();
        h.seal();
        assert_eq!(read(&g, n), read(&h, n));
    }
}
