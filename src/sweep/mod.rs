//! `locksmith sweep`: one scenario checked at every combination of one or
//! two whole-number keys, to answer the question users have ("how long
//! must my TTL be, given pauses up to P?"). This module reads the
//! `--vary KEY=LO..HI` ranges and writes each combination's scenario text;
//! [`boundary`] states where the verdicts change, in words; [`render`]
//! draws the table and the heat map. The command itself (checking the
//! combinations, writing the folder) is `cli::sweep`.

pub mod boundary;
pub mod render;

use std::ops::RangeInclusive;
use std::path::Path;

use toml::{Table, Value};

use crate::scenario::Verdict;

/// At most this many `--vary` ranges: a table has rows and columns.
pub const MAX_AXES: usize = 2;
/// At most this many combinations: each is a full check.
pub const MAX_COMBINATIONS: usize = 400;
/// The scenario tables whose whole-number keys can be varied.
const SECTIONS: [&str; 4] = ["system", "faults", "bounds", "simulate"];

/// One `--vary SECTION.KEY=LO..HI`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The table, as in the scenario file: `system`, `faults`, ...
    pub section: String,
    /// The key inside it: `ttl`.
    pub key: String,
    pub lo: i64,
    pub hi: i64,
}

impl Axis {
    /// `section.key`, as the flag names it.
    pub fn dotted(&self) -> String {
        format!("{}.{}", self.section, self.key)
    }

    pub fn values(&self) -> RangeInclusive<i64> {
        self.lo..=self.hi
    }

    /// How many values the range holds.
    pub fn count(&self) -> usize {
        (self.hi - self.lo + 1) as usize
    }

    /// `system.ttl=4..12`, as the flag is written.
    pub fn flag(&self) -> String {
        format!("{}={}..{}", self.dotted(), self.lo, self.hi)
    }
}

/// Reads the `--vary` flags: each `SECTION.KEY=LO..HI` with LO ≤ HI, at
/// most [`MAX_AXES`] of them on distinct keys and at most
/// [`MAX_COMBINATIONS`] combinations. An error is one sentence naming the
/// flag and what is allowed.
pub fn parse_axes(flags: &[String]) -> Result<Vec<Axis>, String> {
    if flags.is_empty() {
        return Err("sweep needs --vary KEY=LO..HI (one or two of them), such as --vary system.ttl=4..12".into());
    }
    if flags.len() > MAX_AXES {
        return Err(format!(
            "{} --vary flags given; allowed: at most {MAX_AXES} (the rows and the columns of the table)",
            flags.len()
        ));
    }
    let axes: Vec<Axis> = flags.iter().map(|f| parse_axis(f)).collect::<Result<_, _>>()?;
    if axes.len() == 2 && axes[0].dotted() == axes[1].dotted() {
        return Err(format!(
            "--vary {} is given twice; allowed: two different keys",
            axes[0].dotted()
        ));
    }
    let combinations = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.count()));
    match combinations {
        Some(n) if n <= MAX_COMBINATIONS => Ok(axes),
        _ => Err(format!(
            "--vary {} makes {} combinations; allowed: at most {MAX_COMBINATIONS} (each is a full check)",
            flags.join(" --vary "),
            combinations.map_or("too many".to_string(), |n| n.to_string())
        )),
    }
}

