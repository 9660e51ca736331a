//! How often the simulator's adversary strikes: one rate per fault kind,
//! from the scenario's `[simulate]` table or `--rate KIND=P` flags. The
//! budget (`[faults]`) still bounds how many faults a run may hold; a rate
//! says how eagerly a run spends it.

use serde::Deserialize;

use crate::scenario::typed::Fraction;
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Action, Faults, Program};

/// The fault kinds in the order the simulator considers them at a step,
/// as the report names them (`faults_fired`).
pub const KINDS: [&str; 7] = [
    "crash",
    "pause",
    "partition",
    "loss",
    "duplicate",
    "clock_jump",
    "drift",
];

/// Per-step probabilities, one per kind of [`KINDS`]: at each step, for
/// each kind in that order whose faults are enabled (the budget allows
/// one and the world offers one), the adversary injects a fault of that
/// kind with this probability, chosen uniformly among the enabled ones;
/// otherwise the step is chosen uniformly among the enabled non-fault
/// actions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates(pub [f64; 7]);

/// The defaults: crash 0.1, pause 0.05, partition 0.05, loss 0.02,
/// duplicate 0.02, clock_jump 0.05, drift 0.5. Low enough that a run still
/// makes progress between faults, high enough that a budget of one or two
/// faults is usually spent somewhere in a run of a few dozen steps. Drift
/// is checked only on ticks, and a real clock drifts all the time, so its
/// rate is high: a drifting clock must keep drifting to matter.
pub const DEFAULTS: Rates = Rates([0.1, 0.05, 0.05, 0.02, 0.02, 0.05, 0.5]);

impl Default for Rates {
    fn default() -> Self {
        DEFAULTS
    }
}

impl Rates {
    /// The `[simulate]` keys of a scenario: `crash_rate`, `pause_rate`,
    /// ... each a probability from 0 to 1, and only for a fault the budget
    /// allows.
    pub fn read(sc: &Scenario) -> Result<Rates, ScenarioError> {
        let k: Keys = sc.simulate()?;
        let given = [
            k.crash_rate,
            k.pause_rate,
            k.partition_rate,
            k.loss_rate,
            k.duplicate_rate,
            k.clock_jump_rate,
            k.drift_rate,
        ];
        let mut rates = DEFAULTS;
        for (i, (kind, r)) in KINDS.iter().zip(given).enumerate() {
            if let Some(Fraction(r)) = r {
                if !allowed(&sc.faults, kind) {
                    return Err(ScenarioError(format!(
                        "{}: [simulate] {} = {r} has no effect, since the budget allows no {}; allowed: remove it, or allow the fault under [faults]",
                        sc.path.display(),
                        RATE_KEYS[i],
                        budget_key(kind)
                    )));
                }
                rates.0[i] = r;
            }
        }
        Ok(rates)
    }

    /// Applies a `--rate KIND=P` flag.
    pub fn set(&mut self, flag: &str, faults: &Faults) -> Result<(), String> {
        let bad = || {
            format!(
                "--rate {flag} is not allowed; allowed: KIND=P with KIND one of {} and P a number from 0 to 1",
                KINDS.join(", ")
            )
        };
        let (kind, p) = flag.split_once('=').ok_or_else(bad)?;
        let i = KINDS.iter().position(|k| *k == kind.trim()).ok_or_else(bad)?;
        let p: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(0.0..=1.0).contains(&p) {
            return Err(bad());
        }
        if !allowed(faults, KINDS[i]) {
            return Err(format!(
                "--rate {flag} has no effect, since the scenario's budget allows no {}; allowed: a rate for a fault under its [faults]",
                budget_key(KINDS[i])
            ));
        }
        self.0[i] = p;
        Ok(())
    }

    /// The rates of the kinds the budget allows, by name (for reports).
    pub fn shown(&self, faults: &Faults) -> Vec<(&'static str, f64)> {
        KINDS
            .iter()
            .zip(self.0)
            .filter(|(k, _)| allowed(faults, k))
            .map(|(k, r)| (*k, r))
            .collect()
    }

    /// Each rate as a threshold on a uniform 64-bit draw: a fault fires
    /// when the draw is below it. Integer comparisons keep runs identical
    /// on every machine.
    pub(super) fn thresholds(&self) -> [u64; 7] {
        self.0.map(|r| {
            if r >= 1.0 {
                u64::MAX
            } else {
                (r * 18_446_744_073_709_551_616.0) as u64
            }
        })
    }
}

/// The `[simulate]` keys as a scenario writes them, in [`KINDS`] order
/// (src/scenario/typed.rs); each is a probability, absent when not given.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    crash_rate: Option<Fraction>,
    pause_rate: Option<Fraction>,
    partition_rate: Option<Fraction>,
    loss_rate: Option<Fraction>,
    duplicate_rate: Option<Fraction>,
    clock_jump_rate: Option<Fraction>,
    drift_rate: Option<Fraction>,
}

/// The `[simulate]` key of each kind, in [`KINDS`] order.
pub const RATE_KEYS: [&str; 7] = [
    "crash_rate",
    "pause_rate",
    "partition_rate",
    "loss_rate",
    "duplicate_rate",
    "clock_jump_rate",
    "drift_rate",
];

/// Which fault kind an action is, as an index into [`KINDS`]; `None` for
/// everything else (steps, deliveries, time, restarts and heals).
pub fn kind_of<A: Program>(action: &Action<A>) -> Option<usize> {
    Some(match action {
        Action::Crash { .. } => 0,
        Action::Pause { .. } => 1,
        Action::Partition { .. } | Action::Cut { .. } => 2,
        Action::Lose { .. } => 3,
        Action::Duplicate { .. } => 4,
        Action::ClockJump { .. } => 5,
        Action::Drift { .. } => 6,
        _ => return None,
    })
}

/// Whether the budget allows any fault of this kind.
pub fn allowed(f: &Faults, kind: &str) -> bool {
    match kind {
        "crash" => f.crashes > 0,
        "pause" => f.pauses > 0,
        "partition" => f.partitions > 0,
        "loss" => f.loss,
        "duplicate" => f.duplicate,
        "clock_jump" => f.clock_jumps > 0,
        "drift" => f.max_drift > 0,
        _ => false,
    }
}

/// The `[faults]` key that allows a kind.
fn budget_key(kind: &str) -> &'static str {
    match kind {
        "crash" => "crashes",
        "pause" => "pauses",
        "partition" => "partitions",
        "loss" => "loss",
        "duplicate" => "duplicate",
        "clock_jump" => "clock_jumps",
        _ => "max_drift",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_flag_names_its_kind_and_a_probability() {
        let faults = Faults {
            pauses: 1,
            max_pause: 2,
            ..Faults::default()
        };
        let mut r = Rates::default();
        r.set("pause=0.5", &faults).expect("a valid flag");
        assert_eq!(r.0[1], 0.5);
        for bad in ["pause", "pause=2", "pause=-0.1", "pause=x", "gc=0.1"] {
            let e = r.set(bad, &faults).expect_err(bad);
            assert!(e.contains("allowed: KIND=P"), "{e}");
        }
        let e = r.set("crash=0.1", &faults).expect_err("no crashes in the budget");
        assert!(e.contains("allows no crashes"), "{e}");
    }

    #[test]
    fn thresholds_span_the_draws() {
        let t = Rates([0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0]).thresholds();
        assert_eq!((t[0], t[1], t[2]), (0, u64::MAX, 1 << 63));
    }
}
