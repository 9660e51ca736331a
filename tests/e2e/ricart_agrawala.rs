//! Ricart–Agrawala: the bundled scenarios' verdicts, the
//! regression scenarios in `tests/ricart_agrawala/`, and the modelling
//! choices the verdicts rest on: the timestamp shift changes no outcome,
//! timestamps stay small when nodes loop forever, the paper's deferral rule
//! defers every request that reaches a node in its critical section, each
//! entry costs 2(N − 1) messages between the nodes, a lost REPLY alone
//! deadlocks, a duplicated REPLY counted before the waiter looks deadlocks
//! too (specs/README.md, finding 8), and renaming nodes is no symmetry.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{run, scenario};
use locksmith::algorithms::client::Phase;
use locksmith::algorithms::ricart_agrawala::{self, Msg, Node, Peer, Step};
use locksmith::algorithms::validate;
use locksmith::catalog::{load, parse};
use locksmith::check::Options;
use locksmith::properties::{view, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::{Action, World, WorldState};

fn text(system: &str, faults: &str, acquisitions: u8) -> Scenario {
    let text = format!(
        "summary = \"s\"\nalgorithm = \"ricart-agrawala\"\n[system]\n{system}\n[faults]\n{faults}\n[bounds]\nacquisitions = {acquisitions}\n"
    );
    parse(Path::new("ra.toml"), &text).expect("a valid scenario")
}

fn world(sc: &Scenario) -> World<Node> {
    ricart_agrawala::world(sc).expect("builds")
}

/// Checks `sc` and asserts every verdict its `[expect]` table states.
fn meets_expectations(sc: &Scenario) -> crate::common::Result {
    let r = run(sc, Options::default());
    for p in Prop::ALL {
        if let Some(expected) = sc.expected(p) {
            assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
        }
    }
    r
}

#[test]
fn the_bundled_scenarios_give_the_issues_verdicts() {
    let r = meets_expectations(&scenario("ricart-agrawala-no-faults"));
    assert_eq!(
        r.verdict(Prop::StarvationFreedom),
        Verdict::Holds,
        "starvation-free without faults"
    );
    for name in ["ricart-agrawala-crash", "ricart-agrawala-loss"] {
        let r = meets_expectations(&scenario(name));
        assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds, "{name}");
        assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated, "{name}");
    }
}

/// Two and three nodes, bounded and unbounded scripts, a reordering
/// network, a duplicating one, a crash with a restart.
#[test]
fn every_regression_scenario_meets_its_expectations() {
    let files = crate::common::toml_files("tests/ricart_agrawala");
    assert!(files.len() >= 5);
    for path in files {
        let sc = load(&path).expect("a valid scenario");
        assert!(sc.expected(Prop::MutualExclusion).is_some(), "{}", sc.name);
        meets_expectations(&sc);
    }
}

fn all_hold(nodes: u8, acquisitions: u8) {
    let r = run(&text(&format!("nodes = {nodes}"), "", acquisitions), Options::default());
    for p in Prop::ALL {
        assert_eq!(
            r.verdict(p),
            Verdict::Holds,
            "nodes {nodes}, acquisitions {acquisitions}: {}",
            p.name()
        );
    }
}

/// Harmless parameter changes keep the verdicts: the no-faults verdicts
/// with 2 and 3 nodes, looping forever or not.
#[test]
fn no_faults_holds_for_every_size_and_script() {
    for (nodes, acquisitions) in [(2, 0), (2, 1), (2, 3), (3, 0), (3, 1)] {
        all_hold(nodes, acquisitions);
    }
}

/// Four nodes looping forever: 4,146,213 states, 66 s (`locksmith bench`).
#[test]
#[ignore]
fn no_faults_holds_with_four_nodes() {
    all_hold(4, 0);
}

/// The faults' verdicts do not depend on the script either.
#[test]
fn the_fault_verdicts_do_not_depend_on_the_script() {
    for acquisitions in [0, 1, 2] {
        for faults in ["crashes = 1\nrecovery = \"none\"", "loss = true"] {
            let r = run(&text("nodes = 2", faults, acquisitions), Options::default());
            assert_eq!(
                r.verdict(Prop::MutualExclusion),
                Verdict::Holds,
                "{faults} {acquisitions}"
            );
            assert_eq!(
                r.verdict(Prop::DeadlockFreedom),
                Verdict::Violated,
                "{faults} {acquisitions}"
            );
        }
    }
}

