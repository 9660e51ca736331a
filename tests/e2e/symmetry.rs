//! Symmetry reduction: the representative of a state must not depend on
//! the names its nodes happen to have, and checking the quotient must reach
//! the same safety verdicts, with counterexamples of the same (shortest)
//! length, as checking every state.

use crate::common::{locksmith, run, scenario};
use locksmith::algorithms::{dispatch, Job};
use locksmith::check::Options;
use locksmith::properties::{Lock, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::{fingerprint, World};

/// Every renaming that permutes nodes within the world's groups.
fn renamings(n: usize, groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut out = vec![(0..n).collect::<Vec<usize>>()];
    for g in groups {
        let mut next = Vec::new();
        for base in &out {
            for p in permutations(g) {
                let mut perm = base.clone();
                for (from, to) in g.iter().zip(&p) {
                    perm[*from] = *to;
                }
                next.push(perm);
            }
        }
        out = next;
    }
    out
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    (0..items.len())
        .flat_map(|i| {
            let mut rest = items.to_vec();
            let x = rest.remove(i);
            permutations(&rest).into_iter().map(move |mut p| {
                p.insert(0, x);
                p
            })
        })
        .collect()
}

struct Invariance(usize);

impl Job for Invariance {
    type Output = usize;
    /// Walks `self.0` states breadth-first (unreduced) and checks that every
    /// renaming of each has the same representative. Returns the number of
    /// states whose orbit had more than one member.
    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> usize {
        assert!(!world.symmetry.is_empty(), "{} declares symmetry", sc.name);
        let perms = renamings(world.actors.len(), &world.symmetry);
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::from([world.init()]);
        let mut nontrivial = 0;
        while let Some(s) = queue.pop_front() {
            if seen.len() >= self.0 {
                break;
            }
            if !seen.insert(fingerprint(&s)) {
                continue;
            }
            let canon = fingerprint(&world.canonical(s.clone()).0);
            let mut orbit = std::collections::HashSet::new();
            for p in &perms {
                let renamed = world.rename_state(&s, p);
                orbit.insert(fingerprint(&renamed));
                assert_eq!(
                    fingerprint(&world.canonical(renamed).0),
                    canon,
                    "{}: a renaming changes the representative",
                    sc.name
                );
            }
            nontrivial += usize::from(orbit.len() > 1);
            let mut next = Vec::new();
            world.enabled(&s, &mut next);
            queue.extend(next.iter().filter_map(|a| world.after(&s, a)));
        }
        nontrivial
    }
}

#[test]
fn the_representative_does_not_depend_on_names() {
    for name in [
        "redlock-no-fsync",
        "redlock-gc-pause-fencing",
        "redlock-gc-pause-value-fencing",
        "redlock-five-masters",
    ] {
        let nontrivial = dispatch(&scenario(name), Invariance(3000)).expect("builds");
        assert!(
            nontrivial > 100,
            "{name}: the test saw only {nontrivial} states with a nontrivial orbit"
        );
    }
}

#[test]
fn the_quotient_keeps_safety_verdicts_and_shortest_lengths() {
    // Three masters and two clients reduce about tenfold; one master and
    // two clients (a violation at 19 steps) twofold. (redlock-no-fsync's
    // full graph, 1.9 M states, is CONTRIBUTING.md's and `bench`'s.)
    for (name, ratio) in [("redlock-no-faults", 3), ("redlock-drift-beyond-allowance", 1)] {
        let mut sc = scenario(name);
        sc.symmetry = true;
        let reduced = run(&sc, Options::default());
        sc.symmetry = false;
        let full = run(&sc, Options::default());
        assert!(
            reduced.unique_states * ratio < full.unique_states,
            "{name}: {} vs {}",
            reduced.unique_states,
            full.unique_states
        );
        for p in Prop::SAFETY {
            assert_eq!(reduced.verdict(p), full.verdict(p), "{name}: {}", p.name());
            assert_eq!(reduced.steps(p), full.steps(p), "{name}: {} shortest length", p.name());
        }
    }
}

/// A scenario from a file under tests/, or a bundled one.
fn load(name: &str) -> Scenario {
    if name.ends_with(".toml") {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(name);
        locksmith::catalog::load(&path).expect("valid scenario")
    } else {
        scenario(name)
    }
}

/// Liveness on the quotient is exact (src/check/quotient.rs): the same
/// verdicts as on the full graph, with lassos of the same length, on
/// configurations where it holds, where a loop starves a client, where a
/// client is stuck, and where clients compete forever (the case fairness
/// under renaming gets wrong: a quotient loop in which "a client" is
/// always served may still starve one client of the full graph).
#[test]
fn the_quotient_keeps_liveness_verdicts_and_lasso_lengths() {
    type Change = fn(&mut Scenario);
    let same: Change = |_| {};
    let two_clients: Change = |sc| {
        sc.system.insert("clients".into(), 2.into());
    };
    let two_and_two: Change = |sc| {
        sc.system.insert("masters".into(), 2.into());
        sc.system.insert("clients".into(), 2.into());
    };
    let cases: [(&str, Change); 9] = [
        ("redlock-no-faults", same),
        ("redlock-drift-within-allowance", same),
        ("redlock-drift-beyond-allowance", same),
        ("coordinator-crash", same),
        ("coordinator-loss", same),
        ("coordinator-no-faults", same),
        ("fidelity/redlock-one-master-forever.toml", two_clients),
        ("fidelity/redlock-one-master-forever.toml", two_and_two),
        ("fidelity/redlock-momentary-win.toml", two_clients),
    ];
    let mut verdicts = std::collections::BTreeSet::new();
    for (name, change) in cases {
        let mut sc = load(name);
        change(&mut sc);
        sc.symmetry = true;
        let reduced = run(&sc, Options::default());
        sc.symmetry = false;
        let full = run(&sc, Options::default());
        assert!(
            reduced.unique_states < full.unique_states,
            "{name}: nothing was reduced"
        );
        for p in [Prop::DeadlockFreedom, Prop::StarvationFreedom] {
            assert_ne!(reduced.verdict(p), Verdict::Unknown, "{name}: {}", p.name());
            assert_eq!(reduced.verdict(p), full.verdict(p), "{name}: {}", p.name());
            // Redlock's back-off is a random choice, fair per state: a
            // fair loop must take every outcome of every state it visits,
            // and the loop built on a lift and on the full graph may visit
            // different states (both are fair lassos, replayed by the
            // checker), so only the lengths of loops without draws are
            // compared.
            let draws = sc.algorithm == "redlock";
            if !draws {
                assert_eq!(reduced.steps(p), full.steps(p), "{name}: {} lasso length", p.name());
            }
            verdicts.insert((p.name(), format!("{:?}", full.verdict(p))));
        }
    }
    // The cases cover both verdicts of both properties.
    assert_eq!(verdicts.len(), 4, "{verdicts:?}");
}

/// Clients that loop forever make the waiting loops most of the graph, so
/// a lift is nearly the full graph: over its budget (`--max-states`) the
/// pass says so in a note and leaves liveness `unknown` (exit 3); within
/// it, the verdicts are `--no-symmetry`'s.
#[test]
fn a_lift_over_its_budget_leaves_liveness_unknown_with_a_note() {
    let file = "tests/redlock/redlock-forever-two-clients.toml";
    let check = |extra: &[&str]| {
        let mut args = vec!["check", file, "--no-reports"];
        args.extend(extra);
        locksmith(args)
    };
    let line = |out: &str, p: &str| -> Vec<String> {
        let l = out.lines().find(|l| l.trim_start().starts_with(p)).unwrap_or_default();
        l.split_whitespace().take(2).map(String::from).collect()
    };
    let over = check(&["--max-states", "1500"]);
    assert_eq!(over.code, 3, "{}{}", over.stdout, over.stderr);
    assert!(
        over.stdout
            .contains("liveness under symmetry lifts more than 1500 full states"),
        "{}",
        over.stdout
    );
    assert_eq!(line(&over.stdout, "deadlock_freedom"), ["deadlock_freedom", "unknown"]);
    for extra in [&["--max-states", "3000"][..], &["--no-symmetry"]] {
        let run = check(extra);
        assert_eq!(run.code, 0, "{extra:?}: {}{}", run.stdout, run.stderr);
        assert_eq!(line(&run.stdout, "deadlock_freedom"), ["deadlock_freedom", "holds"]);
        assert_eq!(
            line(&run.stdout, "starvation_freedom"),
            ["starvation_freedom", "violated"]
        );
    }
}
