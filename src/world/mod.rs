//! The simulated environment (docs/design.md section 2). It knows nothing about
//! locks: discrete relative time, per-node clocks, the network, crashes,
//! restarts, pauses, partitions and the fault budget, and the
//! `stateright::Model` whose actions are the environment's and the nodes'
//! steps.

mod action;
mod actor;
mod connections;
mod deadlines;
mod describe;
mod enabled;
mod faults;
mod identity;
pub mod pack;
mod ranks;
mod renumber;
mod rewrite;
mod state;
mod symmetry;
mod tla;

pub use action::{Action, EVENT_KINDS};
use actor::Cmds;
pub use actor::{Actor, Cmd, Ctx, Id, Out};
pub use describe::Describe;
pub use faults::{Faults, Recovery, Role, Targets};
pub use identity::{identity, identity_after, node_hashes, NodeHashes, Touched, NAMING};
pub use pack::Pack;
pub use renumber::{Renumber, Seq};
pub use rewrite::{kind, Field, Rewrite};
pub use state::{Broken, Clocks, Envelope, Node, Plain, Spent, Status, WorldState};
pub use symmetry::{Prefixes, Renaming};
pub use tla::{all_links, fault_vars, FlagNames, Tla, TlaMapping};

/// What the world runs on a node: its behaviour ([`Actor`]), its words
/// ([`Describe`], for traces and the explorer) and the renumbering of its
/// state ([`Renumber`], for symmetry and growing values). Implemented for
/// every type that has the three.
pub trait Program: Actor + Describe + Renumber {}

impl<A: Actor + Describe + Renumber> Program for A {}

use std::hash::{BuildHasher, Hash};

use smallvec::SmallVec;
use stateright::{Model, Property};

/// A 64-bit fingerprint, the same on every machine and every run: states
/// are identified by it (as TLC and stateright do), and symmetry reduction
/// picks the representative with the smallest. foldhash's quality hasher
/// with a fixed seed: fast, and plain integer arithmetic on any target.
pub fn fingerprint<T: Hash>(value: &T) -> u64 {
    FINGERPRINT.hash_one(value)
}

/// [`fingerprint`]'s hasher, for a value written in parts: writing a
/// tuple's elements one after another into it gives the tuple's
/// fingerprint.
const FINGERPRINT: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(0x6c6f_636b_736d_6974);

/// A world of actors under a fault budget.
#[derive(Clone)]
pub struct World<A: Program> {
    /// One program per node.
    pub actors: Vec<A>,
    /// Node names as traces print them ("s1", "c2", "r").
    pub names: Vec<String>,
    /// Which faults may hit each node.
    pub roles: Vec<Role>,
    pub faults: Faults,
    /// The properties stateright's checkers and explorer evaluate.
    pub properties: Vec<Property<World<A>>>,
    /// Groups of interchangeable nodes (same program), for symmetry
    /// reduction; empty when it is off.
    pub symmetry: Vec<Vec<Id>>,
}

impl<A: Program> World<A> {
    /// The initial state: every node runs `init` at the same instant.
    pub fn init(&self) -> WorldState<A> {
        let mut s = WorldState {
            nodes: Vec::with_capacity(self.actors.len()),
            ..WorldState::default()
        };
        let mut pending = Vec::new();
        for (id, actor) in self.actors.iter().enumerate() {
            let mut out = Out::new(s.ghost, s.value);
            let ctx = Ctx {
                id,
                timers: &[],
                watches: &[],
                age: 0,
            };
            let state = actor.init(&ctx, &mut out);
            s.ghost = out.ghost;
            s.value = out.value;
            s.history |= out.raised;
            s.nodes.push(Node {
                status: Status::Up,
                state,
                timers: Clocks::new(),
                watches: Clocks::new(),
                skew: 0,
                waited: 0,
            });
            pending.push((id, out.cmds));
        }
        for (id, cmds) in pending {
            self.apply(&mut s, id, cmds);
        }
        self.renumber(&mut s);
        s
    }

    fn targeted(&self, id: Id) -> bool {
        self.faults.targets.hits(self.roles[id])
    }

