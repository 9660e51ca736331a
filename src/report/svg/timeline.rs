//! What `trace.svg` draws, as plain data: lanes, one row per step, message
//! arrows from send to receipt, pause and crash blocks, lock-belief bars,
//! the violation and the loop. Built from the same [`Story`] as trace.md,
//! so values carry the same names (v1, #1) and actions the same words.

use super::super::story::{alarms, belief_changes, participants, verdict_line, violators, Story};
use crate::check::Counterexample;
use crate::properties::{view, Lock, Prop};
use crate::scenario::Scenario;
use crate::world::{Action, Envelope, Status, World};

/// A whole timeline. Rows are indexed from 0: row `i` is trace step `i + 1`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub title: String,
    pub subtitle: String,
    pub lanes: Vec<Lane>,
    pub rows: Vec<Row>,
    pub arrows: Vec<Arrow>,
    pub blocks: Vec<Block>,
    pub beliefs: Vec<Belief>,
    /// Links cut: `(lane, lane, row)`.
    pub cuts: Vec<(usize, usize, usize)>,
    pub violation: Violation,
    pub lasso: Option<Lasso>,
}

/// One node's lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    pub name: String,
}

/// One step of the trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// Real time after the step, in ticks.
    pub time: u32,
    /// Whether real time advanced at this step (a tick boundary).
    pub tick: bool,
    /// The step in the system's words; `None` for a plain tick.
    pub text: Option<String>,
    /// What the step means for the lock, in colour after the text.
    pub notes: Vec<(Tone, String)>,
    /// The lane the step happens on, drawn as a dot (own steps, timers,
    /// restarts, clock jumps).
    pub dot: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// A client comes to believe it holds the lock, or stops believing it.
    Belief,
    /// Something the properties forbid.
    Alarm,
}

/// A message from `from` to `to`, sent at row `sent` (`None`: in flight in
/// the initial state).
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub sent: Option<usize>,
    pub end: End,
    pub label: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Delivered(usize),
    /// Lost by the network (a fault).
    Lost(usize),
    /// Dropped: its receiver crashed or its link was cut.
    Dropped(usize),
    /// Still in flight when the trace ends.
    InFlight,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Pause,
    Crash,
}

/// A pause or a crash on a lane, from the fault's row to the row at which
/// the node runs again (`None`: not before the trace ends).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub lane: usize,
    pub kind: BlockKind,
    pub from: usize,
    pub to: Option<usize>,
}

/// A client believes it holds the lock from row `from` (`None`: from the
/// start) to row `to` (`None`: to the end).
#[derive(Clone, Debug, PartialEq)]
pub struct Belief {
    pub lane: usize,
    pub from: Option<usize>,
    pub to: Option<usize>,
}

/// Where the property fails: at `row` (the last step for safety, the
/// loop's start for liveness; `None` in the initial state), about `lanes`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Violation {
    pub row: Option<usize>,
    pub lanes: Vec<usize>,
    pub text: String,
}

/// The end of a liveness counterexample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lasso {
    /// Rows `from..` repeat forever.
    Loop { from: usize },
    /// Nothing fair is left to do after the last row.
    Stuck,
}

