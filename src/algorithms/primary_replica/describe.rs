//! The words of `primary-replica`: Redis commands and replies, the
//! replication stream and Sentinel's commands, as traces show them.

use super::{Failover, Key, Msg, Node, Replication, Standing, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Redis(p) if p.auto_restart => "empty (a primary serves again, a replica resynchronises)",
            Node::Redis(_) => "empty, as a replica waiting for the Sentinel",
            Node::Sentinel(_) => "with its configuration file",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, names: &[String]) -> String {
        let p = self.params();
        let v = |v: &u32| show::value(*v);
        let name = |id: &Id| names.get(*id).map_or("?", String::as_str);
        let rdb = |key: &Option<Key>, px: &u8| match key {
            Some(k) => format!("SET lock {} PXAT now+{px}", v(&k.value)),
            None => "DEL lock".into(),
        };
        let pipelined = p.replication == Replication::Wait && p.pipeline;
        let wait = format!("WAIT {} {}", p.wait_replicas, p.wait_timeout);
        match msg {
            Msg::SetNxPx { value } if pipelined => format!("SET lock {} NX PX {}; {wait}", v(value), p.ttl),
            Msg::SetNxPx { value } => format!("SET lock {} NX PX {}", v(value), p.ttl),
            Msg::SetOk { value } => format!("OK ({})", v(value)),
            Msg::Wait { value } => format!("{wait} (after SET {})", v(value)),
            Msg::CompareAndDelete { value } => format!("EVAL compare-and-delete lock {}", v(value)),
            Msg::Granted { value, .. } if pipelined => format!("OK, (integer) 1 ({})", v(value)),
            Msg::Granted { value, .. } if p.replication == Replication::Wait => {
                format!("(integer) 1 ({})", v(value))
            }
            Msg::Granted { value, .. } => format!("OK ({})", v(value)),
            Msg::Refused { value } => format!("nil ({})", v(value)),
            Msg::WaitTimedOut { value } if pipelined => format!("OK, (integer) 0 ({})", v(value)),
            Msg::WaitTimedOut { value } => format!("(integer) 0 ({})", v(value)),
            Msg::Released { value } => format!("EVAL done ({})", v(value)),
            Msg::Replicate { key, px, getack: false } => format!("replication stream: {}", rdb(key, px)),
            Msg::Replicate { key, px, getack: true } => {
                format!("replication stream: {}; REPLCONF GETACK *", rdb(key, px))
            }
            Msg::GetAck => "replication stream: REPLCONF GETACK *".into(),
            Msg::Sync => "PSYNC ? -1".into(),
            Msg::FullSync { key: None, .. } => "+FULLRESYNC, empty dataset".into(),
            Msg::FullSync { key, px } => format!("+FULLRESYNC, dataset: {}", rdb(key, px)),
            Msg::Ack => "REPLCONF ACK".into(),
            Msg::Ping { epoch } => format!("PING (role:master, epoch {epoch})"),
            Msg::Restarted => "restarted empty, which primary?".into(),
            Msg::ReplicaOf { primary } => format!("REPLICAOF {}", name(primary)),
            Msg::Promote { epoch } => format!("REPLICAOF NO ONE (epoch {epoch})"),
            Msg::Promoted { epoch } => format!("role:master (epoch {epoch})"),
            Msg::NewPrimary { id } => format!("+switch-master {}", name(id)),
            Msg::SDown { down: true } => "+sdown master".into(),
            Msg::SDown { down: false } => "-sdown master".into(),
            Msg::VoteRequest { epoch } => format!("SENTINEL is-master-down-by-addr (epoch {epoch}, vote for me)"),
            Msg::Vote { epoch, leader } => format!("voted for {} in epoch {epoch}", name(leader)),
            Msg::Config { epoch, primary } => format!("hello: master {} (config epoch {epoch})", name(primary)),
            Msg::NoReplicas { value } => format!("-NOREPLICAS ({})", v(value)),
            Msg::Heartbeat => "REPLCONF ACK (heartbeat)".into(),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire if self.params().replication == Replication::Wait && self.params().pipeline => format!(
                "asks for the lock: SET lock … NX PX {}; WAIT {} {}",
                self.params().ttl,
                self.params().wait_replicas,
                self.params().wait_timeout
            ),
            Step::Acquire => format!("asks for the lock: SET lock … NX PX {}", self.params().ttl),
            Step::Check => "checks its validity".into(),
            Step::Write => "writes to the resource".into(),
            Step::Replicate => "ships the key, or a GETACK, to a replica on the replication stream".into(),
            // Replicas are ids 1..=N, named `replica` alone or `replica1`.. (see `world`).
            Step::SelectReplica { .. } if self.params().replicas == 1 => "+selected-slave replica".into(),
            Step::SelectReplica { replica } => format!("+selected-slave replica{replica}"),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::KeyExpiry => "key TTL".into(),
            Timer::Ping => "ping interval".into(),
            // Clients are c1.. from the first client's id on (see `world`).
            Timer::WaitTimeout { client } => format!("WAIT timeout of c{}", client + 1 - self.params().first_client()),
            Timer::DownAfter => "down-after".into(),
            Timer::Retry => "back-off".into(),
            Timer::Timeout => "request timeout".into(),
            Timer::Validity => "validity timer".into(),
            Timer::Heartbeat => "REPLCONF ACK interval".into(),
            Timer::Lag { replica } => format!("min-replicas-max-lag of replica {replica}"),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let name = |id: Id| names.get(id).map_or("?", String::as_str).to_string();
        Some(match state {
            State::Redis(r) => {
                let role = match r.standing {
                    Standing::Primary if r.replicas.is_empty() => "primary, no replica".into(),
                    Standing::Primary => format!("primary of {}", show::set(r.replicas.iter().map(|a| a.id), names)),
                    Standing::Detached => "detached, waits for the Sentinel".into(),
                    Standing::Syncing { primary } => format!("syncing from {}", name(primary)),
                    Standing::Streaming { primary } => format!("replica of {}", name(primary)),
                };
                let mut out = vec![
                    show::field("role", role),
                    show::field("epoch", r.epoch),
                    show::field("lock", r.key.map_or("none".into(), |k| show::value(k.value))),
                ];
                let unshipped = r.replicas.iter().filter(|a| a.unshipped).map(|a| a.id);
                out.push(show::field("write not shipped to", show::set(unshipped, names)));
                if self.wait() {
                    let unacked: Vec<String> = r
                        .replicas
                        .iter()
                        .filter(|a| a.unacked > 0)
                        .map(|a| format!("{}: {}", name(a.id), a.unacked))
                        .collect();
                    out.push(show::field("unanswered GETACKs", format!("{{{}}}", unacked.join(", "))));
                    let queued = r.replicas.iter().filter(|a| a.getack).map(|a| a.id);
                    out.push(show::field("GETACK queued for", show::set(queued, names)));
                    let waiting: Vec<String> = r
                        .waiting
                        .iter()
                        .map(|w| {
                            let acked = (0..8).filter(|i| w.acked & (1 << i) != 0);
                            format!(
                                "{} ({}, {}, acknowledged by {})",
                                name(w.client),
                                show::value(w.value),
                                if w.blocked { "blocked" } else { "WAIT to come" },
                                show::set(acked, names)
                            )
                        })
                        .collect();
                    out.push(show::field("WAITs", format!("{{{}}}", waiting.join(", "))));
                }
                out
            }
            State::Sentinel(s) if self.params().sentinels > 1 => vec![
                show::field("epoch", s.epoch),
                show::field("primary", name(s.primary)),
                show::field("config epoch", s.config),
                show::field(
                    "others seeing it down",
                    show::set(
                        self.params()
                            .sentinels()
                            .filter(|&o| s.down & self.params().bit(o) != 0),
                        names,
                    ),
                ),
                show::field("voted", format!("{} in epoch {}", name(s.leader), s.voted)),
                show::field(
                    "failover",
                    match s.failover {
                        Failover::Monitoring if s.sdown => "none, sees the primary down".to_string(),
                        Failover::Monitoring => "none, monitoring".to_string(),
                        Failover::Voting { votes } => format!("asks for votes, has {}", votes.count_ones()),
                        Failover::Electing => "elected, selecting a replica".to_string(),
                        Failover::Promoting { replica } => format!("promoting {}", name(replica)),
                    },
                ),
            ],
            State::Sentinel(s) => vec![
                show::field("epoch", s.epoch),
                show::field("primary", name(s.primary)),
                show::field(
                    "failover",
                    match s.failover {
                        Failover::Monitoring => "none, monitoring".to_string(),
                        Failover::Voting { .. } | Failover::Electing => "electing a replica".to_string(),
                        Failover::Promoting { replica } => format!("promoting {}", name(replica)),
                    },
                ),
            ],
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field("talks to", name(c.primary)));
                out.push(show::field(field::VALUE, show::value(c.value)));
                if self.wait() && !self.params().pipeline {
                    out.push(show::field("WAIT sent", show::yes(c.waiting)));
                }
                if self.validity() {
                    out.push(show::field(field::VALIDITY_CHECKED, show::yes(c.checked)));
                }
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                out
            }
            State::Resource(r) => r.show(None),
        })
    }
}
