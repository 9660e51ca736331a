----------------------------- MODULE MCTokenRing -----------------------------
(***************************************************************************)
(* What only TLC needs to check TokenRing.                                 *)
(*                                                                         *)
(* RankedVars, the VIEW: the ghost acquisition numbers (World's ghost, a   *)
(* holder's number, the resource's maximum, the number a WRITE or ACK      *)
(* carries) only grow when nodes loop for ever (Acquisitions = 0); only    *)
(* their order matters, so they are renumbered by rank (World's Rank), as  *)
(* SEMANTICS.md section 2 says. Nothing else grows: the token is anonymous *)
(* and timers are bounded by Timeout.                                      *)
(* ConcreteState, a constraint that is always true: it makes TLC           *)
(* normalise the variables the view rewrites (World.tla's Concrete).       *)
(***************************************************************************)
EXTENDS TokenRing, TLC

GhostVals ==
    {ghost, rmax} \cup {held[n] : n \in Members}
    \cup {m.seq : m \in {x \in InFlight : x.type \in {"WRITE", "ACK"}}}

RG(v) == Rank(v, GhostVals)
RV(v) == v
F(m) == IF m.type \in {"WRITE", "ACK"} THEN [m EXCEPT !.seq = RG(@)] ELSE m

RankedVars ==
    <<RankedWorld(RG, RV, F), has, top, circ, pc, acq,
      [n \in Members |-> RG(held[n])], RG(rmax)>>

ConcreteState == Concrete(net) /\ Concrete(timers) /\ Concrete(watches)

(***************************************************************************)
(* The trace view (specs/README.md, "Traces both ways"; src/observe/): the *)
(* refinement mapping of this spec, and of the Rust model, onto the state  *)
(* both share: the world's faults and flags, and which running clients     *)
(* hold the lock, with nodes as the Rust model numbers them. A step that   *)
(* does not change it is a stutter of the other side: the spec's and the   *)
(* Rust model's messages, timers and counters are their own, so neither is *)
(* mapped.                                                                 *)
(***************************************************************************)
\* The Rust model's number for node n: the members and the resource in the same order, from 0.
RustNode(n) == n - 1

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in Members : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
