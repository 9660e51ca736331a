//! The explorer's picture of the current path: a sequence diagram with
//! one lane per node and time flowing down, drawn for stateright's page
//! (`Model::as_svg`). Messages are arrows labelled as the sender writes
//! them, a node's own steps and faults are boxes on its lane, ticks are
//! dotted rules, and each lane shows the node's condition between steps:
//! a green bar while it believes it holds the lock, orange while paused,
//! red dashes while down. A safety property broken in the last state is
//! named at the bottom.
//!
//! Every label is XML-escaped: messages carry user-visible text, and
//! stateright's own diagrams do not escape theirs (docs/design.md §12).

use std::fmt::Write;

use crate::properties::{view, Lock};
use crate::world::{Action, Status, World, WorldState};

const ROW: i64 = 28;
const TOP: i64 = 44;
const CHAR: i64 = 7;
const TEXT: &str = "#e7ecef";
const LANE: &str = "#6b8fb0";
const ARROW: &str = "#f2e27a";
const HOLD: &str = "#98c379";
const FAULT: &str = "#e06c75";
const PAUSE: &str = "#d19a66";
const BOX: &str = "#2b5672";

/// `&`, `<`, `>` and quotes as XML entities: the same escaping as
/// trace.svg's.
pub use crate::report::svg::esc as escape;

/// One row of the diagram: the actions drawn on it (consecutive ticks
/// share a row) and the index of the state after them.
struct Row {
    first: usize,
    last: usize,
}

/// Where lanes and rows go.
struct Grid {
    /// Lanes, one per node.
    n: usize,
    lane_w: i64,
    /// Below the last row.
    bottom: i64,
}

impl Grid {
    /// The centre of node `i`'s lane.
    fn x(&self, i: usize) -> i64 {
        20 + self.lane_w / 2 + i as i64 * self.lane_w
    }

    /// Row `r`'s line.
    fn y(r: usize) -> i64 {
        TOP + 20 + r as i64 * ROW
    }

    /// Right of the last lane: where tick labels go.
    fn right(&self) -> i64 {
        self.x(self.n - 1) + self.lane_w / 2
    }
}

/// The diagram of `steps`: each state with the action taken from it (the
/// last state has none).
pub fn svg<A: Lock>(world: &World<A>, steps: &[(WorldState<A>, Option<Action<A>>)]) -> String {
    let n = world.names.len();
    let longest = world.names.iter().map(|s| s.chars().count() as i64).max().unwrap_or(1);
    let states: Vec<&WorldState<A>> = steps.iter().map(|(s, _)| s).collect();
    let actions: Vec<&Action<A>> = steps.iter().filter_map(|(_, a)| a.as_ref()).collect();

    let mut rows: Vec<Row> = Vec::new();
    for (i, a) in actions.iter().enumerate() {
        match rows.last_mut() {
            Some(r) if matches!(a, Action::Tick) && matches!(actions[r.last], Action::Tick) => r.last = i,
            _ => rows.push(Row { first: i, last: i }),
        }
    }
    let grid = Grid {
        n,
        lane_w: (longest * CHAR + 40).max(130),
        bottom: Grid::y(rows.len()),
    };
    let broken: Vec<&str> = world
        .properties
        .iter()
        .filter(|p| !(p.condition)(world, states[states.len() - 1]))
        .map(|p| p.name)
        .collect();
    let footer = 1 + broken.len() as i64 + i64::from(!world.symmetry.is_empty());
    let width = 40 + n as i64 * grid.lane_w + 280;
    let height = grid.bottom + footer * 18 + 10;

    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='{width}' height='{height}' \
         viewBox='0 0 {width} {height}' font-family='monospace' font-size='12'>"
    );
    let _ = write!(
        s,
        "<defs><marker id='ls-arrow' markerWidth='10' markerHeight='8' refX='10' refY='4' orient='auto'>\
         <polygon points='0 0, 10 4, 0 8' fill='{ARROW}'/></marker></defs>"
    );
    lanes(&mut s, world, &grid, &states, &rows);
    let mut time = 0;
    for (r, row) in rows.iter().enumerate() {
        let a = actions[row.first];
        if matches!(a, Action::Tick | Action::Drift { .. }) {
            time += row.last - row.first + 1;
        }
        event(&mut s, world, &grid, Grid::y(r), a, time);
    }
    footer_lines(&mut s, world, &grid, &broken);
    s.push_str("</svg>");
    s
}

/// Lanes: each node's name, and its condition in each state, row by row.
fn lanes<A: Lock>(s: &mut String, world: &World<A>, grid: &Grid, states: &[&WorldState<A>], rows: &[Row]) {
    for i in 0..grid.n {
        let x = grid.x(i);
        let _ = write!(
            s,
            "<text x='{x}' y='24' fill='{TEXT}' text-anchor='middle' font-weight='bold'>{}</text>",
            escape(world.name(i))
        );
        let mut spans = vec![(TOP, Grid::y(0), states[0])];
        for (r, row) in rows.iter().enumerate() {
            spans.push((
                Grid::y(r),
                if r + 1 < rows.len() {
                    Grid::y(r + 1)
                } else {
                    grid.bottom
                },
                states[row.last + 1],
            ));
        }
        for (y1, y2, st) in spans {
            let node = &st.nodes[i];
            let holds = view(world, st).holding & (1 << i) != 0;
            let style = match node.status {
                Status::Down => format!("stroke='{FAULT}' stroke-width='2' stroke-dasharray='4 3'"),
                Status::Paused(_) => format!("stroke='{PAUSE}' stroke-width='6' stroke-dasharray='6 2'"),
                Status::Up if holds => format!("stroke='{HOLD}' stroke-width='6'"),
                Status::Up => format!("stroke='{LANE}' stroke-width='1.5'"),
            };
            let _ = write!(s, "<line x1='{x}' y1='{y1}' x2='{x}' y2='{y2}' {style}/>");
        }
    }
}

