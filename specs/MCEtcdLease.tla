---------------------------- MODULE MCEtcdLease ----------------------------
(***************************************************************************)
(* What only TLC needs to check EtcdLease.                                 *)
(*                                                                         *)
(* With Acquisitions > 0 and a bounded fault budget (every configuration  *)
(* of configurations.txt) the revision, lease-id and ghost counters are    *)
(* bounded by the workload and the state space is finite as it stands;     *)
(* those .cfg files use no VIEW.                                           *)
(*                                                                         *)
(* With Acquisitions = 0 (forever) they grow without bound, so a .cfg for  *)
(* such a run names VIEW RankedView: the state with each counter replaced  *)
(* by its rank among the values of its kind present in the state (World's *)
(* Rank, as SEMANTICS §2 says). This is exact, because the spec only       *)
(* compares such values (=, <, <=) or takes the next one above all present *)
(* (rev + 1, nextLease + 1, ghost + 1), and ranking preserves both. Three  *)
(* kinds: store revisions (rev, create revisions, myRev, fencing tokens,   *)
(* the maxima and revisions carried by messages; a Range's bound max is   *)
(* myRev - 1 and is ranked as such), lease ids, ghost acquisition numbers. *)
(***************************************************************************)
EXTENDS EtcdLease

HasField(m, f) == f \in DOMAIN m

\* Every value of each kind present in the state.
MsgRevs(m) ==
    CASE m.type = "TxnResp" -> {m.myRev, m.owner}
      [] m.type = "Range"   -> {m.max + 1}
      [] m.type = "Write"   -> {m.token}
      [] OTHER              -> {}
RevVals == {rev, resMax} \cup {kv[k].create : k \in DOMAIN kv} \cup {myRev[c] : c \in ClientIds}
           \cup UNION {MsgRevs(m) : m \in InFlight}
LeaseVals == {nextLease} \cup DOMAIN kv \cup DOMAIN timers[Server] \cup {lease[c] : c \in ClientIds}
             \cup UNION {{watchers[c].key, watchers[c].lease} : c \in {d \in ClientIds : watchers[d] # None}}
             \cup {m.lease : m \in {x \in InFlight : HasField(x, "lease")}}
GhostVals == {ghost, resGhost} \cup {acq[c] : c \in ClientIds} \cup {kv[k].grant : k \in DOMAIN kv}
             \cup {m.ghost : m \in {x \in InFlight : x.type = "Write"}}
             \cup {m.grant : m \in {x \in InFlight : x.type \in {"TxnResp", "GetResp"}}}

RR(v) == Rank(v, RevVals)
RL(v) == Rank(v, LeaseVals)
RG(v) == Rank(v, GhostVals)

RenumberMsg(m) ==
    LET m1 == IF HasField(m, "lease") THEN [m EXCEPT !.lease = RL(@)] ELSE m IN
    CASE m1.type = "TxnResp" -> [m1 EXCEPT !.myRev = RR(@), !.owner = RR(@), !.grant = RG(@)]
      [] m1.type = "GetResp" -> [m1 EXCEPT !.grant = RG(@)]
      [] m1.type = "Range"   -> [m1 EXCEPT !.max = RR(@ + 1) - 1]
      [] m1.type = "Write"   -> [m1 EXCEPT !.token = RR(@), !.ghost = RG(@)]
      [] OTHER               -> m1

\* A function on lease ids with its domain renumbered.
RenumberDom(f, G(_)) ==
    [x \in {RL(l) : l \in DOMAIN f} |-> G(f[CHOOSE l \in DOMAIN f : RL(l) = x])]
Id(x) == x
KvVal(e) == [create |-> RR(e.create), owner |-> e.owner, grant |-> RG(e.grant)]

RankedView ==
    IF Concrete(net) /\ Concrete(timers) /\ Concrete(kv) /\ Concrete(watchers)
    THEN <<status, pause, skew,
           [n \in Nodes |-> IF n = Server THEN RenumberDom(timers[Server], Id) ELSE timers[n]],
           watches, RenumberedNet(RenumberMsg), cut, spent, RG(ghost), drawn, history,
           RR(rev), RL(nextLease), RenumberDom(kv, KvVal),
           [c \in ClientIds |-> IF watchers[c] = None THEN None
                                ELSE [key |-> RL(watchers[c].key), lease |-> RL(watchers[c].lease)]],
           phase, [c \in ClientIds |-> RL(lease[c])], [c \in ClientIds |-> RR(myRev[c])],
           [c \in ClientIds |-> RG(acq[c])], done, RR(resMax), RG(resGhost)>>
    ELSE <<>>

-----------------------------------------------------------------------------
(* Non-Zeno variants (checker-only, supplementary). With MaxDelay = 0 a    *)
(* whole Lock / write / Unlock cycle takes no time, so under weak fairness *)
(* for Tick a lasso may repeat such cycles for ever while time stands     *)
(* still (Tick is enabled only between cycles, never continuously). No    *)
(* real run does that. These variants assume in addition that time passes *)
(* infinitely often unless the system halts (only stuttering is left).    *)
(* World's Fairness now makes Tick strongly fair, which rules those runs  *)
(* out by itself; the variants stay as a second statement of the same.    *)

NonZeno == []<><<Tick \/ DriftTick>>_vars \/ <>[][UNCHANGED vars]_vars

DeadlockFreedomNZ == (FaultsStop /\ NonZeno) => (SomeWants ~> (SomeHolds \/ ~SomeWants))
StarvationFreedomNZ ==
    (FaultsStop /\ NonZeno) => \A c \in ClientIds : (Live(c) /\ Wants(c)) ~> (Holds(c) \/ ~Live(c))

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
    IN [holders |-> {RustNode(c) : c \in {c \in ClientIds : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
