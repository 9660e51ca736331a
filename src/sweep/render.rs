//! A sweep as SWEEP.md (a table per property, each violated cell linked
//! to its counterexample) and sweep.svg (the same tables as a heat map in
//! the trace timelines' colours: green holds, red violated, grey unknown).
//! Rows are the first parameter, columns the second (one column when only
//! one is varied). Same sweep, same bytes: integer coordinates, no clock.

use std::fmt::Write;

use crate::report::svg::{esc, BELIEF, INK, LOST};
use crate::scenario::Verdict;

use super::{label, Axis, Sweep};

/// The grey of an unknown cell: the timelines' pause block.
const UNKNOWN: &str = "#cfcfcf";
const MARGIN: i32 = 16;
const LABEL_W: i32 = 110;
const CELL_W: i32 = 66;
const CELL_H: i32 = 26;
/// Average advance of a 12px sans-serif character, in tenths of a pixel
/// (as the timelines measure it).
const SANS_12: i32 = 66;

/// The columns of the table: the second parameter's values, or one
/// column when only one is varied.
fn columns(s: &Sweep) -> (String, Vec<String>) {
    match s.axes.get(1) {
        Some(a) => (s.names()[1].clone(), a.values().map(|v| v.to_string()).collect()),
        None => (String::new(), vec!["verdict".to_string()]),
    }
}

/// One cell of a table: its verdict, its trace when violated, and the
/// combination in words.
type Shown = (Verdict, Option<String>, String);

/// Property `p`'s cells, row by row, each row with its first value.
fn rows(s: &Sweep, p: usize) -> Vec<(i64, Vec<Shown>)> {
    let cols = s.axes.get(1).map_or(1, Axis::count);
    let names = s.names();
    s.cells
        .chunks(cols)
        .map(|row| {
            let cells = row
                .iter()
                .map(|c| {
                    let (_, v, trace) = &c.verdicts[p];
                    (*v, trace.clone(), label(&names, &c.values))
                })
                .collect();
            (row[0].values[0], cells)
        })
        .collect()
}

/// SWEEP.md.
pub fn sweep_md(s: &Sweep) -> String {
    let names = s.names();
    let mut out = String::new();
    let _ = writeln!(out, "# Sweep of {}\n", s.scenario);
    let _ = writeln!(out, "`{}`\n", s.command);
    let what: Vec<String> = s
        .axes
        .iter()
        .zip(["rows", "columns"])
        .map(|(a, place)| format!("`{}` from {} to {} ({place})", a.dotted(), a.lo, a.hi))
        .collect();
    let _ = writeln!(
        out,
        "{} combinations of {}: each is the scenario with those values, checked as `locksmith check` checks it. A violated cell links to its counterexample; the folder of each violated combination holds its whole report. The same tables as a heat map: [sweep.svg](sweep.svg).",
        s.cells.len(),
        what.join(" by ")
    );
    let (col_name, cols) = columns(s);
    for (p, prop) in s.properties().iter().enumerate() {
        let _ = writeln!(out, "\n## {prop}\n\n{}\n", s.boundary(p));
        let corner = if col_name.is_empty() {
            names[0].clone()
        } else {
            format!("{} \\\\ {col_name}", names[0])
        };
        let _ = writeln!(out, "| {corner} | {} |", cols.join(" | "));
        let _ = writeln!(out, "|---:|{}", "---|".repeat(cols.len()));
        for (x, cells) in rows(s, p) {
            let shown: Vec<String> = cells
                .iter()
                .map(|(v, trace, _)| match trace {
                    Some(t) if *v == Verdict::Violated => format!("[violated]({t})"),
                    _ => v.as_str().to_string(),
                })
                .collect();
            let _ = writeln!(out, "| {x} | {} |", shown.join(" | "));
        }
    }
    out
}

