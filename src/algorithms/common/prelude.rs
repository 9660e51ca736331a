//! What a family's files use from the rest of the tool: the world's actor
//! interface, the shared client and resource, the lock view, the
//! registry's helpers, and the derives every state and message type takes
//! (serde's, and `Pack` for the search's queue). A family file starts with
//! `use crate::algorithms::prelude::*;` instead of the same imports in
//! each of the nine folders; its own items shadow these names.

pub use super::client::{leases_view, scripts_view, show, tla, validity_left, ClientLease, PauseWindow, Phase, Script};
pub use super::lease::{arm_validity, validity_holds, ClientKind, Elapsed};
pub use super::one_server::{OneServer, OneServerState};
pub use super::resource::{send_write, tla_tokenless, Resource, ResourceMsg};
pub(crate) use super::{client_timing, parts};
pub(crate) use crate::algorithms::family::names;
pub use crate::algorithms::family::{boolean, join, on, quoted, Extra, Family, Row, Set, WORLD_FAULTS};
pub use crate::algorithms::Layout;
pub use crate::properties::{Lock, LockView, FOREIGN_RELEASE};
pub use crate::scenario::typed::{Flag, Whole, Within, Word};
pub use crate::scenario::{Scenario, ScenarioError};
pub use crate::words::{field, Words};
pub use crate::world::{Actor, Ctx, Describe, Id, Out, Plain, Renumber, Role, Seq, Tla, TlaMapping, World, WorldState};
// The trait and its derive, `#[derive(Rewrite)]` (src/world/rewrite.rs).
pub use crate::world::Rewrite;
// The queue's byte form, `#[derive(Pack)]` (src/world/pack.rs).
pub use crate::world::Pack;
pub use serde::{Deserialize, Serialize};
