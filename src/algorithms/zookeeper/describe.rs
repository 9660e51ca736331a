//! The family's words: how messages, steps, timers and states are shown.

use super::{Child, Msg, Node, Params, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Connect { session } => format!("connect (new session {})", show_session(*session)),
            Msg::Reconnect {
                session,
                zxid,
                node,
                children,
            } => {
                let mut watches = Vec::new();
                if *node != 0 {
                    watches.push(format!("exists /lock/{}", show_seq(*node)));
                }
                if *children {
                    watches.push("getChildren /lock".to_string());
                }
                format!(
                    "connect (session {}), setWatches (zxid {zxid}: {})",
                    show_session(*session),
                    if watches.is_empty() {
                        "none".into()
                    } else {
                        watches.join(", ")
                    }
                )
            }
            Msg::Create { session, value, mode } => format!(
                "create /lock/{}{} EPHEMERAL_SEQUENTIAL (session {})",
                if self.params().protection {
                    format!("_c_g{value}-")
                } else {
                    String::new()
                },
                mode.prefix(),
                show_session(*session)
            ),
            Msg::GetChildren { watch, .. } => {
                format!("getChildren /lock{}", if *watch { " watch" } else { "" })
            }
            Msg::Exists { node, .. } => format!("exists /lock/{} watch", show_seq(*node)),
            Msg::Delete { node, .. } => format!("delete /lock/{}", show_seq(*node)),
            Msg::Ping { .. } => "ping".into(),
            Msg::CloseSession { session } => format!("closeSession {}", show_session(*session)),
            Msg::Created { value, node } => format!("created (g{value}, {})", show_seq(*node)),
            Msg::Children { children, .. } => {
                let names: Vec<String> = children.iter().map(|ch| show_child(self.params(), ch)).collect();
                format!("[{}]", names.join(", "))
            }
            Msg::Stat { exists, .. } => (if *exists { "stat" } else { "null" }).into(),
            Msg::Deleted { .. } => "OK".into(),
            Msg::Pong { .. } => "pong".into(),
            Msg::SessionExpired { session } => format!("SESSION_EXPIRED ({})", show_session(*session)),
            Msg::NodeDeleted { node, .. } => format!("WatchedEvent NodeDeleted /lock/{}", show_seq(*node)),
            Msg::NodeChildrenChanged { .. } => "WatchedEvent NodeChildrenChanged /lock".into(),
            Msg::Resource(ResourceMsg::Write { token, ghost }) if *token > 0 => {
                format!("write (czxid {token}, acquisition {})", show::ghost(*ghost))
            }
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => format!("asks for the lock: create {} EPHEMERAL_SEQUENTIAL", self.create_path()),
            Step::Check => "checks its connection is not SUSPENDED".into(),
            Step::Write => "writes to the resource".into(),
            Step::Read => "reads the resource, then deletes its node".into(),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::SessionExpiry { slot } => {
                let c = *slot as usize / self.params().slots as usize + 1;
                format!("session expiry (c{c})")
            }
            Timer::Ping => "ping".into(),
            Timer::Timeout => "request timeout".into(),
            Timer::Suspend => "connection timeout (SUSPENDED)".into(),
            Timer::Retry => "retry".into(),
            Timer::Lost => "suspended for the session timeout (LOST)".into(),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let p = self.params();
        let pairs: Vec<(&str, String)> = match state {
            State::Ensemble(e) => {
                let sessions: Vec<String> = e
                    .sessions
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| **s != 0)
                    .map(|(i, s)| format!("{} of {}", show_session(*s), names[i / p.slots as usize + 1]))
                    .collect();
                let children: Vec<String> = e
                    .children
                    .iter()
                    .map(|z| format!("{} ({})", show_child(p, &z.child), show_session(z.session)))
                    .collect();
                let data: Vec<String> = e
                    .data_watches
                    .iter()
                    .map(|(n, s)| format!("{} by {}", show_seq(*n), show_session(*s)))
                    .collect();
                let child: Vec<String> = e.child_watches.iter().map(|s| show_session(*s)).collect();
                vec![
                    ("zxid", e.zxid.to_string()),
                    ("sessions", set(&sessions)),
                    ("/lock", set(&children)),
                    ("exists watches", set(&data)),
                    ("child watches", set(&child)),
                ]
            }
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field("session", opt(c.session, show_session)));
                out.push(show::field("guid", opt(c.value, |v| format!("g{v}"))));
                out.push(show::field("node", opt(c.node, show_seq)));
                out.push(show::field(field::RECIPE_STEP, format!("{:?}", c.wait).to_lowercase()));
                out.push(show::field("watching", opt(c.target, show_seq)));
                if p.curator() {
                    out.push(show::field(field::CONNECTION_CHECKED, show::yes(c.checked)));
                }
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                return Some(out);
            }
            State::Resource(r) => {
                let czxid = |t: u32| format!("czxid {t}");
                return Some(r.show(p.fencing.then_some(&czxid as &dyn Fn(u32) -> String)));
            }
        };
        Some(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

impl Node {
    /// The path a client's `create` names before the ensemble appends the
    /// sequence number: its mode's prefix, behind Curator's protection
    /// prefix `_c_<guid>-` when there is one (the guid is drawn at the
    /// step, so the label writes it `…`).
    fn create_path(&self) -> String {
        let prefix = match self {
            Node::Client(_, mode) => mode.prefix(),
            _ => "lock-",
        };
        let guid = if self.params().protection { "_c_…-" } else { "" };
        format!("/lock/{guid}{prefix}")
    }
}

/// A number the state keeps as 0 for "none yet", shown by `show` otherwise.
fn opt(v: u32, show: impl Fn(u32) -> String) -> String {
    if v == 0 {
        "none".into()
    } else {
        show(v)
    }
}

fn show_session(s: u32) -> String {
    format!("0x{s:x}")
}

fn show_seq(czxid: u32) -> String {
    format!("#{czxid:010}")
}

/// A node's name: with the protection prefix, `_c_<guid>-`; without it,
/// the name says nothing of the attempt (the model keeps the guid beside
/// the node only to match answers and ghosts).
fn show_child(p: &Params, ch: &Child) -> String {
    if p.protection {
        format!("_c_g{}-{}{:010}", ch.guid, ch.mode.prefix(), ch.czxid)
    } else {
        format!("{}{:010}", ch.mode.prefix(), ch.czxid)
    }
}

fn set(items: &[String]) -> String {
    format!("{{{}}}", items.join(", "))
}
