//! Traces speak the system's language, not Rust: no
//! committed trace shows `Debug` syntax, each family writes its messages as
//! the real system's commands and answers, and a value renumbered by rank
//! keeps its name.
//!
//! `every_trace_speaks_the_systems_language` scans `reports/`, or the folder
//! named by `LOCKSMITH_TRACES_DIR` (to check freshly written reports:
//! `locksmith check --all --reports DIR`, then
//! `LOCKSMITH_TRACES_DIR=DIR cargo test --release --test e2e traces::`).

use std::path::{Path, PathBuf};

use crate::common::scenario;
use locksmith::algorithms::resource::ResourceMsg;
use locksmith::algorithms::{lock_table, primary_replica, redlock, single_redis};
use locksmith::check::Counterexample;
use locksmith::report::story::Story;
use locksmith::world::{Action, Describe};

/// Rust `Debug` text that must never reach a trace.
const RUST: [&str; 3] = ["{ ", "Some(", "None"];

fn reports_dir() -> PathBuf {
    match std::env::var_os("LOCKSMITH_TRACES_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("reports"),
    }
}

/// Every file under `dir` whose name ends with `suffix`.
fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            files(&path, suffix, out);
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

/// The lines of `text` that show Rust `Debug` syntax.
fn rust_in(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| RUST.iter().any(|r| l.contains(r)))
        .map(|l| l.chars().take(300).collect())
        .collect()
}

#[test]
fn every_trace_speaks_the_systems_language() {
    let dir = reports_dir();
    let (mut md, mut json) = (Vec::new(), Vec::new());
    files(&dir, "trace.md", &mut md);
    files(&dir, "trace.json", &mut json);
    assert!(!md.is_empty(), "no trace.md under {}", dir.display());
    let mut bad = Vec::new();
    for path in &md {
        let text = std::fs::read_to_string(path).expect("a readable trace.md");
        for line in rust_in(&text) {
            bad.push(format!("{}: {line}", path.display()));
        }
    }
    for path in &json {
        let text = std::fs::read_to_string(path).expect("a readable trace.json");
        let trace: serde_json::Value = serde_json::from_str(&text).expect("a JSON trace");
        for step in trace["steps"].as_array().expect("steps") {
            let does = step["does"].as_str().expect("does");
            for line in rust_in(does) {
                bad.push(format!("{}: {line}", path.display()));
            }
        }
    }
    assert!(bad.is_empty(), "Rust Debug syntax in traces:\n{}", bad.join("\n"));
}

#[test]
fn the_scan_finds_rust_debug_syntax() {
    assert_eq!(rust_in("c1 receives Granted { value: 1 } from redis").len(), 1);
    assert_eq!(rust_in("key None → 3").len(), 1);
    assert_eq!(rust_in("token Some(2)").len(), 1);
    assert!(rust_in("c1 receives OK (v1) from redis; answered {s1, s2}").is_empty());
}

#[test]
fn single_redis_writes_redis_commands() {
    use single_redis::Msg;
    let w = single_redis::world(&scenario("redis-ttl-gc-pause")).expect("builds");
    let (redis, c1) = (0, 1);
    assert_eq!(w.show_msg(c1, &Msg::SetNxPx { value: 3 }), "SET lock v3 NX PX 4");
    assert_eq!(w.show_msg(c1, &Msg::Del { value: 3 }), "DEL lock");
    assert_eq!(
        w.show_msg(
            redis,
            &Msg::Granted {
                value: 3,
                token: 0,
                ghost: 1
            }
        ),
        "OK (v3)"
    );
    assert_eq!(w.show_msg(redis, &Msg::Refused { value: 3 }), "nil (v3)");
    assert_eq!(w.show_msg(redis, &Msg::Released { value: 3 }), "DEL done (v3)");
    let w = single_redis::world(&scenario("redis-setnx-expire-crash")).expect("builds");
    assert_eq!(w.show_msg(c1, &Msg::SetNx { value: 3 }), "SETNX lock v3");
    assert_eq!(w.show_msg(c1, &Msg::Expire { value: 3 }), "EXPIRE lock 6");
    let w = single_redis::world(&scenario("redis-fencing")).expect("builds");
    assert_eq!(
        w.show_msg(c1, &Msg::CompareAndDelete { value: 3 }),
        "EVAL compare-and-delete lock v3"
    );
    assert_eq!(
        w.show_msg(
            redis,
            &Msg::Granted {
                value: 3,
                token: 5,
                ghost: 2
            }
        ),
        "OK, INCR fence: (integer) 5 (v3)"
    );
    let write = Msg::Resource(ResourceMsg::Write { token: 5, ghost: 2 });
    assert_eq!(w.show_msg(c1, &write), "write (token 5, acquisition #2)");
    let w = single_redis::world(&scenario("redis-watchdog-short-pause")).expect("builds");
    assert_eq!(w.show_msg(c1, &Msg::Renew { value: 3 }), "EVAL renew lock v3 PX 9");
}

