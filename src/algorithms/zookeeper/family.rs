//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{join, on, Family, Row};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "zookeeper"` (specs/ZooKeeperLock.tla).
pub struct ZooKeeper;

impl Family for ZooKeeper {
    const NAME: &'static str = "zookeeper";
    const SPEC: &'static str = "ZooKeeperLock";
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Recipe, Watch};
        let name = join(&[
            Some(
                match p.recipe {
                    Recipe::Lock => "lock recipe",
                    Recipe::RwLock => "read-write recipe",
                }
                .into(),
            ),
            Some(
                match p.watch {
                    Watch::Predecessor => "watch predecessor",
                    Watch::All => "watch all children",
                }
                .into(),
            ),
            on(p.client == ClientKind::Curator, "Curator SUSPENDED check"),
            on(p.fencing, "zxid fencing"),
            on(!p.protection, "no protection prefix"),
        ]);
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}
