//! Draws a [`Timeline`] as a self-contained SVG: no script, no external
//! font, image or link (generic font families only), every text escaped,
//! integer coordinates only, so the same timeline gives the same bytes and
//! renders alike in a browser and on GitHub.
//!
//! Layout, left to right: the time axis (real time in ticks), step numbers
//! (as in trace.md's table), one lane per node, the loop bracket, and the
//! step's words. Top to bottom: title, legend, lane names, one row per step
//! (a thin band for a step in which only time passes), the verdict.

use std::fmt::Write;

use super::legend::legend;
use super::room::{Room, Word};
use super::style::{BELIEF, INK, LOOP, LOST, MARGIN, MONO_11, MSG, SANS_10, SANS_12, TITLE_15};
use super::text::{clip, esc, fits, wrap};
use super::timeline::{BlockKind, End, Lasso, Timeline, Tone};

/// Right edge of the time labels, and the axis line.
const TIME_X: i32 = 44;
const AXIS_X: i32 = 52;
/// Right edge of the step numbers.
const STEP_X: i32 = 86;
/// Centre of the first lane, and the distance between lanes.
const LANE0: i32 = 160;
const GAP: i32 = 170;
/// Row heights: a step, and a step in which only time passes.
const STEP_H: i32 = 26;
const TICK_H: i32 = 16;
/// Width of the loop bracket's column, and of the step words' column.
const BRACKET_W: i32 = 44;
const DESC_W: i32 = 460;

/// Vertical positions: the top of each row and where the rows end.
struct Rows {
    top: Vec<i32>,
    height: Vec<i32>,
    /// Below the last row (and the "stuck" row, if any): where lanes end.
    end: i32,
    /// Where the first row starts: the initial state.
    start: i32,
}

impl Rows {
    fn mid(&self, row: usize) -> i32 {
        self.top[row] + self.height[row] / 2
    }

    /// The row's middle, or the start for `None` (the initial state).
    fn at(&self, row: Option<usize>) -> i32 {
        row.map_or(self.start, |r| self.mid(r))
    }
}

/// Where everything goes, from the timeline and the legend's end.
struct Layout {
    /// The last lane's centre.
    lanes_right: i32,
    /// The loop bracket's column (a lasso with a loop).
    bracket_x: i32,
    looped: bool,
    /// Where the step's words start.
    desc_x: i32,
    width: i32,
    /// The width between the margins.
    inner: i32,
    /// The lane names' baseline, and the lanes' top.
    names_y: i32,
    lanes_top: i32,
    rows: Rows,
    /// Below the last step: the "stuck" row, if any.
    stuck_y: i32,
}

impl Layout {
    /// The columns, which the title and legend need first.
    fn across(t: &Timeline) -> Layout {
        let lanes = t.lanes.len().max(1);
        let lanes_right = lane_x(lanes - 1);
        let looped = matches!(t.lasso, Some(Lasso::Loop { .. }));
        let desc_x = lanes_right + if looped { BRACKET_W + 36 } else { 40 };
        let width = desc_x + DESC_W + MARGIN;
        Layout {
            lanes_right,
            bracket_x: lanes_right + 30,
            looped,
            desc_x,
            width,
            inner: width - 2 * MARGIN,
            names_y: 0,
            lanes_top: 0,
            rows: Rows {
                top: Vec::new(),
                height: Vec::new(),
                end: 0,
                start: 0,
            },
            stuck_y: 0,
        }
    }

    /// The rows, below the legend that ends at `legend_end`.
    fn down(&mut self, t: &Timeline, legend_end: i32) {
        self.names_y = legend_end + 30;
        self.lanes_top = self.names_y + 10;
        let start = self.lanes_top + 12;
        self.rows.start = start;
        let mut y = start + 10;
        for r in &t.rows {
            let h = if r.text.is_none() { TICK_H } else { STEP_H };
            self.rows.top.push(y);
            self.rows.height.push(h);
            y += h;
        }
        self.stuck_y = y;
        if t.lasso == Some(Lasso::Stuck) {
            y += STEP_H;
        }
        self.rows.end = y + 14;
    }
}

/// The centre of lane `l`.
fn lane_x(l: usize) -> i32 {
    LANE0 + l as i32 * GAP
}

