//! Unit tests of `primary-replica`: failovers, the `WAIT` variants, the
//! replica's expiry and the validity client, on small worlds.

use std::collections::{HashSet, VecDeque};
use std::path::Path;

use super::*;
use crate::catalog::parse;
use crate::check::{check, Counterexample, Options};
use crate::properties::Prop;
use crate::scenario::Verdict;
use crate::world::{fingerprint, Action};

const ASYNC: &str = include_str!("../../../scenarios/replica-failover-async.toml");
const WAIT: &str = include_str!("../../../scenarios/replica-failover-wait.toml");

/// Node ids with one replica.
const REPLICA: Id = 1;
const SENTINEL: Id = 2;
const FIRST_CLIENT: Id = 3;

fn scenario(text: &str) -> Scenario {
    parse(Path::new("x.toml"), text).expect("a valid scenario")
}

/// The bundled scenario `text` with `[system]` lines replaced.
fn variant(text: &str, replace: &[(&str, &str)]) -> Scenario {
    let mut t = text.to_string();
    for (old, new) in replace {
        assert!(t.contains(old), "{old}");
        t = t.replace(old, new);
    }
    scenario(&t)
}

/// Every state reachable in `w`.
fn reachable(w: &World<Node>) -> Vec<WorldState<Node>> {
    let init = w.init();
    let mut seen = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    let mut out = Vec::new();
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        w.enabled(&s, &mut actions);
        for a in actions.drain(..) {
            if let Some(t) = w.after(&s, &a) {
                if seen.insert(t.clone()) {
                    queue.push_back(t);
                }
            }
        }
        out.push(s);
    }
    out
}

/// Three Sentinels with a quorum of 2, the primary cut off from two of
/// them and nothing else failing: a breadth-first search of the runs
/// that start with those two cuts (and never heal) reaches two
/// holders, one granted by the old primary and one by the replica that
/// the majority's leader promoted. (The whole space of two partitions
/// anywhere is too large for a test.)
#[test]
fn three_sentinels_fail_over_a_primary_cut_from_a_quorum_and_two_clients_hold() {
    let sc = scenario(
        "summary = \"x\"\nalgorithm = \"primary-replica\"\n[system]\nclients = 2\nttl = 7\nsentinels = 3\nquorum = 2\nlag = false\nping = 1\ndown_after = 2\n[faults]\npartitions = 2\nmax_delay = 0\n[bounds]\nacquisitions = 1\n",
    );
    let w = world(&sc).expect("builds");
    let (s1, s2) = (2, 3);
    let cuts = [
        Action::Partition { a: PRIMARY, b: s1 },
        Action::Partition { a: PRIMARY, b: s2 },
    ];
    // Fingerprints, as the checker keeps: the states themselves took 3 GB.
    let init = w.init();
    let mut seen = HashSet::from([fingerprint(&init)]);
    let mut queue = VecDeque::from([init]);
    let mut actions = Vec::new();
    let mut found = None;
    while let Some(s) = queue.pop_front() {
        if Node::lock_view(&w, &s).holding.count_ones() >= 2 {
            found = Some(s);
            break;
        }
        w.enabled(&s, &mut actions);
        for a in actions.drain(..) {
            let allowed = match &a {
                Action::Partition { .. } => cuts.contains(&a),
                Action::Heal => false,
                _ => s.spent.partitions == 2,
            };
            if let Some(t) = allowed.then(|| w.after(&s, &a)).flatten() {
                if seen.insert(fingerprint(&t)) {
                    queue.push_back(t);
                }
            }
        }
    }
    let s = found.expect("two holders are reachable");
    // The replica was promoted by a Sentinel elected in a new epoch,
    // while the old primary still acts as one.
    let State::Redis(old) = &s.nodes[PRIMARY].state else {
        panic!()
    };
    let State::Redis(new) = &s.nodes[1].state else { panic!() };
    assert_eq!((old.standing, new.standing), (Standing::Primary, Standing::Primary));
    assert!(new.epoch > 0);
}