    fn node_steps(&self, s: &WorldState<A>, id: Id) -> Vec<A::Step> {
        let mut steps = Vec::new();
        self.node_steps_into(s, id, &mut steps);
        steps
    }

    /// Node `id`'s enabled steps (none where it is not running), added to
    /// `steps`.
    fn node_steps_into(&self, s: &WorldState<A>, id: Id, steps: &mut Vec<A::Step>) {
        let n = &s.nodes[id];
        if n.is_up() {
            let ctx = Ctx {
                id,
                timers: &n.timers,
                watches: &n.watches,
                age: 0,
            };
            self.actors[id].steps(&ctx, &n.state, steps);
        }
    }

    /// Messages the network may deliver now: each link's oldest message, or
    /// every distinct message when the scenario allows reordering (of
    /// identical copies, [`World::find`] takes the oldest).
    fn deliverable(&self, s: &WorldState<A>) -> SmallVec<[usize; 16]> {
        // Inline: a network holds a few messages, and a list on the heap
        // was an allocation and a free for every state expanded.
        let mut out = SmallVec::new();
        for (i, e) in s.net.iter().enumerate() {
            let head = i == 0 || (s.net[i - 1].src, s.net[i - 1].dst) != (e.src, e.dst);
            if head
                || (self.faults.reorder
                    && self.connection(e.src, e.dst).is_none()
                    && !s.net[..i]
                        .iter()
                        .any(|o| (o.src, o.dst, &o.msg) == (e.src, e.dst, &e.msg)))
            {
                out.push(i);
            }
        }
        out
    }

    /// Whether time is blocked, and whether a step with a deadline is
    /// waiting on it. Time cannot pass a due timer or an enabled urgent
    /// step of a running node (a step with a deadline is urgent once it has
    /// waited that long: [`Actor::within`]), nor a message to a running
    /// node that has been in flight `max_delay`, nor a broken connection
    /// its running client has yet to notice or can re-open. `steps`: the
    /// nodes' steps enabled in `s`, as [`World::enabled`] lists them
    /// (asking each node for its steps once a state, not twice, was a
    /// fiftieth of a search's instructions).
    fn clock(&self, s: &WorldState<A>, steps: &[Action<A>]) -> Clock {
        // Once time is blocked nothing else matters: stop looking.
        let blocked = Clock {
            blocked: true,
            waiting: false,
        };
        if !s.broken.is_empty() {
            let mut steps = Vec::new();
            self.connection_steps(s, &mut steps);
            if !steps.is_empty() {
                return blocked;
            }
        }
        if s.nodes
            .iter()
            .any(|n| n.is_up() && n.timers.iter().any(|(_, v)| *v == 0))
        {
            return blocked;
        }
        let mut waiting = false;
        for a in steps {
            let Action::Step { node: id, step: st } = *a else {
                continue;
            };
            match self.actors[id].within(st) {
                Some(d) if s.nodes[id].waited < d => waiting = true,
                Some(_) => return blocked,
                None if self.actors[id].urgent(st) => return blocked,
                None => {}
            }
        }
        if let Some(d) = self.faults.max_delay {
            if s.net.iter().any(|e| e.age >= d && s.nodes[e.dst].is_up()) {
                return blocked;
            }
        }
        Clock {
            blocked: false,
            waiting,
        }
    }

    /// Whether a tick would change anything: a world with nothing timed
    /// never enables `Tick` (docs/design.md section 2).
    fn time_matters(&self, s: &WorldState<A>, clock: Clock) -> bool {
        let clocks = s.nodes.iter().enumerate().any(|(id, n)| {
            matches!(n.status, Status::Paused(_))
                || n.timers.iter().any(|(_, v)| *v > 0)
                || n.watches.iter().any(|(w, v)| *v < self.watch_cap(s, id, *w))
        });
        let ageing = self.faults.max_delay.is_some_and(|d| s.net.iter().any(|e| e.age < d));
        clocks || ageing || clock.waiting
    }

