//! `reenact` on a real ZooKeeper (in progress).
use crate::properties::Prop;
use crate::scenario::Scenario;
use crate::trace::{Replay, TraceFile};

use super::Options;

pub fn reenact(shown: &str, _trace: &TraceFile, _prop: Prop, _sc: &Scenario, _opts: &Options) -> (String, Replay) {
    (
        String::new(),
        Replay::Invalid(format!("{shown}: cannot be enacted: not yet")),
    )
}
