//! The liveness verdicts the explorer's page shows. stateright's explorer
//! searches safety properties only (its `eventually` misses violations on
//! cycles, docs/design.md §12), so the page takes deadlock_freedom and
//! starvation_freedom from `locksmith check`'s own search, run once, on a
//! thread of its own, while the user explores: the same verdicts, with
//! the same bounds, that `check` prints.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::check::{check, Options};
use crate::properties::{Lock, Prop};
use crate::report::{PropSummary, Summary};
use crate::scenario::Scenario;
use crate::world::World;

/// The check's liveness verdicts, once it has ended.
#[derive(Clone, Debug, Serialize)]
struct Verdicts {
    /// Whether the search ran to the end (no bound stopped it).
    complete: bool,
    unique_states: usize,
    /// Which bound stopped the search, or why liveness was not checked:
    /// what makes a verdict `unknown`.
    notes: Vec<String>,
    /// deadlock_freedom and starvation_freedom, as `summary.json` has them.
    properties: Vec<PropSummary>,
}

/// `check`'s liveness pass over one scenario, running or done.
pub struct Liveness {
    started: Instant,
    verdicts: OnceLock<(Verdicts, f64)>,
}

impl Liveness {
    /// Starts `check` on `world` with `opts` (those of `locksmith check`)
    /// on a thread of its own.
    pub fn start<A: Lock>(sc: &Scenario, world: Arc<World<A>>, opts: Options) -> Arc<Liveness> {
        let me = Arc::new(Liveness {
            started: Instant::now(),
            verdicts: OnceLock::new(),
        });
        let sc = sc.clone();
        let done = Arc::clone(&me);
        std::thread::spawn(move || {
            let outcome = check(&world, &opts);
            let summary = Summary::new(&sc, &outcome, opts.dfs);
            let liveness = [Prop::DeadlockFreedom, Prop::StarvationFreedom].map(Prop::name);
            let verdicts = Verdicts {
                complete: summary.complete,
                unique_states: summary.unique_states,
                notes: summary.notes,
                properties: summary
                    .properties
                    .into_iter()
                    .filter(|p| liveness.contains(&p.name.as_str()))
                    .collect(),
            };
            let _ = done.verdicts.set((verdicts, outcome.seconds));
        });
        me
    }

    /// A check that never ends, for tests of what serves it.
    #[cfg(test)]
    pub fn waiting() -> Arc<Liveness> {
        Arc::new(Liveness {
            started: Instant::now(),
            verdicts: OnceLock::new(),
        })
    }

    /// `/.liveness`: `{"done": false, "seconds": S}` while the check runs,
    /// then `done` true, the check's own seconds, and the [`Verdicts`]' fields.
    pub fn json(&self) -> String {
        let value = match self.verdicts.get() {
            None => json!({"done": false, "seconds": self.started.elapsed().as_secs_f64()}),
            Some((v, seconds)) => {
                let mut value = json!(v);
                value["done"] = json!(true);
                value["seconds"] = json!(seconds);
                value
            }
        };
        value.to_string()
    }
}
