//! The one registry of algorithm families. A family is a type that
//! implements [`Family`] (in its folder's `family.rs`): its name in scenario
//! files, its TLA+ module, its node program, its parameters, its world and
//! its matrix row. The list in
//! [`families!`] is the only place a family is named; the scenario names
//! allowed (`NAMES`), dispatch, the matrix rows and the ITF modules all
//! come from it, and a family that lacks a part does not compile.

use super::client::PauseWindow;
use super::real::Real;
use super::with_family;
use crate::properties::Lock;
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// An algorithm family, as the tool knows it.
pub trait Family {
    /// The `algorithm` value scenario files name it by.
    const NAME: &'static str;
    /// Its TLA+ module in `specs/` (`Redlock` for `specs/Redlock.tla`).
    const SPEC: &'static str;
    /// That module's text (`include_str!`), for `locksmith show --spec`.
    const SPEC_TEXT: &'static str;
    /// The program of its nodes.
    type Node: Lock;
    /// Its `[system]` parameters, defaults applied.
    type Params;
    /// Reads the scenario's `[system]` table: one sentence naming the file,
    /// the key and what is allowed when a value is not.
    const READ: Reader<Self::Params>;
    /// Builds the scenario's world: its nodes under its faults.
    const BUILD: Builder<Self::Node>;
    /// The scenario's parameters ([`Family::READ`]).
    fn params(sc: &Scenario) -> Result<Self::Params, ScenarioError> {
        (Self::READ)(sc)
    }
    /// The scenario's world ([`Family::BUILD`]).
    fn world(sc: &Scenario) -> Result<World<Self::Node>, ScenarioError> {
        (Self::BUILD)(sc)
    }
    /// Its matrix row: the switches that make a variant of the algorithm.
    fn row(p: &Self::Params) -> Row;
    /// The CONSTANTS a `.cfg` of its spec sets for these parameters (each
    /// given to `set`), and the `[faults]` keys beyond crashes, pauses and
    /// delays the spec models; `Err`, with the reason, when no `.cfg` can
    /// mirror the parameters.
    fn tla_constants(sc: &Scenario, p: &Self::Params, set: Set) -> Extra;
    /// What it is on real servers, for `reenact` ([`Real::None`]: nothing
    /// here enacts its traces).
    fn real(_p: &Self::Params) -> Real {
        Real::None
    }
}

/// A family's reader of its `[system]` parameters.
pub type Reader<P> = fn(&Scenario) -> Result<P, ScenarioError>;
/// A family's builder of a scenario's world.
pub type Builder<N> = fn(&Scenario) -> Result<World<N>, ScenarioError>;
/// Where [`Family::tla_constants`] gives each constant (name, TLA+ value).
pub type Set<'a> = &'a mut dyn FnMut(&str, String);
/// The `[faults]` keys beyond the world's that a spec models, or why no
/// `.cfg` can mirror the parameters.
pub type Extra = Result<&'static [&'static str], String>;

/// What a family's parameters say about its row in the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The variant's switches in words, "" for a family without any.
    pub name: String,
    /// Whether a crashed server comes back without the locks it granted
    /// (Redis without fsync): such a crash is the column "restart without
    /// persistence", not "crash".
    pub restarts_empty: bool,
    /// When the adversary may pause a client.
    pub pause_window: PauseWindow,
}

impl Row {
    /// The row of a variant named `name` whose crashed servers keep their
    /// locks and whose clients may be paused at any moment.
    pub fn new(name: String) -> Row {
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// Work on one family chosen by name at run time ([`with_family`]).
pub trait FamilyJob {
    type Output;
    fn run<F: Family>(self) -> Self::Output;
}

/// The registry: every family, once, in the order of their names, as
/// `folder::Type` (the folder `src/algorithms/<folder>/`, the type its
/// `impl Family`). It declares the folders' modules, so a family is added
/// by its folder and one line in the list in `algorithms/mod.rs`.
macro_rules! families {
    ($($module:ident :: $family:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// The `algorithm` values scenario files may name.
        pub const NAMES: &[&str] = &[$(<$module::$family as $crate::algorithms::family::Family>::NAME),*];

        /// Runs `job` on the family named `name`; `None` when no family has
        /// that name.
        pub fn with_family<J: $crate::algorithms::family::FamilyJob>(name: &str, job: J) -> Option<J::Output> {
            $(
                if name == <$module::$family as $crate::algorithms::family::Family>::NAME {
                    return Some(job.run::<$module::$family>());
                }
            )*
            None
        }
    };
}
pub(crate) use families;

/// The part of a family's `impl Family` that only names things: its
/// `algorithm` value, its spec module (whose text comes from
/// `specs/<Spec>.tla`), and its folder's `Node`, `Params`,
/// `Params::read` and `world`.
macro_rules! names {
    ($name:literal, $spec:literal) => {
        const NAME: &'static str = $name;
        const SPEC: &'static str = $spec;
        const SPEC_TEXT: &'static str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/specs/", $spec, ".tla"));
        type Node = super::Node;
        type Params = super::Params;
        const READ: $crate::algorithms::family::Reader<super::Params> = super::Params::read;
        const BUILD: $crate::algorithms::family::Builder<super::Node> = super::world;
    };
}
pub(crate) use names;

/// The TLA+ module of the family named `algorithm`.
pub fn spec_module(algorithm: &str) -> Option<&'static str> {
    struct Spec;
    impl FamilyJob for Spec {
        type Output = &'static str;
        fn run<F: Family>(self) -> &'static str {
            F::SPEC
        }
    }
    with_family(algorithm, Spec)
}

/// The `[faults]` keys (beyond crashes, pauses and delays) that World.tla
/// models: a spec whose handlers take every world action models them all.
pub const WORLD_FAULTS: [&str; 6] = [
    "min_pause",
    "clock_jumps",
    "max_drift",
    "partitions",
    "loss",
    "duplicate",
];

/// A TLA+ string (for [`Family::tla_constants`]).
pub fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

/// A TLA+ boolean (for [`Family::tla_constants`]).
pub fn boolean(b: bool) -> String {
    if b { "TRUE" } else { "FALSE" }.to_string()
}

/// The TLA+ module text of the family named `algorithm`.
pub fn spec_text(algorithm: &str) -> Option<&'static str> {
    struct Text;
    impl FamilyJob for Text {
        type Output = &'static str;
        fn run<F: Family>(self) -> &'static str {
            F::SPEC_TEXT
        }
    }
    with_family(algorithm, Text)
}

/// The switches that are on, in order, joined by commas (for [`Family::row`]).
pub fn join(parts: &[Option<String>]) -> String {
    parts.iter().flatten().cloned().collect::<Vec<_>>().join(", ")
}

/// `words` when `flag` is on (for [`Family::row`]).
pub fn on(flag: bool, words: &str) -> Option<String> {
    flag.then(|| words.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::NAMES;

    #[test]
    fn names_are_sorted_and_unique() {
        let mut sorted = NAMES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, NAMES);
    }

    #[test]
    fn every_family_has_its_spec_in_specs() {
        for name in NAMES {
            let module = spec_module(name).expect("registered");
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("specs/{module}.tla"));
            assert!(path.is_file(), "{name}: no {}", path.display());
        }
        assert_eq!(spec_module("paxos"), None);
    }
}