/// replica-failover-async's two-holder trace: 17 steps (its summary.json).
const ASYNC_TWO_HOLDERS: u32 = 17;

/// The shortest two-holder trace, searched no deeper than `depth` steps
/// when given. Breadth-first, so a bound at or above the trace's length
/// finds the same trace and saves the rest of the search
/// (replica-failover-async: 17 steps of 51, 2.9 s of CPU instead of 22.0,
/// `locksmith check replica-failover-async --max-depth 16`; the
/// bundled check pins the whole search).
fn mutual_exclusion_trace(sc: &Scenario, depth: Option<u32>) -> Counterexample<Node> {
    let opts = Options {
        max_depth: depth,
        stop_at: Some(Prop::MutualExclusion),
        ..Options::default()
    };
    let outcome = check(&world(sc).expect("builds"), &opts);
    let me = outcome.get(Prop::MutualExclusion);
    assert_eq!(me.verdict, Verdict::Violated);
    me.trace.clone().expect("a violation has a trace")
}

#[test]
fn without_faults_every_property_holds_and_no_failover_happens() {
    for text in [ASYNC, WAIT] {
        let sc = variant(text, &[("crashes = 1", "crashes = 0")]);
        let w = world(&sc).expect("builds");
        let outcome = check(&w, &Options::default());
        for p in Prop::ALL {
            assert_eq!(outcome.get(p).verdict, Verdict::Holds, "{}", p.name());
        }
        let states = reachable(&w);
        assert_eq!(states.len(), outcome.unique_states);
        for s in &states {
            assert_eq!(s.nodes[SENTINEL].state, State::Sentinel(Sentinel::initial()));
        }
    }
}

/// The shortest two holders of the async scenario: the primary grants,
/// crashes with the key unshipped, and the promoted replica grants again.
#[test]
fn async_two_holders_come_from_a_crash_before_replicate() {
    let sc = scenario(ASYNC);
    let w = world(&sc).expect("builds");
    let trace = mutual_exclusion_trace(&sc, Some(ASYNC_TWO_HOLDERS));
    let mut s = w.init();
    let mut crashed_unshipped = false;
    let mut promoted = false;
    for a in &trace.prefix {
        if *a == (Action::Crash { node: PRIMARY }) {
            let State::Redis(r) = &s.nodes[PRIMARY].state else {
                unreachable!()
            };
            assert!(
                r.replicas[0].unshipped && r.key.is_some(),
                "the granted key is not yet replicated"
            );
            crashed_unshipped = true;
        }
        assert_ne!(
            *a,
            Action::Step {
                node: PRIMARY,
                step: Step::Replicate
            },
            "the primary never ships the key"
        );
        s = w.after(&s, a).expect("the trace replays");
        if let State::Redis(r) = &s.nodes[REPLICA].state {
            promoted |= r.standing == Standing::Primary;
        }
    }
    assert!(crashed_unshipped && promoted);
    let last = trace.prefix.last().expect("a trace has steps");
    assert!(
        matches!(
            last,
            Action::Deliver {
                src: REPLICA,
                msg: Msg::Granted { .. },
                ..
            }
        ),
        "{last:?}"
    );
}

/// `WAIT 1 0` blocks for ever: after a failover the new primary has no
/// replica, the key expires under a blocked `WAIT`, a second client sets
/// it, and one acknowledgement releases both.
#[test]
fn wait_without_a_timeout_gives_two_holders_without_losing_a_write() {
    let sc = variant(WAIT, &[("wait_timeout = 3", "wait_timeout = 0")]);
    // 34 steps of 87: a bound saves little here.
    let trace = mutual_exclusion_trace(&sc, None);
    let fired = |node, timer| trace.prefix.contains(&Action::Fire { node, timer });
    assert!(fired(REPLICA, Timer::KeyExpiry), "the key expires under a blocked WAIT");
    let grants: Vec<_> = trace
        .prefix
        .iter()
        .filter(|a| {
            matches!(
                a,
                Action::Deliver {
                    src: REPLICA,
                    msg: Msg::Granted { .. },
                    ..
                }
            )
        })
        .collect();
    assert_eq!(grants.len(), 2, "both holders were answered by the promoted replica");
}

