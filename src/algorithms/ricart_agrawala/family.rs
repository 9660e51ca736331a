//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{Family, Row, join, on};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The family of `algorithm = "ricart-agrawala"` (specs/RicartAgrawala.tla).
pub struct RicartAgrawala;

impl Family for RicartAgrawala {
    const NAME: &'static str = "ricart-agrawala";
    const SPEC: &'static str = "RicartAgrawala";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/RicartAgrawala.tla");
    type Node = super::Node;
    type Params = super::Params;

    fn params(sc: &Scenario) -> Result<super::Params, ScenarioError> {
        super::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<super::Node>, ScenarioError> {
        super::world(sc)
    }

    fn row(p: &super::Params) -> Row {
        let name = join(&[on(p.replies == super::Replies::Tagged, "tagged replies")]);
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
        set("N", p.nodes.to_string());
        // Extends World.tla but takes only its crashes, restarts, loss
        // and duplication.
        Ok(&["loss", "duplicate"])
    }

}
