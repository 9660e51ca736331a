//! The lock-level properties (docs/design.md section 5), defined once over the
//! lock view so that every algorithm is checked by the same code.

use serde::Serialize;
use stateright::Property;

use crate::world::{Actor, Describe, Renumber, TlaMapping, World, WorldState};

/// History flag: a release removed a lock another client acquired.
pub const FOREIGN_RELEASE: u32 = 1;
/// History flag: the resource accepted a write made under an earlier
/// acquisition after one made under a later acquisition.
pub const STALE_WRITE: u32 = 2;

/// What the properties see of a state. Bit `i` of a mask is node `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockView {
    /// Clients that believe they hold the lock.
    pub holding: u64,
    /// Clients that want the lock and may not use it yet (a client can be
    /// in both masks: a Redlock client between its majority and its
    /// validity check believes it holds the lock but still wants it).
    pub wanting: u64,
    /// Holders in shared (read) mode; 0 in every family without readers,
    /// where `rw_exclusion` is `mutual_exclusion`.
    pub shared: u64,
}

/// Clients granted the lock between two states: those that wanted it and
/// no longer do. A client holds the lock from the step at which it may use
/// it; a momentary win it cannot use (a Redlock majority whose validity
/// check fails) leaves it wanting, so a loop of such wins is a liveness
/// violation (docs/design.md §5). Used by the liveness pass and by replay.
pub fn acquired(wanting_before: u64, wanting_after: u64) -> u64 {
    wanting_before & !wanting_after
}

/// An algorithm whose states have a lock view.
pub trait Lock: Actor + Describe + Renumber + TlaMapping {
    /// The view as the algorithm's clients see it. Crashed clients are
    /// masked out by [`view`], so this need not look at node status.
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView;

    /// Whether some clients of `world` hold the lock in shared mode (the
    /// read-write recipe's readers); only then is `rw_exclusion` checked
    /// and reported.
    fn shared(_world: &World<Self>) -> bool {
        false
    }
}

/// The lock view of `state`, counting only running (not crashed) clients.
pub fn view<A: Lock>(world: &World<A>, state: &WorldState<A>) -> LockView {
    let v = A::lock_view(world, state);
    let running = state
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.is_down())
        .fold(0u64, |m, (i, _)| m | 1 << i);
    LockView {
        holding: v.holding & running,
        wanting: v.wanting & running,
        shared: v.shared & running,
    }
}

/// The five properties, in report order, and `rw_exclusion`, reported
/// only for worlds with shared holders (after `mutual_exclusion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Prop {
    MutualExclusion,
    RwExclusion,
    NoStaleWrite,
    NoForeignRelease,
    DeadlockFreedom,
    StarvationFreedom,
}

impl Prop {
    pub const ALL: [Prop; 5] = [
        Prop::MutualExclusion,
        Prop::NoStaleWrite,
        Prop::NoForeignRelease,
        Prop::DeadlockFreedom,
        Prop::StarvationFreedom,
    ];
    pub const SAFETY: [Prop; 3] = [Prop::MutualExclusion, Prop::NoStaleWrite, Prop::NoForeignRelease];

    /// The properties checked in `world`, in report order: the five, and
    /// `rw_exclusion` after `mutual_exclusion` where clients share the lock.
    pub fn checked<A: Lock>(world: &World<A>) -> Vec<Prop> {
        let mut props = Prop::ALL.to_vec();
        if A::shared(world) {
            props.insert(1, Prop::RwExclusion);
        }
        props
    }

    pub fn name(self) -> &'static str {
        match self {
            Prop::MutualExclusion => "mutual_exclusion",
            Prop::RwExclusion => "rw_exclusion",
            Prop::NoStaleWrite => "no_stale_write",
            Prop::NoForeignRelease => "no_foreign_release",
            Prop::DeadlockFreedom => "deadlock_freedom",
            Prop::StarvationFreedom => "starvation_freedom",
        }
    }

    pub fn from_name(name: &str) -> Option<Prop> {
        Prop::ALL
            .into_iter()
            .chain([Prop::RwExclusion])
            .find(|p| p.name() == name)
    }

    pub fn is_safety(self) -> bool {
        Prop::SAFETY.contains(&self) || self == Prop::RwExclusion
    }

    /// One line a person reads: what the property promises.
    pub fn meaning(self) -> &'static str {
        match self {
            Prop::MutualExclusion => "never two clients that both believe they hold the lock",
            Prop::RwExclusion => "never a writer that believes it holds the lock together with any other holder",
            Prop::NoStaleWrite => {
                "the resource never accepts a write made under an earlier acquisition after one made under a later one"
            }
            Prop::NoForeignRelease => "a release never removes a lock that another client acquired",
            Prop::DeadlockFreedom => {
                "once faults stop, whenever a running client wants the lock, some client eventually acquires it"
            }
            Prop::StarvationFreedom => {
                "once faults stop, every running client that wants the lock eventually acquires it"
            }
        }
    }
}

/// Whether a safety property holds in one state.
pub fn safe<A: Lock>(prop: Prop, world: &World<A>, state: &WorldState<A>) -> bool {
    holds(prop, || view(world, state), state)
}

/// [`safe`], the lock view given by `view` (called only for a property
/// that reads it): the search, which records each new state's view,
/// computes it once for the facts and the properties.
pub fn holds<A: Lock>(prop: Prop, view: impl FnOnce() -> LockView, state: &WorldState<A>) -> bool {
    match prop {
        Prop::MutualExclusion => view().holding.count_ones() <= 1,
        Prop::RwExclusion => {
            let v = view();
            v.holding.count_ones() <= 1 || v.holding & !v.shared == 0
        }
        Prop::NoStaleWrite => state.history & STALE_WRITE == 0,
        Prop::NoForeignRelease => state.history & FOREIGN_RELEASE == 0,
        Prop::DeadlockFreedom | Prop::StarvationFreedom => true,
    }
}

/// The safety properties as stateright properties, for its checkers and
/// explorer. Liveness is locksmith's own pass (`check::liveness`):
/// stateright's `eventually` misses violations on cycles (docs/design.md §12).
pub fn stateright_properties<A: Lock>() -> Vec<Property<World<A>>> {
    vec![
        Property::always("mutual_exclusion", |w, s| safe(Prop::MutualExclusion, w, s)),
        Property::always("no_stale_write", |w, s| safe(Prop::NoStaleWrite, w, s)),
        Property::always("no_foreign_release", |w, s| safe(Prop::NoForeignRelease, w, s)),
    ]
}

/// `rw_exclusion` as a stateright property, for worlds with shared holders.
pub fn rw_exclusion_property<A: Lock>() -> Property<World<A>> {
    Property::always("rw_exclusion", |w, s| safe(Prop::RwExclusion, w, s))
}
