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

use std::fs;
use std::future::Future;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::{sleep, JoinHandle};
use std::time::{Duration, Instant};

pub use zookeeper_client as zk;

use super::process::{fresh_dir, missing, on_free_port, on_path};

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

/// A running (or killed, and restartable) standalone ZooKeeper.
pub struct ZkServer {
    install: ZkInstall,
    dir: PathBuf,
    port: u16,
    tick_ms: u64,
    child: Option<Child>,
    /// How long the last start took, until the server answered `srvr`.
    pub started_in: Duration,
}

impl ZkServer {
    /// Starts a server with `tickTime = tick_ms` on a free loopback port in
    /// a fresh temporary directory, and waits until it serves.
    pub fn start(install: &ZkInstall, tick_ms: u64) -> io::Result<ZkServer> {
        let dir = fresh_dir("zk")?;
        fs::create_dir(dir.join("data"))?;
        let mut server = ZkServer {
            install: install.clone(),
            dir,
            port: 0,
            tick_ms,
            child: None,
            started_in: Duration::ZERO,
        };
        on_free_port("ZooKeeper", |port| {
            server.port = port;
            server.spawn().inspect_err(|_| server.kill())
        })?;
        Ok(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`, a connect string.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn tick_ms(&self) -> u64 {
        self.tick_ms
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

    /// The server's output so far (its log, for a failing test).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("zookeeper.out")).unwrap_or_default()
    }

    /// The answer to the `srvr` four-letter word (version, mode, zxid).
    pub fn srvr(&self) -> io::Result<String> {
        four_letter(self.port, "srvr")
    }

    /// A crash: `SIGKILL`, and wait for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts the process again on the same port; with `keep_data` on the
    /// same data directory (its transaction log and snapshots: sessions
    /// and ephemeral nodes survive, as on a real restart), else on an
    /// emptied one.
    pub fn restart(&mut self, keep_data: bool) -> io::Result<()> {
        self.kill();
        if !keep_data {
            let data = self.dir.join("data");
            fs::remove_dir_all(&data)?;
            fs::create_dir(&data)?;
        }
        self.spawn()
    }

    /// Stops the process (`SIGSTOP`) without killing it, until [`ZkServer::resume`].
    pub fn pause(&self) -> io::Result<()> {
        self.signal("STOP")
    }

    pub fn resume(&self) -> io::Result<()> {
        self.signal("CONT")
    }

    fn signal(&self, sig: &str) -> io::Result<()> {
        let pid = self.pid().ok_or_else(|| io::Error::other("ZooKeeper is not running"))?;
        let status = Command::new("kill").args(["-s", sig, &pid.to_string()]).status()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!("kill -s {sig} {pid} failed")))
        }
    }

    fn config(&self) -> String {
        format!(
            "tickTime={tick}\ndataDir={data}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
             maxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=srvr\n\
             minSessionTimeout={min}\nmaxSessionTimeout={max}\n",
            tick = self.tick_ms,
            data = self.dir.join("data").display(),
            port = self.port,
            min = 2 * self.tick_ms,
            max = 600 * self.tick_ms,
        )
    }

    fn spawn(&mut self) -> io::Result<()> {
        let conf = self.dir.join("zoo.cfg");
        fs::write(&conf, self.config())?;
        let out = fs::File::create(self.dir.join("zookeeper.out"))?;
        let started = Instant::now();
        let child = Command::new(&self.install.java)
            // A small heap and the client JIT only: the server starts
            // faster, and a test's few nodes need nothing more.
            .args(["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"])
            .arg("-Dzookeeper.jmx.log4j.disable=true")
            .arg("-cp")
            .arg(&self.install.jar)
            .arg("org.apache.zookeeper.server.ZooKeeperServerMain")
            .arg(&conf)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        self.child = Some(child);
        let deadline = started + READY_TIMEOUT;
        loop {
            if !self.is_running() {
                self.child = None;
                return Err(io::Error::other(format!(
                    "ZooKeeper on port {} exited at start; its output:\n{}",
                    self.port,
                    self.log()
                )));
            }
            if self.srvr().is_ok_and(|s| s.contains("Mode: standalone")) {
                self.started_in = started.elapsed();
                return Ok(());
            }
            if Instant::now() > deadline {
                let log = self.log();
                self.kill();
                return Err(io::Error::other(format!(
                    "ZooKeeper on port {} did not serve within {READY_TIMEOUT:?}; its output:\n{log}",
                    self.port
                )));
            }
            sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ZkServer {
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Sends a four-letter word and reads the answer to the end.
fn four_letter(port: u16, word: &str) -> io::Result<String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    s.set_read_timeout(Some(Duration::from_secs(2)))?;
    s.write_all(word.as_bytes())?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    Ok(answer)
}

// ---------------------------------------------------------------------------
// The proxy.

#[derive(Default)]
struct ProxyState {
    /// Cut: open connections were dropped, new ones are closed at once.
    cut: bool,
    /// Frozen: nothing is forwarded (bytes wait), so a request sent now
    /// stays pending until the cut.
    frozen: bool,
    /// Both ends of every open connection, to shut them down on a cut.
    conns: Vec<(TcpStream, TcpStream)>,
}

/// A loopback TCP proxy in front of one server, owned by the test: a
/// client connected through it loses its connection when the proxy is
/// [`Proxy::cut`], and cannot open a new one until [`Proxy::heal`].
pub struct Proxy {
    port: u16,
    state: Arc<Mutex<ProxyState>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Proxy {
    /// A proxy on a free loopback port, forwarding to `target`.
    pub fn start(target: SocketAddr) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let state = Arc::new(Mutex::new(ProxyState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            while !sp.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        if st.lock().expect("proxy state").cut {
                            drop(client);
                            continue;
                        }
                        let _ = client.set_nonblocking(false);
                        let Ok(server) = TcpStream::connect(target) else {
                            continue;
                        };
                        let _ = client.set_nodelay(true);
                        let _ = server.set_nodelay(true);
                        let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                            continue;
                        };
                        if let (Ok(c3), Ok(s3)) = (client.try_clone(), server.try_clone()) {
                            st.lock().expect("proxy state").conns.push((c3, s3));
                        }
                        pump(client, s2, st.clone());
                        pump(server, c2, st.clone());
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => sleep(Duration::from_millis(2)),
                    Err(_) => sleep(Duration::from_millis(2)),
                }
            }
        });
        Ok(Proxy {
            port,
            state,
            stop,
            accept: Some(accept),
        })
    }

    /// `127.0.0.1:PORT`, the connect string through the proxy.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Drops every open connection (both ends see it closed) and refuses
    /// new ones until [`Proxy::heal`].
    pub fn cut(&self) {
        let mut st = self.state.lock().expect("proxy state");
        st.cut = true;
        st.frozen = false;
        for (c, s) in st.conns.drain(..) {
            let _ = c.shutdown(Shutdown::Both);
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Forwards nothing until the next [`Proxy::cut`] or [`Proxy::heal`].
    pub fn freeze(&self) {
        self.state.lock().expect("proxy state").frozen = true;
    }

    /// Accepts connections again.
    pub fn heal(&self) {
        let mut st = self.state.lock().expect("proxy state");
        st.cut = false;
        st.frozen = false;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.cut();
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Copies `from` to `to` on a thread of its own until either closes.
fn pump(mut from: TcpStream, mut to: TcpStream, state: Arc<Mutex<ProxyState>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            loop {
                let st = state.lock().expect("proxy state");
                if st.cut {
                    let _ = to.shutdown(Shutdown::Both);
                    return;
                }
                if !st.frozen {
                    break;
                }
                drop(st);
                sleep(Duration::from_millis(1));
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}

// ---------------------------------------------------------------------------
// The client.

/// Runs a future of the client library to completion on this thread (its
/// connection task runs on async-global-executor's threads), or gives up
/// after `timeout` with [`zk::Error::Timeout`].
pub fn block<T>(timeout: Duration, f: impl Future<Output = Result<T, zk::Error>>) -> Result<T, zk::Error> {
    futures_lite::future::block_on(futures_lite::future::or(f, async move {
        async_io::Timer::after(timeout).await;
        Err(zk::Error::Timeout)
    }))
}

/// What a watch delivered, path relative to the client's chroot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: zk::EventType,
    pub path: String,
    pub state: zk::SessionState,
}

/// One ZooKeeper session through the `zookeeper-client` library, used
/// synchronously. Its watches deliver into one channel ([`ZkClient::events`]).
pub struct ZkClient {
    client: zk::Client,
    tx: mpsc::Sender<Event>,
    rx: mpsc::Receiver<Event>,
}

impl ZkClient {
    /// Opens a session on `connect` (`host:port`, optionally followed by a
    /// chroot path) asking for `session_timeout`. The session is detached:
    /// dropping the client closes its connection without `closeSession`,
    /// as a crashed process does, and the session expires on the server.
    pub fn connect(connect: &str, session_timeout: Duration) -> Result<ZkClient, zk::Error> {
        let client = block(
            CALL_TIMEOUT,
            zk::Client::connector()
                .with_session_timeout(session_timeout)
                .with_detached()
                .connect(connect),
        )?;
        let (tx, rx) = mpsc::channel();
        Ok(ZkClient { client, tx, rx })
    }

    pub fn session_id(&self) -> i64 {
        self.client.session_id().0
    }

    /// The timeout the server granted.
    pub fn session_timeout(&self) -> Duration {
        self.client.session_timeout()
    }

    /// The library's view of the session now.
    pub fn state(&self) -> zk::SessionState {
        self.client.state()
    }

    pub fn client(&self) -> &zk::Client {
        &self.client
    }

    /// `create path` PERSISTENT, `NodeExists` counting as done.
    pub fn ensure(&self, path: &str) -> Result<(), zk::Error> {
        let opts = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
        match block(CALL_TIMEOUT, self.client.create(path, b"", &opts)) {
            Ok(_) | Err(zk::Error::NodeExists) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `create prefix EPHEMERAL_SEQUENTIAL`: the node's name (its last
    /// path component), its sequence number and its stat (`czxid`).
    pub fn create_ephemeral_sequential(&self, prefix: &str) -> Result<(String, i64, zk::Stat), zk::Error> {
        let opts = zk::CreateMode::EphemeralSequential.with_acls(zk::Acls::anyone_all());
        let (stat, seq) = block(CALL_TIMEOUT, self.client.create(prefix, b"", &opts))?;
        let name = format!("{}{seq}", prefix.rsplit('/').next().unwrap_or_default());
        Ok((name, seq.into_i64(), stat))
    }

    /// `getChildren path` (sorted), with a watch if `watch`.
    pub fn children(&self, path: &str, watch: bool) -> Result<Vec<String>, zk::Error> {
        let mut names = if watch {
            let (names, w) = block(CALL_TIMEOUT, self.client.list_and_watch_children(path))?;
            self.deliver(w);
            names
        } else {
            block(CALL_TIMEOUT, self.client.list_children(path))?
        };
        names.sort();
        Ok(names)
    }

    /// `exists path`, with a watch if `watch`.
    pub fn exists(&self, path: &str, watch: bool) -> Result<Option<zk::Stat>, zk::Error> {
        if watch {
            let (stat, w) = block(CALL_TIMEOUT, self.client.check_and_watch_stat(path))?;
            self.deliver(w);
            Ok(stat)
        } else {
            block(CALL_TIMEOUT, self.client.check_stat(path))
        }
    }

    /// `delete path` (any version).
    pub fn delete(&self, path: &str) -> Result<(), zk::Error> {
        block(CALL_TIMEOUT, self.client.delete(path, None))
    }

    /// The watch events delivered so far, waiting up to `wait` for the
    /// first `at_least` of them.
    pub fn events(&self, at_least: usize, wait: Duration) -> Vec<Event> {
        let deadline = Instant::now() + wait;
        let mut got = Vec::new();
        loop {
            while let Ok(e) = self.rx.try_recv() {
                got.push(e);
            }
            let now = Instant::now();
            if got.len() >= at_least || now >= deadline {
                return got;
            }
            if let Ok(e) = self.rx.recv_timeout(deadline - now) {
                got.push(e);
            }
        }
    }

    /// A one-shot watch delivers into the channel from a thread of its own
    /// (the watcher is kept, not dropped, until it fires).
    fn deliver(&self, w: zk::OneshotWatcher) {
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let e = futures_lite::future::block_on(w.changed());
            let _ = tx.send(Event {
                kind: e.event_type,
                path: e.path,
                state: e.session_state,
            });
        });
    }
}

#[cfg(test)]
mod tests {
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
