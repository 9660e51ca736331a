-------------------------- MODULE MCRicartAgrawala --------------------------
(***************************************************************************)
(* What only TLC needs to check RicartAgrawala.                            *)
(*                                                                         *)
(* ShiftedVars, the VIEW. Two kinds of value only grow in a run that       *)
(* loops for ever (Acquisitions = 0):                                      *)
(*  - Lamport sequence numbers (Our_Sequence_Number, Highest_Sequence_     *)
(*    Number, the k of a REQUEST in flight). The algorithm only compares   *)
(*    them, takes their maximum and adds 1, all of which commute with     *)
(*    subtracting one constant from every one of them; so the view shifts *)
(*    them all down by the smallest present. Our_Sequence_Number is read   *)
(*    only while Requesting_Critical_Section is TRUE (Defer_it), so a      *)
(*    node that is not requesting shows 0 for it: otherwise a node that    *)
(*    never asks again would keep an ever more distant old number.         *)
(*  - ghost acquisition numbers (World's ghost, a holder's number, the     *)
(*    resource's maximum, the number a WRITE or ACK carries): only their   *)
(*    order matters, so they are renumbered by rank (World's Rank), as     *)
(*    SEMANTICS.md section 2 says.                                         *)
(* ConcreteState, a constraint that is always true: it makes TLC           *)
(* normalise the variables the view rewrites (World.tla's Concrete).       *)
(***************************************************************************)
EXTENDS RicartAgrawala, TLC

SeqVals ==
    {hsn[n] : n \in Peers}
    \cup {osn[n] : n \in {p \in Peers : rcs[p]}}
    \cup {m.seq : m \in {x \in InFlight : x.type = "REQUEST"}}

Base == CHOOSE b \in SeqVals : \A v \in SeqVals : b <= v

GhostVals ==
    {ghost, rmax} \cup {held[n] : n \in Peers}
    \cup {m.seq : m \in {x \in InFlight : x.type \in {"WRITE", "ACK"}}}

RG(v) == Rank(v, GhostVals)
RV(v) == v

F(m) == IF m.type = "REQUEST" THEN [m EXCEPT !.seq = @ - Base]
        ELSE IF m.type \in {"WRITE", "ACK"} THEN [m EXCEPT !.seq = RG(@)]
        ELSE m

ShiftedVars ==
    <<RankedWorld(RG, RV, F),
      rcs,
      [n \in Peers |-> IF rcs[n] THEN osn[n] - Base ELSE 0],
      [n \in Peers |-> hsn[n] - Base],
      orc, deferred, pc, acq,
      [n \in Peers |-> RG(held[n])],
      RG(rmax)>>

ConcreteState ==
    /\ Concrete(net) /\ Concrete(timers) /\ Concrete(watches)
    /\ Concrete(deferred) /\ Concrete(osn) /\ Concrete(hsn) /\ Concrete(orc)

(***************************************************************************)
(* The trace view (specs/README.md, "Traces both ways"; src/observe/): the *)
(* refinement mapping of this spec, and of the Rust model, onto the state  *)
(* both share: the world's faults and flags, and which running clients     *)
(* hold the lock, with nodes as the Rust model numbers them. A step that   *)
(* does not change it is a stutter of the other side: the spec's and the   *)
(* Rust model's messages, timers and counters are their own, so neither is *)
(* mapped.                                                                 *)
(***************************************************************************)
\* The Rust model's number for node n: the peers and the resource in the same order, from 0.
RustNode(n) == n - 1

TraceView ==
    LET R(f) == [m \in {RustNode(n) : n \in DOMAIN f} |->
                   f[CHOOSE n \in DOMAIN f : RustNode(n) = m]]
    IN [holders |-> {RustNode(c) : c \in {c \in Peers : Holds(c) /\ status[c] # "Down"}},
        status |-> R(status), pause |-> R(pause), skew |-> R(skew),
        cut |-> {{RustNode(a) : a \in l} : l \in cut},
        spent |-> spent, history |-> history]

=============================================================================
