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
      [c \in ClientIds |-> RV(val[c])], idx, won,
      [c \in ClientIds |-> RG(acq[c])], [c \in ClientIds |-> RT(tok[c])],
      RT(counter), RT(resToken), RG(resGhost)>>

Concretes ==
    /\ Concrete(status) /\ Concrete(pause) /\ Concrete(skew) /\ Concrete(timers)
    /\ Concrete(watches) /\ Concrete(net) /\ Concrete(cut) /\ Concrete(spent)
    /\ Concrete(history) /\ Concrete(key) /\ Concrete(owner) /\ Concrete(phase)
    /\ Concrete(left) /\ Concrete(val) /\ Concrete(idx) /\ Concrete(won)
    /\ Concrete(acq) /\ Concrete(tok)
=============================================================================
