//! The search's name for a state: a 64-bit fingerprint combined from the
//! sum of one term per node (its hash, mixed with its place) and a hash of
//! the rest (network, cuts, connections, budget, counters). Most actions
//! change one node, so a successor re-hashes that node only and swaps its
//! term in its parent's sum (issue 26: hashing whole states was a sixth of
//! the search's time).
//!
//! It is not [`fingerprint`](super::fingerprint): symmetry reduction
//! breaks ties between orders by the smallest `fingerprint` (symmetry.rs),
//! and keeping that order keeps every representative, and so every trace,
//! as it was. The
//! two only ever need to agree with themselves: the seen sets, the queue,
//! checkpoints and trace rebuilding use `identity` throughout.

use std::hash::{Hash, Hasher};

use smallvec::SmallVec;

use super::{Actor, Node, Spent, WorldState};

/// How [`identity`] names states, written into every checkpoint
/// (check/checkpoint.rs): a checkpoint saved by a binary that named them
/// otherwise holds fingerprints this one never computes, and is refused.
/// Change it with the identity; a test below pins one state's identity
/// beside it, so that changing the identity alone fails.
pub const NAMING: &str = "per-node hashes summed with their places, the rest in words, each value mixed as written";

/// A state's nodes' part of its identity: one term per node, in node
/// order, and their sum ([`node_hashes`]).
#[derive(Clone, Debug, Default)]
pub struct NodeHashes {
    terms: SmallVec<[u64; 8]>,
    sum: u64,
}

/// The nodes an action may have changed, a bit each; a node numbered 64
/// or more counts as changed whenever any node may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touched(u64);

impl Touched {
    pub const NONE: Touched = Touched(0);
    pub const ALL: Touched = Touched(u64::MAX);

    /// Node `id` only.
    pub fn node(id: usize) -> Touched {
        if id < 64 {
            Touched(1 << id)
        } else {
            Touched::ALL
        }
    }

    /// The nodes of both.
    pub fn union(self, other: Touched) -> Touched {
        Touched(self.0 | other.0)
    }

    /// Whether node `id` may have changed.
    pub fn has(self, id: usize) -> bool {
        if id < 64 {
            self.0 >> id & 1 != 0
        } else {
            self.0 != 0
        }
    }
}

/// A node's hash, through [`Mix`].
pub fn node_hash<A: Actor>(node: &Node<A>) -> u64 {
    let mut h = Mix::new(0x6e6f_6465);
    node.hash(&mut h);
    h.finish()
}

/// The identity's hasher: each value written is mixed into the state at
/// once, by one 64-by-64-bit multiplication folded to 64 bits (foldhash's
/// and wyhash's step). The derived `Hash` of a node or a message writes
/// many small values, a field and a discriminant at a time, and foldhash
/// buffers them in a 128-bit sponge whose variable shifts took more
/// instructions than the multiplications they save: 12% of the
/// instructions of a search (cachegrind, redlock-no-faults
/// --no-symmetry). Not [`fingerprint`](super::fingerprint), whose values
/// order symmetry's representatives and must stay as they are.
pub struct Mix(u64);

/// An odd 64-bit constant with well-spread bits (the golden ratio's).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl Mix {
    /// A hasher whose state is `seed`, mixed: xored in as it is, a seed
    /// would be one more value xored into the first one written.
    pub fn new(seed: u64) -> Mix {
        Mix(folded_multiply(seed ^ 0x243f_6a88_85a3_08d3, MIX))
    }
}

fn folded_multiply(x: u64, y: u64) -> u64 {
    let full = u128::from(x) * u128::from(y);
    (full as u64) ^ (full >> 64) as u64
}

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        self.write_u64(bytes.len() as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.write_u64(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = folded_multiply(self.0 ^ i, MIX);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn finish(&self) -> u64 {
        folded_multiply(self.0, 0x1319_8a2e_0370_7344)
    }
}

/// Node `id`'s term in its state's identity, from its hash: mixed with
/// its place, so that the same nodes in another order sum otherwise.
fn term(id: usize, hash: u64) -> u64 {
    folded_multiply(hash ^ (id as u64 + 1).wrapping_mul(MIX), 0x4528_21e6_38d0_1377)
}

/// The terms of `s`'s nodes, in node order.
fn terms<A: Actor>(s: &WorldState<A>) -> impl Iterator<Item = u64> + '_ {
    s.nodes.iter().enumerate().map(|(id, n)| term(id, node_hash(n)))
}

