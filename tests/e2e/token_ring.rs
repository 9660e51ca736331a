//! The token ring: verdicts that survive harmless parameter
//! changes, the naive regeneration's timeout boundary without any fault,
//! one to N messages per entry measured on fault-free runs, adversarial
//! scenarios of its own in `tests/token_ring/`, and replayable traces.

use std::path::Path;
use std::process::Command;

use crate::common::{run, scenario, TempDir};
use locksmith::algorithms::token_ring::{self, Msg, Step};
use locksmith::catalog::load;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::Action;

fn local(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/token_ring")
        .join(format!("{name}.toml"));
    load(&path).expect("a valid scenario")
}

fn set(sc: &mut Scenario, key: &str, value: i64) {
    sc.system.insert(key.into(), toml::Value::Integer(value));
}

#[test]
fn the_adversarial_scenarios_keep_their_verdicts() {
    for name in ["regenerate-slow-token", "regenerate-no-fault", "two-level-crash"] {
        let sc = local(name);
        let r = run(&sc, Options::default());
        for (prop, want) in &sc.expect {
            assert_eq!(r.verdict(*prop), *want, "{name}: {}", prop.name());
        }
    }
}

/// Ring sizes and bounded acquisitions change no verdict.
#[test]
fn verdicts_survive_harmless_changes() {
    for (nodes, acquisitions) in [(2, 0), (4, 0), (3, 1), (3, 2)] {
        let mut sc = scenario("token-ring-no-faults");
        set(&mut sc, "nodes", nodes);
        sc.acquisitions = acquisitions;
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            assert_eq!(
                r.verdict(p),
                Verdict::Holds,
                "{nodes} nodes, {acquisitions}: {}",
                p.name()
            );
        }
        let mut sc = scenario("token-ring-crash");
        set(&mut sc, "nodes", nodes);
        sc.acquisitions = acquisitions;
        let r = run(&sc, Options::default());
        assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
        assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated, "{nodes} nodes");
    }
    for (rings, nodes) in [(2, 1), (3, 1), (2, 3)] {
        let mut sc = scenario("token-ring-two-level");
        set(&mut sc, "rings", rings);
        set(&mut sc, "nodes", nodes);
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            assert_eq!(r.verdict(p), Verdict::Holds, "{rings} rings of {nodes}: {}", p.name());
        }
    }
}

/// Without any fault, naive regeneration is safe exactly when the timeout
/// exceeds the longest time the token can take to come back: with N nodes
/// and messages delayed up to one tick, (N − 1) critical sections of a
/// write and its answer, and N passes: 3(N − 1) + 1 ticks.
#[test]
fn naive_regeneration_needs_a_timeout_longer_than_a_round() {
    for nodes in [2u8, 3] {
        let bound = 3 * (i64::from(nodes) - 1) + 1;
        for (timeout, want) in [(bound, Verdict::Violated), (bound + 1, Verdict::Holds)] {
            let mut sc = local("regenerate-no-fault");
            set(&mut sc, "nodes", nodes.into());
            set(&mut sc, "timeout", timeout);
            let r = run(&sc, Options::default());
            assert_eq!(
                r.verdict(Prop::MutualExclusion),
                want,
                "{nodes} nodes, timeout {timeout}"
            );
        }
    }
}

/// Between one and N token passes per critical section on fault-free
/// runs in which every node asks for ever.
#[test]
fn an_entry_costs_one_to_n_messages() {
    for (rings, nodes, n) in [(1, 3, 3), (1, 4, 4), (2, 2, 4)] {
        let mut sc = scenario("token-ring-two-level");
        set(&mut sc, "rings", rings);
        set(&mut sc, "nodes", nodes);
        let world = token_ring::world(&sc).expect("builds");
        for seed in 1..=10u64 {
            let mut rng = seed;
            let mut s = world.init();
            let (mut tokens, mut entries) = (0u32, 0u32);
            for _ in 0..400 {
                let mut actions = Vec::new();
                world.enabled(&s, &mut actions);
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let a = actions[(rng >> 33) as usize % actions.len()].clone();
                match &a {
                    Action::Deliver {
                        msg: Msg::Token | Msg::TopToken,
                        ..
                    } => tokens += 1,
                    Action::Step { step: Step::Enter, .. } => entries += 1,
                    _ => {}
                }
                s = world.after(&s, &a).expect("every enabled action changes the state");
            }
            assert!(entries > 10, "seed {seed}: the run makes progress");
            assert!(
                tokens + n >= entries && tokens <= n * entries,
                "{rings} rings of {nodes}, seed {seed}: {tokens} passes for {entries} entries"
            );
        }
    }
}

fn replays(name: &str) {
    let tmp = TempDir::new(&format!("token-ring-replay-{name}"));
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["check", name, "--reports"])
        .arg(tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run locksmith");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let trace = tmp.join(name).join("trace.json");
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .arg("replay")
        .arg(&trace)
        .output()
        .expect("run locksmith");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}{}",
        trace.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_lost_token_and_the_second_token_replay() {
    replays("token-ring-crash");
    replays("token-ring-regenerate");
}

/// a node that receives a second token while it holds one
/// counts two (before, it merged them into one), and passes both on, one
/// TOKEN each: two TOKENs from one node in flight at once.
#[test]
fn a_second_token_is_counted_not_merged() {
    use std::collections::{HashSet, VecDeque};
    let sc = local("regenerate-slow-token");
    let world = token_ring::world(&sc).expect("builds");
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([world.init()]);
    let (mut two_held, mut two_passed) = (false, false);
    while let Some(s) = queue.pop_front() {
        if two_held && two_passed {
            return;
        }
        if !seen.insert(s.clone()) {
            continue;
        }
        two_held |= s
            .nodes
            .iter()
            .any(|n| matches!(&n.state, token_ring::State::Node(r) if r.tokens == 2));
        two_passed |=
            s.net.iter().enumerate().any(|(i, e)| {
                e.msg == Msg::Token && s.net[i + 1..].iter().any(|f| f.msg == Msg::Token && f.src == e.src)
            });
        let mut actions = Vec::new();
        world.enabled(&s, &mut actions);
        for a in actions {
            if let Some(t) = world.after(&s, &a) {
                queue.push_back(t);
            }
        }
    }
    panic!("two held: {two_held}, two passed: {two_passed}");
}
