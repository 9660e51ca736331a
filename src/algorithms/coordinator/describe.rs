//! The coordinator family's words: its messages, steps, timers and states
//! as traces and reports show them; the phase and resource words other
//! families borrow.

use std::fmt::Write as _;

use super::{Msg, Node, Request, State, Step, Timer};
use crate::algorithms::client::Phase;
use crate::algorithms::resource::ResourceMsg;
use crate::world::Describe;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, names: &[String]) -> String {
        match msg {
            Msg::Request { id } => format!("REQUEST(r{id})"),
            Msg::Grant { id, ghost } => format!("GRANT(r{id}, acquisition {ghost})"),
            Msg::Release { id } => format!("RELEASE(r{id})"),
            Msg::Replicate { holder, queue } => format!(
                "REPLICATE(holder {}, queue {})",
                show_holder(holder, names),
                show_queue(queue, names)
            ),
            Msg::Ack { id } => format!("ACK(r{id})"),
            Msg::Restarted => "RESTARTED".into(),
            Msg::Coordinator => "COORDINATOR".into(),
            Msg::Heartbeat => "HEARTBEAT".into(),
            Msg::HeartbeatAck => "HEARTBEAT_ACK".into(),
            Msg::ClientRestarted => "CLIENT_RESTARTED".into(),
            Msg::Resource(m) => show_resource(m),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "Acquire (sends REQUEST)".into(),
            Step::Write => "Write".into(),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::Heartbeat => "heartbeat interval".into(),
            Timer::Suspect => "no heartbeat (suspect the coordinator)".into(),
            Timer::AckTimeout => "no heartbeat ack (suspect the standby)".into(),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        Some(match state {
            State::Server(s) => vec![
                ("mode".into(), format!("{:?}", s.mode).to_lowercase()),
                ("holder".into(), show_holder(&s.holder, names)),
                ("queue".into(), show_queue(&s.queue, names)),
                ("replicating".into(), s.replicating.to_string()),
                ("alone".into(), s.alone.to_string()),
            ],
            State::Client(c) => vec![
                ("phase".into(), show_phase(c.script.phase)),
                ("left".into(), c.script.left.to_string()),
                ("request".into(), show_id(c.id)),
                ("last released".into(), show_id(c.released)),
                ("acquisition".into(), show_id_plain(c.ghost)),
                ("coordinator".into(), names[c.coordinator].clone()),
            ],
            State::Resource(r) => vec![("latest acquisition written".into(), show_id_plain(r.max_ghost))],
        })
    }
}

fn show_id(id: u32) -> String {
    if id == 0 {
        "none".into()
    } else {
        format!("r{id}")
    }
}

fn show_id_plain(n: u32) -> String {
    if n == 0 {
        "none".into()
    } else {
        n.to_string()
    }
}

fn show_holder(holder: &Option<(Request, u32)>, names: &[String]) -> String {
    match holder {
        None => "none".into(),
        Some((r, _)) => format!("{} r{}", names[r.client], r.id),
    }
}

fn show_queue(queue: &[Request], names: &[String]) -> String {
    let mut s = String::from("[");
    for (i, r) in queue.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(s, "{sep}{} r{}", names[r.client], r.id);
    }
    s.push(']');
    s
}

/// A client phase in words.
pub fn show_phase(phase: Phase) -> String {
    match phase {
        Phase::Want => "wants",
        Phase::Acquiring => "requested",
        Phase::Holding => "holding",
        Phase::Writing => "writing",
        Phase::Releasing => "releasing",
        Phase::Done => "done",
    }
    .into()
}

/// The resource's messages in words.
pub fn show_resource(m: &ResourceMsg) -> String {
    match m {
        ResourceMsg::Write { ghost, .. } => format!("write (acquisition {ghost})"),
        ResourceMsg::Accepted => "accepted".into(),
        ResourceMsg::Rejected => "rejected".into(),
    }
}
