//! Following a sequence of views with the Rust model: a breadth-first
//! search over pairs (model state, how many views it has shown), in which a
//! step either keeps the view it is at (a step the other side does not
//! see) or shows the next one. The first pair that has shown every view
//! ends a shortest run of the model that shows them all, in order.

use std::collections::{HashSet, VecDeque};

use super::{canon, view};
use crate::check::graph::fingerprint;
use crate::properties::Lock;
use crate::world::{Action, Tla, World, WorldState};

/// A run of the model that shows the views: its actions from the initial
/// state, and its states (one more than the actions).
pub struct Followed<A: Lock> {
    pub actions: Vec<Action<A>>,
    pub states: Vec<WorldState<A>>,
}

/// `views` without a view equal to the one before it (a step that changed
/// nothing the view shows), each in [`canon`]ical form.
pub fn distinct(views: &[Tla]) -> Vec<Tla> {
    let mut out: Vec<Tla> = Vec::new();
    for v in views.iter().map(canon) {
        if out.last() != Some(&v) {
            out.push(v);
        }
    }
    out
}

/// The shortest run of `world` from its initial state that shows `views`
/// in order (consecutive equal views are one), searching at most `limit`
/// pairs; `Err` says how far the search got.
pub fn follow<A: Lock>(world: &World<A>, views: &[Tla], limit: usize) -> Result<Followed<A>, String> {
    let views = distinct(views);
    let init = world.init();
    starts_as(world, &init, &views)?;
    search(world, init, &views, limit, false, &mut |_| true)?
        .ok_or_else(|| "no run of the model shows the trace's views".to_string())
}

/// `Err` unless `s` shows the first of `views`.
fn starts_as<A: Lock>(world: &World<A>, s: &WorldState<A>, views: &[Tla]) -> Result<(), String> {
    let Some(first) = views.first() else {
        return Err("the trace has no state".into());
    };
    let shown = canon(&view(world, s));
    if &shown != first {
        return Err(format!(
            "its first state shows {}, the model's initial state {}",
            super::tla_text(first),
            super::tla_text(&shown)
        ));
    }
    Ok(())
}

/// A lasso of the model that shows `views`, whose loop starts at
/// `views[loop_at]` and returns to it: a stem that shows the views up to
/// `loop_at`, then a loop from the state it ends in, through the loop's
/// views, back to that same state. Each stem end is tried in turn (at most
/// `tries`) until `fair` accepts the lasso (the run, and where its loop
/// starts); `Ok(None)` when none does.
pub fn follow_lasso<A: Lock>(
    world: &World<A>,
    views: &[Tla],
    loop_at: usize,
    limit: usize,
    tries: usize,
    fair: &mut dyn FnMut(&Followed<A>, usize) -> bool,
) -> Result<Option<(Followed<A>, usize)>, String> {
    if loop_at >= views.len() {
        return Err(format!("its loop starts at state {loop_at}, past its last"));
    }
    let stem = distinct(&views[..=loop_at]);
    let mut around: Vec<Tla> = views[loop_at..].to_vec();
    around.push(views[loop_at].clone());
    let around = distinct(&around);
    let init = world.init();
    starts_as(world, &init, &stem)?;
    let mut found = None;
    let mut tried = 0;
    let mut error = None;
    search(world, init, &stem, limit, false, &mut |run: &Followed<A>| {
        if tried >= tries {
            return true;
        }
        tried += 1;
        // A loop that shows one view may be no step at all: the run stuck
        // for ever (TLC's "Stuttering").
        if around.len() == 1 && fair(run, run.actions.len()) {
            found = Some((
                Followed {
                    actions: run.actions.clone(),
                    states: run.states.clone(),
                },
                run.actions.len(),
            ));
            return true;
        }
        let r = run.states[run.states.len() - 1].clone();
        match search(world, r, &around, limit, true, &mut |_| true) {
            Ok(Some(lp)) => {
                let k = run.actions.len();
                let mut whole = Followed {
                    actions: run.actions.clone(),
                    states: run.states.clone(),
                };
                whole.actions.extend(lp.actions);
                whole.states.extend(lp.states.into_iter().skip(1));
                if fair(&whole, k) {
                    found = Some((whole, k));
                    return true;
                }
                false
            }
            Ok(None) => false,
            Err(e) => {
                error = Some(e);
                true
            }
        }
    })?;
    match (found, error) {
        (Some(f), _) => Ok(Some(f)),
        (None, Some(e)) => Err(e),
        (None, None) => Ok(None),
    }
}

