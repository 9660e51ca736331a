//! From a trace's steps to real operations: what each node of the model is
//! on real processes ([`Cast`]), what the real system is configured as
//! ([`Setup`]), and what each step asks of them ([`Op`]). Steps are read
//! from the trace's serde form (`"tick"`, `{"deliver": {...}}`), which is
//! the same for the three families reenacted here, so one reader serves
//! them all; anything without a real counterpart is [`Op::Unsupported`],
//! which makes the trace not enactable (exit 2) rather than silently
//! skipped.

use serde_json::Value;

use crate::algorithms::real::Real;
pub use crate::algorithms::real::{Fence, Keep, Part, RedisFamily, Setup};
use crate::algorithms::{with_family, FamilyJob};
use crate::scenario::Scenario;
use crate::world::Id;

impl Setup {
    /// The real configuration of `sc` (a Redis family's: its registry's
    /// `Family::real`), or why it cannot be enacted by the Redis driver.
    pub fn of(sc: &Scenario) -> Result<Setup, String> {
        Setup::from_real(sc, real_of(sc))
    }

    /// [`Setup::of`] from what [`real_of`] already said of `sc`.
    pub fn from_real(sc: &Scenario, real: Result<Real, String>) -> Result<Setup, String> {
        match real? {
            Real::Redis(setup) => Ok(setup),
            _ => Err(format!(
                "algorithm \"{}\" has no real counterpart here; reenact runs single-redis, redlock, primary-replica, zookeeper and etcd-lease traces",
                sc.algorithm
            )),
        }
    }
}

/// What the scenario's family is on real servers (`Family::real`), or
/// why its parameters cannot be read.
pub fn real_of(sc: &Scenario) -> Result<Real, String> {
    struct Of<'a>(&'a Scenario);
    impl FamilyJob for Of<'_> {
        type Output = Result<Real, String>;
        fn run<F: crate::algorithms::Family>(self) -> Self::Output {
            let p = F::params(self.0).map_err(|e| e.to_string())?;
            Ok(F::real(&p))
        }
    }
    with_family(&sc.algorithm, Of(sc)).unwrap_or_else(|| Err(format!("algorithm \"{}\" is unknown", sc.algorithm)))
}

/// A request a client sends to a Redis server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// `SET lock v NX PX ttl` (primary-replica with `wait`: then `WAIT`).
    SetNxPx(u32),
    /// `SETNX lock v`.
    SetNx(u32),
    /// `PEXPIRE lock ttl`.
    Expire(u32),
    /// `DEL lock`.
    Del(u32),
    /// The compare-and-delete script.
    CompareAndDelete(u32),
    /// The renewal script (`PEXPIRE` if the value is ours).
    Renew(u32),
    /// `INCR fence` on Redlock's counter service.
    Incr(u32),
}

/// What the model's answer to a lock request says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The lock request: set (`true`) or not.
    Lock(bool),
    /// Any other answer (`EXPIRE`'s, a release's, a token).
    Other,
}

/// One trace step as a real operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// One tick of real time.
    Tick,
    /// A clock-drift tick: time passes at the normal rate (no real clock
    /// can be slowed or sped up per process here).
    Drift,
    /// A client starts an acquisition (its stopwatch starts).
    Acquire(usize),
    /// A validity client checks what is left before it writes.
    Check(usize),
    /// A client starts its critical section's write.
    Write(usize),
    /// A request reaches a server: the driver sends it now.
    Send {
        client: usize,
        node: Id,
        req: Request,
    },
    /// A server's answer reaches a client: the driver hands over the reply
    /// it holds.
    Answer {
        node: Id,
        client: usize,
        model: Answer,
    },
    /// The write reaches the resource / its answer reaches the client.
    ResourceWrite(usize),
    ResourceAnswer(usize),
    /// A message that real processes exchange on their own (replication,
    /// Sentinel's pings): nothing to send; `what` for the log.
    Automatic(String),
    /// The request was lost (never sent) or the answer was (dropped).
    Lose {
        src: Id,
        dst: Id,
    },
    Crash(Id),
    Restart(Id),
    Pause {
        node: Id,
        ticks: u8,
    },
    /// A Redis key's TTL runs out on `node`.
    KeyExpiry(Id),
    /// Sentinel's down-after runs out: the real Sentinel fails over.
    DownAfter,
    /// Sentinel sends `REPLICAOF NO ONE` to `node` / picks it.
    Promote(Id),
    /// A client learns the new primary from the Sentinel.
    NewPrimary {
        client: usize,
        node: Id,
    },
    /// The primary's own replication step (real Redis streams at once).
    Replicate(Id),
    /// A timer of a client (timeouts, retries, validity): client-side only.
    ClientTimer(usize, String),
    /// A clock jump, which Redis offers no way to make: skipped.
    ClockJump {
        node: Id,
        by: i64,
    },
    /// No real counterpart: the trace cannot be enacted.
    Unsupported(String),
}

