//! The client, which follows the recipe: its state, its steps (Acquire,
//! Check, Write, Read), its handlers, its timers and its reconnection.

use super::{Child, Mode, Msg, Node, Params, Step, Timer, Watch, ENSEMBLE};
use crate::algorithms::prelude::*;

/// Where an acquiring client is in the recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Wait {
    /// Not acquiring.
    Idle,
    /// `create` sent.
    Creating,
    /// `getChildren` sent.
    Listing,
    /// `exists` with a watch sent on `target`.
    Checking,
    /// Waiting for a watch to fire.
    Watching,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// The session id, 0 for none.
    #[rewrite(value)]
    pub session: u32,
    /// The current attempt's value (the guid), 0 between attempts.
    #[rewrite(value)]
    pub value: u32,
    /// The czxid of the client's node, 0 while unknown.
    #[rewrite(token)]
    pub node: u32,
    pub wait: Wait,
    /// The node watched (predecessor), 0 for none.
    #[rewrite(token)]
    pub target: u32,
    /// Curator: checked that the connection is not suspended.
    pub checked: bool,
    #[rewrite(ghost)]
    pub ghost: u32,
    /// The client library has noticed that its connection broke and has
    /// not reconnected yet.
    pub disconnected: bool,
    /// The zxid of the listing that set the client's child watch: the
    /// `relativeZxid` of its SetWatches (0 where connections cannot break).
    #[rewrite(token)]
    pub zxid: u32,
}

impl Client {
    pub(super) fn fresh(acquisitions: u8) -> Self {
        Client {
            script: Script::new(acquisitions),
            session: 0,
            value: 0,
            node: 0,
            wait: Wait::Idle,
            target: 0,
            checked: false,
            ghost: 0,
            disconnected: false,
            zxid: 0,
        }
    }

    /// Drops what only mattered to the attempt or hold that just ended.
    fn forget(&mut self) {
        self.value = 0;
        self.node = 0;
        self.wait = Wait::Idle;
        self.target = 0;
        self.checked = false;
        self.ghost = 0;
        self.zxid = 0;
    }
}

/// The client's steps: Acquire when it wants the lock, Check (Curator),
/// Write or Read when it holds it.
pub(super) fn steps(p: &Params, mode: Mode, ctx: &Ctx<'_, Node>, c: &Client, steps: &mut Vec<Step>) {
    match c.script.phase {
        // A request made while the library reconnects waits in its
        // outgoing queue (ClientCnxn.queuePacket): the step waits.
        Phase::Want if ctx.timer(Timer::Retry).is_none() && !c.disconnected => steps.push(Step::Acquire),
        // A Curator holder uses the lock only while its connection is
        // not SUSPENDED: suspended, it waits for RECONNECTED or LOST.
        Phase::Holding if p.curator() && !c.checked => {
            let connected = ctx.timer(Timer::Suspend).is_some_and(|t| t > 0);
            steps.extend(connected.then_some(Step::Check))
        }
        Phase::Holding if mode == Mode::Read => steps.push(Step::Read),
        Phase::Holding => steps.push(Step::Write),
        _ => {}
    }
}

/// The client's steps, in the spec's order.
pub(super) fn on_step(p: &Params, mode: Mode, c: &mut Client, step: Step, out: &mut Out<Node>) {
    match step {
        // Acquire: connect if there is no session, then create the node.
        Step::Acquire => {
            if c.session == 0 {
                c.session = out.fresh_value();
                out.send(ENSEMBLE, Msg::Connect { session: c.session });
                out.set_timer(Timer::Ping, p.ping);
                if p.curator() {
                    out.set_timer(Timer::Suspend, p.suspend_after);
                }
            }
            create(p, mode, c, out);
            c.script.phase = Phase::Acquiring;
        }
        // Check (Curator): is the connection still there? Only then use it.
        Step::Check => c.checked = true,
        // Write: the critical section's write, with the czxid if fenced.
        Step::Write => {
            let token = if p.fencing { c.node } else { 0 };
            send_write(&mut c.script, p.resource(), token, c.ghost, out);
        }
        // Read: a reader's critical section; then delete its node.
        Step::Read => release(p, c, out),
    }
}

