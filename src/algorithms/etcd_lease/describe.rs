//! The etcd family's words: its messages, steps, timers and states as
//! traces and reports show them.

use super::{Msg, Node, Stage, State, Step, Timer, Unlock};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::LeaseGrant { id } => format!("LeaseGrant TTL {} ID {id}", self.params().ttl),
            Msg::LeaseKeepAlive { id } => format!("LeaseKeepAlive {id}"),
            Msg::LeaseRevoke { id } => format!("LeaseRevoke {id}"),
            // As etcd's concurrency.Mutex sends it (its key is the prefix and
            // the lease ID), with the newest key created before this one.
            Msg::Lock { id } => format!(
                "Txn If(CreateRevision(/lock/{id}) = 0) Then(Put(/lock/{id}, WithLease({id}))) Else(Get(/lock/{id})), \
                 with the newest /lock/ key before it"
            ),
            Msg::Watch { id, key } => format!("Watch /lock/{key} for DELETE (for lease {id})"),
            Msg::Range { id, rev } => format!(
                "Txn Then(Get(/lock/, WithLastCreate(), WithMaxCreateRev({})), Get(/lock/{id}))",
                rev.saturating_sub(1)
            ),
            Msg::Unlock { id, .. } if self.params().unlock == Unlock::Delete => format!("Delete(/lock/{id})"),
            Msg::Unlock { id, rev } => {
                format!("Txn If(CreateRevision(/lock/{id}) = {rev}) Then(Delete(/lock/{id}))")
            }
            Msg::LeaseGranted { id } => format!("lease {id} granted, TTL {}", self.params().ttl),
            Msg::KeepAliveAnswer { id, alive } => {
                let ttl = if *alive { self.params().ttl } else { 0 };
                format!("lease {id} TTL {ttl}")
            }
            Msg::Locked { id, rev, pred, .. } if *pred == 0 => {
                format!("/lock/{id} created at revision {rev}, no key before it")
            }
            Msg::Locked { id, rev, pred, .. } => {
                format!("/lock/{id} created at revision {rev}, predecessor /lock/{pred}")
            }
            Msg::LeaseNotFound { id } => format!("lease {id} not found"),
            Msg::Deleted { key, .. } => format!("DELETE /lock/{key}"),
            Msg::RangeAnswer { id, pred, mine } => {
                let pred = if *pred == 0 {
                    "none".to_string()
                } else {
                    format!("/lock/{pred}")
                };
                let mine = if *mine { "exists" } else { "gone" };
                format!("predecessor {pred}, /lock/{id} {mine}")
            }
            Msg::Unlocked { id } => format!("unlock of /lock/{id} done"),
            Msg::Resource(ResourceMsg::Write { token, ghost }) if *token > 0 => {
                format!("write (revision {token}, acquisition {})", show::ghost(*ghost))
            }
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => format!("asks for the lock: LeaseGrant TTL {}", self.params().ttl),
            Step::Check => "checks its validity".into(),
            Step::Write => "writes to the resource".into(),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::LeaseExpiry { slot } => format!("lease expiry (slot {slot})"),
            Timer::Timeout => "request timeout".to_string(),
            Timer::KeepAlive => "keep-alive".to_string(),
            Timer::Validity => "validity".to_string(),
            Timer::Retry => "retry".to_string(),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        fn set(items: impl Iterator<Item = String>) -> String {
            format!("{{{}}}", items.collect::<Vec<_>>().join(", "))
        }
        let num = |v: u32| if v == 0 { "none".to_string() } else { v.to_string() };
        Some(match state {
            State::Server(s) => vec![
                ("revision".into(), s.revision.to_string()),
                ("leases".into(), set(s.leases.iter().map(|l| l.id.to_string()))),
                (
                    "keys".into(),
                    set(s.keys.iter().map(|k| format!("/lock/{} at {}", k.lease, k.create))),
                ),
                (
                    "watches".into(),
                    set(s
                        .watches
                        .iter()
                        .map(|w| format!("{} on /lock/{}", names[w.watcher], w.key))),
                ),
            ],
            State::Client(c) => {
                let stage = match (c.script.phase, c.stage) {
                    (Phase::Acquiring, Stage::Grant) => "granting a lease",
                    (Phase::Acquiring, Stage::Put) => "putting its key",
                    (Phase::Acquiring, Stage::Watch) => "watching its predecessor",
                    (Phase::Acquiring, Stage::Range) => "looking for a predecessor",
                    _ => "idle",
                };
                let mut v = show::script(&c.script);
                v.push(show::field(field::RECIPE_STEP, stage));
                v.push(show::field("lease", num(c.lease)));
                v.push(show::field("revision", num(c.rev)));
                if self.params().validity() {
                    v.push(show::field(field::VALIDITY_CHECKED, show::yes(c.checked)));
                }
                v.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                v
            }
            State::Resource(r) => {
                let rev = |t: u32| format!("revision {t}");
                r.show(self.params().fencing.then_some(&rev as &dyn Fn(u32) -> String))
            }
        })
    }
}
