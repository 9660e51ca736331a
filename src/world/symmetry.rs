//! Symmetry reduction (docs/design.md §6, §12): stateright's BFS ignores
//! `.symmetry()`, so the world canonicalises states itself. Nodes in one
//! declared group run the same program and may be renamed freely; a state
//! is replaced by the representative of its orbit, found by sorting each
//! group's nodes on a signature that does not depend on names, and breaking
//! remaining ties by the smallest fingerprint over the tied orders. The
//! renaming applied is returned, so traces can be mapped back to the names
//! of the run they describe.

use std::hash::{BuildHasher, Hash, Hasher};

use smallvec::SmallVec;

use super::{fingerprint, Action, Envelope, Id, Node, Program, Touched, World, WorldState, FINGERPRINT};

/// `perm[old] = new`.
pub type Renaming = Vec<Id>;

/// A message in a node's signature: whether the node sent it, the other
/// end (a group or a node outside every group), the message's fingerprint
/// with ids erased, its age and whether it was duplicated.
type Link = (bool, Id, u64, u8, bool);

/// Each message's erased fingerprint ([`World::erased_messages`]), inline
/// for a network of a few messages.
type Erased = SmallVec<[u64; 16]>;

/// A renaming built for one state and dropped: inline.
type Perm = SmallVec<[Id; 16]>;

/// Each node's name as the other end of a link ([`World::ends`]).
type Ends = SmallVec<[Id; 16]>;

/// [`fingerprint`]'s hasher part way through a signature.
type Prefix = foldhash::quality::FoldHasher<'static>;

/// The [`World::prefix`] of each node of a state in a group (`None`
/// for the others), so that its successors' signatures start from them
/// for every node their action left as it was: a node's own part was
/// most of a signature, and the search computed five signatures for nearly
/// every successor on the headline's symmetric row.
/// With them, the nodes' [`World::ends`], kept from one parent to the next: a `Prefixes` serves one world.
#[derive(Default)]
pub struct Prefixes(SmallVec<[Option<Prefix>; 8]>, Ends);

impl Prefixes {
    /// Forgets the last parent's.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<A: Program> World<A> {
    /// Applies a renaming to every node id in the state.
    pub fn rename_state(&self, s: &WorldState<A>, perm: &[Id]) -> WorldState<A> {
        let mut t = s.clone();
        self.rename_state_into(s, perm, &mut t);
        t
    }

    /// [`World::rename_state`] into `t`, whose lists it reuses: the search
    /// renames most successors it has not met before under their own
    /// names, and allocating a state each time was a tenth of a symmetric
    /// search's instructions (cachegrind, redlock-fsync).
    pub fn rename_state_into(&self, s: &WorldState<A>, perm: &[Id], t: &mut WorldState<A>) {
        let ids = |i: Id| perm[i];
        t.nodes.truncate(s.nodes.len());
        while t.nodes.len() < s.nodes.len() {
            t.nodes.push(s.nodes[t.nodes.len()].clone());
        }
        for (old, node) in s.nodes.iter().enumerate() {
            let n = &mut t.nodes[perm[old]];
            n.clone_from(node);
            self.actors[old].rename(&mut n.state, &ids);
        }
        t.net.clear();
        t.net.extend(s.net.iter().map(|e| {
            let mut msg = e.msg.clone();
            self.actors[e.dst].rename_msg(&mut msg, &ids);
            Envelope {
                src: perm[e.src],
                dst: perm[e.dst],
                msg,
                age: e.age,
                copied: e.copied,
            }
        }));
        self.normalise(&mut t.net);
        t.cut.clear();
        t.cut
            .extend(s.cut.iter().map(|&(a, b)| (perm[a].min(perm[b]), perm[a].max(perm[b]))));
        t.cut.sort();
        t.one_way.clear();
        t.one_way.extend(s.one_way.iter().map(|&(a, b)| (perm[a], perm[b])));
        t.one_way.sort();
        t.broken.clear();
        t.broken.extend(s.broken.iter().map(|c| super::Broken {
            node: perm[c.node],
            peer: perm[c.peer],
            noticed: c.noticed,
        }));
        t.broken.sort();
        t.spent = s.spent;
        t.ghost = s.ghost;
        t.value = s.value;
        t.history = s.history;
    }