/// The client's handlers. Answers to an earlier attempt (another value),
/// and events for another session, are ignored.
pub(super) fn client_receive(p: &Params, mode: Mode, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    // Curator: any answer from the ensemble shows the connection is up
    // (RECONNECTED after SUSPENDED).
    if p.curator() && c.session != 0 && !matches!(msg, Msg::Resource(_)) {
        out.set_timer(Timer::Suspend, p.suspend_after);
        out.cancel_timer(Timer::Lost);
    }
    let acquiring = c.script.phase == Phase::Acquiring;
    match msg {
        Msg::Created { value, node } if acquiring && value == c.value && c.wait == Wait::Creating => {
            c.node = node;
            list(p, c, out);
        }
        Msg::Children {
            value,
            children,
            ghost,
            zxid,
        } if acquiring && value == c.value && c.wait == Wait::Listing => {
            out.cancel_timer(Timer::Timeout);
            c.zxid = zxid;
            decide(p, mode, c, &children, ghost, out);
        }
        Msg::Stat { value, exists } if acquiring && value == c.value && c.wait == Wait::Checking => {
            out.cancel_timer(Timer::Timeout);
            if exists {
                c.wait = Wait::Watching;
            } else {
                list(p, c, out);
            }
        }
        Msg::NodeDeleted { session, node }
            if acquiring && session == c.session && c.wait == Wait::Watching && node == c.target =>
        {
            list(p, c, out)
        }
        Msg::NodeChildrenChanged { session } if acquiring && session == c.session && c.wait == Wait::Watching => {
            list(p, c, out)
        }
        // Release: the write is answered, so the critical section is over.
        Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected) if c.script.phase == Phase::Writing => {
            release(p, c, out)
        }
        Msg::Deleted { value } if c.script.phase == Phase::Releasing && value == c.value => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        // The session is gone, and the node with it.
        Msg::SessionExpired { session } if session == c.session => expired(p, c, out),
        _ => {}
    }
}

/// The session is gone (SESSION_EXPIRED from the ensemble, or Curator's
/// LOST), and the client's node with it: an attempt or a hold is lost.
fn expired(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.session = 0;
    out.cancel_timer(Timer::Ping);
    out.cancel_timer(Timer::Suspend);
    out.cancel_timer(Timer::Lost);
    match c.script.phase {
        Phase::Acquiring | Phase::Holding | Phase::Writing => {
            out.cancel_timer(Timer::Timeout);
            retry_later(p, c, out);
        }
        Phase::Releasing => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        Phase::Want | Phase::Done => {}
    }
}

/// The client's timers: Ping, Timeout, Suspend and Lost (Retry needs no
/// handler: Acquire waits while it is set).
pub(super) fn on_timer(p: &Params, mode: Mode, c: &mut Client, timer: Timer, out: &mut Out<Node>) {
    match timer {
        Timer::Ping if c.session != 0 => {
            if !c.disconnected {
                out.send(ENSEMBLE, Msg::Ping { session: c.session });
            }
            out.set_timer(Timer::Ping, p.ping);
        }
        Timer::Timeout => match (c.script.phase, c.wait) {
            // Without the protection prefix the client cannot tell
            // whether its create took effect, and sends it again.
            (Phase::Acquiring, Wait::Creating) if !p.protection => create(p, mode, c, out),
            (Phase::Acquiring, _) => list(p, c, out),
            (Phase::Releasing, _) => delete(p, c, out),
            _ => {}
        },
        // SUSPENDED: a holder that has not checked stops using the lock.
        // SUSPENDED: Curator's ConnectionStateManager declares the
        // session LOST once it has been suspended for a session timeout.
        Timer::Suspend if c.session != 0 => out.set_timer(Timer::Lost, p.session_timeout),
        // LOST: the client treats its session as expired (Curator
        // injects the expiration and opens a new handle when next used).
        Timer::Lost if c.session != 0 => expired(p, c, out),
        _ => {}
    }
}

/// The connection broke (`Actor::on_disconnect` in mod.rs says what
/// ClientCnxn does then).
pub(super) fn on_disconnect(p: &Params, ctx: &Ctx<'_, Node>, c: &mut Client, out: &mut Out<Node>) {
    c.disconnected = true;
    out.cancel_timer(Timer::Timeout);
    if p.curator() && c.session != 0 {
        out.cancel_timer(Timer::Suspend);
        if ctx.timer(Timer::Lost).is_none() {
            out.set_timer(Timer::Lost, p.session_timeout);
        }
    }
}

