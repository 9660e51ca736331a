//! One module per algorithm family, each a set of actors written against
//! the world's actor trait, its parameters and its lock view, registered
//! once in the list below. Adding a family touches its folder, one line in
//! that list, its specs, its scenarios and its tests (CONTRIBUTING.md,
//! "Adding a family").

pub mod common;
pub mod family;

pub use common::{client, lease, prelude, real, resource};
pub use family::{spec_module, spec_text, Family, FamilyJob, Row};

family::families!(
    coordinator::Coordinator,
    etcd_lease::EtcdLease,
    lock_table::LockTable,
    primary_replica::PrimaryReplica,
    redlock::Redlock,
    ricart_agrawala::RicartAgrawala,
    single_redis::SingleRedis,
    token_ring::TokenRing,
    zookeeper::ZooKeeper,
);

use crate::properties::{stateright_properties, Lock, Prop};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Id, Role, World};

/// Work to do on a scenario's world, whatever its algorithm.
pub trait Job {
    type Output;
    fn run<A: Lock>(self, scenario: &Scenario, world: World<A>) -> Self::Output;
}

/// Builds the scenario's world and runs `job` on it.
pub fn dispatch<J: Job>(scenario: &Scenario, job: J) -> Result<J::Output, ScenarioError> {
    struct Build<'a, J>(&'a Scenario, J);
    impl<J: Job> FamilyJob for Build<'_, J> {
        type Output = Result<J::Output, ScenarioError>;
        fn run<F: Family>(self) -> Self::Output {
            Ok(self.1.run(self.0, F::world(self.0)?))
        }
    }
    with_family(&scenario.algorithm, Build(scenario, job)).unwrap_or_else(|| {
        Err(ScenarioError(format!(
            "{}: algorithm = \"{}\" is unknown; allowed: {}",
            scenario.path.display(),
            scenario.algorithm,
            NAMES.join(", ")
        )))
    })
}

/// Checks the algorithm's `[system]` table by building its world, that
/// a scenario asking for symmetry reduction has nodes to reduce, and that
/// one expecting a verdict on `rw_exclusion` has readers.
pub fn validate(scenario: &Scenario) -> Result<(), ScenarioError> {
    struct Groups;
    impl Job for Groups {
        type Output = (usize, bool);
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> (usize, bool) {
            (world.symmetry.len(), A::shared(&world))
        }
    }
    let (groups, shared) = dispatch(scenario, Groups)?;
    if !shared && scenario.expected(Prop::RwExclusion).is_some() {
        return Err(ScenarioError(format!(
            "{}: [expect] rw_exclusion is checked only where readers share the lock (algorithm = \"zookeeper\" with recipe = \"rwlock\"); allowed here: mutual_exclusion",
            scenario.path.display()
        )));
    }
    if groups == 0 && scenario.symmetry {
        return Err(ScenarioError(format!(
            "{}: [bounds] symmetry = true, but algorithm = \"{}\" has no interchangeable nodes in this configuration; allowed: false",
            scenario.path.display(),
            scenario.algorithm
        )));
    }
    Ok(())
}

/// The nodes of a world in id order, as an algorithm lays them out.
pub struct Layout<A: Lock> {
    actors: Vec<A>,
    names: Vec<String>,
    roles: Vec<Role>,
}

impl<A: Lock> Default for Layout<A> {
    fn default() -> Self {
        Layout {
            actors: Vec::new(),
            names: Vec::new(),
            roles: Vec::new(),
        }
    }
}

impl<A: Lock> Layout<A> {
    /// Adds one node; returns its id.
    pub fn node(&mut self, actor: A, name: impl Into<String>, role: Role) -> Id {
        self.actors.push(actor);
        self.names.push(name.into());
        self.roles.push(role);
        self.actors.len() - 1
    }

    /// Adds `count` nodes running `actor`, named `{prefix}1`, `{prefix}2`...;
    /// returns their ids.
    pub fn nodes(&mut self, actor: &A, prefix: &str, count: u8, role: Role) -> Vec<Id> {
        (1..=count)
            .map(|i| self.node(actor.clone(), format!("{prefix}{i}"), role))
            .collect()
    }

    /// The world of these nodes under the scenario's faults. `symmetry`:
    /// groups of interchangeable nodes, empty for none.
    #[must_use]
    pub fn world(self, sc: &Scenario, symmetry: Vec<Vec<Id>>) -> World<A> {
        World {
            actors: self.actors,
            names: self.names,
            roles: self.roles,
            faults: sc.faults.clone(),
            properties: stateright_properties(),
            symmetry,
        }
    }
}

/// A world of one server (node 0), `clients` clients (`c1`..) and the
/// protected resource (last).
pub fn one_server_world<A: Lock>(sc: &Scenario, server: (A, &str), client: A, clients: u8, resource: A) -> World<A> {
    let mut layout = Layout::default();
    layout.node(server.0, server.1, Role::Server);
    layout.nodes(&client, "c", clients, Role::Client);
    layout.node(resource, "resource", Role::Observer);
    layout.world(sc, Vec::new())
}
