//! locksmith's end-to-end tests, one module per subject, in one test
//! binary: each `tests/*.rs` binary instantiated the checker for every
//! algorithm again and linked on its own, which made a clean CI build spend
//! more time compiling tests than the library (issue 13's CI budget).
//! Run one subject with `cargo test --release --test e2e MODULE::`.

mod common;

mod bad_input;
mod bench;
mod bundled;
mod cli;
mod coordinator;
mod determinism;
mod etcd_conformance;
mod etcd_lease;
mod explore;
mod fidelity;
mod harmless;
mod itf;
mod liveness;
mod lock_table;
mod matrix;
mod primary_replica;
mod progress;
mod random_faults;
mod redis_conformance;
mod redlock;
mod reenact;
mod ricart_agrawala;
mod scenarios;
mod simulate;
mod simulate_props;
mod single_redis;
mod specs;
mod stateright_agrees;
mod svg;
mod symmetry;
mod token_ring;
mod traces;
mod work;
mod zookeeper;
mod zookeeper_conformance;
