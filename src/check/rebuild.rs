//! Rebuilding states from the graph: a state the search no longer holds
//! whole (a checkpoint's queue, or a queue moved to disk) is recomputed
//! along its discoverer's recorded action from the initial state.

use std::collections::{HashMap, HashSet};

use super::graph::Graph;
use crate::world::{identity, Program, World, WorldState};

/// The states numbered `wanted`, each rebuilt along its discoverer's path
/// in `g` from the initial state (each state on the way computed once), in
/// `wanted`'s order. With `fps` (every state's fingerprint), each must
/// have its own, so a record of another model is refused.
pub(super) fn rebuild<A: Program>(
    world: &World<A>,
    g: &Graph,
    wanted: &[u32],
    fps: Option<&[u64]>,
) -> Result<Vec<WorldState<A>>, String> {
    // The paths to the wanted states: every state on one, with its
    // children on one.
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut on_path: HashSet<u32> = HashSet::new();
    for &i in wanted {
        let mut s = i;
        while s != 0 && on_path.insert(s) {
            let parent = g.parent[s as usize].0;
            children.entry(parent).or_default().push(s);
            s = parent;
        }
    }
    let wanted_set: HashSet<u32> = wanted.iter().copied().collect();
    let mut built: HashMap<u32, WorldState<A>> = HashMap::with_capacity(wanted.len());
    let init = world.canonical(world.init()).0;
    if wanted_set.contains(&0) {
        built.insert(0, init.clone());
    }
    let mut stack = vec![(0u32, init)];
    let mut enabled = Vec::new();
    while let Some((s, state)) = stack.pop() {
        for &child in children.get(&s).map_or(&[][..], Vec::as_slice) {
            let ordinal = g.parent[child as usize].1 as usize;
            enabled.clear();
            world.enabled(&state, &mut enabled);
            let action = enabled
                .get(ordinal)
                .ok_or_else(|| format!("state {s} has no action {ordinal}"))?;
            let next = world
                .after(&state, action)
                .ok_or_else(|| format!("action {ordinal} of state {s} changes nothing"))?;
            let next = world.canonical(next).0;
            if fps.is_some_and(|fps| identity(&next) != fps[child as usize]) {
                return Err(format!("state {child} is not the one saved"));
            }
            if children.contains_key(&child) {
                stack.push((child, next.clone()));
            }
            if wanted_set.contains(&child) {
                built.insert(child, next);
            }
        }
    }
    wanted
        .iter()
        .map(|i| built.remove(i).ok_or_else(|| format!("state {i} is unreachable")))
        .collect()
}
