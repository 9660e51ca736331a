//! `locksmith explore`: serves stateright's web explorer for one scenario
//! (docs/design.md §6, §12) until the process is stopped, behind
//! locksmith's own front door (`explore::front`), which serves the page
//! and the liveness verdicts of `check`'s search, started here at once.
//!
//! stateright's `serve` has three pitfalls this command steps around:
//! - it panics when the address cannot be bound, so the user's address is
//!   parsed and bound here (for the front door), and a bad or taken one is
//!   one sentence, exit 2; stateright listens on a loopback port;
//! - it serves `./ui/` instead of its own page when the working directory
//!   holds a `ui/` folder, so the explorer runs in an empty directory of
//!   its own, which is removed again at once: a deleted directory can hold
//!   no `ui/`, and nothing is left behind. Where that cannot be done, a
//!   `./ui` refuses the command rather than serve someone else's page;
//! - it blocks for ever, and panics (ending the process) if its web thread
//!   fails: that too is reported as one sentence.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stateright::{Checker, Model};

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::Options;
use crate::explore::front::Front;
use crate::explore::liveness::Liveness;
use crate::explore::Explorer;
use crate::properties::Lock;
use crate::scenario::Scenario;
use crate::world::World;

use super::failure::{Exit, Failure};

pub(super) fn explore_cmd(name: &str, addr: &str, no_symmetry: bool) -> Exit {
    let sc = catalog::open(name).map_err(|e| Failure::bad(e.to_string()))?;
    let listener = listen(addr)?;
    dispatch(&sc, Serve { listener, no_symmetry }).map_err(|e| Failure::bad(e.to_string()))?
}

/// The user's address, bound: stateright's `serve` would panic on a bad
/// or taken one.
pub fn listen(text: &str) -> Result<TcpListener, String> {
    let allowed = "allowed: HOST:PORT, such as 127.0.0.1:3000 (port 0 is not allowed)";
    let addr = text
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .filter(|a| a.port() != 0)
        .ok_or_else(|| format!("--addr {text:?} is not an address to listen on; {allowed}"))?;
    match TcpListener::bind(addr) {
        Ok(listener) => Ok(listener),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(format!(
            "cannot serve the explorer on {addr}: the port is in use (another explorer?); pick a free one with --addr 127.0.0.1:PORT"
        )),
        Err(e) => Err(format!(
            "cannot serve the explorer on {addr}: {e}; pick another address with --addr 127.0.0.1:PORT"
        )),
    }
}

/// Moves the process into an empty directory of its own and removes it,
/// so that stateright finds no `./ui/` to serve in place of its page.
/// Where that fails, an existing `./ui` is an error.
fn leave_working_directory() -> Result<(), String> {
    let dir: PathBuf = std::env::temp_dir().join(format!("locksmith-explore-{}", std::process::id()));
    let moved = std::fs::create_dir(&dir).is_ok() && std::env::set_current_dir(&dir).is_ok();
    if moved {
        let _ = std::fs::remove_dir(&dir);
        return Ok(());
    }
    let _ = std::fs::remove_dir(&dir);
    if Path::new("ui").exists() {
        return Err(
            "this directory holds a ui/ folder, which stateright's explorer would serve in place of its own page; run explore from another directory"
                .into(),
        );
    }
    Ok(())
}

/// A loopback port nobody listens on now, for stateright's server (bound
/// and let go; stateright binds it again a moment later, and a port taken
/// in between ends the command with one sentence).
fn loopback_port() -> Result<SocketAddr, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("cannot find a loopback port for the explorer: {e}"))
}

struct Serve {
    listener: TcpListener,
    no_symmetry: bool,
}

impl Job for Serve {
    type Output = Exit;

    fn run<A: Lock>(self, sc: &Scenario, mut world: World<A>) -> Exit {
        leave_working_directory()?;
        if self.no_symmetry {
            // As `check --no-symmetry`: the same world, with no groups to
            // canonicalise by, so states keep their nodes' names.
            world.symmetry.clear();
        }
        let addr = self.listener.local_addr().map_err(|e| Failure::bad(e.to_string()))?;
        let upstream = loopback_port()?;
        let world = Arc::new(world);
        // `locksmith check`'s options: no bound but its memory limit.
        let opts = Options {
            max_memory: Some(super::default_memory()),
            ..Options::default()
        };
        let liveness = Liveness::start(sc, Arc::clone(&world), opts);
        let front = Arc::new(Front::new(&sc.name, &sc.summary, liveness, upstream));
        let listener = self.listener;
        std::thread::spawn(move || front.serve(listener));
        let symmetry = if world.symmetry.is_empty() {
            ""
        } else {
            " (symmetry reduction on: states are shown in canonical form; --no-symmetry keeps node names)"
        };
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "locksmith: exploring {} at http://{addr}/{symmetry}; press Ctrl-C to stop",
            sc.name
        );
        let _ = writeln!(
            out,
            "  the safety properties show as \"Searching\" until you press \"Run to completion\"; liveness shows when `locksmith check`'s search, running now, ends"
        );
        let _ = out.flush();
        // stateright's serve returns only by a panic (its web thread
        // failed, or the address was taken since it was checked).
        std::panic::set_hook(Box::new(|_| {}));
        let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            Explorer::new(world).checker().serve(upstream).is_done();
        }));
        let _ = std::panic::take_hook();
        let why = match served {
            Ok(()) => "the server returned".to_string(),
            Err(e) => e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "its web server failed".into()),
        };
        Err(Failure::bad(format!("the explorer on {addr} stopped: {why}")))
    }
}
