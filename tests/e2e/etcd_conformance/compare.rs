//! The answers and the state compared, and one case run from its first request to its last.

use std::time::{Duration, Instant};

use locksmith::algorithms::etcd_lease::Msg;

use super::cases::Op;
use super::{real_ttl, ticks_left, Answer, Check, Outcome, Run, PREFIX, SESSIONS};

impl<'a> Run<'a> {
    pub(super) fn model_rev(&self, real_rev: i64) -> Result<u32, String> {
        u32::try_from(real_rev - self.base)
            .map_err(|_| format!("real revision {real_rev} below the base {}", self.base))
    }

    pub(super) fn model_answer(&self, answers: &[Msg]) -> Result<Answer, String> {
        Ok(match answers {
            [] => Answer::Unanswered,
            [Msg::LeaseGranted { .. }] => Answer::Granted {
                ttl: real_ttl(self.case.ttl),
            },
            [Msg::KeepAliveAnswer { alive, .. }] => Answer::KeepAlive {
                ttl: Some(if *alive { real_ttl(self.case.ttl) } else { 0 }),
            },
            [Msg::Locked { rev, pred, .. }] => Answer::Locked { rev: *rev, pred: *pred },
            [Msg::LeaseNotFound { .. }] => Answer::LeaseNotFound,
            [Msg::RangeAnswer { pred, mine, .. }] => Answer::Range {
                pred: *pred,
                mine: *mine,
            },
            [Msg::Unlocked { .. }] => Answer::Unlocked,
            more => return Err(format!("the model answered {more:?}")),
        })
    }

    /// The watch events since the last look: the sessions whose pending
    /// watch saw its key deleted, on both sides.
    fn compare_events(&mut self) -> Check {
        let mut model: Vec<usize> = Vec::new();
        for msg in self.m.answers() {
            let Msg::Deleted { id, key } = msg else {
                return Err(format!("the model sent {msg:?} unasked"));
            };
            let s = self
                .sessions
                .iter()
                .position(|s| s.model_id == id && s.watching && s.pred.as_ref().is_some_and(|p| p.0 == key));
            match s {
                Some(s) => model.push(s),
                None => {
                    return Err(format!(
                        "the model sent a DELETE of {key} to lease {id}, which watches nothing"
                    ))
                }
            }
        }
        model.sort_unstable();
        let mut real = Vec::new();
        for s in 0..SESSIONS {
            let Some(w) = self.sessions[s].watch else {
                continue;
            };
            let key = self.sessions[s].pred.as_ref().map(|p| p.1.clone()).unwrap_or_default();
            // An event the model sent is waited for a while; otherwise only
            // what is already there is taken.
            let wait = Duration::from_millis(if model.contains(&s) { 400 } else { 2 });
            let events = self.real().watch_events(w, wait).map_err(|e| e.to_string())?;
            if events.iter().any(|e| e.delete && e.key == key) {
                real.push(s);
                self.real().cancel_watch(w);
                self.sessions[s].watch = None;
            }
        }
        for &s in &model {
            self.sessions[s].watching = false;
        }
        self.log
            .push(format!("  DELETE events: real {real:?}, model {model:?}"));
        if real == model {
            Ok(())
        } else {
            Err(format!(
                "watch DELETE events (sessions): etcd {real:?}, the model {model:?}"
            ))
        }
    }

    /// The store, the leases and their TTLs left, on both sides.
    fn compare_state(&mut self) -> Check {
        let (keys, revision) = self.real().range_by_create(PREFIX).map_err(|e| e.to_string())?;
        let mut real_keys = Vec::new();
        for k in &keys {
            let lease = *self.leases.get(&k.lease).ok_or(format!("{k:?}: an unknown lease"))?;
            if Run::key_of(k.lease) != k.key {
                return Err(format!("{k:?} is not attached to its own lease"));
            }
            real_keys.push((lease, self.model_rev(k.create_revision)?));
        }
        let sv = self.m.server();
        let model_keys: Vec<(u32, u32)> = sv.keys.iter().map(|k| (k.lease, k.create)).collect();
        let model_revision = sv.revision;
        let mut model_leases: Vec<u32> = sv.leases.iter().map(|l| l.id).collect();
        model_leases.sort_unstable();
        let real_revision = self.model_rev(revision)?;
        let mut real_leases = Vec::new();
        for id in self.real().leases().map_err(|e| e.to_string())? {
            real_leases.push(*self.leases.get(&id).ok_or(format!("an unknown lease {id:x}"))?);
        }
        real_leases.sort_unstable();
        let mut ttls = Vec::new();
        for &id in &model_leases {
            let rid = *self
                .leases
                .iter()
                .find(|(_, &m)| m == id)
                .map(|(r, _)| r)
                .expect("mapped");
            let secs = self.real().time_to_live(rid).map_err(|e| e.to_string())?;
            ttls.push((id, secs.map(ticks_left), self.m.ttl_left(id).map(u32::from)));
        }
        self.log.push(format!(
            "  revision real {real_revision} model {model_revision}; keys real {real_keys:?} model {model_keys:?}; leases real {real_leases:?} model {model_leases:?}; ticks left (lease, real, model) {ttls:?}"
        ));
        if real_revision != model_revision {
            return Err(format!(
                "revision: etcd {real_revision}, the model {model_revision} (both from 0)"
            ));
        }
        if real_keys != model_keys {
            return Err(format!(
                "keys (lease, create revision): etcd {real_keys:?}, the model {model_keys:?}"
            ));
        }
        if real_leases != model_leases {
            return Err(format!("leases: etcd {real_leases:?}, the model {model_leases:?}"));
        }
        if let Some(t) = ttls.iter().find(|(_, r, m)| r != m) {
            return Err(format!(
                "ticks left on lease {}: etcd {:?}, the model {:?}",
                t.0, t.1, t.2
            ));
        }
        Ok(())
    }