pub fn render(t: &Timeline) -> String {
    let mut at = Layout::across(t);
    let mut body = String::new();
    let b = &mut body;
    let legend_end = title(b, t, &at);
    at.down(t, legend_end);
    backgrounds(b, t, &at);
    axis(b, t, &at);
    lanes(b, t, &at);
    // Pauses and crashes, beliefs, own steps, cut links.
    let mut room = Room {
        left: STEP_X + 6,
        right: if at.looped { at.bracket_x - 6 } else { at.desc_x - 8 },
        words: Vec::new(),
    };
    blocks(b, t, &at, &mut room);
    dots_and_cuts(b, t, &at);
    arrows(b, t, &at, &room);
    beliefs(b, t, &at);
    step_words(b, t, &at);
    stuck(b, t, &at);
    bracket(b, t, &at);
    let height = verdict(b, t, &at);
    document(t, at.width, height, &body)
}

/// Title, subtitle and legend; returns where the legend ends.
fn title(b: &mut String, t: &Timeline, at: &Layout) -> i32 {
    let _ = writeln!(
        b,
        r#"<text x="{MARGIN}" y="28" class="title">{}</text>"#,
        esc(&clip(&t.title, fits(at.inner, TITLE_15)))
    );
    let _ = writeln!(
        b,
        r#"<text x="{MARGIN}" y="48">{}</text>"#,
        esc(&clip(&t.subtitle, fits(at.inner, SANS_12)))
    );
    legend(b, t, 70, at.width)
}

/// Backgrounds: the loop's rows, then the violation's row.
fn backgrounds(b: &mut String, t: &Timeline, at: &Layout) {
    let (rows, inner) = (&at.rows, at.inner);
    if let Some(Lasso::Loop { from }) = t.lasso {
        if from < t.rows.len() {
            let (y0, y1) = (rows.top[from], at.stuck_y);
            let _ = writeln!(
                b,
                r##"<rect x="{MARGIN}" y="{y0}" width="{inner}" height="{}" fill="#fff6e0"/>"##,
                y1 - y0
            );
        }
    }
    if let (Some(row), true) = (t.violation.row, t.lasso.is_none()) {
        let _ = writeln!(
            b,
            r##"<rect x="{MARGIN}" y="{}" width="{inner}" height="{}" fill="#fde8e6"/>"##,
            rows.top[row], rows.height[row]
        );
    }
}

