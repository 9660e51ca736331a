//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{join, on, Family, Row};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "coordinator"` (specs/Coordinator.tla).
pub struct Coordinator;

impl Family for Coordinator {
    const NAME: &'static str = "coordinator";
    const SPEC: &'static str = "Coordinator";
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        let standby = match p.standby {
            super::Standby::None => "no standby",
            super::Standby::NoState => "standby without state",
            super::Standby::Replicated => "standby with replicated state",
        };
        let name = join(&[
            Some(standby.into()),
            on(
                p.standby != super::Standby::None && p.detector == super::Detector::Restart,
                "restart notice only",
            ),
            on(
                p.client_restart == super::ClientRestart::Notice,
                "client restart notice",
            ),
        ]);
        // The coordinator's queue is in memory, but what its crash costs is
        // decided by the standby: the row says which.
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}
