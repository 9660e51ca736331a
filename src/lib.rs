//! locksmith: model-check and simulate distributed locks in a seeded,
//! deterministic, faulty world. See DESIGN.md for the semantics.

pub mod algorithms;
pub mod check;
pub mod cli;
pub mod explore;
pub mod matrix;
pub mod progress;
pub mod properties;
pub mod real;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod trace;
pub mod world;
