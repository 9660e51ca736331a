//! Redlock's clients draw a fresh random value per attempt:
//! the keys hold it, the unlock compares it, and answers carry it, so an
//! answer to an earlier attempt is no vote and a restarted client cannot
//! delete the keys of its previous life. Scenarios in `tests/redlock/`.

use std::path::Path;

use crate::common::run;
use locksmith::algorithms::redlock::{self, Msg, State, Step, Timer};
use locksmith::catalog::{load, parse};
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::Verdict;
use locksmith::world::{Action, Actor, World, WorldState};

/// When attempts were numbered mod 2, the answer to the attempt two tries
/// back counted as a vote: with one master, two clients, messages delayed
/// up to 4 ticks and a retry after 1 tick, mutual exclusion was violated in
/// 19 steps, a false alarm. The full space is large (requests outlive
/// their attempts), so the search is bounded, well past that depth.
#[test]
fn an_answer_to_an_older_attempt_is_no_vote() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/redlock/redlock-old-answer.toml");
    let sc = load(&path).expect("a valid scenario");
    let r = run(
        &sc,
        Options {
            max_states: Some(200_000),
            ..Options::default()
        },
    );
    assert!(r.max_depth > 19, "searched to depth {}", r.max_depth);
    assert_ne!(r.verdict(Prop::MutualExclusion), Verdict::Violated);
}

fn world(system: &str, faults: &str) -> World<redlock::Node> {
    let text = format!(
        "summary = \"s\"\nalgorithm = \"redlock\"\n[system]\nmasters = 1\n{system}\n[faults]\n{faults}\n[bounds]\nacquisitions = 1\n"
    );
    let sc = parse(Path::new("inline.toml"), &text).expect("a valid scenario");
    redlock::world(&sc).expect("builds")
}

fn step(
    world: &World<redlock::Node>,
    s: &WorldState<redlock::Node>,
    a: Action<redlock::Node>,
) -> WorldState<redlock::Node> {
    let mut enabled = Vec::new();
    world.enabled(s, &mut enabled);
    assert!(enabled.contains(&a), "{a:?} is enabled; enabled: {enabled:?}");
    world.after(s, &a).expect("changes the state")
}

fn key(s: &WorldState<redlock::Node>) -> Option<u32> {
    match &s.nodes[0].state {
        State::Master(m) => m.key,
        _ => unreachable!("node 0 is a master"),
    }
}

/// A client that wins the master and crashes comes back with no value: its
/// next attempt's unlock carries a new value and leaves its previous life's
/// key to expire.
#[test]
fn a_restarted_client_cannot_delete_its_previous_key() {
    let world = world(
        "clients = 1\nretry = 1",
        "max_delay = 1\ncrashes = 1\ntargets = \"clients\"",
    );
    let s = world.init();
    let s = step(
        &world,
        &s,
        Action::Step {
            node: 1,
            step: Step::Acquire,
        },
    );
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 1,
            dst: 0,
            msg: Msg::Lock { value: 1 },
        },
    );
    let old = key(&s).expect("the master set the key");
    let s = step(&world, &s, Action::Crash { node: 1 });
    let s = step(&world, &s, Action::Restart { node: 1 });
    let s = step(
        &world,
        &s,
        Action::Step {
            node: 1,
            step: Step::Acquire,
        },
    );
    let State::Client(c) = &s.nodes[1].state else {
        unreachable!("node 1 is a client")
    };
    assert_ne!(c.value, old, "a new life draws a new value");
    let value = c.value;
    // The master refuses the new attempt; the client gives up and unlocks.
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 1,
            dst: 0,
            msg: Msg::Lock { value },
        },
    );
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 0,
            dst: 1,
            msg: Msg::Locked { value, ok: false },
        },
    );
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 1,
            dst: 0,
            msg: Msg::Unlock { value },
        },
    );
    assert_eq!(key(&s), Some(old), "the unlock compared values and kept the old key");
}

/// An answer that reaches a client after it has given up on the attempt
/// and started another is ignored: it carries the earlier value.
#[test]
fn a_late_answer_is_ignored() {
    let world = world("clients = 1\nretry = 1\nretry_max = 1\ntimeout = 1", "max_delay = 2");
    let s = world.init();
    let s = step(
        &world,
        &s,
        Action::Step {
            node: 1,
            step: Step::Acquire,
        },
    );
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 1,
            dst: 0,
            msg: Msg::Lock { value: 1 },
        },
    );
    // The request timeout fires before the answer arrives.
    let s = step(&world, &s, Action::Tick);
    let s = step(
        &world,
        &s,
        Action::Fire {
            node: 1,
            timer: Timer::Timeout,
        },
    );
    let State::Client(c) = &s.nodes[1].state else {
        unreachable!("node 1 is a client")
    };
    assert_eq!(c.value, 0, "the failed attempt is forgotten");
    // It draws its back-off (the one delay there is), and when that timer
    // fires it tries again at once.
    let s = step(
        &world,
        &s,
        Action::Step {
            node: 1,
            step: Step::Backoff(1),
        },
    );
    let s = step(&world, &s, Action::Tick);
    let s = step(
        &world,
        &s,
        Action::Fire {
            node: 1,
            timer: Timer::Retry,
        },
    );
    let before = s.nodes[1].state;
    let late = s
        .net
        .iter()
        .find(|e| e.dst == 1)
        .map(|e| e.msg)
        .expect("the first answer is still in flight");
    assert!(matches!(late, Msg::Locked { ok: true, .. }));
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 0,
            dst: 1,
            msg: late,
        },
    );
    assert_eq!(s.nodes[1].state, before, "the late yes is no vote");
}

