//! The world's state: nodes with their clocks, the network, the cut links
//! and the fault budget spent. No field holds an absolute time, so states
//! repeat and the state space is finite without a horizon (docs/design.md §2).

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::actor::{Actor, Id};
use super::pack::{In, Out, Pack};

/// A node's timers or stopwatches with their readings, sorted by name.
/// Inline up to four (no algorithm sets more at once), so that cloning a
/// state, once per successor, allocates nothing for them; it hashes,
/// compares and prints as the `Vec` it replaces.
pub type Clocks<T> = SmallVec<[(T, u8); 4]>;

/// Whether a node runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Status {
    Up,
    /// Stopped by the world for this many more ticks; its clock runs on.
    Paused(u8),
    /// Crashed; the state kept is what survives for the restart.
    Down,
}

/// One node: its program's state and its clock.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Node<A: Actor> {
    pub status: Status,
    pub state: A::State,
    /// Timers set, with local ticks left, sorted by name.
    pub timers: Clocks<A::Timer>,
    /// Running stopwatches, with local ticks counted, sorted by name.
    pub watches: Clocks<A::Watch>,
    /// Accumulated clock skew against real time, in ticks.
    pub skew: i8,
    /// Local ticks that a step with a deadline ([`Actor::within`]) has
    /// been enabled while time passed: a holder's work so far.
    pub waited: u8,
}

/// Hashes as the node did before deadlines existed while `waited` is 0, so
/// that a scenario without `work` keeps its fingerprints, and with them its
/// symmetry representatives and traces.
impl<A: Actor> std::hash::Hash for Node<A> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.status.hash(h);
        self.state.hash(h);
        self.timers.hash(h);
        self.watches.hash(h);
        self.skew.hash(h);
        if self.waited != 0 {
            self.waited.hash(h);
        }
    }
}

/// Cloned once per node per successor. `clone` copies the timers and
/// stopwatches, whose names are `Copy`, as one block
/// (`SmallVec::from_slice`) instead of cloning them one by one as a
/// derived `Clone` would; `clone_from`, the search's copy into a buffer,
/// copies each list whole where it is inline ([`copy_clocks`]).
impl<A: Actor> Clone for Node<A> {
    fn clone(&self) -> Self {
        Node {
            status: self.status,
            state: self.state.clone(),
            timers: Clocks::from_slice(&self.timers),
            watches: Clocks::from_slice(&self.watches),
            skew: self.skew,
            waited: self.waited,
        }
    }

    /// In place, for the search's successor buffer (`World::taken_into`).
    fn clone_from(&mut self, source: &Self) {
        self.status = source.status;
        self.state.clone_from(&source.state);
        copy_clocks(&mut self.timers, &source.timers);
        copy_clocks(&mut self.watches, &source.watches);
        self.skew = source.skew;
        self.waited = source.waited;
    }
}

/// Copies `from` into `to`. Where neither has spilled to the heap (a
/// node has a few timers and stopwatches), as one word-sized block the
/// compiler copies in registers: element by element, with `SmallVec`'s
/// length and spill checks each time, this was most of a successor's copy
/// (`perf record` on the headline), and a block copy of the items alone
/// went through a call to memmove.
fn copy_clocks<T: Copy>(to: &mut Clocks<T>, from: &Clocks<T>) {
    if !to.spilled() && !from.spilled() {
        // SAFETY: a `SmallVec` holding its items inline owns no memory,
        // and these items are `Copy`: overwriting `to` bitwise drops
        // nothing it would have freed, and the copy shares nothing with
        // `from` that either would free.
        unsafe { std::ptr::copy_nonoverlapping(from, to, 1) }
    } else {
        to.clear();
        to.extend(from.iter().copied());
    }
}

/// Witness that a family's node states and messages are `Copy`
/// ([`Actor::PLAIN`]): only [`Plain::new`] makes one, and only where they
/// are. A node whose clocks are inline then owns no memory, so a state's
/// nodes copy as one block, one `memcpy` (node by node, each program
/// state through its `clone_from`, the copy was a tenth of the headline's
/// instructions), and its messages as another.
pub struct Plain<A: Actor>(std::marker::PhantomData<A>);

impl<A: Actor> Clone for Plain<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Actor> Copy for Plain<A> {}

impl<A: Actor> Plain<A>
where
    A::State: Copy,
    A::Msg: Copy,
{
    pub const fn new() -> Self {
        Plain(std::marker::PhantomData)
    }
}

