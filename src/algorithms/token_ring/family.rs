//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::family::{Family, Row, join, on, quoted};
use crate::scenario::{Scenario, ScenarioError};
use crate::words::Words;
use crate::world::World;

/// The family of `algorithm = "token-ring"` (specs/TokenRing.tla).
pub struct TokenRing;

impl Family for TokenRing {
    const NAME: &'static str = "token-ring";
    const SPEC: &'static str = "TokenRing";
    const SPEC_TEXT: &'static str = include_str!("../../../specs/TokenRing.tla");
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
            Some(if p.rings > 1 { "ring of rings" } else { "single ring" }.into()),
            on(p.regenerate == super::Regenerate::Naive, "naive regeneration"),
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
        // World.tla's Nodes is every node: the ring's size is RingSize.
        set("RingSize", p.nodes.to_string());
        set("Rings", p.rings.to_string());
        set("Regenerate", quoted(p.regenerate.word()));
        set("Timeout", p.timeout.to_string());
        // Extends World.tla but takes only its crashes, restarts and time.
        Ok(&[])
    }

}
