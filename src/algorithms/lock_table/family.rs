//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::family::{join, on, Family, Row};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "lock-table"` (specs/LockTable.tla).
pub struct LockTable;

impl Family for LockTable {
    const NAME: &'static str = "lock-table";
    const SPEC: &'static str = "LockTable";
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        let name = join(&[
            Some(if p.expiry { "expiry column" } else { "no expiry" }.into()),
            on(p.client == super::ClientKind::Validity, "validity check"),
        ]);
        // The database is durable: its rows survive its crashes.
        Row {
            name,
            restarts_empty: false,
            pause_window: p.pause_window,
        }
    }
}
