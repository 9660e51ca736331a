//! The liveness pass on a small purpose-built model whose only violation is
//! on a cycle (docs/design.md §5): a client asks a server that refuses, waits a
//! tick, and asks again, forever. There is no terminal state, so
//! stateright's `eventually` (which looks only at paths that end) sees
//! nothing; locksmith's pass over the state graph finds the fair loop.

use locksmith::check::{check, Options};
use locksmith::properties::{view, Lock, LockView, Prop};
use locksmith::scenario::Verdict;
use locksmith::trace::replay;
use locksmith::world::{
    Action, Actor, Ctx, Describe, Faults, Id, Out, Pack, Renumber, Rewrite, Role, TlaMapping, World, WorldState,
};
use serde::{Deserialize, Serialize};
use stateright::{Checker, Model, Property};

/// `grants`: whether the server ever says yes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Spin {
    Server { grants: bool },
    Client,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
enum St {
    Server,
    /// 0: wants, nothing asked; 1: asked; 2: holds (forever).
    Client(u8),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
enum Msg {
    Ask,
    Yes,
    No,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
enum Timer {
    Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
enum Step {
    Ask,
}

impl Describe for Spin {}

impl Renumber for Spin {}

impl Actor for Spin {
    type State = St;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = ();
    type Step = Step;

    fn init(&self, _: &Ctx<'_, Self>, _: &mut Out<Self>) -> St {
        match self {
            Spin::Server { .. } => St::Server,
            Spin::Client => St::Client(0),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &St, steps: &mut Vec<Step>) {
        if *state == St::Client(0) && ctx.timer(Timer::Retry).is_none() {
            steps.push(Step::Ask);
        }
    }

    fn on_step(&self, _: &Ctx<'_, Self>, state: &mut St, _: Step, out: &mut Out<Self>) {
        out.send(0, Msg::Ask);
        *state = St::Client(1);
    }

    fn on_msg(&self, _: &Ctx<'_, Self>, state: &mut St, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, msg) {
            (Spin::Server { grants }, Msg::Ask) => out.send(src, if *grants { Msg::Yes } else { Msg::No }),
            (Spin::Client, Msg::Yes) => *state = St::Client(2),
            (Spin::Client, Msg::No) => {
                *state = St::Client(0);
                out.set_timer(Timer::Retry, 1);
            }
            _ => {}
        }
    }
}

/// No TLA+ spec: the defaults.
impl TlaMapping for Spin {}

impl Lock for Spin {
    fn lock_view(_: &World<Self>, s: &WorldState<Self>) -> LockView {
        let mut v = LockView::default();
        for (i, n) in s.nodes.iter().enumerate() {
            match n.state {
                St::Client(2) => v.holding |= 1 << i,
                St::Client(_) => v.wanting |= 1 << i,
                St::Server => {}
            }
        }
        v
    }
}

fn world(grants: bool) -> World<Spin> {
    World {
        actors: vec![Spin::Server { grants }, Spin::Client],
        names: vec!["s".into(), "c".into()],
        roles: vec![Role::Server, Role::Client],
        faults: Faults {
            max_delay: Some(1),
            ..Faults::default()
        },
        properties: vec![Property::eventually("acquires", |w, s| view(w, s).holding != 0)],
        symmetry: Vec::new(),
    }
}

#[test]
fn a_violation_on_a_cycle_is_found_as_a_fair_lasso() {
    let w = world(false);
    let o = check(&w, &Options::default());
    let df = o.get(Prop::DeadlockFreedom);
    assert_eq!(df.verdict, Verdict::Violated);
    let cx = df.trace.as_ref().expect("a trace");
    let cycle = cx.cycle.as_ref().expect("a liveness trace has a loop");
    assert!(!cycle.is_empty(), "the violation is a cycle, not a stuck state");
    assert!(cycle.iter().all(|a| !a.is_fault()));
    // The lasso replays and is confirmed fair.
    let actions: Vec<_> = cx.prefix.iter().chain(cycle).cloned().collect();
    assert_eq!(
        replay(&w, &actions, Prop::DeadlockFreedom, Some(cx.prefix.len())),
        Ok(None)
    );
    assert_eq!(o.get(Prop::StarvationFreedom).verdict, Verdict::Violated);
}

#[test]
fn stateright_eventually_misses_the_cycle() {
    // The gap locksmith's own pass exists to close (docs/design.md §12).
    let checker = world(false).checker().spawn_bfs().join();
    assert!(checker.is_done());
    assert!(
        checker.discovery("acquires").is_none(),
        "stateright would need to see the cycle"
    );
}

#[test]
fn a_server_that_grants_satisfies_liveness() {
    let o = check(&world(true), &Options::default());
    assert_eq!(o.get(Prop::DeadlockFreedom).verdict, Verdict::Holds);
    assert_eq!(o.get(Prop::StarvationFreedom).verdict, Verdict::Holds);
}

#[test]
fn an_unfair_loop_does_not_replay_as_a_violation() {
    // In the granting world the client waits while the server's answer is in
    // flight; a "loop" that just stays there is not a lasso.
    let w = world(true);
    let init = w.init();
    let mut enabled = Vec::new();
    w.enabled(&init, &mut enabled);
    let ask = enabled
        .into_iter()
        .find(|a| matches!(a, locksmith::world::Action::Step { .. }))
        .expect("c asks");
    let r = replay(&w, &[ask], Prop::DeadlockFreedom, Some(1));
    assert!(matches!(r, Ok(Some(_))), "{r:?}");
}

/// Strong fairness of random outcomes: a client that is
/// refused draws a coin before it asks again, and the server grants only
/// an ask made on heads. When the coin is random (`random`), each outcome
/// is strongly fair, and a run that draws tails for ever is not fair; when
/// it is not, the two outcomes are the adversary's choice, weakly fair
/// only, and tails for ever is a fair run that never acquires.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Dice {
    Server,
    Client { random: bool },
}

/// A client: 0 wants and asks (weakly fair, not urgent); 1 asked; 2 must
/// draw; 3 drew heads, asks boldly; 4 holds (for ever).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
enum DiceSt {
    Server,
    Client(u8),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
enum DiceMsg {
    Ask { bold: bool },
    Yes,
    No,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
enum Draw {
    Ask,
    Coin(bool),
}

impl Describe for Dice {}

impl Renumber for Dice {}

impl Actor for Dice {
    type State = DiceSt;
    type Msg = DiceMsg;
    type Timer = Timer;
    type Watch = ();
    type Step = Draw;

