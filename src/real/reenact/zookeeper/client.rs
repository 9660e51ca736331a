//! What a client of the run does on the real ensemble: its steps, its
//! requests, the answers and watch events it is handed, its session's
//! expiry.

use super::*;

impl Run<'_> {
    pub(super) fn client_step(&mut self, c: usize, step: Step) -> String {
        let s = &mut self.sides[c];
        match step {
            Step::Acquire => {
                s.agrees = true;
                s.node = None;
                s.acquisition = 0;
                s.events.clear();
                format!("c{} starts an attempt", c + 1)
            }
            Step::Check if self.p.client == ClientKind::Curator => {
                let state = s.client.as_ref().map(ZkClient::state);
                if state != Some(zk::SessionState::SyncConnected) && s.agrees {
                    s.agrees = false;
                    self.witness.differences += 1;
                    return format!(
                        "c{} checks its connection state: the real library is {state:?}, so a real Curator would not use the lock (DIFFERS: the model's client passes)",
                        c + 1
                    );
                }
                format!("c{} checks its connection state: {state:?}", c + 1)
            }
            other => format!("c{} {other:?}", c + 1),
        }
    }

    /// A request reaches the ensemble: send it on the real session now.
    pub(super) fn request(&mut self, c: usize, msg: &Msg) -> String {
        let timeout = self.session_timeout();
        let mode = |m: Mode| mode_word(m);
        let s = &mut self.sides[c];
        if matches!(msg, Msg::Ping { .. }) {
            return format!("c{}'s ping: the library pings by itself", c + 1);
        }
        if matches!(msg, Msg::Reconnect { .. }) {
            return format!("c{}'s reconnect with SetWatches: the library's own", c + 1);
        }
        if let Msg::Connect { .. } = msg {
            let addr = s.proxy.addr();
            return match ZkClient::connect(&addr, timeout) {
                Ok(cl) => {
                    let text = format!(
                        "c{} opens a session: {:#x}, timeout {} ms",
                        c + 1,
                        cl.session_id(),
                        cl.session_timeout().as_millis()
                    );
                    s.sessions.push(cl.session_id());
                    s.client = Some(cl);
                    text
                }
                Err(e) => {
                    s.client = None;
                    format!("c{} cannot open a session: {e}", c + 1)
                }
            };
        }
        if let Msg::CloseSession { .. } = msg {
            s.client = None;
            return format!(
                "c{} closes its session (the library drops it; it has no nodes left)",
                c + 1
            );
        }
        // A request sent before a pause is already on the wire: let it
        // through the frozen proxy.
        let frozen = s.paused > 0;
        if frozen {
            s.proxy.heal();
        }
        let Some(cl) = s.client.as_ref() else {
            s.pending.push_back(Real::ConnectionLoss);
            return format!("c{} has no session: the request fails", c + 1);
        };
        let (text, real) = match msg {
            Msg::Create { value, mode: m, .. } => {
                let prefix = format!("/lock/_c_g{value}-{}-", mode(*m));
                match cl.create_ephemeral_sequential(&prefix) {
                    Ok((name, _, stat)) => {
                        self.real_name.insert(*value, name.clone());
                        s.node = Some((name.clone(), stat.czxid));
                        (
                            format!("create {prefix} EPHEMERAL_SEQUENTIAL → {name}, czxid {}", stat.czxid),
                            Real::Created {
                                name,
                                czxid: stat.czxid,
                            },
                        )
                    }
                    Err(e) => (format!("create {prefix} → {e}"), real_error(e)),
                }
            }
            Msg::GetChildren { watch, .. } => match cl.children("/lock", *watch) {
                Ok(names) => {
                    let mut kids: Vec<(String, (u32, String))> = names
                        .iter()
                        .filter_map(|n| parse_name(n).map(|g| (n.rsplit('-').next().unwrap_or("").to_string(), g)))
                        .collect();
                    kids.sort();
                    let text = format!("getChildren /lock{} → {names:?}", if *watch { " watch" } else { "" });
                    (text, Real::Children(kids.into_iter().map(|(_, g)| g).collect()))
                }
                Err(e) => (format!("getChildren /lock → {e}"), real_error(e)),
            },
            Msg::Exists { node, .. } => {
                let path = self
                    .guid_of
                    .get(node)
                    .and_then(|g| self.real_name.get(g))
                    .map_or_else(|| format!("/lock/unknown-{node}"), |n| format!("/lock/{n}"));
                match cl.exists(&path, true) {
                    Ok(stat) => (
                        format!(
                            "exists {path} watch → {}",
                            if stat.is_some() { "a stat" } else { "null" }
                        ),
                        Real::Stat(stat.is_some()),
                    ),
                    Err(e) => (format!("exists {path} watch → {e}"), real_error(e)),
                }
            }
            Msg::Delete { node, .. } => {
                let path = self
                    .guid_of
                    .get(node)
                    .and_then(|g| self.real_name.get(g))
                    .map_or_else(|| format!("/lock/unknown-{node}"), |n| format!("/lock/{n}"));
                match cl.delete(&path) {
                    Ok(()) | Err(zk::Error::NoNode) => (format!("delete {path} → done"), Real::Deleted),
                    Err(e) => (format!("delete {path} → {e}"), real_error(e)),
                }
            }
            other => (
                format!("{other:?}: not a request"),
                Real::Failed("not a request".into()),
            ),
        };
        let s = &mut self.sides[c];
        if frozen {
            s.proxy.freeze();
        }
        s.pending.push_back(real);
        format!("c{} → {text}", c + 1)
    }

    /// The model's answer reaches client `c`: compare it with the real one.
    pub(super) fn answer(&mut self, c: usize, msg: &Msg) -> String {
        match msg {
            Msg::Pong { .. } => return format!("c{}'s pong: the library's own", c + 1),
            Msg::NodeDeleted { .. } | Msg::NodeChildrenChanged { .. } => return self.event(c, msg),
            Msg::Created { value, node } => {
                self.guid_of.insert(*node, *value);
            }
            Msg::Children { children, .. } => {
                for ch in children {
                    self.guid_of.insert(ch.czxid, ch.guid);
                }
            }
            _ => {}
        }
        let real = self.sides[c].pending.pop_front();
        let agree = match (msg, &real) {
            (Msg::Created { .. }, Some(Real::Created { .. })) => true,
            (Msg::Children { children, .. }, Some(Real::Children(kids))) => {
                let model: Vec<(u32, String)> = children
                    .iter()
                    .map(|ch| (ch.guid, mode_word(ch.mode).to_string()))
                    .collect();
                &model == kids
            }
            (Msg::Stat { exists, .. }, Some(Real::Stat(r))) => exists == r,
            (Msg::Deleted { .. }, Some(Real::Deleted)) => true,
            (Msg::SessionExpired { .. }, Some(Real::SessionExpired)) => true,
            _ => false,
        };
        if agree {
            let real = real.map_or_else(String::new, |r| format!("{r:?}"));
            return format!("c{} receives the real answer {real}, as the trace's", c + 1);
        }
        self.witness.differences += 1;
        self.sides[c].agrees = false;
        format!(
            "c{} receives {real:?} from the real server where the trace has {msg:?} (DIFFERS: c{} no longer counts as holding in this attempt)",
            c + 1,
            c + 1
        )
    }

    /// A watch event the trace delivers: the real one, waited for up to a
    /// tick.
    pub(super) fn event(&mut self, c: usize, msg: &Msg) -> String {
        let want = match msg {
            Msg::NodeDeleted { .. } => zk::EventType::NodeDeleted,
            _ => zk::EventType::NodeChildrenChanged,
        };
        let tick = self.tick;
        let s = &mut self.sides[c];
        let deadline = Instant::now() + tick;
        loop {
            if let Some(cl) = s.client.as_ref() {
                s.events.extend(cl.events(0, Duration::ZERO));
            }
            if let Some(i) = s.events.iter().position(|e| e.kind == want) {
                let e = s.events.remove(i);
                return format!("c{} gets the real {:?} on {}", c + 1, e.kind, e.path);
            }
            if Instant::now() >= deadline {
                break;
            }
            sleep(Duration::from_millis(5));
        }
        self.witness.differences += 1;
        s.agrees = false;
        format!(
            "c{} gets no real {want:?} within a tick (DIFFERS: it no longer counts as holding in this attempt)",
            c + 1
        )
    }

    /// The model expires a session of client `c`: the real server does so
    /// on its own clock, which this waits for (up to two ticks), so that
    /// the steps after it meet the real ensemble in the state the trace
    /// says: until no node under /lock belongs to a session of `c` that the
    /// server cannot hear from (all of them but a live, connected one).
    pub(super) fn expiry(&mut self, c: usize) -> String {
        let s = &self.sides[c];
        let reachable = s.paused == 0 && !s.cut && !s.crashed && s.client.is_some();
        let current = s.client.as_ref().map(ZkClient::session_id);
        let owners: Vec<i64> = s
            .sessions
            .iter()
            .copied()
            .filter(|&id| !(reachable && Some(id) == current))
            .collect();
        let began = Instant::now();
        let deadline = began + self.tick * 2;
        loop {
            let left: Vec<String> = self
                .observer
                .children("/lock", false)
                .unwrap_or_default()
                .into_iter()
                .filter(|n| {
                    self.observer
                        .exists(&format!("/lock/{n}"), false)
                        .ok()
                        .flatten()
                        .is_some_and(|st| owners.contains(&st.ephemeral_owner))
                })
                .collect();
            if left.is_empty() {
                let waited = began.elapsed().as_millis();
                return format!(
                    "c{}'s session expires on the real server (no node of it left under /lock; waited {waited} ms)",
                    c + 1
                );
            }
            if Instant::now() >= deadline {
                return format!(
                    "c{}'s real session has not expired two ticks after the model's expiry: {left:?} still under /lock",
                    c + 1
                );
            }
            sleep(Duration::from_millis(10));
        }
    }
}
