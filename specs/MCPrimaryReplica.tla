-------------------------- MODULE MCPrimaryReplica ---------------------------
(***************************************************************************)
(* What only TLC needs.  The lock values drawn by clients (a fresh random  *)
(* value per request) and the ghost acquisition numbers only grow; a       *)
(* refused client retries for ever, so they are unbounded.  The spec only  *)
(* compares them (=, <) and draws a new maximum (+1), so replacing each by *)
(* its rank among the values of its kind present in the state (World's     *)
(* Rank) gives an equivalent state: RankedVars is the VIEW.  Replication   *)
(* offsets are not renumbered: they count writes, which are bounded in     *)
(* every configuration here (Acquisitions = 1, bounded faults); a          *)
(* configuration with Acquisitions = 0 would need them ranked too.         *)
(***************************************************************************)
EXTENDS PrimaryReplica

PendMsgs == UNION {{pend[n][i] : i \in 1..Len(pend[n])} : n \in RedisIds}
AllMsgs == InFlight \cup PendMsgs

RecVal(r) == IF r = None THEN 0 ELSE r.v

ValsPresent ==
    {val[c] : c \in ClientIds} \cup {blocked[n][c] : n \in RedisIds, c \in ClientIds}
    \cup {RecVal(key[n]) : n \in RedisIds}
    \cup {m.v : m \in AllMsgs} \cup {RecVal(m.rec) : m \in AllMsgs} \cup {drawn}

GhostsPresent ==
    {cGhost[c] : c \in ClientIds} \cup {m.g : m \in AllMsgs} \cup {resMax, ghost}

\* The sets of present values are LET-bound so that TLC computes them once
\* per state.  RO renumbers replication offsets (RankedVars leaves them).
RankedWith(RO(_)) ==
    IF Concrete(net) /\ Concrete(key) /\ Concrete(pend) /\ Concrete(val)
       /\ Concrete(blocked) /\ Concrete(cGhost)
    THEN LET VS == ValsPresent
             GS == GhostsPresent
             RV(v) == Rank(v, VS)
             RG(g) == Rank(g, GS)
             RR(r) == IF r = None THEN None ELSE [r EXCEPT !.v = RV(@)]
             F(m) == [m EXCEPT !.v = RV(@), !.g = RG(@), !.rec = RR(@), !.off = RO(@)]
         IN <<RankedWorld(RG, RV, F),
              rOf, link, [n \in RedisIds |-> RR(key[n])], [n \in RedisIds |-> RO(off[n])],
              reps, [n \in RedisIds |-> [r \in RedisIds |-> RO(ack[n][r])]],
              [n \in RedisIds |-> [c \in ClientIds |-> RO(woff[n][c])]],
              [n \in RedisIds |-> [c \in ClientIds |-> RV(blocked[n][c])]],
              [n \in RedisIds |-> [i \in 1..Len(pend[n]) |-> F(pend[n][i])]],
              sMaster, sPromoting, phase, cPrimary,
              [c \in ClientIds |-> RV(val[c])], [c \in ClientIds |-> RG(cGhost[c])],
              done, RG(resMax)>>
    ELSE <<>>

RankedVars == RankedWith(LAMBDA o : o)

(***************************************************************************)
(* A client that retries for ever writes for ever: each granted SET, and   *)
(* each expiry, is a new write in the stream, so in a configuration that   *)
(* livelocks the offsets grow without bound too.  Where no failover can    *)
(* happen, the primary is the only node that writes the stream: each write *)
(* is a new maximum among the offsets present (+1), the others are copied  *)
(* or compared (=, <, >=), and ranking them gives an equivalent state, as  *)
(* for the values.  A failover would make a second writer, whose +1 could  *)
(* fall between two offsets a rank had made adjacent, so this VIEW asserts *)
(* the configuration has none: no server crash or pause, partition or     *)
(* clock fault, and pings that always arrive before DownAfter (the         *)
(* Sentinel then never sees the primary down).                             *)
(***************************************************************************)
OneWriter ==
    /\ Crashes + Pauses + Partitions + ClockJumps + MaxDrift = 0
    /\ DownAfter > Ping + MaxDelay /\ DownAfter > 2 * MaxDelay

OffsPresent ==
    {off[n] : n \in RedisIds} \cup {ack[n][r] : n, r \in RedisIds}
    \cup {woff[n][c] : n \in RedisIds, c \in ClientIds} \cup {m.off : m \in AllMsgs}

RankedOffsetVars ==
    IF Assert(OneWriter, "RankedOffsetVars needs a configuration without failover")
       /\ Concrete(off) /\ Concrete(ack) /\ Concrete(woff)
    THEN LET OS == OffsPresent IN RankedWith(LAMBDA o : Rank(o, OS))
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
\* The Rust model's number for node n: the primary, replicas, Sentinel, clients and resource in the same order, from 0.
RustNode(n) == n - 1

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in ClientIds : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
