//! Driving both sides: the real client, the model, the tick grid, and one request run on both.

use std::thread::sleep;
use std::time::Instant;

use locksmith::algorithms::etcd_lease::Msg;
use locksmith::real::etcd::EtcdClient;

use super::cases::Op;
use super::{real_ttl, Answer, Check, Run, Session, PREFIX, TICK};

impl<'a> Run<'a> {
    pub(super) fn real(&mut self) -> &mut EtcdClient {
        self.client.as_mut().expect("connected")
    }

    pub(super) fn key_of(real_id: i64) -> String {
        format!("{PREFIX}{real_id:x}")
    }

    fn model_of(&self, real_key: &str) -> Result<u32, String> {
        let hex = real_key.strip_prefix(PREFIX).ok_or("a key outside /lock/")?;
        let id = i64::from_str_radix(hex, 16).map_err(|e| format!("key {real_key}: {e}"))?;
        self.leases
            .get(&id)
            .copied()
            .ok_or_else(|| format!("key {real_key} of a lease the test never granted"))
    }

    pub(super) fn grid(&self) -> Instant {
        self.start + TICK * self.now
    }

    pub(super) fn wait_for_grid(&self) {
        let at = self.grid();
        let now = Instant::now();
        if at > now {
            sleep(at - now);
        }
    }

    /// Whether everything so far in this tick was answered within 3/8 of
    /// a tick, and every lease refresh within 1/8 (module doc).
    pub(super) fn on_time(&self) -> bool {
        Instant::now() <= self.grid() + TICK * 3 / 8 && !self.late_refresh
    }

    /// A grant or keep-alive just answered: was it within 1/8 tick?
    fn refreshed(&mut self) {
        if Instant::now() > self.grid() + TICK / 8 {
            self.late_refresh = true;
        }
    }

    pub(super) fn differ(&self, what: String) -> String {
        format!(
            "case \"{}\" (ttl {} ticks = {} s, unlock {}):\n{what}\nlog:\n{}",
            self.case.name,
            self.case.ttl,
            real_ttl(self.case.ttl),
            if self.case.delete {
                "delete"
            } else {
                "compare-and-delete"
            },
            self.log.join("\n")
        )
    }

    pub(super) fn tick(&mut self, n: u32) {
        for _ in 0..n {
            self.now += 1;
            self.m.tick();
        }
    }

