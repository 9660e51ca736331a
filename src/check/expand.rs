//! Expanding states: each state's successors with everything the merge
//! needs (fingerprints, action classes, the lock view and failed safety
//! properties of a state that may be new), computed in batches spread over
//! the threads. Expansion is pure; only the merge (search.rs) numbers states.

use super::frontier::encode;
use super::graph::{fingerprint, Facts};
use super::seen::Seen;
use super::{facts, random, strongly_fair};
use crate::properties::{safe, Lock, Prop};
use crate::world::{Action, World, WorldState};

/// A successor as a worker computed it: everything the merge needs, and
/// the state itself only when it may be new.
pub(super) struct Succ {
    /// The action's position in the source state's enabled list.
    pub(super) ordinal: u16,
    pub(super) kind: Option<&'static str>,
    /// The action's fingerprint, or `None` for a fault.
    pub(super) class: Option<u64>,
    /// Whether the action's class is strongly fair (a tick).
    pub(super) strong: bool,
    /// Whether the action is one outcome of a random choice.
    pub(super) random: bool,
    /// The fingerprint of the state under its own names.
    pub(super) raw: u64,
    /// The canonical state's fingerprint (equal to `raw` without symmetry).
    pub(super) fp: u64,
    /// The canonical state, encoded for the queue, its lock view and its
    /// failed safety properties (bit `i` for `safety[i]`), when the worker
    /// did not find it among the states known before the batch.
    pub(super) fresh: Option<(Vec<u8>, Facts, u64)>,
}

/// States popped and expanded together. Expansion (successors, renumbering,
/// canonicalisation, fingerprints, lock views) is pure, so a batch spreads
/// over the threads; the merge then numbers states in exactly the order a
/// single thread does.
pub(super) const BATCH: usize = 2048;

/// The read-only part of the search the workers share.
pub(super) struct Expand<'a, A: Lock> {
    pub(super) world: &'a World<A>,
    pub(super) seen: &'a Seen,
    pub(super) raw_seen: &'a Seen,
    pub(super) symmetric: bool,
    pub(super) safety: &'a [Prop],
}

impl<A: Lock> Expand<'_, A> {
    /// The successors of `s`, computed in `scratch` (a state kept from one
    /// successor to the next, `World::after_into`) and cloned out only
    /// when they may be new.
    fn state(
        &self,
        s: &WorldState<A>,
        actions: &mut Vec<Action<A>>,
        scratch: &mut Option<WorldState<A>>,
        out: &mut Vec<Succ>,
    ) {
        let world = self.world;
        actions.clear();
        world.enabled(s, actions);
        out.reserve_exact(actions.len());
        let scratch = scratch.get_or_insert_with(|| s.clone());
        for (k, a) in actions.drain(..).enumerate() {
            if !world.after_into(s, &a, scratch) {
                continue;
            }
            let class = (!world.is_fault(&a)).then(|| fingerprint(&a));
            let strong = strongly_fair(&a);
            let random = random(world, &a);
            let raw = fingerprint(&*scratch);
            // Under symmetry, a state met before under its own names needs
            // no second canonicalisation: most successors are repeats.
            let (fp, fresh) = if self.symmetric && self.raw_seen.contains_key(&raw) {
                (0, None)
            } else if self.symmetric {
                // A state that is its own representative keeps its
                // fingerprint and is encoded from the buffer: it is
                // neither copied nor hashed twice.
                let (fp, t) = match world.representative(scratch) {
                    (Some(t), perm) if perm.iter().enumerate().any(|(i, &p)| i != p) => (fingerprint(&t), Some(t)),
                    (t, _) => (raw, t),
                };
                let t = t.as_ref().unwrap_or(scratch);
                (fp, (!self.seen.contains_key(&fp)).then(|| self.fresh(t)))
            } else {
                (raw, (!self.seen.contains_key(&raw)).then(|| self.fresh(scratch)))
            };
            out.push(Succ {
                ordinal: k as u16,
                kind: a.event_kind(),
                class,
                strong,
                random,
                raw,
                fp,
                fresh,
            });
        }
    }

    /// A state that may be new: encoded for the queue, with its lock view
    /// and its failed safety properties.
    fn fresh(&self, t: &WorldState<A>) -> (Vec<u8>, Facts, u64) {
        let facts = facts(self.world, t, 0);
        let bad = self
            .safety
            .iter()
            .enumerate()
            .filter(|(_, &p)| !safe(p, self.world, t))
            .fold(0u64, |m, (i, _)| m | 1 << i);
        (encode(t), facts, bad)
    }

    /// Every state's successors, in order, on up to `threads` threads.
    pub(super) fn batch(&self, states: &[(WorldState<A>, u32)], threads: usize) -> Vec<Vec<Succ>> {
        let part = |chunk: &[(WorldState<A>, u32)]| -> Vec<Vec<Succ>> {
            let mut actions = Vec::new();
            let mut scratch = None;
            chunk
                .iter()
                .map(|(s, _)| {
                    let mut out = Vec::new();
                    self.state(s, &mut actions, &mut scratch, &mut out);
                    out
                })
                .collect()
        };
        if threads <= 1 || states.len() < 2 {
            return part(states);
        }
        let size = states.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = states.chunks(size).map(|c| scope.spawn(move || part(c))).collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }
}