/// The sum of terms, wrapping.
fn summed(terms: impl Iterator<Item = u64>) -> u64 {
    terms.fold(0, u64::wrapping_add)
}

/// The terms of `s`'s nodes and their sum, into `out`.
pub fn node_hashes<A: Actor>(s: &WorldState<A>, out: &mut NodeHashes) {
    out.terms.clear();
    out.terms.extend(terms(s));
    out.sum = summed(out.terms.iter().copied());
}

/// The identity of `t`, a successor of the state whose nodes' terms are
/// `from` through an action that changed only the nodes in `touched`:
/// only those are hashed again, and their terms replace theirs in the
/// sum. The nodes' terms are summed, not mixed in one after another,
/// so that a successor costs its changed nodes only: mixing in every
/// node's hash in turn was about 3% of the headline's instructions
/// (cachegrind, line by line).
pub fn identity_after<A: Actor>(from: &NodeHashes, t: &WorldState<A>, touched: Touched) -> u64 {
    let n = t.nodes.len();
    let sum = if n > 64 && touched != Touched::NONE {
        summed(terms(t))
    } else {
        let mut sum = from.sum;
        let mut changed = touched.0 & if n >= 64 { u64::MAX } else { (1 << n) - 1 };
        while changed != 0 {
            let id = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            sum = sum
                .wrapping_sub(from.terms[id])
                .wrapping_add(term(id, node_hash(&t.nodes[id])));
        }
        sum
    };
    whole(sum, t)
}

/// The identity of `s`, whose nodes' terms sum to `sum`.
fn whole<A: Actor>(sum: u64, s: &WorldState<A>) -> u64 {
    let mut h = hasher();
    h.write_u64(sum);
    rest(s, h)
}

fn hasher() -> Mix {
    Mix::new(0x6964_656e_7469_7479)
}

/// Adds what `s` holds beside its nodes to `h`, and finishes. Hashed for
/// every successor, so the small fields go in a few words instead of a
/// write each, as the derived `Hash` would (each write is a multiply):
/// the lists' lengths in one, each message's ends, age and copy flag in
/// one beside the message itself, the budget spent and the counters in
/// two. An id below 2^20 and a list shorter than 2^16 are written whole.
fn rest<A: Actor>(s: &WorldState<A>, mut h: impl Hasher) -> u64 {
    let len = |n: usize| n as u64 & 0xffff;
    h.write_u64(len(s.net.len()) | len(s.cut.len()) << 16 | len(s.one_way.len()) << 32 | len(s.broken.len()) << 48);
    for e in &s.net {
        h.write_u64(e.src as u64 | (e.dst as u64) << 20 | u64::from(e.age) << 40 | u64::from(e.copied) << 48);
        e.msg.hash(&mut h);
    }
    for &(a, b) in s.cut.iter().chain(&s.one_way) {
        h.write_u64(a as u64 | (b as u64) << 32);
    }
    for c in &s.broken {
        h.write_u64(c.node as u64 | (c.peer as u64) << 32 | u64::from(c.noticed) << 63);
    }
    let Spent {
        crashes,
        pauses,
        clock_jumps,
        partitions,
    } = s.spent;
    let spent = u32::from_le_bytes([crashes, pauses, clock_jumps, partitions]);
    h.write_u64(u64::from(spent) | u64::from(s.history) << 32);
    h.write_u64(u64::from(s.ghost) | u64::from(s.value) << 32);
    h.finish()
}