    /// Where a stopwatch saturates in `s`. Saturation is sound only for a
    /// clock that never goes back, so while clock jumps remain in the
    /// budget the cap sits above the actor's by every tick they could still
    /// take back; each jump spent lowers it again.
    fn watch_cap(&self, s: &WorldState<A>, id: Id, w: A::Watch) -> u8 {
        let f = &self.faults;
        let reserve = f
            .clock_jumps
            .saturating_sub(s.spent.clock_jumps)
            .saturating_mul(f.max_jump);
        self.actors[id].watch_cap(w).saturating_add(reserve)
    }

    /// Moves node `id`'s clock by `by` local ticks (negative: back). A
    /// `jump` (a step of the wall clock) leaves the timers the actor
    /// counts on its monotonic clock where they are ([`Actor::monotonic`]).
    /// Whether any of the node's timers or stopwatches moved.
    fn advance_clock(&self, s: &mut WorldState<A>, id: Id, by: i16, jump: bool) -> bool {
        let actor = &self.actors[id];
        let mut moved = false;
        for (t, v) in s.nodes[id].timers.iter_mut() {
            if !(jump && actor.monotonic(*t)) {
                let was = *v;
                *v = (*v as i16 - by).clamp(0, u8::MAX as i16) as u8;
                moved |= *v != was;
            }
        }
        // By index: a stopwatch's cap reads the state.
        for i in 0..s.nodes[id].watches.len() {
            let (w, was) = s.nodes[id].watches[i];
            let cap = self.watch_cap(s, id, w) as i16;
            let v = (was as i16 + by).clamp(0, cap) as u8;
            s.nodes[id].watches[i].1 = v;
            moved |= v != was;
        }
        moved
    }

    /// One tick of real time, in which the `fast` nodes' clocks move by 2
    /// and the `slow` nodes' stand still (docs/design.md §2). The nodes it
    /// changed: a node with no clock running, no pause to count down and no
    /// drift is as it was, and its hash need not be computed again.
    fn tick(&self, s: &mut WorldState<A>, fast: &[Id], slow: &[Id]) -> Touched {
        let mut touched = Touched::NONE;
        for id in 0..s.nodes.len() {
            let rate = 1 + i8::from(fast.contains(&id)) - i8::from(slow.contains(&id));
            let waited = s.nodes[id].waited;
            self.count_waited(s, id, rate as u8);
            let mut changed = rate != 1 || s.nodes[id].waited != waited;
            if rate > 0 {
                changed |= self.advance_clock(s, id, rate as i16, false);
            }
            let n = &mut s.nodes[id];
            n.skew += rate - 1;
            if let Status::Paused(k) = n.status {
                n.status = if k <= 1 { Status::Up } else { Status::Paused(k - 1) };
                changed = true;
            }
            if changed {
                touched = touched.union(Touched::node(id));
            }
        }
        if let Some(d) = self.faults.max_delay {
            for e in s.net.iter_mut() {
                e.age = (e.age + 1).min(d);
            }
        }
        touched
    }

