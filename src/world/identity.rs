//! The search's name for a state: a 64-bit fingerprint combined from one
//! hash per node and a hash of the rest (network, cuts, connections,
//! budget, counters). Most actions change one node, so a successor
//! re-hashes that node only and takes the others' hashes from its state
//! (issue 26: hashing whole states was a sixth of the search's time).
//!
//! It is not [`fingerprint`]: symmetry reduction breaks ties between
//! orders by the smallest `fingerprint` (symmetry.rs), and keeping that
//! order keeps every representative, and so every trace, as it was. The
//! two only ever need to agree with themselves: the seen sets, the queue,
//! checkpoints and trace rebuilding use `identity` throughout.

use std::hash::{BuildHasher, Hash, Hasher};

use smallvec::SmallVec;

use super::{fingerprint, Actor, Node, Spent, WorldState};

/// How [`identity`] names states, written into every checkpoint
/// (check/checkpoint.rs): a checkpoint saved by a binary that named them
/// otherwise holds fingerprints this one never computes, and is refused.
/// Change it with the identity; a test below pins one state's identity
/// beside it, so that changing the identity alone fails.
pub const NAMING: &str = "per-node hashes, the rest in words";

/// One hash per node, in node order.
pub type NodeHashes = SmallVec<[u64; 8]>;

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

/// A node's hash: its [`fingerprint`].
pub fn node_hash<A: Actor>(node: &Node<A>) -> u64 {
    fingerprint(node)
}

/// The hashes of `s`'s nodes, into `out`.
pub fn node_hashes<A: Actor>(s: &WorldState<A>, out: &mut NodeHashes) {
    out.clear();
    out.extend(s.nodes.iter().map(node_hash));
}

/// The identity of `t`, a successor of the state whose node hashes are
/// `from` through an action that changed only the nodes in `touched`:
/// the other nodes are not hashed again. Written straight into the
/// hasher: collecting the nodes' hashes first was a fortieth of the
/// search's time.
pub fn identity_after<A: Actor>(from: &[u64], t: &WorldState<A>, touched: Touched) -> u64 {
    let mut h = hasher();
    for (i, (n, &was)) in t.nodes.iter().zip(from).enumerate() {
        h.write_u64(if touched.has(i) { node_hash(n) } else { was });
    }
    rest(t, h)
}

fn hasher() -> foldhash::quality::FoldHasher<'static> {
    foldhash::quality::FixedState::with_seed(0x6964_656e_7469_7479).build_hasher()
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
    let mut h = hasher();
    for n in &s.nodes {
        h.write_u64(node_hash(n));
    }
    rest(s, h)
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
            let (mut actions, mut from, mut whole) = (Vec::new(), NodeHashes::new(), NodeHashes::new());
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
                    for (i, (was, now)) in from.iter().zip(&whole).enumerate() {
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
            ("per-node hashes, the rest in words", 3_489_544_105_565_063_533)
        );
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
