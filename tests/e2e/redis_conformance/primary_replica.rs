//! A primary with a replica (`primary-replica`): its cases and how one runs on both sides.

use std::path::Path;
use std::thread::sleep;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use locksmith::algorithms::primary_replica as pr;
use locksmith::catalog::parse;
use locksmith::real::{Persistence, RedisServer};
use locksmith::world::{Action, Id, World};

use super::model::{model_key, Answer, Model};
use super::real_server::{real_key, value_name, Clock, KeyState};
use super::{COMPARE_AND_DELETE, LOCK};

#[derive(Clone, Copy, Debug)]
enum PrOp {
    /// `SET lock v NX PX ttl`, then (with `wait`) `WAIT 1 timeout`.
    Acquire(u32),
    /// With `wait` while the replica is down: `SET lock v NX PX ttl; WAIT
    /// 1 timeout`, and the replica restarts this many ticks later, while
    /// the `WAIT` may still block (with `WAIT 1 0` it blocks until then,
    /// even past the key's expiry). Otherwise as `Acquire`.
    AcquireThenRestartReplica(u32, u32),
    CompareAndDelete(u32),
    Wait(u32),
    KillReplica,
    RestartReplica,
}

#[derive(Clone, Debug)]
pub(super) struct PrCase {
    ttl: u8,
    wait: bool,
    wait_timeout: u8,
    ops: Vec<PrOp>,
}

pub(super) fn pr_case() -> impl Strategy<Value = PrCase> {
    let value = 1u32..=3;
    let op = prop_oneof![
        3 => value.clone().prop_map(PrOp::Acquire),
        2 => (value.clone(), 0u32..=4).prop_map(|(v, k)| PrOp::AcquireThenRestartReplica(v, k)),
        2 => value.prop_map(PrOp::CompareAndDelete),
        2 => (1u32..=2).prop_map(PrOp::Wait),
        1 => Just(PrOp::KillReplica),
        1 => Just(PrOp::RestartReplica),
    ];
    (2u8..=4, any::<bool>(), 0u8..=2, prop::collection::vec(op, 3..=10)).prop_map(|(ttl, wait, wait_timeout, ops)| {
        PrCase {
            ttl,
            wait,
            wait_timeout,
            ops,
        }
    })
}

const PR_PRIMARY: Id = 0;
const PR_REPLICA: Id = 1;
const PR_CLIENT: Id = 3;

fn pr_world(case: &PrCase) -> World<pr::Node> {
    let replication = if case.wait {
        format!("replication = \"wait\"\nwait_timeout = {}\n", case.wait_timeout)
    } else {
        "replication = \"async\"\n".to_string()
    };
    let text = format!(
        "summary = \"conformance\"\nalgorithm = \"primary-replica\"\n\
         [system]\nclients = 1\nsentinels = 1\nlag = false\nttl = {}\n{replication}ping = 1\ndown_after = 3\ntimeout = 6\n\
         [faults]\ncrashes = 1\nmax_delay = 1\ntargets = \"servers\"\n[bounds]\nacquisitions = 1\n",
        case.ttl
    );
    let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
    pr::world(&sc).expect("builds")
}

/// The model's `SET lock value NX PX ttl` and, on its `OK` with `wait`,
/// the `WAIT` its client sends: the answers that reached the client.
fn pr_acquire(m: &mut Model<pr::Node>, value: u32) -> Vec<pr::Msg> {
    m.request(PR_PRIMARY, pr::Msg::SetNxPx { value });
    let answers = m.answers();
    if let [pr::Msg::SetOk { .. }] = answers.as_slice() {
        m.request(PR_PRIMARY, pr::Msg::Wait { value });
        return m.answers();
    }
    answers
}

fn pr_model_key(m: &Model<pr::Node>, id: Id) -> Option<Option<KeyState>> {
    let node = &m.state.nodes[id];
    if !node.is_up() {
        return None;
    }
    let pr::State::Redis(r) = &node.state else {
        unreachable!("a Redis node")
    };
    Some(model_key(r.key.map(|k| k.value), node.timer(pr::Timer::KeyExpiry)))
}

