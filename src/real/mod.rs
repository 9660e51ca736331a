//! Real Redis processes for the tests and for `locksmith reenact`: a model
//! is only as good as its match with the system it stands for, so the
//! conformance suite (tests/e2e/redis_conformance.rs) and the reenactments run
//! the same commands on real `redis-server` processes (Debian's package).
//!
//! [`server::RedisServer`] starts one process on a free loopback port with
//! its own temporary directory, and stops it (and removes the directory)
//! when dropped, so servers stop even when a test fails.

mod process;
pub mod server;

pub use server::{Persistence, RedisServer, Role, SentinelTiming, SENTINEL_MASTER};

use std::path::PathBuf;

/// Where `redis-server` is: `$REDIS_SERVER` if set, else the first
/// `redis-server` on `PATH`, else Debian's `/usr/bin/redis-server`.
pub fn find_redis() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("REDIS_SERVER") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    process::on_path("redis-server").or_else(|| {
        let debian = PathBuf::from("/usr/bin/redis-server");
        debian.is_file().then_some(debian)
    })
}

/// The `redis-server` binary for a test that needs one. Missing, it panics
/// under `CI=true` (CI installs it, so a missing one is a broken CI, not a
/// pass), and otherwise prints a loud `*** REAL REDIS NOT RUN` line and
/// returns `None`, so the caller returns early and the test passes on a
/// machine without Redis.
pub fn require_redis() -> Option<PathBuf> {
    let found = find_redis();
    if found.is_none() {
        process::missing(
            "redis-server not found (CI=true): .ci/run installs Debian's redis-server package; install it with `apt-get install -y redis-server` or set REDIS_SERVER",
            "REAL REDIS NOT RUN: redis-server not found; this test passes without comparing the model with Redis (it fails under CI=true). Install Debian's redis-server package, or set REDIS_SERVER.",
        );
    }
    found
}

pub mod reenact;

/// A real standalone ZooKeeper (Debian's `zookeeper` package), a proxy to
/// cut a client's connection, and a client over the `zookeeper-client`
/// crate: tests/e2e/zookeeper_conformance.rs and reenact use them.
pub mod zookeeper;

pub use zookeeper::{require_zookeeper, Proxy, ZkClient, ZkInstall, ZkServer};
/// A real etcd (Debian's `etcd-server`, 3.4) and a blocking client on the
/// `etcd-client` crate, for tests/e2e/etcd_conformance.rs and reenact; only
/// with the `etcd` feature, since that crate's build needs `protoc`.
#[cfg(feature = "etcd")]
pub mod etcd;

/// Without the `etcd` feature this locksmith has no etcd client: what would
/// run the real etcd calls this instead, which panics under `CI=true` (CI
/// builds the feature, so this is a broken CI, not a pass) and otherwise
/// says loudly that the real etcd was not run.
#[cfg(not(feature = "etcd"))]
pub fn etcd_not_built() {
    process::missing(
        "built without the `etcd` feature (CI=true): .ci/run runs `cargo test --release --features etcd`",
        "REAL ETCD NOT RUN: locksmith was built without the `etcd` feature (its client's build needs protoc); run `cargo test --release --features etcd` to compare the model with etcd",
    );
}
