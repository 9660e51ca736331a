//! Actions in plain words, as traces and the explorer print them, through
//! the actors' `show_*` hooks: messages as the real system writes them
//! ("redis receives SET lock v1 NX PX 4 from c1"), never Rust's `Debug`.

use super::{Action, Actor, Id, Node, Program, World};

/// A node's program in the words of the real system, for traces and the
/// explorer. Apart from [`Actor`], which is behaviour only; every method
/// has a default (Rust's `Debug` text, which no family should ship).
pub trait Describe: Actor {
    /// How this node comes back from a crash, in the words traces use
    /// ("empty", "fsync", "delayed").
    fn persistence(&self) -> &'static str {
        "empty"
    }

    /// A message as the real system writes it, for traces and the
    /// explorer: a Redis command and its arguments (`SET lock v3 NX PX 4`),
    /// an answer (`OK`, `nil`), a ZooKeeper call. `names[id]` names nodes.
    /// The default is the Rust `Debug` text, which no family should ship.
    fn show_msg(&self, msg: &Self::Msg, _names: &[String]) -> String {
        format!("{msg:?}")
    }

    /// A message as [`Describe::show_msg`] writes it, for a family whose
    /// message names its sender (Ricart–Agrawala's `REQUEST(ts 3, n1)`:
    /// the paper's request carries the node's number, which the model keeps
    /// as the envelope's source). `src` is the sender's id.
    fn show_sent(&self, msg: &Self::Msg, _src: Id, names: &[String]) -> String {
        self.show_msg(msg, names)
    }

    /// A step in the words of the algorithm's description ("asks for the
    /// lock"), with what it sends in the system's API where one message
    /// says it (`create /lock/lock- EPHEMERAL_SEQUENTIAL`).
    fn show_step(&self, step: &Self::Step) -> String {
        format!("{step:?}")
    }

    /// A decision this node took in `action` that its changed fields do
    /// not explain by themselves, with its reasons in the model's own
    /// numbers (Redlock: `validity 8 − 3 − 1 = 4 ticks`, `validity left
    /// 2 ≤ margin 2: gives up`); traces print it after the node's changes.
    /// `id` is this node's, `before` and `after` the node around the action.
    fn decision(&self, _id: Id, _before: &Node<Self>, _after: &Node<Self>, _action: &Action<Self>) -> Option<String> {
        None
    }

    /// A timer's name as traces print it ("key expiry").
    fn show_timer(&self, timer: &Self::Timer) -> String {
        format!("{timer:?}")
    }

    /// The node's state as `(field, value)` pairs in the system's words
    /// (`key` = `v3 (PX 4)`, `phase` = `holding`), ids as names and sets
    /// as sets; traces diff these pairs. `None`: fall back to the fields
    /// of the `Debug` text.
    fn show_state(&self, _state: &Self::State, _names: &[String]) -> Option<Vec<(String, String)>> {
        None
    }
}

impl<A: Program> World<A> {
    pub fn name(&self, id: Id) -> &str {
        &self.names[id]
    }

    /// A message from `src`, as the sender's program writes it.
    pub fn show_msg(&self, src: Id, msg: &A::Msg) -> String {
        self.actors[src].show_sent(msg, src, &self.names)
    }

    /// One of `node`'s timers by name ("key TTL").
    pub fn show_timer(&self, node: Id, timer: &A::Timer) -> String {
        self.actors[node].show_timer(timer)
    }

    /// One of `node`'s own steps ("asks for the lock").
    pub fn show_step(&self, node: Id, step: &A::Step) -> String {
        self.actors[node].show_step(step)
    }

    /// What a loss or a cut on a link does besides: it breaks the
    /// connection there, if there is one.
    fn breaks(&self, a: Id, b: Id) -> &'static str {
        if self.connection(a, b).is_some() {
            ", which breaks their connection"
        } else {
            ""
        }
    }

    /// One action in plain words: "c1 pauses for 3 ticks".
    pub fn describe(&self, action: &Action<A>) -> String {
        let n = |id: &Id| self.name(*id);
        match action {
            Action::Tick => "time passes".into(),
            Action::Step { node, step } => format!("{} {}", n(node), self.show_step(*node, step)),
            Action::Fire { node, timer } => format!("{}'s {} runs out", n(node), self.show_timer(*node, timer)),
            Action::Deliver { src, dst, msg } => {
                format!("{} receives {} from {}", n(dst), self.show_msg(*src, msg), n(src))
            }
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
            Action::Partition { a, b } => format!("the link {}-{} is cut{}", n(a), n(b), self.breaks(*a, *b)),
            Action::Cut { src, dst } => format!(
                "the link from {} to {} is cut (one way){}",
                n(src),
                n(dst),
                self.breaks(*src, *dst)
            ),
            Action::Disconnected { node, peer } => {
                format!("{} notices its connection to {} broke", n(node), n(peer))
            }
            Action::Reconnect { node, peer } => format!("{} reconnects to {}", n(node), n(peer)),
            Action::Lose { src, dst, msg } => format!(
                "the network loses {} from {} to {}{}",
                self.show_msg(*src, msg),
                n(src),
                n(dst),
                self.breaks(*src, *dst)
            ),
            Action::Duplicate { src, dst, msg } => format!(
                "the network duplicates {} from {} to {}",
                self.show_msg(*src, msg),
                n(src),
                n(dst)
            ),
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
