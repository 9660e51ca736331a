//! Harmless parameter changes (issue 21, "How to keep it true"): one more
//! client, one more acquisition, or another back-off must not flip a
//! verdict without a reason of the algorithm. A safety violation found
//! with fewer clients or acquisitions stays reachable with more (the extra
//! client need not act before it, nor the extra acquisition happen), so
//! those never flip back to "holds"; a verdict that flips the other way,
//! or a liveness verdict that flips, is either a finding of the algorithm,
//! pinned below with its reason, or a modelling bug.
//!
//! Every bundled scenario whose check is small enough (the base and the
//! changed one within `BOUND` states) is tried; the rest are named in the
//! output and left to `locksmith check`.

use locksmith::algorithms::validate;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{all, load, Scenario, Verdict};

use crate::common::run;

/// Unique states beyond which a changed scenario is not checked here.
const BOUND: usize = 60_000;

/// A harmless change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    OneMoreClient,
    OneMoreAcquisition,
}

/// Verdicts that a change flips, with the reason: (scenario, change,
/// property, verdict before, verdict after, why).
const FLIPS: &[(&str, Change, Prop, Verdict, Verdict, &str)] = &[];

fn changed(sc: &Scenario, change: Change) -> Option<Scenario> {
    let mut sc = sc.clone();
    match change {
        Change::OneMoreClient => {
            let key = ["clients", "nodes"].into_iter().find(|k| sc.system.contains_key(*k))?;
            let n = sc.system.get(key)?.as_integer()?;
            sc.system.insert(key.into(), toml::Value::Integer(n + 1));
        }
        Change::OneMoreAcquisition => {
            if sc.acquisitions == 0 {
                return None;
            }
            sc.acquisitions += 1;
        }
    }
    validate(&sc).ok()?;
    Some(sc)
}

#[test]
fn no_verdict_flips_on_a_harmless_change() {
    let bounded = || Options {
        max_states: Some(BOUND),
        ..Options::default()
    };
    let mut flips = Vec::new();
    let mut tried = 0;
    for path in all() {
        let sc = load(&path).expect("bundled scenarios are valid");
        let base = run(&sc, bounded());
        if base.unique_states >= BOUND {
            eprintln!("harmless: {} is larger than {BOUND} states: not tried", sc.name);
            continue;
        }
        for change in [Change::OneMoreClient, Change::OneMoreAcquisition] {
            let Some(other) = changed(&sc, change) else { continue };
            let r = run(&other, bounded());
            if r.unique_states >= BOUND {
                eprintln!(
                    "harmless: {} with {change:?} is larger than {BOUND} states: not compared",
                    sc.name
                );
                continue;
            }
            tried += 1;
            for p in Prop::ALL {
                let (before, after) = (base.verdict(p), r.verdict(p));
                if after == Verdict::Unknown || before == after {
                    continue;
                }
                let pinned = FLIPS
                    .iter()
                    .any(|f| (f.0, f.1, f.2, f.3, f.4) == (sc.name.as_str(), change, p, before, after));
                if !pinned {
                    flips.push(format!(
                        "{}: {change:?}: {} {} -> {}",
                        sc.name,
                        p.name(),
                        before.as_str(),
                        after.as_str()
                    ));
                }
                assert!(
                    !(p.is_safety() && before == Verdict::Violated && after == Verdict::Holds),
                    "{}: {change:?} hides a safety violation of {}: more clients or acquisitions allow more runs",
                    sc.name,
                    p.name()
                );
            }
        }
    }
    assert!(tried >= 25, "the changes were compared in full ({tried})");
    assert!(
        flips.is_empty(),
        "verdicts flipped without a pinned reason:\n{}",
        flips.join("\n")
    );
}