/// The row at `yr` of action `a` (the first of its row); `time` is the
/// time after the row.
fn event<A: Lock>(s: &mut String, world: &World<A>, grid: &Grid, yr: i64, a: &Action<A>, time: usize) {
    let x = |i: usize| grid.x(i);
    match a {
        Action::Tick | Action::Drift { .. } => {
            let mut label = format!("t={time}");
            if matches!(a, Action::Drift { .. }) {
                let text = world.describe(a);
                label = format!("{label}: {}", text.trim_start_matches("time passes; "));
            }
            let _ = write!(
                s,
                "<line x1='10' y1='{yr}' x2='{}' y2='{yr}' stroke='{LANE}' stroke-dasharray='1 4'/>",
                grid.right()
            );
            let _ = write!(
                s,
                "<text x='{}' y='{}' fill='{TEXT}' opacity='0.8'>{}</text>",
                grid.right() + 6,
                yr + 4,
                escape(&label)
            );
        }
        Action::Deliver { src, dst, msg } | Action::Lose { src, dst, msg } => {
            let lost = matches!(a, Action::Lose { .. });
            let (x1, x2) = (x(*src), x(*dst));
            let end = if lost { (x1 + x2) / 2 } else { x2 };
            let marker = if lost { "" } else { " marker-end='url(#ls-arrow)'" };
            let _ = write!(
                s,
                "<line x1='{x1}' y1='{yr}' x2='{end}' y2='{yr}' stroke='{ARROW}' stroke-width='1.5'{marker}/>"
            );
            if lost {
                let _ = write!(
                    s,
                    "<text x='{end}' y='{}' fill='{FAULT}' text-anchor='middle' font-size='16'>\u{2715}</text>",
                    yr + 5
                );
            }
            let label = world.show_msg(*src, msg) + if lost { " (lost)" } else { "" };
            let _ = write!(
                s,
                "<text x='{}' y='{}' fill='{ARROW}' text-anchor='middle'>{}</text>",
                (x1 + x2) / 2,
                yr - 5,
                escape(&label)
            );
        }
        Action::Partition { a: p, b: q } | Action::Cut { src: p, dst: q } => {
            let _ = write!(
                s,
                "<line x1='{}' y1='{yr}' x2='{}' y2='{yr}' stroke='{FAULT}' stroke-width='2' stroke-dasharray='6 4'/>",
                x(*p),
                x(*q)
            );
            let _ = write!(
                s,
                "<text x='{}' y='{}' fill='{FAULT}' text-anchor='middle'>link cut</text>",
                (x(*p) + x(*q)) / 2,
                yr - 5
            );
        }
        _ => {
            let text = world.describe(a);
            let (lane, text) = match a.node() {
                Some(node) => {
                    let prefix = format!("{} ", world.name(node));
                    let short = text.strip_prefix(&prefix).unwrap_or(&text).to_string();
                    (x(node), short)
                }
                None => ((x(0) + x(grid.n - 1)) / 2, text),
            };
            let fault = world.is_fault(a);
            let w = text.chars().count() as i64 * CHAR + 12;
            let (fill, stroke) = if fault { ("#5c2b35", FAULT) } else { (BOX, LANE) };
            // A long label near the left edge moves right to stay in view.
            let left = (lane - w / 2).max(2);
            let _ = write!(
                s,
                "<rect x='{left}' y='{}' width='{w}' height='18' rx='4' fill='{fill}' stroke='{stroke}'/>",
                yr - 10
            );
            let _ = write!(
                s,
                "<text x='{}' y='{}' fill='{TEXT}' text-anchor='middle'>{}</text>",
                left + w / 2,
                yr + 3,
                escape(&text)
            );
        }
    }
}

/// Footer: what broke, and the legend.
fn footer_lines<A: Lock>(s: &mut String, world: &World<A>, grid: &Grid, broken: &[&str]) {
    let mut fy = grid.bottom + 20;
    for name in broken {
        let _ = write!(
            s,
            "<text x='20' y='{fy}' fill='{FAULT}' font-weight='bold'>{} violated in the last state</text>",
            escape(name)
        );
        fy += 18;
    }
    let legend = [
        (HOLD, "green bar: believes it holds the lock"),
        (PAUSE, "orange: paused"),
        (FAULT, "red dashes: down"),
    ];
    let mut lx = 20;
    for (color, text) in legend {
        let _ = write!(
            s,
            "<line x1='{lx}' y1='{}' x2='{}' y2='{}' stroke='{color}' stroke-width='6'/>\
             <text x='{}' y='{fy}' fill='{TEXT}'>{}</text>",
            fy - 4,
            lx + 14,
            fy - 4,
            lx + 20,
            escape(text)
        );
        lx += 20 + text.len() as i64 * CHAR + 20;
    }
    if !world.symmetry.is_empty() {
        fy += 18;
        let _ =
            write!(
            s,
            "<text x='20' y='{fy}' fill='{TEXT}' opacity='0.8'>{}</text>",
            escape("symmetry: drawn in this run's names; lists and states in canonical form (--no-symmetry: own names)")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn labels_are_escaped() {
        assert_eq!(escape("a<b & 'c' \"d\">"), "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;");
    }
}
