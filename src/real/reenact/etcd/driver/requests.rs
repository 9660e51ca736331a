//! Requests: each sent to the real etcd at the step where the trace
//! delivers it, on the client's own connection, its answer held.

use std::time::Instant;

use super::{key_of, Driver, Kind, Real, PREFIX};
use crate::algorithms::etcd_lease::{Msg, Unlock};

impl Driver<'_> {
    /// A request reaches etcd: the driver sends it now and holds the answer.
    pub(super) fn send(&mut self, k: usize, c: usize, msg: &Msg) -> String {
        let ttl = self.cfg.real_ttl;
        let name = format!("c{}", c + 1);
        match *msg {
            Msg::LeaseGrant { id } => {
                let r = self.conn(c).and_then(|x| x.lease_grant(ttl).map_err(|e| e.to_string()));
                match r {
                    Ok((real, granted)) => {
                        self.leases.insert(id, real);
                        self.refreshed.insert(real, Instant::now());
                        self.hold(c, Kind::Grant, id, Real::Granted { real, ttl: granted });
                        format!("{name} → etcd: LeaseGrant TTL {ttl} s; etcd grants lease {real:x} (TTL {granted} s) for the model's lease {id} (held until the trace delivers it)")
                    }
                    Err(e) => self.hold_failure(c, Kind::Grant, id, format!("LeaseGrant failed: {e}")),
                }
            }
            Msg::LeaseKeepAlive { id } => {
                let Some(real) = self.leases.get(&id).copied() else {
                    return self.hold_failure(
                        c,
                        Kind::KeepAlive,
                        id,
                        format!("no real lease for the model's lease {id}"),
                    );
                };
                let sent = Instant::now();
                let r = self.conn(c).and_then(|x| x.keep_alive(real).map_err(|e| e.to_string()));
                match r {
                    Ok(ttl) => {
                        if ttl != Some(0) {
                            self.refreshed.insert(real, sent);
                        }
                        self.hold(c, Kind::KeepAlive, id, Real::KeepAlive(ttl));
                        let said = match ttl {
                            None => "alive (the stream's first answer: TTL not reported)".to_string(),
                            Some(t) => format!("TTL {t}"),
                        };
                        format!("{name} → etcd: LeaseKeepAlive {real:x}; etcd answers {said} (held)")
                    }
                    Err(e) => self.hold_failure(c, Kind::KeepAlive, id, format!("LeaseKeepAlive failed: {e}")),
                }
            }
            Msg::LeaseRevoke { id } => {
                let Some(real) = self.leases.get(&id).copied() else {
                    return format!("no real lease for the model's lease {id}: nothing to revoke");
                };
                let r = self
                    .conn(c)
                    .and_then(|x| x.lease_revoke(real).map_err(|e| e.to_string()));
                match r {
                    Ok(rev) => format!("{name} → etcd: LeaseRevoke {real:x}; revoked (revision {rev}); not waited for, as Session.Close"),
                    Err(e) => format!("{name} → etcd: LeaseRevoke {real:x}: {e} (not waited for)"),
                }
            }
            Msg::Lock { id } => self.lock(c, id),
            Msg::Watch { id, key } => {
                let Some((pred, header)) = self.clients[c].pred.clone() else {
                    return format!("{name} → etcd: nothing to watch: etcd's answers named no predecessor (the model's: lease {key}, for lease {id})");
                };
                let r = self
                    .conn(c)
                    .and_then(|x| x.watch(&pred, header).map_err(|e| e.to_string()));
                match r {
                    Ok(w) => {
                        self.clients[c].watch = Some(w);
                        format!("{name} → etcd: Watch {pred} from revision {header}; created")
                    }
                    Err(e) => format!("{name} → etcd: Watch {pred} failed: {e}"),
                }
            }
            Msg::Range { id, .. } => {
                let Some(real) = self.leases.get(&id).copied() else {
                    return self.hold_failure(c, Kind::Range, id, format!("no real lease for the model's lease {id}"));
                };
                let my_rev = self.clients[c].rev;
                if my_rev == 0 {
                    return self.hold_failure(c, Kind::Range, id, "etcd gave this attempt no key to look below".into());
                }
                let key = key_of(real);
                let r = self.conn(c).and_then(|x| {
                    let (p, header) = x.last_created_before(PREFIX, my_rev - 1).map_err(|e| e.to_string())?;
                    let (mine, _) = x.get(&key).map_err(|e| e.to_string())?;
                    Ok((p.map(|p| (p.key, header)), mine.is_some()))
                });
                match r {
                    Ok((pred, mine)) => {
                        let said = format!(
                            "predecessor {}, {key} {}",
                            pred.as_ref().map_or("none", |p| p.0.as_str()),
                            if mine { "exists" } else { "gone" }
                        );
                        self.hold(c, Kind::Range, id, Real::Range { pred, mine });
                        format!("{name} → etcd: Get {PREFIX} last created at or before revision {}, Get {key}; etcd answers {said} (held)", my_rev - 1)
                    }
                    Err(e) => self.hold_failure(c, Kind::Range, id, format!("the range reads failed: {e}")),
                }
            }
            Msg::Unlock { id, .. } => self.unlock(k, c, id),
            _ => "nothing real".into(),
        }
    }

    fn hold(&mut self, c: usize, kind: Kind, id: u32, real: Real) {
        self.clients[c].held.push((kind, id, real));
    }

    fn hold_failure(&mut self, c: usize, kind: Kind, id: u32, what: String) -> String {
        self.hold(c, kind, id, Real::Failed(what.clone()));
        format!("c{} → etcd: {what}", c + 1)
    }

    /// `Mutex.tryAcquire`'s transaction, and `waitDeletes`'s first query
    /// when the key is not the first.
    fn lock(&mut self, c: usize, id: u32) -> String {
        let name = format!("c{}", c + 1);
        let Some(real) = self.leases.get(&id).copied() else {
            return self.hold_failure(c, Kind::Lock, id, format!("no real lease for the model's lease {id}"));
        };
        let key = key_of(real);
        let r = self.conn(c).and_then(|x| {
            let acq = match x.mutex_try_acquire(PREFIX, &key, real) {
                Err(e) if e.to_string().contains("lease not found") => return Ok(None),
                Err(e) => return Err(e.to_string()),
                Ok(a) => a,
            };
            let first = acq.owner.as_ref().is_none_or(|o| o.create_revision == acq.my_rev);
            let pred = if first {
                None
            } else {
                let (p, header) = x
                    .last_created_before(PREFIX, acq.my_rev - 1)
                    .map_err(|e| e.to_string())?;
                p.map(|p| (p.key, header))
            };
            Ok(Some((acq.my_rev, pred)))
        });
        match r {
            Ok(None) => {
                self.hold(c, Kind::Lock, id, Real::LeaseNotFound);
                format!(
                    "{name} → etcd: Txn put {key} with lease {real:x}; etcd answers requested lease not found (held)"
                )
            }
            Ok(Some((rev, pred))) => {
                let said = match &pred {
                    None => "no key before it".to_string(),
                    Some((p, _)) => format!("predecessor {p}"),
                };
                self.hold(c, Kind::Lock, id, Real::Locked { rev, pred });
                format!("{name} → etcd: Txn if create_revision({key}) = 0 then put {key} lease {real:x}, get first {PREFIX}; etcd: created at revision {rev}, {said} (held)")
            }
            Err(e) => self.hold_failure(c, Kind::Lock, id, format!("the lock transaction failed: {e}")),
        }
    }

    /// The unlock, as the real configuration does it.
    fn unlock(&mut self, k: usize, c: usize, id: u32) -> String {
        let name = format!("c{}", c + 1);
        let Some(real) = self.leases.get(&id).copied() else {
            return self.hold_failure(c, Kind::Unlock, id, format!("no real lease for the model's lease {id}"));
        };
        let (key, rev) = (key_of(real), self.clients[c].rev);
        let delete = self.cfg.p.unlock == Unlock::Delete;
        let r = self.conn(c).and_then(|x| {
            if delete {
                let (before, _) = x.get(&key).map_err(|e| e.to_string())?;
                let (n, header) = x.delete(&key).map_err(|e| e.to_string())?;
                Ok((n == 1, header, before.map(|k| k.create_revision)))
            } else {
                let (ok, header) = x.delete_if_created(&key, rev).map_err(|e| e.to_string())?;
                Ok((ok, header, None))
            }
        });
        match r {
            Ok((deleted, header, created)) => {
                if let Some(created) = created.filter(|&r| deleted && rev != 0 && r != rev) {
                    if self.witness.foreign_release.is_none() {
                        self.witness.foreign_release = Some((
                            k + 1,
                            format!(
                                "{name}'s Delete removed {key} created at revision {created}, not its own at {rev}"
                            ),
                        ));
                    }
                }
                self.hold(c, Kind::Unlock, id, Real::Unlocked { deleted });
                let cmd = if delete {
                    format!("Delete {key}")
                } else {
                    format!("Txn if create_revision({key}) = {rev} then delete {key}")
                };
                format!(
                    "{name} → etcd: {cmd}; {} (revision {header}; held)",
                    if deleted { "deleted" } else { "nothing deleted" }
                )
            }
            Err(e) => self.hold_failure(c, Kind::Unlock, id, format!("the unlock failed: {e}")),
        }
    }
}
