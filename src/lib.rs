//! locksmith: model-check and simulate distributed locks in a seeded,
//! deterministic, faulty world. See docs/design.md for the semantics.

// `#[derive(Rewrite)]` names its trait `::locksmith::world::Rewrite`, so
// that the end-to-end tests' actors can derive it too; this makes the path
// valid inside the crate as well.
extern crate self as locksmith;

pub mod algorithms;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod explore;
pub mod interrupt;
pub mod matrix;
pub mod memory;
#[cfg(test)]
mod module_graph;
pub mod observe;
pub mod progress;
pub mod properties;
pub mod real;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod sweep;
pub mod threads;
pub mod trace;
pub mod words;
pub mod world;

/// The allocator of the binary and of every test that checks in process:
/// the search allocates and frees vectors for each successor, and glibc's
/// malloc took a third of its time (the figures are in
/// CHANGELOG.md, "The checker rewritten for speed"). Set here, not in main.rs, so that the
/// tests run as fast as the tool.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
