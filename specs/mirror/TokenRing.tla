------------------------------ MODULE TokenRing ------------------------------
(***************************************************************************)
(* Mutual exclusion by a token passed around a logical ring: G. Le Lann,   *)
(* "Distributed Systems: Towards a Formal Approach", IFIP Congress 1977,   *)
(* as Tanenbaum and van Steen state it ("A token ring algorithm",          *)
(* Distributed Systems: Principles and Paradigms, section 6.3): the nodes  *)
(* form a logical ring; a token circulates; a process that gets the token  *)
(* and wants to enter its critical section enters it, does its work, and   *)
(* passes the token to its successor when it leaves; a process that does   *)
(* not want to enter passes the token along. Only one process has the      *)
(* token at a time, so only one is in its critical section; the ring order *)
(* bounds every wait by one round. If the token is lost it must be         *)
(* regenerated, and detecting the loss is difficult: Regenerate = "naive"  *)
(* makes a new token at a node that has not seen one for Timeout ticks,    *)
(* which gives two tokens when the old one was only slow or another node   *)
(* regenerated too. Rings > 1: a ring of rings. The first node of each     *)
(* ring (its gateway) is also on the top ring, whose token it holds on     *)
(* behalf of its ring: it takes its ring's token, sends it round its ring, *)
(* and passes the top token on when its ring's token comes back.           *)
(*                                                                         *)
(* Every node is a client with the script of src/algorithms/common/client.rs: it *)
(* wants the lock Acquisitions times (for ever when 0), and its critical   *)
(* section is one write to the protected resource (resource.rs).           *)
(*                                                                         *)
(* The world (time, network, crashes, fairness's shape) is World.tla's;    *)
(* this module supplies the handlers, and src/algorithms/token_ring/       *)
(* follows it. Actions in the Rust module's order: Enter, Pass, Write      *)
(* (steps); ReceiveToken, ReceiveTopToken, ReceiveWritten; Regenerate (the *)
(* Lost timer); the resource's ReceiveWrite; then the world: Tick, Crash,  *)
(* Restart. Same configuration, same states: TLC must find as many         *)
(* distinct states as the Rust checker finds unique states                 *)
(* (specs/README.md records both). Of World.tla's variables status,        *)
(* timers (only "Lost", with Regenerate = "naive"), net, spent, ghost and  *)
(* history change here; the node's variables are the Rust RingNode's:      *)
(*   phase, left     RingNode::script; token: RingNode::token;             *)
(*                   acquired: RingNode::ghost (the world's is ghost)      *)
(*   max_ghost       Resource::max_ghost (tokens are always 0 here)        *)
(* A crashed node keeps its state (the world keeps it for the restart,     *)
(* which starts afresh), but the lock view masks it out. Not modelled, as  *)
(* no scenario of this family uses them (the ASSUME refuses them): pauses, *)
(* drift, clock jumps, partitions, loss, duplication; nor reordering,      *)
(* which World.tla never models.                                           *)
(*                                                                         *)
(* Node ids as in Rust: ring r (0-based) holds nodes r * RingSize ..       *)
(* r * RingSize + RingSize - 1, in ring order; the resource is last.       *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    RingSize,      \* [system] nodes: nodes per ring
    Rings,         \* [system] rings: 1, or more for a ring of rings
    Regenerate,    \* [system] regenerate: "none" or "naive"
    Timeout,       \* [system] timeout: ticks without the token before regenerating
    Acquisitions   \* [bounds] acquisitions per node; 0 = forever

\* World.tla's constants are the [faults] keys; this spec models crashes,
\* Recovery and bounded delay, no more.
ASSUME /\ RingSize \in 1..5 /\ Rings \in 1..3 /\ (Rings = 1 => RingSize >= 2)
       /\ Regenerate \in {"none", "naive"} /\ (Regenerate = "naive" => Rings = 1)
       /\ Timeout \in 1..30 /\ Acquisitions \in 0..5
       /\ Pauses = 0 /\ MaxPause = 0 /\ ClockJumps = 0 /\ MaxJump = 0
       /\ MaxDrift = 0 /\ Partitions = 0 /\ ~Loss /\ ~Duplication

Count == Rings * RingSize
RingNodes == 0..Count - 1
Resource == Count
AllNodes == 0..Count
Links == AllNodes \X AllNodes
TimerNames == {"Lost"}
StepNames == {"Enter", "Pass", "Write"}
Naive == Regenerate = "naive"

\* The ring's structure (Params::successor, gateway, next_gateway).
Successor(n) == (n - (n % RingSize)) + (((n % RingSize) + 1) % RingSize)
Gateway(n) == Rings > 1 /\ n % RingSize = 0
NextGateway(n) == (n + RingSize) % Count

VARIABLES
    phase,      \* phase[n]: "Want", "Holding", "Writing", "Done"
    left,       \* left[n]: acquisitions still to make
    token,      \* token[n]: n holds its ring's token
    acquired,   \* acquired[n]: the ghost number of n's critical section
    max_ghost   \* the resource: the latest acquisition a write was accepted under

\* The world's variables no handler here changes.
fixed == <<status, pause, skew, watches, cut, spent, drawn>>
nodeVars == <<phase, left, token, acquired>>
algVars == <<phase, left, token, acquired, max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* The script (common/client.rs) and the lock view (properties.rs).        *)

Holding == {n \in RingNodes : status[n] # "Down" /\ phase[n] \in {"Holding", "Writing"}}
Wanting == {n \in RingNodes : status[n] # "Down" /\ phase[n] = "Want"}

\* Script::released.
Released(n) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![n] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![n] = @ - 1]
         /\ phase' = [phase EXCEPT ![n] = IF left[n] = 1 THEN "Done" ELSE "Want"]

\* pass: the ring's token to the successor, or, for a gateway alone on its
\* ring, the top token to the next gateway. With naive regeneration the
\* node starts waiting for the token again. q: the network so far.
PassOn(n, q) ==
    /\ net' = IF Gateway(n) /\ RingSize = 1
              THEN Send(q, n, NextGateway(n), [type |-> "TopToken"])
              ELSE Send(q, n, Successor(n), [type |-> "Token"])
    /\ token' = [token EXCEPT ![n] = FALSE]
    /\ timers' = IF Naive THEN [timers EXCEPT ![n] = SetTimer(@, "Lost", Timeout)] ELSE timers

-----------------------------------------------------------------------------
(* A node's steps (Actor::steps, on_step), all urgent.                     *)

CanEnter(n) == phase[n] = "Want" /\ token[n]
CanPass(n) == phase[n] = "Done" /\ token[n]
CanWrite(n) == phase[n] = "Holding"
HasUrgentStep(n) == n \in RingNodes /\ (CanEnter(n) \/ CanPass(n) \/ CanWrite(n))

\* The world's view of the nodes (World.tla's hooks): every ring node is a
\* client (crashes hit it unless targets = "servers"), the resource the
\* observer; no stopwatches, no pauses.
Role(n) == IF n = Resource THEN "observer" ELSE "client"
Cap(n, w) == 0
MayPause(n) == FALSE

\* Enter: the critical section, under the token.
Enter(n) ==
    /\ Up(n) /\ CanEnter(n)
    /\ ghost' = ghost + 1
    /\ acquired' = [acquired EXCEPT ![n] = ghost + 1]
    /\ phase' = [phase EXCEPT ![n] = "Holding"]
    /\ UNCHANGED <<fixed, timers, net, history, left, token, max_ghost>>

\* Pass: a node that does not want the lock passes the token on.
Pass(n) ==
    /\ Up(n) /\ CanPass(n)
    /\ PassOn(n, net)
    /\ UNCHANGED <<fixed, ghost, history, phase, left, acquired, max_ghost>>

\* Write: the critical section's write (no fencing token: 0).
Write(n) ==
    /\ Up(n) /\ CanWrite(n)
    /\ net' = Send(net, n, Resource, [type |-> "Write", ghost |-> acquired[n]])
    /\ phase' = [phase EXCEPT ![n] = "Writing"]
    /\ UNCHANGED <<fixed, timers, ghost, history, left, token, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* A node's handlers (on_msg).                                             *)

\* ReceiveToken: a gateway whose ring's token came back passes the top
\* token on; any other node takes the token (a second copy merges).
ReceiveToken(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "Token"
    /\ IF Gateway(n)
       THEN /\ net' = Send(Pop(src, n), n, NextGateway(n), [type |-> "TopToken"])
            /\ UNCHANGED <<timers, token>>
       ELSE /\ net' = Pop(src, n)
            /\ token' = [token EXCEPT ![n] = TRUE]
            /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Lost")]
    /\ UNCHANGED <<fixed, ghost, history, phase, left, acquired, max_ghost>>

\* ReceiveTopToken: a gateway holds the top token on behalf of its ring,
\* and takes its ring's token.
ReceiveTopToken(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "TopToken"
    /\ net' = Pop(src, n)
    /\ token' = [token EXCEPT ![n] = TRUE]
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Lost")]
    /\ UNCHANGED <<fixed, ghost, history, phase, left, acquired, max_ghost>>

\* ReceiveWritten: the critical section is over; release and pass the
\* token on.
ReceiveWritten(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "Accepted"
    /\ phase[n] = "Writing"
    /\ acquired' = [acquired EXCEPT ![n] = 0]
    /\ Released(n)
    /\ PassOn(n, Pop(src, n))
    /\ UNCHANGED <<fixed, ghost, history, max_ghost>>

\* The resource (resource.rs), without fencing.
ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, ghost, nodeVars>>

\* A message the destination's handler ignores still leaves the link.
Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    IF dst = Resource THEN m.type = "Write"
    ELSE m.type \in {"Token", "TopToken"} \/ (m.type = "Accepted" /\ phase[dst] = "Writing")

Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, timers, ghost, history, algVars>>

Deliver(src, dst) ==
    \/ dst \in RingNodes /\ (ReceiveToken(src, dst) \/ ReceiveTopToken(src, dst)
                             \/ ReceiveWritten(src, dst))
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

\* Regenerate (the Lost timer fires): no token seen for Timeout ticks;
\* make one.
Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ timers' = Expired(n, t)
    /\ token' = [token EXCEPT ![n] = TRUE]
    /\ UNCHANGED <<fixed, net, ghost, history, phase, left, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* The world (World.tla): time, crashes, restarts. Only Crash and Restart  *)
(* touch a node's state.                                                   *)

Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars

\* Fault: a node stops and loses its timers; messages to it are dropped.
\* Its state stays for the restart (which starts afresh).
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED algVars

\* A node restarts afresh, without the token; with naive regeneration it
\* waits Timeout ticks for one.
Restart(n) ==
    /\ WorldRestart(n)
    /\ phase' = [phase EXCEPT ![n] = "Want"]
    /\ left' = [left EXCEPT ![n] = Acquisitions]
    /\ token' = [token EXCEPT ![n] = FALSE]
    /\ acquired' = [acquired EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = IF Naive THEN SetTimer(NoTimers, "Lost", Timeout) ELSE NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history, max_ghost>>

-----------------------------------------------------------------------------

\* Node 0 starts with the token (on a ring of rings, as the first gateway,
\* holding the top token too); with naive regeneration every other node
\* starts its Lost timer.
Init ==
    /\ WorldInitTimers(AllNodes, Links,
                       [n \in AllNodes |-> IF Naive /\ n \in RingNodes /\ n # 0
                                           THEN SetTimer(NoTimers, "Lost", Timeout)
                                           ELSE NoTimers])
    /\ phase = [n \in RingNodes |-> "Want"]
    /\ left = [n \in RingNodes |-> Acquisitions]
    /\ token = [n \in RingNodes |-> n = 0]
    /\ acquired = [n \in RingNodes |-> 0]
    /\ max_ghost = 0

\* A node's step by name (for fairness).
Step(n, s) ==
    CASE s = "Enter" -> Enter(n)
      [] s = "Pass" -> Pass(n)
      [] OTHER -> Write(n)

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E n \in RingNodes : Enter(n) \/ Pass(n) \/ Write(n)
    \/ \E n \in RingNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ \E n \in AllNodes : Crash(n)

\* docs/design.md §5, in World.tla's shape: weak fairness for Tick, each
\* node's own steps and timers, each link's delivery, and Restart when
\* outages end (Recoveries). Faults are never fair. No Heal: nothing is
\* cut.
Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in RingNodes, s \in StepNames : WF_vars(Step(n, s))
    /\ \A n \in RingNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank, src/world/ranks.rs): ghost numbers are   *)
(* only compared, so Rust replaces each by its rank among those present    *)
(* after every action; the .cfg's VIEW RankedVars makes TLC count the same *)
(* states. No lock values are drawn (drawn stays 0).                       *)

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[n] : n \in RingNodes}
      \cup {m.ghost : m \in {x \in InFlight : x.type = "Write"}}

RankedVars ==
    LET G == GhostValues
        rg(g) == Rank(g, G)
        same(v) == v
        msg(m) == IF m.type = "Write" THEN [m EXCEPT !.ghost = rg(@)] ELSE m
    IN  IF ~(Concrete(net) /\ Concrete(acquired)) THEN <<>> ELSE
        <<RankedWorld(rg, same, msg), phase, left, token,
          [n \in RingNodes |-> rg(acquired[n])], rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in AllNodes : DOMAIN timers[n] \subseteq TimerNames
    /\ history \subseteq {"StaleWrite"}
    /\ phase \in [RingNodes -> {"Want", "Holding", "Writing", "Done"}]
    /\ token \in [RingNodes -> BOOLEAN]

MutualExclusion == Cardinality(Holding) <= 1

NoStaleWrite == "StaleWrite" \notin history

\* No release here can remove another's lock: the flag is never raised.
NoForeignRelease == TRUE

Granted(n) == n \in Wanting /\ n \notin Wanting'

DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E n \in RingNodes : Granted(n)>>_vars

StarvationFreedom ==
    \A n \in RingNodes : []<>(n \notin Wanting) \/ []<><<Granted(n)>>_vars

=============================================================================