impl<A: Actor> Default for Plain<A>
where
    A::State: Copy,
    A::Msg: Copy,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Actor> Plain<A> {
    /// `to.clone_from(from)`, as one block where neither has a node whose
    /// clocks spilled to the heap and both have as many nodes (the search's
    /// buffers, after their first state).
    #[inline(always)]
    fn copy_nodes(self, to: &mut Vec<Node<A>>, from: &[Node<A>]) {
        // Checked on both sides each time (a few instructions a node): an
        // action may spill a buffer's list, and a fold without branches
        // took more than `all`.
        let inline = |ns: &[Node<A>]| ns.iter().all(|n| !n.timers.spilled() && !n.watches.spilled());
        if to.len() == from.len() && inline(to) && inline(from) {
            // SAFETY: `Plain` exists only where `A::State` is `Copy`, and
            // every other field of a node is `Copy` or a `SmallVec` of
            // `Copy` items held inline: such a node owns no memory, so
            // overwriting `to`'s bitwise frees nothing it held, and the
            // copies share nothing either would free.
            unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr(), from.len()) }
        } else {
            to.clear();
            to.extend_from_slice(from);
        }
    }

    /// `to.clone_from(from)` for messages, as one block. (`clear` and
    /// `extend_from_slice` of `Copy` envelopes, or `Vec::clone_from`, took
    /// more instructions: `extend`'s own checks, or two copies.)
    #[inline(always)]
    fn copy_net(self, to: &mut Vec<Envelope<A::Msg>>, from: &[Envelope<A::Msg>]) {
        to.clear();
        to.reserve(from.len());
        // SAFETY: `Plain` exists only where `A::Msg` is `Copy`, and an
        // envelope's other fields are `Copy`: `to` has room for
        // `from.len()` (reserved), its old items needed no drop, and the
        // copies own nothing.
        unsafe {
            std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr(), from.len());
            to.set_len(from.len());
        }
    }
}

impl<A: Actor> Node<A> {
    /// By the variant alone: the derived `==` against `Status::Up` read
    /// a pause's ticks too, for every node of every state listed.
    pub fn is_up(&self) -> bool {
        matches!(self.status, Status::Up)
    }

    pub fn is_down(&self) -> bool {
        matches!(self.status, Status::Down)
    }

    pub fn timer(&self, timer: A::Timer) -> Option<u8> {
        self.timers.iter().find(|(t, _)| *t == timer).map(|(_, v)| *v)
    }

    pub fn elapsed(&self, watch: A::Watch) -> Option<u8> {
        self.watches.iter().find(|(w, _)| *w == watch).map(|(_, v)| *v)
    }
}

/// A message in flight.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub struct Envelope<M> {
    pub src: Id,
    pub dst: Id,
    pub msg: M,
    /// Ticks in flight, saturating at the scenario's `max_delay`.
    pub age: u8,
    /// A duplicate, or an original that has been duplicated: the network
    /// duplicates each message at most once.
    pub copied: bool,
}

/// Faults spent so far, against the scenario's budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub struct Spent {
    pub crashes: u8,
    pub pauses: u8,
    pub clock_jumps: u8,
    pub partitions: u8,
}

/// A connection (docs/design.md §2) that a loss or a cut broke: `node` is the
/// end that connects (`Actor::connects_to`) and reconnects, `peer` the
/// other. Until the reconnect, everything sent either way on it is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub struct Broken {
    pub node: Id,
    pub peer: Id,
    /// Whether `node` has learnt of the break (`Action::Disconnected`).
    pub noticed: bool,
}

/// A state of the whole world.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct WorldState<A: Actor> {
    pub nodes: Vec<Node<A>>,
    /// Messages in flight, grouped by link `(src, dst)` in ascending order,
    /// in send order within a link.
    pub net: Vec<Envelope<A::Msg>>,
    /// Cut links `(a, b)` with `a < b`, sorted; cut both ways.
    pub cut: Vec<(Id, Id)>,
    /// Links cut one way `(src, dst)`, sorted: messages from `src` to
    /// `dst` are dropped, the other way still flows.
    pub one_way: Vec<(Id, Id)>,
    /// Broken connections, sorted.
    pub broken: Vec<Broken>,
    pub spent: Spent,
    /// The last ghost number drawn (see `Out::next_ghost`).
    pub ghost: u32,
    /// The last lock value drawn (see `Out::fresh_value`).
    pub value: u32,
    /// Ghost flags raised so far (see `Out::raise`); a crash loses none.
    pub history: u32,
}

/// Hashes as the state did before one-way cuts and connections existed
/// while both are empty, so that a scenario using neither keeps its
/// fingerprints, and with them its symmetry representatives and traces.
impl<A: Actor> std::hash::Hash for WorldState<A> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.nodes.hash(h);
        self.net.hash(h);
        self.cut.hash(h);
        self.spent.hash(h);
        self.ghost.hash(h);
        self.value.hash(h);
        self.history.hash(h);
        if !self.one_way.is_empty() || !self.broken.is_empty() {
            self.one_way.hash(h);
            self.broken.hash(h);
        }
    }
}

