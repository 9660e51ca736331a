//! Actions in plain words, as traces and the explorer print them.

use super::{Action, Actor, Id, World};

impl<A: Actor> World<A> {
    pub fn name(&self, id: Id) -> &str {
        &self.names[id]
    }

    /// One action in plain words: "c1 pauses for 3 ticks".
    pub fn describe(&self, action: &Action<A>) -> String {
        let n = |id: &Id| self.name(*id);
        match action {
            Action::Tick => "time passes".into(),
            Action::Step { node, step } => format!("{} {:?}", n(node), step),
            Action::Fire { node, timer } => format!("{}'s timer {:?} fires", n(node), timer),
            Action::Deliver { src, dst, msg } => format!("{} receives {:?} from {}", n(dst), msg, n(src)),
            Action::Restart { node } => {
                format!("{} restarts {}", n(node), self.actors[*node].persistence())
            }
            Action::Heal => "the network heals".into(),
            Action::Crash { node } => format!("{} crashes", n(node)),
            Action::Pause { node, ticks } => {
                format!(
                    "{} pauses for {} tick{}",
                    n(node),
                    ticks,
                    if *ticks == 1 { "" } else { "s" }
                )
            }
            Action::Partition { a, b } => format!("the link {}-{} is cut", n(a), n(b)),
            Action::Lose { src, dst, msg } => format!("the network loses {:?} from {} to {}", msg, n(src), n(dst)),
            Action::Duplicate { src, dst, msg } => {
                format!("the network duplicates {:?} from {} to {}", msg, n(src), n(dst))
            }
            Action::ClockJump { node, by } => format!(
                "{}'s clock jumps {} {} tick{}",
                n(node),
                if *by > 0 { "forward" } else { "back" },
                by.unsigned_abs(),
                if by.unsigned_abs() == 1 { "" } else { "s" }
            ),
            Action::Drift { fast, slow } => {
                let mut parts = vec!["time passes".to_string()];
                parts.extend(fast.iter().map(|i| format!("{}'s clock moves two ticks", n(i))));
                parts.extend(slow.iter().map(|i| format!("{}'s clock stands still", n(i))));
                parts.join("; ")
            }
        }
    }
}