    fn init(&self, _: &Ctx<'_, Self>, _: &mut Out<Self>) -> DiceSt {
        match self {
            Dice::Server => DiceSt::Server,
            Dice::Client { .. } => DiceSt::Client(0),
        }
    }

    fn steps(&self, _: &Ctx<'_, Self>, state: &DiceSt, steps: &mut Vec<Draw>) {
        match state {
            DiceSt::Client(0) => steps.push(Draw::Ask),
            DiceSt::Client(2) => steps.extend([Draw::Coin(false), Draw::Coin(true)]),
            _ => {}
        }
    }

    fn urgent(&self, step: Draw) -> bool {
        step != Draw::Ask
    }

    fn random(&self, step: Draw) -> bool {
        matches!((self, step), (Dice::Client { random: true }, Draw::Coin(_)))
    }

    fn on_step(&self, _: &Ctx<'_, Self>, state: &mut DiceSt, step: Draw, out: &mut Out<Self>) {
        let bold = step == Draw::Coin(true);
        out.send(0, DiceMsg::Ask { bold });
        *state = DiceSt::Client(if bold { 3 } else { 1 });
    }

    fn on_msg(&self, _: &Ctx<'_, Self>, state: &mut DiceSt, src: Id, msg: DiceMsg, out: &mut Out<Self>) {
        match (self, msg) {
            (Dice::Server, DiceMsg::Ask { bold }) => out.send(src, if bold { DiceMsg::Yes } else { DiceMsg::No }),
            (Dice::Client { .. }, DiceMsg::Yes) => *state = DiceSt::Client(4),
            (Dice::Client { .. }, DiceMsg::No) => *state = DiceSt::Client(2),
            _ => {}
        }
    }
}

/// No TLA+ spec: the defaults.
impl TlaMapping for Dice {}

impl Lock for Dice {
    fn lock_view(_: &World<Self>, s: &WorldState<Self>) -> LockView {
        let mut v = LockView::default();
        for (i, n) in s.nodes.iter().enumerate() {
            match n.state {
                DiceSt::Client(4) => v.holding |= 1 << i,
                DiceSt::Client(_) => v.wanting |= 1 << i,
                DiceSt::Server => {}
            }
        }
        v
    }
}

/// A server and `clients` clients drawing coins; `symmetric`: the clients
/// are interchangeable for symmetry reduction.
fn dice(clients: usize, random: bool, symmetric: bool) -> World<Dice> {
    let ids: Vec<Id> = (1..=clients).collect();
    World {
        actors: std::iter::once(Dice::Server)
            .chain(ids.iter().map(|_| Dice::Client { random }))
            .collect(),
        names: std::iter::once("s".to_string())
            .chain(ids.iter().map(|i| format!("c{i}")))
            .collect(),
        roles: std::iter::once(Role::Server)
            .chain(ids.iter().map(|_| Role::Client))
            .collect(),
        faults: Faults {
            max_delay: Some(1),
            ..Faults::default()
        },
        properties: Vec::new(),
        symmetry: if symmetric { vec![ids] } else { Vec::new() },
    }
}

#[test]
fn a_coin_that_may_land_tails_for_ever_is_a_livelock_only_without_strong_fairness() {
    let weak = check(&dice(1, false, false), &Options::default());
    let df = weak.get(Prop::DeadlockFreedom);
    assert_eq!(df.verdict, Verdict::Violated);
    let cycle = df.trace.as_ref().and_then(|cx| cx.cycle.clone()).expect("a loop");
    assert!(cycle.contains(&Action::Step {
        node: 1,
        step: Draw::Coin(false)
    }));
    assert!(!cycle.contains(&Action::Step {
        node: 1,
        step: Draw::Coin(true)
    }));
    let strong = check(&dice(1, true, false), &Options::default());
    assert_eq!(strong.get(Prop::DeadlockFreedom).verdict, Verdict::Holds);
    assert_eq!(strong.get(Prop::StarvationFreedom).verdict, Verdict::Holds);
}

#[test]
fn strong_fairness_gives_the_same_verdicts_under_symmetry() {
    for random in [false, true] {
        let full = check(&dice(2, random, false), &Options::default());
        let quotient = check(&dice(2, random, true), &Options::default());
        assert!(quotient.unique_states < full.unique_states, "symmetry reduces");
        for p in [Prop::DeadlockFreedom, Prop::StarvationFreedom] {
            let expected = if random { Verdict::Holds } else { Verdict::Violated };
            assert_eq!(full.get(p).verdict, expected, "random = {random}: {}", p.name());
            assert_eq!(
                quotient.get(p).verdict,
                expected,
                "random = {random}: {} under symmetry",
                p.name()
            );
        }
    }
}