/// The time axis, tick boundaries and step numbers.
fn axis(b: &mut String, t: &Timeline, at: &Layout) {
    let (rows, lanes_top) = (&at.rows, at.lanes_top);
    let _ = writeln!(
        b,
        r##"<line x1="{AXIS_X}" y1="{}" x2="{AXIS_X}" y2="{}" stroke="#888"/>"##,
        lanes_top, rows.end
    );
    let _ = writeln!(
        b,
        r#"<text x="{TIME_X}" y="{}" class="axis">t=0</text>"#,
        rows.start + 4
    );
    let _ = writeln!(
        b,
        r#"<text x="{TIME_X}" y="{}" class="axis">time</text>"#,
        lanes_top - 10
    );
    let _ = writeln!(
        b,
        r#"<text x="{STEP_X}" y="{}" class="axis">step</text>"#,
        lanes_top - 10
    );
    for (i, r) in t.rows.iter().enumerate() {
        let mid = rows.mid(i);
        if r.tick {
            let _ = writeln!(
                b,
                r##"<line x1="{AXIS_X}" y1="{mid}" x2="{}" y2="{mid}" stroke="#bbb" stroke-dasharray="2 3"/>"##,
                at.lanes_right + 20
            );
            let _ = writeln!(
                b,
                r#"<text x="{TIME_X}" y="{}" class="axis">t={}</text>"#,
                mid + 4,
                r.time
            );
        }
        let _ = writeln!(b, r#"<text x="{STEP_X}" y="{}" class="num">{}</text>"#, mid + 4, i + 1);
    }
}

/// Each lane's name and line.
fn lanes(b: &mut String, t: &Timeline, at: &Layout) {
    let (names_y, lanes_top) = (at.names_y, at.lanes_top);
    for (l, lane) in t.lanes.iter().enumerate() {
        let x = lane_x(l);
        let _ = writeln!(
            b,
            r#"<text x="{x}" y="{names_y}" class="lane">{}</text>"#,
            esc(&clip(&lane.name, fits(GAP - 16, 80)))
        );
        let _ = writeln!(
            b,
            r##"<line x1="{x}" y1="{lanes_top}" x2="{x}" y2="{}" stroke="#999" stroke-width="1.5"/>"##,
            at.rows.end
        );
    }
}

/// Pauses and crashes on their lanes; a long one's word goes in `room`,
/// where message labels must not cover it.
fn blocks(b: &mut String, t: &Timeline, at: &Layout, room: &mut Room) {
    let rows = &at.rows;
    for blk in &t.blocks {
        let x = lane_x(blk.lane);
        let (y0, y1) = (rows.mid(blk.from), blk.to.map_or(rows.end, |r| rows.mid(r)));
        let (fill, word, ink) = match blk.kind {
            BlockKind::Pause => ("#cfcfcf", "paused", "small"),
            BlockKind::Crash => ("#3b3b3b", "crashed", "small white"),
        };
        let _ = writeln!(
            b,
            r##"<rect x="{}" y="{y0}" width="14" height="{}" fill="{fill}" stroke="#777" class="block"><title>{} {word}</title></rect>"##,
            x - 7,
            (y1 - y0).max(2),
            esc(&t.lanes[blk.lane].name)
        );
        if y1 - y0 > 64 {
            let cy = (y0 + y1) / 2;
            let half = word.chars().count() as i32 * SANS_10 / 20 + 2;
            room.words.push(Word {
                x,
                top: cy - half,
                bottom: cy + half,
            });
            let _ = writeln!(
                b,
                r#"<text x="{x}" y="{}" transform="rotate(90 {x} {cy})" class="{ink}" text-anchor="middle">{word}</text>"#,
                cy + 3
            );
        }
    }
}

/// A node's own steps (dots) and the links a partition cut.
fn dots_and_cuts(b: &mut String, t: &Timeline, at: &Layout) {
    for (i, r) in t.rows.iter().enumerate() {
        if let Some(l) = r.dot {
            let _ = writeln!(
                b,
                r#"<circle cx="{}" cy="{}" r="4" fill="{INK}"/>"#,
                lane_x(l),
                at.rows.mid(i)
            );
        }
    }
    for &(a, c, row) in &t.cuts {
        let y = at.rows.mid(row);
        let _ = writeln!(
            b,
            r#"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="{LOST}" stroke-width="2" stroke-dasharray="5 4" class="cut"/>"#,
            lane_x(a),
            lane_x(c)
        );
    }
}

/// Messages: lines first, then their labels over every line.
fn arrows(b: &mut String, t: &Timeline, at: &Layout, room: &Room) {
    let rows = &at.rows;
    let mut labels = String::new();
    for a in &t.arrows {
        let (x0, y0) = (lane_x(a.from), rows.at(a.sent));
        let x1 = lane_x(a.to);
        let dx = x1 - x0;
        let dir = if dx >= 0 { 1 } else { -1 };
        let title = esc(&a.label);
        match a.end {
            End::Delivered(r) => {
                let y1 = rows.mid(r);
                let _ = writeln!(
                    b,
                    r#"<line x1="{x0}" y1="{y0}" x2="{}" y2="{y1}" stroke="{MSG}" stroke-width="1.5" marker-end="url(#head)" class="msg"><title>{title}</title></line>"#,
                    x1 - 3 * dir
                );
                // Clear of the receiver's belief bar, on its right.
                let x = if dir > 0 { x1 - 12 } else { x1 + 20 };
                let text = clip(&a.label, fits(room.at(x, y1 - 5, dir) - 4, MONO_11));
                label(&mut labels, &text, x, y1 - 5, dir, "msgl");
            }
            End::Lost(r) | End::Dropped(r) => {
                let lost = matches!(a.end, End::Lost(_));
                let (xe, ye) = (x0 + dx * if lost { 55 } else { 80 } / 100, rows.mid(r));
                let class = if lost { "lost" } else { "dropped" };
                let _ = writeln!(
                    b,
                    r#"<line x1="{x0}" y1="{y0}" x2="{xe}" y2="{ye}" stroke="{LOST}" stroke-width="1.5" class="{class}"><title>{title} ({class})</title></line>"#
                );
                let _ = writeln!(
                    b,
                    r#"<path d="M{} {} L{} {} M{} {} L{} {}" stroke="{LOST}" stroke-width="2.5"/>"#,
                    xe - 6,
                    ye - 6,
                    xe + 6,
                    ye + 6,
                    xe - 6,
                    ye + 6,
                    xe + 6,
                    ye - 6
                );
                if lost {
                    // It may reach over the sender's lane: a lost message
                    // is rare and worth reading whole.
                    let room = (dx.abs() * 55 / 100 - 16).max(150);
                    let text = clip(&format!("{} (lost)", a.label), fits(room, MONO_11));
                    label(&mut labels, &text, xe - 10 * dir, ye - 6, dir, "lostl");
                }
            }
            End::InFlight => {
                let _ = writeln!(
                    b,
                    r#"<line x1="{x0}" y1="{y0}" x2="{}" y2="{}" stroke="{MSG}" stroke-width="1.2" stroke-dasharray="5 4" opacity="0.7" marker-end="url(#head)" class="flight"><title>{title} (in flight at the end)</title></line>"#,
                    x1 - 3 * dir,
                    rows.end
                );
            }
        }
    }
    b.push_str(&labels);
}

/// Beliefs last, so that no label's backing hides one.
fn beliefs(b: &mut String, t: &Timeline, at: &Layout) {
    for bel in &t.beliefs {
        let x = lane_x(bel.lane) + 9;
        let y0 = bel.from.map_or(at.lanes_top, |r| at.rows.mid(r));
        let y1 = bel.to.map_or(at.rows.end, |r| at.rows.mid(r));
        let _ = writeln!(
            b,
            r#"<rect x="{x}" y="{y0}" width="6" height="{}" rx="2" fill="{BELIEF}" class="belief"><title>{} believes it holds the lock</title></rect>"#,
            (y1 - y0).max(2),
            esc(&t.lanes[bel.lane].name)
        );
    }
}

/// The step's words, with its notes in their tones as far as they fit.
fn step_words(b: &mut String, t: &Timeline, at: &Layout) {
    let desc_x = at.desc_x;
    for (i, r) in t.rows.iter().enumerate() {
        let Some(text) = &r.text else { continue };
        let budget = fits(DESC_W, SANS_12);
        let notes: Vec<String> = r.notes.iter().map(|(_, n)| n.clone()).collect();
        let notes_len: usize = notes.iter().map(|n| n.chars().count() + 3).sum();
        let room = budget.saturating_sub(notes_len).max(24);
        let mut line = format!(
            r#"<text x="{desc_x}" y="{}"><title>{}</title>{}"#,
            at.rows.mid(i) + 4,
            esc(&std::iter::once(text.clone())
                .chain(notes)
                .collect::<Vec<_>>()
                .join("; ")),
            esc(&clip(text, room))
        );
        let mut left = budget.saturating_sub(room.min(text.chars().count()));
        for (tone, note) in &r.notes {
            if left < 8 {
                break;
            }
            let fill = match tone {
                Tone::Belief => BELIEF,
                Tone::Alarm => LOST,
            };
            let shown = clip(note, left - 3);
            left = left.saturating_sub(shown.chars().count() + 3);
            let _ = write!(
                line,
                r#"<tspan fill="{fill}" font-weight="bold"> — {}</tspan>"#,
                esc(&shown)
            );
        }
        line.push_str("</text>");
        let _ = writeln!(b, "{line}");
    }
}

/// A run that ends stuck: its row, a bar across every lane.
fn stuck(b: &mut String, t: &Timeline, at: &Layout) {
    if t.lasso != Some(Lasso::Stuck) {
        return;
    }
    let mid = at.stuck_y + STEP_H / 2;
    let _ = writeln!(
        b,
        r#"<text x="{}" y="{}" class="loop">stuck: no fair action is enabled, forever</text>"#,
        at.desc_x,
        mid + 4
    );
    for l in 0..t.lanes.len() {
        let x = lane_x(l);
        let _ = writeln!(
            b,
            r#"<line x1="{}" y1="{mid}" x2="{}" y2="{mid}" stroke="{LOOP}" stroke-width="2"/>"#,
            x - 8,
            x + 8
        );
    }
}

/// The loop's bracket, and its word where it is tall enough.
fn bracket(b: &mut String, t: &Timeline, at: &Layout) {
    let Some(Lasso::Loop { from }) = t.lasso else { return };
    if from >= t.rows.len() {
        return;
    }
    let bracket_x = at.bracket_x;
    let (y0, y1) = (at.rows.top[from] + 2, at.stuck_y - 2);
    let _ = writeln!(
        b,
        r#"<path d="M{} {y0} H{bracket_x} V{y1} H{}" fill="none" stroke="{LOOP}" stroke-width="2" class="bracket"/>"#,
        bracket_x - 8,
        bracket_x - 8
    );
    let word = match y1 - y0 {
        h if h >= 130 => "loop: repeats forever",
        h if h >= 40 => "loop",
        _ => "",
    };
    if !word.is_empty() {
        let (x, cy) = (bracket_x + 12, (y0 + y1) / 2);
        let _ = writeln!(
            b,
            r#"<text x="{x}" y="{cy}" transform="rotate(90 {x} {cy})" text-anchor="middle" class="loop">{word}</text>"#
        );
    }
}

/// The violation: rings where it happens, the verdict below; returns the
/// picture's height.
fn verdict(b: &mut String, t: &Timeline, at: &Layout) -> i32 {
    let vy = at.rows.at(t.violation.row);
    for &l in &t.violation.lanes {
        let _ = writeln!(
            b,
            r#"<circle cx="{}" cy="{vy}" r="10" fill="none" stroke="{LOST}" stroke-width="2.5" class="violation"/>"#,
            lane_x(l)
        );
    }
    if t.violation.row.is_some() || t.rows.is_empty() {
        let _ = writeln!(b, r#"<text x="{}" y="{}" class="mark">✗</text>"#, STEP_X + 16, vy + 5);
    }
    let mut yb = at.rows.end + 28;
    for line in wrap(&format!("✗ {}", t.violation.text), fits(at.inner, 70)) {
        let _ = writeln!(
            b,
            r#"<text x="{MARGIN}" y="{yb}" class="verdict">{}</text>"#,
            esc(&line)
        );
        yb += 19;
    }
    yb + MARGIN
}

/// The SVG document around `body`: its size, title, styles and arrowhead.
fn document(t: &Timeline, width: i32, height: i32, body: &str) -> String {
    let mut svg = String::new();
    let _ = writeln!(svg, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = writeln!(svg, "<title>{}</title>", esc(&t.title));
    svg.push_str(&format!(
        r##"<style>
text {{ font-family: sans-serif; font-size: 12px; fill: {INK}; }}
.title {{ font-size: 15px; font-weight: bold; }}
.axis {{ font-size: 10px; fill: #666; text-anchor: end; }}
.num {{ font-size: 10px; fill: #999; text-anchor: end; }}
.lane {{ font-size: 13px; font-weight: bold; text-anchor: middle; }}
.small {{ font-size: 10px; }}
.white {{ fill: #fff; }}
.msgl {{ font-family: monospace; font-size: 11px; fill: {MSG}; }}
.lostl {{ font-family: monospace; font-size: 11px; fill: {LOST}; }}
.loop {{ font-size: 11px; font-style: italic; fill: {LOOP}; }}
.mark {{ font-size: 14px; font-weight: bold; fill: {LOST}; }}
.verdict {{ font-size: 13px; font-weight: bold; fill: {LOST}; }}
</style>
<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="{MSG}"/></marker></defs>
<rect width="100%" height="100%" fill="#fff"/>
"##
    ));
    svg.push_str(body);
    svg.push_str("</svg>\n");
    svg
}

/// A message label, over a pale backing so that the lines it crosses do
/// not cut through it: at `(x, y)`, running back toward the sender (`dir`
/// is the arrow's direction, 1 rightward).
fn label(b: &mut String, text: &str, x: i32, y: i32, dir: i32, class: &str) {
    let w = text.chars().count() as i32 * MONO_11 / 10 + 4;
    let left = if dir > 0 { x - w + 2 } else { x - 2 };
    let anchor = if dir > 0 { "end" } else { "start" };
    let _ = writeln!(
        b,
        r##"<rect x="{left}" y="{}" width="{w}" height="13" fill="#fff" opacity="0.85"/>"##,
        y - 10
    );
    let _ = writeln!(
        b,
        r#"<text x="{x}" y="{y}" text-anchor="{anchor}" class="{class}">{}</text>"#,
        esc(text)
    );
}
