----------------------------- MODULE MCLockTable -----------------------------
(***************************************************************************)
(* What only TLC needs: the constants the configurations do not set, and   *)
(* RankedVars, the VIEW that renumbers the only-growing values (ghost      *)
(* acquisition numbers and fencing tokens) by rank among those present in  *)
(* the state (SEMANTICS.md: only their order matters), so that a client    *)
(* that loops for ever still has a finite state space.                     *)
(***************************************************************************)
EXTENDS LockTable

\* The published lock table has no fencing token: the project's
\* configurations check it without; LockTableCIFencing.cfg turns it on.
NoFencing == FALSE
WithFencing == TRUE

HasAcq(m) == "acq" \in DOMAIN m

GhostVals == {ghost, resMax} \cup {acq[c] : c \in ClientSet}
             \cup (IF row = None THEN {} ELSE {row.acq})
             \cup {m.acq : m \in {x \in InFlight : HasAcq(x)}}
TokenVals == {drawn, resTok} \cup {tok[c] : c \in ClientSet}
             \cup (IF row = None THEN {} ELSE {row.token})
             \cup {m.token : m \in {x \in InFlight : HasAcq(x)}}

RG(v) == Rank(v, GhostVals)
RT(v) == Rank(v, TokenVals)
RMsg(m) == IF HasAcq(m) THEN [m EXCEPT !.acq = RG(@), !.token = RT(@)] ELSE m

RankedVars ==
    LET v == <<RankedWorld(RG, RT, RMsg),
               IF row = None THEN None ELSE [row EXCEPT !.acq = RG(@), !.token = RT(@)],
               phase, tag, done,
               [c \in ClientSet |-> RG(acq[c])], [c \in ClientSet |-> RT(tok[c])],
               RG(resMax), RT(resTok)>>
    IN IF Concrete(v) THEN v ELSE v
=============================================================================
