//! The liveness pass on a small purpose-built model whose only violation is
//! on a cycle (DESIGN.md §5): a client asks a server that refuses, waits a
//! tick, and asks again, forever. There is no terminal state, so
//! stateright's `eventually` (which looks only at paths that end) sees
//! nothing; locksmith's pass over the state graph finds the fair loop.

use locksmith::check::{check, Options};
use locksmith::properties::{view, Lock, LockView, Prop};
use locksmith::scenario::Verdict;
use locksmith::trace::replay;
use locksmith::world::{Actor, Ctx, Faults, Id, Out, Role, World, WorldState};
use serde::{Deserialize, Serialize};
use stateright::{Checker, Model, Property};

/// `grants`: whether the server ever says yes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Spin {
    Server { grants: bool },
    Client,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum St {
    Server,
    /// 0: wants, nothing asked; 1: asked; 2: holds (forever).
    Client(u8),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
enum Msg {
    Ask,
    Yes,
    No,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
enum Timer {
    Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
enum Step {
    Ask,
}

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
    // The gap locksmith's own pass exists to close (DESIGN.md §12).
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
