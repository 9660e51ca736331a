//! locksmith's end-to-end tests, one module per subject, in one test
//! binary: each `tests/*.rs` binary instantiated the checker for every
//! algorithm again and linked on its own, which made a clean CI build spend
//! more time compiling tests than the library (CI's time budget).
//! Run one subject with `cargo test --release --test e2e MODULE::`.

mod common;

mod bad_input;
mod bench;
mod bundled;
mod checkpoint;
mod cli;
mod committed_walks;
mod coordinator;
mod determinism;
#[cfg(feature = "etcd")]
mod etcd_conformance;
/// Built without the `etcd` feature, the suite that needs the real etcd
/// says loudly that it did not run, and fails under `CI=true`.
#[cfg(not(feature = "etcd"))]
mod etcd_conformance {
    #[test]
    fn the_etcd_server_answers_as_etcd_does() {
        locksmith::real::etcd_not_built();
    }
}
mod etcd_lease;
mod explore;
mod failure_paths;
mod fidelity;
mod harmless;
mod interrupts;
mod itf;
mod json;
mod liveness;
mod lock_table;
mod matrix;
mod memory_bound;
mod own_words;
mod primary_replica;
mod progress;
mod random_faults;
mod readme;
mod redis_conformance;
mod redlock;
mod reenact;
#[cfg(feature = "etcd")]
mod reenact_etcd;
mod reenact_zookeeper;
mod ricart_agrawala;
mod scenarios;
mod simulate;
mod simulate_props;
mod single_redis;
mod specs;
mod stateright_agrees;
mod svg;
mod sweep;
mod symmetry;
mod token_ring;
mod traces;
mod traces_both_ways;
mod wording;
mod work;
mod zookeeper;
mod zookeeper_conformance;
