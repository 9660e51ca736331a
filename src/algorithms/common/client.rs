//! The client script every algorithm's clients follow (docs/design.md §3): want
//! the lock, acquire it, enter the critical section and write to the
//! protected resource, release; `acquisitions` times, or forever when 0.

use serde::{Deserialize, Serialize};

use crate::world::Pack;

use crate::properties::LockView;
use crate::words::Words;
use crate::world::{Node, Program, World, WorldState};

/// Where a client is in its script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Phase {
    /// Wants the lock and has no request out.
    Want,
    /// Has asked for the lock and waits for the answer.
    Acquiring,
    /// Believes it holds the lock; the critical section's write is next.
    Holding,
    /// Has sent its write to the resource and waits for the answer.
    Writing,
    /// Has sent its release and waits for the answer.
    Releasing,
    /// Has acquired as many times as the scenario asks.
    Done,
}

/// A client's progress through its script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub struct Script {
    pub phase: Phase,
    /// Acquisitions still to make; unused when looping forever.
    pub left: u8,
}

impl Script {
    /// A script for `acquisitions` acquisitions (0: forever).
    pub fn new(acquisitions: u8) -> Self {
        Script {
            phase: Phase::Want,
            left: acquisitions,
        }
    }

    pub fn wants(&self) -> bool {
        matches!(self.phase, Phase::Want | Phase::Acquiring)
    }

    /// Whether the client believes it holds the lock: from the grant until
    /// it has written and sent its release.
    pub fn holds(&self) -> bool {
        matches!(self.phase, Phase::Holding | Phase::Writing)
    }

    /// What a client whose lock is a lease believes (docs/design.md §5), as
    /// `(holds, wants)`. A client that `checks` its lease before using the
    /// lock (a validity or Curator client) holds while `Holding` only while
    /// its lease has `time_left` or once it has `checked`, and wants the
    /// lock until it has checked; one that does not check holds from the
    /// grant, as [`Script::holds`] says. Every family with leases reads its
    /// clients' belief here, so the rule is written once.
    pub fn lease_belief(&self, checks: bool, checked: bool, time_left: bool) -> (bool, bool) {
        let unchecked = checks && !checked;
        let holds = match self.phase {
            Phase::Holding => !unchecked || time_left,
            Phase::Writing => true,
            _ => false,
        };
        let wants = self.wants() || (self.phase == Phase::Holding && unchecked);
        (holds, wants)
    }

    /// The release was answered: want again, or stop.
    pub fn released(&mut self, acquisitions: u8) {
        if acquisitions == 0 {
            self.phase = Phase::Want;
        } else {
            self.left -= 1;
            self.phase = if self.left == 0 { Phase::Done } else { Phase::Want };
        }
    }
}

/// When the adversary may pause a client (`[system] pause_window`): at
/// any time, or only while it is acquiring (antirez's case: a pause the
/// elapsed-time check can see).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum PauseWindow {
    #[default]
    Any,
    Acquiring,
}

impl PauseWindow {
    /// Whether a client in `script` may be paused now.
    pub fn allows(self, script: &Script) -> bool {
        self == PauseWindow::Any || script.phase == Phase::Acquiring
    }
}

/// The lock view of a world whose clients follow a [`Script`]: `script`
/// picks a node's script out of its state (`None` for non-clients).
pub fn scripts_view<A: Program>(state: &WorldState<A>, script: impl Fn(&A::State) -> Option<Script>) -> LockView {
    let mut v = LockView::default();
    for (i, n) in state.nodes.iter().enumerate() {
        if let Some(s) = script(&n.state) {
            if s.holds() {
                v.holding |= 1 << i;
            }
            if s.wants() {
                v.wanting |= 1 << i;
            }
        }
    }
    v
}

/// What a lease client's belief rests on (for [`leases_view`]).
#[derive(Clone, Copy, Debug)]
pub struct ClientLease {
    pub script: Script,
    /// It checks its lease before using the lock (a validity or Curator
    /// client).
    pub checks: bool,
    /// It has checked, and found time left.
    pub checked: bool,
    /// What is left of the lease: the timer that ends it, if it runs.
    pub left: Option<u8>,
    /// It holds in shared (read) mode.
    pub shared: bool,
}

impl ClientLease {
    pub fn new(script: Script, checks: bool, checked: bool, left: Option<u8>) -> Self {
        ClientLease {
            script,
            checks,
            checked,
            left,
            shared: false,
        }
    }
}

/// The lock view of a world whose clients hold leases: `lease` reads a
/// node's lease from its program and state (`None` for non-clients), and
/// [`Script::lease_belief`] says what the client believes, so the rule of
/// docs/design.md §5 is applied in one place for every lease family.
pub fn leases_view<A: Program>(
    world: &World<A>,
    state: &WorldState<A>,
    lease: impl Fn(&A, &Node<A>) -> Option<ClientLease>,
) -> LockView {
    let mut v = LockView::default();
    for (i, (a, n)) in world.actors.iter().zip(&state.nodes).enumerate() {
        let Some(l) = lease(a, n) else { continue };
        let (holds, wants) = l
            .script
            .lease_belief(l.checks, l.checked, l.left.is_some_and(|t| t > 0));
        v.holding |= u64::from(holds) << i;
        v.shared |= u64::from(holds && l.shared) << i;
        v.wanting |= u64::from(wants) << i;
    }
    v
}

