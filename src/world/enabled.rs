//! Which actions the world enables in a state, in a fixed order: the
//! nodes' steps, deliveries, timers, time, and the faults the scenario's
//! budget still allows.

use super::*;

impl<A: Program> World<A> {
    fn can_drift(&self, s: &WorldState<A>, id: Id) -> bool {
        self.faults.max_drift > 0 && self.targeted(id) && !s.nodes[id].is_down()
    }

    /// Every action enabled in `s`, in a fixed order.
    pub fn enabled(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>) {
        self.enabled_with(s, actions, &mut Vec::new());
    }

    /// [`World::enabled`], with `steps` (left empty) to list each node's
    /// steps in: the search passes the same list for every state it
    /// expands, where a list of its own was an allocation and a free each
    /// time.
    pub fn enabled_with(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>, steps: &mut Vec<A::Step>) {
        let f = &self.faults;
        let n = s.nodes.len();
        // The steps first, which the clock reads; time's tick goes before
        // them.
        let first = actions.len();
        steps.clear();
        for id in 0..n {
            self.node_steps_into(s, id, steps);
            actions.extend(steps.drain(..).map(|step| Action::Step { node: id, step }));
        }
        let clock = self.clock(s, &actions[first..]);
        let blocked = clock.blocked || !self.time_matters(s, clock);
        if !blocked {
            actions.insert(first, Action::Tick);
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
            if node.is_down() {
                actions.push(Action::Restart { node: id });
            }
        }
        if !s.cut.is_empty() || !s.one_way.is_empty() {
            actions.push(Action::Heal);
        }
        self.connection_steps(s, actions);
        // Faults from here on.
        for id in 0..n {
            if self.targeted(id) && !s.nodes[id].is_down() && s.spent.crashes < f.crashes {
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
            if f.one_way {
                for src in 0..n {
                    for dst in 0..n {
                        let reachable =
                            src != dst && self.roles[src] != Role::Observer && self.roles[dst] != Role::Observer;
                        if reachable && (self.targeted(src) || self.targeted(dst)) && !s.is_cut(src, dst) {
                            actions.push(Action::Cut { src, dst });
                        }
                    }
                }
            }
        }
        if f.loss || f.duplicate {
            let mut seen: Vec<(Id, Id, &A::Msg)> = Vec::new();
            for e in &s.net {
                let key = (e.src, e.dst, &e.msg);
                if seen.contains(&key) || !self.faultable(e.src, e.dst) {
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
                let fresh = s.net.iter().any(|o| (o.src, o.dst, &o.msg) == key && !o.copied);
                if f.duplicate && fresh && self.connection(e.src, e.dst).is_none() {
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
                if self.targeted(id) && !s.nodes[id].is_down() {
                    for by in 1..=f.max_jump as i8 {
                        actions.push(Action::ClockJump { node: id, by });
                        actions.push(Action::ClockJump { node: id, by: -by });
                    }
                }
            }
        }
        if !blocked {
            self.drifts(s, actions);
        }
    }

    /// Every tick in which some drifting nodes' clocks run fast (move 2) or
    /// slow (stand still), each keeping its skew within `max_drift`: any
    /// combination, as the nodes' clocks are independent.
    fn drifts(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>) {
        let max = self.faults.max_drift as i8;
        // Each drifting node's possible rates this tick, besides 1.
        let nodes: Vec<(Id, Vec<i8>)> = (0..s.nodes.len())
            .filter(|&id| self.can_drift(s, id))
            .map(|id| {
                let skew = s.nodes[id].skew;
                let rates = [2, 0].into_iter().filter(|r| (skew + r - 1).abs() <= max).collect();
                (id, rates)
            })
            .collect();
        let mut choice = vec![0usize; nodes.len()];
        loop {
            // Advance the mixed-radix counter: 0 is rate 1, k is rates[k - 1].
            let Some(i) = (0..nodes.len()).find(|&i| choice[i] < nodes[i].1.len()) else {
                return;
            };
            choice[i] += 1;
            choice[..i].iter_mut().for_each(|c| *c = 0);
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            for ((id, rates), &c) in nodes.iter().zip(&choice) {
                match c.checked_sub(1).map(|k| rates[k]) {
                    Some(2) => fast.push(*id),
                    Some(_) => slow.push(*id),
                    None => {}
                }
            }
            actions.push(Action::Drift { fast, slow });
        }
    }

    /// Whether `action` is enabled in `s` (replay checks every step).
    pub fn is_enabled(&self, s: &WorldState<A>, action: &Action<A>) -> bool {
        let mut actions = Vec::new();
        self.enabled(s, &mut actions);
        actions.contains(action)
    }
}
