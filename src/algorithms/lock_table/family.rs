//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::family::{Family, Row, join, on, quoted, boolean, WORLD_FAULTS};
use crate::scenario::{Scenario, ScenarioError};
use crate::words::Words;
use crate::world::World;

/// The family of `algorithm = "lock-table"` (specs/LockTable.tla).
pub struct LockTable;

impl Family for LockTable {
    const NAME: &'static str = "lock-table";
    const SPEC: &'static str = "LockTable";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/LockTable.tla");
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

    fn tla_constants(
        _sc: &Scenario,
        p: &super::Params,
        set: &mut dyn FnMut(&str, String),
    ) -> Result<&'static [&'static str], String> {
        set("Clients", p.clients.to_string());
        set("Expiry", boolean(p.expiry));
        set("Ttl", p.ttl.to_string());
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        set("Retry", p.retry.to_string());
        set("PauseWindow", quoted(p.pause_window.word()));
        Ok(&WORLD_FAULTS)
    }

}