/// Cloned whole where a successor is kept; `clone_from` copies into the
/// lists a state already has (the search's successor buffer,
/// `World::taken_into`), which allocates nothing once they are grown.
impl<A: Actor> Clone for WorldState<A> {
    fn clone(&self) -> Self {
        WorldState {
            nodes: self.nodes.clone(),
            net: self.net.clone(),
            cut: self.cut.clone(),
            one_way: self.one_way.clone(),
            broken: self.broken.clone(),
            spent: self.spent,
            ghost: self.ghost,
            value: self.value,
            history: self.history,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match A::PLAIN {
            Some(plain) => {
                plain.copy_nodes(&mut self.nodes, &source.nodes);
                plain.copy_net(&mut self.net, &source.net);
            }
            None => {
                self.nodes.clone_from(&source.nodes);
                self.net.clone_from(&source.net);
            }
        }
        self.cut.clone_from(&source.cut);
        self.one_way.clone_from(&source.one_way);
        self.broken.clone_from(&source.broken);
        self.spent = source.spent;
        self.ghost = source.ghost;
        self.value = source.value;
        self.history = source.history;
    }
}

/// A world of no nodes and nothing in flight: `World::init` starts from
/// it, and the search fills buffers that start as it.
impl<A: Actor> Default for WorldState<A> {
    fn default() -> Self {
        WorldState {
            nodes: Vec::new(),
            net: Vec::new(),
            cut: Vec::new(),
            one_way: Vec::new(),
            broken: Vec::new(),
            spent: Spent::default(),
            ghost: 0,
            value: 0,
            history: 0,
        }
    }
}

impl<A: Actor> WorldState<A> {
    /// Whether the link between `a` and `b` is cut, in either direction.
    pub fn is_cut(&self, a: Id, b: Id) -> bool {
        self.cut.contains(&(a.min(b), a.max(b))) || self.one_way.contains(&(a, b)) || self.one_way.contains(&(b, a))
    }

    /// Whether a message from `src` to `dst` is dropped: the link is cut
    /// that way, or a connection between the two is broken.
    pub fn drops(&self, src: Id, dst: Id) -> bool {
        self.cut.contains(&(src.min(dst), src.max(dst)))
            || self.one_way.contains(&(src, dst))
            || self.broken_between(src, dst)
    }

    /// Whether a connection between `a` and `b` (either end connecting)
    /// is broken.
    pub fn broken_between(&self, a: Id, b: Id) -> bool {
        self.broken
            .iter()
            .any(|c| (c.node, c.peer) == (a, b) || (c.node, c.peer) == (b, a))
    }
}

/// Field by field, in the order serde's derive writes them, so that the
/// bytes are postcard's (pack.rs); by hand because a derive would ask
/// `A` itself, not its associated types, to be `Pack`.
impl<A: Actor> Pack for Node<A> {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        self.status.pack(out);
        self.state.pack(out);
        self.timers.pack(out);
        self.watches.pack(out);
        self.skew.pack(out);
        self.waited.pack(out);
    }

    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        Node {
            status: Pack::unpack(input),
            state: Pack::unpack(input),
            timers: Pack::unpack(input),
            watches: Pack::unpack(input),
            skew: Pack::unpack(input),
            waited: Pack::unpack(input),
        }
    }

    #[inline(always)]
    fn unpack_into(&mut self, input: &mut In<'_>) {
        self.status.unpack_into(input);
        self.state.unpack_into(input);
        self.timers.unpack_into(input);
        self.watches.unpack_into(input);
        self.skew.unpack_into(input);
        self.waited.unpack_into(input);
    }
}

impl<A: Actor> Pack for WorldState<A> {
    fn pack(&self, out: &mut Out<'_>) {
        // A writer of this function's own, which the compiler keeps in
        // registers, as `unpack_into` does with its reader: writing
        // through the caller's cost 1.9% more of a search's instructions
        // (cachegrind, redlock-no-faults --no-symmetry).
        let mut w = out.take();
        let outer = out;
        let out = &mut w;
        self.nodes.pack(out);
        self.net.pack(out);
        self.cut.pack(out);
        self.one_way.pack(out);
        self.broken.pack(out);
        self.spent.pack(out);
        self.ghost.pack(out);
        self.value.pack(out);
        self.history.pack(out);
        *outer = w;
    }

