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
(***************************************************************************)
(* The trace view (specs/README.md, "Traces both ways"; src/observe/): the *)
(* refinement mapping of this spec, and of the Rust model, onto the state  *)
(* both share: the world's faults and flags, and which running clients     *)
(* hold the lock, with nodes as the Rust model numbers them. A step that   *)
(* does not change it is a stutter of the other side: the spec's and the   *)
(* Rust model's messages, timers and counters are their own, so neither is *)
(* mapped.                                                                 *)
(***************************************************************************)
\* The Rust model's number for node n: the database as node 0, the clients 1..Clients, the resource last.
RustNode(n) == IF n = Db THEN 0 ELSE IF n = Res THEN Clients + 1 ELSE n

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in ClientSet : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
