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
(* Every node is a client with the script of src/algorithms/client.rs: it  *)
(* wants the lock Acquisitions times (for ever when 0), and its critical   *)
(* section is one write to the protected resource (resource.rs).           *)
(*                                                                         *)
(* Mirrors src/algorithms/token_ring.rs running in the world of            *)
(* src/world/mod.rs. Actions in the Rust module's order: Enter, Pass,      *)
(* Write (steps); ReceiveToken, ReceiveTopToken, ReceiveWritten;           *)
(* Regenerate (the Lost timer); the resource's ReceiveWrite; then the      *)
(* world: Tick, Crash, Restart. Same configuration, same states: TLC must  *)
(* find as many distinct states as the Rust checker finds unique states    *)
(* (specs/README.md records both).                                         *)
(*   status          Node::status ("Up", "Down"; no pauses modelled)       *)
(*   timers          Node::timers (only "Lost", with Regenerate = "naive") *)
(*   net             WorldState::net, one FIFO queue per link              *)
(*   spent           WorldState::spent.crashes                             *)
(*   ghost, history  WorldState::ghost, WorldState::history                *)
(*   phase, left     RingNode::script; token: RingNode::token;             *)
(*                   acquired: RingNode::ghost (the world's is ghost)      *)
(*   max_ghost       Resource::max_ghost (tokens are always 0 here)        *)
(* A crashed node keeps its state (the world keeps it for the restart,     *)
(* which starts afresh), but the lock view masks it out. Not modelled, as  *)
(* no scenario of this family uses them: pauses, drift, clock jumps,       *)
(* partitions, loss, duplication, reordering. World section: the part      *)
(* marked "The world" below is the same in every spec; it moves to         *)
(* specs/World.tla when that module exists.                                *)
(*                                                                         *)
(* Node ids as in Rust: ring r (0-based) holds nodes r * Nodes ..          *)
(* r * Nodes + Nodes - 1, in ring order; the resource is last.             *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Nodes,         \* [system] nodes: nodes per ring
    Rings,         \* [system] rings: 1, or more for a ring of rings
    Regenerate,    \* [system] regenerate: "none" or "naive"
    Timeout,       \* [system] timeout: ticks without the token before regenerating
    Acquisitions,  \* [bounds] acquisitions per node; 0 = forever
    MaxDelay,      \* [faults] max_delay, or the model value Async when omitted
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses (0: not modelled)
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    Recovery,      \* [faults] recovery: "eventual" or "none"
    None           \* a model value (unused here; every spec has it)

ASSUME /\ Nodes \in 1..5 /\ Rings \in 1..3 /\ (Rings = 1 => Nodes >= 2)
       /\ Regenerate \in {"none", "naive"} /\ (Regenerate = "naive" => Rings = 1)
       /\ Timeout \in 1..30 /\ Acquisitions \in 0..5
       /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses = 0
       /\ Targets \in {"all", "clients", "servers"} /\ Recovery \in {"eventual", "none"}

Count == Rings * Nodes
RingNodes == 0..Count - 1
Resource == Count
AllNodes == 0..Count
Links == AllNodes \X AllNodes
TimerNames == {"Lost"}
Naive == Regenerate = "naive"
Bounded == MaxDelay \in Nat

\* Every ring node is a client to the world (Role::Client): crashes hit it
\* unless targets = "servers". The resource is never faulted.
Targeted(n) == n \in RingNodes /\ Targets \in {"all", "clients"}

\* The ring's structure (Params::successor, gateway, next_gateway).
Successor(n) == (n - (n % Nodes)) + (((n % Nodes) + 1) % Nodes)
Gateway(n) == Rings > 1 /\ n % Nodes = 0
NextGateway(n) == (n + Nodes) % Count

VARIABLES
    status,     \* status[n] \in {"Up", "Down"}
    timers,     \* timers[n]: set timer names -> local ticks left
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* crashes spent
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    history,    \* ghost flags raised: "StaleWrite"
    phase,      \* phase[n]: "Want", "Holding", "Writing", "Done"
    left,       \* left[n]: acquisitions still to make
    token,      \* token[n]: n holds its ring's token
    acquired,   \* acquired[n]: the ghost number of n's critical section
    max_ghost   \* the resource: the latest acquisition a write was accepted under

nodeVars == <<phase, left, token, acquired>>
vars == <<status, timers, net, spent, ghost, history, phase, left, token, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* The world: timers and the network, as World::apply handles commands.    *)

NoTimers == [t \in {} |-> 0]
SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
Due(n, t) == t \in DOMAIN timers[n] /\ timers[n][t] = 0
Up(n) == status[n] = "Up"

\* A message sent to a crashed node is dropped.
Sent(q, src, dst, m) ==
    IF status[dst] = "Down" THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, age |-> 0])]

\* Only the oldest message of a link can be delivered, to a running node.
Deliverable(src, dst) == Up(dst) /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

-----------------------------------------------------------------------------
(* The script (client.rs) and the lock view (properties.rs).               *)

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
    /\ net' = IF Gateway(n) /\ Nodes = 1
              THEN Sent(q, n, NextGateway(n), [type |-> "TopToken"])
              ELSE Sent(q, n, Successor(n), [type |-> "Token"])
    /\ token' = [token EXCEPT ![n] = FALSE]
    /\ timers' = IF Naive THEN [timers EXCEPT ![n] = SetTimer(@, "Lost", Timeout)] ELSE timers

-----------------------------------------------------------------------------
(* A node's steps (Actor::steps, on_step), all urgent.                     *)

CanEnter(n) == phase[n] = "Want" /\ token[n]
CanPass(n) == phase[n] = "Done" /\ token[n]
CanWrite(n) == phase[n] = "Holding"
HasUrgentStep(n) == n \in RingNodes /\ (CanEnter(n) \/ CanPass(n) \/ CanWrite(n))

\* Enter: the critical section, under the token.
Enter(n) ==
    /\ Up(n) /\ CanEnter(n)
    /\ ghost' = ghost + 1
    /\ acquired' = [acquired EXCEPT ![n] = ghost + 1]
    /\ phase' = [phase EXCEPT ![n] = "Holding"]
    /\ UNCHANGED <<status, timers, net, spent, history, left, token, max_ghost>>

\* Pass: a node that does not want the lock passes the token on.
Pass(n) ==
    /\ Up(n) /\ CanPass(n)
    /\ PassOn(n, net)
    /\ UNCHANGED <<status, spent, ghost, history, phase, left, acquired, max_ghost>>

\* Write: the critical section's write (no fencing token: 0).
Write(n) ==
    /\ Up(n) /\ CanWrite(n)
    /\ net' = Sent(net, n, Resource, [type |-> "Write", ghost |-> acquired[n]])
    /\ phase' = [phase EXCEPT ![n] = "Writing"]
    /\ UNCHANGED <<status, timers, spent, ghost, history, left, token, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* A node's handlers (on_msg).                                             *)

\* ReceiveToken: a gateway whose ring's token came back passes the top
\* token on; any other node takes the token (a second copy merges).
ReceiveToken(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "Token"
    /\ IF Gateway(n)
       THEN /\ net' = Sent(Pop(src, n), n, NextGateway(n), [type |-> "TopToken"])
            /\ UNCHANGED <<timers, token>>
       ELSE /\ net' = Pop(src, n)
            /\ token' = [token EXCEPT ![n] = TRUE]
            /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Lost")]
    /\ UNCHANGED <<status, spent, ghost, history, phase, left, acquired, max_ghost>>

\* ReceiveTopToken: a gateway holds the top token on behalf of its ring,
\* and takes its ring's token.
ReceiveTopToken(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "TopToken"
    /\ net' = Pop(src, n)
    /\ token' = [token EXCEPT ![n] = TRUE]
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Lost")]
    /\ UNCHANGED <<status, spent, ghost, history, phase, left, acquired, max_ghost>>

\* ReceiveWritten: the critical section is over; release and pass the
\* token on.
ReceiveWritten(src, n) ==
    /\ Deliverable(src, n) /\ Msg(src, n).type = "Accepted"
    /\ phase[n] = "Writing"
    /\ acquired' = [acquired EXCEPT ![n] = 0]
    /\ Released(n)
    /\ PassOn(n, Pop(src, n))
    /\ UNCHANGED <<status, spent, ghost, history, max_ghost>>

\* The resource (resource.rs), without fencing.
ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<status, timers, spent, ghost, nodeVars>>

\* A message the destination's handler ignores still leaves the link.
Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    IF dst = Resource THEN m.type = "Write"
    ELSE m.type \in {"Token", "TopToken"} \/ (m.type = "Accepted" /\ phase[dst] = "Writing")

Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<status, timers, spent, ghost, history, nodeVars, max_ghost>>

Deliver(src, dst) ==
    \/ dst \in RingNodes /\ (ReceiveToken(src, dst) \/ ReceiveTopToken(src, dst)
                             \/ ReceiveWritten(src, dst))
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

\* Regenerate (the Lost timer fires): no token seen for Timeout ticks;
\* make one.
Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, t)]
    /\ token' = [token EXCEPT ![n] = TRUE]
    /\ UNCHANGED <<status, net, spent, ghost, history, phase, left, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts.                  *)

\* World::time_blocked: time cannot pass a due timer or an urgent step of
\* a running node, nor a message to a running node in flight MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in AllNodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something.
TimeMatters ==
    \/ \E n \in AllNodes : \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in AllNodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<status, spent, ghost, history, nodeVars, max_ghost>>

\* Fault: a node stops and loses its timers; messages to it are dropped.
\* Its state stays for the restart (which starts afresh).
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = spent + 1
    /\ UNCHANGED <<ghost, history, nodeVars, max_ghost>>

\* A node restarts afresh, without the token; with naive regeneration it
\* waits Timeout ticks for one.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ phase' = [phase EXCEPT ![n] = "Want"]
    /\ left' = [left EXCEPT ![n] = Acquisitions]
    /\ token' = [token EXCEPT ![n] = FALSE]
    /\ acquired' = [acquired EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = IF Naive THEN [t \in {"Lost"} |-> Timeout] ELSE NoTimers]
    /\ UNCHANGED <<net, spent, ghost, history, max_ghost>>

-----------------------------------------------------------------------------

\* Node 0 starts with the token (on a ring of rings, as the first gateway,
\* holding the top token too); with naive regeneration every other node
\* starts its Lost timer.
Init ==
    /\ status = [n \in AllNodes |-> "Up"]
    /\ timers = [n \in AllNodes |->
                   IF Naive /\ n \in RingNodes /\ n # 0 THEN [t \in {"Lost"} |-> Timeout] ELSE NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = 0
    /\ ghost = 0
    /\ history = {}
    /\ phase = [n \in RingNodes |-> "Want"]
    /\ left = [n \in RingNodes |-> Acquisitions]
    /\ token = [n \in RingNodes |-> n = 0]
    /\ acquired = [n \in RingNodes |-> 0]
    /\ max_ghost = 0

Next ==
    \/ Tick
    \/ \E n \in RingNodes : Enter(n) \/ Pass(n) \/ Write(n)
    \/ \E n \in RingNodes, t \in TimerNames : Fire(n, t)
    \/ \E src, dst \in AllNodes : Deliver(src, dst)
    \/ \E n \in AllNodes : Restart(n)
    \/ \E n \in AllNodes : Crash(n)

\* DESIGN.md section 5: weak fairness for each delivery, each node's own
\* steps and timers, Tick, and Restart unless recovery = "none". Faults are
\* never fair.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A n \in RingNodes : WF_vars(Enter(n)) /\ WF_vars(Pass(n)) /\ WF_vars(Write(n))
    /\ \A n \in RingNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in AllNodes : WF_vars(Deliver(src, dst))
    /\ Recovery = "eventual" => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs): ghost numbers are only compared, so   *)
(* Rust replaces each by its rank among those present after every action;  *)
(* the .cfg's VIEW RankedVars makes TLC count the same states.             *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[n] : n \in RingNodes}
      \cup {m.ghost : m \in {x \in InFlight : x.type = "Write"}}

RankedVars ==
    LET G == GhostValues
        rg(g) == Rank(g, G)
        msg(m) == IF m.type = "Write" THEN [m EXCEPT !.ghost = rg(@)] ELSE m
    IN  <<status, timers,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), history, phase, left, token,
          [n \in RingNodes |-> rg(acquired[n])], rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [AllNodes -> {"Up", "Down"}]
    /\ \A n \in AllNodes : DOMAIN timers[n] \subseteq TimerNames
    /\ spent \in 0..Crashes
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