#[test]
fn budgets_and_switches_this_model_cannot_answer_are_rejected() {
    for (old, new) in [
        ("crashes = 1", "crashes = 1\nclock_jumps = 1\nmax_jump = 1"),
        ("crashes = 1", "crashes = 1\nmax_drift = 1"),
        ("replication = \"async\"", "replication = \"async\"\nwait_replicas = 1"),
        ("replication = \"async\"", "replication = \"wait\"\nwait_replicas = 2"),
        ("replication = \"async\"", "replicas = 4"),
        ("max_delay = 1", "max_delay = 1\nloss = true"),
        ("replication = \"async\"", "replication = \"async\"\nwait_timeout = 3"),
        ("replication = \"async\"", "replication = \"async\"\ndrift = 1"),
        ("replication = \"async\"", "replication = \"async\"\nmargin = 1"),
        ("replication = \"async\"", "replication = \"async\"\nclient = \"wise\""),
        ("replication = \"async\"", "replication = \"async\"\npipeline = true"),
        ("replication = \"async\"", "replication = \"wait\"\npipeline = \"yes\""),
    ] {
        let text = ASYNC.replace(old, new);
        assert!(parse(Path::new("x.toml"), &text).is_err(), "{new}");
    }
    let clients_only = ASYNC
        .replace("crashes = 1", "crashes = 1\nmax_drift = 1")
        .replace("\"servers\"", "\"clients\"");
    assert!(parse(Path::new("x.toml"), &clients_only).is_ok());
    // Repeated failovers: any number of crashes and pauses.
    let two = ASYNC.replace("crashes = 1", "crashes = 2\npauses = 1\nmax_pause = 4");
    assert!(parse(Path::new("x.toml"), &two).is_ok());
}

fn step(w: &World<Node>, s: &WorldState<Node>, a: Action<Node>) -> WorldState<Node> {
    assert!(w.is_enabled(s, &a), "{a:?}");
    w.after(s, &a).expect("changes the state")
}

/// Redis 7 replicates `SET PX` as an absolute `PXAT`: a shipment that
/// spent a tick in flight arms the replica's timer one tick shorter, so
/// both keys expire at the same real moment.
#[test]
fn the_replica_key_expires_when_the_primary_key_does() {
    let w = world(&scenario(ASYNC)).expect("builds");
    let c1 = FIRST_CLIENT;
    let mut s = w.init();
    s = step(
        &w,
        &s,
        Action::Step {
            node: c1,
            step: Step::Acquire,
        },
    );
    let set = Msg::SetNxPx { value: 1 };
    s = step(
        &w,
        &s,
        Action::Deliver {
            src: c1,
            dst: PRIMARY,
            msg: set,
        },
    );
    s = step(
        &w,
        &s,
        Action::Step {
            node: PRIMARY,
            step: Step::Replicate,
        },
    );
    s = step(&w, &s, Action::Tick);
    let px = Msg::Replicate {
        key: Some(Key { value: 1 }),
        px: 7,
        getack: false,
    };
    s = step(
        &w,
        &s,
        Action::Deliver {
            src: PRIMARY,
            dst: REPLICA,
            msg: px,
        },
    );
    let expiry = |n: Id| s.nodes[n].timer(Timer::KeyExpiry);
    assert_eq!(expiry(PRIMARY), Some(6));
    assert_eq!(expiry(REPLICA), expiry(PRIMARY));
}

