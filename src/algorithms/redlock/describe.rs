//! The words of `redlock`: Redis commands and replies, steps, timers and
//! node states as reports and traces show them.

use super::{Elapsed, Fencing, Msg, Node, Requests, Restart, State, Step, Timer};
use crate::algorithms::prelude::*;
use crate::world::Action;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Master(p) if p.restart == Restart::Fsync => "with its fsynced keys",
            Node::Master(p) if p.restart == Restart::Delayed => "empty, silent for one TTL",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        let v = |v: &u32| show::value(*v);
        match msg {
            Msg::Lock { value } => match self.params() {
                Some(p) => format!("SET lock {} NX PX {}", v(value), p.ttl),
                None => format!("SET lock {} NX PX ttl", v(value)),
            },
            Msg::Locked { value, ok: true } => format!("OK ({})", v(value)),
            Msg::Locked { value, ok: false } => format!("nil ({})", v(value)),
            Msg::Unlock { value } => format!("EVAL compare-and-delete lock {}", v(value)),
            Msg::Incr { value } => format!("INCR fence ({})", v(value)),
            Msg::Token { value, token } => format!("(integer) {token} ({})", v(value)),
            Msg::Resource(m) => match self.params().map(|p| p.fencing) {
                Some(Fencing::LockValue) => m.show(&show::value),
                _ => m.show(&show::token),
            },
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => match self.params().map(|p| p.requests) {
                Some(Requests::Sequential) => "asks the first master for the lock".into(),
                _ => "asks every master for the lock".into(),
            },
            Step::Backoff(ticks) => format!("draws a back-off of {ticks} ticks"),
            Step::Check => "checks its validity".into(),
            Step::Write => "writes to the resource".into(),
        }
    }

    /// A client's two validity decisions, with the numbers the model used:
    /// T2 (every master answered, or the timeout) computes `validity_left`
    /// from the stopwatch, as `client::decide` does; Check compares the
    /// validity timer with the margin, as `client_step` does.
    fn decision(
        &self,
        id: Id,
        before: &crate::world::Node<Node>,
        after: &crate::world::Node<Node>,
        action: &Action<Node>,
    ) -> Option<String> {
        let (Node::Client(p), State::Client(b), State::Client(a)) = (self, &before.state, &after.state) else {
            return None;
        };
        if !after.is_up() {
            return None;
        }
        match action {
            Action::Step { node, step: Step::Check } if *node == id => {
                let left = before.timer(Timer::Validity).map_or("none".into(), |v| v.to_string());
                Some(if a.checked {
                    format!("finds validity left {left} > margin {}: goes on to write", p.margin)
                } else {
                    format!("finds validity left {left} ≤ margin {}: gives up", p.margin)
                })
            }
            Action::Deliver { dst, .. } | Action::Fire { node: dst, .. } if *dst != id => None,
            _ if b.script.phase == Phase::Acquiring && a.script.phase != Phase::Acquiring => {
                let mut yes = b.yes;
                if let Action::Deliver { src, msg: Msg::Locked { value, ok: true }, .. } = action {
                    if *value == b.value {
                        yes |= 1 << src;
                    }
                }
                let won = yes.count_ones();
                if won < p.quorum() {
                    return Some(format!(
                        "has OK from {won} of {} masters, fewer than a majority of {}: gives up",
                        p.masters,
                        p.quorum()
                    ));
                }
                // The same call as `client::decide`; a stopwatch that is not
                // running counts as the whole TTL there, and so here.
                let elapsed = before.elapsed(Elapsed);
                let shown = elapsed.unwrap_or(p.ttl);
                let value = i16::from(p.ttl) - i16::from(shown) - i16::from(p.drift);
                let sum = format!("validity {} − {shown} − {} = {value}", p.ttl, p.drift);
                Some(match validity_left(p.ttl, elapsed, p.drift) {
                    Some(_) => format!("has OK from {won} of {} masters and {sum} ticks", p.masters),
                    None => format!("has OK from {won} of {} masters, but {sum} ≤ 0: gives up", p.masters),
                })
            }
            _ => None,
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::KeyExpiry => "key TTL",
            Timer::Recovered => "restart delay",
            Timer::Timeout => "request timeout",
            Timer::Validity => "validity timer",
            Timer::Retry => "back-off",
        }
        .into()
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let fencing = self.params().map_or(Fencing::None, |p| p.fencing);
        Some(match state {
            State::Master(m) => {
                let mut out = vec![show::field("lock", m.key.map_or("none".into(), show::value))];
                if self.params().is_some_and(|p| p.restart == Restart::Delayed) {
                    out.push(show::field("silent", show::yes(m.recovering)));
                }
                out
            }
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field(field::VALUE, show::value(c.value)));
                out.push(show::field("answered", show::mask(c.answered.into(), names)));
                out.push(show::field("OK from", show::mask(c.yes.into(), names)));
                out.push(show::field(field::VALIDITY_CHECKED, show::yes(c.checked)));
                match fencing {
                    Fencing::None => {}
                    Fencing::LockValue => out.push(show::field(field::TOKEN, c.token.map_or("none".into(), show::value))),
                    Fencing::Counter => out.push(show::field(field::TOKEN, c.token.map_or("none".into(), show::token))),
                }
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                out.push(show::field("drawing a back-off", show::yes(c.drawing)));
                out
            }
            State::Counter(n) => vec![show::field("fence", n)],
            State::Resource(r) => match fencing {
                Fencing::None => r.show(None),
                Fencing::LockValue => r.show(Some(&show::value)),
                Fencing::Counter => r.show(Some(&show::token)),
            },
        })
    }
}
