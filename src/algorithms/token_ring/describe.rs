//! The family's words: how messages, steps, timers and states are shown.

use super::{Msg, Node, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Token => "TOKEN".into(),
            Msg::TopToken => "TOKEN (top ring)".into(),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Enter => "enters the critical section with the TOKEN",
            Step::Pass => "passes the TOKEN on",
            Step::Write => "writes to the resource",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::Lost => "token lost (regenerate)".into(),
        }
    }

    fn show_state(&self, state: &State, _names: &[String]) -> Option<Vec<(String, String)>> {
        Some(match state {
            State::Node(n) => {
                let token = match n.tokens {
                    0 => "no",
                    1 => "held",
                    _ => "two held",
                };
                let mut out = show::script(&n.script);
                out.push(show::field("TOKEN", token));
                out.push(show::field(field::ACQUISITION, show::ghost(n.ghost)));
                out
            }
            State::Resource(r) => r.show(None),
        })
    }
}