/// A validity client reaches every branch of its lifetime: it checks
/// and writes, it gives a grant up at once when no validity is left,
/// and it gives the lock up when its check finds too little left.
#[test]
fn a_validity_client_checks_before_it_writes() {
    let sc = scenario(include_str!("../../../specs/replica-validity-pause.toml"));
    let w = world(&sc).expect("builds");
    let states = reachable(&w);
    let c1 = FIRST_CLIENT;
    let client = |s: &WorldState<Node>| match &s.nodes[c1].state {
        State::Client(c) => *c,
        _ => unreachable!(),
    };
    // Writing only after a successful check.
    for s in &states {
        let c = client(s);
        if c.script.phase == Phase::Writing {
            assert!(c.checked);
        }
    }
    // Given up: back to wanting, with its compare-and-delete in flight.
    let gave_up = |s: &WorldState<Node>| {
        client(s).script.phase == Phase::Want
            && s.net
                .iter()
                .any(|e| e.src == c1 && matches!(e.msg, Msg::CompareAndDelete { .. }))
    };
    assert!(states.iter().any(gave_up));
    assert!(states.iter().any(|s| client(s).checked));
}

/// Applies the first enabled action that `pick` accepts.
fn go(w: &World<Node>, s: &mut WorldState<Node>, pick: impl Fn(&Action<Node>) -> bool) {
    let mut actions = Vec::new();
    w.enabled(s, &mut actions);
    let a = actions
        .into_iter()
        .find(|a| pick(a))
        .unwrap_or_else(|| panic!("no such action enabled in {s:?}"));
    *s = w.after(s, &a).expect("changes the state");
}

fn deliver(w: &World<Node>, s: &mut WorldState<Node>, from: Id, to: Id) {
    go(
        w,
        s,
        |a| matches!(a, Action::Deliver { src, dst, .. } if *src == from && *dst == to),
    );
}

/// Takes `node`'s step `step`.
fn take(w: &World<Node>, s: &mut WorldState<Node>, node: Id, step: Step) {
    go(w, s, |a| *a == Action::Step { node, step });
}

/// Fires `node`'s timer `timer`.
fn fire(w: &World<Node>, s: &mut WorldState<Node>, node: Id, timer: Timer) {
    go(w, s, |a| *a == Action::Fire { node, timer });
}

fn holders(w: &World<Node>, s: &WorldState<Node>) -> u32 {
    Node::lock_view(w, s).holding.count_ones()
}

/// `WAIT 1` of two replicas: the first replica acknowledges and the
/// primary grants; it crashes before shipping to the second, which
/// Sentinel promotes. The lock it granted is gone: two holders, the
/// second granted once the other replica has resynchronised from the
/// new primary and acknowledged (its `WAIT 1` counts it).
#[test]
fn wait_one_of_two_loses_the_lock_when_the_other_replica_is_promoted() {
    let text = WAIT.replace(
        "replication = \"wait\"",
        "replicas = 2\nreplication = \"wait\"\nwait_replicas = 1",
    );
    let w = world(&scenario(&text)).expect("builds");
    let (p, r1, r2, sentinel, c1, c2) = (PRIMARY, 1, 2, 3, 4, 5);
    let mut s = w.init();
    let tick = |s: &mut WorldState<Node>| go(&w, s, |a| *a == Action::Tick);
    tick(&mut s);
    fire(&w, &mut s, p, Timer::Ping);
    tick(&mut s);
    deliver(&w, &mut s, p, sentinel);
    // t = 2: down-after runs from here. c1 is granted after one ack:
    // its SET is answered OK, its WAIT blocks, and the first replica
    // answers the GETACK that follows the write on its stream.
    take(&w, &mut s, c1, Step::Acquire);
    deliver(&w, &mut s, c1, p);
    deliver(&w, &mut s, p, c1);
    deliver(&w, &mut s, c1, p);
    take(&w, &mut s, p, Step::Replicate);
    deliver(&w, &mut s, p, r1);
    deliver(&w, &mut s, r1, p);
    go(&w, &mut s, |a| *a == Action::Crash { node: p });
    // Both replicas see their connection to the primary close.
    for r in [r1, r2] {
        go(&w, &mut s, |a| *a == Action::Disconnected { node: r, peer: p });
    }
    take(&w, &mut s, c2, Step::Acquire);
    tick(&mut s);
    deliver(&w, &mut s, p, c1);
    take(&w, &mut s, c1, Step::Write);
    tick(&mut s);
    deliver(&w, &mut s, c1, w.actors.len() - 1);
    tick(&mut s);
    // t = 5: c1's write is answered but the answer is still in flight.
    fire(&w, &mut s, sentinel, Timer::DownAfter);
    take(&w, &mut s, sentinel, Step::SelectReplica { replica: r2 });
    deliver(&w, &mut s, sentinel, r2);
    deliver(&w, &mut s, r2, sentinel);
    deliver(&w, &mut s, sentinel, c2);
    deliver(&w, &mut s, c2, r2);
    deliver(&w, &mut s, r2, c2);
    deliver(&w, &mut s, c2, r2);
    deliver(&w, &mut s, sentinel, r1);
    deliver(&w, &mut s, r1, r2);
    deliver(&w, &mut s, r2, r1);
    deliver(&w, &mut s, r1, r2);
    assert_eq!(holders(&w, &s), 1);
    deliver(&w, &mut s, r2, c2);
    assert_eq!(holders(&w, &s), 2, "c1 still writes, c2 holds");
    let State::Sentinel(st) = s.nodes[sentinel].state else {
        unreachable!()
    };
    assert_eq!((st.epoch, st.primary), (1, r2));
}