    /// Applies a renaming to an action.
    pub fn rename_action(&self, a: &Action<A>, perm: &[Id]) -> Action<A> {
        let ids = |i: Id| perm[i];
        let msg = |m: &A::Msg, dst: Id| {
            let mut m = m.clone();
            self.actors[dst].rename_msg(&mut m, &ids);
            m
        };
        match a {
            Action::Tick | Action::Heal => a.clone(),
            Action::Step { node, step } => Action::Step {
                node: perm[*node],
                step: *step,
            },
            Action::Fire { node, timer } => Action::Fire {
                node: perm[*node],
                timer: *timer,
            },
            Action::Deliver { src, dst, msg: m } => Action::Deliver {
                src: perm[*src],
                dst: perm[*dst],
                msg: msg(m, *dst),
            },
            Action::Lose { src, dst, msg: m } => Action::Lose {
                src: perm[*src],
                dst: perm[*dst],
                msg: msg(m, *dst),
            },
            Action::Duplicate { src, dst, msg: m } => Action::Duplicate {
                src: perm[*src],
                dst: perm[*dst],
                msg: msg(m, *dst),
            },
            Action::Restart { node } => Action::Restart { node: perm[*node] },
            Action::Crash { node } => Action::Crash { node: perm[*node] },
            Action::Pause { node, ticks } => Action::Pause {
                node: perm[*node],
                ticks: *ticks,
            },
            Action::Partition { a, b } => Action::Partition {
                a: perm[*a].min(perm[*b]),
                b: perm[*a].max(perm[*b]),
            },
            Action::Cut { src, dst } => Action::Cut {
                src: perm[*src],
                dst: perm[*dst],
            },
            Action::Disconnected { node, peer } => Action::Disconnected {
                node: perm[*node],
                peer: perm[*peer],
            },
            Action::Reconnect { node, peer } => Action::Reconnect {
                node: perm[*node],
                peer: perm[*peer],
            },
            Action::ClockJump { node, by } => Action::ClockJump {
                node: perm[*node],
                by: *by,
            },
            Action::Drift { fast, slow } => {
                let ids = |v: &[Id]| {
                    let mut v: Vec<Id> = v.iter().map(|i| perm[*i]).collect();
                    v.sort_unstable();
                    v
                };
                Action::Drift {
                    fast: ids(fast),
                    slow: ids(slow),
                }
            }
        }
    }

    /// Each node's name as the other end of a link in a signature: its
    /// first group `g` as `usize::MAX - g`, or itself. Named once, where
    /// each link of each signature searched the groups (a quarter of
    /// `signature_after`'s instructions, cachegrind on redlock-fsync).
    fn ends(&self, n: usize) -> Ends {
        let mut ends: Ends = (0..n).collect();
        // Last group first, so that the first one a node is in names it.
        for (g, group) in self.symmetry.iter().enumerate().rev() {
            for &id in group {
                ends[id] = usize::MAX - g;
            }
        }
        ends
    }

    /// Each message in flight's fingerprint with its node ids erased, in
    /// the network's order: each message enters two nodes' signatures, so
    /// it is erased and hashed once per state, not once per end.
    fn erased_messages(&self, s: &WorldState<A>) -> Erased {
        let erase = |_: Id| usize::MAX;
        s.net
            .iter()
            .map(|e| {
                let mut m = e.msg.clone();
                self.actors[e.dst].rename_msg(&mut m, &erase);
                fingerprint(&m)
            })
            .collect()
    }

