---------------------------- MODULE RicartAgrawala ----------------------------
(***************************************************************************)
(* Ricart-Agrawala mutual exclusion, from G. Ricart and A. K. Agrawala,   *)
(* "An optimal algorithm for mutual exclusion in computer networks",      *)
(* CACM 24(1), January 1981. N nodes, each both a client and a peer of    *)
(* the others; no server, no clock, no timer. In the paper's words:       *)
(*                                                                         *)
(*   Invoking mutual exclusion (Request): Requesting_Critical_Section :=   *)
(*   TRUE; Our_Sequence_Number := Highest_Sequence_Number + 1;             *)
(*   Outstanding_Reply_Count := N - 1; REQUEST(Our_Sequence_Number, me)   *)
(*   to every other node; wait until Outstanding_Reply_Count = 0, then    *)
(*   the critical section.                                                 *)
(*   Release: Requesting_Critical_Section := FALSE; REPLY to every node    *)
(*   whose Reply_Deferred is set.                                          *)
(*   On REQUEST(k, j): Highest_Sequence_Number := max(it, k); defer the    *)
(*   reply iff Requesting_Critical_Section /\ (k > Our_Sequence_Number \/  *)
(*   k = Our_Sequence_Number /\ j > me); otherwise REPLY at once.          *)
(*   On REPLY: Outstanding_Reply_Count := Outstanding_Reply_Count - 1.     *)
(*                                                                         *)
(* Requesting_Critical_Section stays TRUE through the critical section,   *)
(* so a node in it defers every request that can reach it. Each entry     *)
(* costs 2(N - 1) messages.                                               *)
(*                                                                         *)
(* Mirrors src/algorithms/ricart_agrawala.rs (the node's script is        *)
(* src/algorithms/client.rs's) running in the world of src/world/mod.rs.  *)
(* Same configuration, same states: TLC must find as many distinct states *)
(* as the Rust checker finds unique states (DESIGN.md section 10). The    *)
(* variables are the fields of the Rust world state that can change here: *)
(*   status       Node::status (Up or Down; nothing pauses)               *)
(*   net          WorldState::net, one FIFO queue per link; an envelope   *)
(*                is [msg, copied] (ages stay 0: the network is           *)
(*                asynchronous)                                            *)
(*   spent        WorldState::spent.crashes                               *)
(*   phase, left  State::script (Want, Acquiring, Holding, Done)          *)
(*   highest      Highest_Sequence_Number (State::highest)                *)
(*   request      Our_Sequence_Number while requesting, None otherwise    *)
(*                (State::request): the algorithm reads it only then     *)
(*   outstanding  Outstanding_Reply_Count                                 *)
(*   deferred     the set of j with Reply_Deferred(j)                     *)
(* No timers, stopwatches, ghost numbers, lock values or history flags    *)
(* exist in this family: Tick is never enabled. There is no protected     *)
(* resource; NoStaleWrite and NoForeignRelease hold trivially.            *)
(*                                                                         *)
(* Finite states without changing the algorithm: sequence numbers grow   *)
(* forever when nodes loop (Acquisitions = 0), but the algorithm only     *)
(* compares them with each other and adds one, never compares one with a *)
(* constant. So shifting every timestamp in the state (highest, request,  *)
(* and the k of every REQUEST in flight) down by the same amount changes  *)
(* no outcome. ShiftedVars below is the state shifted so that the         *)
(* smallest timestamp present is 0, and the .cfg's VIEW ShiftedVars makes *)
(* TLC count states as Rust does (Seq::Clock in src/world/ranks.rs). It   *)
(* is not a cap: distances between timestamps are kept.                  *)
(*                                                                         *)
(* No SYMMETRY: ties between equal timestamps go to the smaller node      *)
(* number, and renaming nodes changes who wins them.                      *)
(*                                                                         *)
(* Faults modelled: crashes (a crashed node keeps its whole state for a   *)
(* restart, fsync; messages to it are dropped, and so are those sent to   *)
(* it while it is down), with Recovery "eventual" (Restart is weakly     *)
(* fair) or "none" (crash-stop: Restart may happen but need not), loss    *)
(* and duplication (each message at most once, the copy right behind the *)
(* original). Not modelled: pauses, delays (MaxDelay must be Async),      *)
(* partitions, reordering, clocks (there are none).                       *)
(*                                                                         *)
(* Node ids as in Rust: n1..nN are 0..N-1.                                *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    N,             \* [system] nodes
    Acquisitions,  \* [bounds] acquisitions per node; 0 = forever
    MaxDelay,      \* [faults] max_delay: must be omitted (.cfg: Async)
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses: must be 0
    MaxPause,      \* [faults] max_pause: must be 0
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    Recovery,      \* [faults] recovery: "eventual" or "none"
    Loss,          \* [faults] loss
    Duplication,   \* [faults] duplicate
    None           \* a model value: no request

ASSUME /\ N \in 2..5 /\ Acquisitions \in 0..5 /\ MaxDelay \notin Int
       /\ Crashes \in 0..3 /\ Pauses = 0 /\ MaxPause = 0
       /\ Targets \in {"all", "clients", "servers"}
       /\ Recovery \in {"eventual", "none"}
       /\ Loss \in BOOLEAN /\ Duplication \in BOOLEAN

Nodes == 0..N - 1
Links == Nodes \X Nodes

\* Every node is a client to the world: "servers" targets none of them.
Targeted(n) == Targets # "servers"

VARIABLES
    status,       \* status[n] \in {"Up", "Down"}
    net,          \* net[<<src, dst>>]: envelopes in flight, send order
    spent,        \* faults spent: [crashes]
    phase,        \* phase[n]: Want, Acquiring, Holding, Done
    left,         \* left[n]: acquisitions still to make
    highest,      \* Highest_Sequence_Number
    request,      \* Our_Sequence_Number while requesting, else None
    outstanding,  \* Outstanding_Reply_Count
    deferred      \* {j : Reply_Deferred(j)}

nodeVars == <<phase, left, highest, request, outstanding, deferred>>
vars == <<status, net, spent, phase, left, highest, request, outstanding, deferred>>

-----------------------------------------------------------------------------
(* World: the network, as World::apply and World::after handle it.         *)

Up(n) == status[n] = "Up"

\* A message sent to a crashed node is dropped.
Sent(q, src, dst, m) ==
    IF status[dst] = "Down" THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, copied |-> FALSE])]

\* Sends m from src to every node in the set ds.
SendAll(q, src, ds, m) ==
    [l \in Links |-> IF l[1] = src /\ l[2] \in ds /\ status[l[2]] # "Down"
                     THEN Append(q[l], [msg |-> m, copied |-> FALSE])
                     ELSE q[l]]

\* Only the oldest message of a link can be delivered (FIFO), and only to
\* a running node.
Deliverable(src, dst) == Up(dst) /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

\* The first envelope of link l carrying m (among those not yet copied,
\* with fresh): World::find, all ages being 0.
First(l, m, fresh) ==
    CHOOSE i \in 1..Len(net[l]) :
        /\ net[l][i].msg = m /\ ~(fresh /\ net[l][i].copied)
        /\ \A k \in 1..i - 1 : ~(net[l][k].msg = m /\ ~(fresh /\ net[l][k].copied))
Carries(l, m, fresh) == \E i \in 1..Len(net[l]) : net[l][i].msg = m /\ ~(fresh /\ net[l][i].copied)
InFlight(l) == {net[l][i].msg : i \in 1..Len(net[l])}

-----------------------------------------------------------------------------
(* The node's script (client.rs) and the lock view (properties.rs).        *)

Requesting(n) == request[n] # None

Wanting == {n \in Nodes : status[n] # "Down" /\ phase[n] \in {"Want", "Acquiring"}}
Holding == {n \in Nodes : status[n] # "Down" /\ phase[n] = "Holding"}

\* Script::released: want again, or stop after Acquisitions.
Released(n) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![n] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![n] = @ - 1]
         /\ phase' = [phase EXCEPT ![n] = IF left[n] = 1 THEN "Done" ELSE "Want"]

-----------------------------------------------------------------------------
(* The node's own steps. Request is not urgent (a node comes to want the   *)
(* critical section at any moment); with no clock that changes nothing.    *)

\* Invoking mutual exclusion.
Request(i) ==
    LET k == highest[i] + 1 IN
    /\ Up(i) /\ phase[i] = "Want"
    /\ request' = [request EXCEPT ![i] = k]
    /\ outstanding' = [outstanding EXCEPT ![i] = N - 1]
    /\ phase' = [phase EXCEPT ![i] = "Acquiring"]
    /\ net' = SendAll(net, i, Nodes \ {i}, [type |-> "Request", ts |-> k])
    /\ UNCHANGED <<status, spent, left, highest, deferred>>

\* Leaving the critical section: REPLY to every deferred node.
Release(i) ==
    /\ Up(i) /\ phase[i] = "Holding"
    /\ request' = [request EXCEPT ![i] = None]
    /\ deferred' = [deferred EXCEPT ![i] = {}]
    /\ net' = SendAll(net, i, deferred[i], [type |-> "Reply"])
    /\ Released(i)
    /\ UNCHANGED <<status, spent, highest, outstanding>>

-----------------------------------------------------------------------------
(* The node's handlers (Action::Deliver).                                  *)

\* REQUEST(k, j) reaches i.
ReceiveRequest(j, i) ==
    LET k == Msg(j, i).ts
        defer == Requesting(i) /\ (k > request[i] \/ (k = request[i] /\ j > i))
    IN
    /\ Deliverable(j, i) /\ Msg(j, i).type = "Request"
    /\ highest' = [highest EXCEPT ![i] = IF k > @ THEN k ELSE @]
    /\ IF defer
       THEN /\ deferred' = [deferred EXCEPT ![i] = @ \cup {j}]
            /\ net' = Pop(j, i)
       ELSE /\ net' = Sent(Pop(j, i), i, j, [type |-> "Reply"])
            /\ UNCHANGED deferred
    /\ UNCHANGED <<status, spent, phase, left, request, outstanding>>

\* REPLY reaches i: one fewer outstanding; at zero, the critical section.
\* The paper decrements in any phase and Request resets the count, so a
\* reply while not waiting changes nothing the algorithm reads.
ReceiveReply(j, i) ==
    /\ Deliverable(j, i) /\ Msg(j, i).type = "Reply"
    /\ net' = Pop(j, i)
    /\ IF phase[i] = "Acquiring"
       THEN /\ outstanding' = [outstanding EXCEPT ![i] = @ - 1]
            /\ phase' = [phase EXCEPT ![i] = IF outstanding[i] = 1 THEN "Holding" ELSE @]
       ELSE UNCHANGED <<outstanding, phase>>
    /\ UNCHANGED <<status, spent, left, highest, request, deferred>>

Deliver(src, dst) == ReceiveRequest(src, dst) \/ ReceiveReply(src, dst)

-----------------------------------------------------------------------------
(* World: faults and recovery.                                             *)

\* Fault: a node stops; messages to it are dropped. It keeps its state for
\* the restart (fsync).
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED nodeVars

\* A crashed node comes back with its whole state.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ UNCHANGED <<net, spent, nodeVars>>

\* Fault: the network loses the oldest copy of m on link l.
Lose(l, m) ==
    /\ Loss /\ Carries(l, m, FALSE)
    /\ LET i == First(l, m, FALSE) IN
       net' = [net EXCEPT ![l] = SubSeq(@, 1, i - 1) \o SubSeq(@, i + 1, Len(@))]
    /\ UNCHANGED <<status, spent, nodeVars>>

\* Fault: the network duplicates the oldest copy of m on link l not yet
\* duplicated; the copy travels right behind it, and neither is
\* duplicated again.
Duplicate(l, m) ==
    /\ Duplication /\ Carries(l, m, TRUE)
    /\ LET i == First(l, m, TRUE)
           e == [msg |-> m, copied |-> TRUE]
       IN  net' = [net EXCEPT ![l] = SubSeq(@, 1, i - 1) \o <<e, e>> \o SubSeq(@, i + 1, Len(@))]
    /\ UNCHANGED <<status, spent, nodeVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0]
    /\ phase = [n \in Nodes |-> "Want"]
    /\ left = [n \in Nodes |-> Acquisitions]
    /\ highest = [n \in Nodes |-> 0]
    /\ request = [n \in Nodes |-> None]
    /\ outstanding = [n \in Nodes |-> 0]
    /\ deferred = [n \in Nodes |-> {}]

\* World::enabled, in its order (no Tick: nothing is timed).
Next ==
    \/ \E i \in Nodes : Request(i) \/ Release(i)
    \/ \E src, dst \in Nodes : Deliver(src, dst)
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E l \in Links : \E m \in InFlight(l) : Lose(l, m) \/ Duplicate(l, m)

\* The adversary's actions: never weakly fair, and "once faults stop" in
\* the liveness properties excludes runs with infinitely many of them.
\* With Recovery = "none" a restart is the adversary's choice too.
Fault ==
    \/ \E n \in Nodes : Crash(n)
    \/ \E l \in Links : \E m \in InFlight(l) : Lose(l, m) \/ Duplicate(l, m)
    \/ Recovery = "none" /\ \E n \in Nodes : Restart(n)

\* DESIGN.md section 5: weak fairness for each message delivery (per link;
\* with FIFO links this is the same as per message) and each node's own
\* steps; for Restart only when outages end (Recovery = "eventual").
Fairness ==
    /\ \A i \in Nodes : WF_vars(Request(i)) /\ WF_vars(Release(i))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ Recovery = "eventual" => \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The timestamp shift (Seq::Clock in src/world/ranks.rs).                 *)

Stamps ==
    {highest[n] : n \in Nodes}
      \cup {request[n] : n \in {x \in Nodes : request[x] # None}}
      \cup UNION {{m.ts : m \in {x \in InFlight(l) : x.type = "Request"}} : l \in Links}

Least == CHOOSE s \in Stamps : \A t \in Stamps : s <= t

\* Comparing a variable with itself makes TLC evaluate it: TLC 2.15
\* fingerprints the view, not the variables, so a variable built lazily
\* (net, by SendAll) would otherwise stay a lazy function, which TLC fails
\* to write to its disk queue and to print in an error trace.
Concrete(v) == v = v

\* The state with every timestamp shifted down by the smallest present.
ShiftedVars ==
    LET sh(v) == v - Least
        env(e) == IF e.msg.type = "Request" THEN [e EXCEPT !.msg.ts = sh(@)] ELSE e
    IN  IF ~(Concrete(net) /\ Concrete(highest) /\ Concrete(request)) THEN <<>> ELSE
        <<status,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> env(net[l][i])]],
          spent, phase, left,
          [n \in Nodes |-> sh(highest[n])],
          [n \in Nodes |-> IF request[n] = None THEN None ELSE sh(request[n])],
          outstanding, deferred>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Down"}]
    /\ spent \in [crashes : 0..Crashes]
    /\ phase \in [Nodes -> {"Want", "Acquiring", "Holding", "Done"}]
    /\ highest \in [Nodes -> Nat]
    /\ \A n \in Nodes : request[n] = None \/ request[n] \in Nat
    /\ outstanding \in [Nodes -> 0..N - 1]
    /\ deferred \in [Nodes -> SUBSET Nodes]

\* Never two nodes in the critical section.
MutualExclusion == Cardinality(Holding) <= 1

\* No resource, no history flags: these hold by construction.
NoStaleWrite == TRUE
NoForeignRelease == TRUE

\* Node n is granted the lock in this step: it stops wanting it.
Granted(n) == n \in Wanting /\ n \notin Wanting'

\* Once faults stop, whenever a running node wants the lock, some node
\* eventually acquires it.
DeadlockFreedom ==
    []<><<Fault>>_vars \/ []<>(Wanting = {}) \/ []<><<\E n \in Nodes : Granted(n)>>_vars

\* Once faults stop, every running node that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A n \in Nodes : []<><<Fault>>_vars \/ []<>(n \notin Wanting) \/ []<><<Granted(n)>>_vars

=============================================================================