/// A primary paused through a failover comes back stale: it still
/// answers a `SET` queued while it was paused (two holders, as Redis's
/// old primary accepts writes until it is reconfigured), and its first
/// `Ping` carries the older configuration epoch, so the Sentinel tells
/// it to replicate the new primary, and it resynchronises.
#[test]
fn a_stale_primary_answers_until_its_older_epoch_demotes_it() {
    let text = ASYNC.replace("crashes = 1", "pauses = 1\nmax_pause = 3");
    let w = world(&scenario(&text)).expect("builds");
    let (p, r, sentinel, c1, c2) = (PRIMARY, REPLICA, SENTINEL, FIRST_CLIENT, FIRST_CLIENT + 1);
    let mut s = w.init();
    let tick = |s: &mut WorldState<Node>| go(&w, s, |a| *a == Action::Tick);
    go(&w, &mut s, |a| *a == Action::Pause { node: p, ticks: 3 });
    take(&w, &mut s, c2, Step::Acquire);
    for _ in 0..3 {
        tick(&mut s);
    }
    // t = 3: down-after fires; the replica takes over in epoch 1.
    fire(&w, &mut s, sentinel, Timer::DownAfter);
    take(&w, &mut s, sentinel, Step::SelectReplica { replica: r });
    deliver(&w, &mut s, sentinel, r);
    deliver(&w, &mut s, r, sentinel);
    take(&w, &mut s, c1, Step::Acquire);
    deliver(&w, &mut s, sentinel, c1);
    deliver(&w, &mut s, c1, r);
    deliver(&w, &mut s, r, c1);
    assert_eq!(holders(&w, &s), 1);
    // The old primary resumes and answers c2's queued SET before c2
    // hears of the switch.
    deliver(&w, &mut s, c2, p);
    deliver(&w, &mut s, p, c2);
    assert_eq!(holders(&w, &s), 2, "the stale primary granted c2");
    // Its ping carries epoch 0: the Sentinel demotes it.
    fire(&w, &mut s, p, Timer::Ping);
    deliver(&w, &mut s, p, sentinel);
    deliver(&w, &mut s, sentinel, p);
    deliver(&w, &mut s, p, r);
    deliver(&w, &mut s, r, p);
    let State::Redis(old) = &s.nodes[p].state else {
        unreachable!()
    };
    assert_eq!(old.standing, Standing::Streaming { primary: r });
}

