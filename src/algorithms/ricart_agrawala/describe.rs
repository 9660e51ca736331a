//! The words of `ricart-agrawala`: REQUEST and REPLY, steps and node
//! states (the paper's variables) as reports and traces show them.

use super::{Msg, Node, Replies, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        "fsync"
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Request { ts } => format!("REQUEST(ts {ts})"),
            Msg::Reply => "REPLY".to_string(),
            Msg::TaggedReply { ts } => format!("REPLY(to ts {ts})"),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    /// The paper's REQUEST carries the sender's sequence number and its
    /// node number j (ties go to the lower j); the model keeps j as the
    /// envelope's source, so the trace writes the sender's name there.
    fn show_sent(&self, msg: &Msg, src: Id, names: &[String]) -> String {
        match msg {
            Msg::Request { ts } => format!("REQUEST(ts {ts}, {})", names.get(src).map_or("?", String::as_str)),
            _ => self.show_msg(msg, names),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Request => "asks for the critical section: REQUEST to every other node",
            Step::Enter => "enters the critical section (every REPLY in)",
            Step::Write => "writes to the resource",
        }
        .to_string()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match *timer {}
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let (p, s) = match (self, state) {
            (Node::Peer(p), State::Peer(s)) => (p, s),
            (_, State::Resource(r)) => {
                return Some(r.show(None))
            }
            (Node::Resource, State::Peer(_)) => return None,
        };
        let deferred: Vec<&str> = (0..names.len())
            .filter(|&j| s.deferred & (1 << j) != 0)
            .map(|j| names[j].as_str())
            .collect();
        let mut fields = show::script(&s.script);
        fields.extend([
            ("highest sequence number".to_string(), s.highest.to_string()),
            (
                "our sequence number".to_string(),
                s.request.map_or("none".to_string(), |ts| ts.to_string()),
            ),
            ("outstanding replies".to_string(), s.outstanding.to_string()),
            ("deferred".to_string(), format!("{{{}}}", deferred.join(", "))),
        ]);
        if p.replies == Replies::Tagged {
            let replied: Vec<&str> = (0..names.len())
                .filter(|&j| s.replied & (1 << j) != 0)
                .map(|j| names[j].as_str())
                .collect();
            fields.push(("replied".to_string(), format!("{{{}}}", replied.join(", "))));
        }
        fields.push(show::field(field::ACQUISITION, show::ghost(s.ghost)));
        Some(fields)
    }
}
