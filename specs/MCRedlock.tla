------------------------------ MODULE MCRedlock ------------------------------
(***************************************************************************)
(* What only the checker needs. Random values, ghost numbers and counter   *)
(* tokens only grow (a client retries forever after failed attempts), but  *)
(* the algorithm only ever compares them (=, <), so the VIEW replaces each *)
(* by its rank among the values of its kind present in the state (World's *)
(* Rank, 0 stays 0): two states that differ only by an order-preserving    *)
(* renaming of these numbers behave alike, and the state space is finite.  *)
(* The constraint only forces TLC to evaluate each variable (World's note  *)
(* on Concrete); it excludes no state.                                     *)
(***************************************************************************)
EXTENDS Redlock

ValueMsgs == {x \in InFlight : x.t \in {"set", "setReply", "del"}}
WriteMsgs == {x \in InFlight : x.t = "write"}

\* The random lock values present in the state.
ValuesIn ==
    {drawn} \cup {key[m] : m \in MasterIds} \cup {val[c] : c \in ClientIds}
    \cup {x.v : x \in ValueMsgs}
    \cup (IF Fencing = "lock-value"
          THEN {tok[c] : c \in ClientIds} \cup {resToken} \cup {x.k : x \in WriteMsgs}
          ELSE {})

\* Ghost acquisition numbers present.
GhostsIn == {ghost, resGhost} \cup {acq[c] : c \in ClientIds} \cup {x.g : x \in WriteMsgs}

\* Counter-service tokens present.
CountersIn == {counter, resToken} \cup {tok[c] : c \in ClientIds} \cup {x.k : x \in WriteMsgs}

RV(v) == Rank(v, ValuesIn)
RG(g) == Rank(g, GhostsIn)
RT(k) == CASE Fencing = "lock-value" -> RV(k)
           [] Fencing = "counter"    -> Rank(k, CountersIn)
           [] OTHER                  -> k

RMsg(x) == IF x.t \in {"set", "setReply", "del"} THEN [x EXCEPT !.v = RV(@)]
           ELSE IF x.t = "write" THEN [x EXCEPT !.g = RG(@), !.k = RT(@)]
           ELSE x

View ==
    <<RankedWorld(RG, RV, RMsg),
      [m \in MasterIds |-> RV(key[m])], owner, phase, left,
      [c \in ClientIds |-> RV(val[c])], idx, pending, won,
      [c \in ClientIds |-> RG(acq[c])], [c \in ClientIds |-> RT(tok[c])],
      RT(counter), RT(resToken), RG(resGhost)>>

Concretes ==
    /\ Concrete(status) /\ Concrete(pause) /\ Concrete(skew) /\ Concrete(timers)
    /\ Concrete(watches) /\ Concrete(net) /\ Concrete(cut) /\ Concrete(spent)
    /\ Concrete(history) /\ Concrete(key) /\ Concrete(owner) /\ Concrete(phase)
    /\ Concrete(left) /\ Concrete(val) /\ Concrete(idx) /\ Concrete(pending)
    /\ Concrete(won)
    /\ Concrete(acq) /\ Concrete(tok)
(***************************************************************************)
(* The trace view (specs/README.md, "Traces both ways"; src/observe/): the *)
(* refinement mapping of this spec, and of the Rust model, onto the state  *)
(* both share: the world's faults and flags, and which running clients     *)
(* hold the lock, with nodes as the Rust model numbers them. A step that   *)
(* does not change it is a stutter of the other side: the spec's and the   *)
(* Rust model's messages, timers and counters are their own, so neither is *)
(* mapped.                                                                 *)
(***************************************************************************)
\* The Rust model's number for node n: the masters, clients and resource in
\* the same order, from 0; with Fencing = "counter" the Rust model has the
\* counter service as a node between the clients and the resource, which
\* this spec keeps as a variable (an unfaulted oracle), so the resource is
\* one further on and the view shows the counter node as never faulted.
RustCounter == Masters + Clients
RustNode(n) == IF Fencing = "counter" /\ n = Res THEN n ELSE n - 1

\* Who holds, as the Rust model's lock view says it (a validity client
\* believes it holds from the moment it has a majority and validity left,
\* before its check, until that check fails): Holding, or at the check with
\* a quorum won and validity above zero.
RustHolds(c) ==
    \/ Holding(c)
    \/ phase[c] = "check" /\ Cardinality(won[c]) >= Quorum /\ Validity(c) > 0

TraceView ==
    LET R(f, init) ==
            [m \in {RustNode(n) : n \in DOMAIN f}
                    \cup (IF Fencing = "counter" THEN {RustCounter} ELSE {}) |->
               IF m = RustCounter /\ Fencing = "counter" THEN init
               ELSE f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in ClientIds : RustHolds(c) /\ status[c] # "Down"}},
        status |-> R(status, "Up"), pause |-> R(pause, 0), skew |-> R(skew, 0),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
