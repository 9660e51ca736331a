//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{Family, Row, join, on, quoted, boolean};
use crate::scenario::{Scenario, ScenarioError};
use crate::words::Words;
use crate::world::World;

/// The family of `algorithm = "etcd-lease"` (specs/EtcdLease.tla).
pub struct EtcdLease;

impl Family for EtcdLease {
    const NAME: &'static str = "etcd-lease";
    const SPEC: &'static str = "EtcdLease";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/EtcdLease.tla");
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
            Some("lease lock".into()),
            on(p.client == super::ClientKind::Validity, "validity check"),
            on(p.fencing, "revision fencing"),
            on(!p.key_check, "Lock without its own-key check"),
            on(p.unlock == super::Unlock::Delete, "plain Delete unlock"),
        ]);
        Row {
            name,
            restarts_empty: false,
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
        set("Fencing", boolean(p.fencing));
        set("Retry", p.retry.to_string());
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        Ok(&["min_pause"])
    }

}
