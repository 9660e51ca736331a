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
