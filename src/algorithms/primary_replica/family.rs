//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{join, on, Family, Row};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "primary-replica"` (specs/PrimaryReplica.tla).
pub struct PrimaryReplica;

impl Family for PrimaryReplica {
    const NAME: &'static str = "primary-replica";
    const SPEC: &'static str = "PrimaryReplica";
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Replication};
        let replication = match p.replication {
            Replication::Async => "async replication".to_string(),
            Replication::Wait => format!("SET + WAIT {} {}", p.wait_replicas, p.wait_timeout),
        };
        let name = join(&[
            Some(replication),
            on(p.replicas != 1, &format!("{} replicas", p.replicas)),
            on(p.client == ClientKind::Validity, "validity check"),
            on(
                p.sentinels != 1,
                &format!("{} Sentinels, quorum {}", p.sentinels, p.quorum),
            ),
            on(p.min_replicas > 0, &format!("min-replicas-to-write {}", p.min_replicas)),
        ]);
        // A crashed Redis restarts empty but serves nothing until Sentinel has
        // made it a replica: what a crash costs here is the failover.
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}