    /// Runs a handler of node `id` and applies the commands it wrote.
    /// `age`: how long the message being delivered was in flight (0 for
    /// a step or a timer).
    fn handle<F>(&self, s: &mut WorldState<A>, id: Id, age: u8, f: F)
    where
        F: FnOnce(&A, &Ctx<'_, A>, &mut A::State, &mut Out<A>),
    {
        let mut out = Out::new(s.ghost, s.value);
        let n = &mut s.nodes[id];
        let ctx = Ctx {
            id,
            timers: &n.timers,
            watches: &n.watches,
            age,
        };
        f(&self.actors[id], &ctx, &mut n.state, &mut out);
        // A broken connection the node no longer holds (a replica that was
        // promoted) is gone with it: what it sends now goes on others.
        if !s.broken.is_empty() {
            let (actor, state) = (&self.actors[id], &s.nodes[id].state);
            s.broken
                .retain(|c| c.node != id || actor.holds_connection(state, c.peer));
        }
        s.ghost = out.ghost;
        s.value = out.value;
        s.history |= out.raised;
        self.apply(s, id, out.cmds);
        self.settle_deadline(s, id);
    }

    fn apply(&self, s: &mut WorldState<A>, id: Id, cmds: Cmds<A>) {
        let mut sent = false;
        for cmd in cmds {
            match cmd {
                Cmd::Send(dst, msg) => {
                    if !s.nodes[dst].is_down() && !s.drops(id, dst) {
                        s.net.push(Envelope {
                            src: id,
                            dst,
                            msg,
                            age: 0,
                            copied: false,
                        });
                        sent = true;
                    }
                }
                Cmd::SetTimer(t, v) => {
                    let timers = &mut s.nodes[id].timers;
                    match timers.binary_search_by(|(x, _)| x.cmp(&t)) {
                        Ok(i) => timers[i].1 = v,
                        Err(i) => timers.insert(i, (t, v)),
                    }
                }
                Cmd::CancelTimer(t) => s.nodes[id].timers.retain(|(x, _)| *x != t),
                Cmd::StartWatch(w) => {
                    let watches = &mut s.nodes[id].watches;
                    match watches.binary_search_by(|(x, _)| x.cmp(&w)) {
                        Ok(i) => watches[i].1 = 0,
                        Err(i) => watches.insert(i, (w, 0)),
                    }
                }
                Cmd::StopWatch(w) => s.nodes[id].watches.retain(|(x, _)| *x != w),
            }
        }
        if sent {
            self.normalise_net(s);
        }
    }

    /// Keeps the network in its canonical order: grouped by link, send
    /// order within a link (a stable sort keeps it), or fully sorted when
    /// order within a link carries no meaning (with `reorder`, except on a
    /// connection, which is FIFO).
    fn normalise_net(&self, s: &mut WorldState<A>) {
        self.normalise(&mut s.net);
    }

    /// [`World::normalise_net`] on a bare network.
    pub(crate) fn normalise(&self, net: &mut [Envelope<A::Msg>]) {
        if self.faults.reorder {
            net.sort_by(|x, y| {
                (x.src, x.dst).cmp(&(y.src, y.dst)).then_with(|| {
                    if self.connection(x.src, x.dst).is_some() {
                        std::cmp::Ordering::Equal
                    } else {
                        x.cmp(y)
                    }
                })
            });
        } else {
            net.sort_by_key(|e| (e.src, e.dst));
        }
    }

    /// Index of the message an action names: the oldest matching copy
    /// (the first of the oldest), so that a duplicate or a repeated
    /// message can still arrive late. With `fresh`, only a copy not yet
    /// duplicated.
    fn find(&self, s: &WorldState<A>, src: Id, dst: Id, msg: &A::Msg, fresh: bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, e) in s.net.iter().enumerate() {
            let matches = e.src == src && e.dst == dst && &e.msg == msg && !(fresh && e.copied);
            if matches && best.is_none_or(|b| e.age > s.net[b].age) {
                best = Some(i);
            }
        }
        best
    }

    /// Whether the network's faults (loss, duplication) may touch the link:
    /// the protected resource is an observer, and its links are reliable.
    fn faultable(&self, src: Id, dst: Id) -> bool {
        self.roles[src] != Role::Observer && self.roles[dst] != Role::Observer
    }

    /// Whether `action` is the adversary's choice: a fault, or with
    /// `recovery = "none"` a restart or heal, which then need not happen.
    /// Such actions are never weakly fair.
    pub fn is_fault(&self, action: &Action<A>) -> bool {
        action.is_fault()
            || (self.faults.recovery == Recovery::None && matches!(action, Action::Restart { .. } | Action::Heal))
    }

    /// The state after `action`, which must be enabled; `None` when it
    /// changes nothing (a tick in a world with nothing timed).
    pub fn after(&self, s: &WorldState<A>, action: &Action<A>) -> Option<WorldState<A>> {
        let mut t = s.clone();
        self.ranked(s, action, &mut t).then_some(t)
    }

