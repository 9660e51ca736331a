//! Renumbering a node's state: the node ids it holds (symmetry reduction
//! renames interchangeable nodes) and the values that only grow and are
//! only compared (the world ranks them so that a client that loops forever
//! has a finite state space). Apart from [`Actor`], which is behaviour
//! only, as stateright keeps its `Rewrite` apart from its `Actor`: the
//! walk over the state and the messages is their [`Rewrite`] (mostly
//! derived), and a program overrides these methods only where the walk
//! depends on the scenario.

use super::{Actor, Id, Rewrite};

/// How a node's program rewrites the ids and growing values in its state
/// and messages. Every method defaults to the state's or the message's
/// [`Rewrite`], so a family whose ids and sequences are fixed by their
/// fields' attributes writes `impl Renumber for Node {}`.
///
/// The visitors of values are generic, not `dyn`: the world walks every
/// successor's values (ranks.rs), and with a call through a pointer per
/// value the walk took 2.3% more of a search's instructions (cachegrind,
/// redlock-no-faults --no-symmetry).
pub trait Renumber: Actor<State: Rewrite, Msg: Rewrite> {
    /// Rewrites every node id held in `state` through `ids`. Symmetry
    /// reduction renames interchangeable nodes, and ids inside states must
    /// follow. Timers and steps must hold no ids.
    fn rename(&self, state: &mut Self::State, ids: &dyn Fn(Id) -> Id) {
        state.rename(ids)
    }

    /// Rewrites every node id held in a message (see [`Renumber::rename`]).
    fn rename_msg(&self, msg: &mut Self::Msg, ids: &dyn Fn(Id) -> Id) {
        msg.rename(ids)
    }

    /// Visits every value in `state` that only grows and is only compared
    /// (ghost acquisition numbers, fencing counters and tokens, the
    /// resource's maxima), with the sequence it belongs to. The world
    /// renumbers each sequence by rank among the values present, so a
    /// client that loops forever still has a finite state space (docs/design.md
    /// §2). Zero stays zero: it means "none". Sound only where the next
    /// value drawn exceeds every value present (see [`Seq::Token`]).
    fn numbers(&self, state: &mut Self::State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit)
    }

    /// Visits every growing value in a message (see [`Renumber::numbers`]).
    fn numbers_msg(&self, msg: &mut Self::Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit)
    }
}

/// A sequence of growing values whose order alone matters
/// ([`Renumber::numbers`]). Values of different sequences are never compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seq {
    /// The world's ghost counter (`Out::next_ghost`) and its copies.
    Ghost,
    /// A fencing counter and the tokens drawn from it. Only a counter
    /// that never goes back may be renumbered: one that a restart resets
    /// is then compared with older tokens by its distance to them (how
    /// many tokens it draws before its tokens pass again), so an actor
    /// visits no tokens where its counter can be reset.
    Token,
    /// Lock values drawn by `Out::fresh_value`: compared for equality, and
    /// by draw order where a lock value is used as a fencing token.
    Value,
    /// Logical timestamps (Lamport clocks) that are compared and
    /// incremented by one, so their distances matter, not only their
    /// order: the world shifts them all down by the smallest present
    /// (which becomes 0) instead of ranking them. Sound only where no
    /// step compares one with a constant.
    Clock,
}
