//! The simulated environment (DESIGN.md section 2). It knows nothing about
//! locks: discrete relative time, per-node clocks, the network, crashes,
//! restarts, pauses, partitions and the fault budget, and the
//! `stateright::Model` whose actions are the environment's and the nodes'
//! steps.

mod action;
mod actor;
mod describe;
mod faults;
mod state;
mod symmetry;

pub use action::{Action, EVENT_KINDS};
pub use actor::{Actor, Cmd, Ctx, Id, Out};
pub use faults::{Faults, Role, Targets};
pub use state::{Envelope, Node, Spent, Status, WorldState};
pub use symmetry::Renaming;

use std::hash::{BuildHasher, Hash};

use stateright::{Model, Property};

/// A 64-bit fingerprint, the same on every machine and every run: states
/// are identified by it (as TLC and stateright do), and symmetry reduction
/// picks the representative with the smallest. foldhash's quality hasher
/// with a fixed seed: fast, and plain integer arithmetic on any target.
pub fn fingerprint<T: Hash>(value: &T) -> u64 {
    foldhash::quality::FixedState::with_seed(0x6c6f_636b_736d_6974).hash_one(value)
}

/// A world of actors under a fault budget.
#[derive(Clone)]
pub struct World<A: Actor> {
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

impl<A: Actor> World<A> {
    /// The initial state: every node runs `init` at the same instant.
    pub fn init(&self) -> WorldState<A> {
        let mut s = WorldState {
            nodes: Vec::with_capacity(self.actors.len()),
            net: Vec::new(),
            cut: Vec::new(),
            spent: Spent::default(),
            ghost: 0,
            history: 0,
        };
        let mut pending = Vec::new();
        for (id, actor) in self.actors.iter().enumerate() {
            let mut out = Out::new(s.ghost);
            let ctx = Ctx {
                id,
                timers: &[],
                watches: &[],
            };
            let state = actor.init(&ctx, &mut out);
            s.ghost = out.ghost;
            s.history |= out.raised;
            s.nodes.push(Node {
                status: Status::Up,
                state,
                timers: Vec::new(),
                watches: Vec::new(),
                skew: 0,
            });
            pending.push((id, out.cmds));
        }
        for (id, cmds) in pending {
            self.apply(&mut s, id, cmds);
        }
        s
    }

    fn targeted(&self, id: Id) -> bool {
        self.faults.targets.hits(self.roles[id])
    }

    fn node_steps(&self, s: &WorldState<A>, id: Id) -> Vec<A::Step> {
        let n = &s.nodes[id];
        let mut steps = Vec::new();
        if n.is_up() {
            let ctx = Ctx {
                id,
                timers: &n.timers,
                watches: &n.watches,
            };
            self.actors[id].steps(&ctx, &n.state, &mut steps);
        }
        steps
    }

