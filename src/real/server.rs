//! One real `redis-server` process: a primary, a replica or a Sentinel, on
//! a free loopback port, with its own temporary directory (its AOF, RDB,
//! log and, for a Sentinel, its configuration file).
//!
//! The process is the operating system's, so everything here is about
//! making it behave as a test needs: a free port (bind 127.0.0.1:0, then
//! hand the port to Redis, and try another if Redis lost the race for it),
//! readiness (answers `PING`, not `-LOADING`), a crash as `SIGKILL`, a
//! restart on the same port and directory (so an AOF is reloaded, or not,
//! by the persistence it restarts with), and cleanup in `Drop` (the
//! process killed and the directory removed, also when a test panics).

use std::fs;
use std::io;

use super::process::{self, fresh_dir, on_free_port, NotReady};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// What the server keeps across a crash or restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persistence {
    /// `--save "" --appendonly no`: no RDB snapshots, no AOF; a crash
    /// loses everything (only `SHUTDOWN SAVE` writes a `dump.rdb`, which
    /// the next start loads).
    None,
    /// `--appendonly yes --appendfsync always` (and no RDB snapshots):
    /// every write is fsynced to the AOF before the reply, so a `SIGKILL`
    /// loses nothing that was acknowledged.
    AofAlways,
}

/// How long a Sentinel waits before it acts (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentinelTiming {
    /// `sentinel down-after-milliseconds`.
    pub down_after_ms: u64,
    /// `sentinel failover-timeout`.
    pub failover_timeout_ms: u64,
}

impl Default for SentinelTiming {
    fn default() -> Self {
        SentinelTiming {
            down_after_ms: 1000,
            failover_timeout_ms: 3000,
        }
    }
}

/// The name a Sentinel started here monitors its primary under.
pub const SENTINEL_MASTER: &str = "mymaster";

/// What the process is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Primary,
    /// `--replicaof 127.0.0.1 PORT`.
    ReplicaOf(u16),
    /// `redis-server sentinel.conf --sentinel`, monitoring the primary on
    /// the port as [`SENTINEL_MASTER`] with quorum 1.
    Sentinel {
        primary_port: u16,
        timing: SentinelTiming,
    },
}

/// A running (or killed, and restartable) `redis-server`.
pub struct RedisServer {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    persistence: Persistence,
    role: Role,
    child: Option<Child>,
}

/// How long a start may take before it counts as failed (an AOF reload of
/// a test's few keys takes milliseconds; a loaded CI machine is slow).
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// The file in the server's directory that takes its stderr.
const STDERR_FILE: &str = "stderr.log";

/// How many of the last lines a process wrote a failed start quotes.
const LAST_WORDS: usize = 6;

/// Connect and read timeouts of [`RedisServer::connect`]; a blocking
/// `WAIT` needs a longer read timeout, which the caller sets.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

impl RedisServer {
    /// A primary with the given persistence.
    pub fn primary(bin: &Path, persistence: Persistence) -> io::Result<RedisServer> {
        RedisServer::start(bin, persistence, Role::Primary)
    }

    /// A replica of `primary` (it resynchronises at once).
    pub fn replica_of(bin: &Path, persistence: Persistence, primary: &RedisServer) -> io::Result<RedisServer> {
        RedisServer::start(bin, persistence, Role::ReplicaOf(primary.port))
    }

    /// A Sentinel monitoring `primary` with quorum 1.
    pub fn sentinel(bin: &Path, primary: &RedisServer, timing: SentinelTiming) -> io::Result<RedisServer> {
        RedisServer::start(
            bin,
            Persistence::None,
            Role::Sentinel {
                primary_port: primary.port,
                timing,
            },
        )
    }

    /// Starts a process on a free loopback port in a fresh temporary
    /// directory, and waits until it answers `PING`. A port another process
    /// took between our probe and Redis's bind is retried with a new one.
    pub fn start(bin: &Path, persistence: Persistence, role: Role) -> io::Result<RedisServer> {
        let dir = fresh_dir("redis")?;
        let mut server = RedisServer {
            bin: bin.to_path_buf(),
            dir,
            port: 0,
            persistence,
            role,
            child: None,
        };
        on_free_port("redis-server", |port| {
            server.port = port;
            server.spawn().inspect_err(|_| server.kill())
        })?;
        Ok(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn persistence(&self) -> Persistence {
        self.persistence
    }

    pub fn role(&self) -> &Role {
        &self.role
    }

    /// The operating system's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub fn is_running(&mut self) -> bool {
        process::running(&mut self.child)
    }

    /// A new connection (connect and read timeouts of 10 s).
    pub fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let client = redis::Client::open(self.url())?;
        let con = client.get_connection_with_timeout(IO_TIMEOUT)?;
        con.set_read_timeout(Some(IO_TIMEOUT))?;
        con.set_write_timeout(Some(IO_TIMEOUT))?;
        Ok(con)
    }

