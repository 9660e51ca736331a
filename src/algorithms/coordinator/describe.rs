//! The coordinator family's words: its messages, steps, timers and states
//! as traces and reports show them.

use std::fmt::Write as _;

use super::{Msg, Node, Request, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, names: &[String]) -> String {
        match msg {
            Msg::Request { id } => format!("REQUEST(r{id})"),
            Msg::Grant { id, ghost } => format!("GRANT(r{id}, acquisition {})", show::ghost(*ghost)),
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
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "asks for the lock: REQUEST".into(),
            Step::Write => "writes to the resource".into(),
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
                show::field("replicating", show::yes(s.replicating)),
                show::field("alone", show::yes(s.alone)),
            ],
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field("request", show_id(c.id)));
                out.push(show::field("last released", show_id(c.released)));
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                out.push(show::field("coordinator", &names[c.coordinator]));
                out
            }
            State::Resource(r) => r.show(None),
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
