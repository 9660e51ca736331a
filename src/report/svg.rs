//! `trace.svg`: a counterexample as a timeline a person takes in at a
//! glance, in the spirit of Kleppmann's diagrams in "How to do distributed
//! locking" (2016): one lane per node, time flowing down with its ticks
//! drawn, message arrows from send to receipt labelled with the command,
//! pauses and crashes as blocks, each client's belief that it holds the
//! lock as a bar beside its lane, the violation marked where it happens and
//! a liveness loop bracketed. It tells the same story as trace.md, in the
//! same words: [`timeline`] gathers what to draw from the trace, [`draw`]
//! lays it out.

mod draw;
mod timeline;

use std::path::Path;

use crate::check::Counterexample;
use crate::properties::{Lock, Prop};
use crate::scenario::Scenario;
use crate::world::World;

/// The SVG of one counterexample of `prop`.
pub fn trace_svg<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>) -> String {
    draw::render(&timeline::build(sc, world, prop, cx))
}

/// The SVG file beside the trace file `json` (`trace.json` → `trace.svg`,
/// `no_stale_write.trace.json` → `no_stale_write.trace.svg`).
pub fn file_name(json: &Path) -> String {
    let name = json
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!("{}.svg", name.strip_suffix(".json").unwrap_or(&name))
}