fn parse_axis(flag: &str) -> Result<Axis, String> {
    let shape = "allowed: SECTION.KEY=LO..HI with whole numbers LO ≤ HI, such as system.ttl=4..12";
    let Some((key, range)) = flag.split_once('=') else {
        return Err(format!("--vary {flag:?} is not a range; {shape}"));
    };
    let Some((section, name)) = key.trim().split_once('.') else {
        return Err(format!(
            "--vary {flag}: the key {key:?} names no table; {shape} (the table one of {})",
            SECTIONS.join(", ")
        ));
    };
    if !SECTIONS.contains(&section) {
        return Err(format!(
            "--vary {flag}: [{section}] has no whole numbers to vary; allowed tables: {}",
            SECTIONS.join(", ")
        ));
    }
    if name.is_empty() || name.contains('.') {
        return Err(format!("--vary {flag}: the key {key:?} is not SECTION.KEY; {shape}"));
    }
    let bounds = range
        .split_once("..")
        .and_then(|(lo, hi)| Some((lo.trim().parse::<i64>().ok()?, hi.trim().parse::<i64>().ok()?)));
    let Some((lo, hi)) = bounds else {
        return Err(format!("--vary {flag}: {range:?} is not a range; {shape}"));
    };
    if lo > hi {
        return Err(format!("--vary {flag}: LO {lo} is above HI {hi}; {shape}"));
    }
    if lo < 0 || hi > i64::from(u16::MAX) {
        return Err(format!(
            "--vary {flag}: the range is out of bounds; allowed: whole numbers from 0 to {}",
            u16::MAX
        ));
    }
    Ok(Axis {
        section: section.to_string(),
        key: name.to_string(),
        lo,
        hi,
    })
}

/// Every combination of the axes' values, the first axis slowest (the
/// table's rows), in ascending order.
pub fn combinations(axes: &[Axis]) -> Vec<Vec<i64>> {
    axes.iter().fold(vec![Vec::new()], |acc, axis| {
        acc.iter()
            .flat_map(|prefix| {
                axis.values().map(move |v| {
                    let mut c = prefix.clone();
                    c.push(v);
                    c
                })
            })
            .collect()
    })
}

/// The short names of the axes in tables and sentences: their keys
/// (`ttl`), or `section.key` when two axes share a key.
pub fn names(axes: &[Axis]) -> Vec<String> {
    let clash = axes.len() == 2 && axes[0].key == axes[1].key;
    axes.iter()
        .map(|a| if clash { a.dotted() } else { a.key.clone() })
        .collect()
}

