//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;

/// The family of `algorithm = "ricart-agrawala"` (specs/RicartAgrawala.tla).
pub struct RicartAgrawala;

impl Family for RicartAgrawala {
    names!("ricart-agrawala", "RicartAgrawala");

    fn row(p: &super::Params) -> Row {
        let name = join(&[on(p.replies == super::Replies::Tagged, "tagged replies")]);
        Row::new(name)
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        set("N", p.nodes.to_string());
        // Extends World.tla but takes only its crashes, restarts, loss
        // and duplication.
        Ok(&["loss", "duplicate"])
    }
}
