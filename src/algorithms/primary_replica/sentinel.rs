//! The Sentinels: their configuration, their step (SelectReplica), their
//! handlers for the Redis nodes' and each other's messages, and their timer.

use super::{Msg, Node, Params, Timer, PRIMARY};
use crate::algorithms::prelude::*;

/// Where the Sentinel is in a failover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub enum Failover {
    /// Watches the configured primary's pings.
    Monitoring,
    /// With more than one Sentinel: the primary is objectively down, and
    /// this Sentinel started a failover in a new epoch, voted for itself
    /// and asked the others for their votes (`votes`, a bit per Sentinel);
    /// it leads once a majority (and the quorum) voted for it.
    Voting { votes: u8 },
    /// The primary is down and this Sentinel leads the failover of the
    /// current epoch: a replica is to be selected.
    Electing,
    /// Has told `replica` to take over and waits until it has.
    Promoting { replica: Id },
}

/// The Sentinel's configuration (its configuration file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub struct Sentinel {
    /// The configuration epoch: each failover attempt starts a newer one.
    pub epoch: u32,
    /// The primary of the current configuration.
    pub primary: Id,
    pub failover: Failover,
    /// Former primaries (a bit per id) that reported back, restarted,
    /// while no other primary was configured: the switch reconfigures them.
    pub returned: u8,
    /// The fields below stay 0 with one Sentinel, which needs nobody's
    /// agreement. Its own view: no ping from the primary for down-after
    /// (SDOWN).
    pub sdown: bool,
    /// The other Sentinels (a bit each) that last reported the primary
    /// down (their answers to `SENTINEL is-master-down-by-addr`).
    pub down: u8,
    /// The latest epoch it voted in (`leader_epoch`), and for whom.
    pub voted: u32,
    pub leader: Id,
    /// The configuration epoch of `primary`: the failover that made it
    /// primary (0 for the initial one).
    pub config: u32,
}

/// Init: monitoring the initial primary, in epoch 0.
pub(super) fn sentinel_init(p: &Params, out: &mut Out<Node>) -> Sentinel {
    out.set_timer(Timer::DownAfter, p.down_after);
    Sentinel::initial()
}

impl Sentinel {
    /// Monitoring the initial primary, in epoch 0, with nothing seen yet.
    pub fn initial() -> Sentinel {
        Sentinel {
            epoch: 0,
            primary: PRIMARY,
            failover: Failover::Monitoring,
            returned: 0,
            sdown: false,
            down: 0,
            voted: 0,
            leader: 0,
            config: 0,
        }
    }
}

/// SelectReplica: tell the selected replica to take over, and
/// give it down-after ticks (the failover timeout).
pub(super) fn select_replica(node: &Node, s: &mut Sentinel, replica: Id, out: &mut Out<Node>) {
    s.failover = Failover::Promoting { replica };
    out.send(replica, Msg::Promote { epoch: s.epoch });
    let p = node.params();
    if p.monitors(s.epoch) {
        out.set_timer(Timer::DownAfter, p.down_after);
    }
}

/// The Sentinel's configuration epoch: with one Sentinel every epoch it
/// reaches is a failover's, so its current epoch is its configuration's
/// whenever it monitors.
fn config_epoch(p: &Params, s: &Sentinel) -> u32 {
    if p.sentinels == 1 {
        s.epoch
    } else {
        s.config
    }
}

/// Several Sentinels: its down-after timer fired. Monitoring, the primary
/// is subjectively down (+sdown): it tells the others, and fails over if
/// enough of them agree. Voting, it was not elected in time
/// (-failover-abort-not-elected); promoting, the replica did not take
/// over in time: it tries again in a newer epoch while the primary is
/// still objectively down.
fn sentinel_timeout(node: &Node, me: Id, s: &mut Sentinel, out: &mut Out<Node>) {
    let p = node.params();
    if s.failover == Failover::Monitoring && !s.sdown {
        s.sdown = true;
        for other in p.sentinels().filter(|&o| o != me) {
            out.send(other, Msg::SDown { down: true });
        }
    }
    s.failover = Failover::Monitoring;
    try_failover(node, me, s, out);
}

/// +odown: this Sentinel and at least `quorum - 1` others see the primary
/// down. It then starts a failover in a new epoch (+new-epoch,
/// +try-failover), votes for itself and asks every other Sentinel for its
/// vote (sentinel.c's `sentinelStartFailover`,
/// `sentinelAskMasterStateToOtherSentinels`). Sentinel's new epoch is its
/// current epoch plus one, which may equal another Sentinel's; here it is
/// drawn above every epoch present (`Out::fresh_value`), so that epochs
/// can be renumbered by rank. What that leaves out: two Sentinels starting
/// a failover in the same epoch and splitting its votes, which only
/// delays a failover.
fn try_failover(node: &Node, me: Id, s: &mut Sentinel, out: &mut Out<Node>) {
    let p = node.params();
    let agree = 1 + s.down.count_ones();
    if s.failover != Failover::Monitoring || !s.sdown || agree < u32::from(p.quorum) {
        return;
    }
    s.epoch = out.fresh_value();
    s.voted = s.epoch;
    s.leader = me;
    s.failover = Failover::Voting { votes: p.bit(me) };
    for other in p.sentinels().filter(|&o| o != me) {
        out.send(other, Msg::VoteRequest { epoch: s.epoch });
    }
    out.set_timer(Timer::DownAfter, p.down_after);
    elected(node, s, out);
}

/// +elected-leader: a majority (and the quorum) voted for it in this epoch.
fn elected(node: &Node, s: &mut Sentinel, out: &mut Out<Node>) {
    if let Failover::Voting { votes } = s.failover {
        if votes.count_ones() >= node.params().votes_needed() {
            s.failover = Failover::Electing;
            out.cancel_timer(Timer::DownAfter);
        }
    }
}

