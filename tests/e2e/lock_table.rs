//! The SQL lock table's clients: the statement timeout, fresh
//! lock values, and the naive and validity clients' pause boundaries.
//! Scenarios of their own are in `tests/lock_table/`.

use std::path::Path;

use crate::common::{run, scenario};
use locksmith::algorithms::lock_table::{self, Msg, Node, Step, Timer};
use locksmith::catalog::{load, parse};
use locksmith::check::{check, Options};
use locksmith::properties::{safe, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::{Action, World, WorldState};

fn local(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lock_table")
        .join(format!("{name}.toml"));
    load(&path).expect("a valid scenario")
}

/// A scenario kept in `specs/` for a `.cfg`.
fn spec_scenario(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(format!("{name}.toml"));
    load(&path).expect("a valid scenario")
}

/// `name` with `ttl`, `max_pause` and, if given, `client` replaced: the
/// verdict on mutual exclusion.
fn mutual_exclusion(name: &str, client: Option<&str>, ttl: u8, max_pause: u8) -> Verdict {
    let mut sc = scenario(name);
    sc.system.insert("ttl".into(), toml::Value::Integer(ttl.into()));
    if let Some(c) = client {
        sc.system.insert("client".into(), toml::Value::String(c.into()));
    }
    sc.faults.max_pause = max_pause;
    run(&sc, Options::default()).verdict(Prop::MutualExclusion)
}

/// The naive client: the row is set, then its answer, the write and the
/// write's answer take a tick each, so a pause breaks the lock exactly
/// when 3 + pause >= ttl.
#[test]
fn a_naive_client_breaks_exactly_when_3_plus_the_pause_reaches_the_ttl() {
    for (ttl, safe_pause) in [(6, 2), (8, 4)] {
        assert_eq!(
            mutual_exclusion("lock-table-pause", None, ttl, safe_pause),
            Verdict::Holds,
            "ttl {ttl}"
        );
        assert_eq!(
            mutual_exclusion("lock-table-pause", None, ttl, safe_pause + 1),
            Verdict::Violated,
            "ttl {ttl}"
        );
    }
}

/// The validity client has the same boundary: the worst pause comes after
/// its check, where no check sees it.
#[test]
fn a_validity_client_has_the_same_boundary() {
    for (ttl, safe_pause) in [(6, 2), (8, 4)] {
        assert_eq!(
            mutual_exclusion("lock-table-validity-pause", None, ttl, safe_pause),
            Verdict::Holds,
            "ttl {ttl}"
        );
        assert_eq!(
            mutual_exclusion("lock-table-validity-pause", None, ttl, safe_pause + 1),
            Verdict::Violated,
            "ttl {ttl}"
        );
    }
}

/// During acquisition the check does its job: the validity client survives
/// any pause there (the scenario), and the naive client breaks at the same
/// 3 + pause >= ttl.
#[test]
fn only_the_validity_client_survives_a_pause_during_acquisition() {
    let name = "lock-table-validity-pause-acquiring";
    assert_eq!(mutual_exclusion(name, None, 6, 6), Verdict::Holds);
    assert_eq!(mutual_exclusion(name, Some("naive"), 6, 2), Verdict::Holds);
    assert_eq!(mutual_exclusion(name, Some("naive"), 6, 3), Verdict::Violated);
}

fn step(world: &World<Node>, s: &WorldState<Node>, action: Action<Node>) -> WorldState<Node> {
    assert!(world.is_enabled(s, &action), "{action:?} is enabled in {s:?}");
    world.after(s, &action).expect("changes the state")
}

fn ticks(world: &World<Node>, mut s: WorldState<Node>, n: usize) -> WorldState<Node> {
    for _ in 0..n {
        s = step(world, &s, Action::Tick);
    }
    s
}

const DB: usize = 0;
const C1: usize = 1;
const C2: usize = 2;

fn deliver(src: usize, dst: usize, msg: Msg) -> Action<Node> {
    Action::Deliver { src, dst, msg }
}

/// Kleppmann's point, step by step: c1's insert commits at time 0, its
/// answer arrives at 1, c1 checks its validity (4 ticks left, more than the
/// margin of 2) and pauses for 3 ticks before its write. The write is
/// answered at 6, when the row expires and c2 inserts: both believe they
/// hold the lock.
#[test]
fn a_pause_between_check_and_write_breaks_a_validity_client() {
    let world = lock_table::world(&scenario("lock-table-validity-pause")).expect("builds");
    let mut s = world.init();
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Acquire,
        },
    );
    s = step(&world, &s, deliver(C1, DB, Msg::Insert { value: 1 }));
    s = ticks(&world, s, 1);
    s = step(&world, &s, deliver(DB, C1, Msg::Inserted { value: 1, ghost: 1 }));
    assert_eq!(
        s.nodes[C1].timer(Timer::Validity),
        Some(4),
        "ttl 6 - 1 elapsed - drift 1"
    );
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Check,
        },
    );
    s = step(&world, &s, Action::Pause { node: C1, ticks: 3 });
    s = ticks(&world, s, 3);
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Write,
        },
    );
    s = ticks(&world, s, 1);
    s = step(&world, &s, deliver(C1, 3, Msg::Resource(lock_table_write(1))));
    s = ticks(&world, s, 1);
    s = step(
        &world,
        &s,
        Action::Fire {
            node: DB,
            timer: Timer::RowExpiry,
        },
    );
    s = step(
        &world,
        &s,
        Action::Step {
            node: C2,
            step: Step::Acquire,
        },
    );
    s = step(&world, &s, deliver(C2, DB, Msg::Insert { value: 2 }));
    s = step(&world, &s, deliver(DB, C2, Msg::Inserted { value: 2, ghost: 2 }));
    s = step(
        &world,
        &s,
        Action::Step {
            node: C2,
            step: Step::Check,
        },
    );
    assert!(!safe(Prop::MutualExclusion, &world, &s), "both hold: {s:?}");
}

