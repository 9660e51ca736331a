//! The search itself: states popped in batches (breadth-first, or
//! depth-first one at a time), expanded on the threads (expand.rs), and
//! their successors merged in the order one thread would number them,
//! until the frontier is empty or a bound stops it; then each property's
//! verdict.

use std::collections::BTreeMap;
use std::time::Instant;

use super::checkpoint::{self, Record, Resumed, Saved};
use super::classes::Classes;
use super::expand::{Expand, Kept, Shared, BATCH};
use super::frontier::{encode, Batch, Frontier, Packed};
use super::graph::{Edge, Graph, Parent, FAULT};
use super::known::{Ahead, Known, Numbering, Pending};
use super::liveness::{self, Waiting};
use super::seen::Seen;
use super::successors::{OneState, Spare, Successors};
use super::{
    clients, collision_probability, facts, lasso, quotient, replay_ordinals, starvation, symmetric_lasso,
    Counterexample, Options, Outcome, PropOutcome, LIFT_BUDGET, MEMORY_EVERY, PROGRESS_EVERY,
};
use crate::memory;
use crate::properties::{safe, Lock, Prop};
use crate::scenario::Verdict;
use crate::world::{identity, Program, World, WorldState, EVENT_KINDS};

/// Everything the search has found so far.
struct Found<A: Program> {
    g: Graph,
    /// Action fingerprint to fairness class.
    classes: Classes,
    events: BTreeMap<&'static str, u64>,
    /// The first state found violating each safety property.
    first_bad: BTreeMap<Prop, u32>,
    generated: usize,
    /// A successor lay beyond `--max-depth` and was not explored.
    beyond_depth: bool,
    frontier: Frontier<A>,
}

