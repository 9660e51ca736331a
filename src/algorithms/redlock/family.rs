//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::family::{Family, Row, join, on, quoted, WORLD_FAULTS};
use crate::scenario::{Scenario, ScenarioError};
use crate::words::Words;
use crate::world::World;

/// The family of `algorithm = "redlock"` (specs/Redlock.tla).
pub struct Redlock;

impl Family for Redlock {
    const NAME: &'static str = "redlock";
    const SPEC: &'static str = "Redlock";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/Redlock.tla");
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        use super::{Fencing, Restart};
        let name = join(&[
            Some(format!("{} master{}", p.masters, if p.masters == 1 { "" } else { "s" })),
            match p.restart {
                Restart::Empty => None,
                Restart::Fsync => Some("fsync".into()),
                Restart::Delayed => Some("delayed restart".into()),
            },
            match p.fencing {
                Fencing::None => None,
                Fencing::LockValue => Some("lock value as fencing token".into()),
                Fencing::Counter => Some("fencing counter".into()),
            },
            on(p.retry_max == p.retry, "fixed back-off"),
        ]);
        // A delayed restart comes back empty too; it answers nothing until the
        // keys it forgot have expired.
        Row {
            name,
            restarts_empty: p.restart != Restart::Fsync,
            pause_window: p.pause_window,
        }
    }

    fn tla_constants(
        _sc: &Scenario,
        p: &super::Params,
        set: &mut dyn FnMut(&str, String),
    ) -> Result<&'static [&'static str], String> {
        set("Masters", p.masters.to_string());
        set("Clients", p.clients.to_string());
        set("Ttl", p.ttl.to_string());
        set("Timeout", p.timeout.to_string());
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        set("Retry", p.retry.to_string());
        set("RetryMax", p.retry_max.to_string());
        set("RestartMode", quoted(p.restart.word()));
        set("Fencing", quoted(p.fencing.word()));
        set("PauseWindow", quoted(p.pause_window.word()));
        Ok(&WORLD_FAULTS)
    }

}
