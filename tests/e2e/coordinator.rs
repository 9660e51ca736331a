//! The central coordinator: verdicts that survive harmless
//! parameter changes, three messages per entry measured on fault-free
//! runs, adversarial scenarios of its own in `tests/coordinator/`, and
//! replayable traces, the deadlock lasso included.

use std::path::Path;
use std::process::Command;

use crate::common::{run, scenario, TempDir};
use locksmith::algorithms::coordinator::{self, Msg};
use locksmith::catalog::load;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::Action;

fn local(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/coordinator")
        .join(format!("{name}.toml"));
    load(&path).expect("a valid scenario")
}

/// Every verdict the scenario documents, as the checker finds it.
fn assert_expected(sc: &Scenario) {
    let r = run(sc, Options::default());
    for (prop, want) in &sc.expect {
        assert_eq!(r.verdict(*prop), *want, "{}: {}", sc.name, prop.name());
    }
}

fn with(name: &str, clients: u8, acquisitions: u8) -> Scenario {
    let mut sc = scenario(name);
    sc.system.insert("clients".into(), toml::Value::Integer(clients.into()));
    sc.acquisitions = acquisitions;
    sc
}

#[test]
fn the_adversarial_scenarios_keep_their_verdicts() {
    for name in [
        "standby-no-state-no-crash",
        "restart-without-standby",
        "replicated-bounded-delay",
        "crash-stop-detected",
        "standby-one-way-cut",
    ] {
        assert_expected(&local(name));
    }
}

/// One more client, or a bounded number of acquisitions, changes no
/// verdict: the crash still deadlocks and the restarted coordinator still
/// grants a held lock; the no-state
/// standby still double-grants and the replicated one does not.
#[test]
fn verdicts_survive_harmless_changes() {
    for (clients, acquisitions) in [(1, 0), (3, 0), (2, 1), (2, 2)] {
        let sc = with("coordinator-no-faults", clients, acquisitions);
        for p in Prop::ALL {
            assert_eq!(
                run(&sc, Options::default()).verdict(p),
                Verdict::Holds,
                "{clients} clients, {acquisitions}"
            );
        }
        let r = run(&with("coordinator-crash", clients, acquisitions), Options::default());
        // Restarted empty, the coordinator grants a held lock; one client
        // alone cannot be two holders.
        let two_holders = if clients > 1 { Verdict::Violated } else { Verdict::Holds };
        assert_eq!(r.verdict(Prop::MutualExclusion), two_holders);
        assert_eq!(
            r.verdict(Prop::DeadlockFreedom),
            Verdict::Violated,
            "{clients} clients, {acquisitions}"
        );
    }
    for acquisitions in [1, 2] {
        let r = run(
            &with("coordinator-standby-no-state", 2, acquisitions),
            Options::default(),
        );
        assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Violated);
        let r = run(
            &with("coordinator-standby-replicated", 2, acquisitions),
            Options::default(),
        );
        assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
        assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Holds);
    }
}

/// REQUEST, GRANT, RELEASE: counted on fault-free random runs, each to its
/// end (every client done, nothing in flight).
#[test]
fn an_entry_costs_three_messages() {
    let sc = with("coordinator-no-faults", 3, 2);
    let world = coordinator::world(&sc).expect("builds");
    for seed in 1..=20u64 {
        let mut rng = seed;
        let mut s = world.init();
        let (mut messages, mut grants) = (0, 0);
        loop {
            let mut actions = Vec::new();
            world.enabled(&s, &mut actions);
            if actions.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a = actions[(rng >> 33) as usize % actions.len()].clone();
            if let Action::Deliver { msg, .. } = &a {
                match msg {
                    Msg::Request { .. } | Msg::Release { .. } => messages += 1,
                    Msg::Grant { .. } => {
                        messages += 1;
                        grants += 1;
                    }
                    _ => {}
                }
            }
            s = world.after(&s, &a).expect("every enabled action changes the state");
        }
        assert!(s.net.is_empty(), "seed {seed}: the run ends with nothing in flight");
        assert_eq!(grants, 3 * 2, "seed {seed}: every acquisition is granted");
        assert_eq!(messages, 3 * grants, "seed {seed}");
    }
}

/// `check` writes the headline trace; `replay` reproduces it.
fn replays(name: &str) {
    let tmp = TempDir::new(&format!("coordinator-replay-{name}"));
    let status = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["check", name, "--reports"])
        .arg(tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run locksmith");
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
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
fn the_deadlock_lasso_and_the_double_grant_replay() {
    replays("coordinator-crash");
    replays("coordinator-standby-no-state");
}

/// a crash-stop coordinator is detected by the standby's
/// heartbeat timeout (before, the standby acted only on a restart notice,
/// and deadlock freedom was violated in three steps); a pause makes the
/// suspicion false, and the replicated pair splits: both serve.
#[test]
fn the_heartbeat_detector_takes_over_a_crash_stop_coordinator() {
    let sc = local("crash-stop-detected");
    assert_expected(&sc);
    let r = run(&sc, Options::default());
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Holds);
    // With the textbook's restart notice only, the same crash deadlocks.
    let mut old = sc.clone();
    old.system
        .insert("detector".into(), toml::Value::String("restart".into()));
    let r = run(&old, Options::default());
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated);
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
}

/// by default the coordinator does not learn that a client
/// restarted, so a crashed holder blocks everyone (before, the restarted
/// client's new REQUEST released its old hold); with a restart notice the
/// hold is freed and the old write can land late.
#[test]
fn a_restarted_client_does_not_release_its_hold_without_notice() {
    let r = run(&scenario("coordinator-client-crash"), Options::default());
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Violated);
    assert_eq!(r.verdict(Prop::NoStaleWrite), Verdict::Holds);
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
    let r = run(&scenario("coordinator-client-restart-notice"), Options::default());
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Holds);
    assert_eq!(r.verdict(Prop::NoStaleWrite), Verdict::Violated);
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
}

/// The heartbeat keys need a standby with the heartbeat detector.
#[test]
fn heartbeat_keys_without_a_detector_are_refused() {
    for system in [
        "heartbeat = 2",
        "standby = \"replicated\"\ndetector = \"restart\"\nsuspect_after = 3",
    ] {
        let text = format!("summary = \"s\"\nalgorithm = \"coordinator\"\n[system]\n{system}\n[faults]\n[bounds]\n");
        let err = locksmith::catalog::parse(Path::new("bad.toml"), &text)
            .expect_err("refused")
            .to_string();
        assert!(err.contains("bad.toml") && err.contains("allowed"), "{err}");
    }
}
