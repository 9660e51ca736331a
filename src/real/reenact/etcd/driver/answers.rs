//! Answers: etcd's held answer handed over when the trace delivers the
//! model's, and compared in what the client's logic decides on.

use std::time::{Duration, Instant};

use super::{key_of, Driver, Kind, Real};
use crate::algorithms::client::Phase;
use crate::algorithms::etcd_lease::{Msg, Node, Stage};
use crate::real::reenact::etcd::plan;
use crate::world::{Id, WorldState};

/// How long a DELETE event the model delivers may take to show on the
/// real watch (etcd notifies watchers within milliseconds of the delete).
const EVENT_WAIT: Duration = Duration::from_millis(500);

impl Driver<'_> {
    /// The model's answer reaches client `c`: the driver hands over etcd's
    /// held answer and compares what the client's logic decides on.
    pub(super) fn hand_over(
        &mut self,
        c: usize,
        node: Id,
        msg: &Msg,
        before: &WorldState<Node>,
        after: &WorldState<Node>,
    ) -> String {
        let name = format!("c{}", c + 1);
        if self.clients[c].down {
            return format!("{name} is down: nothing is handed over");
        }
        let m = plan::client(before, node).copied();
        let acquiring = |stage| m.is_some_and(|m| m.script.phase == Phase::Acquiring && m.stage == stage);
        let current = |id: u32| m.is_some_and(|m| m.lease == id && id != 0);
        let (kind, id, used) = match *msg {
            Msg::LeaseGranted { id } => (Kind::Grant, id, current(id) && acquiring(Stage::Grant)),
            Msg::KeepAliveAnswer { id, .. } => (Kind::KeepAlive, id, current(id)),
            Msg::Locked { id, .. } | Msg::LeaseNotFound { id } => {
                (Kind::Lock, id, current(id) && acquiring(Stage::Put))
            }
            Msg::RangeAnswer { id, .. } => (Kind::Range, id, current(id) && acquiring(Stage::Range)),
            Msg::Unlocked { id } => (Kind::Unlock, id, current(id)),
            Msg::Deleted { id, key } => {
                let used = current(id) && acquiring(Stage::Watch) && m.is_some_and(|m| m.pred == key);
                return self.event(c, used);
            }
            _ => return "nothing real".into(),
        };
        let Some(i) = self.clients[c].held.iter().position(|(k, i, _)| *k == kind && *i == id) else {
            let what = format!("no real answer is held for {name} (the trace delivers {msg:?})");
            return if used { self.differs(c, what) } else { what };
        };
        let (_, _, real) = self.clients[c].held.remove(i);
        if !used {
            return format!("{name} receives {real:?}: an answer to an earlier request, which its logic ignores (as the model's does)");
        }
        self.compare(c, node, msg, real, after)
    }

    /// Compares etcd's answer `real` with the model's `msg`, in what the
    /// client's logic decides on, and acts on the real one.
    fn compare(&mut self, c: usize, node: Id, msg: &Msg, real: Real, after: &WorldState<Node>) -> String {
        let name = format!("c{}", c + 1);
        let now = Instant::now();
        match (msg, real) {
            (_, Real::Failed(e)) => {
                self.differs(c, format!("the request failed ({e}); the trace's client got {msg:?}"))
            }
            (Msg::LeaseGranted { .. }, Real::Granted { real, ttl }) => {
                if self.validity() {
                    self.clients[c].valid_until = Some(now + self.validity_window());
                }
                format!("{name} receives lease {real:x} granted, TTL {ttl} s (as the trace says)")
            }
            (Msg::KeepAliveAnswer { alive, .. }, Real::KeepAlive(ttl)) => {
                let real_alive = ttl != Some(0);
                if self.validity() {
                    if real_alive {
                        self.clients[c].valid_until = Some(now + self.validity_window());
                    } else if self.clients[c].checked != Some(true) {
                        self.clients[c].gave_up = true;
                    }
                }
                let said = ttl.map_or("alive".to_string(), |t| format!("TTL {t}"));
                if real_alive == *alive {
                    format!("{name} receives {said} (as the trace says)")
                } else {
                    let d = self.differs(
                        c,
                        format!("etcd says {said}, the trace {}", if *alive { "alive" } else { "TTL 0" }),
                    );
                    format!("{name} receives {said}; {d}")
                }
            }
            (Msg::Locked { id, pred, .. }, Real::Locked { rev, pred: real_pred }) => {
                self.locked(c, *id, *pred, rev, real_pred)
            }
            (Msg::LeaseNotFound { .. }, Real::LeaseNotFound) => {
                format!("{name} receives requested lease not found (as the trace says)")
            }
            (
                Msg::RangeAnswer { pred, mine, .. },
                Real::Range {
                    pred: real_pred,
                    mine: real_mine,
                },
            ) => self.range(c, node, (*pred, *mine), (real_pred, real_mine), after),
            (Msg::Unlocked { .. }, Real::Unlocked { deleted }) => {
                format!(
                    "{name} receives the unlock's answer (etcd {})",
                    if deleted { "deleted its key" } else { "deleted nothing" }
                )
            }
            (_, real) => self.differs(c, format!("etcd answered {real:?}, the trace delivers {msg:?}")),
        }
    }

    /// The lock transaction's answer: etcd's revision and predecessor,
    /// kept for the client's later requests; the same "first or not" as
    /// the model's.
    fn locked(&mut self, c: usize, id: u32, pred: u32, real_rev: i64, real_pred: Option<(String, i64)>) -> String {
        let name = format!("c{}", c + 1);
        let key = self.leases.get(&id).map(|&r| key_of(r)).unwrap_or_default();
        let cl = &mut self.clients[c];
        cl.key = key;
        cl.rev = real_rev;
        cl.pred = real_pred.clone();
        let said = match &real_pred {
            None => format!("created at revision {real_rev}, no key before it"),
            Some((p, _)) => format!("created at revision {real_rev}, predecessor {p}"),
        };
        let mut out = format!("{name} receives {said}");
        if (pred == 0) == real_pred.is_none() {
            out.push_str(if pred == 0 {
                " (first, as the trace says)"
            } else {
                " (not first, as the trace says)"
            });
            out
        } else {
            let d = self.differs(
                c,
                format!(
                    "the trace says {}",
                    if pred == 0 { "no key before it" } else { "a predecessor" }
                ),
            );
            format!("{out}; {d}")
        }
    }

    /// `waitDeletes`'s query again: the same predecessor (or none) and own
    /// key as the model's; then the real configuration's logic on it.
    fn range(
        &mut self,
        c: usize,
        node: Id,
        (pred, mine): (u32, bool),
        (real_pred, real_mine): (Option<(String, i64)>, bool),
        after: &WorldState<Node>,
    ) -> String {
        let name = format!("c{}", c + 1);
        self.clients[c].pred = real_pred.clone();
        let said = format!(
            "predecessor {}, own key {}",
            real_pred.as_ref().map_or("none", |p| p.0.as_str()),
            if real_mine { "exists" } else { "gone" }
        );
        if (pred == 0) != real_pred.is_none() || mine != real_mine {
            let d = self.differs(
                c,
                format!(
                    "the trace says predecessor {}, own key {}",
                    if pred == 0 { "none" } else { "some" },
                    if mine { "exists" } else { "gone" }
                ),
            );
            return format!("{name} receives {said}; {d}");
        }
        // The real configuration's logic on the same answer.
        let real_holds = real_pred.is_none() && (real_mine || !self.cfg.p.key_check);
        let model_holds = plan::client(after, node).is_some_and(|m| m.script.phase == Phase::Holding);
        if real_pred.is_none() && real_holds != model_holds {
            self.clients[c].gave_up = !real_holds;
            return format!(
                "{name} receives {said} (as the trace says); the real configuration's client {} (key_check = {})",
                if real_holds {
                    "would hold"
                } else {
                    "starts over: its session expired"
                },
                self.cfg.p.key_check
            );
        }
        format!("{name} receives {said} (as the trace says)")
    }

    /// The model delivers a watch's DELETE event: the real watch must have
    /// received it.
    fn event(&mut self, c: usize, used: bool) -> String {
        let name = format!("c{}", c + 1);
        let (watch, pred) = (self.clients[c].watch, self.clients[c].pred.clone());
        let (Some(w), Some((key, _))) = (watch, pred) else {
            let what = format!("{name} has no real watch that could see this DELETE");
            return if used { self.differs(c, what) } else { what };
        };
        let Some(conn) = self.clients[c].conn.as_mut() else {
            let what = format!("{name} has no connection");
            return if used { self.differs(c, what) } else { what };
        };
        match conn.watch_events(w, EVENT_WAIT) {
            Ok(events) if events.iter().any(|e| e.delete && e.key == key) => {
                let rev = events.iter().find(|e| e.delete).map_or(0, |e| e.mod_revision);
                conn.cancel_watch(w);
                self.clients[c].watch = None;
                format!("{name}'s real watch received DELETE {key} at revision {rev} (as the trace says)")
            }
            Ok(events) => {
                let what = format!("{name}'s real watch has no DELETE of {key} (events: {events:?})");
                if used {
                    self.differs(c, what)
                } else {
                    what
                }
            }
            Err(e) => {
                let what = format!("{name}'s real watch failed: {e}");
                if used {
                    self.differs(c, what)
                } else {
                    what
                }
            }
        }
    }
}
