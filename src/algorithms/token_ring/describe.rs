//! The family's words: how messages, steps, timers and states are shown.

use super::{Msg, Node, State, Step, Timer};
use crate::algorithms::coordinator::{show_phase, show_resource};
use crate::world::Describe;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Token => "TOKEN".into(),
            Msg::TopToken => "TOKEN (top ring)".into(),
            Msg::Resource(m) => show_resource(m),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Enter => "Enter (with the token)",
            Step::Pass => "Pass (the token on)",
            Step::Write => "Write",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::Lost => "token lost (regenerate)".into(),
        }
    }

    fn show_state(&self, state: &State, _names: &[String]) -> Option<Vec<(String, String)>> {
        let plain = |n: u32| if n == 0 { "none".to_string() } else { n.to_string() };
        Some(match state {
            State::Node(n) => vec![
                ("phase".into(), show_phase(n.script.phase)),
                ("left".into(), n.script.left.to_string()),
                (
                    "token".into(),
                    match n.tokens {
                        0 => "no",
                        1 => "held",
                        _ => "two held",
                    }
                    .into(),
                ),
                ("acquisition".into(), plain(n.ghost)),
            ],
            State::Resource(r) => vec![("latest acquisition written".into(), plain(r.max_ghost))],
        })
    }
}