/// Breadth-first search over pairs (state, views shown) from `start`, which
/// shows `views[0]`. At each pair that has shown every view, `accept` is
/// asked about the run that reached it; the first run it accepts is
/// returned. With `cycle`, the run must end in `start` itself, after at
/// least one step. `Err` when more than `limit` pairs were needed.
fn search<A: Lock>(
    world: &World<A>,
    start: WorldState<A>,
    views: &[Tla],
    limit: usize,
    cycle: bool,
    accept: &mut dyn FnMut(&Followed<A>) -> bool,
) -> Result<Option<Followed<A>>, String> {
    let last = views.len() - 1;
    let home = fingerprint(&start);
    // Every pair reached: its state, its view index, and where it came from.
    let mut nodes: Vec<Pair<A>> = vec![(start, 0, None)];
    let mut seen: HashSet<(u64, usize)> = HashSet::new();
    seen.insert((home, 0));
    let mut queue = VecDeque::from([0usize]);
    let mut furthest = 0;
    let mut actions = Vec::new();
    if !cycle && last == 0 && accept(&path(&nodes, 0)) {
        return Ok(Some(path(&nodes, 0)));
    }
    while let Some(at) = queue.pop_front() {
        let (s, k) = (nodes[at].0.clone(), nodes[at].1);
        actions.clear();
        world.enabled(&s, &mut actions);
        for a in &actions {
            let Some(t) = world.after(&s, a) else { continue };
            let shown = canon(&view(world, &t));
            let next = if shown == views[k] {
                k
            } else if k < last && shown == views[k + 1] {
                k + 1
            } else {
                continue;
            };
            let f = fingerprint(&t);
            if cycle && next == last && f == home {
                nodes.push((t, next, Some((at, a.clone()))));
                let run = path(&nodes, nodes.len() - 1);
                if accept(&run) {
                    return Ok(Some(run));
                }
                nodes.pop();
                continue;
            }
            if !seen.insert((f, next)) {
                continue;
            }
            furthest = furthest.max(next);
            nodes.push((t, next, Some((at, a.clone()))));
            if !cycle && next == last {
                let run = path(&nodes, nodes.len() - 1);
                if accept(&run) {
                    return Ok(Some(run));
                }
            }
            queue.push_back(nodes.len() - 1);
            if nodes.len() > limit {
                return Err(format!(
                    "no run of the model shows the trace's views within {limit} searched states \
                     (the furthest shows {} of its {} distinct views)",
                    furthest + 1,
                    views.len()
                ));
            }
        }
    }
    if cycle || furthest == last {
        return Ok(None);
    }
    Err(format!(
        "no run of the model shows the trace's views: every run that shows the first {} of its {} distinct views \
         stops there; the next would be {}",
        furthest + 1,
        views.len(),
        super::tla_text(&views[furthest + 1])
    ))
}

type Pair<A> = (WorldState<A>, usize, Option<(usize, Action<A>)>);

fn path<A: Lock>(nodes: &[Pair<A>], mut at: usize) -> Followed<A> {
    let mut actions = Vec::new();
    let mut states = Vec::new();
    loop {
        let (s, _, from) = &nodes[at];
        states.push(s.clone());
        match from {
            Some((prev, a)) => {
                actions.push(a.clone());
                at = *prev;
            }
            None => break,
        }
    }
    actions.reverse();
    states.reverse();
    Followed { actions, states }
}
