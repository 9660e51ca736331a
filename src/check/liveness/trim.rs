//! Trimming the liveness suspects' subgraph to the states that may lie on
//! a loop of it, before the search for its components (mod.rs, `Suspects`).

use super::sets::Bits;
use crate::check::graph::{Edge, Graph, FAULT};
use crate::check::slots::Slots;

/// The waiting states that may lie on a loop of the subgraph where someone
/// waits at both ends of an edge that is no fault, as a bit each, and the
/// stuck states (waiting, with no edge but faults), sorted.
///
/// A state on such a loop has an edge of the subgraph in from a state of
/// the loop and one out to a state of the loop; so states are taken out,
/// until none is left to take, while either is missing: first those no
/// edge of the states left enters (Kahn's order), then those whose every
/// edge leaves the states left. What is left holds every loop, and every
/// component with one is a component of what is left; the search for
/// components then runs on it alone. In a search's graph it is small (time
/// passes, and most states lead to no loop): on `redlock-fsync
/// --no-symmetry`, 13,716 states of 2,959,948, the components themselves,
/// and the pass took 0.39 s instead of 0.68 to 0.80 s with Tarjan's search
/// over all the waiting states.
///
/// States are numbered breadth-first and most edges lead to a higher
/// number, so the states are looked at in number order (a lower state
/// whose last entering edge goes is taken at once, a higher one when the
/// loop reaches it); then those left go by a worklist over the edges
/// entering each ([`with_a_way_on`]).
pub(super) fn trimmed(g: &Graph, waiting: &Bits, threads: usize) -> (Bits, Vec<u32>) {
    let n = g.facts.len() as u32;
    // Edges in from waiting states, counted once and then taken away.
    let threads = if (n as usize) < SPREAD_FROM { 1 } else { threads };
    let (mut entering, stuck) = entering(g, waiting, threads);
    let mut kept = waiting.clone();
    let mut unentered = Vec::new();
    for s in 0..n {
        if !kept.get(s as usize) || entering[s as usize] != 0 {
            continue;
        }
        unentered.push(s);
        while let Some(t) = unentered.pop() {
            kept.set(t as usize, false);
            for e in g.out(t).filter(|e| enters(e, waiting)) {
                let count = &mut entering[e.to as usize];
                *count -= 1;
                // A higher state is taken when the loop reaches it.
                if *count == 0 && e.to < s {
                    unentered.push(e.to);
                }
            }
        }
    }
    drop(entering);
    let kept = with_a_way_on(g, &kept).unwrap_or_else(|| by_sweeps(g, kept));
    (kept, stuck)
}

/// The edges of the subgraph entering each state, and the stuck states
/// (waiting, with no edge but faults), sorted. Every edge of the graph is
/// read here, a third of the pass on the headline, so with `threads`
/// above one each thread reads the edges out of a run of states into
/// counts of its own, and the counts are summed: on
/// `redlock-fsync --no-symmetry`, 2,959,948 states, two threads' counts
/// are 24 MB, less than the search gave back before the pass (the run's
/// peak stayed at about 186 MiB with two threads). One thread where the
/// graph is on disk, whose memory is short.
pub(super) fn entering(g: &Graph, waiting: &Bits, threads: usize) -> (Slots, Vec<u32>) {
    let n = g.facts.len();
    let count = |states: std::ops::Range<usize>, entering: &mut [u32], stuck: &mut Vec<u32>| {
        for s in states.filter(|&s| waiting.get(s)) {
            let mut faults_only = true;
            for e in g.out(s as u32) {
                faults_only &= e.class == FAULT;
                if enters(&e, waiting) {
                    entering[e.to as usize] += 1;
                }
            }
            if faults_only {
                stuck.push(s as u32);
            }
        }
    };
    if threads <= 1 || g.on_disk() {
        let (mut entering, mut stuck) = (slots(g, n), Vec::new());
        count(0..n, &mut entering, &mut stuck);
        return (entering, stuck);
    }
    let mut runs = crate::threads::each(threads, |t| {
        let (mut entering, mut stuck) = (vec![0; n], Vec::new());
        count(n * t / threads..n * (t + 1) / threads, &mut entering, &mut stuck);
        (entering, stuck)
    })
    .into_iter();
    let (mut entering, mut stuck) = runs.next().expect("a thread");
    for (more, later) in runs {
        entering.iter_mut().zip(&more).for_each(|(a, b)| *a += b);
        stuck.extend(later);
    }
    (Slots::Mem(entering), stuck)
}