/// A partition between the primary and its replica breaks the replication
/// connection: the replica notices, keeps its data, and once the link
/// heals reconnects and asks for a resynchronisation (Redis's `PSYNC`
/// after a broken link), so that it does not miss for ever what the
/// primary wrote meanwhile.
#[test]
fn a_replica_cut_from_its_primary_resynchronises_when_the_link_heals() {
    let sc = scenario(
        "summary = \"x\"\nalgorithm = \"primary-replica\"\n[system]\nclients = 1\nsentinels = 1\nlag = false\n[faults]\npartitions = 1\nmax_delay = 0\n[bounds]\nacquisitions = 1\n",
    );
    let w = world(&sc).expect("builds");
    let step = |s: &WorldState<Node>, a: Action<Node>| {
        let mut actions = Vec::new();
        w.enabled(s, &mut actions);
        assert!(actions.contains(&a), "{a:?} is enabled");
        w.after(s, &a).expect("a step")
    };
    let s = step(&w.init(), Action::Partition { a: PRIMARY, b: REPLICA });
    assert!(s.broken_between(REPLICA, PRIMARY), "the cut breaks the replication connection");
    let s = step(&s, Action::Disconnected { node: REPLICA, peer: PRIMARY });
    let State::Redis(r) = &s.nodes[REPLICA].state else { panic!() };
    assert_eq!(r.standing, Standing::Syncing { primary: PRIMARY });
    let mut actions = Vec::new();
    w.enabled(&s, &mut actions);
    assert!(!actions.iter().any(|a| matches!(a, Action::Reconnect { .. })), "no reconnection across the cut");
    let s = step(&s, Action::Heal);
    let s = step(&s, Action::Reconnect { node: REPLICA, peer: PRIMARY });
    assert!(!s.broken_between(REPLICA, PRIMARY));
    assert!(
        s.net.iter().any(|e| (e.src, e.dst, &e.msg) == (REPLICA, PRIMARY, &Msg::Sync)),
        "the replica asks its primary for a resynchronisation"
    );
}

/// A former primary restarted to wait for the Sentinel
/// (`auto_restart = false`) reports to it; a Sentinel that dies with the
/// report in flight finds it again once it runs (its periodic `INFO`
/// reaches every instance it knows), so the node is not left waiting for
/// ever. Two crashes gave a deadlock that one did not
/// (tests/primary_replica/wait-two-crashes-restarted-by-sentinel.toml).
#[test]
fn a_former_primary_reports_again_to_a_sentinel_that_missed_its_report() {
    let sc = scenario(
        "summary = \"x\"\nalgorithm = \"primary-replica\"\n[system]\nclients = 1\nsentinels = 1\nlag = false\nauto_restart = false\n[faults]\ncrashes = 2\nmax_delay = 0\n[bounds]\nacquisitions = 1\n",
    );
    let w = world(&sc).expect("builds");
    let s = step(&w, &w.init(), Action::Crash { node: PRIMARY });
    let s = step(&w, &s, Action::Restart { node: PRIMARY });
    let State::Redis(r) = &s.nodes[PRIMARY].state else { panic!() };
    assert_eq!(r.standing, Standing::Detached);
    let reports = |s: &WorldState<Node>| {
        s.net
            .iter()
            .any(|e| (e.src, e.dst, &e.msg) == (PRIMARY, SENTINEL, &Msg::Restarted))
    };
    assert!(reports(&s));
    let s = step(&w, &s, Action::Crash { node: SENTINEL });
    assert!(!reports(&s), "the report died with the Sentinel");
    assert!(s.broken_between(PRIMARY, SENTINEL));
    let s = step(&w, &s, Action::Disconnected { node: PRIMARY, peer: SENTINEL });
    let s = step(&w, &s, Action::Restart { node: SENTINEL });
    let s = step(&w, &s, Action::Reconnect { node: PRIMARY, peer: SENTINEL });
    assert!(reports(&s), "reported again");
}
