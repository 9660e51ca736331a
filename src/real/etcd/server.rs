//! The etcd process: started as a single-member cluster on free loopback
//! ports with its own data directory, killed, restarted with or without
//! its data.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{Error, EtcdClient, ELECTION_MS, HEARTBEAT_MS, READY_TIMEOUT};
use crate::real::process::{self, NotReady};

/// How long a started etcd must stay up after its first answer to count as
/// the one that answered (see `spawn`).
const BIND_SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

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
            dir: process::fresh_dir("etcd")?,
            client_port: 0,
            peer_port: 0,
            child: None,
        };
        let mut last = None;
        for _ in 0..5 {
            server.client_port = process::free_port()?;
            server.peer_port = process::free_port()?;
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
        process::running(&mut self.child)
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
        process::kill(&mut self.child);
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
        process::signal(&self.child, "etcd", "STOP")
    }

    pub fn resume(&self) -> io::Result<()> {
        process::signal(&self.child, "etcd", "CONT")
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
        let ready = |s: &mut Self| s.connect().is_ok_and(|mut c| c.revision().is_ok());
        let port = self.client_port;
        process::await_ready(self, |s| &mut s.child, READY_TIMEOUT, ready).map_err(|e| {
            io::Error::other(match e {
                NotReady::Exited(_) => format!("etcd on port {port} exited at start; its log:\n{}", self.log()),
                NotReady::Late => format!(
                    "etcd on port {port} did not answer within {READY_TIMEOUT:?}; its log:\n{}",
                    self.log()
                ),
            })
        })?;
        // The answer may have come from another etcd that took the port
        // between our probe and this one's bind (tests start several at
        // once): this one then exits at once, failing to bind. Still
        // running a moment later, it is the one that answered.
        std::thread::sleep(BIND_SETTLE);
        if !process::running(&mut self.child) {
            return Err(io::Error::other(format!(
                "etcd on port {port} exited at start (another process had the port); its log:\n{}",
                self.log()
            )));
        }
        Ok(())
    }
}

impl Drop for EtcdServer {
    /// Kills the process and removes its directory.
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}
