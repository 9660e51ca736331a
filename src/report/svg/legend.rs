//! The legend under a timeline's title: one glyph and its words per kind
//! of mark, in lines that fit the picture's width.

use std::fmt::Write;

use super::style::{BELIEF, LOOP, LOST, MARGIN, MSG, SANS_10};
use super::text::esc;
use super::timeline::{Lasso, Timeline};

/// The legend, in lines that fit `width`, from `y`; returns the last
/// line's baseline.
pub(super) fn legend(b: &mut String, t: &Timeline, y: i32, width: i32) -> i32 {
    let mut items: Vec<(&str, &str)> = vec![
        ("msg", "message, labelled with the command"),
        ("lost", "lost or dropped"),
        ("flight", "in flight at the end"),
        ("pause", "paused"),
        ("crash", "crashed"),
        ("belief", "believes it holds the lock"),
        ("violation", "property violated"),
    ];
    if matches!(t.lasso, Some(Lasso::Loop { .. })) {
        items.push(("loop", "repeats forever"));
    }
    let (mut x, mut y) = (MARGIN, y);
    for (kind, words) in items {
        let w = 28 + (words.chars().count() as i32 * SANS_10) / 10 + 22;
        if x + w > width - MARGIN && x > MARGIN {
            x = MARGIN;
            y += 20;
        }
        let (gx, gy) = (x, y - 4);
        let _ = match kind {
            "msg" => writeln!(
                b,
                r#"<line x1="{gx}" y1="{gy}" x2="{}" y2="{gy}" stroke="{MSG}" stroke-width="1.5" marker-end="url(#head)"/>"#,
                gx + 22
            ),
            "lost" => writeln!(
                b,
                r#"<path d="M{gx} {gy} H{} M{} {} L{} {} M{} {} L{} {}" stroke="{LOST}" stroke-width="2"/>"#,
                gx + 18,
                gx + 14,
                gy - 5,
                gx + 22,
                gy + 5,
                gx + 14,
                gy + 5,
                gx + 22,
                gy - 5
            ),
            "flight" => writeln!(
                b,
                r#"<line x1="{gx}" y1="{gy}" x2="{}" y2="{gy}" stroke="{MSG}" stroke-dasharray="5 4" marker-end="url(#head)"/>"#,
                gx + 22
            ),
            "pause" => writeln!(
                b,
                r##"<rect x="{}" y="{}" width="10" height="14" fill="#cfcfcf" stroke="#777"/>"##,
                gx + 6,
                gy - 7
            ),
            "crash" => writeln!(
                b,
                r##"<rect x="{}" y="{}" width="10" height="14" fill="#3b3b3b" stroke="#777"/>"##,
                gx + 6,
                gy - 7
            ),
            "belief" => writeln!(
                b,
                r#"<rect x="{}" y="{}" width="6" height="14" rx="2" fill="{BELIEF}"/>"#,
                gx + 8,
                gy - 7
            ),
            "violation" => writeln!(
                b,
                r#"<circle cx="{}" cy="{gy}" r="7" fill="none" stroke="{LOST}" stroke-width="2.5"/>"#,
                gx + 11
            ),
            _ => writeln!(
                b,
                r#"<path d="M{} {} H{} V{} H{}" fill="none" stroke="{LOOP}" stroke-width="2"/>"#,
                gx + 6,
                gy - 7,
                gx + 14,
                gy + 7,
                gx + 6
            ),
        };
        let _ = writeln!(b, r#"<text x="{}" y="{y}" class="small">{}</text>"#, x + 28, esc(words));
        x += w;
    }
    y
}
