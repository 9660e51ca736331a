--------------------------- MODULE MCZooKeeperLock ---------------------------
(***************************************************************************)
(* What only the model checker needs. The constants come from each .cfg.   *)
(* Where the clients stop (Acquisitions = 1, a finite fault budget, and a  *)
(* session that outlives its pings), the ever-growing numbers (session     *)
(* numbers, czxids, event numbers) are bounded and no VIEW is needed. A    *)
(* client whose sessions expire for ever (ZooKeeperLockCILiveness.cfg)     *)
(* opens a session, creates a node and hears of events for ever, and the   *)
(* numbers grow without bound: RankedVars is the VIEW for such rows.       *)
(***************************************************************************)
EXTENDS ZooKeeperLock

(***************************************************************************)
(* RankedVars replaces each growing number by one that gives an equivalent *)
(* state (the successors of two states with the same view have the same    *)
(* views):                                                                 *)
(*  - czxids (zxid, node seqs, mine, watchOn, the watched seqs, the        *)
(*    acquisition and token numbers, the seqs in messages) are only        *)
(*    compared (=, <) and drawn as a new maximum (zxid + 1): by their rank *)
(*    among those present (World's Rank, which keeps 0, "none");           *)
(*  - a client's session numbers e are only compared (=) and drawn as its  *)
(*    new maximum (lastSess + 1), and the sessions the server enumerates   *)
(*    run over 0..lastSess: by their rank among c's sessions present (the  *)
(*    server's session timers are named by sessions, so renamed too);     *)
(*  - the event numbers on the server's link to c are compared for a gap   *)
(*    (m.ev # evSeen + 1) and counted on (+ i): by their difference from   *)
(*    the smallest present, which keeps every difference.                  *)
(* The world's ghost and drawn are not used by this spec and stay as they  *)
(* are.                                                                    *)
(***************************************************************************)
Msgs(l) == {net[l][i].msg : i \in 1..Len(net[l])}
ToResource(l) == Resource \in {l[1], l[2]}
ClientOf(l) == IF l[1] \in ClientSet THEN l[1] ELSE l[2]
\* The messages between c and the ensemble, whose e is one of c's sessions.
SessMsgs(c) == Msgs(<<c, Server>>) \cup Msgs(<<Server, c>>)

SeqsPresent ==
    {zxid, resTok, resAcq} \cup {k.seq : k \in znodes} \cup {w[2] : w \in dataW}
    \cup {mine[c] : c \in ClientSet} \cup {watchOn[c] : c \in ClientSet}
    \cup {acq[c] : c \in ClientSet}
    \cup {m.n : m \in InFlight} \cup UNION {m.ds : m \in InFlight}
    \cup {k.seq : k \in UNION {m.kids : m \in InFlight}}
    \cup {m.e : m \in UNION {Msgs(l) : l \in {l2 \in DOMAIN net : ToResource(l2)}}}

\* Every session <<c, e>> the state names (the server's timers are all
\* session timers: Touch).
SessionsPresent ==
    live \cup childW \cup {w[1] : w \in dataW} \cup DOMAIN timers[Server]
    \cup {k.owner : k \in znodes \cup UNION {m.kids : m \in InFlight}}
    \cup {<<c, lastSess[c]>> : c \in ClientSet} \cup {<<c, sess[c]>> : c \in ClientSet}
    \cup UNION {{<<c, m.e>> : m \in SessMsgs(c)} : c \in ClientSet}

EventsPresent(c) == {evSeen[c], evCount[c]} \cup {m.ev : m \in Msgs(<<Server, c>>)}
Least(S) == CHOOSE x \in S : \A y \in S : x <= y

RankedVars ==
    IF Concrete(net) /\ Concrete(timers) /\ Concrete(live) /\ Concrete(znodes)
       /\ Concrete(dataW) /\ Concrete(childW) /\ Concrete(lastSess) /\ Concrete(sess)
       /\ Concrete(mine) /\ Concrete(watchOn) /\ Concrete(acq) /\ Concrete(evSeen)
       /\ Concrete(evCount)
    THEN LET QS == SeqsPresent
             SS == SessionsPresent
             E0 == [c \in ClientSet |-> Least(EventsPresent(c))]
             RQ(v) == Rank(v, QS)
             RS(c, e) == Rank(e, {s[2] : s \in {x \in SS : x[1] = c}})
             RP(s) == <<s[1], RS(s[1], s[2])>>
             RE(c, v) == v - E0[c]
             RK(k) == [k EXCEPT !.seq = RQ(@), !.owner = RP(@)]
             F(l, m) ==
                 IF ToResource(l) THEN [m EXCEPT !.e = RQ(@), !.n = RQ(@)]
                 ELSE LET c == ClientOf(l) IN
                      [m EXCEPT !.e = RS(c, @), !.n = RQ(@), !.ds = {RQ(d) : d \in @},
                                !.kids = {RK(k) : k \in @},
                                !.ev = IF l[1] = Server THEN RE(c, @) ELSE @]
             T == timers[Server]
             Id(x) == x
         IN <<RankedWorldOn([n \in DOMAIN timers |->
                                IF n = Server
                                THEN [s \in {RP(x) : x \in DOMAIN T} |-> T[CHOOSE x \in DOMAIN T : RP(x) = s]]
                                ELSE timers[n]],
                            Id, Id, F),
              {RP(s) : s \in live}, [c \in ClientSet |-> RS(c, lastSess[c])],
              {RK(k) : k \in znodes}, RQ(zxid), {<<RP(w[1]), RQ(w[2])>> : w \in dataW},
              {RP(s) : s \in childW}, [c \in ClientSet |-> RE(c, evCount[c])],
              phase, [c \in ClientSet |-> RS(c, sess[c])], conn,
              [c \in ClientSet |-> RQ(mine[c])], [c \in ClientSet |-> RQ(watchOn[c])],
              pend, left, [c \in ClientSet |-> RQ(acq[c])],
              [c \in ClientSet |-> RE(c, evSeen[c])], RQ(resTok), RQ(resAcq)>>
    ELSE <<>>

(***************************************************************************)
(* The trace view (specs/README.md, "Traces both ways"; src/observe/): the *)
(* refinement mapping of this spec, and of the Rust model, onto the state  *)
(* both share: the world's faults and flags, and which running clients     *)
(* hold the lock, with nodes as the Rust model numbers them. A step that   *)
(* does not change it is a stutter of the other side: the spec's and the   *)
(* Rust model's messages, timers and counters are their own, so neither is *)
(* mapped.                                                                 *)
(***************************************************************************)
\* The Rust model's number for node n: the same numbers.
RustNode(n) == n

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in ClientSet : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