    /// A name-free signature of one node: its own state with every id
    /// erased, its clock, and the messages it sends and receives with the
    /// other end named only by its group (`erased`: the messages'
    /// fingerprints from [`World::erased_messages`]).
    fn signature(&self, s: &WorldState<A>, id: Id, erased: &[u64], ends: &[Id]) -> u64 {
        self.signature_after(self.prefix(&s.nodes[id], id), s, id, erased, ends)
    }

    /// A node's signature up to its links: the hasher of [`fingerprint`]
    /// having taken in the tuple's first elements, its status, its own
    /// state with every id erased, its clocks and its skew.
    fn prefix(&self, n: &Node<A>, id: Id) -> Prefix {
        let erase = |_: Id| usize::MAX;
        let mut state = n.state.clone();
        self.actors[id].rename(&mut state, &erase);
        let mut h = FINGERPRINT.build_hasher();
        n.status.hash(&mut h);
        state.hash(&mut h);
        n.timers.hash(&mut h);
        n.watches.hash(&mut h);
        n.skew.hash(&mut h);
        h
    }

    /// [`World::signature`] from its [`World::prefix`] `h`: the rest of the
    /// tuple, the node's links and its work waited where there is any (the
    /// other ends named by `ends`, [`World::ends`]). A tuple hashes as its
    /// elements one after another, so this is the tuple's fingerprint.
    fn signature_after(&self, mut h: Prefix, s: &WorldState<A>, id: Id, erased: &[u64], ends: &[Id]) -> u64 {
        let n = &s.nodes[id];
        // Inline: a node has a few messages in flight, and the list hashes
        // as the `Vec` it was, so the signature is the same number.
        let mut links: SmallVec<[Link; 8]> = SmallVec::new();
        for (e, &m) in s.net.iter().zip(erased) {
            if e.src == id || e.dst == id {
                let sent = e.src == id;
                links.push((sent, ends[if sent { e.dst } else { e.src }], m, e.age, e.copied));
            }
        }
        links.sort_unstable();
        links.hash(&mut h);
        if n.waited != 0 {
            n.waited.hash(&mut h);
        }
        h.finish()
    }

    /// Whether renaming by `perm` leaves every node's own state as it is:
    /// the first half of [`World::rename_state`]`(s, perm) == s`, node by
    /// node, so that a renaming that changes a node is refused before the
    /// network is copied and sorted.
    fn fixes_nodes(&self, s: &WorldState<A>, perm: &[Id]) -> bool {
        let ids = |i: Id| perm[i];
        // The state alone is renamed: cloning whole nodes (their clocks
        // with them) was a twentieth of a symmetric search's instructions.
        s.nodes.iter().enumerate().all(|(old, node)| {
            let other = &s.nodes[perm[old]];
            (node.status, &node.timers, &node.watches, node.skew, node.waited)
                == (other.status, &other.timers, &other.watches, other.skew, other.waited)
                && {
                    let mut state = node.state.clone();
                    self.actors[old].rename(&mut state, &ids);
                    state == other.state
                }
        })
    }

    /// Whether swapping `run[0]` with each other member leaves `s` as it
    /// is: then every renaming among the members does (transpositions with
    /// one element generate them all). `scratch` holds the renamed state
    /// where it must be built.
    fn interchangeable(&self, s: &WorldState<A>, run: &[Id], scratch: &mut WorldState<A>) -> bool {
        run[1..].iter().all(|&other| {
            let mut swap: Perm = (0..s.nodes.len()).collect();
            swap.swap(run[0], other);
            self.fixes_nodes(s, &swap)
                && (self.fixes_links(s, &swap, run[0], other) || {
                    self.rename_state_into(s, &swap, scratch);
                    scratch == s
                })
        })
    }