/// Every state reachable in `world`, as the checker's BFS finds them.
fn reachable(world: &World<Node>) -> Vec<WorldState<Node>> {
    let init = world.init();
    let mut seen: HashSet<WorldState<Node>> = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    let mut all = Vec::new();
    while let Some(s) = queue.pop_front() {
        let mut actions = Vec::new();
        world.enabled(&s, &mut actions);
        for a in &actions {
            if let Some(t) = world.after(&s, a) {
                if seen.insert(t.clone()) {
                    queue.push_back(t);
                }
            }
        }
        all.push(s);
    }
    all
}

fn shift_msg(m: &Msg, by: u32) -> Msg {
    match m {
        Msg::Request { ts } => Msg::Request { ts: ts + by },
        Msg::TaggedReply { ts } => Msg::TaggedReply { ts: ts + by },
        other => other.clone(),
    }
}

/// Node `i`'s variables (not the resource's).
fn peer(s: &WorldState<Node>, i: usize) -> &Peer {
    s.nodes[i].state.peer().expect("a node, not the resource")
}

/// Every node's variables, in id order (the resource left out).
fn peers(s: &WorldState<Node>) -> impl Iterator<Item = &Peer> {
    s.nodes.iter().filter_map(|n| n.state.peer())
}

/// `s` with every timestamp raised by `by`: not canonical, but the same
/// situation to the algorithm.
fn shift_state(s: &WorldState<Node>, by: u32) -> WorldState<Node> {
    let mut t = s.clone();
    for p in t.nodes.iter_mut().filter_map(|n| n.state.peer_mut()) {
        p.highest += by;
        p.request = p.request.map(|ts| ts + by);
        for (_, ts) in p.tags.iter_mut() {
            *ts += by;
        }
    }
    for e in t.net.iter_mut() {
        e.msg = shift_msg(&e.msg, by);
    }
    t
}

fn shift_action(a: &Action<Node>, by: u32) -> Action<Node> {
    match a {
        Action::Deliver { src, dst, msg } => Action::Deliver {
            src: *src,
            dst: *dst,
            msg: shift_msg(msg, by),
        },
        Action::Lose { src, dst, msg } => Action::Lose {
            src: *src,
            dst: *dst,
            msg: shift_msg(msg, by),
        },
        Action::Duplicate { src, dst, msg } => Action::Duplicate {
            src: *src,
            dst: *dst,
            msg: shift_msg(msg, by),
        },
        other => other.clone(),
    }
}

/// The shift is exact: from a state with every timestamp raised, the same
/// actions (with their timestamps raised) are enabled and lead to the same
/// canonical states. Every comparison and every `+ 1` keeps its outcome.
#[test]
fn shifting_every_timestamp_changes_no_outcome() {
    for sc in [
        text("nodes = 3", "", 0),
        text("nodes = 2", "loss = true\nduplicate = true", 2),
        text("nodes = 3", "crashes = 1", 1),
    ] {
        let w = world(&sc);
        for s in reachable(&w) {
            let up = shift_state(&s, 5);
            let (mut here, mut there) = (Vec::new(), Vec::new());
            w.enabled(&s, &mut here);
            w.enabled(&up, &mut there);
            let shifted: Vec<Action<Node>> = here.iter().map(|a| shift_action(a, 5)).collect();
            assert_eq!(shifted, there);
            for a in &here {
                assert_eq!(w.after(&s, a), w.after(&up, &shift_action(a, 5)), "{a:?} from {s:?}");
            }
        }
    }
}

/// Looping forever, timestamps stay within a few of each other, and the
/// smallest is always 0.
#[test]
fn timestamps_stay_small_when_nodes_loop_forever() {
    let w = world(&text("nodes = 3", "", 0));
    let mut s = w.init();
    let mut entries = 0;
    for i in 0..600 {
        let mut actions = Vec::new();
        w.enabled(&s, &mut actions);
        let a = actions[(i * 7) % actions.len()].clone();
        let before = view(&w, &s).holding;
        s = w.after(&s, &a).expect("changes the state");
        entries += (view(&w, &s).holding & !before).count_ones();
        let stamps: Vec<u32> = peers(&s)
            .flat_map(|p| std::iter::once(p.highest).chain(p.request))
            .collect();
        assert_eq!(stamps.iter().min(), Some(&0));
        assert!(stamps.iter().all(|&t| t <= 3), "{stamps:?}");
    }
    assert!(entries > 50, "the walk kept entering: {entries}");
}

/// The paper's rule defers when requesting and (k, j) > (ours, me); the
/// issue's "in the critical section, or requesting with a smaller pair"
/// says the same wherever it matters: every REQUEST that reaches (or is on
/// its way to) a node in its critical section has a larger pair.
#[test]
fn every_request_to_a_node_in_its_critical_section_is_larger() {
    for sc in [
        text("nodes = 3", "", 0),
        text("nodes = 3", "loss = true", 0),
        text("nodes = 3", "crashes = 1\nrecovery = \"none\"", 0),
    ] {
        let w = world(&sc);
        for s in reachable(&w) {
            for e in &s.net {
                let Some(n) = s.nodes[e.dst].state.peer() else {
                    continue;
                };
                if let (Phase::Holding | Phase::Writing, Msg::Request { ts }) = (n.script.phase, &e.msg) {
                    let ours = n.request.expect("a node in its critical section has a request");
                    assert!((*ts, e.src) > (ours, e.dst), "{s:?}");
                }
            }
        }
    }
}