/// `s`'s identity, computed whole.
pub fn identity<A: Actor>(s: &WorldState<A>) -> u64 {
    whole(summed(terms(s)), s)
}

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};

    use super::*;
    use crate::algorithms::{dispatch, Job};
    use crate::properties::Lock;
    use crate::scenario::{bundled_names, Scenario};
    use crate::world::World;

    /// Walks a scenario's first states breadth first and checks, for every
    /// successor, that the nodes its action leaves untouched
    /// (`World::taken_into`) hash as they did: the incremental identity is
    /// the whole one.
    struct Incremental;

    impl Job for Incremental {
        type Output = usize;
        fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> usize {
            let init = world.init();
            let mut seen = HashSet::from([identity(&init)]);
            let mut queue = VecDeque::from([init]);
            let (mut actions, mut from, mut whole) = (Vec::new(), NodeHashes::default(), NodeHashes::default());
            let mut t = world.init();
            let mut checked = 0;
            while let Some(s) = queue.pop_front() {
                if seen.len() > 3000 {
                    break;
                }
                actions.clear();
                world.enabled(&s, &mut actions);
                node_hashes(&s, &mut from);
                for a in &actions {
                    let Some(touched) = world.taken_into(&s, a, &mut t) else {
                        continue;
                    };
                    node_hashes(&t, &mut whole);
                    for (i, (was, now)) in from.terms.iter().zip(&whole.terms).enumerate() {
                        assert!(
                            touched.has(i) || was == now,
                            "{}: {a:?} from {s:?} changed node {i}, which it was said not to touch",
                            sc.path.display()
                        );
                    }
                    let fp = identity_after(&from, &t, touched);
                    assert_eq!(fp, identity(&t));
                    assert_eq!(
                        world.renumbered(&t),
                        t,
                        "{}: {a:?} from {s:?} is not ranked (`taken_into` leaves ticks as they are)",
                        sc.path.display()
                    );
                    checked += 1;
                    if seen.insert(fp) {
                        queue.push_back(t.clone());
                    }
                }
            }
            checked
        }
    }

    #[test]
    fn a_successor_rehashes_only_the_nodes_its_action_touched_yet_hashes_as_a_whole() {
        for name in bundled_names() {
            let sc = crate::catalog::open(name).expect("bundled");
            let checked = dispatch(&sc, Incremental).expect("builds");
            assert!(checked > 0, "{name}: no successor");
        }
    }

    /// The identity of a bundled scenario's initial state.
    struct Init;

    impl Job for Init {
        type Output = u64;
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> u64 {
            identity(&world.init())
        }
    }

    #[test]
    fn the_naming_written_into_checkpoints_changes_with_the_identity() {
        let sc = crate::catalog::open("redlock-fsync").expect("bundled");
        let id = dispatch(&sc, Init).expect("builds");
        // A new identity needs a new `NAMING` (then pin the new value).
        assert_eq!(
            (NAMING, id),
            (
                "per-node hashes summed with their places, the rest in words, each value mixed as written",
                10_873_866_828_499_056_596
            )
        );
    }

    /// The mixer tells apart what the derived `Hash` of a node writes:
    /// every short run of small values (fields, discriminants, lengths),
    /// and the same values in another order, in another seed or followed
    /// by one more.
    #[test]
    fn the_mixer_tells_apart_every_short_run_of_small_values() {
        let hash = |seed: u64, run: &[u8]| {
            let mut h = Mix::new(seed);
            for &v in run {
                h.write_u8(v);
            }
            h.finish()
        };
        let mut runs: Vec<Vec<u8>> = vec![vec![]];
        for len in 1..=3 {
            for n in 0..32u32.pow(len) {
                runs.push((0..len).map(|k| (n / 32u32.pow(k) % 32) as u8).collect());
            }
        }
        let mut all = HashSet::new();
        for seed in [0, 1] {
            for run in &runs {
                assert!(all.insert(hash(seed, run)), "seed {seed}, {run:?} collides");
            }
        }
        assert_eq!(all.len(), 2 * runs.len());
        // Bytes are taken eight at a time, with their length.
        let bytes = |b: &[u8]| {
            let mut h = Mix::new(0);
            h.write(b);
            h.finish()
        };
        assert_ne!(bytes(&[1, 0]), bytes(&[1]));
        assert_ne!(bytes(&[0; 9]), bytes(&[0; 8]));
    }

    #[test]
    fn touched_names_its_nodes_and_all_of_them_beyond_64() {
        let one = Touched::node(3);
        assert!(one.has(3) && !one.has(2) && !one.has(63) && one.has(64));
        assert!(!Touched::NONE.has(0) && !Touched::NONE.has(70));
        assert!(Touched::ALL.has(0) && Touched::ALL.has(70));
        assert_eq!(Touched::node(64), Touched::ALL);
    }
}