    /// [`World::after`] into `t`, a state kept from one successor to the
    /// next, so that its lists are reused rather than allocated: the
    /// search computes most successors only to find them known already.
    /// The nodes the action may have changed where it was taken (`None`
    /// where not), `t` being then its result renumbered; unlike
    /// [`World::after`], `t` may be `s` itself (an action that changes
    /// nothing): the search, which knows `s`'s fingerprint, compares
    /// fingerprints instead of whole states (that comparison was a
    /// twentieth of its time). `t` is spoilt where it gives `None`.
    ///
    /// `s` must be ranked, as every state the world makes is (`init`
    /// renumbers, and so does every action): time moves clocks, pauses and
    /// ages, never a growing value, so a tick's successor is ranked too
    /// and is not renumbered (a fifth of the successors on the headline).
    pub fn taken_into(&self, s: &WorldState<A>, action: &Action<A>, t: &mut WorldState<A>) -> Option<Touched> {
        t.clone_from(s);
        if matches!(action, Action::Tick | Action::Drift { .. }) {
            return self.take(t, action);
        }
        self.taken(action, t)
    }

    /// Takes `action` in `t` and renumbers it: the nodes it may have
    /// changed where the action was taken (`None` where not).
    fn taken(&self, action: &Action<A>, t: &mut WorldState<A>) -> Option<Touched> {
        let touched = self.take(t, action)?;
        Some(if self.renumber(t) { Touched::ALL } else { touched })
    }

    /// Takes `action` in `t`, a copy of `s`, and renumbers it: whether the
    /// state changed.
    fn ranked(&self, s: &WorldState<A>, action: &Action<A>, t: &mut WorldState<A>) -> bool {
        self.taken(action, t).is_some() && t != s
    }

    /// [`World::after`] before growing values are renumbered: values kept
    /// from `s` keep their numbers and new ones lie above them, so traces
    /// can follow each value through the renumbering (`None` only when the
    /// message an action names is not in flight).
    pub fn after_unranked(&self, s: &WorldState<A>, action: &Action<A>) -> Option<WorldState<A>> {
        let mut t = s.clone();
        self.take(&mut t, action).map(|_| t)
    }