#[test]
fn lock_table_writes_sql() {
    use lock_table::Msg;
    let w = lock_table::world(&scenario("lock-table-expiry")).expect("builds");
    let (db, c1) = (0, 1);
    assert_eq!(
        w.show_msg(c1, &Msg::Insert { value: 3 }),
        "INSERT INTO locks VALUES ('lock', 'v3', now() + 4) ON CONFLICT (name) DO UPDATE \
         SET owner = 'v3', expires_at = now() + 4 WHERE locks.expires_at < now()"
    );
    assert_eq!(
        w.show_msg(db, &Msg::Inserted { value: 3, ghost: 1 }),
        "INSERT 0 1 ('v3')"
    );
    assert_eq!(
        w.show_msg(db, &Msg::Duplicate { value: 3 }),
        "INSERT 0 0 ('v3')",
        "with expiry the upsert inserts nothing rather than failing"
    );
    assert_eq!(
        w.show_msg(c1, &Msg::Delete { value: 3 }),
        "DELETE FROM locks WHERE owner = 'v3'"
    );
    let w = lock_table::world(&scenario("lock-table-crash")).expect("builds");
    assert_eq!(
        w.show_msg(c1, &Msg::Insert { value: 3 }),
        "INSERT INTO locks VALUES ('lock', 'v3')"
    );
    assert_eq!(
        w.show_msg(db, &Msg::Duplicate { value: 3 }),
        "ERROR: duplicate key ('v3')"
    );
    let state = w.init().nodes[db].state;
    assert_eq!(
        w.actors[db].show_state(&state, &w.names),
        Some(vec![("row".to_string(), "none".to_string())])
    );
}

#[test]
fn redlock_writes_redis_commands_and_sets_of_masters() {
    use redlock::Msg;
    let w = redlock::world(&scenario("redlock-gc-pause-fencing")).expect("builds");
    let (s1, c1) = (0, 3);
    let counter = w.names.iter().position(|n| n == "counter").expect("a counter");
    assert_eq!(w.show_msg(c1, &Msg::Lock { value: 3 }), "SET lock v3 NX PX 8");
    assert_eq!(w.show_msg(s1, &Msg::Locked { value: 3, ok: true }), "OK (v3)");
    assert_eq!(w.show_msg(s1, &Msg::Locked { value: 3, ok: false }), "nil (v3)");
    assert_eq!(
        w.show_msg(c1, &Msg::Unlock { value: 3 }),
        "EVAL compare-and-delete lock v3"
    );
    assert_eq!(w.show_msg(c1, &Msg::Incr { value: 3 }), "INCR fence (v3)");
    assert_eq!(
        w.show_msg(counter, &Msg::Token { value: 3, token: 5 }),
        "(integer) 5 (v3)"
    );
    let mut state = w.init().nodes[c1].state;
    if let redlock::State::Client(c) = &mut state {
        c.answered = 0b101;
        c.yes = 0b001;
    }
    let shown = w.actors[c1].show_state(&state, &w.names).expect("shown");
    let get = |f: &str| shown.iter().find(|(k, _)| k == f).map(|(_, v)| v.as_str());
    assert_eq!(get("answered"), Some("{s1, s3}"));
    assert_eq!(get("OK from"), Some("{s1}"));
    assert_eq!(get("phase"), Some("wants"));
    assert_eq!(get("token"), Some("none"));
}

