//! One tick on both sides, and the events and the children of `/lock` compared.

use std::time::{Duration, Instant};

use locksmith::algorithms::zookeeper::Msg;
use locksmith::real::zookeeper::zk;

use super::run::name;
use super::{Event, Late, Run, CLIENTS};

impl Run<'_> {
    /// One tick: the model's ensemble ticks (its session expiries fire),
    /// the live clients ping (the library pings on its own), and the two
    /// sides are compared at the grid point.
    pub(super) fn tick(&mut self) -> Result<(), Late> {
        self.advance();
        self.clock.wait_for_grid();
        self.log.push(format!("tick {}", self.clock.now));
        self.compare_state()
    }

    /// The model's side of one tick: the ensemble's clock (session
    /// expiries), then the pings of the clients that are up and connected.
    pub(super) fn advance(&mut self) {
        self.clock.now += 1;
        self.m.tick();
        for c in 0..CLIENTS {
            let session = self.sides[c].session;
            if session != 0 && self.sides[c].expired_at.is_none() && !self.m.ensemble().sessions.contains(&session) {
                self.sides[c].expired_at = Some(self.clock.now);
            }
            let s = &self.sides[c];
            if s.session != 0 && !s.crashed && !s.cut && !s.expired {
                self.m.request(c + 1, Msg::Ping { session });
            }
        }
    }

    /// Events and the children of `/lock`, real against model.
    pub(super) fn compare_state(&mut self) -> Result<(), Late> {
        for c in 0..CLIENTS {
            let mut model: Vec<Event> = Vec::new();
            for msg in self.m.take(c + 1) {
                match msg {
                    Msg::NodeDeleted { node, .. } => {
                        if self.sides[c].exists_watch == Some(node) {
                            self.sides[c].exists_watch = None;
                        }
                        model.push(Event::NodeDeleted(format!(
                            "/lock/{}",
                            name(&self.seqs, self.guids[&node], node)
                        )));
                    }
                    Msg::NodeChildrenChanged { .. } => {
                        self.sides[c].child_watch = false;
                        model.push(Event::NodeChildrenChanged);
                    }
                    other => panic!("unexpected model message to c{c}: {other:?}"),
                }
            }
            let s = &self.sides[c];
            if s.crashed || s.cut {
                // Lost on the way (the model's world drops them too).
                continue;
            }
            let Some(real) = &s.real else { continue };
            let wait = self.clock.due().saturating_duration_since(Instant::now());
            let mut got = real.events(model.len(), wait);
            if got.len() < model.len() {
                let more = real.events(model.len() - got.len(), Duration::from_secs(2));
                let late = !more.is_empty();
                got.extend(more);
                if late {
                    return Err(Late(format!("c{c}'s watch events came late: {got:?}")));
                }
            }
            let mut real: Vec<Event> = got
                .into_iter()
                .filter(|e| e.kind != zk::EventType::Session)
                .map(|e| match e.kind {
                    zk::EventType::NodeDeleted => Event::NodeDeleted(e.path),
                    zk::EventType::NodeChildrenChanged => Event::NodeChildrenChanged,
                    other => panic!("unexpected event {other:?} at {}", e.path),
                })
                .collect();
            real.sort();
            model.sort();
            if !real.is_empty() || !model.is_empty() {
                self.log.push(format!("  c{c} events real {real:?}, model {model:?}"));
            }
            assert_eq!(real, model, "c{c}'s watch events\n{}", self.log.join("\n"));
        }
        let real = self
            .observer
            .children("/lock", false)
            .map_err(|e| Late(format!("the observer's getChildren: {e}")))?;
        self.on_time("the observer's getChildren")?;
        let mut model: Vec<String> = self
            .m
            .ensemble()
            .children
            .iter()
            .map(|z| name(&self.seqs, z.child.guid, z.child.czxid))
            .collect();
        model.sort();
        self.log.push(format!("  /lock real {real:?}, model {model:?}"));
        assert_eq!(real, model, "the children of /lock\n{}", self.log.join("\n"));
        Ok(())
    }
}
