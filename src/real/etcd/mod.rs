//! A real etcd for the tests and for `locksmith reenact`: one `etcd`
//! process (Debian's `etcd-server` package, 3.4) as a single-member cluster
//! on free loopback ports (client and peer URLs) with its own temporary data
//! directory, and a blocking client on the `etcd-client` crate that sends
//! the requests clientv3's `concurrency.Session` and `concurrency.Mutex`
//! send (the model's etcd-lease clients follow those).
//!
//! Lease TTLs. etcd raises a granted TTL to its minimum, which its server
//! derives from the Raft timing: `minTTL = ceil((3 · electionTicks / 2) ·
//! heartbeat)` in whole seconds, with `electionTicks = election-timeout /
//! heartbeat-interval`. With the defaults (100 ms, 1000 ms) that is 2 s;
//! started here with `--heartbeat-interval 10 --election-timeout 100` it is
//! ⌈0.15 s⌉ = 1 s, the shortest TTL etcd accepts ([`MIN_TTL`]; a test of
//! this module asserts that a grant of 1 s is answered with TTL 1).
//!
//! Expiry. etcd's lessor looks for expired leases every 500 ms
//! (`lessor.runLoop`), then revokes them through Raft: a lease whose TTL ran
//! out at time E has its keys deleted at some moment in [E, E + 0.5 s +
//! a Raft round]. A keep-alive at or after E is answered TTL 0 once the
//! revoke is applied (`lessor.Renew` waits for it), never a renewal.

mod client;
mod server;

pub use client::{Acquired, EtcdClient, KeyInfo, WatchEvent, WatchId};
pub use etcd_client::Error;
pub use server::EtcdServer;

use std::path::PathBuf;
use std::time::Duration;

/// The shortest lease TTL (seconds) that the servers started here honour.
pub const MIN_TTL: i64 = 1;

/// `--heartbeat-interval` and `--election-timeout` (ms): small, so that
/// [`MIN_TTL`] is 1 s (module doc) and a restarted member elects itself
/// within a tenth of a second.
const HEARTBEAT_MS: u32 = 10;
const ELECTION_MS: u32 = 100;

/// How long a start may take before it counts as failed.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// Every request's timeout (a loaded CI machine is slow).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Where `etcd` is: `$ETCD_SERVER` if set, else the first `etcd` on
/// `PATH`, else Debian's `/usr/bin/etcd`.
pub fn find_etcd() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ETCD_SERVER") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    super::process::on_path("etcd").or_else(|| {
        let debian = PathBuf::from("/usr/bin/etcd");
        debian.is_file().then_some(debian)
    })
}

/// The `etcd` binary for a test that needs one. Missing, it panics under
/// `CI=true` (CI installs it), and otherwise prints a loud `*** REAL ETCD
/// NOT RUN` line and returns `None`, so the caller returns early and the
/// test passes on a machine without etcd (as [`super::require_redis`]).
pub fn require_etcd() -> Option<PathBuf> {
    if let Some(p) = find_etcd() {
        return Some(p);
    }
    super::process::missing(
        "etcd not found (CI=true): .ci/run installs Debian's etcd-server package; install it with `apt-get install -y etcd-server` or set ETCD_SERVER",
        "REAL ETCD NOT RUN: etcd not found; this test passes without comparing the model with etcd (it fails under CI=true). Install Debian's etcd-server package, or set ETCD_SERVER.",
    );
    None
}

#[cfg(test)]
mod tests {
    use std::thread::sleep;
    use std::time::Duration;

    use super::*;

    /// The shortest TTL is honoured (a grant of 1 s is answered TTL 1, kept
    /// alive it lasts, left alone it expires and takes its key along), and
    /// a kill and restart keeps the data or, without the data directory,
    /// starts a new empty cluster.
    #[test]
    fn a_one_second_lease_expires_and_a_restart_keeps_or_loses_the_data() {
        let Some(bin) = require_etcd() else {
            return;
        };
        let mut s = EtcdServer::start(&bin).expect("etcd starts");
        let mut c = s.connect().expect("connects");
        let (lease, ttl) = c.lease_grant(MIN_TTL).expect("grant");
        assert_eq!(ttl, MIN_TTL, "etcd raised the TTL: its minimum is above {MIN_TTL} s");
        c.put("/lock/a", "", lease).expect("put");
        for _ in 0..4 {
            sleep(Duration::from_millis(400));
            assert_ne!(c.keep_alive(lease).expect("keep-alive"), Some(0));
        }
        assert!(c.get("/lock/a").expect("get").0.is_some(), "kept alive past its TTL");
        sleep(Duration::from_millis(1700));
        assert_eq!(c.get("/lock/a").expect("get").0, None, "expired with its lease");
        assert_eq!(c.keep_alive(lease).expect("keep-alive"), Some(0));
        assert_eq!(c.leases().expect("leases"), Vec::<i64>::new());

        let rev = c.put("/k", "v", 0).expect("put");
        drop(c);
        s.kill();
        assert!(!s.is_running());
        s.restart(true).expect("restarts");
        let mut c = s.connect().expect("connects");
        let (k, now) = c.get("/k").expect("get");
        assert_eq!((k.map(|k| k.mod_revision), now), (Some(rev), rev), "the data survives");
        drop(c);
        s.restart(false).expect("restarts");
        let mut c = s.connect().expect("connects");
        assert_eq!(c.get("/k").expect("get"), (None, 1), "a new, empty cluster");
        let dir = s.dir().to_path_buf();
        drop(c);
        drop(s);
        assert!(!dir.exists(), "Drop removes {}", dir.display());
    }
}