    /// Whether swapping `a` and `b` (`perm`) evidently leaves everything
    /// but the nodes as it is: no message in flight, cut link or broken
    /// connection has either at an end, and no message names either
    /// inside. Then the renamed network is the network, in its order, and
    /// with [`World::fixes_nodes`] the whole state is unchanged, without
    /// building the renamed copy. `false` only means "not evidently":
    /// [`World::rename_state`] decides.
    fn fixes_links(&self, s: &WorldState<A>, perm: &[Id], a: Id, b: Id) -> bool {
        let ids = |i: Id| perm[i];
        let apart = |x: Id, y: Id| x != a && x != b && y != a && y != b;
        s.cut.iter().all(|&(x, y)| apart(x, y))
            && s.one_way.iter().all(|&(x, y)| apart(x, y))
            && s.broken.iter().all(|c| apart(c.node, c.peer))
            && s.net.iter().all(|e| {
                apart(e.src, e.dst) && {
                    let mut m = e.msg.clone();
                    self.actors[e.dst].rename_msg(&mut m, &ids);
                    m == e.msg
                }
            })
    }

    /// The orbit's representative and the renaming that produced it.
    pub fn canonical(&self, s: WorldState<A>) -> (WorldState<A>, Renaming) {
        match self.representative(&s) {
            (Some(t), perm) => (t, perm),
            (None, perm) => (s, perm),
        }
    }

    /// The renaming that puts each group's members in the order of their
    /// signatures (`sign`), where that order is fixed: no two members
    /// tie, or those that tie are ones the state cannot tell apart
    /// (swapping any two leaves it unchanged, as with idle masters), whose
    /// every order gives the same state, so that their first order, by
    /// name, stands for all. `false` where some tie the state can tell
    /// apart remains, for [`World::representative`] to break.
    /// The renaming is written into `perm` (whether or not the order is
    /// fixed); `scratch` holds swapped states where they must be built.
    fn untied(
        &self,
        s: &WorldState<A>,
        mut sign: impl FnMut(Id) -> u64,
        perm: &mut Perm,
        scratch: &mut WorldState<A>,
    ) -> bool {
        perm.clear();
        perm.extend(0..s.nodes.len());
        for group in &self.symmetry {
            // A loop, not an iterator collected: the signatures are
            // inlined into it (the collected iterator's `next` was not).
            let mut keyed: SmallVec<[(u64, Id); 8]> = SmallVec::new();
            for &id in group {
                keyed.push((sign(id), id));
            }
            keyed.sort_unstable();
            let mut start = 0;
            for end in 1..=keyed.len() {
                if end == keyed.len() || keyed[end].0 != keyed[start].0 {
                    if end - start > 1 {
                        let run: SmallVec<[Id; 8]> = keyed[start..end].iter().map(|&(_, id)| id).collect();
                        if !self.interchangeable(s, &run, scratch) {
                            return false;
                        }
                    }
                    start = end;
                }
            }
            let mut slots: SmallVec<[Id; 8]> = SmallVec::from_slice(group);
            slots.sort_unstable();
            for (slot, &(_, old)) in slots.iter().zip(&keyed) {
                perm[old] = *slot;
            }
        }
        true
    }