/// [`super::check`] on the world's own symmetry groups, from the initial
/// state or from a checkpoint's record and rebuilt frontier.
pub(super) fn search<A: Lock>(world: &World<A>, opts: &Options, resumed: Option<Resumed<A>>) -> Outcome<A> {
    let start = Instant::now();
    let symmetric = !world.symmetry.is_empty();
    let mut stopped = None;
    let mut interrupted = false;
    // Depth-first search pops one state at a time: its next state depends
    // on what the last one discovered.
    let threads = if opts.dfs { 1 } else { opts.threads.max(1) };
    let batch_size = if opts.dfs { 1 } else { BATCH * threads };

    let checked = Prop::checked(world);
    let safety: Vec<Prop> = checked.iter().copied().filter(|p| p.is_safety()).collect();
    let (mut f, mut known, mut expanded) = match resumed {
        Some((saved, frontier)) => Found::resumed(saved, frontier),
        None => {
            let (f, known) = Found::start(world, &safety);
            (f, known, 0)
        }
    };
    let mut saved_at = expanded;
    let mut queue_dropped_at = None;
    let mut spilled_at = Vec::new();
    // With more than one thread, breadth-first, the next batch is taken
    // before a batch is merged and expanded while it is (`Ahead`): the
    // merge, which numbers states in one thread's order, would otherwise
    // leave the other threads idle. `ready` is a batch expanded so.
    let ahead = threads > 1 && !opts.dfs;
    let mut ready: Option<(Batch<A>, Successors, Kept)> = None;
    // What the last merge ahead numbered, where that is everything that
    // came into the seen sets after the workers of `ready` read them.
    let mut since: Option<Pending> = None;
    let mut spare = Batch::with_capacity(batch_size);
    let spare_lists = Spare::default();
    'search: loop {
        let (batch, mut successors, coming) = match ready.take() {
            Some(expanded) => expanded,
            None if f.frontier.is_empty() => break,
            None => {
                let mut batch = std::mem::replace(&mut spare, Batch::with_capacity(0));
                if let Err(e) = f.frontier.take(&mut batch, batch_size, opts.dfs, world, &f.g) {
                    stopped = Some(e);
                    break;
                }
                let (successors, kept) =
                    Expand::new(world, &known, symmetric, &safety, &spare_lists).batch(&batch, threads);
                (batch, successors, kept)
            }
        };
        let mut from = 0;
        if ahead && !f.frontier.is_empty() {
            // The last batch's lists, emptied: a batch's list of states
            // is some hundreds of kilobytes, and allocating one afresh
            // each time left the allocator's pages resident (21 MiB more
            // peak on the headline with two threads) and paid their page
            // faults while the workers waited.
            let mut next = std::mem::replace(&mut spare, Batch::with_capacity(0));
            if let Err(e) = f.frontier.take(&mut next, batch_size, opts.dfs, world, &f.g) {
                stopped = Some(e);
                break;
            }
            let expand = Expand {
                // The states this merge can number.
                coming: Some(&coming),
                ..Expand::new(world, &known, symmetric, &safety, &spare_lists)
            };
            let shared = Shared::new(&next);
            let mut numbers = Ahead::new(&known, since.as_ref(), 2 * batch.items.len());
            let mut at = Place {
                start,
                expanded: &mut expanded,
                saved_at,
            };
            let merged = std::thread::scope(|scope| {
                let workers: Vec<_> = (1..threads).map(|_| scope.spawn(|| expand.work(&shared))).collect();
                let merged = f.merge_ahead(&batch, &mut successors, &mut numbers, &mut at, opts, symmetric, &safety);
                // The merge done, this thread expands beside the workers.
                expand.work(&shared);
                for w in workers {
                    w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                }
                merged
            });
            let pending = numbers.pending();
            let (next_successors, next_kept) = shared.into_successors();
            pending.settle(&mut known);
            ready = Some((next, next_successors, next_kept));
            since = Some(pending);
            match merged {
                Ok(j) => from = j,
                Err(why) => {
                    stopped = Some(why);
                    break;
                }
            }
        }
        // One state at a time, with every check between two states: the
        // whole batch with one thread, the rest of it where a check asked
        // for the merge to stop ahead of the workers.
        // The successors left are those of the states from `from` on.
        // Numbered straight into the sets, they are not in `since`.
        if from < batch.items.len() {
            since = None;
        }
        for (j, &(_, i)) in batch.items.iter().enumerate().skip(from) {
            let succs = successors.next().expect("a state's successors");
            if let Some(n) = f.drop_queue_if_short(&known, opts, expanded) {
                queue_dropped_at = Some(n);
            }
            let spill = f.spill_if_short(&mut known, opts, expanded, spilled_at.last().copied());
            if let Ok(Some(n)) = spill {
                spilled_at.push(n);
            }
            // Between two states the record is whole: a checkpoint is
            // saved here, every so often and when a bound stops the search.
            let bound = match spill {
                Err(why) => Some((why, false)),
                Ok(_) => bound_reached(opts, start, expanded, known.seen.len(), !spilled_at.is_empty()),
            };
            let due = opts
                .checkpoint
                .as_ref()
                .is_some_and(|c| bound.is_some() || expanded - saved_at >= c.every);
            if due {
                saved_at = expanded;
                // The states not merged yet: the rest of this batch, then
                // the next one where it was taken already.
                let next = ready.iter().flat_map(|(b, _, _)| &b.items);
                let rest = batch.items[j..].iter().chain(next).map(|(_, i)| *i);
                if let Err(e) = f.save(&known, world, opts, expanded, rest) {
                    stopped = Some(e);
                    break 'search;
                }
            }
            if let Some((why, by_ctrl_c)) = bound {
                stopped = Some(why);
                interrupted = by_ctrl_c;
                break 'search;
            }
            expanded += 1;
            f.report(opts, expanded, i, known.seen.len());
            if let Err(why) = f.merge(i, succs, &mut known, opts, symmetric, &safety) {
                stopped = Some(why);
                break 'search;
            }
        }
        successors.recycle(&spare_lists);
        spare = batch;
        spare.clear();
    }
    let unique_states = known.seen.len();
    // The liveness pass needs the seen set only to lift components under
    // symmetry. The rest goes before it, and its pages back to the system,
    // so that the pass's own arrays do not add to the search's peak.
    drop((f.frontier, known.raw_seen, f.classes));
    let seen = symmetric.then_some(known.seen);
    memory::release_free();
    let mut g = f.g;
    g.seal();
    if let Some(d) = opts.max_depth.filter(|_| f.beyond_depth && stopped.is_none()) {
        stopped = Some(format!("the depth bound of {d} was reached"));
    }
    let complete = stopped.is_none();
    let (props, liveness_skipped) = verdicts(world, &g, seen.as_ref(), &checked, &f.first_bad, complete, opts);
    interrupted |= liveness_skipped.as_deref() == Some(quotient::INTERRUPTED);
    Outcome {
        props,
        unique_states,
        states: f.generated,
        fingerprint_collision_probability: collision_probability(unique_states, f.generated),
        max_depth: g.facts.max_depth() as usize,
        seconds: start.elapsed().as_secs_f64(),
        events: f.events,
        stopped,
        liveness_skipped,
        interrupted,
        symmetric,
        queue_dropped_at,
        spilled_at,
    }
}