/// 2(N − 1) messages per entry, on any schedule: run to the end of a
/// bounded script, counting every message sent between the nodes (the
/// critical section's write and its answer are the resource's) and every
/// entry.
#[test]
fn each_entry_costs_two_n_minus_one_messages() {
    for nodes in [2usize, 3, 4] {
        let w = world(&text(&format!("nodes = {nodes}"), "", 2));
        // The resource is the last node.
        let between_nodes = |s: &WorldState<Node>| s.net.iter().filter(|e| e.src < nodes && e.dst < nodes).count();
        for pick in 0..5 {
            let mut s = w.init();
            let (mut sent, mut entries) = (0, 0);
            loop {
                let mut actions = Vec::new();
                w.enabled(&s, &mut actions);
                let Some(a) = actions.get((pick * 3 + sent) % actions.len().max(1)).cloned() else {
                    break;
                };
                let before = view(&w, &s).holding;
                let t = w.after(&s, &a).expect("changes the state");
                let delivered =
                    usize::from(matches!(a, Action::Deliver { src, dst, .. } if src < nodes && dst < nodes));
                sent += between_nodes(&t) + delivered - between_nodes(&s);
                entries += (view(&w, &t).holding & !before).count_ones() as usize;
                s = t;
            }
            assert!(peers(&s).all(|p| p.script.phase == Phase::Done));
            assert_eq!(entries, nodes * 2, "{nodes} nodes, schedule {pick}");
            assert_eq!(sent, entries * 2 * (nodes - 1), "{nodes} nodes, schedule {pick}");
        }
    }
}

/// The state after the enabled action `pick` chooses.
fn take(w: &World<Node>, s: &WorldState<Node>, pick: impl Fn(&Action<Node>) -> bool) -> WorldState<Node> {
    let mut actions = Vec::new();
    w.enabled(s, &mut actions);
    let a = actions.into_iter().find(pick).expect("the action is enabled");
    w.after(s, &a).expect("changes the state")
}

/// The loss scenario's trace loses a REQUEST; a lost REPLY alone does the
/// same. n1 asks, n2 replies, the REPLY is lost; n2 then asks with a larger
/// timestamp, and n1 defers it: both wait, and nothing fair is left to do.
#[test]
fn a_lost_reply_alone_deadlocks() {
    let w = world(&text("nodes = 2", "loss = true", 0));
    let step = |node, step| move |a: &Action<Node>| *a == Action::Step { node, step };
    let s = take(&w, &w.init(), step(0, Step::Request));
    let s = take(&w, &s, |a| matches!(a, Action::Deliver { src: 0, dst: 1, .. }));
    let s = take(&w, &s, |a| {
        matches!(
            a,
            Action::Lose {
                src: 1,
                dst: 0,
                msg: Msg::Reply
            }
        )
    });
    let s = take(&w, &s, step(1, Step::Request));
    let s = take(&w, &s, |a| matches!(a, Action::Deliver { src: 1, dst: 0, .. }));
    assert_eq!(peer(&s, 0).deferred, 1 << 1, "n1 defers n2's larger request");
    let mut actions = Vec::new();
    w.enabled(&s, &mut actions);
    assert!(actions.iter().all(|a| w.is_fault(a)), "stuck: {actions:?}");
    assert_eq!(view(&w, &s).wanting, 0b11, "both want the lock");
}

