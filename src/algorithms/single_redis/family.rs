//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{Family, Row, join, on, quoted, boolean, WORLD_FAULTS};
use crate::scenario::{Scenario, ScenarioError};
use crate::words::Words;
use crate::world::World;

/// The family of `algorithm = "single-redis"` (specs/SingleRedis.tla).
pub struct SingleRedis;

impl Family for SingleRedis {
    const NAME: &'static str = "single-redis";
    const SPEC: &'static str = "SingleRedis";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/SingleRedis.tla");
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Command, Release, Restart};
        let command = match p.command {
            Command::Setnx => "SETNX",
            Command::SetnxExpire => "SETNX then EXPIRE",
            Command::SetNxPx => "SET NX PX",
        };
        let release = match p.release {
            Release::Del => "DEL",
            Release::CompareAndDelete => "compare-and-delete",
        };
        let name = join(&[
            Some(format!("{command} + {release}")),
            on(p.client == ClientKind::Validity, "validity check"),
            on(p.watchdog, "watchdog"),
            on(p.fencing, "fencing token"),
            on(p.restart == Restart::Fsync, "fsync"),
        ]);
        Row {
            name,
            restarts_empty: p.restart == Restart::Empty,
            pause_window: PauseWindow::Any,
        }
    }

    fn tla_constants(
        _sc: &Scenario,
        p: &super::Params,
        set: &mut dyn FnMut(&str, String),
    ) -> Result<&'static [&'static str], String> {
        set("Clients", p.clients.to_string());
        set("Ttl", p.ttl.to_string());
        set("Command", quoted(p.command.word()));
        set("ReleaseCommand", quoted(p.release.word()));
        set("Watchdog", boolean(p.watchdog));
        set("Fencing", boolean(p.fencing));
        set("Retry", p.retry.to_string());
        set("RestartMode", quoted(p.restart.word()));
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        Ok(&WORLD_FAULTS)
    }

}
