//! What every real server process here needs, whatever the server: its own
//! temporary directory, a free loopback port (bind 127.0.0.1:0, hand the
//! port over, and try another if the server lost the race for it), its
//! binary found on `PATH`, and the rule for a missing one (a panic under
//! `CI=true`, a loud "NOT RUN" line otherwise).

use std::fs;
use std::io::{self, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// A new empty directory `locksmith-{kind}-{pid}-{n}` under the system's
/// temporary directory.
pub(crate) fn fresh_dir(kind: &str) -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("locksmith-{kind}-{}-{n}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A loopback port nobody listens on now.
pub(crate) fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Runs `start` on a free port, and again on another one if it fails
/// (another process may take the port between the probe and the server's
/// bind), five times at most; `start` cleans up after its own failure.
/// The last failure, if every attempt failed.
pub(crate) fn on_free_port(what: &str, mut start: impl FnMut(u16) -> io::Result<()>) -> io::Result<()> {
    let mut last = None;
    for _ in 0..5 {
        match start(free_port()?) {
            Ok(()) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other(format!("{what} did not start"))))
}

/// Whether a server's process (`None` before a start, after a kill or an
/// exit at start) is still running.
pub(crate) fn running(child: &mut Option<Child>) -> bool {
    child.as_mut().is_some_and(|c| matches!(c.try_wait(), Ok(None)))
}

/// A crash: `SIGKILL` to a server's process, if it has one, and wait until
/// it is gone.
pub(crate) fn kill(child: &mut Option<Child>) {
    if let Some(mut c) = child.take() {
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// Sends `sig` (`STOP`, `CONT`) to a server's process with `kill -s`;
/// `what` names the server when it has no process.
pub(crate) fn signal(child: &Option<Child>, what: &str, sig: &str) -> io::Result<()> {
    let pid = child
        .as_ref()
        .map(Child::id)
        .ok_or_else(|| io::Error::other(format!("{what} is not running")))?;
    let status = std::process::Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!("kill -s {sig} {pid} failed")))
    }
}

/// How a server's start failed ([`await_ready`]).
pub(crate) enum NotReady {
    /// The process exited (with this status) before it served.
    Exited(Option<ExitStatus>),
    /// It did not serve within the time allowed; it has been killed.
    Late,
}

/// A server process just spawned into `child`: waits, polling every
/// 20 ms, until `ready(server)` says it serves. Stops when the process
/// exits first (`child` left `None`) or `timeout` passes (the process
/// killed).
pub(crate) fn await_ready<S>(
    server: &mut S,
    child: fn(&mut S) -> &mut Option<Child>,
    timeout: Duration,
    mut ready: impl FnMut(&mut S) -> bool,
) -> Result<(), NotReady> {
    let deadline = Instant::now() + timeout;
    loop {
        let exited = match child(server) {
            Some(c) => c.try_wait().map_or(Some(None), |s| s.map(Some)),
            None => Some(None),
        };
        if let Some(status) = exited {
            *child(server) = None;
            return Err(NotReady::Exited(status));
        }
        if ready(server) {
            return Ok(());
        }
        if Instant::now() > deadline {
            kill(child(server));
            return Err(NotReady::Late);
        }
        sleep(Duration::from_millis(20));
    }
}

/// The first file `name` in a folder of `PATH`.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A tool a test needs is missing: under `CI=true` (CI installs it, so a
/// missing one is a broken CI, not a pass) panics with `ci`; otherwise
/// prints `not_run` loudly and returns, so the caller returns early and
/// the test passes on a machine without the tool.
pub(crate) fn missing(ci: &str, not_run: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{ci}");
    }
    // Straight to stderr: libtest captures `eprintln!` of a passing test,
    // and this line must be seen.
    let _ = writeln!(io::stderr(), "\n*** {not_run}\n");
}