/// Finding 8 of specs/README.md: the paper's WAITFOR is its own step,
/// apart from the REPLY handler, and waits for exactly 0. n1 asks, n2
/// replies, the network duplicates the REPLY, and both copies are counted
/// before n1's waiter looks: the count goes from 1 to 0 to −1, the waiter
/// never sees 0, and once n2 asks too (n1 defers it) nothing fair is left.
#[test]
fn a_reply_counted_twice_before_the_waiter_looks_deadlocks() {
    let w = world(&text("nodes = 2", "duplicate = true", 1));
    let step = |node, step| move |a: &Action<Node>| *a == Action::Step { node, step };
    let reply = |a: &Action<Node>| {
        matches!(
            a,
            Action::Deliver {
                src: 1,
                dst: 0,
                msg: Msg::Reply
            }
        )
    };
    let s = take(&w, &w.init(), step(0, Step::Request));
    let s = take(&w, &s, |a| matches!(a, Action::Deliver { src: 0, dst: 1, .. }));
    let s = take(&w, &s, |a| matches!(a, Action::Duplicate { src: 1, dst: 0, .. }));
    let s = take(&w, &s, reply);
    assert_eq!(peer(&s, 0).outstanding, 0);
    let mut actions = Vec::new();
    w.enabled(&s, &mut actions);
    assert!(
        actions.contains(&Action::Step {
            node: 0,
            step: Step::Enter
        }),
        "{actions:?}"
    );
    let s = take(&w, &s, reply);
    assert_eq!(peer(&s, 0).outstanding, -1, "the copy is counted too");
    let s = take(&w, &s, step(1, Step::Request));
    let s = take(&w, &s, |a| matches!(a, Action::Deliver { src: 1, dst: 0, .. }));
    assert_eq!(peer(&s, 0).deferred, 1 << 1, "n1 defers n2's later request");
    let mut actions = Vec::new();
    w.enabled(&s, &mut actions);
    assert!(actions.iter().all(|a| w.is_fault(a)), "stuck: {actions:?}");
    assert_eq!(view(&w, &s).wanting, 0b11, "both want the lock");
}

/// Ties go to the smaller node number, so a renamed reachable state need
/// not be reachable: no symmetry is declared, and asking for it is refused.
#[test]
fn renaming_nodes_is_no_symmetry() {
    let sc = text("nodes = 2", "", 0);
    let w = world(&sc);
    assert!(w.symmetry.is_empty());
    let states: HashSet<WorldState<Node>> = reachable(&w).into_iter().collect();
    let swapped = states
        .iter()
        .filter(|s| !states.contains(&w.rename_state(s, &[1, 0, 2])))
        .count();
    assert!(swapped > 0, "some state, renamed, is unreachable");
    let mut sc = sc;
    sc.symmetry = true;
    assert!(validate(&sc).is_err_and(|e| e.0.contains("symmetry")));
}

/// Every `.json` trace under `dir`.
fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(traces(&path));
        } else if path.to_string_lossy().ends_with("trace.json") {
            found.push(path);
        }
    }
    found
}

/// The liveness violations are written as traces (a prefix, and a loop or
/// a stuck end), and `locksmith replay` reproduces each one.
#[test]
fn the_written_liveness_traces_replay() {
    let dir = std::env::temp_dir().join(format!("locksmith-ra-replay-{}", std::process::id()));
    let locksmith = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_locksmith"))
            .args(args)
            .output()
            .expect("locksmith runs")
    };
    let reports = dir.to_string_lossy().into_owned();
    for name in ["ricart-agrawala-crash", "ricart-agrawala-loss"] {
        let out = locksmith(&["check", name, "--reports", &reports]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let files = traces(&dir);
    assert_eq!(files.len(), 4, "deadlock and starvation traces of both: {files:?}");
    for trace in files {
        let out = locksmith(&["replay", &trace.to_string_lossy()]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {said}", trace.display());
        assert!(said.contains("violated again"), "{said}");
    }
    std::fs::remove_dir_all(&dir).expect("removable");
}

#[test]
fn bad_parameters_are_one_sentence_errors() {
    for (system, key) in [("nodes = 1", "nodes"), ("nodes = 6", "nodes"), ("peers = 3", "peers")] {
        let text = format!("summary = \"s\"\nalgorithm = \"ricart-agrawala\"\n[system]\n{system}\n");
        let err = parse(Path::new("ra.toml"), &text).expect_err("refused");
        assert!(err.0.contains(key) && !err.0.contains('\n'), "{}", err.0);
    }
}

/// the paper's counter needs exactly-once delivery (a
/// duplicated REPLY lets two nodes in); a reply tagged with the request it
/// answers, counted once per peer, needs only at-least-once.
#[test]
fn tagged_replies_survive_duplication_and_the_counter_does_not() {
    let counter = meets_expectations(&scenario("ricart-agrawala-duplicate"));
    assert_eq!(counter.verdict(Prop::MutualExclusion), Verdict::Violated);
    // Finding 7 of specs/README.md: the node that entered first on a
    // duplicated REPLY can write after the other (a stale write).
    assert_eq!(counter.verdict(Prop::NoStaleWrite), Verdict::Violated);
    let tagged = meets_expectations(&scenario("ricart-agrawala-tagged-replies"));
    for p in Prop::ALL {
        assert_eq!(tagged.verdict(p), Verdict::Holds, "{}", p.name());
    }
    let sc = text("nodes = 2\nreplies = \"tagged\"", "duplicate = true\nreorder = true", 2);
    assert_eq!(
        run(&sc, Options::default()).verdict(Prop::MutualExclusion),
        Verdict::Holds
    );
}
