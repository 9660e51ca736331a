---------------------------- MODULE RicartAgrawala ----------------------------
(***************************************************************************)
(* Ricart-Agrawala mutual exclusion, from G. Ricart and A. K. Agrawala,    *)
(* "An optimal algorithm for mutual exclusion in computer networks",       *)
(* CACM 24(1), January 1981. N nodes, each both a client and a peer of     *)
(* the others; no server, no clock, no timer. In the paper's words:        *)
(*                                                                         *)
(*   Invoking mutual exclusion (Request): Requesting_Critical_Section :=   *)
(*   TRUE; Our_Sequence_Number := Highest_Sequence_Number + 1;             *)
(*   Outstanding_Reply_Count := N - 1; REQUEST(Our_Sequence_Number, me)    *)
(*   to every other node; wait until Outstanding_Reply_Count = 0, then     *)
(*   the critical section.                                                 *)
(*   Release: Requesting_Critical_Section := FALSE; REPLY to every node    *)
(*   whose Reply_Deferred is set.                                          *)
(*   On REQUEST(k, j): Highest_Sequence_Number := max(it, k); defer the    *)
(*   reply iff Requesting_Critical_Section /\ (k > Our_Sequence_Number \/  *)
(*   k = Our_Sequence_Number /\ j > me); otherwise REPLY at once.          *)
(*   On REPLY: Outstanding_Reply_Count := Outstanding_Reply_Count - 1.     *)
(*                                                                         *)
(* Requesting_Critical_Section stays TRUE through the critical section,    *)
(* so a node in it defers every request that can reach it. Each entry      *)
(* costs 2(N - 1) messages.                                                *)
(*                                                                         *)
(* The world (network, crashes, loss, duplication, fairness's shape) is    *)
(* World.tla's; this module supplies the handlers. The Rust module         *)
(* src/algorithms/ricart_agrawala.rs follows it (the node's script is      *)
(* src/algorithms/client.rs's). Same configuration, same states: TLC must  *)
(* find as many distinct states as the Rust checker finds unique states    *)
(* (DESIGN.md section 10). Of World.tla's variables only status, net       *)
(* (envelopes [msg, age, copied], ages staying 0: the network is           *)
(* asynchronous) and spent change here; the node's variables are the       *)
(* fields of the Rust State:                                               *)
(*   phase, left  State::script (Want, Acquiring, Holding, Done)           *)
(*   highest      Highest_Sequence_Number (State::highest)                 *)
(*   request      Our_Sequence_Number while requesting, None otherwise     *)
(*                (State::request): the algorithm reads it only then       *)
(*   outstanding  Outstanding_Reply_Count                                  *)
(*   deferred     the set of j with Reply_Deferred(j)                      *)
(* No timers, stopwatches, ghost numbers, lock values or history flags     *)
(* exist in this family: Tick is never enabled. There is no protected      *)
(* resource; NoStaleWrite and NoForeignRelease hold trivially.             *)
(*                                                                         *)
(* Finite states without changing the algorithm: sequence numbers grow     *)
(* forever when nodes loop (Acquisitions = 0), but the algorithm only      *)
(* compares them with each other and adds one, never compares one with a   *)
(* constant. So shifting every timestamp in the state (highest, request,   *)
(* and the k of every REQUEST in flight) down by the same amount changes   *)
(* no outcome. ShiftedVars below is the state shifted so that the          *)
(* smallest timestamp present is 0, and the .cfg's VIEW ShiftedVars makes  *)
(* TLC count states as Rust does (Seq::Clock in src/world/ranks.rs). It    *)
(* is not a cap: distances between timestamps are kept.                    *)
(*                                                                         *)
(* No SYMMETRY: ties between equal timestamps go to the smaller node       *)
(* number, and renaming nodes changes who wins them.                       *)
(*                                                                         *)
(* Faults modelled: crashes (a crashed node keeps its whole state for a    *)
(* restart, fsync; messages to it are dropped, and so are those sent to    *)
(* it while it is down), with Recovery "eventual" (Restart is weakly       *)
(* fair) or "none" (crash-stop: Restart may happen but need not), loss     *)
(* and duplication (each message at most once, the copy right behind the   *)
(* original). Not modelled (the ASSUME below refuses them): pauses,        *)
(* delays (MaxDelay must be Async), partitions, drift and clock jumps      *)
(* (there are no clocks); nor reordering, which World.tla never models.    *)
(*                                                                         *)
(* Node ids as in Rust: n1..nN are 0..N-1.                                 *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    N,             \* [system] nodes
    Acquisitions   \* [bounds] acquisitions per node; 0 = forever

\* World.tla's constants are the [faults] keys; this spec models crashes,
\* Recovery, Loss and Duplication on an asynchronous network, no more.
ASSUME /\ N \in 2..5 /\ Acquisitions \in 0..5 /\ MaxDelay \notin Int
       /\ Pauses = 0 /\ MaxPause = 0 /\ ClockJumps = 0 /\ MaxJump = 0
       /\ MaxDrift = 0 /\ Partitions = 0

AllNodes == 0..N - 1
Links == AllNodes \X AllNodes

\* The world's view of the nodes (World.tla's hooks): every node is a
\* client ("servers" targets none of them); nothing is urgent (Request is
\* not, and there is no clock anyway), nothing is timed or paused.
Role(n) == "client"
Urgent(n) == FALSE
Cap(n, w) == 0
MayPause(n) == FALSE

VARIABLES
    phase,        \* phase[n]: Want, Acquiring, Holding, Done
    left,         \* left[n]: acquisitions still to make
    highest,      \* Highest_Sequence_Number
    request,      \* Our_Sequence_Number while requesting, else None
    outstanding,  \* Outstanding_Reply_Count
    deferred      \* {j : Reply_Deferred(j)}

\* The world's variables no handler here changes.
fixed == <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>
nodeVars == <<phase, left, highest, request, outstanding, deferred>>
vars == <<worldVars, nodeVars>>

\* The messages in flight on link l.
OnLink(l) == {net[l][i].msg : i \in 1..Len(net[l])}

-----------------------------------------------------------------------------
(* The node's script (client.rs) and the lock view (properties.rs).        *)

Requesting(n) == request[n] # None

Wanting == {n \in AllNodes : status[n] # "Down" /\ phase[n] \in {"Want", "Acquiring"}}
Holding == {n \in AllNodes : status[n] # "Down" /\ phase[n] = "Holding"}

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
    /\ net' = SendAll(net, i, AllNodes \ {i}, [type |-> "Request", ts |-> k])
    /\ UNCHANGED <<fixed, left, highest, deferred>>

\* Leaving the critical section: REPLY to every deferred node.
Release(i) ==
    /\ Up(i) /\ phase[i] = "Holding"
    /\ request' = [request EXCEPT ![i] = None]
    /\ deferred' = [deferred EXCEPT ![i] = {}]
    /\ net' = SendAll(net, i, deferred[i], [type |-> "Reply"])
    /\ Released(i)
    /\ UNCHANGED <<fixed, highest, outstanding>>

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
       ELSE /\ net' = Send(Pop(j, i), i, j, [type |-> "Reply"])
            /\ UNCHANGED deferred
    /\ UNCHANGED <<fixed, phase, left, request, outstanding>>

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
    /\ UNCHANGED <<fixed, left, highest, request, deferred>>

Deliver(src, dst) == ReceiveRequest(src, dst) \/ ReceiveReply(src, dst)

-----------------------------------------------------------------------------
(* The world (World.tla): crashes, restarts, loss, duplication. Only Crash *)
(* and Restart touch a node, and neither changes its state.                *)

\* Fault: a node stops; messages to it are dropped. It keeps its state for
\* the restart (fsync).
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED nodeVars

\* A crashed node comes back with its whole state.
Restart(n) ==
    /\ WorldRestart(n)
    /\ UNCHANGED <<timers, net, ghost, drawn, history, nodeVars>>

\* Fault: the network loses the oldest copy of the i-th message of src ->
\* dst.
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED nodeVars

\* Fault: the network duplicates the oldest copy not yet duplicated; the
\* copy travels right behind it, and neither is duplicated again.
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED nodeVars

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ phase = [n \in AllNodes |-> "Want"]
    /\ left = [n \in AllNodes |-> Acquisitions]
    /\ highest = [n \in AllNodes |-> 0]
    /\ request = [n \in AllNodes |-> None]
    /\ outstanding = [n \in AllNodes |-> 0]
    /\ deferred = [n \in AllNodes |-> {}]

\* World::enabled, in its order (no Tick: nothing is timed).
Next ==
    \/ \E i \in AllNodes : Request(i) \/ Release(i)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ \E n \in AllNodes : Crash(n)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)

\* The adversary's actions: never weakly fair, and "once faults stop" in
\* the liveness properties excludes runs with infinitely many of them.
\* With Recovery = "none" a restart is the adversary's choice too.
Fault ==
    \/ \E n \in AllNodes : Crash(n)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ ~Recoveries /\ \E n \in AllNodes : Restart(n)

\* DESIGN.md section 5, in World.tla's shape: weak fairness for each
\* link's delivery (with FIFO links the same as each message's) and each
\* node's own steps; for Restart only when outages end (Recoveries). No
\* Tick, no timers, no Heal: nothing here is timed or cut.
Fairness ==
    /\ \A i \in AllNodes : WF_vars(Request(i)) /\ WF_vars(Release(i))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The timestamp shift (Seq::Clock in src/world/ranks.rs).                 *)

Stamps ==
    {highest[n] : n \in AllNodes}
      \cup {request[n] : n \in {x \in AllNodes : request[x] # None}}
      \cup {m.ts : m \in {x \in InFlight : x.type = "Request"}}

Least == CHOOSE s \in Stamps : \A t \in Stamps : s <= t

\* The state with every timestamp shifted down by the smallest present:
\* World.tla's RankedWorld with the REQUESTs' timestamps shifted (no ghost
\* numbers or lock values to renumber: they stay 0). Not a ranking:
\* max + 1 can fall between two ranks, so distances are kept. Concrete
\* (World.tla) first makes TLC evaluate the variables the view rewrites.
ShiftedVars ==
    LET sh(v) == v - Least
        same(v) == v
        msg(m) == IF m.type = "Request" THEN [m EXCEPT !.ts = sh(@)] ELSE m
    IN  IF ~(Concrete(net) /\ Concrete(highest) /\ Concrete(request)) THEN <<>> ELSE
        <<RankedWorld(same, same, msg),
          phase, left,
          [n \in AllNodes |-> sh(highest[n])],
          [n \in AllNodes |-> IF request[n] = None THEN None ELSE sh(request[n])],
          outstanding, deferred>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in AllNodes : timers[n] = NoTimers /\ watches[n] = NoTimers
    /\ history = {}
    /\ phase \in [AllNodes -> {"Want", "Acquiring", "Holding", "Done"}]
    /\ highest \in [AllNodes -> Nat]
    /\ \A n \in AllNodes : request[n] = None \/ request[n] \in Nat
    /\ outstanding \in [AllNodes -> 0..N - 1]
    /\ deferred \in [AllNodes -> SUBSET AllNodes]

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
    []<><<Fault>>_vars \/ []<>(Wanting = {}) \/ []<><<\E n \in AllNodes : Granted(n)>>_vars

\* Once faults stop, every running node that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A n \in AllNodes : []<><<Fault>>_vars \/ []<>(n \notin Wanting) \/ []<><<Granted(n)>>_vars

=============================================================================