    /// Whether `s` is not its own representative, which is then written
    /// into `t` (its lists reused): [`World::representative`] for the
    /// search, which needs the representative but not the renaming, and
    /// canonicalises about a million successors on `redlock-fsync`. Where
    /// the signatures fix the order ([`World::untied`]; nearly always), it
    /// allocates nothing; otherwise it defers to [`World::representative`]. `t` is
    /// spoilt where it gives `false`.
    ///
    /// `s` is a successor of `parent` through an action that changed only
    /// the nodes in `touched` (`World::taken_into`): the nodes it left
    /// as they were take their signatures' [`Prefixes`] from `parent`'s,
    /// computed once for all its successors (empty, as the caller leaves
    /// them for each new parent, they are filled here first).
    pub fn representative_into(
        &self,
        s: &WorldState<A>,
        (parent, touched, prefixes): (&WorldState<A>, Touched, &mut Prefixes),
        t: &mut WorldState<A>,
    ) -> bool {
        if self.symmetry.is_empty() {
            return false;
        }
        if prefixes.1.len() != parent.nodes.len() {
            // Once for the buffers' world: `clear` keeps them.
            prefixes.1 = self.ends(parent.nodes.len());
        }
        if prefixes.0.is_empty() {
            // A node outside every group is its own end.
            let ends = &prefixes.1;
            prefixes.0.extend(
                parent
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(id, n)| (ends[id] != id).then(|| self.prefix(n, id))),
            );
        }
        let erased = self.erased_messages(s);
        let sign = |id: Id| {
            let h = match &prefixes.0[id] {
                Some(h) if !touched.has(id) => h.clone(),
                _ => self.prefix(&s.nodes[id], id),
            };
            self.signature_after(h, s, id, &erased, &prefixes.1)
        };
        let mut perm = Perm::new();
        if self.untied(s, sign, &mut perm, t) {
            if !moves(&perm) {
                return false;
            }
            self.rename_state_into(s, &perm, t);
            return true;
        }
        match self.representative(s) {
            (Some(c), perm) if moves(&perm) => {
                *t = c;
                true
            }
            _ => false,
        }
    }

    /// [`World::canonical`] without taking the state: `None` where `s` is
    /// its own representative (the search then neither copies nor hashes it
    /// again).
    pub fn representative(&self, s: &WorldState<A>) -> (Option<WorldState<A>>, Renaming) {
        let n = s.nodes.len();
        let identity: Renaming = (0..n).collect();
        if self.symmetry.is_empty() {
            return (None, identity);
        }
        let erased = self.erased_messages(s);
        let ends = self.ends(n);
        let mut scratch = WorldState::default();
        // The signatures alone fix the order (nearly always). A successor
        // mostly keeps its parent's order, and renaming by the identity
        // changes nothing (every stored state is the identity's image
        // already, and `after` keeps the network and the cut lists in
        // their order), so the state is kept as it is instead of copied.
        let mut perm = Perm::new();
        if self.untied(s, |id| self.signature(s, id, &erased, &ends), &mut perm, &mut scratch) {
            if !moves(&perm) {
                debug_assert!(
                    self.rename_state(s, &perm) == *s,
                    "renaming by the identity changes nothing"
                );
                return (None, perm.to_vec());
            }
            return (Some(self.rename_state(s, &perm)), perm.to_vec());
        }
        // Each group's members in signature order, with runs of ties.
        let mut orders: Vec<Vec<Vec<Id>>> = Vec::new();
        for group in &self.symmetry {
            let mut keyed: SmallVec<[(u64, Id); 8]> = group
                .iter()
                .map(|&id| (self.signature(s, id, &erased, &ends), id))
                .collect();
            keyed.sort_unstable();
            let mut runs: Vec<Vec<Id>> = Vec::new();
            let mut last = None;
            for (k, id) in keyed {
                match runs.last_mut() {
                    Some(run) if last == Some(k) => run.push(id),
                    _ => runs.push(vec![id]),
                }
                last = Some(k);
            }
            orders.push(runs);
        }
        // Tied members that the state cannot tell apart give the same
        // state in every order ([`World::untied`]): only their first
        // order is tried, as singleton runs, and that is the order of the
        // first candidate the full enumeration would find with the least
        // fingerprint.
        for runs in &mut orders {
            let mut split = Vec::with_capacity(runs.len());
            for run in runs.drain(..) {
                if run.len() > 1 && self.interchangeable(s, &run, &mut scratch) {
                    split.extend(run.into_iter().map(|id| vec![id]));
                } else {
                    split.push(run);
                }
            }
            *runs = split;
        }
        let renaming = |order: &[Vec<Id>]| {
            let mut perm = identity.clone();
            for (group, members) in self.symmetry.iter().zip(order) {
                let mut slots = group.clone();
                slots.sort_unstable();
                for (slot, &old) in slots.iter().zip(members) {
                    perm[old] = *slot;
                }
            }
            perm
        };
        let mut best: Option<(u64, WorldState<A>, Renaming)> = None;
        let mut candidate = |order: &[Vec<Id>]| {
            let perm = renaming(order);
            let t = self.rename_state(s, &perm);
            let fp = fingerprint(&t);
            if best.as_ref().is_none_or(|(b, _, _)| fp < *b) {
                best = Some((fp, t, perm));
            }
        };
        for_each_order(&orders, &mut Vec::new(), &mut candidate);
        match best {
            Some((_, t, perm)) => (Some(t), perm),
            None => (None, identity),
        }
    }
}

