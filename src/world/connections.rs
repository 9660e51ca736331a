//! Connections (docs/design.md §2): where a real client talks over TCP, a loss
//! or a cut breaks its connection rather than dropping one message. What
//! was in flight on it, both ways, is gone; everything sent on it until
//! the client library reconnects is lost too; the library notices the
//! break (`Action::Disconnected`, where it fails its pending requests)
//! and opens a new connection once the link is whole
//! (`Action::Reconnect`, where it re-sends what the real library does).
//! Both are urgent and weakly fair: a library does them at once, and a
//! paused or crashed process does neither.

use super::{Action, Broken, Id, Program, World, WorldState};

impl<A: Program> World<A> {
    /// The connection between `a` and `b`, if one of them keeps one to the
    /// other: `(connecting end, other end)`.
    pub fn connection(&self, a: Id, b: Id) -> Option<(Id, Id)> {
        if self.actors[a].connects_to(b) {
            Some((a, b))
        } else if self.actors[b].connects_to(a) {
            Some((b, a))
        } else {
            None
        }
    }

    /// What the client libraries of running nodes do about their broken
    /// connections now: notice a break, or reconnect once the link is
    /// whole and the peer runs. Both are urgent: a library does them at
    /// once (docs/design.md §2 "Connections").
    pub(super) fn connection_steps(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>) {
        for c in &s.broken {
            if !s.nodes[c.node].is_up() {
                continue;
            }
            if !c.noticed {
                actions.push(Action::Disconnected {
                    node: c.node,
                    peer: c.peer,
                });
            } else if !s.nodes[c.peer].is_down() && !s.is_cut(c.node, c.peer) {
                actions.push(Action::Reconnect {
                    node: c.node,
                    peer: c.peer,
                });
            }
        }
    }

    /// `crashed` has crashed and its kernel closed its sockets: every node
    /// not down that holds a connection to it ([`Actor::holds_connection`])
    /// will notice, and reconnect once it runs again.
    pub(super) fn close_connections_to(&self, s: &mut WorldState<A>, crashed: Id) {
        for node in 0..s.nodes.len() {
            let n = &s.nodes[node];
            if node != crashed && !n.is_down() && self.actors[node].holds_connection(&n.state, crashed) {
                break_link(s, node, crashed);
            }
        }
    }

    /// `node` has restarted and its client library opens its connections
    /// afresh: one to a peer that is down, or across a cut link, is
    /// refused, and the library keeps trying until it opens (a Redis
    /// replica retries its primary every second, `replicationCron`; the
    /// ZooKeeper and etcd clients retry their servers): a broken connection
    /// it has noticed, on which it reconnects once the peer runs and the
    /// link is whole. Without it, what the restart sent such a peer was lost
    /// and never sent again.
    pub(super) fn connect_on_restart(&self, s: &mut WorldState<A>, node: Id) {
        for peer in 0..s.nodes.len() {
            if peer != node
                && self.actors[node].holds_connection(&s.nodes[node].state, peer)
                && (s.nodes[peer].is_down() || s.is_cut(node, peer))
            {
                record_broken(s, node, peer, true);
            }
        }
    }

    /// A loss or a cut on the link between `a` and `b` breaks the
    /// connection there, if there is one: a client's, or one a node holds
    /// in its present state ([`Actor::holds_connection`], a replica's to
    /// its primary). `false` when the link carries no connection.
    pub(super) fn break_connection(&self, s: &mut WorldState<A>, a: Id, b: Id) -> bool {
        let held = |node: Id, peer: Id| {
            let n = &s.nodes[node];
            (!n.is_down() && self.actors[node].holds_connection(&n.state, peer)).then_some((node, peer))
        };
        let Some((node, peer)) = self.connection(a, b).or_else(|| held(a, b)).or_else(|| held(b, a)) else {
            return false;
        };
        break_link(s, node, peer);
        true
    }
}

/// The connection `node` holds to `peer` breaks: everything in flight on
/// it, both ways, is gone, and `node`, unless it is down, will notice.
fn break_link<A: Program>(s: &mut WorldState<A>, node: Id, peer: Id) {
    s.net
        .retain(|e| !((e.src, e.dst) == (node, peer) || (e.src, e.dst) == (peer, node)));
    if !s.nodes[node].is_down() {
        record_broken(s, node, peer, false);
    }
}

