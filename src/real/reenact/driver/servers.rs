//! The servers' faults as the driver enacts them (crash, restart, key
//! expiry, failover) and how it asks a server what it is.

use super::*;

impl Driver<'_> {
    pub(super) fn crash(&mut self, node: Id) -> String {
        match self.setup.cast.get(node) {
            Some(Part::Redis(i)) => {
                let i = *i;
                self.servers[i].kill();
                self.down_since.insert(i, Instant::now());
                self.paused.remove(&i);
                if self.setup.keep != Keep::Fsync {
                    self.expiry.remove(&i);
                }
                let mut out = format!("SIGKILL to the server on port {}", self.servers[i].port());
                if i == self.primary {
                    for r in std::mem::take(&mut self.held_replicas) {
                        let _ = self.servers[r].resume();
                        out.push_str(&format!("; SIGCONT to the replica on port {}", self.servers[r].port()));
                    }
                }
                out
            }
            Some(Part::Client(c)) => {
                let c = *c;
                self.clients[c].down = true;
                self.held.retain(|(_, to), _| *to != c);
                format!("c{} stops (its held replies are dropped)", c + 1)
            }
            _ => "nothing to crash".into(),
        }
    }

    pub(super) fn restart(&mut self, node: Id) -> Result<String, String> {
        match self.setup.cast.get(node) {
            Some(Part::Redis(i)) => {
                let i = *i;
                let mut out = String::new();
                if self.setup.keep == Keep::Delayed {
                    let since = self.down_since.get(&i).copied().unwrap_or_else(Instant::now);
                    let until = since + self.ttl();
                    out.push_str(&format!(
                        "delayed restart: waits {} ms, until one TTL has passed since the crash; ",
                        until.saturating_duration_since(Instant::now()).as_millis()
                    ));
                    sleep(until.saturating_duration_since(Instant::now()));
                }
                let (persistence, how) = match self.setup.keep {
                    Keep::Fsync => (Persistence::AofAlways, "with its AOF (appendfsync always)"),
                    _ => (Persistence::None, "without persistence (empty)"),
                };
                self.servers[i]
                    .restart_with(persistence)
                    .map_err(|e| io("the server did not restart", e))?;
                self.down_since.remove(&i);
                let keys: i64 = self.servers[i]
                    .connect()
                    .ok()
                    .and_then(|mut c| redis::cmd("DBSIZE").query(&mut c).ok())
                    .unwrap_or(-1);
                out.push_str(&format!(
                    "redis-server restarted on port {} {how}; DBSIZE {keys}",
                    self.servers[i].port()
                ));
                Ok(out)
            }
            Some(Part::Client(c)) => {
                let c = *c;
                let attempt = self.clients[c].attempt;
                self.clients[c] = Client {
                    attempt,
                    ..Client::default()
                };
                Ok(format!("c{} starts again, remembering nothing", c + 1))
            }
            _ => Ok("nothing to restart".into()),
        }
    }

    /// Waits until the server's lock key has surely expired on its own
    /// clock: the model's expiry is a timer, the real one Redis's.
    pub(super) fn key_expiry(&mut self, node: Id) -> String {
        let Some(i) = self.index(node) else {
            return "not a Redis server".into();
        };
        match self.expiry.remove(&i) {
            Some(until) => {
                let due = until + EXPIRY_SLACK;
                let wait = due.saturating_duration_since(Instant::now());
                sleep(wait);
                format!(
                    "the key expires by the real server's own clock: waited {} ms for its PX to run out",
                    wait.as_millis()
                )
            }
            None => "no key set by this run is known on this server; nothing to wait for".into(),
        }
    }

    /// The Sentinel's failover, by the real Sentinel: the driver waits
    /// until it names a new primary.
    pub(super) fn failover(&mut self) -> Result<String, String> {
        let Some(sentinel) = &self.sentinel else {
            return Err("the trace has a Sentinel step but no Sentinel runs".into());
        };
        let old = self.servers[self.primary].port();
        let began = Instant::now();
        let port = wait_for(FAILOVER_WAIT, || master_port(sentinel).filter(|p| *p != old)).ok_or_else(|| {
            format!(
                "the real Sentinel did not fail over within {} s",
                FAILOVER_WAIT.as_secs()
            )
        })?;
        let Some(i) = self.servers.iter().position(|s| s.port() == port) else {
            return Err(format!(
                "the real Sentinel named port {port}, which this run did not start"
            ));
        };
        self.primary = i;
        Ok(format!(
            "the real Sentinel (down-after-milliseconds {} ms) detected the crash and promoted the replica on port {port} by itself, {} ms after this step began (SENTINEL get-master-addr-by-name)",
            u64::from(self.setup.down_after) * self.tick.as_millis() as u64,
            began.elapsed().as_millis()
        ))
    }
}

/// Polls `f` every 20 ms until it gives a value or `limit` passes.
pub(super) fn wait_for<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > end {
            return None;
        }
        sleep(Duration::from_millis(20));
    }
}

pub(super) fn info(s: &RedisServer, section: &str) -> Option<String> {
    let mut con = s.connect().ok()?;
    redis::cmd("INFO").arg(section).query(&mut con).ok()
}

pub(super) fn role(s: &RedisServer) -> Option<String> {
    let mut con = s.connect().ok()?;
    let v: redis::Value = redis::cmd("ROLE").query(&mut con).ok()?;
    match v {
        redis::Value::Array(items) => items
            .first()
            .and_then(|r| redis::from_redis_value::<String>(r.clone()).ok()),
        _ => None,
    }
}

/// How many replicas the Sentinel knows and sees up.
pub(super) fn sentinel_replicas(s: &RedisServer) -> Option<usize> {
    let mut con = s.connect().ok()?;
    let replicas: Vec<Vec<String>> = redis::cmd("SENTINEL")
        .arg("REPLICAS")
        .arg(SENTINEL_MASTER)
        .query(&mut con)
        .ok()?;
    let up = replicas
        .iter()
        .filter(|r| {
            r.chunks(2)
                .any(|kv| kv.len() == 2 && kv[0] == "flags" && kv[1] == "slave")
        })
        .count();
    Some(up)
}

/// The primary's port as the Sentinel names it.
pub(super) fn master_port(s: &RedisServer) -> Option<u16> {
    let mut con = s.connect().ok()?;
    let addr: Vec<String> = redis::cmd("SENTINEL")
        .arg("GET-MASTER-ADDR-BY-NAME")
        .arg(SENTINEL_MASTER)
        .query(&mut con)
        .ok()?;
    addr.get(1)?.parse().ok()
}