/// Reads one step's action into an operation.
pub fn op(setup: &Setup, action: &Value) -> Op {
    let part = |id: &Value| -> Option<(Id, Part)> {
        let id = id.as_u64()? as usize;
        setup.cast.get(id).map(|p| (id, *p))
    };
    let unsupported = |what: &str| Op::Unsupported(format!("{what} has no real counterpart in reenact"));
    if action.as_str() == Some("tick") {
        return Op::Tick;
    }
    if action.as_str() == Some("heal") {
        return unsupported("a partition's heal");
    }
    let Some((kind, body)) = action.as_object().and_then(|o| o.iter().next()) else {
        return unsupported(&format!("the action {action}"));
    };
    let node = || part(&body["node"]);
    match kind.as_str() {
        "step" => {
            let step = &body["step"];
            let name = step
                .as_str()
                .map(str::to_string)
                .or_else(|| step.as_object().and_then(|o| o.keys().next().cloned()))
                .unwrap_or_default();
            match (node(), name.as_str()) {
                (Some((_, Part::Client(c))), "Acquire") => Op::Acquire(c),
                (Some((_, Part::Client(c))), "Check") => Op::Check(c),
                (Some((_, Part::Client(c))), "Write") => Op::Write(c),
                (Some((_, Part::Client(c))), "Expire") => Op::Automatic(format!(
                    "c{} gets ready to send EXPIRE (sent when the trace delivers it)",
                    c + 1
                )),
                (Some((id, Part::Redis(_))), "Replicate") => Op::Replicate(id),
                (Some((_, Part::Sentinel)), "SelectReplica") => match part(&step["SelectReplica"]["replica"]) {
                    Some((id, Part::Redis(_))) => Op::Promote(id),
                    _ => unsupported("a SelectReplica step without a replica"),
                },
                _ => unsupported(&format!("the step {step}")),
            }
        }
        "fire" => {
            let timer = body["timer"].as_str().unwrap_or_default().to_string();
            match (node(), timer.as_str()) {
                (Some((id, Part::Redis(_))), "KeyExpiry") => Op::KeyExpiry(id),
                (Some((_, Part::Redis(_))), "Ping" | "Recovered") => {
                    Op::Automatic(format!("the server's {timer} timer"))
                }
                (Some((_, Part::Sentinel)), "DownAfter") => Op::DownAfter,
                (Some((_, Part::Client(c))), _) => Op::ClientTimer(c, timer),
                _ => unsupported(&format!("the timer {}", body["timer"])),
            }
        }
        "deliver" => deliver(setup, body),
        "lose" => match (part(&body["src"]), part(&body["dst"])) {
            (Some((src, _)), Some((dst, _))) => Op::Lose { src, dst },
            _ => unsupported("a loss between unknown nodes"),
        },
        "crash" => match node() {
            Some((id, Part::Redis(_) | Part::Client(_))) => Op::Crash(id),
            _ => unsupported("a crash of this node"),
        },
        "restart" => match node() {
            Some((id, Part::Redis(_) | Part::Client(_))) => Op::Restart(id),
            _ => unsupported("a restart of this node"),
        },
        "pause" => match (node(), body["ticks"].as_u64()) {
            (Some((id, Part::Redis(_) | Part::Client(_))), Some(t)) => Op::Pause {
                node: id,
                ticks: t.min(255) as u8,
            },
            _ => unsupported("a pause of this node"),
        },
        "clock_jump" => match node() {
            Some((id, _)) => Op::ClockJump {
                node: id,
                by: body["by"].as_i64().unwrap_or(0),
            },
            None => unsupported("a clock jump of an unknown node"),
        },
        // A replica that saw its primary's connection close reconnects by
        // itself, as the real one does.
        "disconnected" | "reconnect" => match node() {
            Some((id, Part::Redis(_))) => Op::Automatic(format!("node {id}'s replication link ({kind})")),
            _ => unsupported(&format!("the action \"{kind}\"")),
        },
        "drift" => Op::Drift,
        "partition" => unsupported("a network partition (it needs control of the real network)"),
        "duplicate" => unsupported("a duplicated message"),
        other => unsupported(&format!("the action \"{other}\"")),
    }
}