    /// The server's log so far (for a failing test's message).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join(self.log_name())).unwrap_or_default()
    }

    /// The last lines the process wrote, on stderr and then in its log, on
    /// one line (for the one-sentence error of a start that failed): Redis
    /// reports a bad argument or configuration on stderr before it opens
    /// its log, and a port it cannot bind in its log.
    fn last_words(&self) -> String {
        let stderr = fs::read_to_string(self.dir.join(STDERR_FILE)).unwrap_or_default();
        let log = self.log();
        let lines: Vec<&str> = stderr
            .lines()
            .chain(log.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let tail = &lines[lines.len().saturating_sub(LAST_WORDS)..];
        if tail.is_empty() {
            "it wrote nothing on stderr or in its log".into()
        } else {
            format!("it wrote: {}", tail.join(" / "))
        }
    }

    /// A crash: `SIGKILL`, and wait for the process to be gone. Nothing
    /// is flushed; what survives is what the persistence already wrote.
    pub fn kill(&mut self) {
        process::kill(&mut self.child);
    }

    /// `SHUTDOWN SAVE` (writes `dump.rdb`, which the next start loads even
    /// without persistence) or `SHUTDOWN NOSAVE`; waits for the exit.
    pub fn shutdown(&mut self, save: bool) -> io::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let how = if save { "SAVE" } else { "NOSAVE" };
        // The server closes the connection instead of answering.
        if let Ok(mut con) = self.connect() {
            let _: redis::RedisResult<redis::Value> = redis::cmd("SHUTDOWN").arg(how).query(&mut con);
        }
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if child.try_wait()?.is_some() {
                return Ok(());
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::other(format!(
                    "redis-server on port {} ignored SHUTDOWN {how}",
                    self.port
                )));
            }
            sleep(Duration::from_millis(10));
        }
    }

    /// Starts the process again on the same port and directory, with the
    /// same persistence (killing it first if it still runs).
    pub fn restart(&mut self) -> io::Result<()> {
        self.restart_with(self.persistence)
    }

    /// Starts the process again on the same port and directory with the
    /// given persistence: an AOF in the directory is loaded only with
    /// [`Persistence::AofAlways`].
    pub fn restart_with(&mut self, persistence: Persistence) -> io::Result<()> {
        self.kill();
        self.persistence = persistence;
        self.spawn()
    }

    /// A replica: waits until it has finished its (re)synchronisation with
    /// its primary (`master_link_status:up` in `INFO replication`), so
    /// that a `WAIT` on the primary counts it.
    /// The primary must also count it `online`: after a diskless sync it
    /// does so only on the replica's first acknowledgement, and a `WAIT`
    /// before that times out.
    pub fn wait_synced(&self) -> io::Result<()> {
        let deadline = Instant::now() + READY_TIMEOUT;
        let info = |url: String| -> Option<String> {
            let client = redis::Client::open(url).ok()?;
            let mut con = client.get_connection_with_timeout(IO_TIMEOUT).ok()?;
            redis::cmd("INFO").arg("replication").query(&mut con).ok()
        };
        let online = format!("port={},state=online", self.port);
        loop {
            let linked = info(self.url()).is_some_and(|i| i.contains("master_link_status:up"));
            let counted = match self.role {
                Role::ReplicaOf(primary) => {
                    linked && info(format!("redis://127.0.0.1:{primary}/")).is_some_and(|i| i.contains(&online))
                }
                _ => linked,
            };
            if counted {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(io::Error::other(format!(
                    "replica on port {} did not sync with its primary within {READY_TIMEOUT:?}",
                    self.port
                )));
            }
            sleep(Duration::from_millis(5));
        }
    }

    /// Stops the process (`SIGSTOP`) without killing it: it answers
    /// nothing, and its clock runs on, until [`RedisServer::resume`].
    pub fn pause(&self) -> io::Result<()> {
        process::signal(&self.child, "redis-server", "STOP")
    }

    /// Continues a paused process (`SIGCONT`).
    pub fn resume(&self) -> io::Result<()> {
        process::signal(&self.child, "redis-server", "CONT")
    }

    fn log_name(&self) -> &'static str {
        match self.role {
            Role::Sentinel { .. } => "sentinel.log",
            _ => "redis.log",
        }
    }

    /// The command line: everything on it, no configuration file, except
    /// for a Sentinel, which needs a file it can rewrite.
    fn command(&self) -> io::Result<Command> {
        let mut cmd = Command::new(&self.bin);
        // stderr to a file: what Redis says there (a bad argument) is the
        // reason a start failed, and a pipe nobody reads could fill up.
        let stderr = fs::File::create(self.dir.join(STDERR_FILE))?;
        cmd.current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        if let Role::Sentinel { primary_port, timing } = &self.role {
            let conf = self.dir.join("sentinel.conf");
            // Sentinel rewrites its file (epochs, the current primary);
            // a restart keeps what it learned, as a real Sentinel does.
            if !conf.exists() {
                let m = SENTINEL_MASTER;
                let text = format!(
                    "port {port}\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\ndir {dir}\nlogfile \"sentinel.log\"\n\
                     sentinel resolve-hostnames no\n\
                     sentinel monitor {m} 127.0.0.1 {primary_port} 1\n\
                     sentinel down-after-milliseconds {m} {down}\n\
                     sentinel failover-timeout {m} {failover}\n\
                     sentinel parallel-syncs {m} 1\n",
                    port = self.port,
                    dir = self.dir.display(),
                    down = timing.down_after_ms,
                    failover = timing.failover_timeout_ms,
                );
                fs::write(&conf, text)?;
            }
            cmd.arg(conf).arg("--sentinel");
            return Ok(cmd);
        }
        let port = self.port.to_string();
        cmd.args([
            "--port",
            &port,
            "--bind",
            "127.0.0.1",
            "--protected-mode",
            "no",
            "--daemonize",
            "no",
        ]);
        cmd.args(["--logfile", "redis.log", "--save", ""]);
        // DEBUG from loopback only: reenactments use it where Redis
        // offers a fault (the tests' own server, never a shared one).
        cmd.args(["--enable-debug-command", "local"]);
        match self.persistence {
            Persistence::None => cmd.args(["--appendonly", "no"]),
            Persistence::AofAlways => cmd.args(["--appendonly", "yes", "--appendfsync", "always"]),
        };
        // Redis 7 delays a diskless full sync by 5 s to batch replicas, and
        // even with no delay starts it only from its once-a-second cron;
        // with max-replicas 1 a full sync starts as soon as one replica
        // asks (any node may be a primary after a failover).
        cmd.args([
            "--repl-diskless-sync-delay",
            "0",
            "--repl-diskless-sync-max-replicas",
            "1",
        ]);
        // The event loop wakes every 1/hz s: at the default hz 10 a
        // blocking command's timeout (WAIT) fires up to 100 ms late.
        cmd.args(["--hz", "100"]);
        if let Role::ReplicaOf(primary) = self.role {
            cmd.args(["--replicaof", "127.0.0.1", &primary.to_string()]);
        }
        cmd.args(["--dir"]).arg(&self.dir);
        Ok(cmd)
    }

    /// Starts the process and waits until it answers `PING` with `PONG`.
    fn spawn(&mut self) -> io::Result<()> {
        let child = self.command()?.spawn()?;
        self.child = Some(child);
        let ready = |s: &mut Self| {
            s.connect().is_ok_and(|mut con| {
                let pong: redis::RedisResult<String> = redis::cmd("PING").query(&mut con);
                pong.is_ok_and(|p| p == "PONG")
            })
        };
        process::await_ready(self, |s| &mut s.child, READY_TIMEOUT, ready).map_err(|e| {
            let (bin, port) = (self.bin.display(), self.port);
            io::Error::other(match e {
                NotReady::Exited(status) => format!(
                    "{bin} on port {port} exited at start ({}); {}",
                    status.map_or("status unknown".to_string(), |s| s.to_string()),
                    self.last_words()
                ),
                NotReady::Late => format!(
                    "{bin} on port {port} did not answer PING within {READY_TIMEOUT:?}; {}",
                    self.last_words()
                ),
            })
        })
    }
}

