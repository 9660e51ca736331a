//! Expanding states: each state's successors with everything the merge
//! needs (fingerprints, action classes, the lock view and failed safety
//! properties of a state that may be new), computed in batches spread over
//! the threads. Expansion is pure; only the merge (search.rs) numbers states.

use super::frontier::{encode, Batch, Queued};
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
    /// The state's number where the worker found it among the states
    /// known before the batch (in the raw seen set under symmetry, else in
    /// the seen set): numbers never change, so the merge need not look it
    /// up again, and most successors are repeats. By the merge, the slots
    /// the worker read have left the cache.
    pub(super) raw_to: Option<u32>,
    /// Under symmetry, the canonical state's number where the worker found
    /// it in the seen set (its raw form being new).
    pub(super) to: Option<u32>,
    /// The canonical state, encoded for the queue, its lock view and its
    /// failed safety properties (bit `i` for `safety[i]`), when the worker
    /// did not find it among the states known before the batch.
    pub(super) fresh: Option<(Vec<u8>, Facts, u64)>,
}

/// The fingerprints of the states a worker kept (encoded, with their facts)
/// in its part of the batch. A state reached again later in the same part
/// is not kept twice: the merge numbers the parts' successors in order, so
/// by the time it meets the repeat the first one is in the seen set. In a
/// breadth-first batch, many states' successors meet (two actions taken in
/// either order), so this spares an encoding for most of them.
type Made = std::collections::HashSet<u64, foldhash::fast::FixedState>;

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
    /// The successors of `s`, computed in `scratch` (states kept from one
    /// state's successors to the next's, `World::after_into`) and cloned
    /// out only when they may be new. All of them are computed and their
    /// seen-set slots prefetched before the first is looked up: in a seen
    /// set larger than the caches each lookup is a miss, and this way the
    /// misses overlap.
    fn state(
        &self,
        s: &WorldState<A>,
        actions: &mut Vec<Action<A>>,
        scratch: &mut Vec<(WorldState<A>, Option<u64>)>,
        made: &mut Made,
        out: &mut Vec<Succ>,
    ) {
        let world = self.world;
        actions.clear();
        world.enabled(s, actions);
        out.reserve_exact(actions.len());
        while scratch.len() < actions.len() {
            scratch.push((s.clone(), None));
        }
        let first_seen = if self.symmetric { self.raw_seen } else { self.seen };
        for (a, (t, raw)) in actions.iter().zip(scratch.iter_mut()) {
            // `None`: the action changes nothing (`t` is then spoilt).
            *raw = world.after_into(s, a, t).then(|| fingerprint(&*t));
            if let Some(raw) = *raw {
                first_seen.prefetch(raw);
            }
        }
        for (k, (a, (t, raw))) in actions.drain(..).zip(scratch.iter_mut()).enumerate() {
            let Some(raw) = *raw else { continue };
            let class = (!world.is_fault(&a)).then(|| fingerprint(&a));
            let strong = strongly_fair(&a);
            let random = random(world, &a);
            // Under symmetry, a state met before under its own names needs
            // no second canonicalisation: most successors are repeats.
            let (fp, raw_to, to, fresh) = if let Some(n) = self.symmetric.then(|| self.raw_seen.get(&raw)).flatten() {
                (0, Some(n), None, None)
            } else if self.symmetric {
                // A state that is its own representative keeps its
                // fingerprint and is encoded from the buffer: it is
                // neither copied nor hashed twice.
                let (fp, c) = match world.representative(t) {
                    (Some(c), perm) if perm.iter().enumerate().any(|(i, &p)| i != p) => (fingerprint(&c), Some(c)),
                    (c, _) => (raw, c),
                };
                let c = c.as_ref().unwrap_or(t);
                let to = self.seen.get(&fp);
                (fp, None, to, (to.is_none() && made.insert(fp)).then(|| self.fresh(c)))
            } else {
                let to = self.seen.get(&raw);
                (raw, to, None, (to.is_none() && made.insert(raw)).then(|| self.fresh(t)))
            };
            out.push(Succ {
                ordinal: k as u16,
                kind: a.event_kind(),
                class,
                strong,
                random,
                raw,
                fp,
                raw_to,
                to,
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
    pub(super) fn batch(&self, batch: &Batch<A>, threads: usize) -> Vec<Vec<Succ>> {
        let part = |chunk: &[(Queued<A>, u32)]| -> Vec<Vec<Succ>> {
            let mut actions = Vec::new();
            let mut scratch = Vec::new();
            let mut made = Made::default();
            let mut decoded = None;
            chunk
                .iter()
                .map(|(item, _)| {
                    let mut out = Vec::new();
                    let s = batch.state_in(item, &mut decoded);
                    self.state(s, &mut actions, &mut scratch, &mut made, &mut out);
                    out
                })
                .collect()
        };
        let items = &batch.items;
        if threads <= 1 || items.len() < 2 {
            return part(items);
        }
        let parts: Vec<_> = items.chunks(items.len().div_ceil(threads)).collect();
        crate::threads::each(parts.len(), |k| part(parts[k]))
            .into_iter()
            .flatten()
            .collect()
    }
}
