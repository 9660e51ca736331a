//! The words of `single-redis`: Redis commands and replies, steps, timers
//! and node states as reports and traces show them.

use super::{Command, Expire, Msg, Node, Release, Restart, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Server(p) if p.restart == Restart::Fsync => "with its fsynced keys",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        let p = self.params();
        let v = |v: &u32| show::value(*v);
        match msg {
            Msg::SetNx { value } => format!("SETNX lock {}", v(value)),
            Msg::SetNxPx { value } => format!("SET lock {} NX PX {}", v(value), p.ttl),
            Msg::Expire { .. } => format!("EXPIRE lock {}", p.ttl),
            Msg::Del { .. } => "DEL lock".into(),
            Msg::CompareAndDelete { value } => format!("EVAL compare-and-delete lock {}", v(value)),
            Msg::Renew { value } => format!("EVAL renew lock {} PX {}", v(value), p.ttl),
            Msg::Granted { value, token: 0, .. } => format!("OK ({})", v(value)),
            Msg::Granted { value, token, .. } => format!("OK, INCR fence: (integer) {token} ({})", v(value)),
            Msg::Refused { value } => format!("nil ({})", v(value)),
            Msg::ExpireSet { value } => format!("EXPIRE done ({})", v(value)),
            Msg::Released { value } => match p.release {
                Release::Del => format!("DEL done ({})", v(value)),
                Release::CompareAndDelete => format!("EVAL done ({})", v(value)),
            },
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "asks for the lock",
            Step::Expire => "sets the key's expiry",
            Step::Check => "checks its validity",
            Step::Write => "writes to the resource",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::KeyExpiry => "key TTL",
            Timer::Retry => "back-off",
            Timer::Renew => "watchdog",
            Timer::Timeout => "request timeout",
            Timer::Validity => "validity timer",
        }
        .into()
    }

    fn show_state(&self, state: &State, _names: &[String]) -> Option<Vec<(String, String)>> {
        let p = self.params();
        Some(match state {
            State::Server(s) => {
                let mut out = vec![show::field(
                    "lock",
                    s.key.map_or("none".into(), |k| show::value(k.value)),
                )];
                if p.fencing {
                    out.push(show::field("fence", s.fence));
                }
                out
            }
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field(field::VALUE, show::value(c.value)));
                if p.command == Command::SetnxExpire {
                    let expire = match c.expire {
                        Expire::Done => "done",
                        Expire::ToSend => "to send",
                        Expire::Sent => "sent",
                    };
                    out.push(show::field("EXPIRE", expire));
                }
                if p.validity() {
                    out.push(show::field(field::VALIDITY_CHECKED, show::yes(c.checked)));
                }
                if p.fencing {
                    out.push(show::field(field::TOKEN, show::token(c.token)));
                }
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                out
            }
            State::Resource(r) => r.show(p.fencing.then_some(&show::token as &dyn Fn(u32) -> String)),
        })
    }
}