/// Where a merge ahead of the workers is: what the checks between two
/// states read.
struct Place<'a> {
    start: Instant,
    expanded: &'a mut usize,
    /// States expanded when the last checkpoint was saved.
    saved_at: usize,
}

/// Whether the process is above `--max-memory` (read every
/// [`MEMORY_EVERY`] states), or would be with `extra` bytes more.
fn over_memory(opts: &Options, expanded: usize, extra: u64) -> bool {
    opts.max_memory
        .filter(|_| expanded.is_multiple_of(MEMORY_EVERY))
        .and_then(|m| memory::anonymous().map(|r| r + extra > m))
        .unwrap_or(false)
}

/// Why the search stops before expanding another state, if it does: Ctrl-C
/// (then `true`), the timeout, or the memory bound (read every
/// [`MEMORY_EVERY`] states).
fn bound_reached(
    opts: &Options,
    start: Instant,
    expanded: usize,
    states: usize,
    spilled: bool,
) -> Option<(String, bool)> {
    if opts.interrupt.requested() {
        return Some((
            format!("interrupted after {states} states; open verdicts are unknown"),
            true,
        ));
    }
    if let Some(t) = opts.timeout.filter(|t| start.elapsed() >= *t) {
        return Some((format!("the timeout of {} s was reached", t.as_secs_f64()), false));
    }
    let m = opts.max_memory.filter(|_| expanded.is_multiple_of(MEMORY_EVERY))?;
    memory::anonymous()
        .filter(|&r| r > m)
        .map(|_| (memory_bound(m, spilled), false))
}

/// Why the memory bound stopped the search: `spilled`, even after the
/// search moved to disk.
fn memory_bound(m: u64, spilled: bool) -> String {
    let why = if spilled {
        "even with the seen set, the edges and the queue on disk, what stays in memory leaves too little room; "
    } else {
        ""
    };
    format!(
        "the memory bound of {} was reached; {why}`locksmith simulate` explores a space this size by seeded random runs",
        memory::human(m)
    )
}

impl<A: Lock> Found<A> {
    /// The initial state, canonical, numbered 0 and queued.
    fn start(world: &World<A>, safety: &[Prop]) -> (Found<A>, Known) {
        let init = world.canonical(world.init()).0;
        let mut known = Known::default();
        let mut f = Found {
            g: Graph::default(),
            classes: Classes::default(),
            events: EVENT_KINDS.iter().map(|k| (*k, 0)).collect(),
            first_bad: BTreeMap::new(),
            generated: 0,
            beyond_depth: false,
            frontier: Frontier::States(Packed::default()),
        };
        f.g.facts.push(facts(world, &init, 0));
        for &p in safety {
            if !safe(p, world, &init) {
                f.first_bad.insert(p, 0);
            }
        }
        let fp = identity(&init);
        known.seen.insert(fp, 0);
        f.g.parent.push(Parent(0, 0));
        f.frontier
            .push(&encode(&init), 0, fp)
            .expect("a queue in memory takes any state");
        (f, known)
    }

    /// The search as a checkpoint left it, and the states it had expanded.
    fn resumed(saved: Saved, frontier: Packed<WorldState<A>>) -> (Found<A>, Known, usize) {
        let known = Known {
            seen: Seen::from(saved.seen),
            raw_seen: Seen::from(saved.raw_seen),
        };
        let f = Found {
            g: saved.g,
            classes: Classes::from(saved.classes),
            events: saved.events,
            first_bad: saved.first_bad,
            generated: saved.generated,
            beyond_depth: saved.beyond_depth,
            frontier: Frontier::States(frontier),
        };
        (f, known, saved.expanded)
    }

