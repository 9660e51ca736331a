//! The ZooKeeper lock recipes: sessions, ephemeral nodes and
//! watches, the Curator client, czxid fencing, the read-write recipe.
//! The small adversarial scenarios are in `tests/zookeeper/`.

use std::collections::{HashSet, VecDeque};
use std::path::Path;

use crate::common::{run, scenario};
use locksmith::algorithms::client::Phase;
use locksmith::algorithms::zookeeper::{self, Msg, State, Step};
use locksmith::catalog::parse;
use locksmith::check::{check, Options};
use locksmith::properties::{view, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::{fingerprint, Action, World, WorldState};

fn with(sc: &Scenario, key: &str, value: toml::Value) -> Scenario {
    let mut sc = sc.clone();
    sc.system.insert(key.into(), value);
    sc
}

fn inline(system: &str, faults: &str) -> Result<Scenario, String> {
    let text = format!(
        "summary = \"s\"\nalgorithm = \"zookeeper\"\n[system]\n{system}\n[faults]\n{faults}\n[bounds]\nacquisitions = 1\n"
    );
    let sc = parse(Path::new("inline.toml"), &text).map_err(|e| e.to_string())?;
    locksmith::algorithms::validate(&sc).map_err(|e| e.to_string())?;
    Ok(sc)
}

fn verdicts(sc: &Scenario) -> Vec<(Prop, Verdict)> {
    let r = run(sc, Options::default());
    r.verdicts.iter().map(|v| (v.0, v.1)).collect()
}

/// Every scenario in tests/zookeeper/ meets its expectations: a crashed
/// client's node goes with its session, and the other client proceeds,
/// even when the crashed one never returns; a pause shorter than the
/// session timeout is safe.
#[test]
fn every_local_scenario_meets_its_expectations() {
    for path in crate::common::toml_files("tests/zookeeper") {
        let sc = locksmith::catalog::load(&path).expect("a valid scenario");
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            if let Some(expected) = sc.expected(p) {
                assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
            }
        }
    }
}

/// The pause boundary: with max_delay 0, mutual exclusion breaks exactly
/// when a pause lasts the session timeout, pinned on both sides for
/// session timeouts 3 and 4.
#[test]
fn a_pause_breaks_the_lock_exactly_at_the_session_timeout() {
    let sc = scenario("zk-session-expiry-pause");
    for timeout in [3u8, 4] {
        let mut sc = with(&sc, "session_timeout", toml::Value::Integer(timeout.into()));
        for (pause, expected) in [(timeout - 1, Verdict::Holds), (timeout, Verdict::Violated)] {
            sc.faults.min_pause = pause;
            sc.faults.max_pause = pause;
            let r = run(&sc, Options::default());
            assert_eq!(
                r.verdict(Prop::MutualExclusion),
                expected,
                "session timeout {timeout}, pause {pause}"
            );
        }
    }
}

/// Harmless changes flip no verdict: a longer back-off, a request timeout
/// of 1 or 6 ticks (the round trip is 0 ticks here).
#[test]
fn the_retry_and_the_request_timeout_change_no_verdict() {
    for name in ["zk-session-expiry-pause", "zk-fencing-zxid", "zk-curator-pause"] {
        let sc = scenario(name);
        let base = verdicts(&sc);
        for (key, v) in [("retry", 3), ("timeout", 1), ("timeout", 6)] {
            let changed = with(&sc, key, toml::Value::Integer(v));
            assert_eq!(verdicts(&changed), base, "{name} with {key} = {v}");
        }
    }
}

/// The read-write recipe lets readers share: the checker reaches a state
/// in which the two readers both hold the lock (and rw_exclusion holds).
#[test]
fn readers_hold_the_lock_together_in_some_reachable_state() {
    let sc = scenario("zk-rwlock");
    let world = zookeeper::world(&sc).expect("builds");
    let readers = (1 << 1) | (1 << 2);
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([world.init()]);
    let mut found = None;
    while let Some(s) = queue.pop_front() {
        let v = view(&world, &s);
        if v.holding == readers && v.shared == readers {
            found = Some(s);
            break;
        }
        let mut actions = Vec::new();
        world.enabled(&s, &mut actions);
        for a in actions {
            if let Some(t) = world.after(&s, &a) {
                if seen.insert(fingerprint(&t)) {
                    queue.push_back(t);
                }
            }
        }
    }
    assert!(found.is_some(), "no reachable state with both readers holding");
    let r = run(&sc, Options::default());
    assert_eq!(r.verdict(Prop::RwExclusion), Verdict::Holds);
    assert_eq!(
        r.verdict(Prop::MutualExclusion),
        Verdict::Violated,
        "mutual_exclusion keeps its meaning: two readers are two holders"
    );
}

