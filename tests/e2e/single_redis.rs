//! single-redis clients as real clients: request timeouts, a
//! fresh lock value per attempt, and the validity client. The small
//! adversarial scenarios are in `tests/single_redis/`.

use std::path::{Path, PathBuf};

use crate::common::{run, scenario};
use locksmith::algorithms::single_redis::{self, Msg, State, Step, Timer};
use locksmith::catalog::{load, parse};
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::{Action, World, WorldState};

fn local(name: &str) -> Scenario {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/single_redis")
        .join(format!("{name}.toml"));
    load(&path).expect("a valid scenario")
}

fn inline(system: &str, faults: &str) -> std::result::Result<Scenario, String> {
    let text = format!(
        "summary = \"s\"\nalgorithm = \"single-redis\"\n[system]\n{system}\n[faults]\n{faults}\n[bounds]\nacquisitions = 1\n"
    );
    let sc = parse(Path::new("inline.toml"), &text).map_err(|e| e.to_string())?;
    locksmith::algorithms::validate(&sc).map_err(|e| e.to_string())?;
    Ok(sc)
}

fn with(sc: &Scenario, key: &str, value: toml::Value) -> Scenario {
    let mut sc = sc.clone();
    sc.system.insert(key.into(), value);
    sc
}

fn mutual_exclusion(sc: &Scenario) -> Verdict {
    run(sc, Options::default()).verdict(Prop::MutualExclusion)
}

/// Every scenario in tests/single_redis/ meets its expectations.
#[test]
fn every_local_scenario_meets_its_expectations() {
    for path in crate::common::toml_files("tests/single_redis") {
        let sc = load(&path).expect("a valid scenario");
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            if let Some(expected) = sc.expected(p) {
                assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
            }
        }
    }
}

/// A timeout as long as the round trip is a livelock; one tick more is not.
#[test]
fn a_timeout_must_exceed_the_round_trip() {
    let sc = local("redis-timeout-round-trip");
    assert_eq!(
        run(&sc, Options::default()).verdict(Prop::DeadlockFreedom),
        Verdict::Violated
    );
    let longer = with(&sc, "timeout", toml::Value::Integer(3));
    assert_eq!(
        run(&longer, Options::default()).verdict(Prop::DeadlockFreedom),
        Verdict::Holds
    );
}

/// Item 1: a server crash drops the requests in flight to it; the clients
/// time out and retry, so nobody waits for ever. Without persistence the
/// restart loses the lock; with fsync every property holds.
#[test]
fn a_server_crash_leaves_no_client_waiting() {
    let fsync = scenario("redis-crash-fsync");
    for sc in [fsync.clone(), with(&fsync, "fencing", toml::Value::Boolean(false))] {
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            assert_eq!(r.verdict(p), Verdict::Holds, "{}: {}", sc.name, p.name());
        }
    }
    let empty = run(&scenario("redis-crash-empty"), Options::default());
    assert_eq!(empty.verdict(Prop::MutualExclusion), Verdict::Violated);
    assert_eq!(empty.verdict(Prop::DeadlockFreedom), Verdict::Holds);
}

/// Item 2: with one pause, the validity client breaks exactly where the
/// naive client does, 3 + pause >= ttl: the worst moment to pause is just
/// after its check. Pinned on both sides at ttl 6 and ttl 9.
#[test]
fn the_validity_client_breaks_at_the_naive_boundary() {
    let sc = scenario("redis-validity-short-pause");
    for (ttl, safe) in [(6, 2), (9, 5)] {
        let sc = with(&sc, "ttl", toml::Value::Integer(ttl));
        for client in ["naive", "validity"] {
            let mut sc = with(&sc, "client", toml::Value::String(client.into()));
            sc.faults.max_pause = safe;
            assert_eq!(
                mutual_exclusion(&sc),
                Verdict::Holds,
                "{client}, ttl {ttl}, pause {safe}"
            );
            sc.faults.max_pause = safe + 1;
            assert_eq!(
                mutual_exclusion(&sc),
                Verdict::Violated,
                "{client}, ttl {ttl}, pause {}",
                safe + 1
            );
        }
    }
}

/// What the validity client adds: it never uses a lock with too little
/// validity left. With ttl 3 a naive client breaks mutual exclusion with no
/// fault at all (3 + 0 >= 3); a validity client does not (it never gets a
/// usable lock, so nobody progresses).
#[test]
fn a_validity_client_refuses_a_lock_too_short_to_use() {
    let naive = inline("ttl = 3\nrelease = \"compare-and-delete\"", "max_delay = 1").expect("valid");
    assert_eq!(mutual_exclusion(&naive), Verdict::Violated);
    let validity = with(&naive, "client", toml::Value::String("validity".into()));
    let r = run(&validity, Options::default());
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated);
}

