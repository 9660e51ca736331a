//! Conformance: the model's Redis server answers as `redis-server` does.
//!
//! proptest draws command sequences; each runs at once against a real
//! `redis-server` (Debian's package, started by `locksmith::real` on a free
//! loopback port with its own directory) and against the model's server
//! actor (`single_redis::Node::Server`, and `primary_replica::Node::Redis`
//! for a primary with a replica), driven through the model's own `World`
//! (the same `on_msg`, `on_timer`, `crash` and `restart` the checker calls;
//! the test only injects the client's requests and reads the answers). After
//! every command and every tick both must give the same answer and hold the
//! same key state: the same value (or none), a TTL or none, and the same
//! TTL left in whole ticks.
//!
//! Commands: `SET lock v NX PX ttl`, `SET lock v NX` then `PEXPIRE lock ttl`
//! (the model's `EXPIRE`), `DEL`, the compare-and-delete and PEXPIRE-renewal
//! `EVAL` scripts the model's clients use, `INCR lock:fence` after a grant
//! when the model hands out fencing tokens, and `GET`/`PTTL` to read the
//! key; `SIGKILL`, `SHUTDOWN NOSAVE` and `SHUTDOWN SAVE` followed by a
//! restart, with `appendonly yes` + `appendfsync always` or with no
//! persistence; on a primary with a replica, `SET ... NX PX` followed by
//! `WAIT 1 timeout` (or not, for asynchronous replication), the replica
//! killed and restarted, and the replica's copy of the key.
//!
//! Time. One model tick is `LOCKSMITH_REDIS_TICK_MS` real milliseconds
//! (default 200). Commands are sent on the tick grid (tick j at j·T after
//! the start) and must be answered within 3/8 T. A TTL of n ticks is sent to
//! Redis as n·T − T/2 ms, so a real key expires half a tick before the grid
//! point at which the model's timer reaches zero, never near an instant at
//! which a command runs: the real answer is unambiguous, and it is the one
//! the model gives when it fires a due timer before it delivers a command
//! (one of the two orders the model allows at that instant; the test always
//! takes it). A command answered later than 3/8 T (a loaded machine) makes
//! the real timing ambiguous: that case stops there, is not compared
//! further, and is counted and printed; so does a `WAIT` sent later than
//! T/8 after its tick while the replica restarts (its timeout then ends
//! after the grid point where the model's fires, and a restart from that
//! grid point can answer it: seen once on a loaded machine). A restart
//! (of the server or the replica) takes as long as it takes: the next
//! command waits for the next grid point after it, and the model ticks as
//! many times. A TTL left is
//! compared in whole ticks: the real `PTTL` read at time t gives the
//! deadline t + PTTL, which lies 1/2 to 1/8 tick before the grid point at
//! which the model's timer must reach zero; round((deadline + 5T/16) / T)
//! is that tick.
//!
//! Abstractions (the model's answer carries less than Redis's, on purpose;
//! also in docs/real-systems.md, "Conformance: the model's Redis answers"):
//! - `PEXPIRE`, `DEL` and both scripts answer 0 or 1 in Redis; the model
//!   answers "done" (and nothing to the renewal): its clients do not read
//!   the count, so only the key state is compared after them.
//! - The model's `EXPIRE lock ttl` is in ticks; the test sends `PEXPIRE`
//!   (Redis's `EXPIRE` counts whole seconds).
//! - With `wait`, both clients send `WAIT` once `SET` has answered `OK`
//!   (the model's default, `pipeline = false`), on the same connection.
//! - The model has no graceful shutdown. `SHUTDOWN SAVE` writes an RDB
//!   snapshot with absolute expiry times even without persistence, so the
//!   test compares it with the model's `restart = "fsync"` crash; `SHUTDOWN
//!   NOSAVE` and `SIGKILL` with the model's crash of the configured
//!   persistence. A server without persistence that was once shut down
//!   with `SAVE` reloads that old `dump.rdb` after every later crash (an old
//!   key, an old fencing counter): no model restart does that, so the test
//!   deletes the snapshot once it is loaded.
//! - Under `CI=true` a missing `redis-server` fails; elsewhere the test
//!   prints `*** REAL REDIS NOT RUN` and passes. `PROPTEST_CASES` raises
//!   the case count (default 6 per test, the suite well under a minute).

use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use locksmith::real;

mod model;
mod primary_replica;
mod real_server;
mod single_redis;

use primary_replica::{pr_case, run_pr};
use single_redis::{run_single, single_case};

/// The compare-and-delete script of the model's clients (and the Redis
/// documentation's).
const COMPARE_AND_DELETE: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
/// Redisson's renewal: extend the expiry only while the key is ours.
const RENEW: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const LOCK: &str = "lock";
const FENCE: &str = "lock:fence";

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        // Every case runs in real time: shrink a little, not for minutes.
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Runs proptest's cases of `strategy` through `run`, which returns whether
/// the case ran to its end; prints how many stopped early.
fn run_cases<C: std::fmt::Debug + Clone>(
    name: &str,
    strategy: impl Strategy<Value = C>,
    run: impl Fn(&C, &mut Vec<String>) -> Result<bool, TestCaseError>,
) {
    let complete = std::cell::Cell::new(0u32);
    let total = std::cell::Cell::new(0u32);
    let started = Instant::now();
    let result = runner().run(&strategy, |case| {
        total.set(total.get() + 1);
        let mut log = Vec::new();
        if run(&case, &mut log)? {
            complete.set(complete.get() + 1);
        } else if let [.., op, why] = log.as_slice() {
            eprintln!("{name}: stopped early at {op}: {why}");
        }
        Ok(())
    });
    eprintln!(
        "{name}: {} of {} cases ran to their end ({} stopped early: a command answered too late to compare), {:.1} s",
        complete.get(),
        total.get(),
        total.get() - complete.get(),
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{name}: the model and redis-server differ:\n{e}");
    }
}

// ---------------------------------------------------------------------------
// One Redis server: single-redis.

/// The model's single Redis server (`single-redis`) against one
/// `redis-server`: SET NX PX, SET NX then PEXPIRE, DEL, the scripts,
/// INCR, TTLs, and crashes and shutdowns with and without the fsynced AOF.
#[test]
fn the_single_redis_server_answers_as_redis_server_does() {
    let Some(bin) = real::require_redis() else {
        return;
    };
    run_cases("single-redis", single_case(), |case, log| run_single(&bin, case, log));
}

// ---------------------------------------------------------------------------
// A primary with a replica: primary-replica.

/// The model's primary and replica (`primary-replica`) against a real
/// primary with a real replica: SET NX PX with and without WAIT, the
/// compare-and-delete script, the replica killed and resynchronised, and
/// the replica's copy of the key and its expiry.
#[test]
fn the_primary_and_its_replica_answer_as_redis_server_does() {
    let Some(bin) = real::require_redis() else {
        return;
    };
    run_cases("primary-replica", pr_case(), |case, log| run_pr(&bin, case, log));
}
