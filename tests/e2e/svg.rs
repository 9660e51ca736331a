//! trace.svg end to end: `check` and `simulate` write one beside every
//! trace.md, trace.md links it, and it is well-formed XML (parsed by
//! roxmltree, as a browser or GitHub would refuse a malformed one) that
//! shows the violated step in the system's words.

use std::fs;
use std::path::Path;

use crate::common::{locksmith, TempDir};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The last step of trace.md's table: its action column.
fn last_action(md: &str) -> String {
    let row = md
        .lines()
        .rfind(|l| l.starts_with("| ") && l.split(" | ").next().is_some_and(|n| n[2..].parse::<usize>().is_ok()))
        .unwrap_or_else(|| panic!("no step in\n{md}"));
    row.split(" | ").nth(3).expect("an action column").replace("\\|", "|")
}

/// Checks every trace in `dir`: its SVG exists, is linked from its
/// trace.md, parses as an SVG document and names the last step. Returns
/// how many traces it checked.
fn check_traces(dir: &Path) -> usize {
    let mut seen = 0;
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("a report folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".itf.json") && n != "summary.json")
        .collect();
    names.sort();
    for json in names {
        let stem = json.strip_suffix(".json").expect("a .json file");
        let md = fs::read_to_string(dir.join(format!("{stem}.md"))).expect("trace.md");
        let svg_name = format!("{stem}.svg");
        assert!(
            md.contains(&format!("Timeline: [{svg_name}]({svg_name})")),
            "{stem}.md links its SVG"
        );
        let svg = fs::read_to_string(dir.join(&svg_name)).unwrap_or_else(|e| panic!("{svg_name}: {e}"));
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{svg_name} is not XML: {e}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(root.tag_name().namespace(), Some(SVG_NS));
        for attr in ["width", "height", "viewBox"] {
            assert!(root.attribute(attr).is_some(), "{svg_name}: no {attr}");
        }
        assert!(
            !doc.descendants().any(|n| n.tag_name().name() == "script"),
            "{svg_name}: a script"
        );
        // Each row's words keep their whole text as a tooltip: the last
        // step, where a safety property breaks, is there in full.
        let action = last_action(&md);
        let titles: Vec<String> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "title")
            .filter_map(|n| n.text().map(String::from))
            .collect();
        assert!(
            titles.iter().any(|t| t.starts_with(&action)),
            "{svg_name}: no step {action:?} among {titles:?}"
        );
        let verdict: String = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("verdict"))
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join(" ");
        let prop = md
            .lines()
            .next()
            .and_then(|l| l.strip_suffix(" violated"))
            .and_then(|l| l.rsplit(": ").next())
            .expect("trace.md's title names the property");
        assert!(verdict.contains(&format!("{prop} violated")), "{svg_name}: {verdict}");
        seen += 1;
    }
    seen
}

#[test]
fn check_writes_a_well_formed_svg_beside_every_trace() {
    let tmp = TempDir::new("svg-check");
    let run = locksmith([
        "check".as_ref(),
        "redis-del-foreign-release".as_ref(),
        "--reports".as_ref(),
        tmp.path().as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let dir = tmp.join("redis-del-foreign-release");
    let traces = check_traces(&dir);
    assert!(traces >= 2, "the headline and the other violations: {traces}");
    let svg = fs::read_to_string(dir.join("trace.svg")).expect("trace.svg");
    assert!(svg.contains("crashed"), "the crash in this trace is drawn");

    // Same scenario, same bytes.
    let again = TempDir::new("svg-check-again");
    let run = locksmith([
        "check".as_ref(),
        "redis-del-foreign-release".as_ref(),
        "--reports".as_ref(),
        again.path().as_os_str(),
    ]);
    assert_eq!(run.code, 0);
    let twice = fs::read_to_string(again.join("redis-del-foreign-release").join("trace.svg")).expect("trace.svg");
    assert_eq!(svg, twice);
}

#[test]
fn simulate_writes_a_well_formed_svg_beside_every_trace() {
    let tmp = TempDir::new("svg-sim");
    let run = locksmith([
        "simulate".as_ref(),
        "redis-ttl-gc-pause".as_ref(),
        "--seed".as_ref(),
        "1".as_ref(),
        "--runs".as_ref(),
        "2000".as_ref(),
        "--reports".as_ref(),
        tmp.path().as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let traces = check_traces(&tmp.join("redis-ttl-gc-pause").join("sim-1"));
    assert!(traces >= 1);
}

/// A message label as drawn: its box, from its anchor and its length at
/// the 11 px monospace advance (6.7 px a character) the drawing assumes.
fn label_box(t: roxmltree::Node) -> (i32, i32, i32, i32, String) {
    let num = |a: &str| {
        t.attribute(a)
            .and_then(|v| v.parse::<i32>().ok())
            .expect("integer coordinates")
    };
    let (x, y) = (num("x"), num("y"));
    let text = t.text().unwrap_or("").to_string();
    let w = text.chars().count() as i32 * 67 / 10;
    let (left, right) = if t.attribute("text-anchor") == Some("end") {
        (x - w, x)
    } else {
        (x, x + w)
    };
    (left, right, y - 10, y + 3, text)
}

/// Labels use the room the layout leaves them (up to the step words'
/// column, past the sender's lane), and none crosses a pause's rotated
/// word: zk-session-expiry-pause pauses c1 while c2 connects across its
/// lane.
#[test]
fn message_labels_use_the_room_and_stay_clear_of_pause_words() {
    let dir = TempDir::new("svg-room");
    let run = locksmith([
        "check",
        "zk-session-expiry-pause",
        "--reports",
        dir.path().to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let svg = fs::read_to_string(dir.join("zk-session-expiry-pause/trace.svg")).expect("trace.svg");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let texts: Vec<roxmltree::Node> = doc.descendants().filter(|n| n.has_tag_name((SVG_NS, "text"))).collect();
    let labels: Vec<_> = texts
        .iter()
        .filter(|t| t.attribute("class") == Some("msgl"))
        .map(|t| label_box(*t))
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l.4.starts_with("create /lock/_c_g2-lock- EPHEMERAL_SEQUENTIAL")),
        "the create is cut to the gap between two lanes although the row is free: {labels:?}"
    );
    let words: Vec<(i32, i32, i32)> = texts
        .iter()
        .filter_map(|t| {
            let r = t
                .attribute("transform")?
                .strip_prefix("rotate(90 ")?
                .strip_suffix(')')?;
            let (x, cy) = r.split_once(' ')?;
            let half = t.text()?.chars().count() as i32 * 55 / 20;
            Some((
                x.parse().ok()?,
                cy.parse::<i32>().ok()? - half,
                cy.parse::<i32>().ok()? + half,
            ))
        })
        .collect();
    assert!(!words.is_empty(), "the trace's pause has no word to stay clear of");
    for (left, right, top, bottom, text) in &labels {
        for (x, wtop, wbottom) in &words {
            let crosses = left < &(x + 6) && right > &(x - 6) && top < wbottom && bottom > wtop;
            assert!(!crosses, "label {text:?} crosses the pause word at x {x}");
        }
    }
}