    /// Whether the op can run now (a session's request needs what its
    /// earlier ones gave it); one that cannot is skipped.
    fn applies(&self, op: Op) -> bool {
        match op {
            Op::Grant(s) => self.sessions[s].watch.is_none() && !self.sessions[s].watching,
            Op::KeepAlive(s) | Op::Revoke(s) | Op::Lock(s) => self.sessions[s].model_id != 0,
            Op::Range(s) | Op::Unlock(s) => self.sessions[s].real_rev != 0,
            // Not on a key created again since the query that named it
            // (module doc, "Abstractions").
            Op::Watch(s) => {
                let ses = &self.sessions[s];
                let created_again = |&(pred, _, header): &(u32, String, i64)| {
                    self.sessions.iter().any(|q| q.model_id == pred && q.real_rev > header)
                };
                ses.pred.as_ref().is_some_and(|p| !created_again(p)) && ses.watch.is_none() && !ses.watching
            }
            Op::Wait(_) | Op::Drop(_) => true,
        }
    }

    pub(super) fn run(&mut self) -> Result<Outcome, String> {
        self.base = self.real().revision().map_err(|e| e.to_string())? - i64::from(self.m.server().revision);
        self.start = Instant::now();
        for &op in &self.case.ops {
            if !self.applies(op) {
                continue;
            }
            self.log.push(format!("tick {}: {op:?}", self.now));
            match op {
                Op::Wait(n) => {
                    self.tick(n);
                    self.wait_for_grid();
                }
                Op::Drop(n) => {
                    // The connection goes, with its watch and keep-alive
                    // streams; what the model's server sends meanwhile is
                    // lost with it.
                    self.client = None;
                    for s in &mut self.sessions {
                        s.watch = None;
                    }
                    self.m.answers();
                    for _ in 0..n {
                        self.tick(1);
                        self.m.answers();
                    }
                    self.wait_for_grid();
                    self.client = Some(self.server.connect().map_err(|e| e.to_string())?);
                    // clientv3 resumes each watch from its revision; the
                    // model's client sends its Watch again.
                    for s in 0..SESSIONS {
                        if !self.sessions[s].watching {
                            continue;
                        }
                        let ses = self.sessions[s].clone();
                        let (pred, key, header) = ses.pred.expect("a watch has a predecessor");
                        let answers = self.m.request(Msg::Watch {
                            id: ses.model_id,
                            key: pred,
                        });
                        if !answers.is_empty() {
                            return Err(self.differ(format!("the model answered a watch with {answers:?}")));
                        }
                        let w = self.real().watch(&key, header).map_err(|e| e.to_string())?;
                        self.sessions[s].watch = Some(w);
                    }
                }
                _ => self.command(op).map_err(|e| self.differ(e))?,
            }
            let compared = self.compare_events().and_then(|()| self.compare_state());
            // Lateness is judged before the comparison: a tick whose work
            // ended late may have read the real side past an expiry the
            // model places at the next grid point (a loaded machine once
            // saw such a DELETE event "early"), so it proves nothing.
            if !self.on_time() {
                self.log.push(format!(
                    "  answered {} ms after its tick: the case stops here{}",
                    (Instant::now() - self.grid()).as_millis(),
                    compared
                        .as_ref()
                        .err()
                        .map_or(String::new(), |e| format!(" (uncompared: {e})"))
                ));
                return Ok(Outcome::Late);
            }
            compared.map_err(|e| self.differ(e))?;
        }
        Ok(Outcome::Complete)
    }
}
