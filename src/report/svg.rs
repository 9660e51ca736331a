//! `trace.svg`: a counterexample as a timeline a person takes in at a
//! glance, in the spirit of Kleppmann's diagrams in "How to do distributed
//! locking" (2016): one lane per node, time flowing down with its ticks
//! drawn, message arrows from send to receipt labelled with the command,
//! pauses and crashes as blocks, each client's belief that it holds the
//! lock as a bar beside its lane, the violation marked where it happens and
//! a liveness loop bracketed. It tells the same story as trace.md, in the
//! same words: [`timeline`] gathers what to draw from the trace, [`draw`]
//! lays it out.

mod draw;
mod legend;
mod room;
mod style;
mod text;
mod timeline;

use std::path::Path;
pub(crate) use style::{BELIEF, INK, LOST};
pub use text::esc;

use crate::check::Counterexample;
use crate::properties::{Lock, Prop};
use crate::scenario::Scenario;
use crate::world::World;

/// The SVG of one counterexample of `prop`.
pub fn trace_svg<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>) -> String {
    draw::render(&timeline::build(sc, world, prop, cx))
}

/// The SVG file beside the trace file `json` (`trace.json` → `trace.svg`,
/// `no_stale_write.trace.json` → `no_stale_write.trace.svg`).
pub fn file_name(json: &Path) -> String {
    let name = json
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!("{}.svg", name.strip_suffix(".json").unwrap_or(&name))
}

#[cfg(test)]
mod tests {
    use super::draw::render;
    use super::timeline::{build, Arrow, Belief, Block, BlockKind, End, Lane, Lasso, Row, Timeline, Violation};
    use crate::algorithms::{dispatch, Job};
    use crate::catalog;
    use crate::check::{check, Options};
    use crate::properties::{Lock, Prop};
    use crate::scenario::Scenario;
    use crate::world::{Action, World};

    /// A counterexample of a bundled scenario: its timeline, its SVG, and
    /// the row of every delivery, loss and fault in its actions.
    struct Drawn {
        timeline: Timeline,
        svg: String,
        delivered: Vec<usize>,
        lost: Vec<usize>,
        pauses_and_crashes: usize,
    }

    struct Draw(Prop);