    /// Saves the search to its checkpoint, `rest` being the states taken
    /// from the queue and not merged yet: they go back where they came
    /// from in the frontier (its front breadth-first, its back
    /// depth-first).
    fn save(
        &self,
        known: &Known,
        world: &World<A>,
        opts: &Options,
        expanded: usize,
        rest: impl Iterator<Item = u32>,
    ) -> Result<(), String> {
        let Some(c) = &opts.checkpoint else { return Ok(()) };
        let queued = self
            .frontier
            .numbers()
            .map_err(|e| format!("cannot read the queue back from disk: {e}"))?
            .into_iter();
        let frontier = if opts.dfs {
            queued.chain(rest).collect()
        } else {
            rest.chain(queued).collect()
        };
        let record = Record {
            g: &self.g,
            seen: &known.seen,
            raw_seen: &known.raw_seen,
            classes: self.classes.map(),
            events: &self.events,
            first_bad: &self.first_bad,
            generated: self.generated,
            beyond_depth: self.beyond_depth,
            expanded,
            frontier,
        };
        checkpoint::save(world, opts, c, &record)
            .map_err(|e| format!("cannot write the checkpoint {}: {e}", c.file.display()))
    }

    /// Breadth-first, the memory bound first drops the queued states (they
    /// are rebuilt when expanded); it stops the search only if memory is
    /// still short without them. Returns the states found when it dropped
    /// them.
    fn drop_queue_if_short(&mut self, known: &Known, opts: &Options, expanded: usize) -> Option<usize> {
        let asked = opts.drop_queue_at.is_some_and(|n| known.seen.len() >= n);
        if opts.dfs || !self.frontier.whole() || !(asked || over_memory(opts, expanded, 0)) {
            return None;
        }
        self.frontier.drop_states();
        memory::release_free();
        if let Some(p) = &opts.progress {
            p.note("memory bound reached: the queue keeps state numbers from here");
        }
        Some(known.seen.len())
    }

    /// Once the queue keeps numbers only, the memory bound moves the seen
    /// set, the edges and the queue to nameless files in the temporary
    /// folder (`TMPDIR`), read back mapped (seen.rs), and the search goes
    /// on; breadth-first only. Returns the states found when it did; an
    /// error, the search's end, when it cannot write, or when the last
    /// move (with `last` states found) was so recent that moves would
    /// come ever more often, each rewriting every fingerprint on disk for
    /// fewer new ones than a 64th of them.
    fn spill_if_short(
        &mut self,
        known: &mut Known,
        opts: &Options,
        expanded: usize,
        last: Option<usize>,
    ) -> Result<Option<usize>, String> {
        let asked = opts
            .spill_every
            .is_some_and(|n| known.seen.len() - known.seen.spilled() >= n);
        // A spill sorts a copy of the fingerprints in memory (12 bytes
        // each) before it frees them: it starts early enough for the copy
        // to fit under the bound.
        let copy = 12 * (known.seen.in_memory() + known.raw_seen.in_memory()) as u64;
        if opts.dfs || self.frontier.whole() || !(asked || over_memory(opts, expanded, copy)) {
            return Ok(None);
        }
        let n = known.seen.len();
        if let (Some(m), Some(last)) = (opts.max_memory.filter(|_| !asked), last) {
            if n - last < n / 64 {
                return Err(memory_bound(m, true));
            }
        }
        let dir = std::env::temp_dir();
        known
            .seen
            .spill(&dir)
            .and_then(|()| known.raw_seen.spill(&dir))
            .and_then(|()| self.g.spill(&dir))
            .and_then(|()| self.frontier.spill(&dir))
            .map_err(|e| format!("cannot move the search to disk in {}: {e}", dir.display()))?;
        memory::release_free();
        if let Some(p) = &opts.progress {
            p.note("memory bound reached: the seen set, the edges and the queue moved to disk");
        }
        Ok(Some(known.seen.len()))
    }

