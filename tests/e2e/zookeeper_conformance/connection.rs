//! The connection faults: the last request before a crash or a cut, the cut, and the heal.

use std::sync::mpsc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use locksmith::algorithms::zookeeper::{self as zkm, Msg};
use locksmith::real::zookeeper::{block, zk, CALL_TIMEOUT};
use locksmith::world::Action;

use super::run::real_answer;
use super::{Answer, Late, Run, ENSEMBLE};

impl Run<'_> {
    /// One request at the grid point, so that both sides last heard from
    /// the client now (module doc): `exists /lock`, a ping in the model.
    pub(super) fn touch(&mut self, c: usize) -> Result<(), Late> {
        let real = self.sides[c].real.as_ref().expect("a client");
        let r = real.exists("/lock", false);
        self.on_time("the last request before the fault")?;
        let session = self.sides[c].session;
        self.model_request(c, Msg::Ping { session });
        // The real `exists` answer's header carries the zxid (a pong's
        // does not count).
        if r.is_ok() {
            self.sides[c].zxid = self.m.ensemble().zxid;
        }
        match r {
            Ok(_) => {}
            Err(zk::Error::SessionExpired) if self.sides[c].expired => {}
            Err(e) => return Err(Late(format!("the last request before the fault: {e}"))),
        }
        Ok(())
    }

    pub(super) fn cut(&mut self, c: usize, pending: bool) -> Result<(Answer, Answer), Late> {
        if self.sides.iter().any(|s| s.cut) {
            return Ok((
                Answer::Skipped("one cut at a time"),
                Answer::Skipped("one cut at a time"),
            ));
        }
        if self.sides[c].expired {
            return Ok((Answer::Skipped("expired"), Answer::Skipped("expired")));
        }
        self.touch(c)?;
        let session = self.sides[c].session;
        let mut real = Answer::Skipped("nothing pending");
        let mut model = Answer::Skipped("nothing pending");
        let proxy = &self.sides[c].proxy;
        if pending {
            // The proxy holds the request: it is pending when the
            // connection drops.
            proxy.freeze();
            let (tx, rx) = mpsc::channel();
            let client = self.sides[c].real.as_ref().expect("a client").client().clone();
            std::thread::spawn(move || {
                let _ = tx.send(block(CALL_TIMEOUT, client.list_children("/lock")));
            });
            sleep(Duration::from_millis(10));
            proxy.cut();
            let r = rx
                .recv_timeout(Duration::from_secs(5))
                .expect("the pending request is answered");
            real = real_answer(r, |mut n| {
                n.sort();
                Answer::Children(n)
            })?;
            self.m.send(
                c + 1,
                Msg::GetChildren {
                    session,
                    value: 0,
                    watch: false,
                },
            );
        } else {
            proxy.cut();
        }
        self.m.act(&Action::Partition { a: ENSEMBLE, b: c + 1 });
        self.m.act(&Action::Disconnected {
            node: c + 1,
            peer: ENSEMBLE,
        });
        if pending {
            let answers = self.m.take(c + 1);
            model = self.model_answer(&answers);
        }
        self.sides[c].cut = true;
        self.on_time("the cut")?;
        Ok((real, model))
    }

    /// The proxy accepts again: wait for the library to reconnect (or to
    /// learn that its session expired), then reconnect the model's client
    /// at the next grid point with the SetWatches the library sent.
    pub(super) fn heal(&mut self) -> Result<(Answer, Answer), Late> {
        let Some(c) = self.sides.iter().position(|s| s.cut) else {
            return Ok((Answer::Skipped("nothing is cut"), Answer::Skipped("nothing is cut")));
        };
        self.sides[c].proxy.heal();
        let real = self.sides[c].real.as_ref().expect("a client");
        let deadline = Instant::now() + Duration::from_secs(10);
        let state = loop {
            let st = real.state();
            if matches!(st, zk::SessionState::SyncConnected | zk::SessionState::Expired) {
                break st;
            }
            assert!(Instant::now() < deadline, "the library did not reconnect: {st:?}");
            sleep(Duration::from_millis(2));
        };
        let back = Instant::now();
        // The reconnect touched a live session at `back`; the model's comes
        // at the next grid point. A real session still live then whose
        // model expires by that grid point (tick `at`) is the rounding's
        // doing while the reconnect came before the real expiry could have
        // (a half to a quarter tick before `at`'s grid point; module doc):
        // the case stops. Later than `at`'s grid point, the real session
        // outlived its timeout: a difference.
        let target = self.clock.next_tick_after(back);
        let session = self.sides[c].session;
        let e = self.m.ensemble();
        let expiry = e.sessions.iter().position(|s| *s == session).and_then(|slot| {
            let timer = zkm::Timer::SessionExpiry { slot: slot as u8 };
            self.m.state.nodes[ENSEMBLE].timer(timer)
        });
        if let (zk::SessionState::SyncConnected, Some(r)) = (state, expiry) {
            let at = self.clock.now + u32::from(r);
            if at <= target {
                if back <= self.clock.grid(at) + self.clock.tick / 8 {
                    return Err(Late(format!(
                        "the reconnect came {:.0} ms after tick {}, within the session's expiry window (tick {at})",
                        self.clock.late_ms(back),
                        self.clock.now
                    )));
                }
                panic!(
                    "the real session lived through a reconnect {:.0} ms after tick {}, the model's expires at tick {at}\n{}",
                    self.clock.late_ms(back),
                    self.clock.now,
                    self.log.join("\n")
                );
            }
        }
        while self.clock.now < target {
            self.tick()?;
        }
        self.m.act(&Action::Heal);
        self.m.act(&Action::Reconnect {
            node: c + 1,
            peer: ENSEMBLE,
        });
        let s = &self.sides[c];
        let msg = Msg::Reconnect {
            session: s.session,
            zxid: s.zxid,
            node: s.exists_watch.unwrap_or(0),
            children: s.child_watch,
        };
        let model_expired = !self.m.ensemble().sessions.contains(&s.session);
        let real_expired = state == zk::SessionState::Expired;
        // The model expired the session at tick e, the real server had not
        // when the library reconnected: that is a difference unless the
        // reconnect came within the real expiry's window before e's grid
        // point (module doc). The other way round (real expired first) is
        // always a difference: the reconnect precedes the model's grid point.
        if let (true, false, Some(e)) = (model_expired, real_expired, s.expired_at) {
            let window = self.clock.grid(e) - self.clock.tick * 5 / 8;
            if back > window {
                return Err(Late(format!(
                    "the reconnect came {:.0} ms after tick {}, within the session's expiry window",
                    self.clock.late_ms(back),
                    self.clock.now
                )));
            }
        }
        self.log.push(format!(
            "  reconnected {:.0} ms after tick {}: real {state:?}, model session {}",
            self.clock.late_ms(back),
            self.clock.now - 1,
            if model_expired { "expired" } else { "live" }
        ));
        self.sides[c].cut = false;
        self.m.request(c + 1, msg);
        let got = self.m.take(c + 1);
        let (answers, events): (Vec<Msg>, Vec<Msg>) = got
            .into_iter()
            .partition(|m| !matches!(m, Msg::NodeDeleted { .. } | Msg::NodeChildrenChanged { .. }));
        for e in events {
            self.m.send_back(c + 1, e);
        }
        let model = match answers.as_slice() {
            [] => Answer::Reconnected,
            other => self.model_answer(other),
        };
        let real = if real_expired {
            Answer::SessionExpired
        } else {
            Answer::Reconnected
        };
        if model == Answer::SessionExpired {
            let s = &mut self.sides[c];
            s.expired = true;
            s.exists_watch = None;
            s.child_watch = false;
        }
        Ok((real, model))
    }
}
