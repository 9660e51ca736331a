//! One module per algorithm family, each a set of actors written against
//! the world's actor trait, its parameters and its lock view. Adding a
//! family touches its module, its spec, its scenarios and one line in
//! [`dispatch`].

pub mod client;
pub mod lock_table;
pub mod primary_replica;
pub mod redlock;
pub mod resource;
pub mod single_redis;

use crate::properties::{stateright_properties, Lock};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Role, World};

/// The `algorithm` values scenario files may name.
pub const NAMES: &[&str] = &["lock-table", "primary-replica", "redlock", "single-redis"];

/// Work to do on a scenario's world, whatever its algorithm.
pub trait Job {
    type Output;
    fn run<A: Lock>(self, scenario: &Scenario, world: World<A>) -> Self::Output;
}

/// Builds the scenario's world and runs `job` on it.
pub fn dispatch<J: Job>(scenario: &Scenario, job: J) -> Result<J::Output, ScenarioError> {
    Ok(match scenario.algorithm.as_str() {
        "lock-table" => job.run(scenario, lock_table::world(scenario)?),
        "primary-replica" => job.run(scenario, primary_replica::world(scenario)?),
        "redlock" => job.run(scenario, redlock::world(scenario)?),
        "single-redis" => job.run(scenario, single_redis::world(scenario)?),
        other => {
            return Err(ScenarioError(format!(
                "{}: algorithm = \"{other}\" is unknown; allowed: {}",
                scenario.path.display(),
                NAMES.join(", ")
            )))
        }
    })
}

/// Checks the algorithm's `[system]` table by building its world, and that
/// a scenario asking for symmetry reduction has nodes to reduce.
pub fn validate(scenario: &Scenario) -> Result<(), ScenarioError> {
    struct Groups;
    impl Job for Groups {
        type Output = usize;
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> usize {
            world.symmetry.len()
        }
    }
    if dispatch(scenario, Groups)? == 0 && scenario.symmetry {
        return Err(ScenarioError(format!(
            "{}: [bounds] symmetry = true, but algorithm = \"{}\" has no interchangeable nodes in this configuration; allowed: false",
            scenario.path.display(),
            scenario.algorithm
        )));
    }
    Ok(())
}

/// A world of one server (node 0, named `server.1`), `clients` clients
/// (`c1`..) and the protected resource (last).
pub fn one_server_world<A: Lock>(sc: &Scenario, server: (A, &str), client: A, clients: u8, resource: A) -> World<A> {
    let mut actors = vec![server.0];
    let mut names = vec![server.1.to_string()];
    let mut roles = vec![Role::Server];
    for i in 1..=clients {
        actors.push(client.clone());
        names.push(format!("c{i}"));
        roles.push(Role::Client);
    }
    actors.push(resource);
    names.push("resource".into());
    roles.push(Role::Observer);
    World {
        actors,
        names,
        roles,
        faults: sc.faults.clone(),
        properties: stateright_properties(),
        symmetry: Vec::new(),
    }
}
