//! The liveness pass on small hand-made graphs.

use super::trim::{by_sweeps, entering, with_a_way_on};
use super::*;
use crate::check::graph::{Facts, Parent};

const WANTS: u64 = 1 << 1;

/// A graph from (from, to, class) edges; `holding` states hold (they do not
/// want the lock), the rest want it.
fn graph(n: u32, edges: &[(u32, u32, Class)], holding: &[u32]) -> Graph {
    graph_sf(n, edges, holding, &[])
}

/// As [`graph`], with the classes in `strong` strongly fair.
fn graph_sf(n: u32, edges: &[(u32, u32, Class)], holding: &[u32], strong: &[Class]) -> Graph {
    graph_fair(n, edges, holding, strong, &[])
}

/// As [`graph_sf`], with the edges of the classes in `random` outcomes
/// of a random choice (fair per state).
fn graph_fair(n: u32, edges: &[(u32, u32, Class)], holding: &[u32], strong: &[Class], random: &[Class]) -> Graph {
    let wanting: Vec<u64> = (0..n).map(|s| if holding.contains(&s) { 0 } else { WANTS }).collect();
    graph_wanting(&wanting, edges, strong, random)
}

/// As [`graph_fair`], with state `s` wanted by the clients whose bits are
/// set in `wanting[s]`.
fn graph_wanting(wanting: &[u64], edges: &[(u32, u32, Class)], strong: &[Class], random: &[Class]) -> Graph {
    let mut g = Graph::default();
    for (s, &wanting) in wanting.iter().enumerate() {
        g.facts.push(Facts {
            wanting,
            depth: s as u32,
        });
        g.parent.push(Parent(0, 0));
    }
    for (i, &(from, to, class)) in edges.iter().enumerate() {
        g.raw.push((
            from,
            Edge::new(to, class, i as u16, strong.contains(&class), random.contains(&class)),
        ));
    }
    g.seal();
    g
}

#[test]
fn a_waiting_cycle_is_a_violation() {
    // 0 -> 1 -> 2 -> 1: the client waits forever, on a cycle only.
    let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, 2)], &[]);
    let l = find(&g, Waiting::Anyone).expect("the cycle is found");
    assert_eq!(l.entry, 1);
    let classes: Vec<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert_eq!(classes, vec![1, 2]);
}

#[test]
fn a_cycle_that_ignores_an_action_enabled_throughout_is_unfair() {
    // As above, but from both 1 and 2 a grant (class 9) is enabled.
    let g = graph(4, &[(0, 1, 0), (1, 2, 1), (2, 1, 2), (1, 3, 9), (2, 3, 9)], &[3]);
    assert_eq!(find(&g, Waiting::Anyone), None);
}

#[test]
fn weak_fairness_allows_ignoring_an_action_enabled_only_sometimes() {
    // The grant is enabled in state 1 only: the loop may skip it forever.
    let g = graph(4, &[(0, 1, 0), (1, 2, 1), (2, 1, 2), (1, 3, 9)], &[3]);
    assert!(find(&g, Waiting::Anyone).is_some());
}

#[test]
fn faults_are_never_part_of_the_loop() {
    let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, FAULT), (1, 0, 5)], &[]);
    // 1 -> 2 is a dead end once the fault is excluded, and 0 <-> 1 is fair.
    let l = find(&g, Waiting::Anyone).expect("0 <-> 1 waits forever");
    assert!(l.cycle.iter().all(|(_, e)| e.class != FAULT));
    assert_eq!(l.entry, 0);
}

#[test]
fn a_stuck_waiting_state_is_a_violation_with_an_empty_loop() {
    // State 0 has a fair action; state 1 has only a fault left.
    let g = graph(2, &[(0, 1, 0), (1, 1, FAULT)], &[]);
    let l = find(&g, Waiting::Anyone).expect("state 1 is stuck");
    assert_eq!((l.entry, l.cycle.len()), (1, 0));
}

#[test]
fn acquisitions_leave_the_waiting_subgraph() {
    // 1 -> 2 grants the lock and 2 -> 1 releases it: no lasso.
    let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, 2)], &[2]);
    assert_eq!(find(&g, Waiting::Anyone), None);
}