/// Whether a renaming moves any node.
fn moves(perm: &[Id]) -> bool {
    perm.iter().enumerate().any(|(i, &p)| i != p)
}

/// Calls `f` with every way to order each group: its runs in sequence,
/// each run in every order of its members.
fn for_each_order(groups: &[Vec<Vec<Id>>], done: &mut Vec<Vec<Id>>, f: &mut impl FnMut(&[Vec<Id>])) {
    let Some((runs, rest)) = groups.split_first() else {
        f(done);
        return;
    };
    let mut orders: Vec<Vec<Id>> = vec![Vec::new()];
    for run in runs {
        let mut next = Vec::new();
        for prefix in &orders {
            for p in permutations(run) {
                let mut o = prefix.clone();
                o.extend(p);
                next.push(o);
            }
        }
        orders = next;
    }
    for o in orders {
        done.push(o);
        for_each_order(rest, done, f);
        done.pop();
    }
}

fn permutations(items: &[Id]) -> Vec<Vec<Id>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};

    use super::moves;
    use crate::algorithms::{dispatch, Job};
    use crate::properties::Lock;
    use crate::scenario::{bundled_names, Scenario};
    use crate::world::{identity, Prefixes, World};

    /// Walks a scenario's first representatives breadth first and checks,
    /// for every successor, that the search's representative (written
    /// into a buffer that held the last one, with the signatures of the
    /// nodes its action left untouched continued from their parent's) is
    /// the general one: the same state, and renamed exactly where a
    /// renaming other than the identity gives it.
    struct Into;

    impl Job for Into {
        type Output = (usize, usize);
        fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> (usize, usize) {
            let init = world.canonical(world.init()).0;
            let mut seen = HashSet::from([identity(&init)]);
            let mut queue = VecDeque::from([init]);
            let (mut actions, mut buffer, mut prefixes) = (Vec::new(), Default::default(), Prefixes::default());
            let mut t = world.init();
            let (mut checked, mut renamed) = (0, 0);
            while let Some(s) = queue.pop_front() {
                if seen.len() > 2000 {
                    break;
                }
                actions.clear();
                world.enabled(&s, &mut actions);
                prefixes.clear();
                for a in &actions {
                    let Some(touched) = world.taken_into(&s, a, &mut t) else {
                        continue;
                    };
                    if t == s {
                        continue;
                    }
                    let (general, perm) = world.representative(&t);
                    let moved = moves(&perm);
                    let into = world.representative_into(&t, (&s, touched, &mut prefixes), &mut buffer);
                    assert_eq!(
                        into,
                        moved && general.is_some(),
                        "{}: {a:?} from {s:?}",
                        sc.path.display()
                    );
                    let c = general.unwrap_or_else(|| t.clone());
                    if into {
                        assert_eq!(buffer, c, "{}: {a:?} from {s:?}", sc.path.display());
                        renamed += 1;
                    } else {
                        assert_eq!(t, c, "{}: {a:?} from {s:?}", sc.path.display());
                    }
                    checked += 1;
                    if seen.insert(identity(&c)) {
                        queue.push_back(c);
                    }
                }
            }
            (checked, renamed)
        }
    }

    #[test]
    fn the_searchs_representative_is_the_general_one() {
        let mut renamed = 0;
        for name in bundled_names() {
            let sc = crate::catalog::open(name).expect("bundled");
            let (checked, r) = dispatch(&sc, Into).expect("builds");
            assert!(checked > 0, "{name}: no successor");
            renamed += r;
        }
        assert!(renamed > 1000, "few successors were renamed: {renamed}");
    }
}