/// Builds the timeline of one counterexample.
pub fn build<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>) -> Timeline {
    let story = Story::new(world, cx);
    let n = story.actions.len();
    let mut ids = participants(world, &story, prop);
    let arrows_by_id = messages(world, &story);
    for a in &arrows_by_id {
        for id in [a.from, a.to] {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids.sort_unstable();
    let lane = |id: usize| ids.iter().position(|i| *i == id).unwrap_or(0);
    let lanes = ids
        .iter()
        .map(|&id| Lane {
            name: world.name(id).to_string(),
        })
        .collect();
    let arrows = arrows_by_id
        .into_iter()
        .map(|a| Arrow {
            from: lane(a.from),
            to: lane(a.to),
            ..a
        })
        .collect();

    let (rows, cuts) = rows(world, &story, &lane);
    let (blocks, beliefs) = spans(world, &story, &ids);

    let lasso = match story.loop_at {
        Some(k) if k >= n => Some(Lasso::Stuck),
        Some(k) => Some(Lasso::Loop { from: k }),
        None => None,
    };
    let row = match lasso {
        Some(Lasso::Loop { from }) => Some(from),
        _ => n.checked_sub(1),
    };
    let verdict = verdict_line(world, prop, &story.states, story.loop_at).replace("**", "");
    let violation = Violation {
        row,
        lanes: violators(world, &story, prop)
            .into_iter()
            .filter(|id| ids.contains(id))
            .map(lane)
            .collect(),
        text: format!(
            "{} violated: {}. {verdict}",
            prop.name(),
            prop.meaning().trim_end_matches('.')
        ),
    };
    Timeline {
        title: format!("{}: {} violated", sc.name, prop.name()),
        subtitle: sc.summary.clone(),
        lanes,
        rows,
        arrows,
        blocks,
        beliefs,
        cuts,
        violation,
        lasso,
    }
}

/// One row per action shown: its time, its words, the alarms and changes
/// of belief it causes, the dot of a node's own step; and the links cut,
/// with their rows.
fn rows<A: Lock>(
    world: &World<A>,
    story: &Story<A>,
    lane: &dyn Fn(usize) -> usize,
) -> (Vec<Row>, Vec<(usize, usize, usize)>) {
    let n = story.actions.len();
    let mut rows = Vec::with_capacity(n);
    let mut time = 0;
    let mut cuts = Vec::new();
    for (i, a) in story.shown_actions.iter().enumerate() {
        let (before, after) = (&story.states[i], &story.states[i + 1]);
        let tick = matches!(a, Action::Tick | Action::Drift { .. });
        time += u32::from(tick);
        let dot = match a {
            Action::Step { node, .. }
            | Action::Fire { node, .. }
            | Action::Restart { node }
            | Action::ClockJump { node, .. } => Some(lane(*node)),
            _ => None,
        };
        if let Action::Partition { a, b } | Action::Cut { src: a, dst: b } = a {
            cuts.push((lane(*a), lane(*b), i));
        }
        let mut notes: Vec<(Tone, String)> = alarms(before, after)
            .into_iter()
            .map(|a| (Tone::Alarm, a.to_string()))
            .collect();
        for (id, holds) in belief_changes(world, before, after) {
            let words = if holds { "now believes" } else { "no longer believes" };
            notes.push((Tone::Belief, format!("{} {words} it holds the lock", world.name(id))));
        }
        rows.push(Row {
            time,
            tick,
            text: (!matches!(a, Action::Tick)).then(|| world.describe(a)),
            notes,
            dot,
        });
    }
    (rows, cuts)
}

/// Each lane's pauses and crashes (blocks) and the stretches in which its
/// node believes it holds the lock, in the order they start.
fn spans<A: Lock>(world: &World<A>, story: &Story<A>, ids: &[usize]) -> (Vec<Block>, Vec<Belief>) {
    let n = story.actions.len();
    let mut blocks = Vec::new();
    let mut beliefs = Vec::new();
    for (l, &id) in ids.iter().enumerate() {
        let mut open: Option<Block> = None;
        let mut held: Option<Belief> = None;
        if view(world, &story.states[0]).holding & (1 << id) != 0 {
            held = Some(Belief {
                lane: l,
                from: None,
                to: None,
            });
        }
        for i in 0..n {
            let (b, t) = (story.states[i].nodes[id].status, story.states[i + 1].nodes[id].status);
            let kind = |s: Status| match s {
                Status::Up => None,
                Status::Paused(_) => Some(BlockKind::Pause),
                Status::Down => Some(BlockKind::Crash),
            };
            if kind(b) != kind(t) {
                if let Some(mut blk) = open.take() {
                    blk.to = Some(i);
                    blocks.push(blk);
                }
                open = kind(t).map(|kind| Block {
                    lane: l,
                    kind,
                    from: i,
                    to: None,
                });
            }
            let change = belief_changes(world, &story.states[i], &story.states[i + 1]);
            match (held.take(), change.iter().find(|(c, _)| *c == id)) {
                (Some(mut h), Some((_, false))) => {
                    h.to = Some(i);
                    beliefs.push(h);
                }
                (None, Some((_, true))) => {
                    held = Some(Belief {
                        lane: l,
                        from: Some(i),
                        to: None,
                    })
                }
                (h, _) => held = h,
            }
        }
        blocks.extend(open);
        beliefs.extend(held);
    }
    blocks.sort_by_key(|b| (b.from, b.lane));
    beliefs.sort_by_key(|b| (b.from, b.lane));
    (blocks, beliefs)
}

/// Every message of the trace, from the step that sent it to the step that
/// delivered, lost or dropped it, with node ids as lanes. Messages are
/// followed through the named states (`Story::shown`), where a value keeps
/// its name; of identical copies, the network takes the oldest (docs/design.md
/// §2), and so does this.
fn messages<A: Lock>(world: &World<A>, story: &Story<A>) -> Vec<Arrow> {
    let mut arrows: Vec<Arrow> = Vec::new();
    // In flight: (arrow index, envelope) in the order sent.
    let mut flying: Vec<(usize, Envelope<A::Msg>)> = Vec::new();
    let same = |x: &Envelope<A::Msg>, y: &Envelope<A::Msg>| x.src == y.src && x.dst == y.dst && x.msg == y.msg;
    let label = |e: &Envelope<A::Msg>| world.show_msg(e.src, &e.msg);
    for e in &story.shown[0].net {
        flying.push((arrows.len(), e.clone()));
        arrows.push(Arrow {
            from: e.src,
            to: e.dst,
            sent: None,
            end: End::InFlight,
            label: label(e),
        });
    }
    for (i, a) in story.shown_actions.iter().enumerate() {
        let mut before: Vec<&Envelope<A::Msg>> = story.shown[i].net.iter().collect();
        let after = &story.shown[i + 1].net;
        // The message this step takes, if any, ends here first.
        let taken = match a {
            Action::Deliver { src, dst, msg } => Some((*src, *dst, msg, End::Delivered(i))),
            Action::Lose { src, dst, msg } => Some((*src, *dst, msg, End::Lost(i))),
            _ => None,
        };
        let mut ended = Vec::new();
        if let Some((src, dst, msg, end)) = taken {
            if let Some(k) = before
                .iter()
                .position(|e| e.src == src && e.dst == dst && e.msg == *msg)
            {
                ended.push((before.remove(k).clone(), end));
            }
        }
        // Of the rest, what is gone was dropped and what is new was sent.
        let mut fresh: Vec<&Envelope<A::Msg>> = Vec::new();
        for e in after {
            match before.iter().position(|o| same(o, e)) {
                Some(k) => {
                    before.remove(k);
                }
                None => fresh.push(e),
            }
        }
        ended.extend(before.into_iter().map(|e| (e.clone(), End::Dropped(i))));
        for (e, end) in ended {
            if let Some(k) = flying.iter().position(|(_, o)| same(o, &e)) {
                let (idx, _) = flying.remove(k);
                arrows[idx].end = end;
            }
        }
        for e in fresh {
            let mut text = label(e);
            if matches!(a, Action::Duplicate { .. }) {
                text.push_str(" (copy)");
            }
            flying.push((arrows.len(), e.clone()));
            arrows.push(Arrow {
                from: e.src,
                to: e.dst,
                sent: Some(i),
                end: End::InFlight,
                label: text,
            });
        }
    }
    arrows
}