#[test]
fn the_fair_loop_takes_every_class_enabled_along_it() {
    // Two ways round from 1: via 2 (class 1, 2) and via 3 (class 3, 4).
    // Class 5 (a self-contained detour) is enabled in 1 and 2 and 3 and
    // only taken from 3 to 4 and back; a fair loop must include it.
    let edges = [
        (0, 1, 0),
        (1, 2, 1),
        (2, 1, 2),
        (1, 3, 3),
        (3, 1, 4),
        (1, 4, 5),
        (2, 4, 5),
        (3, 4, 5),
        (4, 1, 6),
    ];
    let g = graph(5, &edges, &[]);
    let l = find(&g, Waiting::Anyone).expect("waits forever");
    let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert!(taken.contains(&5), "{:?}", l.cycle);
    assert_eq!(l.cycle.first().map(|(s, _)| *s), Some(l.entry));
    assert_eq!(l.cycle.last().map(|(_, e)| e.to), Some(l.entry));
}

/// The random choice of a back-off, in miniature: in state 1 the client
/// draws outcome 5 (back to waiting, via 2) or outcome 6 (which leads
/// to the grant in 3 -> 4). Each outcome is enabled in state 1 only.
const DRAW: [(u32, u32, Class); 5] = [(0, 1, 0), (1, 2, 5), (2, 1, 2), (1, 3, 6), (3, 4, 7)];

#[test]
fn a_loop_that_refuses_an_outcome_is_fair_only_under_weak_fairness() {
    // Weakly fair only: outcome 6 is not enabled throughout the loop
    // 1 -> 2 -> 1, so the loop may skip it for ever.
    let weak = graph(5, &DRAW, &[4]);
    let l = find(&weak, Waiting::Anyone).expect("under weak fairness the loop is fair");
    let classes: Vec<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert_eq!(classes, vec![5, 2]);
    // Strongly fair outcomes: the loop returns to state 1, where 6 is
    // enabled, infinitely often, and never takes it: not fair.
    let strong = graph_sf(5, &DRAW, &[4], &[5, 6]);
    assert_eq!(find(&strong, Waiting::Anyone), None);
}

#[test]
fn a_loop_that_takes_every_outcome_is_fair_under_strong_fairness() {
    // Both outcomes lead back to waiting: the fair loop takes both.
    let edges = [(0, 1, 0), (1, 2, 5), (2, 1, 2), (1, 3, 6), (3, 1, 3)];
    let g = graph_sf(4, &edges, &[], &[5, 6]);
    let l = find(&g, Waiting::Anyone).expect("waits forever, drawing both outcomes");
    let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert!(taken.contains(&5) && taken.contains(&6), "{:?}", l.cycle);
    assert_eq!(l.cycle.first().map(|(s, _)| *s), Some(l.entry));
    assert_eq!(l.cycle.last().map(|(_, e)| e.to), Some(l.entry));
}

#[test]
fn the_decomposition_keeps_the_fair_part_of_an_unfair_component() {
    // Component {1, 2, 3}; in 3 the strong outcome 9 leads out to a
    // grant, and no edge inside takes it. Removing 3 leaves the loop
    // 1 <-> 2, which is fair (class 3 is enabled in 2 only), so the
    // violation is that loop, and it never visits 3.
    let edges = [(0, 1, 0), (1, 2, 1), (2, 1, 2), (2, 3, 3), (3, 2, 4), (3, 4, 9)];
    let g = graph_sf(5, &edges, &[4], &[9]);
    let l = find(&g, Waiting::Anyone).expect("1 <-> 2 waits forever");
    assert!(l.cycle.iter().all(|(s, e)| *s != 3 && e.to != 3), "{:?}", l.cycle);
    // With 9 only weakly fair the whole component is fair, and its
    // state nearest the start is the same.
    assert_eq!(find(&graph(5, &edges, &[4]), Waiting::Anyone).map(|l| l.entry), Some(1));
}

#[test]
fn the_decomposition_recurses_until_nothing_fair_is_left() {
    // Two rounds: removing 3 (outcome 9 refused) leaves {1, 2}, where
    // outcome 8, enabled in 2, is still refused; removing 2 leaves 1
    // with no loop.
    let edges = [
        (0, 1, 0),
        (1, 2, 1),
        (2, 1, 2),
        (2, 3, 3),
        (3, 2, 4),
        (3, 4, 9),
        (2, 4, 8),
    ];
    let g = graph_sf(5, &edges, &[4], &[8, 9]);
    assert_eq!(find(&g, Waiting::Anyone), None);
}

/// Two clients draw a back-off each (classes 5 and 6 for the first,
/// 7 and 8 for the second); equal draws (5 then 7, or 6 then 8) lead
/// back to the collision in 1, different ones to a grant in 4. A run
/// that always draws equal delays takes every outcome infinitely often
/// (fair when outcomes are strongly fair by class), but in states 3
/// and 4 it never takes the outcome that differs: fair per state, it
/// cannot last, as it has probability zero.
const EQUAL_DRAWS: [(u32, u32, Class); 9] = [
    (0, 1, 0),
    (1, 2, 5),
    (1, 3, 6),
    (2, 1, 7),
    (2, 4, 8),
    (3, 4, 7),
    (3, 1, 8),
    (4, 5, 1),
    (5, 4, 2),
];

