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

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, EventType, GetOptions, LeaseGrantOptions, LeaseKeepAliveStream,
    LeaseKeeper, SortOrder, SortTarget, Txn, TxnOp, TxnOpResponse, WatchOptions, WatchStream,
};
use tokio::runtime::Runtime;

pub use etcd_client::Error;

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

/// A running (or killed, and restartable) single-member etcd.
pub struct EtcdServer {
    bin: PathBuf,
    dir: PathBuf,
    client_port: u16,
    peer_port: u16,
    child: Option<Child>,
}

impl EtcdServer {
    /// Starts a new single-member cluster on free loopback ports in a fresh
    /// temporary directory, and waits until it answers a read. Ports
    /// another process took between our probe and etcd's bind are retried.
    pub fn start(bin: &Path) -> io::Result<EtcdServer> {
        let mut server = EtcdServer {
            bin: bin.to_path_buf(),
            dir: super::process::fresh_dir("etcd")?,
            client_port: 0,
            peer_port: 0,
            child: None,
        };
        let mut last = None;
        for _ in 0..5 {
            server.client_port = super::process::free_port()?;
            server.peer_port = super::process::free_port()?;
            if server.client_port == server.peer_port {
                continue;
            }
            match server.spawn() {
                Ok(()) => return Ok(server),
                Err(e) => {
                    server.kill();
                    let _ = fs::remove_dir_all(server.data_dir());
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("etcd did not start")))
    }

    /// `http://127.0.0.1:PORT`, the client URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    pub fn client_port(&self) -> u16 {
        self.client_port
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The member's data directory (its WAL and bbolt backend).
    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub fn is_running(&mut self) -> bool {
        match &mut self.child {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("etcd.log")).unwrap_or_default()
    }

    /// A new client connection.
    pub fn connect(&self) -> Result<EtcdClient, Error> {
        EtcdClient::connect(&self.endpoint())
    }

    /// A crash: `SIGKILL`, and wait for the process to be gone. etcd
    /// fsyncs its WAL before it answers a write, so what was acknowledged
    /// survives in the data directory.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts the process again on the same ports (killing it first if it
    /// still runs): with `keep_data`, from its data directory (its keys,
    /// leases and revision; etcd gives every lease a fresh TTL plus an
    /// election timeout when the member becomes leader again), otherwise as
    /// a new, empty cluster.
    pub fn restart(&mut self, keep_data: bool) -> io::Result<()> {
        self.kill();
        if !keep_data {
            fs::remove_dir_all(self.data_dir()).or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            })?;
        }
        self.spawn()
    }

    /// Stops the process (`SIGSTOP`) without killing it, until
    /// [`EtcdServer::resume`] (`SIGCONT`).
    pub fn pause(&self) -> io::Result<()> {
        self.signal("STOP")
    }

    pub fn resume(&self) -> io::Result<()> {
        self.signal("CONT")
    }

    fn signal(&self, sig: &str) -> io::Result<()> {
        let pid = self.pid().ok_or_else(|| io::Error::other("etcd is not running"))?;
        let status = Command::new("kill").args(["-s", sig, &pid.to_string()]).status()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!("kill -s {sig} {pid} failed")))
        }
    }

    fn command(&self) -> io::Result<Command> {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("etcd.log"))?;
        let client = self.endpoint();
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        cmd.args(["--name", "locksmith", "--data-dir"])
            .arg(self.data_dir())
            .args(["--listen-client-urls", &client, "--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer, "--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &format!("locksmith={peer}")])
            .args(["--initial-cluster-state", "new"])
            .args(["--heartbeat-interval", &HEARTBEAT_MS.to_string()])
            .args(["--election-timeout", &ELECTION_MS.to_string()])
            .args(["--logger", "zap", "--log-outputs", "stderr"]);
        Ok(cmd)
    }

    /// Starts the process and waits until it answers a read.
    fn spawn(&mut self) -> io::Result<()> {
        self.child = Some(self.command()?.spawn()?);
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if !self.is_running() {
                self.child = None;
                return Err(io::Error::other(format!(
                    "etcd on port {} exited at start; its log:\n{}",
                    self.client_port,
                    self.log()
                )));
            }
            if let Ok(mut c) = self.connect() {
                if c.revision().is_ok() {
                    return Ok(());
                }
            }
            if Instant::now() > deadline {
                let log = self.log();
                self.kill();
                return Err(io::Error::other(format!(
                    "etcd on port {} did not answer within {READY_TIMEOUT:?}; its log:\n{log}",
                    self.client_port
                )));
            }
            sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for EtcdServer {
    /// Kills the process and removes its directory.
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A key as etcd reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    pub key: String,
    pub create_revision: i64,
    pub mod_revision: i64,
    /// The lease it is attached to (0: none).
    pub lease: i64,
}

impl KeyInfo {
    fn of(kv: &etcd_client::KeyValue) -> KeyInfo {
        KeyInfo {
            key: String::from_utf8_lossy(kv.key()).into_owned(),
            create_revision: kv.create_revision(),
            mod_revision: kv.mod_revision(),
            lease: kv.lease(),
        }
    }
}

/// `Mutex.tryAcquire`'s transaction, answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The client's key's create revision (`m.myRev`).
    pub my_rev: i64,
    /// Whether the transaction put the key (false: it existed).
    pub put: bool,
    /// The key with the lowest create revision under the prefix (`getOwner`).
    pub owner: Option<KeyInfo>,
    /// The transaction's header revision.
    pub revision: i64,
}

