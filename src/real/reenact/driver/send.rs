//! What the driver sends for a client, and how it reads and holds the
//! answers: requests, replication held back, answers, resource writes.

use super::*;

impl Driver<'_> {
    /// Whether the trace crashes `node` before its next `Replicate` step:
    /// then the write at step `k` must not reach the replicas.
    pub(super) fn crashes_before_replicating(ops: &[Op], k: usize, node: Id) -> bool {
        for op in &ops[k + 1..] {
            match op {
                Op::Replicate(n) if *n == node => return false,
                Op::Crash(n) if *n == node => return true,
                _ => {}
            }
        }
        false
    }

    /// Sends client `c`'s request `req` (trace step `k`) to `node`, and
    /// holds the answer until the trace delivers it; returns the line the
    /// reenactment's log shows.
    pub(super) fn send(&mut self, ops: &[Op], k: usize, c: usize, node: Id, req: Request) -> Result<String, String> {
        let Some(_) = self.server_of(node) else {
            return Err(format!("step {}: node {node} is not a Redis server", k + 1));
        };
        let mut notes = Vec::new();
        let is_primary = self.setup.family == RedisFamily::PrimaryReplica && self.index(node) == Some(self.primary);
        if is_primary
            && matches!(req, Request::SetNxPx(_))
            && self.setup.wait.is_none()
            && Self::crashes_before_replicating(ops, k, node)
        {
            notes.push(self.hold_replication()?);
        }
        let value = match req {
            Request::SetNxPx(v)
            | Request::SetNx(v)
            | Request::Expire(v)
            | Request::Del(v)
            | Request::CompareAndDelete(v)
            | Request::Renew(v)
            | Request::Incr(v) => self.value(c, v),
        };
        let server = self.server_of(node).expect("checked above");
        let port = server.port();
        let mut con = server
            .connect()
            .map_err(|e| io(&format!("cannot connect to port {port}"), e))?;
        let (reply, cmd) = self.command(&mut con, port, req, &value, (k, c), &mut notes)?;
        let granted = matches!(reply, Reply::Lock { ok: true, .. }) && !matches!(req, Request::Incr(_));
        if granted || matches!(req, Request::Expire(_) | Request::Renew(_)) {
            let until = Instant::now() + self.ttl();
            if let Some(i) = self.index(node) {
                self.expiry.insert(i, until);
                // An asynchronous write reaches the replicas that follow
                // this primary (unless the driver holds it back).
                if is_primary && self.held_replicas.is_empty() {
                    for r in 0..self.servers.len() {
                        if r != i && !self.down_since.contains_key(&r) {
                            self.expiry.insert(r, until);
                        }
                    }
                }
            }
        }
        let text = match &reply {
            Reply::Lock { text, .. } | Reply::Text(text) => text.clone(),
        };
        self.held.entry((node, c)).or_default().push_back(reply);
        let mut out = format!(
            "c{} → {}: {cmd}; the server answers {text} (held until the trace delivers it)",
            c + 1,
            self.name(node)
        );
        for n in notes {
            out.push_str("; ");
            out.push_str(&n);
        }
        Ok(out)
    }

    /// Sends one request to the server on `port` as the real client would,
    /// and returns its answer with the command as the trace's note shows
    /// it. `at` is the trace step and the client; a `DEL` that removes
    /// another acquisition's key is recorded as the witness of a foreign
    /// release.
    fn command(
        &mut self,
        con: &mut redis::Connection,
        port: u16,
        req: Request,
        value: &str,
        at: (usize, usize),
        notes: &mut Vec<String>,
    ) -> Result<(Reply, String), String> {
        let (k, c) = at;
        let px = self.ttl().as_millis() as u64;
        let q = |e: redis::RedisError| io(&format!("the server on port {port} failed"), e);
        let reply = match req {
            Request::SetNxPx(_) => self.set_nx_px(con, port, value, notes)?,
            Request::SetNx(_) => {
                let set: i64 = redis::cmd("SETNX").arg(KEY).arg(value).query(con).map_err(q)?;
                (
                    Reply::Lock {
                        ok: set == 1,
                        token: 0,
                        text: set.to_string(),
                    },
                    format!("SETNX {KEY} {value}"),
                )
            }
            Request::Expire(_) => {
                let set: i64 = redis::cmd("PEXPIRE").arg(KEY).arg(px).query(con).map_err(q)?;
                (Reply::Text(set.to_string()), format!("PEXPIRE {KEY} {px}"))
            }
            Request::Renew(_) => {
                let set: i64 = redis::cmd("EVAL")
                    .arg(RENEW)
                    .arg(1)
                    .arg(KEY)
                    .arg(value)
                    .arg(px)
                    .query(con)
                    .map_err(q)?;
                (
                    Reply::Text(set.to_string()),
                    format!("EVAL <if GET {KEY} == {value} then PEXPIRE {KEY} {px}>"),
                )
            }
            Request::Del(_) => {
                let before: Option<String> = redis::cmd("GET").arg(KEY).query(con).map_err(q)?;
                let deleted: i64 = redis::cmd("DEL").arg(KEY).query(con).map_err(q)?;
                if let (1, Some(owner)) = (deleted, &before) {
                    if *owner != value && self.witness.foreign_release.is_none() {
                        self.witness.foreign_release = Some((
                            k + 1,
                            format!("c{}'s DEL removed the key {owner} that another acquisition set", c + 1),
                        ));
                    }
                }
                (
                    Reply::Text(deleted.to_string()),
                    format!(
                        "DEL {KEY} (the key held {})",
                        before.unwrap_or_else(|| "nothing".into())
                    ),
                )
            }
            Request::CompareAndDelete(_) => {
                let deleted: i64 = redis::cmd("EVAL")
                    .arg(COMPARE_AND_DELETE)
                    .arg(1)
                    .arg(KEY)
                    .arg(value)
                    .query(con)
                    .map_err(q)?;
                (
                    Reply::Text(deleted.to_string()),
                    format!("EVAL <if GET {KEY} == {value} then DEL {KEY}>"),
                )
            }
            Request::Incr(_) => {
                let token: i64 = redis::cmd("INCR").arg(FENCE).query(con).map_err(q)?;
                (
                    Reply::Lock {
                        ok: true,
                        token,
                        text: token.to_string(),
                    },
                    format!("INCR {FENCE}"),
                )
            }
        };
        Ok(reply)
    }

    /// `SET lock value NX PX ttl`: with the server's fencing counter, the
    /// script that sets and increments at once; with `wait`, the `WAIT`
    /// that follows on the same connection.
    fn set_nx_px(
        &self,
        con: &mut redis::Connection,
        port: u16,
        value: &str,
        notes: &mut Vec<String>,
    ) -> Result<(Reply, String), String> {
        let px = self.ttl().as_millis() as u64;
        let q = |e: redis::RedisError| io(&format!("the server on port {port} failed"), e);
        if self.setup.fence == Fence::ServerCounter {
            let token: i64 = redis::cmd("EVAL")
                .arg(SET_AND_FENCE)
                .arg(2)
                .arg(KEY)
                .arg(FENCE)
                .arg(value)
                .arg(px)
                .query(con)
                .map_err(q)?;
            let ok = token > 0;
            return Ok((
                Reply::Lock {
                    ok,
                    token,
                    text: if ok { format!("token {token}") } else { "nil".into() },
                },
                format!("EVAL <SET {KEY} {value} NX PX {px}, INCR {FENCE}>"),
            ));
        }
        let r: Option<String> = redis::cmd("SET")
            .arg(KEY)
            .arg(value)
            .arg("NX")
            .arg("PX")
            .arg(px)
            .query(con)
            .map_err(q)?;
        let mut ok = r.is_some();
        let mut text = r.unwrap_or_else(|| "nil".into());
        let mut cmd = format!("SET {KEY} {value} NX PX {px}");
        if let (true, Some((n, timeout))) = (ok, self.setup.wait) {
            let ms = if timeout == 0 {
                notes.push("WAIT's timeout 0 (for ever) is capped at 10 s here".into());
                10_000
            } else {
                u64::from(timeout) * self.tick.as_millis() as u64
            };
            let acked: i64 = redis::cmd("WAIT").arg(n).arg(ms).query(con).map_err(q)?;
            cmd.push_str(&format!("; WAIT {n} {ms}"));
            text.push_str(&format!(", WAIT → {acked}"));
            ok = acked >= i64::from(n);
        }
        Ok((Reply::Lock { ok, token: 0, text }, cmd))
    }

    /// Holds the primary's replication stream back: `SIGSTOP` to every
    /// replica, then `CLIENT KILL TYPE replica` on the primary, so the next
    /// write stays on the primary alone until it is killed (a stopped
    /// replica cannot reconnect and fetch it from the backlog).
    pub(super) fn hold_replication(&mut self) -> Result<String, String> {
        let p = self.primary;
        for r in 0..self.servers.len() {
            if r != p && !self.down_since.contains_key(&r) && !self.held_replicas.contains(&r) {
                self.servers[r]
                    .pause()
                    .map_err(|e| io("SIGSTOP to a replica failed", e))?;
                self.held_replicas.push(r);
            }
        }
        let mut con = self.servers[p]
            .connect()
            .map_err(|e| io("cannot connect to the primary", e))?;
        let killed: i64 = redis::cmd("CLIENT")
            .arg("KILL")
            .arg("TYPE")
            .arg("replica")
            .query(&mut con)
            .map_err(|e| io("CLIENT KILL TYPE replica failed", e))?;
        Ok(format!(
            "the trace crashes the primary before it replicates this write, so the driver holds the replication stream back: SIGSTOP to the replica(s) and CLIENT KILL TYPE replica on the primary ({killed} link(s) cut); the replica(s) get SIGCONT when the primary is killed"
        ))
    }

    pub(super) fn answer(&mut self, node: Id, c: usize, model: Answer) -> String {
        let Some(reply) = self.held.get_mut(&(node, c)).and_then(VecDeque::pop_front) else {
            self.witness.differences += 1;
            return format!("DIFFERS: no real reply is held for c{}", c + 1);
        };
        let from = self.names.get(node).cloned().unwrap_or_default();
        let cl = &mut self.clients[c];
        if cl.down {
            return format!("c{} is down: the reply is dropped", c + 1);
        }
        match (reply, model) {
            (Reply::Lock { ok, token, text }, Answer::Lock(expected)) => {
                if ok {
                    cl.oks += 1;
                    cl.ok_from.push(from);
                    cl.token = match self.setup.fence {
                        Fence::LockValue => -i64::from(cl.attempt),
                        _ => token,
                    };
                }
                let same = if ok == expected {
                    "as the trace says".to_string()
                } else {
                    self.witness.differences += 1;
                    format!("DIFFERS: the trace says {}", if expected { "OK" } else { "nil" })
                };
                format!(
                    "c{} receives {text} ({same}); it has {} OK(s)",
                    c + 1,
                    self.clients[c].oks
                )
            }
            (Reply::Lock { token, .. }, Answer::Other) => {
                cl.token = token;
                format!("c{} receives token {token}", c + 1)
            }
            (Reply::Text(text), _) => format!("c{} receives {text}", c + 1),
        }
    }

    pub(super) fn resource_write(&mut self, k: usize, c: usize) -> String {
        let cl = &self.clients[c];
        if cl.skipped_write || cl.down {
            return format!("c{} made no write", c + 1);
        }
        self.store
            .write(&mut self.witness, k, c, cl.acquisition, cl.token, "token")
    }
}