#[test]
fn a_livelock_of_equal_draws_is_fair_by_class_but_not_per_state() {
    let by_class = graph_sf(6, &EQUAL_DRAWS, &[4, 5], &[5, 6, 7, 8]);
    let l = find(&by_class, Waiting::Anyone).expect("strong fairness by class allows equal draws for ever");
    let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert_eq!(taken, BTreeSet::from([5, 6, 7, 8]), "{:?}", l.cycle);
    let per_state = graph_fair(6, &EQUAL_DRAWS, &[4, 5], &[], &[5, 6, 7, 8]);
    assert_eq!(find(&per_state, Waiting::Anyone), None);
}

#[test]
fn a_fair_loop_takes_every_outcome_of_every_state_it_visits() {
    // 1 draws 5 (to 2) or 6 (to 3); 2 draws 7 or 8, both back to 1; 3
    // goes back to 1. Nothing is granted: the violation's loop takes
    // all four outcomes.
    let edges = [(0, 1, 0), (1, 2, 5), (1, 3, 6), (2, 1, 7), (2, 1, 8), (3, 1, 2)];
    let g = graph_fair(4, &edges, &[], &[], &[5, 6, 7, 8]);
    let l = find(&g, Waiting::Anyone).expect("waits forever");
    let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
    assert!([5, 6, 7, 8].iter().all(|c| taken.contains(c)), "{:?}", l.cycle);
}

#[test]
fn the_passes_side_by_side_find_what_they_find_one_at_a_time() {
    // Client 0 waits in 1 and 2 and loops there; client 1 waits in 3 and
    // 4 and loops there too, but only client 1 is starved for ever: from
    // 2 an acquisition by client 0 (state 5) is enabled throughout.
    let edges = [
        (0, 1, 0),
        (1, 2, 1),
        (2, 1, 2),
        (1, 5, 9),
        (2, 5, 9),
        (0, 3, 3),
        (3, 4, 4),
        (4, 3, 5),
    ];
    let g = graph_wanting(&[0b00, 0b01, 0b01, 0b10, 0b10, 0b00], &edges, &[], &[]);
    let whom = [Waiting::Anyone, Waiting::Client(0), Waiting::Client(1)];
    let one_at_a_time: Vec<Option<Lasso>> = whom.iter().map(|&w| find(&g, w)).collect();
    assert_eq!(one_at_a_time[1], None);
    assert_eq!(one_at_a_time[2].as_ref().map(|l| l.entry), Some(3));
    for threads in [1, 2, 3, 8] {
        assert_eq!(find_each(&g, &whom, threads), one_at_a_time, "{threads} threads");
    }
}

/// Two loops entered equally soon: a pass over every state finds the one
/// behind state 0 first (its search starts there), a pass over the
/// suspects only ([`Suspects`]) the one with the smaller numbers. The
/// suspects' pass sees the tie and asks the whole pass, so the answer (and
/// a trace) does not change.
#[test]
fn loops_entered_equally_soon_give_the_whole_pass_answer() {
    let mut g = Graph::default();
    // 0 -> 3 <-> 4, and 1 <-> 2; 3 and 1 are both at depth 1. States 5 to
    // 9 wait for nothing, so the loops' four states are the few suspects.
    let depths = [0, 1, 2, 1, 2, 0, 0, 0, 0, 0];
    for (s, depth) in depths.into_iter().enumerate() {
        g.facts.push(Facts {
            wanting: if s < 5 { WANTS } else { 0 },
            depth,
        });
        g.parent.push(Parent(0, 0));
    }
    for (i, (from, to)) in [(0, 3), (1, 2), (2, 1), (3, 4), (4, 3)].into_iter().enumerate() {
        g.raw.push((from, Edge::new(to, i as Class, i as u16, false, false)));
    }
    g.seal();
    let suspects = Suspects::of(&g, 1);
    assert_eq!(suspects.looping.as_deref(), Some(&[1, 2, 3, 4][..]));
    let (first, tied) = loop_among(&g, Waiting::Anyone, suspects.nodes());
    assert_eq!((first.map(|l| l.entry), tied), (Some(1), true));
    assert_eq!(find_loop(&g, Waiting::Anyone).map(|l| l.entry), Some(3));
    assert_eq!(find(&g, Waiting::Anyone).map(|l| l.entry), Some(3));
    assert_eq!(
        find_each(&g, &[Waiting::Anyone], 1)[0].as_ref().map(|l| l.entry),
        Some(3)
    );
}