    /// Messages the network may deliver now: each link's oldest message, or
    /// every message when the scenario allows reordering.
    fn deliverable(&self, s: &WorldState<A>) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, e) in s.net.iter().enumerate() {
            let head = i == 0 || (s.net[i - 1].src, s.net[i - 1].dst) != (e.src, e.dst);
            if head
                || (self.faults.reorder
                    && !s.net[..i]
                        .iter()
                        .any(|o| (o.src, o.dst, &o.msg) == (e.src, e.dst, &e.msg)))
            {
                out.push(i);
            }
        }
        out
    }

    /// Time cannot pass a due timer or an enabled step of a running node,
    /// nor a message to a running node that has been in flight `max_delay`.
    fn time_blocked(&self, s: &WorldState<A>) -> bool {
        for (id, n) in s.nodes.iter().enumerate() {
            if n.is_up() && (n.timers.iter().any(|(_, v)| *v == 0) || !self.node_steps(s, id).is_empty()) {
                return true;
            }
        }
        match self.faults.max_delay {
            Some(d) => s.net.iter().any(|e| e.age >= d && s.nodes[e.dst].is_up()),
            None => false,
        }
    }

    /// Whether a tick would change anything: a world with nothing timed
    /// never enables `Tick` (DESIGN.md section 2).
    fn time_matters(&self, s: &WorldState<A>) -> bool {
        let clocks = s.nodes.iter().enumerate().any(|(id, n)| {
            matches!(n.status, Status::Paused(_))
                || n.timers.iter().any(|(_, v)| *v > 0)
                || n.watches.iter().any(|(w, v)| *v < self.actors[id].watch_cap(*w))
        });
        let ageing = self.faults.max_delay.is_some_and(|d| s.net.iter().any(|e| e.age < d));
        clocks || ageing
    }

    /// Moves one node's clock by `by` local ticks (negative: back).
    fn advance_clock(&self, n: &mut Node<A>, id: Id, by: i16) {
        for (_, v) in n.timers.iter_mut() {
            *v = (*v as i16 - by).clamp(0, u8::MAX as i16) as u8;
        }
        for (w, v) in n.watches.iter_mut() {
            let cap = self.actors[id].watch_cap(*w) as i16;
            *v = (*v as i16 + by).clamp(0, cap) as u8;
        }
    }

    /// One tick of real time; `lagging` is a node whose clock stands still.
    fn tick(&self, s: &mut WorldState<A>, lagging: Option<Id>) {
        for id in 0..s.nodes.len() {
            let n = &mut s.nodes[id];
            if Some(id) != lagging {
                self.advance_clock(n, id, 1);
            }
            if let Status::Paused(k) = n.status {
                n.status = if k <= 1 { Status::Up } else { Status::Paused(k - 1) };
            }
        }
        if let Some(d) = self.faults.max_delay {
            for e in s.net.iter_mut() {
                e.age = (e.age + 1).min(d);
            }
        }
    }

    /// Runs a handler of node `id` and applies the commands it wrote.
    fn handle<F>(&self, s: &mut WorldState<A>, id: Id, f: F)
    where
        F: FnOnce(&A, &Ctx<'_, A>, &mut A::State, &mut Out<A>),
    {
        let mut out = Out::new(s.ghost);
        let n = &mut s.nodes[id];
        let ctx = Ctx {
            id,
            timers: &n.timers,
            watches: &n.watches,
        };
        f(&self.actors[id], &ctx, &mut n.state, &mut out);
        s.ghost = out.ghost;
        s.history |= out.raised;
        self.apply(s, id, out.cmds);
    }

    fn apply(&self, s: &mut WorldState<A>, id: Id, cmds: Vec<Cmd<A>>) {
        let mut sent = false;
        for cmd in cmds {
            match cmd {
                Cmd::Send(dst, msg) => {
                    if s.nodes[dst].status != Status::Down && !s.is_cut(id, dst) {
                        s.net.push(Envelope {
                            src: id,
                            dst,
                            msg,
                            age: 0,
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
    /// order within a link carries no meaning.
    fn normalise_net(&self, s: &mut WorldState<A>) {
        if self.faults.reorder {
            s.net.sort();
        } else {
            s.net.sort_by_key(|e| (e.src, e.dst));
        }
    }

    /// Index of the message an action names: the oldest matching copy.
    fn find(&self, s: &WorldState<A>, src: Id, dst: Id, msg: &A::Msg) -> Option<usize> {
        s.net.iter().position(|e| e.src == src && e.dst == dst && &e.msg == msg)
    }

    fn can_drift(&self, s: &WorldState<A>, id: Id) -> bool {
        self.faults.max_drift > 0 && self.targeted(id) && s.nodes[id].status != Status::Down
    }

    /// Every action enabled in `s`, in a fixed order.
    pub fn enabled(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>) {
        let f = &self.faults;
        let n = s.nodes.len();
        let blocked = self.time_blocked(s) || !self.time_matters(s);
        if !blocked {
            actions.push(Action::Tick);
        }
        for id in 0..n {
            for step in self.node_steps(s, id) {
                actions.push(Action::Step { node: id, step });
            }
        }
        for (id, node) in s.nodes.iter().enumerate() {
            if node.is_up() {
                for (timer, v) in &node.timers {
                    if *v == 0 {
                        actions.push(Action::Fire {
                            node: id,
                            timer: *timer,
                        });
                    }
                }
            }
        }
        let deliverable = self.deliverable(s);
        for &i in &deliverable {
            let e = &s.net[i];
            if s.nodes[e.dst].is_up() {
                actions.push(Action::Deliver {
                    src: e.src,
                    dst: e.dst,
                    msg: e.msg.clone(),
                });
            }
        }
        for (id, node) in s.nodes.iter().enumerate() {
            if node.status == Status::Down {
                actions.push(Action::Restart { node: id });
            }
        }
        if !s.cut.is_empty() {
            actions.push(Action::Heal);
        }
        // Faults from here on.
        for id in 0..n {
            if self.targeted(id) && s.nodes[id].status != Status::Down && s.spent.crashes < f.crashes {
                actions.push(Action::Crash { node: id });
            }
        }
        for id in 0..n {
            let node = &s.nodes[id];
            if self.targeted(id) && node.is_up() && s.spent.pauses < f.pauses && self.actors[id].may_pause(&node.state)
            {
                for ticks in f.min_pause..=f.max_pause {
                    actions.push(Action::Pause { node: id, ticks });
                }
            }
        }
        if s.spent.partitions < f.partitions {
            for a in 0..n {
                for b in a + 1..n {
                    let reachable = self.roles[a] != Role::Observer && self.roles[b] != Role::Observer;
                    if reachable && (self.targeted(a) || self.targeted(b)) && !s.is_cut(a, b) {
                        actions.push(Action::Partition { a, b });
                    }
                }
            }
        }
        if f.loss || f.duplicate {
            let mut seen: Vec<(Id, Id, &A::Msg)> = Vec::new();
            for e in &s.net {
                let key = (e.src, e.dst, &e.msg);
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                if f.loss {
                    actions.push(Action::Lose {
                        src: e.src,
                        dst: e.dst,
                        msg: e.msg.clone(),
                    });
                }
                let copies = s.net.iter().filter(|o| (o.src, o.dst, &o.msg) == key).count();
                if f.duplicate && copies == 1 {
                    actions.push(Action::Duplicate {
                        src: e.src,
                        dst: e.dst,
                        msg: e.msg.clone(),
                    });
                }
            }
        }
        if s.spent.clock_jumps < f.clock_jumps {
            for id in 0..n {
                if self.targeted(id) && s.nodes[id].status != Status::Down {
                    for by in 1..=f.max_jump as i8 {
                        actions.push(Action::ClockJump { node: id, by });
                        actions.push(Action::ClockJump { node: id, by: -by });
                    }
                }
            }
        }
        for id in 0..n {
            if self.can_drift(s, id) {
                let skew = s.nodes[id].skew;
                if skew < f.max_drift as i8 {
                    actions.push(Action::ClockFast { node: id });
                }
                if !blocked && skew > -(f.max_drift as i8) {
                    actions.push(Action::ClockSlow { node: id });
                }
            }
        }
    }

    /// Whether `action` is enabled in `s` (replay checks every step).
    pub fn is_enabled(&self, s: &WorldState<A>, action: &Action<A>) -> bool {
        let mut actions = Vec::new();
        self.enabled(s, &mut actions);
        actions.contains(action)
    }

    /// The state after `action`, which must be enabled; `None` when it
    /// changes nothing (a tick in a world with nothing timed).
    pub fn after(&self, s: &WorldState<A>, action: &Action<A>) -> Option<WorldState<A>> {
        let mut t = s.clone();
        match action {
            Action::Tick => self.tick(&mut t, None),
            Action::ClockSlow { node } => {
                self.tick(&mut t, Some(*node));
                t.nodes[*node].skew -= 1;
            }
            Action::ClockFast { node } => {
                let n = &mut t.nodes[*node];
                self.advance_clock(n, *node, 1);
                n.skew += 1;
            }
            Action::Step { node, step } => {
                let step = *step;
                self.handle(&mut t, *node, |a, ctx, st, out| a.on_step(ctx, st, step, out));
            }
            Action::Fire { node, timer } => {
                let timer = *timer;
                t.nodes[*node].timers.retain(|(x, _)| *x != timer);
                self.handle(&mut t, *node, |a, ctx, st, out| a.on_timer(ctx, st, timer, out));
            }
            Action::Deliver { src, dst, msg } => {
                let i = self.find(&t, *src, *dst, msg)?;
                let e = t.net.remove(i);
                self.handle(&mut t, *dst, |a, ctx, st, out| a.on_msg(ctx, st, e.src, e.msg, out));
            }
            Action::Restart { node } => {
                let id = *node;
                let mut out = Out::new(t.ghost);
                let n = &mut t.nodes[id];
                let ctx = Ctx {
                    id,
                    timers: &n.timers,
                    watches: &n.watches,
                };
                let state = self.actors[id].restart(&ctx, &n.state, &mut out);
                n.state = state;
                n.timers.clear();
                n.watches.clear();
                n.status = Status::Up;
                t.ghost = out.ghost;
                t.history |= out.raised;
                self.apply(&mut t, id, out.cmds);
            }
            Action::Heal => t.cut.clear(),
            Action::Crash { node } => {
                let id = *node;
                let n = &mut t.nodes[id];
                self.actors[id].crash(&mut n.state, &mut n.timers);
                n.watches.clear();
                n.status = Status::Down;
                n.skew = 0;
                t.net.retain(|e| e.dst != id);
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
                t.spent.partitions += 1;
            }
            Action::Lose { src, dst, msg } => {
                let i = self.find(&t, *src, *dst, msg)?;
                t.net.remove(i);
            }
            Action::Duplicate { src, dst, msg } => {
                t.net.push(Envelope {
                    src: *src,
                    dst: *dst,
                    msg: msg.clone(),
                    age: 0,
                });
                self.normalise_net(&mut t);
            }
            Action::ClockJump { node, by } => {
                self.advance_clock(&mut t.nodes[*node], *node, *by as i16);
                t.spent.clock_jumps += 1;
            }
        }
        if &t == s {
            None
        } else {
            Some(t)
        }
    }
}

impl<A: Actor> Model for World<A> {
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
