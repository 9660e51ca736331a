//! Where a property's verdict changes across a sweep, in words: what a
//! reader wants from the grid is the rule ("mutual_exclusion holds iff
//! ttl > max_pause + 3"), not the cells. For one parameter a threshold
//! (`ttl ≥ 7`) or the list of values; for two, the first small integer
//! form `x > a·y + c` or `x < a·y + c` (a in 0, 1, 2; either parameter as
//! x) that classifies every decided cell exactly, else the cells on the
//! boundary. Unknown cells are left out of the search and named.

use crate::scenario::Verdict;

/// The property's verdicts over one or two parameters: `names` and
/// `values` per axis; `verdicts` row-major (the first axis slowest).
pub struct Plane<'a> {
    pub names: &'a [String],
    pub values: &'a [Vec<i64>],
    pub verdicts: &'a [Verdict],
}

impl Plane<'_> {
    /// Every cell with its coordinates (one or two values).
    fn cells(&self) -> Vec<(Vec<i64>, Verdict)> {
        let cols = self.values.get(1).map_or(1, Vec::len);
        self.verdicts
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut at = vec![self.values[0][i / cols]];
                if let Some(ys) = self.values.get(1) {
                    at.push(ys[i % cols]);
                }
                (at, *v)
            })
            .collect()
    }

    fn shown(&self, at: &[i64]) -> String {
        super::label(self.names, at)
    }
}

/// The boundary of `prop` in one sentence (two when some cells are
/// unknown).
pub fn describe(prop: &str, plane: &Plane) -> String {
    let cells = plane.cells();
    let decided: Vec<&(Vec<i64>, Verdict)> = cells.iter().filter(|(_, v)| *v != Verdict::Unknown).collect();
    let unknown: Vec<String> = cells
        .iter()
        .filter(|(_, v)| *v == Verdict::Unknown)
        .map(|(at, _)| plane.shown(at))
        .collect();
    let holds = decided.iter().filter(|(_, v)| *v == Verdict::Holds).count();
    let every = if plane.names.len() == 1 {
        let a = &plane.values[0];
        format!("every {} in {}..{}", plane.names[0], a[0], a[a.len() - 1])
    } else {
        "every combination".to_string()
    };
    let mut out = if decided.is_empty() {
        format!("{prop} is unknown everywhere: a bound stopped every check")
    } else if holds == decided.len() {
        format!("{prop} holds for {every}")
    } else if holds == 0 {
        format!("{prop} is violated for {every}")
    } else if plane.names.len() == 1 {
        one(prop, plane, &decided)
    } else {
        two(prop, plane, &decided)
    };
    if !unknown.is_empty() && !decided.is_empty() {
        out.push_str(&format!(
            " (not counting {} unknown: {})",
            unknown.len(),
            unknown.join("; ")
        ));
    }
    out.push('.');
    out
}

/// One parameter: a threshold either way, else the values listed.
fn one(prop: &str, plane: &Plane, decided: &[&(Vec<i64>, Verdict)]) -> String {
    let x = &plane.names[0];
    let of = |v: Verdict| -> Vec<i64> { decided.iter().filter(|(_, w)| *w == v).map(|(at, _)| at[0]).collect() };
    let (holding, violated) = (of(Verdict::Holds), of(Verdict::Violated));
    let (h_lo, h_hi) = (holding[0], holding[holding.len() - 1]);
    let (v_lo, v_hi) = (violated[0], violated[violated.len() - 1]);
    if v_hi < h_lo {
        return format!("{prop} holds iff {x} ≥ {h_lo}");
    }
    if h_hi < v_lo {
        return format!("{prop} holds iff {x} ≤ {h_hi}");
    }
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    format!(
        "{prop} has no threshold in {x}: it holds for {x} in {{{}}} and is violated for {{{}}}",
        list(&holding),
        list(&violated)
    )
}

/// A rule `s > a·o + c` (`above`) or `s < a·o + c` over the two
/// parameters, `s` the one at index `subject`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    subject: usize,
    above: bool,
    a: i64,
    c: i64,
}

impl Rule {
    fn holds(&self, at: &[i64]) -> bool {
        let (s, o) = (at[self.subject], at[1 - self.subject]);
        if self.above {
            s > self.a * o + self.c
        } else {
            s < self.a * o + self.c
        }
    }

    fn words(&self, names: &[String]) -> String {
        let (s, o) = (&names[self.subject], &names[1 - self.subject]);
        if self.a == 0 {
            // No other parameter: a plain threshold, written as one.
            return if self.above {
                format!("{s} ≥ {}", self.c + 1)
            } else {
                format!("{s} ≤ {}", self.c - 1)
            };
        }
        let term = if self.a == 1 {
            o.clone()
        } else {
            format!("{}·{o}", self.a)
        };
        let c = match self.c {
            0 => String::new(),
            c if c > 0 => format!(" + {c}"),
            c => format!(" - {}", -c),
        };
        format!("{s} {} {term}{c}", if self.above { ">" } else { "<" })
    }
}

/// Two parameters: the first rule that fits every decided cell, trying
/// the simplest first (a = 0, then 1, then 2; the first parameter as the
/// subject, then the second; `>` before `<`; c from low to high), else
/// the cells that differ from a neighbour.
fn two(prop: &str, plane: &Plane, decided: &[&(Vec<i64>, Verdict)]) -> String {
    let span = plane.values.iter().flatten().map(|v| v.abs()).max().unwrap_or(0);
    let reach = 3 * span + 2;
    for a in 0..=2 {
        for subject in 0..2 {
            for above in [true, false] {
                for c in -reach..=reach {
                    let rule = Rule { subject, above, a, c };
                    if decided.iter().all(|(at, v)| rule.holds(at) == (*v == Verdict::Holds)) {
                        return format!("{prop} holds iff {}", rule.words(plane.names));
                    }
                }
            }
        }
    }
    format!(
        "{prop} follows no rule of the form x > a·y + c or x < a·y + c (a in 0, 1, 2); it changes between {}",
        edges(plane).join("; ")
    )
}