#[test]
fn trimming_keeps_the_loops_and_what_lies_between_them_only() {
    // 0 -> 1 -> 2 <-> 3 -> 4 -> 5 <-> 6: two loops, 4 between them; 7
    // only has a fault (stuck); 8 holds; 9 loops on itself; 10 -> 11 ends
    // (11 is stuck); 12 -> 13 -> 12 loops through a fault (13 is stuck).
    let edges = [
        (0, 1, 0),
        (1, 2, 1),
        (2, 3, 2),
        (3, 2, 3),
        (3, 4, 4),
        (4, 5, 5),
        (5, 6, 6),
        (6, 5, 7),
        (7, 0, FAULT),
        (9, 9, 8),
        (10, 11, 9),
        (12, 13, 10),
        (13, 12, FAULT),
        (2, 8, 11),
        (8, 2, 12),
    ];
    let g = graph(14, &edges, &[8]);
    let mut waiting = Bits::new(14);
    for s in 0..14 {
        waiting.set(s, g.facts.wanting(s as u32) != 0);
    }
    let (kept, stuck) = trimmed(&g, &waiting, 1);
    let kept: Vec<u32> = (0..14).filter(|&s| kept.get(s as usize)).collect();
    assert_eq!(kept, vec![2, 3, 4, 5, 6, 9]);
    assert_eq!(stuck, vec![7, 11, 13]);
    let suspects = Suspects::of(&g, 1);
    assert_eq!(suspects.looping, Some(vec![2, 3, 5, 6, 9]));
    assert_eq!(suspects.stuck, vec![7, 11, 13]);
}

proptest::proptest! {
    /// Trimming first finds the same looping states as Tarjan's search
    /// over every waiting state, on small random graphs.
    #[test]
    fn trimming_first_finds_the_states_a_whole_search_finds(
        n in 1u32..24,
        raw in proptest::collection::vec((0u32..24, 0u32..24, 0u32..6), 0..60),
        holding in proptest::collection::vec(0u32..24, 0..6),
    ) {
        // Class 5 stands for a fault.
        let edges: Vec<(u32, u32, Class)> = raw
            .iter()
            .map(|&(a, b, c)| (a % n, b % n, if c == 5 { FAULT } else { c }))
            .collect();
        let g = graph(n, &edges, &holding);
        let waits = |s: u32| g.facts.wanting(s) != 0;
        let inside = |s: u32, e: &Edge| e.class != FAULT && waits(s) && waits(e.to);
        let mut whole: Vec<u32> = components_in(&g, Nodes::All(n), &waits, &inside).into_iter().flatten().collect();
        whole.sort_unstable();
        let stuck: Vec<u32> = (0..n).filter(|&s| waits(s) && g.out(s).all(|e| e.class == FAULT)).collect();
        let suspects = Suspects::of(&g, 1);
        proptest::prop_assert_eq!(suspects.looping, (whole.len() <= n as usize / 2).then_some(whole));
        proptest::prop_assert_eq!(suspects.stuck, stuck);
        // Trimming keeps exactly the largest set of waiting states each
        // with an edge of the subgraph in from it and one out to it.
        let mut left: Vec<bool> = (0..n).map(waits).collect();
        let mut taken = true;
        while taken {
            taken = false;
            for s in 0..n {
                let inner = |e: &Edge| e.class != FAULT && left[e.to as usize];
                let entered = (0..n).any(|p| left[p as usize] && g.out(p).any(|e| e.to == s && inner(&e)));
                if left[s as usize] && !(entered && g.out(s).any(|e| inner(&e))) {
                    left[s as usize] = false;
                    taken = true;
                }
            }
        }
        let mut waiting = Bits::new(n as usize);
        for s in 0..n {
            waiting.set(s as usize, waits(s));
        }
        let (kept, _) = trimmed(&g, &waiting, 1);
        // Counted on three threads, each over its run of states, the
        // edges entering each state and the stuck states are the same.
        let (one, stuck_one) = entering(&g, &waiting, 1);
        let (three, stuck_three) = entering(&g, &waiting, 3);
        proptest::prop_assert_eq!(&one[..], &three[..]);
        proptest::prop_assert_eq!(stuck_one, stuck_three);
        let kept: Vec<bool> = (0..n).map(|s| kept.get(s as usize)).collect();
        proptest::prop_assert_eq!(&kept, &left);
        // The sweeps, which serve where the edges are too many to list,
        // keep what the worklist keeps.
        let listed = with_a_way_on(&g, &waiting).expect("a few edges");
        let swept = by_sweeps(&g, waiting);
        proptest::prop_assert_eq!(listed.0, swept.0);
    }
}