/// The connection is back (`Actor::on_reconnect` in mod.rs says what
/// ClientCnxn and the recipe do then).
pub(super) fn on_reconnect(p: &Params, mode: Mode, c: &mut Client, out: &mut Out<Node>) {
    c.disconnected = false;
    if c.session == 0 {
        return;
    }
    let watching = c.script.phase == Phase::Acquiring && c.wait == Wait::Watching;
    out.send(
        ENSEMBLE,
        Msg::Reconnect {
            session: c.session,
            zxid: c.zxid,
            node: if watching { c.target } else { 0 },
            children: watching && p.watch == Watch::All,
        },
    );
    match (c.script.phase, c.wait) {
        (Phase::Acquiring, Wait::Creating) if !p.protection => create(p, mode, c, out),
        (Phase::Acquiring, Wait::Creating | Wait::Listing | Wait::Checking) => list(p, c, out),
        (Phase::Releasing, _) => delete(p, c, out),
        _ => {}
    }
}

/// The recipe's step 1: `create` the node under a fresh attempt value
/// (the guid of the protection prefix).
fn create(p: &Params, mode: Mode, c: &mut Client, out: &mut Out<Node>) {
    c.value = out.fresh_value();
    out.send(
        ENSEMBLE,
        Msg::Create {
            session: c.session,
            value: c.value,
            mode,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
    c.wait = Wait::Creating;
}

/// The recipe's step 2: `getChildren /lock` (with a watch in the herd
/// variant).
fn list(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(
        ENSEMBLE,
        Msg::GetChildren {
            session: c.session,
            value: c.value,
            watch: p.watch == Watch::All,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
    c.wait = Wait::Listing;
    c.target = 0;
}

/// The recipe's decision on the children: hold when no lower node blocks,
/// else watch. A client whose node is not there (its create never reached
/// the ensemble) tries again.
fn decide(p: &Params, mode: Mode, c: &mut Client, children: &[Child], ghost: u32, out: &mut Out<Node>) {
    // With the protection prefix the client finds its node by its guid;
    // without it, only by the name the create's answer gave.
    let Some(mine) = children.iter().find(|ch| {
        if p.protection {
            ch.guid == c.value
        } else {
            ch.czxid == c.node
        }
    }) else {
        retry_later(p, c, out);
        return;
    };
    c.node = mine.czxid;
    let below = children
        .iter()
        .filter(|ch| ch.czxid < mine.czxid && mode.blocked_by(ch.mode))
        .map(|ch| ch.czxid)
        .max();
    match (below, p.watch) {
        (None, _) => {
            c.wait = Wait::Idle;
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
        }
        (Some(_), Watch::All) => c.wait = Wait::Watching,
        (Some(next), Watch::Predecessor) => {
            c.target = next;
            out.send(
                ENSEMBLE,
                Msg::Exists {
                    session: c.session,
                    value: c.value,
                    node: next,
                },
            );
            out.set_timer(Timer::Timeout, p.timeout);
            c.wait = Wait::Checking;
        }
    }
}

/// The critical section is over: delete the node.
fn release(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    delete(p, c, out);
    c.script.phase = Phase::Releasing;
}

/// The attempt is lost: want the lock again after the back-off.
fn retry_later(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.script.phase = Phase::Want;
    c.forget();
    out.set_timer(Timer::Retry, p.retry);
}

/// The delete is answered: want again, or close the session and stop.
fn released(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.script.released(p.acquisitions);
    c.forget();
    if c.script.phase == Phase::Done && c.session != 0 {
        out.send(ENSEMBLE, Msg::CloseSession { session: c.session });
        out.cancel_timer(Timer::Ping);
        out.cancel_timer(Timer::Suspend);
        out.cancel_timer(Timer::Lost);
        c.session = 0;
    }
}

/// Sends the release's `delete` of the client's node (again, after a
/// timeout or a reconnect), with its timeout.
fn delete(p: &Params, c: &Client, out: &mut Out<Node>) {
    out.send(
        ENSEMBLE,
        Msg::Delete {
            session: c.session,
            value: c.value,
            node: c.node,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
}