/// The first state, breadth-first, in which some client draws its
/// back-off, with the steps it may draw.
fn first_draw(world: &World<redlock::Node>) -> Vec<Step> {
    let mut queue = std::collections::VecDeque::from([world.init()]);
    let mut seen = std::collections::HashSet::new();
    let mut enabled = Vec::new();
    while let Some(s) = queue.pop_front() {
        enabled.clear();
        world.enabled(&s, &mut enabled);
        let draws: Vec<Step> = enabled
            .iter()
            .filter_map(|a| match a {
                Action::Step {
                    step: step @ Step::Backoff(_),
                    ..
                } => Some(*step),
                _ => None,
            })
            .collect();
        if !draws.is_empty() {
            return draws;
        }
        for a in &enabled {
            if let Some(t) = world.after(&s, a) {
                if seen.insert(format!("{t:?}")) {
                    queue.push_back(t);
                }
            }
        }
        assert!(seen.len() < 100_000, "a client gives up within the search");
    }
    Vec::new()
}

/// a client that gives up draws its back-off from
/// `retry..=retry_max`, each outcome a random (strongly fair) step; with
/// `retry_max = retry` there is one outcome, an ordinary step.
#[test]
fn a_client_draws_its_back_off_from_retry_to_retry_max() {
    let w = world(
        "clients = 2\nttl = 4\ntimeout = 1\nretry = 2\nretry_max = 4",
        "max_delay = 1",
    );
    let draws = first_draw(&w);
    assert_eq!(draws, vec![Step::Backoff(2), Step::Backoff(3), Step::Backoff(4)]);
    let client = &w.actors[1];
    assert!(draws.iter().all(|&d| client.random(d) && client.urgent(d)));
    let fixed = world(
        "clients = 2\nttl = 4\ntimeout = 1\nretry = 2\nretry_max = 2",
        "max_delay = 1",
    );
    assert_eq!(first_draw(&fixed), vec![Step::Backoff(2)]);
    assert!(!fixed.actors[1].random(Step::Backoff(2)));
}

/// `retry_max` below `retry` is refused, naming the key and the range.
#[test]
fn retry_max_below_retry_is_refused() {
    let text = "summary = \"s\"\nalgorithm = \"redlock\"\n[system]\nretry = 3\nretry_max = 2\n";
    let err = parse(Path::new("inline.toml"), text).expect_err("refused").to_string();
    assert!(err.contains("inline.toml"), "{err}");
    assert!(
        err.contains("retry_max = 2 is not allowed; allowed: a whole number from 3 to 20"),
        "{err}"
    );
}

/// With `requests = "sequential"` a client asks one master at a time: s1
/// first; when s1's timeout fires, s1 counts as a no and s2 is asked, with a
/// timeout of its own; s1's answer, arriving after that, is no vote.
#[test]
fn a_sequential_client_asks_the_next_master_when_one_times_out() {
    let text = "summary = \"s\"\nalgorithm = \"redlock\"\n[system]\nmasters = 3\nclients = 1\ntimeout = 1\nrequests = \"sequential\"\n[faults]\nmax_delay = 2\n[bounds]\nacquisitions = 1\n";
    let sc = parse(Path::new("inline.toml"), text).expect("a valid scenario");
    let world = redlock::world(&sc).expect("builds");
    let client = 3;
    let asked = |s: &WorldState<redlock::Node>| -> Vec<usize> {
        s.net
            .iter()
            .filter(|e| e.src == client && matches!(e.msg, Msg::Lock { .. }))
            .map(|e| e.dst)
            .collect()
    };
    let s = world.init();
    let s = step(
        &world,
        &s,
        Action::Step {
            node: client,
            step: Step::Acquire,
        },
    );
    assert_eq!(asked(&s), [0], "only the first master is asked");
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: client,
            dst: 0,
            msg: Msg::Lock { value: 1 },
        },
    );
    let s = step(&world, &s, Action::Tick);
    let s = step(
        &world,
        &s,
        Action::Fire {
            node: client,
            timer: Timer::Timeout,
        },
    );
    assert_eq!(asked(&s), [1], "s1 timed out: s2 is asked");
    assert!(
        s.nodes[client].timer(Timer::Timeout).is_some(),
        "with a timeout of its own"
    );
    let before = s.nodes[client].state;
    let s = step(
        &world,
        &s,
        Action::Deliver {
            src: 0,
            dst: client,
            msg: Msg::Locked { value: 1, ok: true },
        },
    );
    assert_eq!(s.nodes[client].state, before, "s1's late yes is no vote");
}

/// The sequential client's livelock (scenarios/redlock-sequential-requests.toml): every
/// message a tick late makes its three round trips outlast the validity
/// for ever; the same client asking all masters at once gets the lock.
#[test]
fn requests_in_sequence_can_outlast_the_validity_for_ever() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redlock-sequential-requests.toml");
    let sequential = load(&path).expect("a valid scenario");
    let mut parallel = sequential.clone();
    parallel.system.insert("requests".into(), "parallel".into());
    for (sc, verdict) in [(sequential, Verdict::Violated), (parallel, Verdict::Holds)] {
        let r = run(&sc, Options::default());
        for prop in [Prop::DeadlockFreedom, Prop::StarvationFreedom] {
            assert_eq!(
                r.verdict(prop),
                verdict,
                "{prop:?} with requests = {:?}",
                sc.system["requests"]
            );
        }
        assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
    }
}
