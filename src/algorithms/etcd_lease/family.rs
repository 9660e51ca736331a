//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{join, on, Family, Row};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "etcd-lease"` (specs/EtcdLease.tla).
pub struct EtcdLease;

impl Family for EtcdLease {
    const NAME: &'static str = "etcd-lease";
    const SPEC: &'static str = "EtcdLease";
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
}