/// Kleppmann's point: the validity client's stale write comes from a pause
/// between its check and its write, and fencing stops it.
#[test]
fn a_pause_after_the_check_breaks_the_validity_client_unless_fenced() {
    let r = run(&scenario("redis-validity-gc-pause"), Options::default());
    assert_eq!(r.verdict(Prop::NoStaleWrite), Verdict::Violated);
    let r = run(&scenario("redis-validity-fencing"), Options::default());
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Violated);
    assert_eq!(r.verdict(Prop::NoStaleWrite), Verdict::Holds);
}

fn step(
    world: &World<single_redis::Node>,
    s: &WorldState<single_redis::Node>,
    a: Action<single_redis::Node>,
) -> WorldState<single_redis::Node> {
    assert!(world.is_enabled(s, &a), "{a:?} is enabled");
    world.after(s, &a).expect("changes the state")
}

fn client(s: &WorldState<single_redis::Node>, id: usize) -> single_redis::Client {
    match &s.nodes[id].state {
        State::Client(c) => *c,
        other => panic!("node {id} is not a client: {other:?}"),
    }
}

/// Item 3: a grant for an attempt that timed out arrives during the next
/// attempt; its value is the old attempt's, so the client ignores it.
#[test]
fn an_answer_to_an_earlier_attempt_is_ignored() {
    let sc = inline("clients = 1\nttl = 4", "max_delay = 3").expect("valid");
    let world = single_redis::world(&sc).expect("builds");
    let c1 = 1;
    let mut s = step(
        &world,
        &world.init(),
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    let first = client(&s, c1).value;
    s = step(
        &world,
        &s,
        Action::Deliver {
            src: c1,
            dst: 0,
            msg: Msg::SetNxPx { value: first },
        },
    );
    // The grant is slow: the timeout fires first.
    s.nodes[c1].timers.retain(|(t, _)| *t != Timer::Timeout);
    s.nodes[c1].timers.push((Timer::Timeout, 0));
    s = step(
        &world,
        &s,
        Action::Fire {
            node: c1,
            timer: Timer::Timeout,
        },
    );
    s.nodes[c1].timers.clear();
    s = step(
        &world,
        &s,
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    let second = client(&s, c1).value;
    assert_ne!(first, second, "each attempt draws a fresh value");
    let grant = s
        .net
        .iter()
        .find(|e| e.dst == c1)
        .map(|e| e.msg)
        .expect("the first attempt's grant is in flight");
    let t = step(
        &world,
        &s,
        Action::Deliver {
            src: 0,
            dst: c1,
            msg: grant,
        },
    );
    assert_eq!(
        client(&t, c1).script.phase,
        locksmith::algorithms::client::Phase::Acquiring,
        "the old grant is ignored"
    );
}

/// Item 3: a restarted client draws a new value, so its compare-and-delete
/// cannot remove the key of its previous life.
#[test]
fn a_restarted_client_draws_a_new_value() {
    let sc = inline(
        "clients = 1\nttl = 4\nrelease = \"compare-and-delete\"",
        "max_delay = 1\ncrashes = 1\ntargets = \"clients\"",
    )
    .expect("valid");
    let world = single_redis::world(&sc).expect("builds");
    let c1 = 1;
    let mut s = step(
        &world,
        &world.init(),
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    let old = client(&s, c1).value;
    s = step(
        &world,
        &s,
        Action::Deliver {
            src: c1,
            dst: 0,
            msg: Msg::SetNxPx { value: old },
        },
    );
    s = step(&world, &s, Action::Crash { node: c1 });
    s = step(&world, &s, Action::Restart { node: c1 });
    s = step(
        &world,
        &s,
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    let key = match &s.nodes[0].state {
        State::Server(srv) => srv.key.expect("the old life's key is still there"),
        other => panic!("{other:?}"),
    };
    assert_ne!(client(&s, c1).value, key.value);
}

/// `drift` and `margin` are the validity client's: a naive client refuses
/// them, and a validity client needs a TTL and no watchdog.
#[test]
fn validity_keys_are_refused_where_they_mean_nothing() {
    for (system, words) in [
        ("drift = 1", "only by a validity client"),
        ("margin = 3", "only by a validity client"),
        ("client = \"validity\"\ncommand = \"setnx\"", "never sets"),
        ("client = \"validity\"\nwatchdog = true", "watchdog = false"),
        ("client = \"cautious\"", "allowed: \"naive\", \"validity\""),
    ] {
        let err = inline(system, "").expect_err(system);
        assert!(err.contains("inline.toml") && err.contains(words), "{system}: {err}");
    }
    assert!(inline("client = \"validity\"\ndrift = 0\nmargin = 3", "").is_ok());
}