    /// Takes `action` in `t` itself: the nodes it may have changed, or
    /// `None` only when the message the action names is not in flight.
    fn take(&self, t: &mut WorldState<A>, action: &Action<A>) -> Option<Touched> {
        match action {
            Action::Tick => return Some(self.tick(t, &[], &[])),
            Action::Drift { fast, slow } => return Some(self.tick(t, fast, slow)),
            Action::Step { node, step } => {
                let step = *step;
                self.handle(t, *node, 0, |a, ctx, st, out| a.on_step(ctx, st, step, out));
            }
            Action::Fire { node, timer } => {
                let timer = *timer;
                t.nodes[*node].timers.retain(|(x, _)| *x != timer);
                self.handle(t, *node, 0, |a, ctx, st, out| a.on_timer(ctx, st, timer, out));
            }
            Action::Deliver { src, dst, msg } => {
                let i = self.find(t, *src, *dst, msg, false)?;
                let e = t.net.remove(i);
                self.handle(t, *dst, e.age, |a, ctx, st, out| a.on_msg(ctx, st, e.src, e.msg, out));
            }
            Action::Restart { node } => {
                let id = *node;
                let mut out = Out::new(t.ghost, t.value);
                let n = &mut t.nodes[id];
                let ctx = Ctx {
                    id,
                    timers: &n.timers,
                    watches: &n.watches,
                    age: 0,
                };
                let state = self.actors[id].restart(&ctx, &n.state, &mut out);
                n.state = state;
                n.timers.clear();
                n.watches.clear();
                n.status = Status::Up;
                t.ghost = out.ghost;
                t.value = out.value;
                t.history |= out.raised;
                self.apply(t, id, out.cmds);
                self.connect_on_restart(t, id);
            }
            Action::Heal => {
                t.cut.clear();
                t.one_way.clear();
            }
            Action::Disconnected { node, peer } => {
                let peer = *peer;
                let c = t.broken.iter_mut().find(|c| (c.node, c.peer) == (*node, peer))?;
                c.noticed = true;
                self.handle(t, *node, 0, |a, ctx, st, out| a.on_disconnect(ctx, st, peer, out));
            }
            Action::Reconnect { node, peer } => {
                let peer = *peer;
                t.broken.retain(|c| (c.node, c.peer) != (*node, peer));
                self.handle(t, *node, 0, |a, ctx, st, out| a.on_reconnect(ctx, st, peer, out));
            }
            Action::Crash { node } => {
                let id = *node;
                let n = &mut t.nodes[id];
                self.actors[id].crash(&mut n.state, &mut n.timers);
                n.watches.clear();
                n.status = Status::Down;
                n.skew = 0;
                n.waited = 0;
                t.net.retain(|e| e.dst != id);
                t.broken.retain(|c| c.node != id);
                self.close_connections_to(t, id);
                t.spent.crashes += 1;
            }
            Action::Pause { node, ticks } => {
                t.nodes[*node].status = Status::Paused(*ticks);
                t.spent.pauses += 1;
            }
            Action::Partition { a, b } => {
                t.cut.push((*a, *b));
                t.cut.sort();
                t.net
                    .retain(|e| !((e.src, e.dst) == (*a, *b) || (e.src, e.dst) == (*b, *a)));
                self.break_connection(t, *a, *b);
                t.spent.partitions += 1;
            }
            Action::Cut { src, dst } => {
                t.one_way.push((*src, *dst));
                t.one_way.sort();
                t.net.retain(|e| (e.src, e.dst) != (*src, *dst));
                self.break_connection(t, *src, *dst);
                t.spent.partitions += 1;
            }
            Action::Lose { src, dst, msg } => {
                let i = self.find(t, *src, *dst, msg, false)?;
                if !self.break_connection(t, *src, *dst) {
                    t.net.remove(i);
                }
            }
            // The copy is as old as its original and travels right behind
            // it; neither is duplicated again.
            Action::Duplicate { src, dst, msg } => {
                let i = self.find(t, *src, *dst, msg, true)?;
                t.net[i].copied = true;
                let copy = t.net[i].clone();
                t.net.insert(i + 1, copy);
                self.normalise_net(t);
            }
            Action::ClockJump { node, by } => {
                t.spent.clock_jumps += 1;
                self.advance_clock(t, *node, *by as i16, true);
            }
        }
        Some(touches(action))
    }
}

/// The nodes [`World::take`] may change when it takes `action`: the node
/// it names (whose handler runs, or whose status or clock changes), every
/// node for a tick (which `World::tick` narrows down to those it
/// changed), and none for the network's and the links' faults, which
/// change messages, cuts and connections only (breaking a
/// connection changes no node: its end learns of it in a later
/// `Disconnected`). The search's fingerprints rely on it
/// ([`identity`]); `identity::tests` checks it on every bundled scenario.
fn touches<A: Program>(action: &Action<A>) -> Touched {
    match action {
        Action::Tick | Action::Drift { .. } => Touched::ALL,
        Action::Step { node, .. }
        | Action::Fire { node, .. }
        | Action::Restart { node }
        | Action::Disconnected { node, .. }
        | Action::Reconnect { node, .. }
        | Action::Crash { node }
        | Action::Pause { node, .. }
        | Action::ClockJump { node, .. } => Touched::node(*node),
        Action::Deliver { dst, .. } => Touched::node(*dst),
        Action::Heal
        | Action::Partition { .. }
        | Action::Cut { .. }
        | Action::Lose { .. }
        | Action::Duplicate { .. } => Touched::NONE,
    }
}

/// What the clocks allow in a state (see [`World::clock`]).
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    /// Time cannot pass.
    blocked: bool,
    /// A step with a deadline waits, and may wait longer.
    waiting: bool,
}

impl<A: Program> Model for World<A> {
    type State = WorldState<A>;
    type Action = Action<A>;

    fn init_states(&self) -> Vec<Self::State> {
        vec![self.init()]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.enabled(state, actions);
    }

    fn next_state(&self, last: &Self::State, action: Self::Action) -> Option<Self::State> {
        self.after(last, &action)
    }

    fn format_action(&self, action: &Self::Action) -> String {
        self.describe(action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.properties.clone()
    }
}
