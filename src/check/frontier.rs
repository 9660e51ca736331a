//! The search's queue. It holds whole states until the process reaches
//! `--max-memory`; then, breadth-first, it keeps only their numbers and
//! rebuilds each batch's states along their discoverers' recorded actions
//! when the batch is expanded (as a checkpoint's queue is rebuilt), so a
//! search whose states outgrow memory goes on instead of stopping. The
//! rebuilt states are the states found, so nothing a user reads changes;
//! the price is the time to rebuild them, one `after` per state on the
//! paths to a batch (siblings share theirs).

use std::collections::VecDeque;

use super::checkpoint;
use super::graph::Graph;
use crate::world::{Program, World, WorldState};

pub(super) enum Frontier<A: Program> {
    /// Whole states, with their numbers, as found.
    States(VecDeque<(WorldState<A>, u32)>),
    /// State numbers only, in the same order.
    Numbers(VecDeque<u32>),
}

impl<A: Program> Frontier<A> {
    pub(super) fn len(&self) -> usize {
        match self {
            Frontier::States(q) => q.len(),
            Frontier::Numbers(q) => q.len(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether states are kept whole.
    pub(super) fn whole(&self) -> bool {
        matches!(self, Frontier::States(_))
    }

    /// Queues state `i` (its number only, once the states are dropped).
    pub(super) fn push(&mut self, state: WorldState<A>, i: u32) {
        match self {
            Frontier::States(q) => q.push_back((state, i)),
            Frontier::Numbers(q) => q.push_back(i),
        }
    }

    /// The queued state numbers, front to back.
    pub(super) fn numbers(&self) -> Vec<u32> {
        match self {
            Frontier::States(q) => q.iter().map(|(_, i)| *i).collect(),
            Frontier::Numbers(q) => q.iter().copied().collect(),
        }
    }

    /// Drops the queued states, keeping their numbers.
    pub(super) fn drop_states(&mut self) {
        if let Frontier::States(q) = self {
            *self = Frontier::Numbers(q.drain(..).map(|(_, i)| i).collect());
        }
    }

    /// Moves up to `n` states into `batch`: from the front (breadth-first)
    /// or the back (`dfs`), rebuilt from `g` where only numbers are kept.
    pub(super) fn take(
        &mut self,
        batch: &mut Vec<(WorldState<A>, u32)>,
        n: usize,
        dfs: bool,
        world: &World<A>,
        g: &Graph,
    ) -> Result<(), String> {
        match self {
            Frontier::States(q) => batch.extend(pop(q, n.saturating_sub(batch.len()), dfs)),
            Frontier::Numbers(q) => {
                let numbers: Vec<u32> = pop(q, n, dfs).collect();
                let states = checkpoint::rebuild(world, g, &numbers, None)?;
                batch.extend(states.into_iter().zip(numbers));
            }
        }
        Ok(())
    }
}

/// Up to `n` items off the front of `q` (breadth-first) or its back (`dfs`).
fn pop<T>(q: &mut VecDeque<T>, n: usize, dfs: bool) -> impl Iterator<Item = T> + '_ {
    std::iter::from_fn(move || if dfs { q.pop_back() } else { q.pop_front() }).take(n)
}
