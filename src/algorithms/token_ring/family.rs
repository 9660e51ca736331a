//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;

/// The family of `algorithm = "token-ring"` (specs/TokenRing.tla).
pub struct TokenRing;

impl Family for TokenRing {
    names!("token-ring", "TokenRing");

    fn row(p: &super::Params) -> Row {
        let name = join(&[
            Some(if p.rings > 1 { "ring of rings" } else { "single ring" }.into()),
            on(p.regenerate == super::Regenerate::Naive, "naive regeneration"),
        ]);
        Row::new(name)
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        // World.tla's Nodes is every node: the ring's size is RingSize.
        set("RingSize", p.nodes.to_string());
        set("Rings", p.rings.to_string());
        set("Regenerate", quoted(p.regenerate.word()));
        set("Timeout", p.timeout.to_string());
        // Extends World.tla but takes only its crashes, restarts and time.
        Ok(&[])
    }
}