/// A message delivery: a request sent, an answer handed over, or what the
/// real processes do by themselves.
fn deliver(setup: &Setup, body: &Value) -> Op {
    let (Some(src), Some(dst)) = (body["src"].as_u64(), body["dst"].as_u64()) else {
        return Op::Unsupported("a delivery without src and dst".into());
    };
    let (src, dst) = (src as usize, dst as usize);
    let (Some(&from), Some(&to)) = (setup.cast.get(src), setup.cast.get(dst)) else {
        return Op::Unsupported(format!("a delivery between unknown nodes {src} and {dst}"));
    };
    let msg = &body["msg"];
    let (name, fields) = match msg {
        Value::String(s) => (s.clone(), Value::Null),
        Value::Object(o) => match o.iter().next() {
            Some((k, v)) => (k.clone(), v.clone()),
            None => return Op::Unsupported("an empty message".into()),
        },
        _ => return Op::Unsupported(format!("the message {msg}")),
    };
    let value = fields["value"].as_u64().unwrap_or(0) as u32;
    match (from, to, name.as_str()) {
        (Part::Client(c), Part::Resource, "Resource") => Op::ResourceWrite(c),
        (Part::Resource, Part::Client(c), "Resource") => Op::ResourceAnswer(c),
        (Part::Client(c), Part::Redis(_) | Part::Counter(_), _) => {
            let req = match name.as_str() {
                "SetNxPx" | "Lock" => Request::SetNxPx(value),
                "SetNx" => Request::SetNx(value),
                "Expire" => Request::Expire(value),
                "Del" => Request::Del(value),
                "CompareAndDelete" | "Unlock" => Request::CompareAndDelete(value),
                "Renew" => Request::Renew(value),
                "Incr" => Request::Incr(value),
                "Wait" => {
                    return Op::Unsupported(
                        "a WAIT sent after SET's reply (primary-replica without pipeline): the re-enactment sends WAIT with its SET, on one connection".into(),
                    )
                }
                _ => return Op::Unsupported(format!("the request {name}")),
            };
            Op::Send {
                client: c,
                node: dst,
                req,
            }
        }
        (Part::Redis(_) | Part::Counter(_), Part::Client(c), _) => {
            let model = match name.as_str() {
                "Locked" => Answer::Lock(fields["ok"].as_bool().unwrap_or(false)),
                "Granted" => Answer::Lock(true),
                "Refused" | "WaitTimedOut" => Answer::Lock(false),
                _ => Answer::Other,
            };
            Op::Answer {
                node: src,
                client: c,
                model,
            }
        }
        (Part::Sentinel, Part::Redis(_), "Promote") => Op::Promote(dst),
        (Part::Sentinel, Part::Client(c), "NewPrimary") => Op::NewPrimary {
            client: c,
            node: dst_of(setup, &fields),
        },
        (Part::Redis(_) | Part::Sentinel, Part::Redis(_) | Part::Sentinel, _) => Op::Automatic(format!(
            "{name} from node {src} to node {dst}, which the real processes exchange by themselves"
        )),
        _ => Op::Unsupported(format!("the message {name} from node {src} to node {dst}")),
    }
}

/// The node a `NewPrimary { id }` names.
fn dst_of(setup: &Setup, fields: &Value) -> Id {
    let id = fields["id"].as_u64().unwrap_or(0) as usize;
    id.min(setup.cast.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use serde_json::json;

    fn setup(name: &str) -> Setup {
        let sc = catalog::open(name).expect("a valid bundled scenario");
        Setup::of(&sc).expect("enactable")
    }

    #[test]
    fn redlock_steps_become_requests_answers_and_faults() {
        let s = setup("redlock-no-fsync");
        assert_eq!(s.need, 2, "a majority of three");
        assert_eq!(s.keep, Keep::Nothing);
        assert_eq!(
            s.cast[..5],
            [
                Part::Redis(0),
                Part::Redis(1),
                Part::Redis(2),
                Part::Client(0),
                Part::Client(1)
            ]
        );
        assert_eq!(op(&s, &json!({"step": {"node": 3, "step": "Acquire"}})), Op::Acquire(0));
        assert_eq!(
            op(
                &s,
                &json!({"deliver": {"dst": 0, "msg": {"Lock": {"value": 1}}, "src": 3}})
            ),
            Op::Send {
                client: 0,
                node: 0,
                req: Request::SetNxPx(1)
            }
        );
        assert_eq!(
            op(
                &s,
                &json!({"deliver": {"dst": 4, "msg": {"Locked": {"ok": false, "value": 2}}, "src": 1}})
            ),
            Op::Answer {
                node: 1,
                client: 1,
                model: Answer::Lock(false)
            }
        );
        assert_eq!(op(&s, &json!({"crash": {"node": 0}})), Op::Crash(0));
        assert_eq!(op(&s, &json!("tick")), Op::Tick);
        assert!(matches!(
            op(&s, &json!({"partition": {"a": 0, "b": 3}})),
            Op::Unsupported(_)
        ));
        assert_eq!(setup("redlock-fsync").keep, Keep::Fsync);
    }

    #[test]
    fn sentinel_steps_map_to_the_real_sentinel() {
        let s = setup("replica-failover-async");
        assert_eq!(s.cast[2], Part::Sentinel);
        assert_eq!(
            op(&s, &json!({"fire": {"node": 2, "timer": "DownAfter"}})),
            Op::DownAfter
        );
        assert_eq!(
            op(
                &s,
                &json!({"step": {"node": 2, "step": {"SelectReplica": {"replica": 1}}}})
            ),
            Op::Promote(1)
        );
        assert_eq!(
            op(&s, &json!({"step": {"node": 0, "step": "Replicate"}})),
            Op::Replicate(0)
        );
    }

    #[test]
    fn other_families_are_not_enacted() {
        let sc = catalog::open("coordinator-no-faults").expect("a valid bundled scenario");
        let err = Setup::of(&sc).expect_err("the coordinator has no real counterpart here");
        assert!(err.contains("\"coordinator\""), "{err}");
    }
}
