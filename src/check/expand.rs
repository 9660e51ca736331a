//! Expanding states: each state's successors with everything the merge
//! needs (fingerprints, action classes, the lock view and failed safety
//! properties of a state that may be new), computed in batches spread over
//! the threads. Expansion is pure; only the merge (search.rs) numbers states.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::frontier::{Batch, Queued};
use super::graph::fingerprint;
use super::known::Known;
use super::seen::Seen;
use super::successors::{Expanded, Fresh, Spare, Succ, Successors};
use super::{facts_in, random, strongly_fair};
use crate::properties::{holds, view, Lock, Prop};
use crate::world::pack::pack_into;
use crate::world::{identity, identity_after, node_hashes, Action, NodeHashes, Prefixes, Touched, World, WorldState};

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
    /// The states the merge is numbering while the workers expand the
    /// next batch (search.rs): those the last batch's workers kept. The
    /// merge will have numbered them (or left them beyond the depth bound,
    /// where this batch's, no shallower, are too) when it meets them
    /// again, so they are not kept twice.
    pub(super) coming: Option<&'a Kept>,
    /// The lists of chunks merged before, to fill again.
    pub(super) spare: &'a Spare,
}

impl<'a, A: Lock> Expand<'a, A> {
    /// The workers' view of the search: the world and the seen sets.
    pub(super) fn new(
        world: &'a World<A>,
        known: &'a Known,
        symmetric: bool,
        safety: &'a [Prop],
        spare: &'a Spare,
    ) -> Expand<'a, A> {
        Expand {
            world,
            seen: &known.seen,
            raw_seen: &known.raw_seen,
            symmetric,
            safety,
            coming: None,
            spare,
        }
    }

    /// The successors of `s`, computed in `scratch` (states kept from one
    /// state's successors to the next's, `World::taken_into`) and cloned
    /// out only when they may be new. All of them are computed and their
    /// seen-set slots prefetched before the first is looked up: in a seen
    /// set larger than the caches each lookup is a miss, and this way the
    /// misses overlap.
    fn state(
        &self,
        s: &WorldState<A>,
        s_fp: u64,
        buffers: &mut Buffers<A>,
        keeps: &mut impl FnMut(u64) -> bool,
        out: &mut Expanded,
    ) {
        let Buffers {
            actions,
            steps,
            scratch,
            hashes,
            renamed,
            prefixes,
            ..
        } = buffers;
        let world = self.world;
        actions.clear();
        world.enabled_with(s, actions, steps);
        out.succs.reserve(actions.len());
        while scratch.len() < actions.len() {
            scratch.push((s.clone(), None));
        }
        node_hashes(s, hashes);
        prefixes.clear();
        let first_seen = if self.symmetric { self.raw_seen } else { self.seen };
        for (a, (t, raw)) in actions.iter().zip(scratch.iter_mut()) {
            // `None`: the action changes nothing, its successor having the
            // fingerprint of `s` (`t` is then spoilt). Only the nodes the
            // action may have changed are hashed again.
            *raw = world
                .taken_into(s, a, t)
                .map(|touched| (identity_after(hashes, t, touched), touched))
                .filter(|&(raw, _)| raw != s_fp);
            if let Some((raw, _)) = *raw {
                first_seen.prefetch(raw);
            }
        }
        for (k, (a, (t, raw))) in actions.iter().zip(scratch.iter_mut()).enumerate() {
            let Some((raw, touched)) = *raw else { continue };
            let class = (!world.is_fault(a)).then(|| fingerprint(a));
            let strong = strongly_fair(a);
            let random = random(world, a);
            // Under symmetry, a state met before under its own names needs
            // no second canonicalisation: most successors are repeats.
            let (fp, raw_to, to, fresh) = if let Some(n) = self.symmetric.then(|| self.raw_seen.get(&raw)).flatten() {
                (0, Some(n), None, None)
            } else if self.symmetric {
                // A state that is its own representative keeps its
                // fingerprint and is encoded from the buffer: it is
                // neither copied nor hashed twice.
                let (fp, c) = if world.representative_into(t, (s, touched, prefixes), renamed) {
                    (identity(renamed), &*renamed)
                } else {
                    (raw, &*t)
                };
                let to = self.seen.get(&fp);
                (
                    fp,
                    None,
                    to,
                    (to.is_none() && keeps(fp)).then(|| self.fresh(c, &mut out.bytes)),
                )
            } else {
                let to = self.seen.get(&raw);
                (
                    raw,
                    to,
                    None,
                    (to.is_none() && keeps(raw)).then(|| self.fresh(t, &mut out.bytes)),
                )
            };
            out.succs.push(Succ {
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
        out.end_state();
    }

    /// Whether chunk `chunk` keeps a state not in the seen set: one the
    /// merge is numbering is not kept, nor one kept earlier in the batch.
    fn keeps(&self, fp: u64, kept: &Kept, chunk: u32) -> bool {
        !self.coming.is_some_and(|c| c.contains(fp)) && kept.keeps(fp, chunk)
    }

    /// A state that may be new: encoded for the queue at the end of
    /// `bytes`, with its lock view and its failed safety properties.
    fn fresh(&self, t: &WorldState<A>, bytes: &mut Vec<u8>) -> Fresh {
        // One lock view for the facts and the properties: computing it
        // for each was a fiftieth of a search's instructions.
        let v = view(self.world, t);
        let facts = facts_in(&v, 0);
        let bad = self
            .safety
            .iter()
            .enumerate()
            .filter(|(_, &p)| !holds(p, || v, t))
            .fold(0u64, |m, (i, _)| m | 1 << i);
        let start = bytes.len();
        pack_into(t, bytes);
        Fresh {
            start: start as u32,
            end: bytes.len() as u32,
            facts,
            bad,
        }
    }

    /// Every state's successors, in order, on up to `threads` threads, and
    /// the states kept among them (none are listed with one thread: only
    /// the search ahead of the merge reads them).
    pub(super) fn batch(&self, batch: &Batch<A>, threads: usize) -> (Successors, Kept) {
        if threads <= 1 {
            // One thread, the chunks in order (as one, their lists would
            // be a megabyte or two each).
            let kept = Kept::new(batch.items.len());
            let mut buffers = Buffers::default();
            let parts = batch
                .items
                .chunks(CHUNK)
                .map(|chunk| self.states(batch, chunk, &mut buffers, &mut |fp| kept.keeps(fp, 0)))
                .collect();
            return (Successors::of(parts), Kept::new(0));
        }
        let shared = Shared::new(batch);
        crate::threads::each(threads, |_| self.work(&shared));
        shared.into_successors()
    }

    /// Expands chunks of `shared`'s batch until none is left unclaimed.
    pub(super) fn work(&self, shared: &Shared<'_, A>) {
        let mut buffers = Buffers::default();
        let items = &shared.batch.items;
        loop {
            let c = shared.next.fetch_add(1, Ordering::Relaxed);
            let Some(done) = shared.done.get(c) else { return };
            let chunk = &items[c * CHUNK..((c + 1) * CHUNK).min(items.len())];
            let mut keeps = |fp| self.keeps(fp, &shared.kept, c as u32);
            if done
                .set(self.states(shared.batch, chunk, &mut buffers, &mut keeps))
                .is_err()
            {
                unreachable!("a chunk is claimed once");
            }
        }
    }

    /// The successors of each of `items`, states of `batch`.
    fn states(
        &self,
        batch: &Batch<A>,
        items: &[(Queued<A>, u32)],
        buffers: &mut Buffers<A>,
        keeps: &mut impl FnMut(u64) -> bool,
    ) -> Expanded {
        let mut decoded = buffers.decoded.take();
        let mut out = Expanded::spare(self.spare);
        for (item, _) in items {
            let s = batch.state_in(item, &mut decoded);
            self.state(s, item.fp(), buffers, keeps, &mut out);
        }
        buffers.decoded = decoded;
        out
    }
}

/// A successor's identity under its own names, and the nodes its action
/// may have changed (`None` in its place for one that changes nothing).
type Raw = (u64, Touched);

/// What a thread keeps from one state's expansion to the next, so that it
/// allocates nothing once they have grown: the enabled actions and steps, the
/// successor buffer (`World::taken_into`), the node hashes and the
/// signatures' prefixes of the state expanded, a successor's
/// representative and the decoded state.
struct Buffers<A: Lock> {
    actions: Vec<Action<A>>,
    steps: Vec<A::Step>,
    scratch: Vec<(WorldState<A>, Option<Raw>)>,
    hashes: NodeHashes,
    /// The representative of a successor, where it is not its own.
    renamed: WorldState<A>,
    /// The signatures' prefixes of the state expanded.
    prefixes: Prefixes,
    decoded: Option<WorldState<A>>,
}

impl<A: Lock> Default for Buffers<A> {
    fn default() -> Self {
        Buffers {
            actions: Vec::new(),
            steps: Vec::new(),
            scratch: Vec::new(),
            hashes: Default::default(),
            renamed: WorldState::default(),
            prefixes: Prefixes::default(),
            decoded: None,
        }
    }
}

/// States a worker claims at a time: small enough that two threads finish
/// a batch together (a batch's states differ in their successors' cost),
/// large enough that claiming costs nothing beside them.
const CHUNK: usize = 64;

/// A batch whose expansion is shared out in chunks: any number of threads
/// call [`Expand::work`] on it, each claiming the next chunk until none is
/// left, so that none waits on another's share. The merge can thus expand
/// the next batch with the workers once it has merged the last
/// (search.rs).
pub(super) struct Shared<'b, A: Lock> {
    batch: &'b Batch<A>,
    next: AtomicUsize,
    done: Vec<OnceLock<Expanded>>,
    kept: Kept,
}

/// The states kept (encoded, with their facts) in a batch so far, each
/// with the first chunk that kept it. A chunk does not keep a state an
/// earlier chunk kept, or an earlier state of its own: the merge numbers
/// the successors in the batch's order, so by the time it meets the repeat
/// the first one is in the seen set. In a breadth-first batch many states'
/// successors meet (two actions taken in either order), so this spares an
/// encoding for most of them. A later chunk's keeping does not stop an
/// earlier one, which a thread may expand after it: the merge then reads
/// the earlier one's copy and drops the later one's.
///
/// Lock-free, open addressing with linear probing in a table sized for the
/// batch: with mutexes over shards of hash maps, the two threads' locks and
/// maps passed their cache lines to and fro, and looking up and recording
/// kept states was an eighth of a two-thread search's time (`perf record`
/// on the headline). Keeping a state twice costs only an encoding, so a
/// state whose probes find no room ([`PROBES`]) is kept unrecorded.
pub(super) struct Kept {
    /// Fingerprints, 0 where empty (fingerprint 0 is never recorded).
    fps: Box<[AtomicU64]>,
    /// `!chunk` of the first chunk that kept the state in the same slot,
    /// 0 before any did: a chunk records itself with `fetch_max`.
    firsts: Box<[AtomicU32]>,
}

/// Slots a lookup reads before it gives up.
const PROBES: usize = 32;

impl Kept {
    /// A table for the successors of `states` states: four slots a state,
    /// where about one successor a state is new.
    fn new(states: usize) -> Self {
        let n = if states == 0 {
            0
        } else {
            (4 * states).next_power_of_two()
        };
        Kept {
            fps: (0..n).map(|_| AtomicU64::new(0)).collect(),
            firsts: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The slot of `fp`, claiming an empty one if `claim`; `None` where it
    /// is absent (and not claimed) or there is no room.
    fn slot(&self, fp: u64, claim: bool) -> Option<usize> {
        if fp == 0 || self.fps.is_empty() {
            return None;
        }
        let mask = self.fps.len() - 1;
        let mut i = fp as usize & mask;
        for _ in 0..PROBES {
            let at = &self.fps[i];
            match at.load(Ordering::Relaxed) {
                x if x == fp => return Some(i),
                0 if !claim => return None,
                0 => match at.compare_exchange(0, fp, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => return Some(i),
                    Err(x) if x == fp => return Some(i),
                    Err(_) => {}
                },
                _ => {}
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Whether some chunk kept the state `fp` (read once the batch is
    /// expanded, so nothing writes it meanwhile).
    fn contains(&self, fp: u64) -> bool {
        self.slot(fp, false).is_some()
    }

    /// Whether `chunk` keeps the state `fp`, recording it if it does.
    fn keeps(&self, fp: u64, chunk: u32) -> bool {
        match self.slot(fp, true) {
            Some(i) => self.firsts[i].fetch_max(!chunk, Ordering::Relaxed) < !chunk,
            None => true,
        }
    }
}

impl<'b, A: Lock> Shared<'b, A> {
    pub(super) fn new(batch: &'b Batch<A>) -> Self {
        Shared {
            batch,
            next: AtomicUsize::new(0),
            done: (0..batch.items.len().div_ceil(CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
            kept: Kept::new(batch.items.len()),
        }
    }

    /// Every state's successors, in the batch's order, once every chunk
    /// has been expanded, and the states kept among them.
    pub(super) fn into_successors(self) -> (Successors, Kept) {
        let parts = self
            .done
            .into_iter()
            .map(|c| c.into_inner().expect("every chunk was expanded"))
            .collect();
        (Successors::of(parts), self.kept)
    }
}