    /// The progress line, every [`PROGRESS_EVERY`] states expanded (`i`
    /// the last, `states` found).
    fn report(&self, opts: &Options, expanded: usize, i: u32, states: usize) {
        if let Some(p) = opts
            .progress
            .as_ref()
            .filter(|_| expanded.is_multiple_of(PROGRESS_EVERY))
        {
            p.search_at(states, self.g.facts.depth(i), self.frontier.len());
        }
    }

    /// Merges `batch` from its first state while the workers expand the
    /// next batch, until it is merged or a check between two states would
    /// act (a checkpoint, a bound, the queue dropped or moved to disk):
    /// those need the seen sets, which the workers are reading, so the
    /// search does them itself from there. Returns the position it
    /// stopped at.
    #[allow(clippy::too_many_arguments)]
    fn merge_ahead(
        &mut self,
        batch: &Batch<A>,
        successors: &mut Successors,
        numbers: &mut Ahead<'_>,
        at: &mut Place<'_>,
        opts: &Options,
        symmetric: bool,
        safety: &[Prop],
    ) -> Result<usize, String> {
        for (j, &(_, i)) in batch.items.iter().enumerate() {
            if self.must_stop_ahead(numbers, at, opts) {
                return Ok(j);
            }
            let succs = successors.next().expect("a state's successors");
            *at.expanded += 1;
            self.report(opts, *at.expanded, i, numbers.len());
            self.merge(i, succs, numbers, opts, symmetric, safety)?;
        }
        Ok(batch.items.len())
    }

    /// Whether a check between two states would act here (see
    /// [`Found::merge_ahead`]): the same conditions as the checks', the
    /// memory read with the room a move to disk needs, so that the search
    /// stops ahead at least wherever one of them acts.
    fn must_stop_ahead(&self, numbers: &Ahead<'_>, at: &Place<'_>, opts: &Options) -> bool {
        let expanded = *at.expanded;
        let found = numbers.len();
        let (seen, raw_seen) = numbers.known_in_memory();
        let whole = self.frontier.whole();
        opts.interrupt.requested()
            || opts.timeout.is_some_and(|t| at.start.elapsed() >= t)
            || opts
                .checkpoint
                .as_ref()
                .is_some_and(|c| expanded - at.saved_at >= c.every)
            || (whole && opts.drop_queue_at.is_some_and(|n| found >= n))
            || (!whole && opts.spill_every.is_some_and(|n| seen >= n))
            || over_memory(opts, expanded, 12 * (seen + raw_seen) as u64)
    }

    /// Numbers the new states among the successors of state `i`, queues
    /// them and records every edge; `Err`, with the reason, when a bound
    /// stops the search.
    fn merge(
        &mut self,
        i: u32,
        succs: OneState<'_>,
        known: &mut impl Numbering,
        opts: &Options,
        symmetric: bool,
        safety: &[Prop],
    ) -> Result<(), String> {
        let depth = self.g.facts.depth(i) + 1;
        for succ in succs.succs {
            self.generated += 1;
            if let Some(kind) = succ.kind {
                *self.events.entry(kind).or_default() += 1;
            }
            let class = match succ.class {
                None => FAULT,
                Some(fp) => self.classes.of(fp),
            };
            // Where the worker found the state, its number stands; else an
            // earlier successor in the batch may have numbered it.
            let found = succ.raw_to.or_else(|| {
                if symmetric {
                    known.get_raw(succ.raw)
                } else {
                    known.get(succ.fp)
                }
            });
            let to = match found {
                Some(to) => to,
                None => {
                    let to = match succ.to.or_else(|| symmetric.then(|| known.get(succ.fp)).flatten()) {
                        Some(to) => to,
                        None if opts.max_states.is_some_and(|m| known.len() >= m) => {
                            return Err(format!("the state bound of {} was reached", known.len()));
                        }
                        None if opts.max_depth.is_some_and(|d| depth > d) => {
                            self.beyond_depth = true;
                            continue;
                        }
                        None => {
                            // Not known before the batch, nor met earlier
                            // in it (expand.rs, `Kept`), nor numbered by
                            // the merge its workers ran beside (`coming`),
                            // so the worker kept the state.
                            let Some(fresh) = &succ.fresh else {
                                unreachable!("a state unknown to the merge was unknown to its worker")
                            };
                            let (t, mut facts, bad) = (succs.encoded(fresh), fresh.facts, fresh.bad);
                            let to = known.len() as u32;
                            known.insert(succ.fp, to);
                            self.g.parent.push(Parent(i, succ.ordinal));
                            facts.depth = depth;
                            self.g.facts.push(facts);
                            for (b, &p) in safety.iter().enumerate() {
                                if bad & (1 << b) != 0 {
                                    self.first_bad.entry(p).or_insert(to);
                                }
                            }
                            if let Some(p) = opts.stop_at.filter(|p| self.first_bad.contains_key(p)) {
                                return Err(format!("stopped at the first violation of {}", p.name()));
                            }
                            self.frontier
                                .push(t, to, succ.fp)
                                .map_err(|e| format!("cannot write the queue to disk: {e}"))?;
                            to
                        }
                    };
                    if symmetric {
                        known.insert_raw(succ.raw, to);
                    }
                    to
                }
            };
            let edge = Edge::new(to, class, succ.ordinal, succ.strong, succ.random);
            if opts.dfs {
                self.g.raw.push((i, edge));
            } else {
                self.g.push_in_order(i, edge);
            }
        }
        Ok(())
    }
}