/// Whether `e` is an edge of the subgraph into a state of `set`: no fault,
/// and its target in `set` (the waiting states, or those left).
fn enters(e: &Edge, set: &Bits) -> bool {
    e.class != FAULT && set.get(e.to as usize)
}

/// States below which trimming counts on one thread: starting threads
/// costs more than the count.
const SPREAD_FROM: usize = 1 << 16;

/// `k` zeroes, in a mapped file where the graph is on disk (in memory
/// where the file cannot be made).
fn slots(g: &Graph, k: usize) -> Slots {
    Slots::new(k, g.on_disk())
        .or_else(|_| Slots::new(k, false))
        .expect("memory")
}

/// The states of `kept`, in order.
fn members(kept: &Bits) -> impl Iterator<Item = u32> + '_ {
    kept.0.iter().enumerate().flat_map(|(w, &word)| {
        std::iter::successors((word != 0).then_some(word), |&rest| {
            let rest = rest & (rest - 1);
            (rest != 0).then_some(rest)
        })
        .map(move |rest| (w * 64) as u32 + rest.trailing_zeros())
    })
}

/// `kept` without the states that have no edge of the subgraph out to a
/// state of it, taken out until none is left to take. Each state's edges
/// in from the others are listed once, and a state taken out counts down
/// the edges out of each one that enters it: sweeping `kept` again until
/// a sweep took nothing out ([`by_sweeps`]) read each state's edges once a
/// sweep, and on `redlock-fsync --no-symmetry` took 17 sweeps over the
/// 634,072 states Kahn's order left, for the 13,716 that remain. `None`
/// where the edges among `kept` are too many to list by 32-bit offsets.
pub(super) fn with_a_way_on(g: &Graph, kept: &Bits) -> Option<Bits> {
    let n = g.facts.len();
    // `ways[s]`: the edges out of `s` to states of `kept`; `ends`, once
    // filled, where the list of the states entering `t` ends (it starts
    // where `t - 1`'s ends).
    let mut ways = slots(g, n);
    let mut ends = slots(g, n);
    let inside = |e: &Edge| enters(e, kept);
    let mut total = 0u64;
    for s in members(kept) {
        for e in g.out(s).filter(inside) {
            ways[s as usize] += 1;
            ends[e.to as usize] += 1;
            total += 1;
        }
    }
    if total > u64::from(u32::MAX) {
        return None;
    }
    let mut start = 0;
    for end in ends.iter_mut() {
        (*end, start) = (start, start + *end);
    }
    // Now each state's list starts at `ends`; filled, it ends there.
    let mut entering = slots(g, total as usize);
    for s in members(kept) {
        for e in g.out(s).filter(inside) {
            let at = &mut ends[e.to as usize];
            entering[*at as usize] = s;
            *at += 1;
        }
    }
    let mut kept = kept.clone();
    let mut taken: Vec<u32> = members(&kept).filter(|&s| ways[s as usize] == 0).collect();
    for &s in &taken {
        kept.set(s as usize, false);
    }
    while let Some(t) = taken.pop() {
        let start = if t == 0 { 0 } else { ends[t as usize - 1] };
        for &p in &entering[start as usize..ends[t as usize] as usize] {
            if kept.get(p as usize) {
                let left = &mut ways[p as usize];
                *left -= 1;
                if *left == 0 {
                    kept.set(p as usize, false);
                    taken.push(p);
                }
            }
        }
    }
    Some(kept)
}

/// [`with_a_way_on`] by sweeps: the states left, in reverse order, until
/// a sweep takes out nothing. Each sweep reads every state left's edges;
/// it lists nothing, so it serves where the edges are too many to list.
pub(super) fn by_sweeps(g: &Graph, mut kept: Bits) -> Bits {
    // Read a word of bits at a time: the states left are few.
    let mut taken = true;
    while taken {
        taken = false;
        for w in (0..kept.0.len()).rev() {
            let mut word = kept.0[w];
            while word != 0 {
                let b = 63 - word.leading_zeros() as usize;
                word &= !(1 << b);
                let s = (w * 64 + b) as u32;
                if !g.out(s).any(|e| enters(&e, &kept)) {
                    kept.set(s as usize, false);
                    taken = true;
                }
            }
        }
    }
    kept
}
