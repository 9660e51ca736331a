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
