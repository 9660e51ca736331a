//! One Redis server (`single-redis`): its cases and how one runs on both sides.

use std::path::Path;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use locksmith::algorithms::single_redis as sr;
use locksmith::catalog::parse;
use locksmith::real::{Persistence, RedisServer};
use locksmith::world::{Action, Id, World};

use super::model::{model_key, Answer, Model};
use super::real_server::{real_key, value_name, Clock, KeyState};
use super::{COMPARE_AND_DELETE, FENCE, LOCK, RENEW};

#[derive(Clone, Copy, Debug)]
enum Stop {
    Kill,
    NoSave,
    Save,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    SetNxPx(u32),
    SetNx(u32),
    Expire,
    Del,
    CompareAndDelete(u32),
    Renew(u32),
    /// Ticks pass with no command.
    Wait(u32),
    /// The server stops, stays down this many ticks, and restarts.
    Crash(Stop, u32),
}

#[derive(Clone, Debug)]
pub(super) struct SingleCase {
    ttl: u8,
    fencing: bool,
    aof: bool,
    ops: Vec<Op>,
}

pub(super) fn single_case() -> impl Strategy<Value = SingleCase> {
    let value = 1u32..=3;
    let stop = prop_oneof![Just(Stop::Kill), Just(Stop::NoSave), Just(Stop::Save)];
    let op = prop_oneof![
        3 => value.clone().prop_map(Op::SetNxPx),
        1 => value.clone().prop_map(Op::SetNx),
        1 => Just(Op::Expire),
        1 => Just(Op::Del),
        2 => value.clone().prop_map(Op::CompareAndDelete),
        2 => value.prop_map(Op::Renew),
        3 => (1u32..=2).prop_map(Op::Wait),
        1 => (stop, 0u32..=2).prop_map(|(s, d)| Op::Crash(s, d)),
    ];
    (1u8..=3, any::<bool>(), any::<bool>(), prop::collection::vec(op, 3..=12))
        .prop_map(|(ttl, fencing, aof, ops)| SingleCase { ttl, fencing, aof, ops })
}

fn single_world(ttl: u8, fencing: bool, fsync: bool) -> World<sr::Node> {
    let restart = if fsync { "fsync" } else { "empty" };
    let text = format!(
        "summary = \"conformance\"\nalgorithm = \"single-redis\"\n\
         [system]\nclients = 1\nttl = {ttl}\ncommand = \"set-nx-px\"\nrelease = \"compare-and-delete\"\n\
         restart = \"{restart}\"\nfencing = {fencing}\n\
         [faults]\ncrashes = 1\nmax_delay = 1\ntargets = \"servers\"\n[bounds]\nacquisitions = 1\n"
    );
    let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
    sr::world(&sc).expect("builds")
}

const SR_SERVER: Id = 0;
const SR_CLIENT: Id = 1;

fn single_model_key(m: &Model<sr::Node>) -> (Option<KeyState>, u32) {
    let node = &m.state.nodes[SR_SERVER];
    let sr::State::Server(s) = &node.state else {
        unreachable!("node 0 is the server")
    };
    (
        model_key(s.key.map(|k| k.value), node.timer(sr::Timer::KeyExpiry)),
        s.fence,
    )
}