pub(super) fn sentinel_receive(node: &Node, me: Id, s: &mut Sentinel, src: Id, msg: Msg, out: &mut Out<Node>) {
    let p = node.params();
    let several = p.sentinels > 1;
    match (s.failover, msg) {
        // The configured primary is alive: down-after starts over, and a
        // Sentinel that saw it down tells the others it is back (-sdown).
        (failover, Msg::Ping { .. }) if src == s.primary && (several || failover == Failover::Monitoring) => {
            if failover == Failover::Monitoring {
                out.set_timer(Timer::DownAfter, p.down_after);
            }
            if s.sdown {
                s.sdown = false;
                for other in p.sentinels().filter(|&o| o != me) {
                    out.send(other, Msg::SDown { down: false });
                }
            }
        }
        // A primary of an older configuration epoch is back (it was paused
        // or cut off through the failover): it is stale, and follows the
        // primary of the current configuration (+convert-to-slave).
        (Failover::Monitoring, Msg::Ping { epoch }) if src != s.primary && epoch < config_epoch(p, s) => {
            out.send(src, Msg::ReplicaOf { primary: s.primary })
        }
        // The selected replica took over in this epoch: switch clients and
        // the other replicas to it, and monitor it. The failed primary is
        // down; it is told when it reports back. The other Sentinels learn
        // the new configuration from the leader's hello messages.
        (Failover::Promoting { replica }, Msg::Promoted { epoch }) if src == replica && epoch == s.epoch => {
            let failed = s.primary;
            s.primary = replica;
            s.failover = Failover::Monitoring;
            if p.monitors(s.epoch) {
                out.set_timer(Timer::DownAfter, p.down_after);
            }
            for c in node.clients() {
                out.send(c, Msg::NewPrimary { id: replica });
            }
            let told = |r: Id| r != replica && (r != failed || s.returned & (1 << r) != 0);
            for r in p.redis_nodes().filter(|&r| told(r)) {
                out.send(r, Msg::ReplicaOf { primary: replica });
            }
            s.returned = 0;
            if several {
                s.config = s.epoch;
                s.sdown = false;
                s.down = 0;
                for other in p.sentinels().filter(|&o| o != me) {
                    out.send(
                        other,
                        Msg::Config {
                            epoch: s.epoch,
                            primary: replica,
                        },
                    );
                }
            }
        }
        // A former primary restarted: it follows the configured primary.
        // While that is itself, or a failover runs, the switch tells it.
        (Failover::Monitoring, Msg::Restarted) if src != s.primary => {
            out.send(src, Msg::ReplicaOf { primary: s.primary })
        }
        (_, Msg::Restarted) => s.returned |= 1 << src,
        // Another Sentinel's view of the primary.
        (_, Msg::SDown { down }) => {
            if down {
                s.down |= p.bit(src);
            } else {
                s.down &= !p.bit(src);
            }
            try_failover(node, me, s, out);
        }
        // A vote request: the first Sentinel to ask in an epoch newer than
        // any it voted in gets its vote (sentinel.c's
        // `sentinelVoteLeader`); the answer names whom it voted for.
        (_, Msg::VoteRequest { epoch }) => {
            s.epoch = s.epoch.max(epoch);
            if s.voted < epoch {
                s.voted = epoch;
                s.leader = src;
            }
            out.send(
                src,
                Msg::Vote {
                    epoch: s.voted,
                    leader: s.leader,
                },
            );
        }
        (Failover::Voting { votes }, Msg::Vote { epoch, leader }) if epoch == s.epoch && leader == me => {
            s.failover = Failover::Voting {
                votes: votes | p.bit(src),
            };
            elected(node, s, out);
        }
        // A newer configuration: follow its primary, and give up any
        // failover of an older epoch.
        (_, Msg::Config { epoch, primary }) if epoch > s.config => {
            s.config = epoch;
            s.epoch = s.epoch.max(epoch);
            s.primary = primary;
            s.failover = Failover::Monitoring;
            s.sdown = false;
            s.down = 0;
            s.returned = 0;
            if p.monitors(epoch) {
                out.set_timer(Timer::DownAfter, p.down_after);
            } else {
                out.cancel_timer(Timer::DownAfter);
            }
        }
        _ => {}
    }
}

/// Fire: a Sentinel's down-after timer.
pub(super) fn sentinel_fire(node: &Node, me: Id, s: &mut Sentinel, timer: Timer, out: &mut Out<Node>) {
    let p = node.params();
    match timer {
        // One Sentinel: down-after elapsed without a ping (+odown), or
        // the selected replica did not take over in time: fail over in a
        // new epoch.
        Timer::DownAfter if s.failover != Failover::Electing && p.sentinels == 1 => {
            s.epoch += 1;
            s.failover = Failover::Electing;
        }
        // Several: down-after elapsed without a ping (+sdown), or the
        // election or the promotion timed out.
        Timer::DownAfter if p.sentinels > 1 => sentinel_timeout(node, me, s, out),
        _ => {}
    }
}

/// Restart: the Sentinel resumes from its configuration file; it asks the
/// replica it was promoting again, and re-arms down-after unless electing.
pub(super) fn sentinel_restart(p: &Params, s: &Sentinel, out: &mut Out<Node>) -> Sentinel {
    if let Failover::Promoting { replica } = s.failover {
        out.send(replica, Msg::Promote { epoch: s.epoch });
    }
    if s.failover != Failover::Electing && p.monitors(s.epoch) {
        out.set_timer(Timer::DownAfter, p.down_after);
    }
    *s
}