    impl Job for Draw {
        type Output = Drawn;
        fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Drawn {
            let outcome = check(&world, &Options::default());
            let cx = outcome.get(self.0).trace.clone().expect("a counterexample");
            let actions: Vec<Action<A>> = cx.prefix.iter().chain(cx.cycle.iter().flatten()).cloned().collect();
            let rows = |f: &dyn Fn(&Action<A>) -> bool| -> Vec<usize> {
                actions
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| f(a))
                    .map(|(i, _)| i)
                    .collect()
            };
            Drawn {
                timeline: build(sc, &world, self.0, &cx),
                svg: super::trace_svg(sc, &world, self.0, &cx),
                delivered: rows(&|a| matches!(a, Action::Deliver { .. })),
                lost: rows(&|a| matches!(a, Action::Lose { .. })),
                pauses_and_crashes: rows(&|a| matches!(a, Action::Pause { .. } | Action::Crash { .. })).len(),
            }
        }
    }

    fn drawn(name: &str, prop: Prop) -> Drawn {
        let sc = catalog::open(name).expect("a valid bundled scenario");
        dispatch(&sc, Draw(prop)).expect("builds")
    }

    /// The verdict below the timeline, its lines joined.
    fn verdict(svg: &str) -> String {
        let lines: Vec<&str> = svg
            .lines()
            .filter_map(|l| l.split_once(r#"class="verdict">"#))
            .map(|(_, rest)| rest.trim_end_matches("</text>"))
            .collect();
        lines.join(" ")
    }

    fn count(svg: &str, what: &str) -> usize {
        svg.matches(what).count()
    }

    /// What every trace.svg must be: one SVG with no script, no external
    /// font, image or link; the only URL is the SVG namespace.
    fn self_contained(svg: &str) {
        assert!(
            svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"")
        );
        assert!(!svg.to_lowercase().contains("<script"), "no script");
        assert_eq!(count(svg, "http"), 1, "only the namespace is a URL");
        for banned in [
            "href",
            "@import",
            "@font-face",
            "<image",
            "<foreignObject",
            "onload",
            "javascript",
        ] {
            assert!(!svg.contains(banned), "no {banned}");
        }
        assert_eq!(
            count(svg, "url("),
            count(svg, "url(#"),
            "only references inside the file"
        );
        assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn text_is_escaped_and_nothing_is_external() {
        let t = Timeline {
            title: "x & <y>: mutual_exclusion violated".into(),
            subtitle: "\"quoted\" and 'single'".into(),
            lanes: vec![Lane { name: "a<b&c".into() }, Lane { name: "srv".into() }],
            rows: vec![
                Row {
                    text: Some("a<b&c sends <script>alert('x')</script>".into()),
                    dot: Some(0),
                    ..Row::default()
                },
                Row {
                    text: Some("srv receives it".into()),
                    ..Row::default()
                },
            ],
            arrows: vec![Arrow {
                from: 0,
                to: 1,
                sent: Some(0),
                end: End::Delivered(1),
                label: "<script>&".into(),
            }],
            violation: Violation {
                row: Some(1),
                lanes: vec![0],
                text: "a < b".into(),
            },
            ..Timeline::default()
        };
        let svg = render(&t);
        self_contained(&svg);
        for raw in ["a<b", "<y>", "<script>", "'x'", "\"quoted\""] {
            assert!(!svg.contains(raw), "{raw} is escaped");
        }
        for escaped in [
            "a&lt;b&amp;c",
            "x &amp; &lt;y&gt;",
            "&lt;script&gt;&amp;",
            "&quot;quoted&quot;",
            "&#39;single&#39;",
        ] {
            assert!(svg.contains(escaped), "{escaped} in\n{svg}");
        }
        assert_eq!(render(&t), svg, "same timeline, same bytes");
    }

    #[test]
    fn long_labels_are_cut_to_their_room() {
        let long = "SET lock v1 NX PX 8 ".repeat(10);
        let t = Timeline {
            lanes: vec![Lane { name: "c1".into() }, Lane { name: "s1".into() }],
            rows: vec![
                Row {
                    text: Some(long.clone()),
                    ..Row::default()
                };
                2
            ],
            arrows: vec![Arrow {
                from: 0,
                to: 1,
                sent: Some(0),
                end: End::Delivered(1),
                label: long.clone(),
            }],
            ..Timeline::default()
        };
        let svg = render(&t);
        let shown: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains(r#"class="msgl""#) || l.starts_with("<text x") && l.contains("<title>"))
            .collect();
        assert_eq!(shown.len(), 3, "{svg}");
        for l in &shown {
            assert!(l.contains('…'), "cut: {l}");
        }
        assert!(
            svg.contains(&format!("<title>{}</title>", long.trim_end())) || svg.contains(&long),
            "the whole text stays as a tooltip"
        );
    }

    #[test]
    fn a_pause_past_the_ttl_draws_lanes_arrows_a_block_beliefs_and_the_violation() {
        let d = drawn("redis-ttl-gc-pause", Prop::MutualExclusion);
        let t = &d.timeline;
        self_contained(&d.svg);
        let names: Vec<&str> = t.lanes.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["redis", "c1", "c2"], "the nodes that take part, in id order");
        for name in &names {
            assert!(
                d.svg.contains(&format!(r#"class="lane">{name}</text>"#)),
                "{name} labelled"
            );
        }
        // One arrow per delivered message, ending at its delivery's row.
        let ends: Vec<usize> = t
            .arrows
            .iter()
            .filter_map(|a| match a.end {
                End::Delivered(r) => Some(r),
                _ => None,
            })
            .collect();
        let mut sorted = ends.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, d.delivered);
        assert_eq!(count(&d.svg, r#"class="msg""#), d.delivered.len());
        for a in &t.arrows {
            if let End::Delivered(r) | End::Lost(r) | End::Dropped(r) = a.end {
                assert!(a.sent.is_none_or(|s| s < r), "sent before it ends: {a:?}");
            }
        }
        // The pause, as a block on c1's lane, from the fault on.
        assert_eq!(d.pauses_and_crashes, 1);
        assert_eq!(t.blocks.len(), 1);
        assert!(matches!(
            t.blocks[0],
            Block {
                lane: 1,
                kind: BlockKind::Pause,
                ..
            }
        ));
        assert_eq!(count(&d.svg, r#"class="block""#), 1);
        // Both clients come to believe they hold the lock, and both still
        // do at the end: the violation, ringed on both lanes at the last row.
        assert_eq!(
            t.beliefs.iter().map(|b| (b.lane, b.to)).collect::<Vec<_>>(),
            [(1, None), (2, None)]
        );
        assert_eq!(count(&d.svg, r#"class="belief""#), 2);
        assert_eq!(t.violation.row, Some(t.rows.len() - 1));
        assert_eq!(t.violation.lanes, [1, 2]);
        assert_eq!(count(&d.svg, r#"class="violation""#), 2);
        assert!(verdict(&d.svg).contains("At the last step, c1 and c2 both believe they hold the lock."));
        assert!(t.lasso.is_none() && !d.svg.contains(r#"class="bracket""#));
        assert!(
            t.rows.iter().any(|r| r.tick) && d.svg.contains(">t=1</text>"),
            "ticks drawn"
        );
    }

    #[test]
    fn a_liveness_loop_is_bracketed_and_a_crash_is_a_block() {
        let d = drawn("lock-table-crash", Prop::DeadlockFreedom);
        let t = &d.timeline;
        self_contained(&d.svg);
        let Some(Lasso::Loop { from }) = t.lasso else {
            panic!("a loop: {:?}", t.lasso)
        };
        assert!(from > 0 && from < t.rows.len());
        assert_eq!(count(&d.svg, r#"class="bracket""#), 1);
        assert!(d.svg.contains("loop: repeats forever"));
        assert_eq!(t.violation.row, Some(from), "marked where the loop starts");
        assert_eq!(d.pauses_and_crashes, 1);
        assert!(matches!(
            t.blocks[..],
            [Block {
                kind: BlockKind::Crash,
                to: Some(_),
                ..
            }]
        ));
        assert_eq!(count(&d.svg, r#"class="block""#), 1);
        // The reply to the crashed client is dropped, not delivered.
        assert!(t.arrows.iter().any(|a| matches!(a.end, End::Dropped(_))));
        assert_eq!(count(&d.svg, r#"class="msg""#), d.delivered.len());
    }

    #[test]
    fn a_lost_message_ends_in_a_cross_and_a_stuck_run_says_so() {
        let d = drawn("ricart-agrawala-loss", Prop::DeadlockFreedom);
        let t = &d.timeline;
        self_contained(&d.svg);
        assert_eq!(t.lasso, Some(Lasso::Stuck));
        assert!(d.svg.contains("stuck: no fair action is enabled"));
        let lost: Vec<usize> = t
            .arrows
            .iter()
            .filter_map(|a| match a.end {
                End::Lost(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(lost, d.lost);
        assert_eq!(count(&d.svg, r#"class="lost""#), 1);
        assert!(d.svg.contains("REQUEST(ts 1, n1) (lost)"));
        assert_eq!(
            t.beliefs,
            Vec::<Belief>::new(),
            "nobody ever believes it holds the lock"
        );
    }

    #[test]
    fn the_svg_sits_beside_its_trace() {
        use std::path::Path;
        assert_eq!(super::file_name(Path::new("reports/x/trace.json")), "trace.svg");
        assert_eq!(
            super::file_name(Path::new("/r/x/no_stale_write.trace.json")),
            "no_stale_write.trace.svg"
        );
    }
}