/// Each checked property's verdict and counterexample once the search is
/// over, and why liveness was not checked, if it was not. Under symmetry,
/// liveness runs on lifts of the quotient's candidate components back
/// into the full graph (quotient.rs): exact, but it stores the lifted
/// states, so it has a budget.
fn verdicts<A: Lock>(
    world: &World<A>,
    g: &Graph,
    seen: Option<&Seen>,
    checked: &[Prop],
    first_bad: &BTreeMap<Prop, u32>,
    complete: bool,
    opts: &Options,
) -> (Vec<PropOutcome<A>>, Option<String>) {
    // The seen set is kept exactly when the search was symmetric.
    let lifted = seen.filter(|_| complete).map(|seen| {
        let budget = opts.max_states.unwrap_or(LIFT_BUDGET);
        quotient::lifts(world, g, seen, budget, &opts.interrupt)
    });
    let liveness_skipped = match &lifted {
        Some(Err(why)) => Some(why.clone()),
        _ => None,
    };
    // Without symmetry, the passes for deadlock (anyone waiting) and for
    // each client's starvation, side by side on the search's threads; the
    // deadlock pass's answer first, if it ran.
    let passes = complete && lifted.is_none();
    let deadlock = passes && checked.contains(&Prop::DeadlockFreedom);
    let whom: Vec<Waiting> = deadlock
        .then_some(Waiting::Anyone)
        .into_iter()
        .chain(clients(world).filter(|_| passes && checked.contains(&Prop::StarvationFreedom)))
        .collect();
    let lassos = liveness::find_each(g, &whom, opts.threads);
    let (anyone, starving) = lassos.split_at(usize::from(deadlock));
    let mut props = Vec::new();
    for &prop in checked {
        let found = match prop {
            _ if prop.is_safety() => first_bad.get(&prop).map(|&s| Counterexample {
                prefix: replay_ordinals(world, &g.path_to(s)),
                cycle: None,
            }),
            // Liveness needs the whole graph.
            _ if !complete || liveness_skipped.is_some() => None,
            _ => match &lifted {
                Some(Ok(lifts)) => symmetric_lasso(world, g, lifts, prop == Prop::DeadlockFreedom),
                _ if prop == Prop::DeadlockFreedom => {
                    anyone.first().and_then(Option::as_ref).map(|l| lasso(world, g, l))
                }
                _ => starvation(world, g, starving),
            },
        };
        let skipped = !prop.is_safety() && liveness_skipped.is_some();
        let verdict = match (&found, complete && !skipped) {
            (Some(_), _) => Verdict::Violated,
            (None, true) => Verdict::Holds,
            (None, false) => Verdict::Unknown,
        };
        props.push(PropOutcome {
            prop,
            verdict,
            trace: found,
        });
    }
    (props, liveness_skipped)
}
