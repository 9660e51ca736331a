//! The standalone server: started on a free loopback port with its own
//! data directory and configuration, ready when `srvr` says so; killed and
//! restarted.

use std::fs;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{ZkInstall, READY_TIMEOUT};
use crate::real::process::{self, fresh_dir, on_free_port, NotReady};

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
        process::running(&mut self.child)
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
        process::kill(&mut self.child);
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
        process::signal(&self.child, "ZooKeeper", "STOP")
    }

    pub fn resume(&self) -> io::Result<()> {
        process::signal(&self.child, "ZooKeeper", "CONT")
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
        let ready = |s: &mut Self| s.srvr().is_ok_and(|s| s.contains("Mode: standalone"));
        process::await_ready(self, |s| &mut s.child, READY_TIMEOUT, ready).map_err(|e| {
            let port = self.port;
            io::Error::other(match e {
                NotReady::Exited(_) => format!("ZooKeeper on port {port} exited at start; its output:\n{}", self.log()),
                NotReady::Late => format!(
                    "ZooKeeper on port {port} did not serve within {READY_TIMEOUT:?}; its output:\n{}",
                    self.log()
                ),
            })
        })?;
        self.started_in = started.elapsed();
        Ok(())
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