#[test]
fn primary_replica_writes_redis_replication_and_sentinel_commands() {
    use primary_replica::{Key, Msg};
    let w = primary_replica::world(&scenario("replica-failover-wait")).expect("builds");
    let (primary, replica, sentinel, c1) = (0, 1, 2, 3);
    assert_eq!(w.show_msg(c1, &Msg::SetNxPx { value: 3 }), "SET lock v3 NX PX 9");
    assert_eq!(w.show_msg(primary, &Msg::SetOk { value: 3 }), "OK (v3)");
    assert_eq!(w.show_msg(c1, &Msg::Wait { value: 3 }), "WAIT 1 3 (after SET v3)");
    let granted = Msg::Granted {
        token: 0,
        ghost: 1,
        value: 3,
    };
    assert_eq!(w.show_msg(primary, &granted), "(integer) 1 (v3)");
    assert_eq!(w.show_msg(primary, &Msg::WaitTimedOut { value: 3 }), "(integer) 0 (v3)");
    assert_eq!(
        w.show_msg(
            primary,
            &Msg::Replicate {
                key: Some(Key { value: 3 }),
                px: 5,
                getack: false
            }
        ),
        "replication stream: SET lock v3 PXAT now+5"
    );
    assert_eq!(
        w.show_msg(
            primary,
            &Msg::Replicate {
                key: None,
                px: 0,
                getack: true
            }
        ),
        "replication stream: DEL lock; REPLCONF GETACK *"
    );
    assert_eq!(
        w.show_msg(primary, &Msg::GetAck),
        "replication stream: REPLCONF GETACK *"
    );
    // A client that pipelines: one request, one answer.
    let text =
        include_str!("../../scenarios/replica-failover-wait.toml").replace("ttl = 9", "ttl = 9\npipeline = true");
    let piped = locksmith::catalog::parse(Path::new("x.toml"), &text).expect("valid");
    let w2 = primary_replica::world(&piped).expect("builds");
    assert_eq!(
        w2.show_msg(c1, &Msg::SetNxPx { value: 3 }),
        "SET lock v3 NX PX 9; WAIT 1 3"
    );
    assert_eq!(w2.show_msg(primary, &granted), "OK, (integer) 1 (v3)");
    assert_eq!(w.show_msg(replica, &Msg::Sync), "PSYNC ? -1");
    assert_eq!(w.show_msg(replica, &Msg::Ack), "REPLCONF ACK");
    assert_eq!(
        w.show_msg(sentinel, &Msg::Promote { epoch: 1 }),
        "REPLICAOF NO ONE (epoch 1)"
    );
    assert_eq!(
        w.show_msg(sentinel, &Msg::ReplicaOf { primary: replica }),
        "REPLICAOF replica"
    );
    assert_eq!(
        w.show_msg(sentinel, &Msg::NewPrimary { id: replica }),
        "+switch-master replica"
    );
    assert_eq!(
        w.show_timer(primary, &primary_replica::Timer::WaitTimeout { client: c1 }),
        "WAIT timeout of c1"
    );
    let w = primary_replica::world(&scenario("replica-failover-async")).expect("builds");
    assert_eq!(w.show_msg(c1, &Msg::SetNxPx { value: 3 }), "SET lock v3 NX PX 7");
    let init = w.init();
    let shown = w.actors[replica]
        .show_state(&init.nodes[replica].state, &w.names)
        .expect("shown");
    assert_eq!(shown[0], ("role".to_string(), "replica of primary".to_string()));
}

/// c1 and c2 ask; redis grants c2 (v2) and refuses c1 (v1); when c1 reads
/// the refusal it forgets v1, and the world renumbers v2 to 1. The story
/// still calls c2's value v2: a renumbering is no change.
#[test]
fn a_renumbered_value_keeps_its_name() {
    use single_redis::{Msg, State, Step};
    let w = single_redis::world(&scenario("redis-ttl-gc-pause")).expect("builds");
    let (redis, c1, c2) = (0, 1, 2);
    let ask = |node| Action::Step {
        node,
        step: Step::Acquire,
    };
    let prefix = vec![
        ask(c1),
        ask(c2),
        Action::Deliver {
            src: c2,
            dst: redis,
            msg: Msg::SetNxPx { value: 2 },
        },
        Action::Deliver {
            src: c1,
            dst: redis,
            msg: Msg::SetNxPx { value: 1 },
        },
        Action::Deliver {
            src: redis,
            dst: c1,
            msg: Msg::Refused { value: 1 },
        },
    ];
    let story = Story::new(&w, &Counterexample { prefix, cycle: None });
    let value = |s: &locksmith::world::WorldState<single_redis::Node>| match &s.nodes[c2].state {
        State::Client(c) => c.value,
        _ => unreachable!(),
    };
    let last = story.states.len() - 1;
    assert_eq!(value(&story.states[last - 1]), 2);
    assert_eq!(value(&story.states[last]), 1, "the world renumbers v2 to 1");
    assert_eq!(value(&story.shown[last]), 2, "the story keeps calling it v2");
    let shown = |i: usize| w.actors[c2].show_state(&story.shown[i].nodes[c2].state, &w.names);
    assert_eq!(shown(last - 1), shown(last), "no change to c2");
    let key = match &story.shown[last].nodes[redis].state {
        State::Server(s) => s.key.map(|k| k.value),
        _ => unreachable!(),
    };
    assert_eq!(key, Some(2), "redis holds v2 too");
}