pub(super) fn run_pr(bin: &Path, case: &PrCase, log: &mut Vec<String>) -> Result<bool, TestCaseError> {
    let primary = RedisServer::primary(bin, Persistence::None).expect("primary starts");
    let mut replica = RedisServer::replica_of(bin, Persistence::None, &primary).expect("replica starts");
    replica.wait_synced().expect("the replica syncs");
    let mut con = primary.connect().expect("connects");
    let mut replica_up = true;
    let mut m = Model::new(pr_world(case), PR_CLIENT);
    let mut clock = Clock::new();
    let px = clock.px(case.ttl).to_string();
    let wait_ms = (f64::from(case.wait_timeout) * clock.t_ms()) as u64;
    for (i, op) in case.ops.iter().enumerate() {
        // WAIT 1 0 with the replica down would block for ever: the replica
        // restarts under it.
        let op = &match *op {
            PrOp::Acquire(v) if case.wait && case.wait_timeout == 0 && !replica_up => {
                PrOp::AcquireThenRestartReplica(v, 0)
            }
            op => op,
        };
        clock.wait_for_grid();
        log.push(format!("tick {}: {op:?}", clock.now));
        let (real, model) = match *op {
            PrOp::Wait(n) => {
                for _ in 0..n {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                (Answer::Done, Answer::Done)
            }
            PrOp::KillReplica | PrOp::RestartReplica => {
                let kill = matches!(op, PrOp::KillReplica);
                if kill && replica_up {
                    replica.kill();
                    m.act(&Action::Crash { node: PR_REPLICA });
                    m.settle();
                    replica_up = false;
                } else if !kill && !replica_up {
                    replica.restart().expect("the replica restarts");
                    replica.wait_synced().expect("the replica syncs");
                    m.act(&Action::Restart { node: PR_REPLICA });
                    m.settle();
                    replica_up = true;
                    let target = clock.next_tick_after(Instant::now());
                    while clock.now < target {
                        clock.now += 1;
                        m.tick();
                    }
                    clock.wait_for_grid();
                }
                (Answer::Done, Answer::Done)
            }
            PrOp::AcquireThenRestartReplica(value, later) if case.wait && !replica_up => {
                let j = clock.now;
                let restart_at = clock.start + clock.tick * (j + later);
                let (real, done, wait_sent) = std::thread::scope(|sc| {
                    let client = sc.spawn(|| {
                        let ok: Option<String> = redis::cmd("SET")
                            .arg(LOCK)
                            .arg(value_name(value))
                            .arg("NX")
                            .arg("PX")
                            .arg(&px)
                            .query(&mut con)
                            .expect("SET NX PX");
                        if ok.is_none() {
                            return (Answer::Refused, Instant::now(), None);
                        }
                        let sent = Instant::now();
                        let acked: i64 = redis::cmd("WAIT").arg(1).arg(wait_ms).query(&mut con).expect("WAIT");
                        let answer = if acked >= 1 {
                            Answer::Granted { token: 0 }
                        } else {
                            Answer::TimedOut
                        };
                        (answer, Instant::now(), Some(sent))
                    });
                    let now = Instant::now();
                    if restart_at > now {
                        sleep(restart_at - now);
                    }
                    replica.restart().expect("the replica restarts");
                    replica.wait_synced().expect("the replica syncs");
                    client.join().expect("the client thread")
                });
                let restarted = Instant::now();
                replica_up = true;
                let mut answers = pr_acquire(&mut m, value);
                let mut answered_at = j;
                for _ in 0..later {
                    clock.now += 1;
                    m.tick();
                    if answers.is_empty() {
                        answers = m.answers();
                        answered_at = clock.now;
                    }
                }
                m.act(&Action::Restart { node: PR_REPLICA });
                m.settle();
                if answers.is_empty() {
                    answers = m.answers();
                    answered_at = clock.now;
                }
                // The WAIT left on time: its timeout runs from when it was
                // sent, the restart from the grid, so a WAIT sent late (a
                // loaded machine) can see a restart that the model, where
                // the timeout fires first at the same grid point, does not.
                let sent_late = wait_sent.map_or(0.0, |t| clock.ms_since_start(t) - f64::from(j) * clock.t_ms());
                if sent_late > clock.t_ms() / 8.0 {
                    log.push(format!(
                        "  WAIT sent {sent_late:.0} ms after tick {j} ({real:?}): the case stops here"
                    ));
                    return Ok(false);
                }
                // The real answer came in the tick the model's did.
                let late = clock.ms_since_start(done) - f64::from(answered_at) * clock.t_ms();
                if !(0.0..=clock.t_ms() * 3.0 / 8.0).contains(&late) {
                    log.push(format!(
                        "  answered {late:.0} ms after tick {answered_at} ({real:?}, model {answers:?}): the case stops here"
                    ));
                    return Ok(false);
                }
                let target = clock.next_tick_after(restarted);
                while clock.now < target {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                let model = match answers.as_slice() {
                    [pr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [pr::Msg::Refused { .. }] => Answer::Refused,
                    [pr::Msg::WaitTimedOut { .. }] => Answer::TimedOut,
                    [] => Answer::Done,
                    more => panic!("unexpected answers {more:?}"),
                };
                (real, model)
            }
            PrOp::Acquire(value) | PrOp::AcquireThenRestartReplica(value, _) => {
                let ok: Option<String> = redis::cmd("SET")
                    .arg(LOCK)
                    .arg(value_name(value))
                    .arg("NX")
                    .arg("PX")
                    .arg(&px)
                    .query(&mut con)
                    .expect("SET NX PX");
                let real = match (ok.is_some(), case.wait) {
                    (false, _) => Answer::Refused,
                    (true, false) => Answer::Granted { token: 0 },
                    (true, true) => {
                        let acked: i64 = redis::cmd("WAIT").arg(1).arg(wait_ms).query(&mut con).expect("WAIT");
                        if acked >= 1 {
                            Answer::Granted { token: 0 }
                        } else {
                            Answer::TimedOut
                        }
                    }
                };
                let done = Instant::now();
                let mut answers = pr_acquire(&mut m, value);
                // A blocked WAIT: the model's primary answers when its
                // WAIT timeout fires, as many ticks later.
                let ticks = if case.wait { case.wait_timeout } else { 0 };
                for _ in 0..ticks {
                    if !answers.is_empty() {
                        break;
                    }
                    clock.now += 1;
                    m.tick();
                    answers = m.answers();
                }
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick ({real:?}, model {answers:?}): the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                let model = match answers.as_slice() {
                    [pr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [pr::Msg::Refused { .. }] => Answer::Refused,
                    [pr::Msg::WaitTimedOut { .. }] => Answer::TimedOut,
                    [] => Answer::Done,
                    more => panic!("unexpected answers {more:?}"),
                };
                (real, model)
            }
            PrOp::CompareAndDelete(value) => {
                let _: i64 = redis::cmd("EVAL")
                    .arg(COMPARE_AND_DELETE)
                    .arg(1)
                    .arg(LOCK)
                    .arg(value_name(value))
                    .query(&mut con)
                    .expect("EVAL compare-and-delete");
                let done = Instant::now();
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick: the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                m.request(PR_PRIMARY, pr::Msg::CompareAndDelete { value });
                let answers = m.answers();
                prop_assert!(matches!(answers.as_slice(), [pr::Msg::Released { .. }]), "{answers:?}");
                (Answer::Done, Answer::Done)
            }
        };
        log.push(format!("  real {real:?}, model {model:?}"));
        prop_assert_eq!(&real, &model, "answer to command {} ({:?})\n{}", i, op, log.join("\n"));
        // The replica's copy: let the real stream catch up first (the
        // model ships at once), with a WAIT on the client's connection.
        if replica_up {
            let quarter = (clock.t_ms() / 4.0) as u64;
            let acked: i64 = redis::cmd("WAIT").arg(1).arg(quarter).query(&mut con).expect("WAIT");
            if acked < 1 {
                log.push(format!(
                    "  the replica did not catch up within {quarter} ms: the case stops here"
                ));
                return Ok(false);
            }
        }
        for (id, server) in [(PR_PRIMARY, &primary), (PR_REPLICA, &replica)] {
            let Some(model_key) = pr_model_key(&m, id) else {
                continue;
            };
            let mut c = server.connect().expect("connects");
            let Ok(real_key) = real_key(&mut c, &clock) else {
                log.push("  GET/PTTL answered too late after its tick: the case stops here".into());
                return Ok(false);
            };
            let who = if id == PR_PRIMARY { "primary" } else { "replica" };
            log.push(format!("  {who} key real {real_key:?}, model {model_key:?}"));
            prop_assert_eq!(
                real_key,
                model_key,
                "{}'s key after command {} ({:?})\n{}",
                who,
                i,
                op,
                log.join("\n")
            );
        }
    }
    Ok(true)
}