impl Drop for RedisServer {
    /// Kills the process and removes its directory, so a failed test
    /// leaves neither a server nor files behind.
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Start, write, crash and restart: the AOF with `appendfsync always`
    /// keeps the key, no persistence loses it; `Drop` removes the directory.
    #[test]
    fn a_crash_keeps_the_key_only_with_the_fsynced_aof() {
        let Some(bin) = crate::real::require_redis() else {
            return;
        };
        for (persistence, survives) in [(Persistence::AofAlways, true), (Persistence::None, false)] {
            let mut s = RedisServer::primary(&bin, persistence).expect("starts");
            let dir = s.dir().to_path_buf();
            let mut con = s.connect().expect("connects");
            let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut con).expect("SET");
            s.kill();
            assert!(!s.is_running());
            s.restart().expect("restarts");
            let mut con = s.connect().expect("connects");
            let v: Option<String> = redis::cmd("GET").arg("k").query(&mut con).expect("GET");
            assert_eq!(v.is_some(), survives, "{persistence:?}");
            drop(con);
            drop(s);
            assert!(!dir.exists(), "Drop removes {}", dir.display());
        }
    }

    /// `SHUTDOWN SAVE` writes a `dump.rdb` that a restart without
    /// persistence loads; `SHUTDOWN NOSAVE` does not.
    #[test]
    fn shutdown_save_keeps_the_key_even_without_persistence() {
        let Some(bin) = crate::real::require_redis() else {
            return;
        };
        for (save, survives) in [(true, true), (false, false)] {
            let mut s = RedisServer::primary(&bin, Persistence::None).expect("starts");
            let mut con = s.connect().expect("connects");
            let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut con).expect("SET");
            s.shutdown(save).expect("shuts down");
            s.restart().expect("restarts");
            let mut con = s.connect().expect("connects");
            let v: Option<String> = redis::cmd("GET").arg("k").query(&mut con).expect("GET");
            assert_eq!(v.is_some(), survives, "SHUTDOWN save={save}");
        }
    }

    /// A server that fails at start is named with what it said on stderr
    /// (a bad argument, before Redis opens its log), on one line. A script
    /// stands in for redis-server, so this runs without Redis.
    #[test]
    fn a_failed_start_says_what_the_server_wrote() {
        let dir = fresh_dir("fake-redis").expect("a temp dir");
        let bin = dir.join("redis-server");
        fs::write(
            &bin,
            "#!/bin/sh\necho '*** FATAL CONFIG FILE ERROR ***' >&2\necho \"Bad directive '$1'\" >&2\nexit 1\n",
        )
        .expect("written");
        let chmod = Command::new("chmod").arg("+x").arg(&bin).status().expect("chmod runs");
        assert!(chmod.success());
        let e = RedisServer::primary(&bin, Persistence::None)
            .err()
            .expect("the fake server does not start")
            .to_string();
        let _ = fs::remove_dir_all(&dir);
        assert!(e.contains("exited at start (exit status: 1)"), "{e}");
        assert!(
            e.contains("it wrote: *** FATAL CONFIG FILE ERROR *** / Bad directive '--port'"),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
    }

    /// A replica copies the primary's key, and a Sentinel answers about
    /// the primary it monitors.
    #[test]
    fn a_replica_follows_and_a_sentinel_monitors() {
        let Some(bin) = crate::real::require_redis() else {
            return;
        };
        let p = RedisServer::primary(&bin, Persistence::None).expect("starts");
        let r = RedisServer::replica_of(&bin, Persistence::None, &p).expect("starts");
        let mut pc = p.connect().expect("connects");
        let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut pc).expect("SET");
        let acked: i64 = redis::cmd("WAIT").arg(1).arg(5000).query(&mut pc).expect("WAIT");
        assert_eq!(acked, 1);
        let mut rc = r.connect().expect("connects");
        let v: Option<String> = redis::cmd("GET").arg("k").query(&mut rc).expect("GET");
        assert_eq!(v.as_deref(), Some("v"));
        let s = RedisServer::sentinel(&bin, &p, SentinelTiming::default()).expect("starts");
        let mut sc = s.connect().expect("connects");
        let addr: Vec<String> = redis::cmd("SENTINEL")
            .arg("get-master-addr-by-name")
            .arg(SENTINEL_MASTER)
            .query(&mut sc)
            .expect("SENTINEL");
        assert_eq!(addr, vec!["127.0.0.1".to_string(), p.port().to_string()]);
    }
}
