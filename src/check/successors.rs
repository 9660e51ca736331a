//! What the workers hand the merge for a batch (expand.rs, search.rs):
//! each successor with what the merge needs, in lists a chunk of states
//! fills and the merge gives back to be filled again.

use super::graph::Facts;

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
    pub(super) fresh: Option<Fresh>,
}

/// A state that may be new, as its worker kept it.
#[derive(Clone, Copy)]
pub(super) struct Fresh {
    /// Where its encoding lies in its run's bytes ([`Expanded::bytes`]).
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) facts: Facts,
    /// Bit `i` for a failure of `safety[i]`.
    pub(super) bad: u64,
}

/// The successors of a run of states, in order, in three lists instead of
/// a list a state and a buffer a kept state: state `k`'s are
/// `succs[ends[k - 1]..ends[k]]`, and the states kept among them lie
/// encoded one after another in `bytes`. Allocating and freeing those was
/// a malloc and a free a state and a kept state, freed by another thread
/// than the one that made them where the merge runs beside the workers.
#[derive(Default)]
pub(super) struct Expanded {
    pub(super) succs: Vec<Succ>,
    ends: Vec<u32>,
    pub(super) bytes: Vec<u8>,
}

impl Expanded {
    /// A spare one, emptied, or a new one.
    pub(super) fn spare(spare: &Spare) -> Expanded {
        let mut e = spare
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        e.succs.clear();
        e.ends.clear();
        e.bytes.clear();
        e
    }

    /// Ends the successors of one state.
    pub(super) fn end_state(&mut self) {
        self.ends.push(self.succs.len() as u32);
    }
}

/// The successors of a batch's states, one state at a time, in order.
pub(super) struct Successors {
    parts: Vec<Expanded>,
    /// The run and the state in it that come next.
    part: usize,
    state: usize,
}

impl Successors {
    pub(super) fn of(parts: Vec<Expanded>) -> Successors {
        Successors {
            parts,
            part: 0,
            state: 0,
        }
    }

    /// Gives the lists back, to be filled again.
    pub(super) fn recycle(self, spare: &Spare) {
        spare.lock().unwrap_or_else(|e| e.into_inner()).extend(self.parts);
    }

    /// The next state's successors.
    pub(super) fn next(&mut self) -> Option<OneState<'_>> {
        while self.parts.get(self.part).is_some_and(|p| self.state == p.ends.len()) {
            self.part += 1;
            self.state = 0;
        }
        let p = self.parts.get(self.part)?;
        let start = if self.state == 0 {
            0
        } else {
            p.ends[self.state - 1] as usize
        };
        let end = p.ends[self.state] as usize;
        self.state += 1;
        Some(OneState {
            succs: &p.succs[start..end],
            bytes: &p.bytes,
        })
    }
}

/// One state's successors, and the bytes their kept states lie in.
pub(super) struct OneState<'a> {
    pub(super) succs: &'a [Succ],
    bytes: &'a [u8],
}

impl OneState<'_> {
    /// A kept state's encoding.
    pub(super) fn encoded(&self, fresh: &Fresh) -> &[u8] {
        &self.bytes[fresh.start as usize..fresh.end as usize]
    }
}

/// The lists of expanded chunks the merge is done with, kept to be filled
/// again: allocated afresh for each chunk, lists of tens of kilobytes
/// left the allocator's pages resident once freed (the headline's peak was
/// 7 MiB higher on one thread, 18 MiB on two).
pub(super) type Spare = std::sync::Mutex<Vec<Expanded>>;