/// A combination as words and as its report folder's name:
/// `ttl=4,max_pause=3`.
pub fn label(names: &[String], values: &[i64]) -> String {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Checks that each axis's key, where the scenario sets it, holds a whole
/// number: a word or a flag cannot be swept. A key the scenario leaves to
/// its default is left to the loader, which refuses one its table does not
/// have ([`unknown_key`]).
pub fn check_types(file: &Path, source: &str, axes: &[Axis]) -> Result<(), String> {
    let table: Table = source
        .parse()
        .map_err(|e| format!("{}: not valid TOML: {e}", file.display()))?;
    for axis in axes {
        let value = table
            .get(&axis.section)
            .and_then(Value::as_table)
            .and_then(|t| t.get(&axis.key));
        match value {
            None | Some(Value::Integer(_)) => {}
            Some(v) => {
                return Err(format!(
                "--vary {}: {} sets [{}] {} = {}, not a whole number; only keys holding whole numbers can be varied",
                axis.flag(),
                file.display(),
                axis.section,
                axis.key,
                v.to_string().replace('\n', " ")
            ))
            }
        }
    }
    Ok(())
}

/// Whether a loader error says that `axis`'s key is not one its table has:
/// then the flag, not the combination, is at fault.
pub fn unknown_key(error: &str, axis: &Axis) -> bool {
    error.contains(&format!("[{}] has no key {:?}", axis.section, axis.key))
}

/// The scenario text with each axis's key set to its value: the line that
/// sets it rewritten in place (its comments and the rest of the file kept),
/// or a line added under its table (and the table added) where the file
/// leaves it to its default. The `[expect]` table is left out: the
/// scenario's expectations are for its own values, and a sweep expects
/// nothing, so a combination's summary.json must not call a verdict
/// unexpected. Where the text cannot be edited so (a key set in an inline
/// table, say), the file is written anew from its values.
pub fn substitute(source: &str, axes: &[Axis], values: &[i64]) -> Result<String, String> {
    let mut want: Table = source.parse().map_err(|e| format!("not valid TOML: {e}"))?;
    want.remove("expect");
    for (axis, v) in axes.iter().zip(values) {
        let section = want
            .entry(axis.section.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(t) = section {
            t.insert(axis.key.clone(), Value::Integer(*v));
        }
    }
    let edited = axes
        .iter()
        .zip(values)
        .fold(without_expect(source), |text, (a, v)| set_line(&text, a, *v));
    if edited.parse::<Table>().ok().as_ref() == Some(&want) {
        return Ok(edited);
    }
    toml::to_string(&want).map_err(|e| e.to_string())
}

/// The text without its `[expect]` table (the header up to the next
/// table or the end, and the blank lines before it).
fn without_expect(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') && !t.starts_with("[[") {
            skipping = t.split('#').next().unwrap_or(t).trim() == "[expect]";
            if skipping {
                while out.last().is_some_and(|l| l.trim().is_empty()) {
                    out.pop();
                }
            }
        }
        if !skipping {
            out.push(line);
        }
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Sets `axis.key = value` under `[axis.section]` in TOML text, by lines
/// (outside multi-line strings). [`substitute`] checks the result.
fn set_line(text: &str, axis: &Axis, value: i64) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header = format!("[{}]", axis.section);
    let mut in_string = false;
    let mut section: Option<String> = None;
    let mut header_at = None;
    let mut set_at = None;
    for (i, line) in lines.iter().enumerate() {
        let was_in_string = in_string;
        if (line.matches("\"\"\"").count() + line.matches("'''").count()) % 2 == 1 {
            in_string = !in_string;
        }
        if was_in_string {
            continue;
        }
        let t = line.trim();
        if t.starts_with('[') {
            section = Some(t.split('#').next().unwrap_or(t).trim().to_string());
            if section.as_deref() == Some(header.as_str()) {
                header_at = Some(i);
            }
            continue;
        }
        let key = t.split('=').next().unwrap_or("").trim();
        if section.as_deref() == Some(header.as_str()) && t.contains('=') && key == axis.key {
            set_at = Some(i);
        }
    }
    match (set_at, header_at) {
        (Some(i), _) => {
            let line = &lines[i];
            let indent = &line[..line.len() - line.trim_start().len()];
            let comment = line.find('#').map(|c| format!(" {}", &line[c..])).unwrap_or_default();
            lines[i] = format!("{indent}{} = {value}{comment}", axis.key);
        }
        (None, Some(h)) => lines.insert(h + 1, format!("{} = {value}", axis.key)),
        (None, None) => {
            lines.push(String::new());
            lines.push(header);
            lines.push(format!("{} = {value}", axis.key));
        }
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// One combination's verdicts, as the table, the heat map and the
/// boundary read them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The axes' values, in the axes' order.
    pub values: Vec<i64>,
    /// Per property, in the checker's order: its verdict and, when
    /// violated, its trace.md relative to the sweep folder.
    pub verdicts: Vec<(String, Verdict, Option<String>)>,
}

/// A finished sweep: what the table, the heat map, the printed summary
/// and `--format json` are made of.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The scenario's name.
    pub scenario: String,
    /// The command that makes it again (no `--jobs`: it changes nothing).
    pub command: String,
    pub axes: Vec<Axis>,
    /// Every combination, in [`combinations`]' order.
    pub cells: Vec<Cell>,
}

impl Sweep {
    pub fn names(&self) -> Vec<String> {
        names(&self.axes)
    }

    /// The properties checked, in the checker's order.
    pub fn properties(&self) -> Vec<String> {
        self.cells
            .first()
            .map(|c| c.verdicts.iter().map(|(p, _, _)| p.clone()).collect())
            .unwrap_or_default()
    }

    /// Property `i`'s verdict in every cell.
    pub fn verdicts(&self, i: usize) -> Vec<Verdict> {
        self.cells
            .iter()
            .map(|c| c.verdicts.get(i).map_or(Verdict::Unknown, |v| v.1))
            .collect()
    }

    /// Property `i`'s boundary in words ([`boundary::describe`]).
    pub fn boundary(&self, i: usize) -> String {
        let names = self.names();
        let values: Vec<Vec<i64>> = self.axes.iter().map(|a| a.values().collect()).collect();
        let verdicts = self.verdicts(i);
        let plane = boundary::Plane {
            names: &names,
            values: &values,
            verdicts: &verdicts,
        };
        boundary::describe(&self.properties()[i], &plane)
    }

    /// Whether some cell is unknown (a bound stopped its check).
    pub fn has_unknown(&self) -> bool {
        self.cells
            .iter()
            .any(|c| c.verdicts.iter().any(|v| v.1 == Verdict::Unknown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(flags: &[&str]) -> Result<Vec<Axis>, String> {
        parse_axes(&flags.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn ranges_are_read_and_bad_ones_refused_in_one_sentence() {
        let a = axes(&["system.ttl=4..6", "faults.max_pause=1..2"]).expect("good");
        assert_eq!(a[0].flag(), "system.ttl=4..6");
        assert_eq!(combinations(&a), [[4, 1], [4, 2], [5, 1], [5, 2], [6, 1], [6, 2]]);
        let said = |f: &[&str]| axes(f).expect_err("refused");
        assert!(said(&["ttl=4..6"]).contains("names no table"));
        assert!(said(&["system.ttl=6..4"]).contains("LO 6 is above HI 4"));
        assert!(said(&["system.ttl=4"]).contains("is not a range"));
        assert!(said(&["system.ttl=a..b"]).contains("is not a range"));
        assert!(said(&["expect.ttl=1..2"]).contains("allowed tables"));
        assert!(said(&["system.ttl=1..2", "system.ttl=3..4"]).contains("given twice"));
        assert!(said(&["a.b=1..2", "c.d=1..2", "e.f=1..2"]).contains("at most 2"));
        assert!(said(&["system.ttl=0..100", "faults.max_pause=0..10"]).contains("1111 combinations"));
        assert!(said(&[]).contains("needs --vary"));
    }

    const SOURCE: &str = "summary = \"s\"\ndescription = \"\"\"\n[system]\nttl = 1\n\"\"\"\n\n[system]\nclients = 2\nttl = 4 # ticks\n\n[bounds]\nacquisitions = 1\n";

    #[test]
    fn a_key_is_set_in_place_added_to_its_table_or_with_its_table() {
        let a = axes(&["system.ttl=4..6", "faults.max_pause=1..2"]).expect("good");
        let out = substitute(SOURCE, &a, &[9, 3]).expect("substituted");
        assert!(
            out.contains("\"\"\"\n[system]\nttl = 1\n\"\"\""),
            "the string is kept: {out}"
        );
        assert!(out.contains("clients = 2\nttl = 9 # ticks\n"), "{out}");
        assert!(out.ends_with("\n[faults]\nmax_pause = 3\n"), "{out}");
        let b = axes(&["bounds.acquisitions=1..2"]).expect("good");
        let out = substitute(SOURCE, &b, &[2]).expect("substituted");
        assert!(out.contains("[bounds]\nacquisitions = 2\n"), "{out}");
        let with_expect = format!("{SOURCE}\n[expect]\nmutual_exclusion = \"violated\"\n");
        let out = substitute(&with_expect, &b, &[2]).expect("substituted");
        assert!(out.ends_with("[bounds]\nacquisitions = 2\n"), "no [expect]: {out}");
        let c = axes(&["bounds.symmetry=1..2"]).expect("good");
        let out = substitute(SOURCE, &c, &[1]).expect("substituted");
        assert!(out.contains("[bounds]\nsymmetry = 1\nacquisitions = 1\n"), "{out}");
    }

    #[test]
    fn only_whole_numbers_can_be_varied() {
        let src = "[system]\ncommand = \"set-nx-px\"\nttl = 4\n";
        let a = axes(&["system.command=1..2"]).expect("good");
        let said = check_types(Path::new("s.toml"), src, &a).expect_err("a word");
        assert!(
            said.contains("[system] command = \"set-nx-px\", not a whole number"),
            "{said}"
        );
        let ok = axes(&["system.ttl=1..2", "faults.max_pause=1..2"]).expect("good");
        assert_eq!(check_types(Path::new("s.toml"), src, &ok), Ok(()));
    }
}