/// Records that `node`'s connection to `peer` is broken (`noticed`: its
/// library already knows), unless one between them is recorded already;
/// the list stays sorted.
fn record_broken<A: Program>(s: &mut WorldState<A>, node: Id, peer: Id, noticed: bool) {
    if !s.broken_between(node, peer) {
        s.broken.push(Broken { node, peer, noticed });
        s.broken.sort();
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use crate::world::{
        Action, Actor, Ctx, Describe, Faults, Id, Out, Pack, Renumber, Rewrite, Role, World, WorldState,
    };

    /// A client (node 1) that pings a server (node 0) over a connection,
    /// counting its disconnects and reconnects; node 2 is a peer with no
    /// connection, which the server also pings.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    enum Probe {
        Server,
        Client,
        Peer,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
    enum Msg {
        Ping,
        Pong,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
    enum Never {}

    /// (pongs received, disconnects noticed, reconnects).
    type St = (u8, u8, u8);

    /// Counts: no ids, nothing renumbered.
    impl Rewrite for St {}

    impl Describe for Probe {}

    impl Renumber for Probe {}

    impl Actor for Probe {
        type State = St;
        type Msg = Msg;
        type Timer = Never;
        type Watch = Never;
        type Step = Never;

        fn init(&self, _: &Ctx<'_, Self>, out: &mut Out<Self>) -> St {
            match self {
                Probe::Client => out.send(0, Msg::Ping),
                Probe::Server => out.send(2, Msg::Ping),
                Probe::Peer => {}
            }
            (0, 0, 0)
        }

        fn on_msg(&self, _: &Ctx<'_, Self>, st: &mut St, src: Id, msg: Msg, out: &mut Out<Self>) {
            match msg {
                Msg::Ping => out.send(src, Msg::Pong),
                Msg::Pong => st.0 += 1,
            }
        }

        fn connects_to(&self, peer: Id) -> bool {
            *self == Probe::Client && peer == 0
        }

        fn on_disconnect(&self, _: &Ctx<'_, Self>, st: &mut St, _: Id, _: &mut Out<Self>) {
            st.1 += 1;
        }

        fn on_reconnect(&self, _: &Ctx<'_, Self>, st: &mut St, peer: Id, out: &mut Out<Self>) {
            st.2 += 1;
            out.send(peer, Msg::Ping);
        }
    }

    fn world(faults: Faults) -> World<Probe> {
        World {
            actors: vec![Probe::Server, Probe::Client, Probe::Peer],
            names: vec!["s".into(), "c".into(), "p".into()],
            roles: vec![Role::Server, Role::Client, Role::Client],
            faults,
            properties: Vec::new(),
            symmetry: Vec::new(),
        }
    }

    fn enabled(w: &World<Probe>, s: &WorldState<Probe>) -> Vec<Action<Probe>> {
        let mut a = Vec::new();
        w.enabled(s, &mut a);
        a
    }

    fn step(w: &World<Probe>, s: &WorldState<Probe>, a: Action<Probe>) -> WorldState<Probe> {
        assert!(w.is_enabled(s, &a), "{a:?} is not enabled in {s:?}");
        w.after_unranked(s, &a).expect("enabled")
    }

    #[test]
    fn a_loss_breaks_the_connection_and_the_client_reconnects() {
        let w = world(Faults {
            loss: true,
            duplicate: true,
            ..Faults::default()
        });
        let s = w.init();
        // Only the link without a connection may duplicate.
        let dups: Vec<_> = enabled(&w, &s)
            .into_iter()
            .filter(|a| matches!(a, Action::Duplicate { .. }))
            .collect();
        assert_eq!(
            dups,
            vec![Action::Duplicate {
                src: 0,
                dst: 2,
                msg: Msg::Ping
            }]
        );
        let s = step(
            &w,
            &s,
            Action::Deliver {
                src: 1,
                dst: 0,
                msg: Msg::Ping,
            },
        );
        // The Pong is in flight to c: losing it breaks the connection.
        let s = step(
            &w,
            &s,
            Action::Lose {
                src: 0,
                dst: 1,
                msg: Msg::Pong,
            },
        );
        assert!(s.net.iter().all(|e| e.dst != 1 && e.src != 1), "{:?}", s.net);
        assert!(s.broken_between(0, 1));
        assert!(!enabled(&w, &s).contains(&Action::Reconnect { node: 1, peer: 0 }));
        let s = step(&w, &s, Action::Disconnected { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 1, 0));
        let s = step(&w, &s, Action::Reconnect { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 1, 1));
        assert!(s.broken.is_empty());
        assert!(s.net.iter().any(|e| (e.src, e.dst, &e.msg) == (1, 0, &Msg::Ping)));
    }

    #[test]
    fn a_cut_connection_reconnects_only_after_the_heal_and_drops_what_is_sent_meanwhile() {
        let w = world(Faults {
            partitions: 1,
            ..Faults::default()
        });
        let s = step(&w, &w.init(), Action::Partition { a: 0, b: 1 });
        let s = step(&w, &s, Action::Disconnected { node: 1, peer: 0 });
        assert!(!enabled(&w, &s).contains(&Action::Reconnect { node: 1, peer: 0 }));
        let s = step(&w, &s, Action::Heal);
        // Healed but not yet reconnected: the server's answers are lost.
        let mut t = s.clone();
        w.handle(&mut t, 0, 0, |_, _, _, out| out.send(1, Msg::Pong));
        assert!(t.net.iter().all(|e| e.dst != 1));
        let s = step(&w, &s, Action::Reconnect { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 1, 1));
    }

    #[test]
    fn a_crash_closes_the_connections_to_the_crashed_node_until_it_runs_again() {
        let w = world(Faults {
            crashes: 1,
            ..Faults::default()
        });
        // c's Ping to s is in flight; s crashes: the connection closes
        // with it: c notices, and reconnects once s is back.
        let s = step(&w, &w.init(), Action::Crash { node: 0 });
        assert!(s.broken_between(1, 0));
        assert!(s.net.iter().all(|e| e.src != 1), "{:?}", s.net);
        let s = step(&w, &s, Action::Disconnected { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 1, 0));
        assert!(!enabled(&w, &s).contains(&Action::Reconnect { node: 1, peer: 0 }));
        let s = step(&w, &s, Action::Restart { node: 0 });
        let s = step(&w, &s, Action::Reconnect { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 1, 1));
        // No one holds a connection to c: its crash breaks nothing.
        let s = step(&w, &w.init(), Action::Crash { node: 1 });
        assert!(s.broken.is_empty());
    }

    #[test]
    fn a_node_restarted_while_its_peer_is_down_connects_once_the_peer_runs() {
        let w = world(Faults {
            crashes: 2,
            ..Faults::default()
        });
        // c crashes, then s; c restarts while s is down: its Ping is lost
        // and its connection refused, and its library keeps trying.
        let s = step(&w, &w.init(), Action::Crash { node: 1 });
        let s = step(&w, &s, Action::Crash { node: 0 });
        let s = step(&w, &s, Action::Restart { node: 1 });
        assert!(s.broken_between(1, 0));
        assert!(s.net.iter().all(|e| e.src != 1), "{:?}", s.net);
        let now = enabled(&w, &s);
        assert!(
            !now.contains(&Action::Disconnected { node: 1, peer: 0 }),
            "it never had the connection"
        );
        assert!(!now.contains(&Action::Reconnect { node: 1, peer: 0 }), "s is down");
        let s = step(&w, &s, Action::Restart { node: 0 });
        let s = step(&w, &s, Action::Reconnect { node: 1, peer: 0 });
        assert_eq!(s.nodes[1].state, (0, 0, 1));
        assert!(s.broken.is_empty());
        // A restart while the peer runs connects at once.
        let s = step(&w, &w.init(), Action::Crash { node: 1 });
        let s = step(&w, &s, Action::Restart { node: 1 });
        assert!(s.broken.is_empty());
    }

    #[test]
    fn a_one_way_cut_drops_one_direction_only() {
        let w = world(Faults {
            partitions: 1,
            one_way: true,
            ..Faults::default()
        });
        let s = w.init();
        assert!(enabled(&w, &s).contains(&Action::Cut { src: 0, dst: 2 }));
        // s -> p cut: the Ping to p is dropped; p's answers would still flow.
        let s = step(&w, &s, Action::Cut { src: 0, dst: 2 });
        assert!(s.net.iter().all(|e| (e.src, e.dst) != (0, 2)));
        assert!(s.drops(0, 2) && !s.drops(2, 0));
        assert!(!s.broken_between(0, 2), "no connection on that link");
        // A one-way cut of a connection breaks it.
        let s = step(&w, &w.init(), Action::Cut { src: 0, dst: 1 });
        assert!(s.broken_between(0, 1));
        assert!(enabled(&w, &s).contains(&Action::Heal));
    }
}
