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
(*   to every other node; wait until Outstanding_Reply_Count = 0 (Enter),  *)
(*   then the critical section.                                            *)
(*   Release: Requesting_Critical_Section := FALSE; REPLY to every node    *)
(*   whose Reply_Deferred is set.                                          *)
(*   On REQUEST(k, j): Highest_Sequence_Number := max(it, k); defer the    *)
(*   reply iff Requesting_Critical_Section /\ (k > Our_Sequence_Number \/  *)
(*   k = Our_Sequence_Number /\ j > me); otherwise REPLY at once.          *)
(*   On REPLY: Outstanding_Reply_Count := Outstanding_Reply_Count - 1.     *)
(*                                                                         *)
(* The wait (Enter) is its own step, apart from the REPLY handler, as the  *)
(* paper's waiting process is apart from its REPLY process and as a waiter *)
(* on a condition re-checks it only when it runs (specs/README.md, finding *)
(* 8): a duplicated REPLY counted before the waiter looks takes the count  *)
(* from 0 to -1, and the waiter, which waits for exactly 0, never enters.  *)
(* The critical section is one write to the protected resource            *)
(* (src/algorithms/common/resource.rs), carrying the acquisition's ghost number,  *)
(* drawn at Enter (no service grants; this is when the node may use the    *)
(* lock); the node leaves its critical section (the release) when the     *)
(* resource has answered (finding 7).                                      *)
(*                                                                         *)
(* Requesting_Critical_Section stays TRUE through the critical section,    *)
(* so a node in it defers every request that can reach it. Each entry      *)
(* costs 2(N - 1) messages between the nodes.                              *)
(*                                                                         *)
(* The world (network, crashes, loss, duplication, fairness's shape) is    *)
(* World.tla's; this module supplies the handlers. The Rust module         *)
(* src/algorithms/ricart_agrawala/ follows it (the node's script is        *)
(* src/algorithms/common/client.rs's). Same configuration, same states: TLC must *)
(* find as many distinct states as the Rust checker finds unique states    *)
(* (docs/design.md §10). Of World.tla's variables status, net            *)
(* (envelopes [msg, age, copied], ages staying 0: the network is           *)
(* asynchronous), spent, ghost and history change here; the node's         *)
(* variables are the fields of the Rust Peer:                              *)
(*   phase, left  Peer::script (Want, Acquiring, Holding, Writing, Done)   *)
(*   highest      Highest_Sequence_Number (Peer::highest)                  *)
(*   request      Our_Sequence_Number while requesting, None otherwise     *)
(*                (Peer::request): the algorithm reads it only then        *)
(*   outstanding  Outstanding_Reply_Count (below 0 only after a duplicate) *)
(*   deferred     the set of j with Reply_Deferred(j)                      *)
(*   acquired     the ghost number of n's critical section (Peer::ghost)   *)
(*   max_ghost    Resource::max_ghost (no fencing: tokens are 0)           *)
(* No timers, stopwatches or lock values exist in this family: Tick is     *)
(* never enabled. No release can remove another node's lock:               *)
(* NoForeignRelease holds trivially.                                       *)
(*                                                                         *)
(* Finite states without changing the algorithm: sequence numbers grow     *)
(* forever when nodes loop (Acquisitions = 0), but the algorithm only      *)
(* compares them with each other and adds one, never compares one with a   *)
(* constant. So shifting every timestamp in the state (highest, request,   *)
(* and the k of every REQUEST in flight) down by the same amount changes   *)
(* no outcome. ShiftedVars below is the state shifted so that the          *)
(* smallest timestamp present is 0, with the ghost numbers renumbered by   *)
(* rank, and the .cfg's VIEW ShiftedVars makes TLC count states as Rust    *)
(* does (Seq::Clock and Seq::Ghost in src/world/ranks.rs). The shift is    *)
(* not a cap: distances between timestamps are kept.                       *)
(*                                                                         *)
(* No SYMMETRY: ties between equal timestamps go to the smaller node       *)
(* number, and renaming nodes changes who wins them.                       *)
(*                                                                         *)
(* Faults modelled: crashes (a crashed node keeps its whole state for a    *)
(* restart, fsync; messages to it are dropped, and so are those sent to    *)
(* it while it is down: a node that restarts waiting for its write's       *)
(* answer waits for ever if the crash dropped it), with Recovery           *)
(* "eventual" (Restart is weakly fair) or "none" (crash-stop: Restart may  *)
(* happen but need not), loss and duplication of the nodes' messages (each *)
(* message at most once, the copy right behind the original; never the    *)
(* resource's). Not modelled (the ASSUME below refuses them): pauses,      *)
(* delays (MaxDelay must be Async), partitions, drift and clock jumps      *)
(* (there are no clocks); nor reordering, which World.tla never models,    *)
(* nor tagged replies nor [system] work.                                   *)
(*                                                                         *)
(* Node ids as in Rust: n1..nN are 0..N-1, the resource is N.              *)
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

Peers == 0..N - 1
Resource == N
AllNodes == 0..N
Links == AllNodes \X AllNodes

\* The world's view of the nodes (World.tla's hooks): every node is a
\* client, the resource the observer (never faulted, nor its links);
\* nothing is timed or paused, so urgency changes nothing here (Enter and
\* Write are urgent in Rust, Request is not).
Role(n) == IF n = Resource THEN "observer" ELSE "client"
Urgent(n) == FALSE
Cap(n, w) == 0
MayPause(n) == FALSE

VARIABLES
    phase,        \* phase[n]: Want, Acquiring, Holding, Writing, Done
    left,         \* left[n]: acquisitions still to make
    highest,      \* Highest_Sequence_Number
    request,      \* Our_Sequence_Number while requesting, else None
    outstanding,  \* Outstanding_Reply_Count
    deferred,     \* {j : Reply_Deferred(j)}
    acquired,     \* acquired[n]: the ghost number of n's critical section
    max_ghost     \* the resource: the latest acquisition a write was accepted under

\* The world's variables no handler here changes.
fixed == <<status, pause, skew, timers, watches, cut, spent, drawn>>
nodeVars == <<phase, left, highest, request, outstanding, deferred, acquired>>
algVars == <<phase, left, highest, request, outstanding, deferred, acquired, max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* The node's script (common/client.rs) and the lock view (properties.rs). *)

Requesting(n) == request[n] # None

Wanting == {n \in Peers : status[n] # "Down" /\ phase[n] \in {"Want", "Acquiring"}}
Holding == {n \in Peers : status[n] # "Down" /\ phase[n] \in {"Holding", "Writing"}}

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
    /\ net' = SendAll(net, i, Peers \ {i}, [type |-> "Request", ts |-> k])
    /\ UNCHANGED <<fixed, ghost, history, left, highest, deferred, acquired, max_ghost>>

\* WAITFOR (Outstanding_Reply_Count = 0) returns: the critical section,
\* under a new acquisition number.
Enter(i) ==
    /\ Up(i) /\ phase[i] = "Acquiring" /\ outstanding[i] = 0
    /\ ghost' = ghost + 1
    /\ acquired' = [acquired EXCEPT ![i] = ghost + 1]
    /\ phase' = [phase EXCEPT ![i] = "Holding"]
    /\ UNCHANGED <<fixed, net, history, left, highest, request, outstanding, deferred, max_ghost>>

\* The critical section's write (no fencing token: 0).
Write(i) ==
    /\ Up(i) /\ phase[i] = "Holding"
    /\ net' = Send(net, i, Resource, [type |-> "Write", ghost |-> acquired[i]])
    /\ phase' = [phase EXCEPT ![i] = "Writing"]
    /\ UNCHANGED <<fixed, ghost, history, left, highest, request, outstanding, deferred, acquired, max_ghost>>

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
    /\ UNCHANGED <<fixed, ghost, history, phase, left, request, outstanding, acquired, max_ghost>>

\* REPLY reaches i: one fewer outstanding; the waiter (Enter) looks in its
\* own step. The paper decrements in any phase and Request resets the
\* count, so a reply while not waiting changes nothing the algorithm reads.
ReceiveReply(j, i) ==
    /\ Deliverable(j, i) /\ Msg(j, i).type = "Reply"
    /\ net' = Pop(j, i)
    /\ outstanding' = IF phase[i] = "Acquiring"
                      THEN [outstanding EXCEPT ![i] = @ - 1]
                      ELSE outstanding
    /\ UNCHANGED <<fixed, ghost, history, phase, left, highest, request, deferred, acquired, max_ghost>>

\* The resource's answer reaches i: the write is done, and i leaves its
\* critical section: Requesting_Critical_Section := FALSE, and a REPLY to
\* every deferred node.
ReceiveWritten(j, i) ==
    /\ Deliverable(j, i) /\ Msg(j, i).type = "Accepted" /\ phase[i] = "Writing"
    /\ request' = [request EXCEPT ![i] = None]
    /\ deferred' = [deferred EXCEPT ![i] = {}]
    /\ acquired' = [acquired EXCEPT ![i] = 0]
    /\ net' = SendAll(Pop(j, i), i, deferred[i], [type |-> "Reply"])
    /\ Released(i)
    /\ UNCHANGED <<fixed, ghost, history, highest, outstanding, max_ghost>>

\* The resource (resource.rs), without fencing.
ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, ghost, nodeVars>>

\* A message the destination's handler ignores still leaves the link (an
\* answer of the resource to a node no longer writing; none is sent).
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ dst \in Peers
    /\ Msg(src, dst).type = "Accepted" /\ phase[dst] # "Writing"
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, ghost, history, algVars>>

Deliver(src, dst) ==
    \/ dst \in Peers /\ (ReceiveRequest(src, dst) \/ ReceiveReply(src, dst)
                         \/ ReceiveWritten(src, dst))
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* The world (World.tla): crashes, restarts, loss, duplication. Only Crash *)
(* and Restart touch a node, and neither changes its state.                *)

\* Fault: a node stops; messages to it are dropped. It keeps its state for
\* the restart (fsync).
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED algVars

\* A crashed node comes back with its whole state.
Restart(n) ==
    /\ WorldRestart(n)
    /\ UNCHANGED <<timers, net, ghost, drawn, history, algVars>>

\* Fault: the network loses the oldest copy of the i-th message of src ->
\* dst.
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars

\* Fault: the network duplicates the oldest copy not yet duplicated; the
\* copy travels right behind it, and neither is duplicated again.
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ phase = [n \in Peers |-> "Want"]
    /\ left = [n \in Peers |-> Acquisitions]
    /\ highest = [n \in Peers |-> 0]
    /\ request = [n \in Peers |-> None]
    /\ outstanding = [n \in Peers |-> 0]
    /\ deferred = [n \in Peers |-> {}]
    /\ acquired = [n \in Peers |-> 0]
    /\ max_ghost = 0

\* World::enabled, in its order (no Tick: nothing is timed).
Next ==
    \/ \E i \in Peers : Request(i) \/ Enter(i) \/ Write(i)
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

\* docs/design.md §5, in World.tla's shape: weak fairness for each
\* link's delivery (with FIFO links the same as each message's) and each
\* node's own steps; for Restart only when outages end (Recoveries). No
\* Tick, no timers, no Heal: nothing here is timed or cut.
Fairness ==
    /\ \A i \in Peers : WF_vars(Request(i)) /\ WF_vars(Enter(i)) /\ WF_vars(Write(i))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The timestamp shift (Seq::Clock in src/world/ranks.rs) and the ghost    *)
(* numbers' ranks (Seq::Ghost).                                            *)

Stamps ==
    {highest[n] : n \in Peers}
      \cup {request[n] : n \in {x \in Peers : request[x] # None}}
      \cup {m.ts : m \in {x \in InFlight : x.type = "Request"}}

Least == CHOOSE s \in Stamps : \A t \in Stamps : s <= t

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[n] : n \in Peers}
      \cup {m.ghost : m \in {x \in InFlight : x.type = "Write"}}

\* The state with every timestamp shifted down by the smallest present and
\* every ghost number renumbered by rank: World.tla's RankedWorld with the
\* REQUESTs' timestamps shifted and the writes' ghost numbers ranked (no
\* lock values: drawn stays 0). Not a ranking of the timestamps: max + 1
\* can fall between two ranks, so their distances are kept. Concrete
\* (World.tla) first makes TLC evaluate the variables the view rewrites.
ShiftedVars ==
    LET sh(v) == v - Least
        rg(g) == Rank(g, GhostValues)
        same(v) == v
        msg(m) == IF m.type = "Request" THEN [m EXCEPT !.ts = sh(@)]
                  ELSE IF m.type = "Write" THEN [m EXCEPT !.ghost = rg(@)]
                  ELSE m
    IN  IF ~(Concrete(net) /\ Concrete(highest) /\ Concrete(request) /\ Concrete(acquired))
        THEN <<>> ELSE
        <<RankedWorld(rg, same, msg),
          phase, left,
          [n \in Peers |-> sh(highest[n])],
          [n \in Peers |-> IF request[n] = None THEN None ELSE sh(request[n])],
          outstanding, deferred,
          [n \in Peers |-> rg(acquired[n])], rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in AllNodes : timers[n] = NoTimers /\ watches[n] = NoTimers
    /\ history \subseteq {"StaleWrite"}
    /\ phase \in [Peers -> {"Want", "Acquiring", "Holding", "Writing", "Done"}]
    /\ highest \in [Peers -> Nat]
    /\ \A n \in Peers : request[n] = None \/ request[n] \in Nat
    /\ outstanding \in [Peers -> Int] /\ \A n \in Peers : outstanding[n] <= N - 1
    /\ deferred \in [Peers -> SUBSET Peers]
    /\ acquired \in [Peers -> Nat] /\ max_ghost \in Nat

\* Never two nodes in the critical section.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write under an earlier acquisition after
\* one under a later acquisition.
NoStaleWrite == "StaleWrite" \notin history

\* No release here can remove another's lock: the flag is never raised.
NoForeignRelease == TRUE

\* Node n is granted the lock in this step: it stops wanting it.
Granted(n) == n \in Wanting /\ n \notin Wanting'

\* Once faults stop, whenever a running node wants the lock, some node
\* eventually acquires it.
DeadlockFreedom ==
    []<><<Fault>>_vars \/ []<>(Wanting = {}) \/ []<><<\E n \in Peers : Granted(n)>>_vars

\* Once faults stop, every running node that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A n \in Peers : []<><<Fault>>_vars \/ []<>(n \notin Wanting) \/ []<><<Granted(n)>>_vars

=============================================================================
