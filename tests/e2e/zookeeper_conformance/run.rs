//! One case on both sides: connecting, one operation on both, and the case from start to end.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use locksmith::algorithms::zookeeper::{self as zkm, Msg};
use locksmith::real::zookeeper::{zk, Proxy, ZkClient};

use super::cases::{Case, Op};
use super::model::Model;
use super::{Answer, Clock, Late, Run, Side, CLIENTS};

/// The name ZooKeeper gave the node the model numbers `czxid`: the guid
/// is the model's, the sequence number the real one (module doc).
pub(super) fn name(seqs: &BTreeMap<u32, i64>, guid: u32, czxid: u32) -> String {
    match seqs.get(&czxid) {
        Some(seq) => format!("_c_g{guid}-lock-{seq:010}"),
        None => format!("_c_g{guid}-lock-(model czxid {czxid})"),
    }
}

/// The real answer in the model's terms. A library timeout (the machine
/// stalled longer than the connection's idle timeout, 2/5 of the session
/// timeout) stops the case, as a late answer does.
pub(super) fn real_answer<T>(r: Result<T, zk::Error>, ok: impl FnOnce(T) -> Answer) -> Result<Answer, Late> {
    match r {
        Ok(t) => Ok(ok(t)),
        Err(zk::Error::SessionExpired) => Ok(Answer::SessionExpired),
        Err(zk::Error::ConnectionLoss) => Ok(Answer::Lost),
        Err(e @ (zk::Error::Timeout | zk::Error::Custom(_))) => Err(Late(format!("the library gave up: {e}"))),
        Err(e) => panic!("unexpected error from ZooKeeper: {e:?}"),
    }
}

/// A connection lost where the test cut nothing: the machine stalled.
pub(super) fn not_lost(a: Answer) -> Result<Answer, Late> {
    if a == Answer::Lost {
        return Err(Late("the connection broke with no cut (a stalled machine)".into()));
    }
    Ok(a)
}

