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
use crate::scenario::{Scenario, Verdict};
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

const LIVENESS: [Prop; 2] = [Prop::DeadlockFreedom, Prop::StarvationFreedom];

/// The liveness part of `check`'s summary.
fn verdicts(summary: Summary) -> Verdicts {
    Verdicts {
        complete: summary.complete,
        unique_states: summary.unique_states,
        notes: summary.notes,
        properties: summary
            .properties
            .into_iter()
            .filter(|p| LIVENESS.iter().any(|l| l.name() == p.name))
            .collect(),
    }
}

/// Every liveness verdict `unknown`, when the search itself failed.
fn failed(sc: &Scenario) -> Verdicts {
    Verdicts {
        complete: false,
        unique_states: 0,
        notes: vec!["locksmith check's search failed (a bug: please report it)".into()],
        properties: LIVENESS
            .iter()
            .map(|p| PropSummary {
                name: p.name().into(),
                verdict: Verdict::Unknown.as_str().into(),
                expected: sc.expected(*p).map(|v| v.as_str().into()),
                trace_steps: None,
                trace: None,
            })
            .collect(),
    }
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
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let outcome = check(&world, &opts);
                (Summary::new(&sc, &outcome, opts.dfs), outcome.seconds)
            }));
            let found = match searched {
                Ok((summary, seconds)) => (verdicts(summary), seconds),
                // A bug in the search: the page says so rather than
                // "Checking" for ever.
                Err(_) => (failed(&sc), done.started.elapsed().as_secs_f64()),
            };
            let _ = done.verdicts.set(found);
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn the_json_has_verdicts_only_when_done_and_says_what_left_them_open() {
        let liveness = Liveness::waiting();
        let running: Value = serde_json::from_str(&liveness.json()).expect("JSON");
        assert_eq!(running["done"], Value::Bool(false), "{running}");
        assert!(
            running["seconds"].is_number() && running["properties"].is_null(),
            "{running}"
        );

        let sc = crate::catalog::open("redis-ttl-gc-pause").expect("a bundled scenario");
        let _ = liveness.verdicts.set((failed(&sc), 2.0));
        let done: Value = serde_json::from_str(&liveness.json()).expect("JSON");
        assert_eq!(done["done"], Value::Bool(true), "{done}");
        assert_eq!(done["complete"], Value::Bool(false), "{done}");
        assert_eq!(done["seconds"], 2.0, "{done}");
        let props = done["properties"].as_array().expect("properties");
        let names: Vec<&str> = props.iter().map(|p| p["name"].as_str().expect("a name")).collect();
        assert_eq!(names, ["deadlock_freedom", "starvation_freedom"]);
        assert!(
            props
                .iter()
                .all(|p| p["verdict"] == "unknown" && p["expected"] == "holds"),
            "{done}"
        );
        assert!(
            done["notes"][0].as_str().is_some_and(|n| n.contains("failed")),
            "{done}"
        );
    }
}