// Traces: how every family shows what its clients hold.

impl Phase {
    /// The phase in plain words, as traces print it.
    pub fn word(self) -> &'static str {
        match self {
            Phase::Want => "wants",
            Phase::Acquiring => "acquiring",
            Phase::Holding => "holds",
            Phase::Writing => "writing",
            Phase::Releasing => "releasing",
            Phase::Done => "done",
        }
    }
}

/// Words for traces, shared by the families' `show_*` hooks.
pub mod show {
    use super::Script;
    use crate::world::Id;

    /// A `(field, value)` pair of `Actor::show_state`.
    pub fn field(name: &str, value: impl ToString) -> (String, String) {
        (name.to_string(), value.to_string())
    }

    /// A lock value (`Out::fresh_value`): `v3`, or `none` for 0.
    pub fn value(v: u32) -> String {
        if v == 0 {
            "none".into()
        } else {
            format!("v{v}")
        }
    }

    /// A ghost acquisition number: `#2`, or `none` for 0.
    pub fn ghost(g: u32) -> String {
        if g == 0 {
            "none".into()
        } else {
            format!("#{g}")
        }
    }

    /// A fencing token: the number, or `none` for 0.
    pub fn token(t: u32) -> String {
        if t == 0 {
            "none".into()
        } else {
            t.to_string()
        }
    }

    pub fn yes(b: bool) -> &'static str {
        if b {
            "yes"
        } else {
            "no"
        }
    }

    /// A set of nodes, by name: `{s1, s3}`.
    pub fn set(ids: impl IntoIterator<Item = Id>, names: &[String]) -> String {
        let names: Vec<&str> = ids
            .into_iter()
            .map(|i| names.get(i).map_or("?", String::as_str))
            .collect();
        format!("{{{}}}", names.join(", "))
    }

    /// The nodes of a bit mask over ids, as a set.
    pub fn mask(mask: u64, names: &[String]) -> String {
        set((0..64).filter(|i| mask & (1 << i) != 0), names)
    }

    /// A client's script: its phase, and the acquisitions still to make
    /// when the scenario counts them (a client that loops for ever keeps
    /// `left` at 0 and is never done).
    pub fn script(s: &Script) -> Vec<(String, String)> {
        let mut out = vec![field(crate::words::field::PHASE, s.phase.word())];
        if s.left > 0 || s.phase == super::Phase::Done {
            out.push(field(crate::words::field::LEFT, s.left));
        }
        out
    }
}

/// The validity a client computes when it is granted the lock (Redlock's
/// step 3, used by every validity client): `ttl − (T2 − T1) − drift`, with
/// `elapsed` its stopwatch from the request (`None`, a stopped or unknown
/// stopwatch, counts as the whole TTL). `None` when nothing is left.
pub fn validity_left(ttl: u8, elapsed: Option<u8>, drift: u8) -> Option<u8> {
    let left = i16::from(ttl) - i16::from(elapsed.unwrap_or(ttl)) - i16::from(drift);
    u8::try_from(left).ok().filter(|v| *v > 0)
}

#[cfg(test)]
mod tests {
    use super::validity_left;

    #[test]
    fn validity_is_what_the_ttl_leaves_after_the_round_trip_and_the_drift() {
        assert_eq!(validity_left(8, Some(2), 1), Some(5));
        assert_eq!(validity_left(5, Some(2), 3), None, "nothing left");
        assert_eq!(validity_left(5, Some(2), 4), None, "less than nothing");
        assert_eq!(
            validity_left(8, None, 0),
            None,
            "an unknown elapsed time is the whole TTL"
        );
    }
}

/// The spec's values (`trace.itf.json`), shared by the families'
/// `TlaMapping::tla_vars` hooks.
pub mod tla {
    use super::{Phase, Script};
    use crate::algorithms::resource::Resource;
    use crate::world::{Program, Tla, WorldState};

    /// `[n \in N |-> f(n)]` over the nodes whose state `f` maps (the
    /// spec's functions over client ids, server ids ...).
    pub fn per_node<A: Program>(state: &WorldState<A>, f: impl Fn(&A::State) -> Option<Tla>) -> Tla {
        Tla::by_id(
            state
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(id, n)| f(&n.state).map(|v| (id, v))),
        )
    }

    /// The first node state `f` maps (a server's, the resource's), or
    /// `None` when there is none.
    pub fn the<A: Program>(state: &WorldState<A>, f: impl Fn(&A::State) -> Option<Tla>) -> Tla {
        state.nodes.iter().find_map(|n| f(&n.state)).unwrap_or_else(Tla::none)
    }

    /// The resource's state, as `get` finds it among the nodes' (its
    /// initial state when there is none).
    pub fn resource<A: Program>(state: &WorldState<A>, get: fn(&A::State) -> Option<&Resource>) -> Resource {
        state
            .nodes
            .iter()
            .find_map(|n| get(&n.state))
            .copied()
            .unwrap_or_default()
    }

    /// A phase as the specs name it (`"Want"`, `"Holding"` ...).
    pub fn phase(p: Phase) -> Tla {
        Tla::Str(format!("{p:?}"))
    }

    /// The script's two variables, `phase` and `left`.
    pub fn script(s: &Script) -> (Tla, Tla) {
        (phase(s.phase), Tla::int(s.left))
    }
}
