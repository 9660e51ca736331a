---------------------------- MODULE MCCoordinator ----------------------------
(***************************************************************************)
(* What only the checker needs. Coordinator has no clocks, so the only     *)
(* unbounded values, when Acquisitions = 0, are                            *)
(*  - the ghost acquisition numbers (ghost, each client's cghost, the      *)
(*    Writes in flight, the resource's lastWrite), and                     *)
(*  - the request ids, drawn from the world's fresh-value counter drawn    *)
(*    (each client's rid and lastRel, the ids in the servers' queues,      *)
(*    holders and grantees, and in the messages in flight: a Request's,    *)
(*    Grant's or Release's id, a Sync's or Ack's <<client, id>> pairs).    *)
(* Both are only ever compared (ids only for equality), so the VIEW        *)
(* replaces each by its rank among the values of its kind present in the   *)
(* state (World's renumbering, SEMANTICS.md section 2; RankedWorld ranks   *)
(* ghost by RG and drawn by RV). A fresh id, drawn + 1, is above every id  *)
(* present, and keeps that place after renumbering, since drawn is ranked  *)
(* among them. Behaviours from two states with the same view are the same  *)
(* up to that renaming, so the quotient is a bisimulation and safety and   *)
(* liveness verdicts are preserved.                                        *)
(***************************************************************************)
EXTENDS Coordinator

GhostValues ==
    {ghost, lastWrite} \cup {cghost[c] : c \in ClientSet}
    \cup {m.g : m \in {x \in InFlight : x.type = "Write"}}

\* The ids of a sequence of <<client, id>> pairs, and of a pair or None.
SeqIds(q) == {q[i][2] : i \in 1..Len(q)}
PairIds(p) == IF p = None THEN {} ELSE {p[2]}
MsgIds(m) == {m.id} \cup SeqIds(m.q) \cup PairIds(m.h)

IdValues ==
    {drawn} \cup {rid[c] : c \in ClientSet} \cup {lastRel[c] : c \in ClientSet}
    \cup UNION {SeqIds(queue[s]) \cup PairIds(holder[s]) \cup PairIds(grantee[s]) : s \in Servers}
    \cup UNION {MsgIds(m) : m \in InFlight}

RG(v) == Rank(v, GhostValues)
RV(v) == Rank(v, IdValues)
RP(p) == IF p = None THEN None ELSE <<p[1], RV(p[2])>>
RQ(q) == [i \in 1..Len(q) |-> RP(q[i])]
RenumberMsg(m) == [m EXCEPT !.g = RG(@), !.id = RV(@), !.q = RQ(@), !.h = RP(@)]

RankedVars ==
    IF /\ Concrete(net) /\ Concrete(cghost) /\ Concrete(rid) /\ Concrete(lastRel)
       /\ Concrete(queue) /\ Concrete(holder) /\ Concrete(grantee)
    THEN <<RankedWorld(RG, RV, RenumberMsg),
           active,
           [s \in Servers |-> RQ(queue[s])],
           [s \in Servers |-> RP(holder[s])],
           [s \in Servers |-> RP(grantee[s])],
           cstate, coord,
           [c \in ClientSet |-> RV(rid[c])],
           [c \in ClientSet |-> RV(lastRel[c])],
           done,
           [c \in ClientSet |-> RG(cghost[c])], RG(lastWrite)>>
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
\* The Rust model's number for node n: the servers, clients and resource in the same order, from 0.
RustNode(n) == n - 1

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in ClientSet : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