/// sweep.svg: one heat map per property, its boundary above it.
pub fn sweep_svg(s: &Sweep) -> String {
    let names = s.names();
    let (col_name, cols) = columns(s);
    let props = s.properties();
    let title = format!("Sweep of {}: verdict per property", s.scenario);
    let sentences: Vec<String> = (0..props.len()).map(|p| s.boundary(p)).collect();
    let text_w = sentences
        .iter()
        .chain([&title, &s.command])
        .map(|t| t.chars().count() as i32 * SANS_12 / 10)
        .max()
        .unwrap_or(0);
    let grid_w = LABEL_W + CELL_W * cols.len() as i32;
    let width = 2 * MARGIN + grid_w.max(text_w + 8);
    let n_rows = s.cells.len() as i32 / cols.len() as i32;
    let panel_h = 22 + 18 + 20 + CELL_H * n_rows + 24;
    let top = 84;
    let height = top + panel_h * props.len() as i32 + MARGIN;
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">
<style>
text {{ font-family: sans-serif; font-size: 12px; fill: {INK}; }}
.title {{ font-size: 15px; font-weight: bold; }}
.prop {{ font-size: 13px; font-weight: bold; }}
.head {{ font-weight: bold; }}
.cell {{ font-size: 11px; fill: #fff; text-anchor: middle; }}
.dark {{ fill: {INK}; }}
.num {{ text-anchor: middle; }}
.row {{ text-anchor: end; }}
.cmd {{ font-family: monospace; font-size: 11px; fill: #666; }}
</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="{MARGIN}" y="{}" class="title">{}</text>
<text x="{MARGIN}" y="{}" class="cmd">{}</text>
"##,
        MARGIN + 14,
        esc(&title),
        MARGIN + 32,
        esc(&s.command)
    );
    legend(&mut out, MARGIN + 44);
    for (p, prop) in props.iter().enumerate() {
        let y0 = top + panel_h * p as i32;
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{}" class="prop">{}</text>"#,
            y0 + 14,
            esc(prop)
        );
        let _ = writeln!(
            out,
            r#"<text x="{MARGIN}" y="{}">{}</text>"#,
            y0 + 32,
            esc(&sentences[p])
        );
        let head_y = y0 + 54;
        let corner = if col_name.is_empty() {
            names[0].clone()
        } else {
            format!("{} \\ {col_name}", names[0])
        };
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{head_y}" class="row head">{}</text>"#,
            MARGIN + LABEL_W - 8,
            esc(&corner)
        );
        for (j, c) in cols.iter().enumerate() {
            let x = MARGIN + LABEL_W + CELL_W * j as i32 + CELL_W / 2;
            let _ = writeln!(out, r#"<text x="{x}" y="{head_y}" class="num head">{}</text>"#, esc(c));
        }
        for (i, (x_value, cells)) in rows(s, p).iter().enumerate() {
            let y = head_y + 8 + CELL_H * i as i32;
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" class="row">{x_value}</text>"#,
                MARGIN + LABEL_W - 8,
                y + 17
            );
            for (j, (v, trace, at)) in cells.iter().enumerate() {
                let x = MARGIN + LABEL_W + CELL_W * j as i32;
                cell(&mut out, (x, y), *v, trace.as_deref(), at);
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

fn colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => BELIEF,
        Verdict::Violated => LOST,
        Verdict::Unknown => UNKNOWN,
    }
}

/// One cell: a coloured box with its verdict, a link to its trace when
/// violated.
fn cell(out: &mut String, (x, y): (i32, i32), v: Verdict, trace: Option<&str>, at: &str) {
    let dark = if v == Verdict::Unknown { " dark" } else { "" };
    let body = format!(
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#fff"><title>{}: {}</title></rect><text x="{}" y="{}" class="cell{dark}">{}</text>"##,
        x,
        y,
        CELL_W,
        CELL_H,
        colour(v),
        esc(at),
        v.as_str(),
        x + CELL_W / 2,
        y + 17,
        v.as_str()
    );
    match trace.filter(|_| v == Verdict::Violated) {
        Some(t) => {
            let _ = writeln!(out, r#"<a href="{}">{body}</a>"#, esc(t));
        }
        None => {
            let _ = writeln!(out, "{body}");
        }
    }
}

fn legend(out: &mut String, y: i32) {
    let mut x = MARGIN;
    for v in [Verdict::Holds, Verdict::Violated, Verdict::Unknown] {
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{y}" width="14" height="14" fill="{}" stroke="#777"/><text x="{}" y="{}">{}</text>"##,
            colour(v),
            x + 20,
            y + 12,
            v.as_str()
        );
        x += 100;
    }
}

#[cfg(test)]
mod tests {
    use super::{sweep_md, sweep_svg};
    use crate::scenario::Verdict::{Holds as H, Violated as V};
    use crate::sweep::{combinations, Axis, Cell, Sweep};

    fn sweep() -> Sweep {
        let axes = vec![
            Axis {
                section: "system".into(),
                key: "ttl".into(),
                lo: 4,
                hi: 5,
            },
            Axis {
                section: "faults".into(),
                key: "max_pause".into(),
                lo: 1,
                hi: 2,
            },
        ];
        let cells = combinations(&axes)
            .into_iter()
            .map(|c| {
                let v = if c[0] > c[1] + 3 { H } else { V };
                let trace = (v == V).then(|| format!("ttl={},max_pause={}/trace.md", c[0], c[1]));
                Cell {
                    values: c,
                    verdicts: vec![("mutual_exclusion".into(), v, trace)],
                }
            })
            .collect();
        Sweep {
            scenario: "s".into(),
            command: "locksmith sweep s".into(),
            axes,
            cells,
        }
    }

    #[test]
    fn the_table_links_each_violated_cell_to_its_trace() {
        let md = sweep_md(&sweep());
        assert!(md.contains("mutual_exclusion holds iff ttl > max_pause + 3."), "{md}");
        assert!(md.contains("| ttl \\\\ max_pause | 1 | 2 |"), "{md}");
        assert!(
            md.contains("| 4 | [violated](ttl=4,max_pause=1/trace.md) | [violated](ttl=4,max_pause=2/trace.md) |"),
            "{md}"
        );
        assert!(
            md.contains("| 5 | holds | [violated](ttl=5,max_pause=2/trace.md) |"),
            "{md}"
        );
    }

    #[test]
    fn the_heat_map_links_exactly_the_violated_cells() {
        let svg = sweep_svg(&sweep());
        assert_eq!(svg.matches("<a href=").count(), 3, "{svg}");
        assert!(svg.contains(r#"<a href="ttl=5,max_pause=2/trace.md">"#), "{svg}");
        assert_eq!(svg.matches(r##"fill="#2e9e44" stroke="#fff""##).count(), 1, "{svg}");
        assert!(svg.ends_with("</svg>\n"));
        assert_eq!(sweep_svg(&sweep()), svg, "same sweep, same bytes");
    }
}