/// A writer never holds with anyone: with only writers, the read-write
/// recipe is the lock recipe, and rw_exclusion is mutual_exclusion.
#[test]
fn without_readers_rw_exclusion_is_mutual_exclusion() {
    let sc = with(&scenario("zk-rwlock"), "readers", toml::Value::Integer(0));
    let r = run(&sc, Options::default());
    assert_eq!(r.verdict(Prop::RwExclusion), Verdict::Holds);
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
}

/// rw_exclusion is reported only where readers share the lock, so no
/// other scenario's report changes; expecting it elsewhere is an error.
#[test]
fn rw_exclusion_is_reported_only_for_the_read_write_recipe() {
    for (name, reported) in [("zk-rwlock", true), ("zk-no-faults", false), ("redis-fencing", false)] {
        let sc = scenario(name);
        let r = run(&sc, Options::default());
        assert_eq!(r.verdicts.iter().any(|v| v.0 == Prop::RwExclusion), reported, "{name}");
    }
    let text = "summary = \"s\"\nalgorithm = \"zookeeper\"\n[expect]\nrw_exclusion = \"holds\"\n";
    let err = parse(Path::new("rw.toml"), text).expect_err("no readers").to_string();
    assert!(err.contains("rw.toml") && err.contains("rw_exclusion"), "{err}");
}

/// Curator's check catches a pause before it, never one after it: in the
/// shortest violation, c1 checks, then pauses, then writes.
#[test]
fn a_curator_client_is_defeated_by_a_pause_after_its_check() {
    let sc = scenario("zk-curator-pause");
    let world = zookeeper::world(&sc).expect("builds");
    let o = check(&world, &Options::default());
    let trace = o
        .get(Prop::MutualExclusion)
        .trace
        .as_ref()
        .expect("mutual exclusion is violated");
    let at = |wanted: &dyn Fn(&Action<zookeeper::Node>) -> bool| trace.prefix.iter().position(wanted);
    let pause = at(&|a| matches!(a, Action::Pause { .. })).expect("a pause");
    let Action::Pause { node, .. } = trace.prefix[pause] else {
        unreachable!()
    };
    let checked = at(&|a| {
        *a == Action::Step {
            node,
            step: Step::Check,
        }
    })
    .expect("a check");
    assert!(checked < pause, "the paused client checked before its pause: {trace:?}");
}