pub(super) fn run_single(bin: &Path, case: &SingleCase, log: &mut Vec<String>) -> Result<bool, TestCaseError> {
    let persistence = if case.aof {
        Persistence::AofAlways
    } else {
        Persistence::None
    };
    let mut server = RedisServer::primary(bin, persistence).expect("redis-server starts");
    let mut con = server.connect().expect("connects");
    let mut m = Model::new(single_world(case.ttl, case.fencing, case.aof), SR_CLIENT);
    // The crash that keeps the data (AOF, or SHUTDOWN SAVE's snapshot).
    let durable = single_world(case.ttl, case.fencing, true);
    let empty = single_world(case.ttl, case.fencing, false);
    let mut clock = Clock::new();
    let px = clock.px(case.ttl).to_string();
    for (i, op) in case.ops.iter().enumerate() {
        clock.wait_for_grid();
        log.push(format!("tick {}: {op:?}", clock.now));
        let real: Answer;
        let model: Answer;
        match *op {
            Op::Wait(n) => {
                for _ in 0..n {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                real = Answer::Done;
                model = Answer::Done;
            }
            Op::Crash(stop, down) => {
                match stop {
                    Stop::Kill => server.kill(),
                    Stop::NoSave => server.shutdown(false).expect("SHUTDOWN NOSAVE"),
                    Stop::Save => server.shutdown(true).expect("SHUTDOWN SAVE"),
                }
                let keeps = case.aof || matches!(stop, Stop::Save);
                let w = if keeps { &durable } else { &empty };
                m.act_in(Some(w), &Action::Crash { node: SR_SERVER });
                for _ in 0..down {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                server.restart().expect("redis-server restarts");
                m.act_in(Some(w), &Action::Restart { node: SR_SERVER });
                m.settle();
                if !case.aof {
                    // The snapshot is loaded; a later crash starts empty,
                    // as the model's restart = "empty" does (module doc).
                    let _ = std::fs::remove_file(server.dir().join("dump.rdb"));
                }
                con = server.connect().expect("reconnects");
                let target = clock.next_tick_after(Instant::now());
                while clock.now < target {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                real = Answer::Done;
                model = Answer::Done;
            }
            _ => {
                let (msg, answer) = single_command(&mut con, case, &px, *op);
                let done = Instant::now();
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick: the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                real = answer;
                m.request(SR_SERVER, msg);
                let answers = m.answers();
                model = match answers.as_slice() {
                    [sr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [sr::Msg::Refused { .. }] => Answer::Refused,
                    [_] | [] => Answer::Done,
                    more => panic!("the server answered one request {} times: {more:?}", more.len()),
                };
            }
        }
        log.push(format!("  real {real:?}, model {model:?}"));
        prop_assert_eq!(&real, &model, "answer to command {} ({:?})\n{}", i, op, log.join("\n"));
        let Ok(real_key) = real_key(&mut con, &clock) else {
            log.push("  GET/PTTL answered too late after its tick: the case stops here".into());
            return Ok(false);
        };
        let real_fence: Option<u32> = redis::cmd("GET").arg(FENCE).query(&mut con).expect("GET fence");
        let (model_key, model_fence) = single_model_key(&m);
        log.push(format!(
            "  key real {real_key:?}, model {model_key:?}; fence real {real_fence:?}, model {model_fence}"
        ));
        prop_assert_eq!(
            real_key,
            model_key,
            "key after command {} ({:?})\n{}",
            i,
            op,
            log.join("\n")
        );
        prop_assert_eq!(
            real_fence.unwrap_or(0),
            model_fence,
            "fencing counter after command {} ({:?})\n{}",
            i,
            op,
            log.join("\n")
        );
    }
    drop(server);
    Ok(true)
}

/// Sends one client command to the real server and returns the model's
/// message for it with the real answer.
fn single_command(con: &mut redis::Connection, case: &SingleCase, px: &str, op: Op) -> (sr::Msg, Answer) {
    let granted = |con: &mut redis::Connection, ok: bool| {
        if !ok {
            return Answer::Refused;
        }
        let token = if case.fencing {
            redis::cmd("INCR").arg(FENCE).query::<u32>(con).expect("INCR")
        } else {
            0
        };
        Answer::Granted { token }
    };
    match op {
        Op::SetNxPx(value) => {
            let ok: Option<String> = redis::cmd("SET")
                .arg(LOCK)
                .arg(value_name(value))
                .arg("NX")
                .arg("PX")
                .arg(px)
                .query(con)
                .expect("SET NX PX");
            (sr::Msg::SetNxPx { value }, granted(con, ok.is_some()))
        }
        Op::SetNx(value) => {
            let ok: Option<String> = redis::cmd("SET")
                .arg(LOCK)
                .arg(value_name(value))
                .arg("NX")
                .query(con)
                .expect("SET NX");
            (sr::Msg::SetNx { value }, granted(con, ok.is_some()))
        }
        Op::Expire => {
            let _: i64 = redis::cmd("PEXPIRE").arg(LOCK).arg(px).query(con).expect("PEXPIRE");
            (sr::Msg::Expire { value: 0 }, Answer::Done)
        }
        Op::Del => {
            let _: i64 = redis::cmd("DEL").arg(LOCK).query(con).expect("DEL");
            (sr::Msg::Del { value: 0 }, Answer::Done)
        }
        Op::CompareAndDelete(value) => {
            let _: i64 = redis::cmd("EVAL")
                .arg(COMPARE_AND_DELETE)
                .arg(1)
                .arg(LOCK)
                .arg(value_name(value))
                .query(con)
                .expect("EVAL compare-and-delete");
            (sr::Msg::CompareAndDelete { value }, Answer::Done)
        }
        Op::Renew(value) => {
            let _: i64 = redis::cmd("EVAL")
                .arg(RENEW)
                .arg(1)
                .arg(LOCK)
                .arg(value_name(value))
                .arg(px)
                .query(con)
                .expect("EVAL renew");
            (sr::Msg::Renew { value }, Answer::Done)
        }
        Op::Wait(_) | Op::Crash(..) => unreachable!("not a command"),
    }
}