impl Run<'_> {
    fn connect(&mut self, c: usize) -> Result<(), Late> {
        let connect = format!("{}{}", self.sides[c].proxy.addr(), self.chroot);
        let client = ZkClient::connect(&connect, self.timeout).map_err(|e| Late(format!("connect: {e}")))?;
        let granted = client.session_timeout();
        assert_eq!(granted, self.timeout, "the server grants the session timeout asked for");
        self.next_value += 1;
        let session = 1000 + self.next_value;
        let s = &mut self.sides[c];
        s.real = Some(client);
        s.session = session;
        s.expired = false;
        s.crashed = false;
        s.zxid = 0;
        s.expired_at = None;
        s.exists_watch = None;
        s.child_watch = false;
        self.m.request(c + 1, Msg::Connect { session });
        let slots = self.m.ensemble().sessions.iter().filter(|x| **x == session).count();
        assert_eq!(slots, 1, "the model's ensemble has a slot for the new session");
        self.on_time("connect")
    }

    pub(super) fn on_time(&self, what: &str) -> Result<(), Late> {
        let now = Instant::now();
        if now > self.clock.due() {
            return Err(Late(format!(
                "{what} answered {:.0} ms after its tick",
                self.clock.late_ms(now)
            )));
        }
        Ok(())
    }

    /// The model's answer to `c`'s request (the events that came with it
    /// stay for [`Run::events`]).
    pub(super) fn model_request(&mut self, c: usize, msg: Msg) -> Vec<Msg> {
        self.m.request(c + 1, msg);
        let got = self.m.take(c + 1);
        let (answers, events): (Vec<Msg>, Vec<Msg>) = got
            .into_iter()
            .partition(|m| !matches!(m, Msg::NodeDeleted { .. } | Msg::NodeChildrenChanged { .. }));
        for e in events {
            self.m.send_back(c + 1, e);
        }
        // The library's last zxid: any answer's header but a ping's.
        if !matches!(answers.as_slice(), [] | [Msg::SessionExpired { .. }]) {
            self.sides[c].zxid = self.m.ensemble().zxid;
        }
        answers
    }

    pub(super) fn model_answer(&self, answers: &[Msg]) -> Answer {
        match answers {
            [] => Answer::Lost,
            [Msg::Created { value, node }] => Answer::Created(name(&self.seqs, *value, *node)),
            [Msg::Children { children, .. }] => {
                let mut names: Vec<String> = children.iter().map(|ch| name(&self.seqs, ch.guid, ch.czxid)).collect();
                names.sort();
                Answer::Children(names)
            }
            [Msg::Stat { exists, .. }] => Answer::Stat(*exists),
            [Msg::Deleted { .. }] => Answer::Deleted,
            [Msg::SessionExpired { .. }] => Answer::SessionExpired,
            more => panic!("unexpected model answers {more:?}"),
        }
    }

    fn op(&mut self, op: Op) -> Result<(Answer, Answer), Late> {
        let skipped = |why| Ok((Answer::Skipped(why), Answer::Skipped(why)));
        let c = match op {
            Op::Create(c) | Op::List(c, _) | Op::Exists(c, _) | Op::Delete(c) | Op::Crash(c) | Op::Cut(c, _) => c,
            Op::Wait(n) => {
                for _ in 0..n {
                    self.tick()?;
                }
                return skipped("wait");
            }
            Op::Heal => return self.heal(),
        };
        if self.sides[c].cut {
            return skipped("the client is cut off");
        }
        if self.sides[c].session == 0 || self.sides[c].crashed {
            if !matches!(op, Op::Create(_)) {
                return skipped("the client has no session");
            }
            // A crashed client's old session still holds a slot until it
            // expires: wait for a free one.
            let slots = &self.m.ensemble().sessions[c * 4..c * 4 + 4];
            if slots.iter().all(|s| *s != 0) {
                return skipped("no free session slot");
            }
        }
        if matches!(op, Op::Create(_)) && (self.sides[c].session == 0 || self.sides[c].crashed || self.sides[c].expired)
        {
            self.connect(c)?;
        }
        let session = self.sides[c].session;
        let chroot_lock = "/lock";
        match op {
            Op::Create(_) => {
                self.next_value += 1;
                let value = self.next_value;
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.create_ephemeral_sequential(&format!("{chroot_lock}/_c_g{value}-lock-"));
                self.on_time("create")?;
                let mut real_czxid = None;
                let real = not_lost(real_answer(r, |(n, seq, stat)| {
                    real_czxid = Some((stat.czxid, seq));
                    Answer::Created(n)
                })?)?;
                let answers = self.model_request(
                    c,
                    Msg::Create {
                        session,
                        value,
                        mode: zkm::Mode::Exclusive,
                    },
                );
                if let [Msg::Created { value, node }] = answers.as_slice() {
                    self.guids.insert(*node, *value);
                    self.created.push(*node);
                    self.sides[c].nodes.push(*node);
                    if let Some((z, seq)) = real_czxid {
                        self.real_czxid.insert(*node, z);
                        // The sequence number counts the creates under
                        // the parent (module doc).
                        assert_eq!(seq, self.cversion, "the sequence number\n{}", self.log.join("\n"));
                        self.cversion += 1;
                        self.seqs.insert(*node, seq);
                    }
                }
                let model = self.model_answer(&answers);
                Ok((real, model))
            }
            Op::List(_, watch) => {
                let watch = watch && !self.sides[c].child_watch;
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.children(chroot_lock, watch);
                self.on_time("getChildren")?;
                let real = not_lost(real_answer(r, Answer::Children)?)?;
                let answers = self.model_request(
                    c,
                    Msg::GetChildren {
                        session,
                        value: 0,
                        watch,
                    },
                );
                let model = self.model_answer(&answers);
                if watch && matches!(model, Answer::Children(_)) {
                    self.sides[c].child_watch = true;
                }
                Ok((real, model))
            }
            Op::Exists(_, k) => {
                if self.created.is_empty() {
                    return skipped("no node yet");
                }
                if self.sides[c].exists_watch.is_some() {
                    return skipped("an exists watch is outstanding");
                }
                let node = self.created[k % self.created.len()];
                let path = format!("{chroot_lock}/{}", name(&self.seqs, self.guids[&node], node));
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.exists(&path, true);
                self.on_time("exists")?;
                let real = not_lost(real_answer(r, |s| Answer::Stat(s.is_some()))?)?;
                let answers = self.model_request(
                    c,
                    Msg::Exists {
                        session,
                        value: 0,
                        node,
                    },
                );
                let model = self.model_answer(&answers);
                if model == Answer::Stat(true) {
                    self.sides[c].exists_watch = Some(node);
                }
                Ok((real, model))
            }
            Op::Delete(_) => {
                let Some(&node) = self.sides[c].nodes.last() else {
                    return skipped("no node of its own");
                };
                let path = format!("{chroot_lock}/{}", name(&self.seqs, self.guids[&node], node));
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = match real.delete(&path) {
                    // Gone already: the model answers "done" (module doc).
                    Err(zk::Error::NoNode) => Ok(()),
                    r => r,
                };
                self.on_time("delete")?;
                let real = not_lost(real_answer(r, |()| Answer::Deleted)?)?;
                let answers = self.model_request(
                    c,
                    Msg::Delete {
                        session,
                        value: 0,
                        node,
                    },
                );
                Ok((real, self.model_answer(&answers)))
            }
            Op::Crash(_) => {
                self.touch(c)?;
                self.sides[c].real = None;
                self.sides[c].crashed = true;
                self.sides[c].exists_watch = None;
                self.sides[c].child_watch = false;
                // What the ensemble still sends it is lost with it.
                skipped("crashed")
            }
            Op::Cut(_, pending) => self.cut(c, pending),
            Op::Wait(_) | Op::Heal => unreachable!(),
        }
    }
}

