//! Ctrl-C (SIGINT). A long check or simulation is often stopped by hand,
//! and what it found until then is worth keeping: Ctrl-C only raises a
//! flag, the search notices it where it notices a timeout or the memory
//! bound (`check::check`, `sim::simulate_with`), and the command prints
//! what was done, writes what it can and exits [`EXIT_CODE`]. A second
//! Ctrl-C exits at once, for a run that does not stop soon enough; any
//! half-written report folder it leaves is swept away by a later run
//! (`report::sweep_stale`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The exit code of a run that Ctrl-C interrupted: 128 + SIGINT (2), the
/// shells' convention, so a script sees the interrupt whatever the
/// verdicts found until then.
pub const EXIT_CODE: i32 = 130;

/// A flag that asks a search to stop. The default one is never raised;
/// [`on_ctrl_c`] gives the one Ctrl-C raises. Clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Asks every holder of the flag to stop (Ctrl-C does this; tests too).
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The flag Ctrl-C raises, with the handler installed on first use. Where
/// no handler can be installed, Ctrl-C keeps its default (the process
/// dies) and the flag is simply never raised.
pub fn on_ctrl_c() -> Interrupt {
    static FLAG: OnceLock<Interrupt> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Interrupt::default();
        let raised = flag.clone();
        let _ = ctrlc::set_handler(move || {
            if raised.requested() {
                std::process::exit(EXIT_CODE);
            }
            raised.request();
            eprintln!("locksmith: interrupted; stopping (Ctrl-C again to quit at once)");
        });
        flag
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::Interrupt;

    #[test]
    fn clones_share_one_flag() {
        let a = Interrupt::default();
        let b = a.clone();
        assert!(!b.requested());
        a.request();
        assert!(b.requested());
        assert!(!Interrupt::default().requested(), "a new flag is down");
    }
}