    /// Runs one request on both sides and compares the answers.
    pub(super) fn command(&mut self, op: Op) -> Check {
        let (model_answers, real) = match op {
            Op::Grant(s) => {
                let id = self.next_id;
                self.next_id += 1;
                let answers = self.m.request(Msg::LeaseGrant { id });
                let want = real_ttl(self.case.ttl);
                let (rid, ttl) = self.real().lease_grant(want).map_err(|e| e.to_string())?;
                self.refreshed();
                self.leases.insert(rid, id);
                if let Some(w) = self.sessions[s].watch {
                    self.real().cancel_watch(w);
                }
                self.sessions[s] = Session {
                    model_id: id,
                    real_id: rid,
                    ..Session::default()
                };
                (answers, Answer::Granted { ttl })
            }
            Op::KeepAlive(s) => {
                let (id, rid) = (self.sessions[s].model_id, self.sessions[s].real_id);
                let answers = self.m.request(Msg::LeaseKeepAlive { id });
                let ttl = self.real().keep_alive(rid).map_err(|e| e.to_string())?;
                self.refreshed();
                (answers, Answer::KeepAlive { ttl })
            }
            Op::Revoke(s) => {
                let (id, rid) = (self.sessions[s].model_id, self.sessions[s].real_id);
                let answers = self.m.request(Msg::LeaseRevoke { id });
                let r = self.real().lease_revoke(rid);
                self.log.push(format!("  real revoke: {r:?}"));
                if let Err(e) = &r {
                    if !e.to_string().contains("lease not found") {
                        return Err(format!("LeaseRevoke: {e}"));
                    }
                }
                (answers, Answer::Unanswered)
            }
            Op::Lock(s) => {
                let (id, rid) = (self.sessions[s].model_id, self.sessions[s].real_id);
                let answers = self.m.request(Msg::Lock { id });
                let key = Run::key_of(rid);
                let real = match self.real().mutex_try_acquire(PREFIX, &key, rid) {
                    Err(e) if e.to_string().contains("lease not found") => Answer::LeaseNotFound,
                    Err(e) => return Err(format!("lock transaction: {e}")),
                    Ok(acq) => {
                        self.log.push(format!("  real {acq:?}"));
                        let me = acq.owner.as_ref().is_none_or(|o| o.create_revision == acq.my_rev);
                        let pred = if me {
                            0
                        } else {
                            let (p, header) = self
                                .real()
                                .last_created_before(PREFIX, acq.my_rev - 1)
                                .map_err(|e| e.to_string())?;
                            let p = p.ok_or("an owner older than the key, but no predecessor")?;
                            let model_pred = self.model_of(&p.key)?;
                            self.sessions[s].pred = Some((model_pred, p.key, header));
                            model_pred
                        };
                        if me {
                            self.sessions[s].pred = None;
                        }
                        self.sessions[s].real_rev = acq.my_rev;
                        Answer::Locked {
                            rev: self.model_rev(acq.my_rev)?,
                            pred,
                        }
                    }
                };
                if let [Msg::Locked { rev, .. }] = answers.as_slice() {
                    self.sessions[s].model_rev = *rev;
                }
                (answers, real)
            }
            Op::Range(s) => {
                let ses = self.sessions[s].clone();
                let answers = self.m.request(Msg::Range {
                    id: ses.model_id,
                    rev: ses.model_rev,
                });
                let (p, header) = self
                    .real()
                    .last_created_before(PREFIX, ses.real_rev - 1)
                    .map_err(|e| e.to_string())?;
                let (mine, _) = self.real().get(&Run::key_of(ses.real_id)).map_err(|e| e.to_string())?;
                let pred = match p {
                    Some(p) => {
                        let model_pred = self.model_of(&p.key)?;
                        self.sessions[s].pred = Some((model_pred, p.key, header));
                        model_pred
                    }
                    None => {
                        self.sessions[s].pred = None;
                        0
                    }
                };
                (
                    answers,
                    Answer::Range {
                        pred,
                        mine: mine.is_some(),
                    },
                )
            }
            Op::Watch(s) => {
                let ses = self.sessions[s].clone();
                let (pred, key, header) = ses.pred.clone().expect("checked by the caller");
                let answers = self.m.request(Msg::Watch {
                    id: ses.model_id,
                    key: pred,
                });
                let w = self.real().watch(&key, header).map_err(|e| e.to_string())?;
                self.sessions[s].watch = Some(w);
                self.sessions[s].watching = true;
                // Its event, if any, is compared with the others'.
                (answers, Answer::Unanswered)
            }
            Op::Unlock(s) => {
                let ses = self.sessions[s].clone();
                let answers = self.m.request(Msg::Unlock {
                    id: ses.model_id,
                    rev: ses.model_rev,
                });
                let key = Run::key_of(ses.real_id);
                let r = if self.case.delete {
                    self.real().delete(&key).map(|(n, _)| n == 1)
                } else {
                    self.real().delete_if_created(&key, ses.real_rev).map(|(ok, _)| ok)
                };
                self.log.push(format!("  real deleted: {r:?}"));
                r.map_err(|e| e.to_string())?;
                (answers, Answer::Unlocked)
            }
            Op::Wait(_) | Op::Drop(_) => unreachable!("not a request"),
        };
        let model = self.model_answer(&model_answers)?;
        self.log.push(format!("  real {real:?}, model {model:?}"));
        let same = match (&real, &model) {
            // The stream's first keep-alive: only "alive" is known.
            (Answer::KeepAlive { ttl: None }, Answer::KeepAlive { ttl: Some(t) }) => *t > 0,
            _ => real == model,
        };
        if same {
            Ok(())
        } else {
            Err(format!("{op:?} answered {real:?} by etcd, {model:?} by the model"))
        }
    }
}