/// A plain ZooKeeper client learns its session expired only from the
/// ensemble: after a pause past the session timeout, its next ping is
/// answered SESSION_EXPIRED, and it stops believing it holds the lock.
#[test]
fn an_expired_session_is_learnt_from_the_ensemble() {
    let sc = inline(
        "clients = 1\nsession_timeout = 3\nping = 1",
        "max_delay = 0\npauses = 1\nmax_pause = 4\ntargets = \"clients\"",
    )
    .expect("valid");
    let world = zookeeper::world(&sc).expect("builds");
    let c1 = 1;
    let mut s = world.init();
    let go = |s: &mut WorldState<zookeeper::Node>, a: Action<zookeeper::Node>| {
        assert!(world.is_enabled(s, &a), "{a:?} is enabled in {s:?}");
        *s = world.after(s, &a).expect("changes the state");
    };
    go(
        &mut s,
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    // The ensemble answers, and the client takes the lock (no one else).
    while client(&s, c1).script.phase != Phase::Holding {
        let e = s.net.first().expect("a message in flight").clone();
        go(
            &mut s,
            Action::Deliver {
                src: e.src,
                dst: e.dst,
                msg: e.msg,
            },
        );
    }
    // Its session expires while it is paused; its node goes with it.
    go(&mut s, Action::Pause { node: c1, ticks: 4 });
    for _ in 0..3 {
        go(&mut s, Action::Tick);
    }
    let expiry = s.nodes[0].timers[0].0;
    go(&mut s, Action::Fire { node: 0, timer: expiry });
    match &s.nodes[0].state {
        State::Ensemble(e) => assert!(e.children.is_empty() && e.sessions.iter().all(|x| *x == 0)),
        other => panic!("{other:?}"),
    }
    assert_eq!(client(&s, c1).script.phase, Phase::Holding, "nobody told c1");
    go(&mut s, Action::Tick);
    // Resumed: its write goes out first (urgent), then its ping.
    go(
        &mut s,
        Action::Step {
            node: c1,
            step: Step::Write,
        },
    );
    go(
        &mut s,
        Action::Fire {
            node: c1,
            timer: zookeeper::Timer::Ping,
        },
    );
    let session = client(&s, c1).session;
    go(
        &mut s,
        Action::Deliver {
            src: c1,
            dst: 0,
            msg: Msg::Ping { session },
        },
    );
    go(
        &mut s,
        Action::Deliver {
            src: 0,
            dst: c1,
            msg: Msg::SessionExpired { session },
        },
    );
    assert_eq!(client(&s, c1).script.phase, Phase::Want);
    assert_eq!(client(&s, c1).session, 0);
}

fn client(s: &WorldState<zookeeper::Node>, id: usize) -> zookeeper::Client {
    match &s.nodes[id].state {
        State::Client(c) => *c,
        other => panic!("node {id} is not a client: {other:?}"),
    }
}

/// Parameters that mean nothing together are refused with one sentence.
#[test]
fn bad_parameters_are_refused() {
    for (system, faults, words) in [
        ("readers = 1", "", "only by the read-write recipe"),
        ("recipe = \"rwlock\"\nclients = 2\nreaders = 3", "", "more than clients"),
        ("suspend_after = 2", "", "only by a Curator client"),
        ("session_timeout = 3\nping = 3", "", "not shorter than session_timeout"),
        ("", "crashes = 1", "targets = \"clients\""),
        ("watch = \"lowest\"", "", "allowed: \"predecessor\", \"all\""),
    ] {
        let err = inline(system, faults).expect_err(system);
        assert!(
            err.contains("inline.toml") && err.contains(words),
            "{system} {faults}: {err}"
        );
    }
    let _: World<zookeeper::Node> =
        zookeeper::world(&inline("client = \"curator\"", "").expect("valid")).expect("builds");
}

/// Messages sent per acquisition in one fault-free run in which every
/// client asks at once and time passes only when nothing else can happen.
fn messages_per_acquisition(name: &str) -> f64 {
    let world = zookeeper::world(&scenario(name)).expect("builds");
    let mut s = world.init();
    let (mut sent, mut acquisitions) = (0usize, 0u32);
    for _ in 0..10_000 {
        let mut actions = Vec::new();
        world.enabled(&s, &mut actions);
        let Some(a) = actions
            .iter()
            .find(|a| !world.is_fault(a) && !matches!(a, Action::Tick))
            .or_else(|| actions.iter().find(|a| matches!(a, Action::Tick)))
        else {
            break;
        };
        let t = world.after(&s, a).expect("changes the state");
        let delivered = usize::from(matches!(a, Action::Deliver { .. }));
        sent += (t.net.len() + delivered).saturating_sub(s.net.len());
        let (before, after) = (view(&world, &s).wanting, view(&world, &t).wanting);
        acquisitions += (before & !after).count_ones();
        s = t;
    }
    assert_eq!(acquisitions, 3, "{name}: every client acquired once");
    sent as f64 / f64::from(acquisitions)
}

/// The herd effect as a number: watching all the children costs more
/// messages per acquisition than watching the predecessor, same clients.
#[test]
fn the_herd_sends_more_messages_per_acquisition() {
    let herd = messages_per_acquisition("zk-herd");
    let predecessor = messages_per_acquisition("zk-predecessor-watch");
    eprintln!("messages per acquisition: herd {herd:.2}, predecessor {predecessor:.2}");
    assert!(herd > predecessor, "herd {herd}, predecessor {predecessor}");
}

/// The first state reachable from `from` (breadth first) that `wanted`
/// accepts.
fn reach(
    world: &World<zookeeper::Node>,
    from: WorldState<zookeeper::Node>,
    wanted: impl Fn(&WorldState<zookeeper::Node>) -> bool,
) -> Option<WorldState<zookeeper::Node>> {
    let mut seen = HashSet::from([fingerprint(&from)]);
    let mut queue = VecDeque::from([from]);
    while let Some(s) = queue.pop_front() {
        if wanted(&s) {
            return Some(s);
        }
        let mut actions = Vec::new();
        world.enabled(&s, &mut actions);
        for a in actions {
            if let Some(t) = world.after(&s, &a) {
                if seen.insert(fingerprint(&t)) {
                    queue.push_back(t);
                }
            }
        }
    }
    None
}

fn ensemble(s: &WorldState<zookeeper::Node>) -> &zookeeper::Ensemble {
    match &s.nodes[0].state {
        State::Ensemble(e) => e,
        other => panic!("node 0 is not the ensemble: {other:?}"),
    }
}

/// Curator's InterProcessMutex does nothing with its node
/// on SUSPENDED (LockInternals has no connection-state listener); the
/// application stops using the lock until RECONNECTED or LOST. A Curator
/// holder cut off from the ensemble for `suspend_after` ticks is
/// SUSPENDED and keeps its node; when an answer comes back (RECONNECTED)
/// it writes under the same node. (A holder checks and writes at once, so
/// a pause of 2 ticks, past `suspend_after` and short of the session
/// timeout, is what leaves it holding while SUSPENDED.) The old model deleted
/// the node on SUSPENDED and tried again, so no such state was reachable.
#[test]
fn a_suspended_curator_holder_keeps_its_node_and_resumes_when_reconnected() {
    let sc = inline(
        "clients = 1\nsession_timeout = 3\nping = 1\nclient = \"curator\"\nsuspend_after = 2",
        "max_delay = 0\npauses = 1\nmax_pause = 2\ntargets = \"clients\"",
    )
    .expect("valid");
    let world = zookeeper::world(&sc).expect("builds");
    let c1 = 1;
    let suspended = reach(&world, world.init(), |s| {
        let c = client(s, c1);
        c.script.phase == Phase::Holding
            && !c.checked
            && s.nodes[c1].timer(zookeeper::Timer::Suspend).is_none_or(|t| t == 0)
            && s.nodes[c1].timer(zookeeper::Timer::Lost).is_some()
            && ensemble(s).children.iter().any(|z| z.child.czxid == c.node)
    })
    .expect("a SUSPENDED holder whose node is still on the ensemble");
    let node = client(&suspended, c1).node;
    assert!(
        !suspended.net.iter().any(|e| matches!(e.msg, Msg::Delete { .. })),
        "SUSPENDED deletes nothing: {suspended:?}"
    );
    let resumed = reach(&world, suspended, |s| {
        let c = client(s, c1);
        c.script.phase == Phase::Writing && c.node == node
    });
    assert!(resumed.is_some(), "RECONNECTED, the holder writes under its node");
}

/// Curator declares the session LOST once it has been SUSPENDED for a
/// whole session timeout on its own clock (ConnectionStateManager's
/// checkSessionExpiration): a holder cut off for good gives the lock up
/// without any answer from the ensemble.
#[test]
fn a_curator_client_suspended_for_a_session_timeout_is_lost() {
    let sc = inline(
        "clients = 1\nsession_timeout = 3\nping = 1\nclient = \"curator\"\nsuspend_after = 2",
        "max_delay = 0\npauses = 1\nmax_pause = 2\npartitions = 1\ntargets = \"clients\"",
    )
    .expect("valid");
    let world = zookeeper::world(&sc).expect("builds");
    let c1 = 1;
    let about_to_lose = reach(&world, world.init(), |s| {
        let c = client(s, c1);
        c.script.phase == Phase::Holding && s.nodes[c1].timer(zookeeper::Timer::Lost) == Some(0)
    })
    .expect("a holder whose LOST timer has run out");
    let lost = world
        .after(
            &about_to_lose,
            &Action::Fire {
                node: c1,
                timer: zookeeper::Timer::Lost,
            },
        )
        .expect("LOST changes the state");
    let c = client(&lost, c1);
    assert_eq!((c.script.phase, c.session), (Phase::Want, 0), "{c:?}");
}

/// without Curator's protection prefix a `create` whose
/// answer was lost leaves an orphan ephemeral node of the client's own
/// session; the client creates again, waits for the orphan below it, and
/// keeps the session (and so the orphan) alive with its pings. With the
/// prefix it finds its node by the guid and every property holds.
#[test]
fn without_the_protection_prefix_a_lost_create_answer_blocks_for_ever() {
    let sc = scenario("zk-no-protection");
    let world = zookeeper::world(&sc).expect("builds");
    let o = check(&world, &Options::default());
    let trace = o
        .get(Prop::DeadlockFreedom)
        .trace
        .as_ref()
        .expect("deadlock freedom is violated");
    let mut s = world.init();
    for a in &trace.prefix {
        s = world.after(&s, a).expect("the trace replays");
    }
    let c = client(&s, 1);
    let e = ensemble(&s);
    assert_eq!(e.children.len(), 2, "the orphan and the second node: {e:?}");
    assert!(
        e.children.iter().all(|z| z.session == c.session),
        "both are c1's: {e:?}"
    );
    assert_eq!(
        c.target, e.children[0].child.czxid,
        "c1 waits for its own orphan: {c:?}"
    );
    let protected = with(&sc, "protection", toml::Value::Boolean(true));
    let v = verdicts(&protected);
    assert!(
        v.iter().all(|(_, v)| *v == Verdict::Holds),
        "with the protection prefix: {v:?}"
    );
}