fn lock_table_write(ghost: u32) -> locksmith::algorithms::resource::ResourceMsg {
    locksmith::algorithms::resource::ResourceMsg::Write { token: 0, ghost }
}

/// The same schedule with the pause before the check is safe: the
/// validity timer runs down during the pause and the belief ends with it.
#[test]
fn a_pause_before_the_check_ends_the_belief() {
    let world = lock_table::world(&scenario("lock-table-validity-pause")).expect("builds");
    let mut s = world.init();
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Acquire,
        },
    );
    s = step(&world, &s, deliver(C1, DB, Msg::Insert { value: 1 }));
    s = step(&world, &s, deliver(DB, C1, Msg::Inserted { value: 1, ghost: 1 }));
    s = step(&world, &s, Action::Pause { node: C1, ticks: 3 });
    s = ticks(&world, s, 3);
    // 2 ticks of validity left, not more than the margin: the check fails,
    // and the client deletes its row and retries.
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Check,
        },
    );
    assert!(s.nodes[C1].timer(Timer::Retry).is_some());
    assert!(s.net.iter().any(|e| e.dst == DB && e.msg == Msg::Delete { value: 1 }));
    let r = check(&world, &Options::default());
    // The whole scenario is still violated, by a pause after the check.
    let trace = r.get(Prop::MutualExclusion).trace.clone().expect("a counterexample");
    let check_at = trace
        .prefix
        .iter()
        .position(|a| matches!(a, Action::Step { step: Step::Check, .. }))
        .expect("the client checks");
    let pause_at = trace
        .prefix
        .iter()
        .position(|a| matches!(a, Action::Pause { .. }))
        .expect("a pause");
    assert!(check_at < pause_at, "the pause comes after the check: {trace:?}");
}

/// An answer to an old statement is recognised by its value and ignored:
/// c1's insert commits, c1 pauses past its timeout, gives the attempt up,
/// and the late answer no longer makes it a holder.
#[test]
fn a_late_answer_to_a_timed_out_insert_is_ignored() {
    let world = lock_table::world(&scenario("lock-table-pause")).expect("builds");
    let mut s = world.init();
    s = step(
        &world,
        &s,
        Action::Step {
            node: C1,
            step: Step::Acquire,
        },
    );
    s = step(&world, &s, deliver(C1, DB, Msg::Insert { value: 1 }));
    s = step(&world, &s, Action::Pause { node: C1, ticks: 3 });
    s = ticks(&world, s, 3);
    s = step(
        &world,
        &s,
        Action::Fire {
            node: C1,
            timer: Timer::Timeout,
        },
    );
    s = step(&world, &s, deliver(DB, C1, Msg::Inserted { value: 1, ghost: 1 }));
    let lock_table::State::Client(c) = &s.nodes[C1].state else {
        panic!("c1 is a client")
    };
    assert_eq!(c.script.phase, locksmith::algorithms::client::Phase::Want);
    assert!(safe(Prop::MutualExclusion, &world, &s));
}

/// A validity client needs a row that outlives its margin, the drift
/// allowance and a round trip: with ttl 5 (margin 2, drift 1, two ticks
/// of delay) the network can fail every check, for ever.
#[test]
fn a_validity_client_needs_a_ttl_beyond_margin_drift_and_round_trip() {
    let r = meets_expectations(&local("validity-ttl-too-short"));
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated);
}

/// The database may crash now that every statement has a timeout: without
/// expiry a lost release leaves the row for ever (lock-table-db-crash);
/// with it, every property holds (lock-table-expiry, and this validity
/// client).
#[test]
fn a_database_crash_needs_the_expiry_column() {
    let r = meets_expectations(&spec_scenario("lock-table-validity-db-crash"));
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Holds);
}

fn meets_expectations(sc: &Scenario) -> crate::common::Result {
    let r = run(sc, Options::default());
    for p in Prop::ALL {
        if let Some(expected) = sc.expected(p) {
            assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
        }
    }
    r
}

/// `client = "validity"` on a table without expiry is refused, in one
/// sentence naming the file, the key and what is allowed.
#[test]
fn a_validity_client_needs_the_expiry_column() {
    let text =
        "summary = \"s\"\nalgorithm = \"lock-table\"\n[system]\nclient = \"validity\"\n[faults]\nmax_delay = 1\n";
    let err = parse(Path::new("no-expiry.toml"), text)
        .expect_err("refused")
        .to_string();
    for word in ["no-expiry.toml", "client", "validity", "expiry = true", "naive"] {
        assert!(err.contains(word), "{err:?} names {word}");
    }
    assert_eq!(err.lines().count(), 1);
}
