//! The words of `ricart-agrawala`: REQUEST and REPLY, steps and node
//! states (the paper's variables) as reports and traces show them.

use super::{Msg, Node, Replies, State, Step, Timer};
use crate::algorithms::client::{show, Phase};
use crate::algorithms::coordinator::show_resource;
use crate::world::Describe;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        "fsync"
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Request { ts } => format!("REQUEST(ts {ts})"),
            Msg::Reply => "REPLY".to_string(),
            Msg::TaggedReply { ts } => format!("REPLY(to ts {ts})"),
            Msg::Resource(m) => show_resource(m),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Request => "Request",
            Step::Enter => "Enter (all replies counted)",
            Step::Write => "Write",
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
                return Some(vec![show::field(
                    "latest acquisition written",
                    show::ghost(r.max_ghost),
                )])
            }
            (Node::Resource, State::Peer(_)) => return None,
        };
        let phase = match s.script.phase {
            Phase::Want => "wants",
            Phase::Acquiring => "requesting",
            Phase::Holding => "in critical section",
            Phase::Writing => "writing",
            Phase::Done => "done",
            Phase::Releasing => "releasing",
        };
        let deferred: Vec<&str> = (0..names.len())
            .filter(|&j| s.deferred & (1 << j) != 0)
            .map(|j| names[j].as_str())
            .collect();
        let mut fields = vec![
            ("phase".to_string(), phase.to_string()),
            ("highest sequence number".to_string(), s.highest.to_string()),
            (
                "our sequence number".to_string(),
                s.request.map_or("none".to_string(), |ts| ts.to_string()),
            ),
            ("outstanding replies".to_string(), s.outstanding.to_string()),
            ("deferred".to_string(), format!("{{{}}}", deferred.join(", "))),
        ];
        if p.replies == Replies::Tagged {
            let replied: Vec<&str> = (0..names.len())
                .filter(|&j| s.replied & (1 << j) != 0)
                .map(|j| names[j].as_str())
                .collect();
            fields.push(("replied".to_string(), format!("{{{}}}", replied.join(", "))));
        }
        fields.push(show::field("acquisition", show::ghost(s.ghost)));
        if p.acquisitions > 0 {
            fields.push(("acquisitions left".to_string(), s.script.left.to_string()));
        }
        Some(fields)
    }
}
