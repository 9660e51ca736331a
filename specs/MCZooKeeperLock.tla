--------------------------- MODULE MCZooKeeperLock ---------------------------
(***************************************************************************)
(* What only the model checker needs. The constants come from each .cfg.   *)
(* Every configuration of configurations.txt has Acquisitions = 1 and a    *)
(* finite fault budget, so the ever-growing numbers (session numbers,      *)
(* czxids, ghost acquisition numbers) are bounded and no VIEW or state     *)
(* constraint is needed. For Acquisitions = 0 a VIEW renumbering them by   *)
(* rank (World's Rank) would be needed; none is defined since no           *)
(* configuration uses it.                                                  *)
(***************************************************************************)
EXTENDS ZooKeeperLock

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