pub(super) fn run_case(
    server_port: u16,
    tick: Duration,
    n: usize,
    case: &Case,
    log: &mut Vec<String>,
) -> Result<bool, String> {
    let t_ms = tick.as_millis() as u64;
    let timeout = Duration::from_millis(u64::from(case.session_timeout) * t_ms - t_ms / 2);
    let addr = SocketAddr::from(([127, 0, 0, 1], server_port));
    let chroot = format!("/case{n}");
    // The test's own sessions never expire, and a stalled machine should
    // not break their connections: a long timeout.
    let long = Duration::from_secs(20);
    let admin = ZkClient::connect(&format!("127.0.0.1:{server_port}"), long).expect("connects");
    admin.ensure(&chroot).expect("the case's root");
    admin.ensure(&format!("{chroot}/lock")).expect("/lock");
    let observer = ZkClient::connect(&format!("127.0.0.1:{server_port}{chroot}"), long).expect("connects");
    let sides = (0..CLIENTS)
        .map(|_| Side {
            proxy: Proxy::start(addr).expect("a proxy"),
            real: None,
            session: 0,
            expired: false,
            crashed: false,
            cut: false,
            zxid: 0,
            expired_at: None,
            exists_watch: None,
            child_watch: false,
            nodes: Vec::new(),
        })
        .collect();
    let mut run = Run {
        chroot,
        timeout,
        // Cases running at once keep their grid points apart.
        clock: Clock {
            start: Instant::now() + tick + tick * (n % 5) as u32 / 5,
            tick,
            now: 0,
        },
        m: Model::new(case.session_timeout),
        sides,
        observer,
        guids: BTreeMap::new(),
        real_czxid: BTreeMap::new(),
        seqs: BTreeMap::new(),
        cversion: 0,
        created: Vec::new(),
        next_value: 0,
        log,
    };
    log_case(&mut run, case);
    for (i, op) in case.ops.iter().enumerate() {
        run.clock.wait_for_grid();
        run.log.push(format!("tick {}: {op:?}", run.clock.now));
        let result = run.op(*op).and_then(|(real, model)| {
            run.log.push(format!("  real {real:?}, model {model:?}"));
            assert_eq!(real, model, "answer to operation {i} ({op:?})\n{}", run.log.join("\n"));
            run.compare_state()
        });
        if let Err(Late(why)) = result {
            run.log.push(format!("  {why}: the case stops here"));
            return Ok(false);
        }
        // The czxid order is the model's (the fencing token's) order.
        let mut by_model: Vec<(u32, i64)> = run.real_czxid.iter().map(|(m, r)| (*m, *r)).collect();
        by_model.sort();
        assert!(
            by_model.windows(2).all(|w| w[0].1 < w[1].1),
            "czxid order differs: {by_model:?}\n{}",
            run.log.join("\n")
        );
        run.advance();
    }
    Ok(true)
}

fn log_case(run: &mut Run<'_>, case: &Case) {
    run.log.push(format!(
        "session timeout {} ticks ({} ms asked), tick {} ms, {}",
        case.session_timeout,
        run.timeout.as_millis(),
        run.clock.tick.as_millis(),
        run.chroot
    ));
}