    fn unpack(input: &mut In<'_>) -> Self {
        WorldState {
            nodes: Pack::unpack(input),
            net: Pack::unpack(input),
            cut: Pack::unpack(input),
            one_way: Pack::unpack(input),
            broken: Pack::unpack(input),
            spent: Pack::unpack(input),
            ghost: Pack::unpack(input),
            value: Pack::unpack(input),
            history: Pack::unpack(input),
        }
    }

    fn unpack_into(&mut self, input: &mut In<'_>) {
        // A cursor of this function's own, which the compiler keeps in
        // registers; the caller's is written once, at the end.
        let mut r = *input;
        let outer = input;
        let input = &mut r;
        self.nodes.unpack_into(input);
        self.net.unpack_into(input);
        self.cut.unpack_into(input);
        self.one_way.unpack_into(input);
        self.broken.unpack_into(input);
        self.spent.unpack_into(input);
        self.ghost.unpack_into(input);
        self.value.unpack_into(input);
        self.history.unpack_into(input);
        *outer = r;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::algorithms::{dispatch, Job};
    use crate::properties::Lock;
    use crate::scenario::{bundled_names, Scenario};
    use crate::world::{identity, World};

    /// The first states of `world` breadth first: those found by the time
    /// `limit` are known, in order (the walk of the tests here, in pack.rs
    /// and in ranks.rs).
    pub(in crate::world) fn first_states<A: Lock>(world: &World<A>, limit: usize) -> Vec<WorldState<A>> {
        let init = world.init();
        let mut seen = HashSet::from([identity(&init)]);
        let (mut states, mut actions, mut next) = (vec![init], Vec::new(), 0);
        while next < states.len() && seen.len() <= limit {
            let s = states[next].clone();
            next += 1;
            actions.clear();
            world.enabled(&s, &mut actions);
            for a in &actions {
                if let Some(t) = world.after(&s, a) {
                    if seen.insert(identity(&t)) {
                        states.push(t);
                    }
                }
            }
        }
        states
    }

    /// Copies each of a scenario's first states into the buffer that holds
    /// the state before it (`clone_from`, as the search copies a state into
    /// its successors' buffers): as it is, with a node's lists spilled to
    /// the heap in the buffer, in the source, and into a buffer of no
    /// nodes. The copy must equal its source and be its own. The number of
    /// states walked.
    struct Copies;

    impl Job for Copies {
        type Output = usize;
        fn run<A: Lock>(self, _sc: &Scenario, world: World<A>) -> usize {
            let states = first_states(&world, 2000);
            let mut buffer = world.init();
            let copy = |to: &mut WorldState<A>, from: &WorldState<A>| {
                to.clone_from(from);
                assert_eq!(to, from);
                to.nodes[0].timers.clear();
                to.net.clear();
                assert!(from.nodes[0].timers.is_empty() || to != from, "the copy is its own");
                to.clone_from(from);
            };
            for (i, s) in states.iter().enumerate() {
                let k = i % s.nodes.len();
                copy(&mut buffer, s);
                buffer.nodes[k].timers.grow(8);
                buffer.nodes[k].watches.grow(8);
                copy(&mut buffer, s);
                let mut spilled = s.clone();
                spilled.nodes[k].timers.grow(8);
                copy(&mut buffer, &spilled);
                copy(&mut WorldState::default(), s);
            }
            states.len()
        }
    }

    /// Whether a family's states copy as one block ([`Plain`]) or value by
    /// value, a copy equals its source whatever either held.
    #[test]
    fn every_bundled_scenarios_states_copy_into_a_buffer_whatever_it_held() {
        for name in bundled_names() {
            let sc = crate::catalog::open(name).expect("bundled");
            let states = dispatch(&sc, Copies).expect("builds");
            assert!(states > 1, "{name}: no successor");
        }
    }

    /// Lists of every length around the inline capacity, so that each
    /// pair below meets every case of `copy_clocks`: both inline, either
    /// one spilled, both spilled.
    fn lists() -> Vec<Clocks<u16>> {
        (0..8u16)
            .map(|n| (0..n).map(|i| (100 + i, i as u8)).collect())
            .collect()
    }

    #[test]
    fn a_copy_of_clocks_equals_its_source_whichever_has_spilled() {
        for from in lists() {
            for mut to in lists() {
                let spilled = (to.spilled(), from.spilled());
                copy_clocks(&mut to, &from);
                assert_eq!(to, from, "copying into a list, (to, from) spilled: {spilled:?}");
                // The copy is its own: changing it leaves the source alone.
                to.push((7, 7));
                assert_ne!(to, from);
                assert_eq!(to.len(), from.len() + 1);
            }
        }
    }
}