/// A watch event, as `waitDelete` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchEvent {
    pub delete: bool,
    pub key: String,
    pub mod_revision: i64,
}

/// A blocking etcd v3 client: one gRPC connection (HTTP/2 on TCP) driven
/// by its own current-thread tokio runtime, which runs only while a call
/// runs. Dropping the client closes the connection, which ends its watch
/// and keep-alive streams on the server.
pub struct EtcdClient {
    client: Client,
    /// One keep-alive stream per lease, opened by its first keep-alive.
    keepers: HashMap<i64, (LeaseKeeper, LeaseKeepAliveStream)>,
    watches: Vec<Option<WatchStream>>,
    /// Last, so that it is dropped after the streams and the connection.
    rt: Runtime,
}

/// A watch opened by [`EtcdClient::watch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WatchId(usize);

fn header_revision(h: Option<&etcd_client::ResponseHeader>) -> i64 {
    h.map_or(0, |h| h.revision())
}

impl EtcdClient {
    pub fn connect(endpoint: &str) -> Result<EtcdClient, Error> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::IoError)?;
        let options = ConnectOptions::new()
            .with_connect_timeout(REQUEST_TIMEOUT)
            .with_timeout(REQUEST_TIMEOUT);
        let client = rt.block_on(Client::connect([endpoint], Some(options)))?;
        Ok(EtcdClient {
            rt,
            client,
            keepers: HashMap::new(),
            watches: Vec::new(),
        })
    }

    /// The store's current revision (a read of a key that does not exist).
    pub fn revision(&mut self) -> Result<i64, Error> {
        let r = self.rt.block_on(self.client.get("\0", None))?;
        Ok(header_revision(r.header()))
    }

    /// `LeaseGrant(TTL)` with the server choosing the ID, as clientv3's
    /// `Grant` does: the lease's ID and granted TTL.
    pub fn lease_grant(&mut self, ttl: i64) -> Result<(i64, i64), Error> {
        let r = self.rt.block_on(self.client.lease_grant(ttl, None))?;
        Ok((r.id(), r.ttl()))
    }

    /// `LeaseGrant(TTL, ID)`: a lease with the client's ID.
    pub fn lease_grant_id(&mut self, ttl: i64, id: i64) -> Result<(i64, i64), Error> {
        let opts = LeaseGrantOptions::new().with_id(id);
        let r = self.rt.block_on(self.client.lease_grant(ttl, Some(opts)))?;
        Ok((r.id(), r.ttl()))
    }

    /// `LeaseRevoke(ID)`: its keys are deleted in one revision. An unknown
    /// lease is an error (`requested lease not found`).
    pub fn lease_revoke(&mut self, id: i64) -> Result<i64, Error> {
        self.keepers.remove(&id);
        let r = self.rt.block_on(self.client.lease_revoke(id))?;
        Ok(header_revision(r.header()))
    }

    /// One `LeaseKeepAlive` on the lease's keep-alive stream: the TTL it
    /// renewed, 0 when the lease is gone. `None`: renewed, but this was the
    /// stream's first keep-alive, whose answer `etcd-client` keeps to itself
    /// (it reports only that the TTL was positive).
    pub fn keep_alive(&mut self, id: i64) -> Result<Option<i64>, Error> {
        if let Some((keeper, stream)) = self.keepers.get_mut(&id) {
            let answer = self.rt.block_on(async {
                keeper.keep_alive().await?;
                stream.message().await
            });
            return match answer {
                Ok(Some(r)) => {
                    if r.ttl() <= 0 {
                        self.keepers.remove(&id);
                    }
                    Ok(Some(r.ttl().max(0)))
                }
                Ok(None) => {
                    self.keepers.remove(&id);
                    Err(Error::LeaseKeepAliveError("keep-alive stream closed".into()))
                }
                Err(e) => {
                    self.keepers.remove(&id);
                    Err(e)
                }
            };
        }
        match self.rt.block_on(self.client.lease_keep_alive(id)) {
            Ok(pair) => {
                self.keepers.insert(id, pair);
                Ok(None)
            }
            // etcd-client's answer to TTL 0 on the stream's first keep-alive.
            Err(Error::LeaseKeepAliveError(e)) if e == "lease not found" => Ok(Some(0)),
            Err(e) => Err(e),
        }
    }

    /// `LeaseTimeToLive(ID)`: the seconds left (truncated, as etcd
    /// reports them), or `None` for a lease that does not exist.
    pub fn time_to_live(&mut self, id: i64) -> Result<Option<i64>, Error> {
        let r = self.rt.block_on(self.client.lease_time_to_live(id, None))?;
        Ok((r.ttl() >= 0 && r.granted_ttl() > 0).then_some(r.ttl()))
    }

    /// `LeaseLeases`: the IDs of every live lease, sorted.
    pub fn leases(&mut self) -> Result<Vec<i64>, Error> {
        let r = self.rt.block_on(self.client.leases())?;
        let mut ids: Vec<i64> = r.leases().iter().map(|l| l.id()).collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// `Get(key)`: the key, if it exists, and the header revision.
    pub fn get(&mut self, key: &str) -> Result<(Option<KeyInfo>, i64), Error> {
        let r = self.rt.block_on(self.client.get(key, None))?;
        Ok((r.kvs().first().map(KeyInfo::of), header_revision(r.header())))
    }

    /// Every key under `prefix`, sorted by create revision (oldest first),
    /// and the header revision.
    pub fn range_by_create(&mut self, prefix: &str) -> Result<(Vec<KeyInfo>, i64), Error> {
        let opts = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Ascend);
        let r = self.rt.block_on(self.client.get(prefix, Some(opts)))?;
        Ok((r.kvs().iter().map(KeyInfo::of).collect(), header_revision(r.header())))
    }

    /// `Put(key, value)` attached to `lease` (0: none): the new revision.
    pub fn put(&mut self, key: &str, value: &str, lease: i64) -> Result<i64, Error> {
        let opts = (lease != 0).then(|| etcd_client::PutOptions::new().with_lease(lease));
        let r = self.rt.block_on(self.client.put(key, value, opts))?;
        Ok(header_revision(r.header()))
    }

    /// `Delete(key)`, as clientv3's `Mutex.Unlock` does: how many keys it
    /// deleted, and the header revision.
    pub fn delete(&mut self, key: &str) -> Result<(i64, i64), Error> {
        let r = self.rt.block_on(self.client.delete(key, None))?;
        Ok((r.deleted(), header_revision(r.header())))
    }

    /// `Txn(If(CreateRevision(key) = rev), Then(Delete(key)))`: whether
    /// the compare held, and the header revision.
    pub fn delete_if_created(&mut self, key: &str, rev: i64) -> Result<(bool, i64), Error> {
        let txn = Txn::new()
            .when([Compare::create_revision(key, CompareOp::Equal, rev)])
            .and_then([TxnOp::delete(key, None)]);
        let r = self.rt.block_on(self.client.txn(txn))?;
        Ok((r.succeeded(), header_revision(r.header())))
    }

    /// `Mutex.tryAcquire` (client/v3/concurrency/mutex.go): `Txn(If(
    /// CreateRevision(myKey) = 0), Then(Put(myKey, "", lease), getOwner),
    /// Else(Get(myKey), getOwner))`, `getOwner` being `Get(prefix,
    /// WithFirstCreate())`. A lease that does not exist fails the put
    /// (`requested lease not found`).
    pub fn mutex_try_acquire(&mut self, prefix: &str, my_key: &str, lease: i64) -> Result<Acquired, Error> {
        let first_create = || {
            GetOptions::new()
                .with_prefix()
                .with_sort(SortTarget::Create, SortOrder::Ascend)
                .with_limit(1)
        };
        let put = etcd_client::PutOptions::new().with_lease(lease);
        let txn = Txn::new()
            .when([Compare::create_revision(my_key, CompareOp::Equal, 0)])
            .and_then([
                TxnOp::put(my_key, "", Some(put)),
                TxnOp::get(prefix, Some(first_create())),
            ])
            .or_else([TxnOp::get(my_key, None), TxnOp::get(prefix, Some(first_create()))]);
        let r = self.rt.block_on(self.client.txn(txn))?;
        let revision = header_revision(r.header());
        let ops = r.op_responses();
        let range = |op: Option<&TxnOpResponse>| match op {
            Some(TxnOpResponse::Get(g)) => g.kvs().first().map(KeyInfo::of),
            _ => None,
        };
        let my_rev = if r.succeeded() {
            revision
        } else {
            range(ops.first()).map_or(0, |k| k.create_revision)
        };
        Ok(Acquired {
            my_rev,
            put: r.succeeded(),
            owner: range(ops.get(1)),
            revision,
        })
    }

    /// `waitDeletes`'s query: `Get(prefix, WithLastCreate(),
    /// WithMaxCreateRev(max_create_rev))`, the newest key created at or
    /// before that revision, and the header revision (the watch on it
    /// starts there).
    pub fn last_created_before(&mut self, prefix: &str, max_create_rev: i64) -> Result<(Option<KeyInfo>, i64), Error> {
        let opts = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Descend)
            .with_limit(1)
            .with_max_create_revision(max_create_rev);
        let r = self.rt.block_on(self.client.get(prefix, Some(opts)))?;
        Ok((r.kvs().first().map(KeyInfo::of), header_revision(r.header())))
    }

    /// `Watch(key, WithRev(rev))`, as `waitDelete` opens it; returns once
    /// etcd has confirmed the watch. Events at or after `rev` that
    /// happened already are delivered at once.
    pub fn watch(&mut self, key: &str, rev: i64) -> Result<WatchId, Error> {
        let opts = WatchOptions::new().with_start_revision(rev);
        let mut stream = self.rt.block_on(self.client.watch(key, Some(opts)))?;
        // The watch's first answer says it was created (or why not).
        let created = self
            .rt
            .block_on(async { tokio::time::timeout(REQUEST_TIMEOUT, stream.message()).await });
        match created {
            Ok(Ok(Some(r))) if r.created() && !r.canceled() => {}
            Ok(Ok(Some(r))) => {
                return Err(Error::WatchError(format!(
                    "watch of {key} from revision {rev} not created: {}",
                    r.cancel_reason()
                )))
            }
            Ok(Ok(None)) => return Err(Error::WatchError("watch stream closed".into())),
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Error::WatchError("no answer to the watch".into())),
        }
        self.watches.push(Some(stream));
        Ok(WatchId(self.watches.len() - 1))
    }

    /// The events the watch has received, waiting at most `wait` for the
    /// first (the rest that are already there are taken too). The events
    /// already created were sent in the watch's first answers.
    pub fn watch_events(&mut self, w: WatchId, wait: Duration) -> Result<Vec<WatchEvent>, Error> {
        let Some(stream) = self.watches.get_mut(w.0).and_then(Option::as_mut) else {
            return Err(Error::WatchError("watch cancelled".into()));
        };
        let mut events = Vec::new();
        let mut wait = wait;
        loop {
            let next = self
                .rt
                .block_on(async { tokio::time::timeout(wait, stream.message()).await });
            match next {
                Err(_) => return Ok(events),
                Ok(Ok(Some(r))) => {
                    events.extend(r.events().iter().map(|e| {
                        let kv = e.kv();
                        WatchEvent {
                            delete: e.event_type() == EventType::Delete,
                            key: kv.map_or_else(String::new, |kv| String::from_utf8_lossy(kv.key()).into_owned()),
                            mod_revision: kv.map_or(0, |kv| kv.mod_revision()),
                        }
                    }));
                    if r.canceled() {
                        return Err(Error::WatchError(format!("watch cancelled: {}", r.cancel_reason())));
                    }
                    wait = Duration::from_millis(5);
                }
                Ok(Ok(None)) => return Err(Error::WatchError("watch stream closed".into())),
                Ok(Err(e)) => return Err(e),
            }
        }
    }

    /// Stops a watch (its stream is closed), as `waitDelete` does once it
    /// has seen the DELETE.
    pub fn cancel_watch(&mut self, w: WatchId) {
        if let Some(slot) = self.watches.get_mut(w.0) {
            *slot = None;
        }
    }
}

#[cfg(test)]
mod tests {
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