/// The pairs of neighbouring decided cells (right or down) whose verdicts
/// differ, as `ttl=5,max_pause=2 holds / ttl=5,max_pause=3 violated`.
fn edges(plane: &Plane) -> Vec<String> {
    let cells = plane.cells();
    let cols = plane.values[1].len();
    let mut out = Vec::new();
    for (i, (at, v)) in cells.iter().enumerate() {
        let right = (i % cols + 1 < cols).then(|| i + 1);
        let down = (i + cols < cells.len()).then_some(i + cols);
        for j in [right, down].into_iter().flatten() {
            let (bt, w) = &cells[j];
            if *v != *w && *v != Verdict::Unknown && *w != Verdict::Unknown {
                out.push(format!(
                    "{} {} and {} {}",
                    plane.shown(at),
                    v.as_str(),
                    plane.shown(bt),
                    w.as_str()
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{describe, Plane};
    use crate::scenario::Verdict::{self, Holds as H, Unknown as U, Violated as V};

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    fn said(n: &[&str], values: &[Vec<i64>], verdicts: &[Verdict]) -> String {
        let names = names(n);
        describe(
            "mutual_exclusion",
            &Plane {
                names: &names,
                values,
                verdicts,
            },
        )
    }

    #[test]
    fn one_parameter_thresholds_either_way_and_uniform_lines() {
        let ttl = vec![(4..=9).collect::<Vec<i64>>()];
        assert_eq!(
            said(&["ttl"], &ttl, &[V, V, V, H, H, H]),
            "mutual_exclusion holds iff ttl ≥ 7."
        );
        assert_eq!(
            said(&["pause"], &ttl, &[H, H, V, V, V, V]),
            "mutual_exclusion holds iff pause ≤ 5."
        );
        assert_eq!(
            said(&["ttl"], &ttl, &[H; 6]),
            "mutual_exclusion holds for every ttl in 4..9."
        );
        assert_eq!(
            said(&["ttl"], &ttl, &[V; 6]),
            "mutual_exclusion is violated for every ttl in 4..9."
        );
    }

    #[test]
    fn one_parameter_not_monotone_is_listed_and_unknown_cells_named() {
        let ttl = vec![(4..=9).collect::<Vec<i64>>()];
        assert_eq!(
            said(&["ttl"], &ttl, &[V, H, V, H, H, H]),
            "mutual_exclusion has no threshold in ttl: it holds for ttl in {5, 7, 8, 9} and is violated for {4, 6}."
        );
        assert_eq!(
            said(&["ttl"], &ttl, &[V, V, U, H, H, H]),
            "mutual_exclusion holds iff ttl ≥ 7 (not counting 1 unknown: ttl=6)."
        );
        assert_eq!(
            said(&["ttl"], &ttl, &[U; 6]),
            "mutual_exclusion is unknown everywhere: a bound stopped every check."
        );
    }

    /// The grid of `holds iff x > a·y + c`, x rows and y columns.
    fn grid(xs: &[i64], ys: &[i64], rule: impl Fn(i64, i64) -> bool) -> Vec<Verdict> {
        xs.iter()
            .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
            .map(|(x, y)| if rule(x, y) { H } else { V })
            .collect()
    }

    #[test]
    fn two_parameters_find_the_simplest_linear_rule() {
        let (xs, ys): (Vec<i64>, Vec<i64>) = ((4..=12).collect(), (1..=6).collect());
        let values = vec![xs.clone(), ys.clone()];
        let n = ["ttl", "max_pause"];
        assert_eq!(
            said(&n, &values, &grid(&xs, &ys, |x, y| x > y + 3)),
            "mutual_exclusion holds iff ttl > max_pause + 3."
        );
        assert_eq!(
            said(&n, &values, &grid(&xs, &ys, |x, y| x >= 2 * y)),
            "mutual_exclusion holds iff ttl > 2·max_pause - 1."
        );
        assert_eq!(
            said(&n, &values, &grid(&xs, &ys, |x, _| x >= 8)),
            "mutual_exclusion holds iff ttl ≥ 8."
        );
        assert_eq!(
            said(&n, &values, &grid(&xs, &ys, |_, y| y <= 2)),
            "mutual_exclusion holds iff max_pause ≤ 2."
        );
        assert_eq!(
            said(&n, &values, &grid(&xs, &ys, |x, y| y < x - 5)),
            "mutual_exclusion holds iff ttl > max_pause + 5."
        );
    }

    #[test]
    fn two_parameters_with_no_rule_list_the_boundary() {
        let values = vec![vec![1, 2], vec![1, 2]];
        // A checkerboard: no half-plane separates it.
        let s = said(&["x", "y"], &values, &[H, V, V, H]);
        assert_eq!(
            s,
            "mutual_exclusion follows no rule of the form x > a·y + c or x < a·y + c (a in 0, 1, 2); it changes between x=1,y=1 holds and x=1,y=2 violated; x=1,y=1 holds and x=2,y=1 violated; x=1,y=2 violated and x=2,y=2 holds; x=2,y=1 violated and x=2,y=2 holds."
        );
        // An unknown cell is left out: the rest fits a rule.
        let s = said(&["x", "y"], &values, &[V, V, U, H]);
        assert_eq!(s, "mutual_exclusion holds iff x ≥ 2 (not counting 1 unknown: x=2,y=1).");
    }
}
