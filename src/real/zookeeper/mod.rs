//! A real ZooKeeper for the tests and for `locksmith reenact`: one
//! standalone server (Debian's `zookeeper` package, 3.8, on the machine's
//! Java) on a free loopback port with its own data directory and
//! configuration; a loopback TCP proxy that the test owns, to drop a
//! client's connection and refuse new ones until it heals; and a
//! synchronous client over the `zookeeper-client` crate, so that
//! reconnection, pings, SetWatches and the errors a caller sees
//! (CONNECTION_LOSS, SESSION_EXPIRED) are a real library's, not ours.
//!
//! The server is started as Debian's `zkServer.sh` starts it, without the
//! script: `java -cp /usr/share/java/zookeeper.jar
//! org.apache.zookeeper.server.ZooKeeperServerMain zoo.cfg` (the jar's
//! manifest names its dependencies under /usr/share/java). The
//! configuration: a short `tickTime` (the session timeouts a client may
//! ask for are 2 to 600 ticks), no admin server, the `srvr` four-letter
//! word only (readiness: "Mode: standalone").

use std::path::PathBuf;
use std::time::Duration;

mod client;
mod proxy;
mod server;

pub use client::{block, Event, ZkClient};
pub use proxy::Proxy;
pub use server::ZkServer;
pub use zookeeper_client as zk;

use crate::real::process::{missing, on_path};

/// Debian's jar; its manifest's Class-Path names the rest.
const DEBIAN_JAR: &str = "/usr/share/java/zookeeper.jar";

/// How long a start may take (a JVM on a loaded CI machine is slow).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long one client call may take before the wrapper gives up
/// ([`zk::Error::Timeout`]); a request pending on a broken connection is
/// failed by the library itself much sooner.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// Where ZooKeeper is: the `java` to run it with and the jar.
#[derive(Clone, Debug)]
pub struct ZkInstall {
    pub java: PathBuf,
    pub jar: PathBuf,
}

/// `$ZOOKEEPER_JAR` (else Debian's `/usr/share/java/zookeeper.jar`) and the
/// first `java` on `PATH`; `None` if either is missing.
pub fn find_zookeeper() -> Option<ZkInstall> {
    let jar = std::env::var_os("ZOOKEEPER_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEBIAN_JAR));
    if !jar.is_file() {
        return None;
    }
    let java = on_path("java")?;
    Some(ZkInstall { java, jar })
}

/// ZooKeeper for a test that needs it. Missing, it panics under `CI=true`
/// (CI installs it), and otherwise prints a loud `*** REAL ZOOKEEPER NOT
/// RUN` line and returns `None`, so the test passes on a machine without it.
pub fn require_zookeeper() -> Option<ZkInstall> {
    let found = find_zookeeper();
    if found.is_none() {
        missing(
            "ZooKeeper not found (CI=true): .ci/run installs Debian's zookeeper package (and a Java); install it with `apt-get install -y zookeeper` or set ZOOKEEPER_JAR",
            &format!("REAL ZOOKEEPER NOT RUN: {DEBIAN_JAR} (or java) not found; this test passes without comparing the model with ZooKeeper (it fails under CI=true). Install Debian's zookeeper package, or set ZOOKEEPER_JAR."),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::net::SocketAddr;
    use std::sync::mpsc;
    use std::thread::sleep;

    use super::*;

    /// Start, create an ephemeral sequential node, see it from a second
    /// session; the first session dropped (no closeSession) expires after
    /// its timeout and takes the node with it, firing the second's watch;
    /// a cut through the proxy fails a pending request with
    /// CONNECTION_LOSS and the session survives a heal within its timeout.
    #[test]
    fn a_dropped_session_expires_and_a_cut_connection_comes_back() {
        let Some(install) = require_zookeeper() else {
            return;
        };
        let server = ZkServer::start(&install, 100).expect("ZooKeeper starts");
        let _ = writeln!(io::stderr(), "ZooKeeper started in {:?}", server.started_in);
        assert!(
            server.srvr().expect("srvr").contains("3.8"),
            "{}",
            server.srvr().unwrap()
        );
        let timeout = Duration::from_millis(1000);
        let a = ZkClient::connect(&server.addr(), timeout).expect("connects");
        a.ensure("/lock").expect("/lock");
        let (name, seq, stat) = a.create_ephemeral_sequential("/lock/_c_g1-lock-").expect("creates");
        assert_eq!((name.as_str(), seq), ("_c_g1-lock-0000000000", 0));
        let proxy = Proxy::start(SocketAddr::from(([127, 0, 0, 1], server.port()))).expect("proxy");
        let b = ZkClient::connect(&proxy.addr(), timeout).expect("connects");
        assert_eq!(b.children("/lock", true).expect("lists"), vec![name.clone()]);
        let st = b
            .exists(&format!("/lock/{name}"), true)
            .expect("exists")
            .expect("a stat");
        assert_eq!(st.czxid, stat.czxid);
        assert_eq!(st.ephemeral_owner, a.session_id());
        // A request held by the frozen proxy fails with CONNECTION_LOSS
        // when the connection drops; the session lives on after a heal.
        proxy.freeze();
        let (done_tx, done_rx) = mpsc::channel();
        let fut = b.client().check_stat("/lock");
        std::thread::spawn(move || {
            let _ = done_tx.send(block(CALL_TIMEOUT, fut));
        });
        sleep(Duration::from_millis(50));
        proxy.cut();
        let pending = done_rx.recv_timeout(Duration::from_secs(5)).expect("answered");
        assert!(matches!(pending, Err(zk::Error::ConnectionLoss)), "{pending:?}");
        let session = b.session_id();
        proxy.heal();
        let listed = b.children("/lock", false).expect("lists after the heal");
        assert_eq!(listed, vec![name.clone()]);
        assert_eq!(b.session_id(), session);
        // a stops (its connection closes without closeSession): its
        // session expires, its node goes, and both of b's watches
        // (re-registered on b's new connection) fire.
        drop(a);
        let mut events = b.events(2, Duration::from_secs(5));
        events.sort_by_key(|e| e.kind.to_string());
        let kinds: Vec<_> = events.iter().map(|e| (e.kind, e.path.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (zk::EventType::NodeChildrenChanged, "/lock"),
                (zk::EventType::NodeDeleted, format!("/lock/{name}").as_str()),
            ]
        );
        assert!(b.children("/lock", false).expect("lists").is_empty());
    }
}
