--------------------------- MODULE MCSingleRedis ---------------------------
(***************************************************************************)
(* What only the checker needs. The constants come from each .cfg (they   *)
(* are the scenario's keys). The spec's only unbounded values are the     *)
(* ghost acquisition numbers, the random values drawn per attempt and the *)
(* fencing tokens: they only grow (with retries after timeouts, and for    *)
(* ever when Acquisitions = 0). RankedVars replaces each by its rank among *)
(* the values of its kind present in the state (World's Rank), which keeps *)
(* the state space finite:                                                 *)
(*  - values are only compared for equality, and a new one (drawn + 1) is  *)
(*    above all present, as drawn is the largest present;                  *)
(*  - ghost numbers are compared by order (the resource's stale-write      *)
(*    check), and a new one (ghost + 1) is above all present;              *)
(*  - tokens are compared by order (the resource's fencing check), and a   *)
(*    new one (counter + 1) is above all present, as the counter is the    *)
(*    largest present token, EXCEPT when a crash of a server without       *)
(*    persistence resets the counter to 0 while older tokens are still     *)
(*    present: then new tokens fall between old ones and ranking would     *)
(*    merge states that behave differently. In that one combination        *)
(*    (Fencing, RestartMode = "empty", Crashes > 0) tokens are left as they*)
(*    are.                                                                 *)
(***************************************************************************)
EXTENDS SingleRedis

ValueSet == {val[c] : c \in ClientSet} \cup {m.v : m \in InFlight} \cup {drawn}
            \cup (IF key = None THEN {} ELSE {key.val})
GhostSet == {gnum[c] : c \in ClientSet} \cup {m.g : m \in InFlight} \cup {maxG, ghost}
            \cup (IF key = None THEN {} ELSE {key.g})
TokenSet == {token[c] : c \in ClientSet} \cup {m.tok : m \in InFlight} \cup {maxTok, counter}

RankTokens == ~(Fencing /\ RestartMode = "empty" /\ Crashes > 0)

RV(x) == Rank(x, ValueSet)
RG(x) == Rank(x, GhostSet)
RT(x) == IF RankTokens THEN Rank(x, TokenSet) ELSE x

RMsg(m) == [m EXCEPT !.v = RV(@), !.tok = RT(@), !.g = RG(@)]

RankedVars ==
    IF Concrete(vars)
    THEN << RankedWorld(RG, RV, RMsg),
            IF key = None THEN None ELSE [key EXCEPT !.val = RV(@), !.g = RG(@)],
            RT(counter),
            pc,
            [c \in ClientSet |-> RV(val[c])],
            [c \in ClientSet |-> RT(token[c])],
            [c \in ClientSet |-> RG(gnum[c])],
            done, renewing, RT(maxTok), RG(maxG) >>
    ELSE <<>>

=============================================================================
