----------------------------- MODULE Coordinator -----------------------------
(***************************************************************************)
(* The central-server algorithm for mutual exclusion, as Tanenbaum and van *)
(* Steen state it ("A centralized algorithm", Distributed Systems:         *)
(* Principles and Paradigms, section 6.3) and Coulouris et al. ("The       *)
(* central server algorithm", Distributed Systems: Concepts and Design,    *)
(* section 15.2): one process is the coordinator. A process that wants the *)
(* lock sends it REQUEST; if no process holds the lock, the coordinator    *)
(* answers GRANT, and otherwise queues the request (FIFO). The holder      *)
(* sends RELEASE when it leaves its critical section, and the coordinator  *)
(* grants the lock to the head of its queue. Three messages per entry; no  *)
(* clocks. The coordinator is a single point of failure.                   *)
(*                                                                         *)
(* Standby = "no-state" | "replicated" adds a standby server (node 1) that *)
(* takes over when the coordinator fails. The coordinator's queue is in    *)
(* memory: a coordinator that restarts knows it has lost it and retires,   *)
(* telling the standby (RESTARTED); the standby takes over and announces   *)
(* itself to every client (COORDINATOR). A "no-state" standby knows        *)
(* neither the holder nor the queue. A "replicated" one receives the       *)
(* coordinator's state (REPLICATE) and acknowledges it (ACK) before every  *)
(* GRANT: the primary-backup discipline (Budhiraja, Marzullo, Schneider    *)
(* and Toueg, The Primary-Backup Approach, 1993). A client that learns of  *)
(* the new coordinator asks again if it is waiting, and repeats its last   *)
(* RELEASE if it is not in its critical section. Requests carry a fresh    *)
(* id, and a GRANT the id it answers.                                      *)
(*                                                                         *)
(* Clients follow the script of src/algorithms/common/client.rs: they want the *)
(* lock Acquisitions times (for ever when 0); the critical section is one  *)
(* write to the protected resource (resource.rs).                          *)
(*                                                                         *)
(* The world (network, crashes, fairness's shape) is World.tla's; this     *)
(* module supplies the handlers, and src/algorithms/coordinator/ follows   *)
(* it. Actions in the Rust module's order: Acquire, Write (client steps);  *)
(* ReceiveRequest, ReceiveRelease, ReceiveAck, ReceiveRestarted (at the    *)
(* coordinator), ReceiveReplicate, Takeover (at the standby);              *)
(* ReceiveGrant, ReceiveWritten, ReceiveCoordinator (at a client); the     *)
(* resource's ReceiveWrite; then the world: Tick, Crash, Restart. TLC must *)
(* find as many distinct states as the Rust checker finds unique states.   *)
(* Of World.tla's variables status, net, spent, ghost, drawn (the last     *)
(* request id, WorldState::value) and history change here; the others are  *)
(* the Rust Server's and Client's fields:                                  *)
(*   mode, queue, holder, replicating   Server                             *)
(*   phase, left     Client::script; request: Client::id;                  *)
(*                   acquired: Client::ghost; coord: Client::coordinator   *)
(*   max_ghost       Resource::max_ghost (tokens are always 0 here)        *)
(* No timers: nothing here sets one, so Tick is enabled only on a network  *)
(* with bounded delay, where messages age. A crashed node keeps its state  *)
(* for the restart. Not modelled (the ASSUME refuses them): pauses, drift, *)
(* clock jumps, partitions, loss, duplication; nor reordering, which       *)
(* World.tla never models.                                                 *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    Clients,       \* [system] clients
    Standby,       \* [system] standby: "none", "no-state" or "replicated"
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

\* World.tla's constants are the [faults] keys; this spec models crashes,
\* Recovery and bounded delay, no more.
ASSUME /\ Clients \in 1..4 /\ Standby \in {"none", "no-state", "replicated"}
       /\ Acquisitions \in 0..5
       /\ Pauses = 0 /\ MaxPause = 0 /\ ClockJumps = 0 /\ MaxJump = 0
       /\ MaxDrift = 0 /\ Partitions = 0 /\ ~Loss /\ ~Duplication

HasStandby == Standby # "none"
Coord == 0
Backup == 1
Servers == IF HasStandby THEN {Coord, Backup} ELSE {Coord}
FirstClient == IF HasStandby THEN 2 ELSE 1
ClientIds == FirstClient..FirstClient + Clients - 1
Resource == FirstClient + Clients
AllNodes == 0..Resource
Links == AllNodes \X AllNodes
StepNames == {"Acquire", "Write"}

\* The world's view of the nodes (World.tla's hooks): no stopwatches, no
\* pauses.
Role(n) == CASE n \in Servers -> "server" [] n = Resource -> "observer" [] OTHER -> "client"
Cap(n, w) == 0
MayPause(n) == FALSE

VARIABLES
    mode,         \* mode[s]: "Coordinator", "Standby" or "Retired"
    queue,        \* queue[s]: waiting requests [client, id], oldest first
    holder,       \* holder[s]: None or the granted [client, id, ghost]
    replicating,  \* replicating[s]: the holder's GRANT waits for the ACK
    phase,        \* phase[c]: "Want", "Acquiring", "Holding", "Writing", "Done"
    left,         \* left[c]: acquisitions still to make
    request,      \* request[c]: the current (with a standby, last) request id; 0: none
    acquired,     \* acquired[c]: the ghost number of c's grant
    coord,        \* coord[c]: the server c believes is the coordinator
    max_ghost     \* the resource: the latest acquisition a write was accepted under

\* The world's variables no handler here changes (no timers are set).
fixed == <<status, pause, skew, timers, watches, cut, spent>>
serverVars == <<mode, queue, holder, replicating>>
clientVars == <<phase, left, request, acquired, coord>>
algVars == <<mode, queue, holder, replicating, phase, left, request, acquired, coord,
             max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* The script (common/client.rs) and the lock view (properties.rs).        *)

Holding == {c \in ClientIds : status[c] # "Down" /\ phase[c] \in {"Holding", "Writing"}}
Wanting == {c \in ClientIds : status[c] # "Down" /\ phase[c] \in {"Want", "Acquiring"}}

Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

-----------------------------------------------------------------------------
(* Client steps. Write is urgent; Acquire is not (a client comes to want   *)
(* the lock at any moment), but it is weakly fair.                         *)

\* Acquire: REQUEST with a fresh id, to the coordinator the client knows.
Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ phase[c] = "Want"
    /\ drawn' = v
    /\ request' = [request EXCEPT ![c] = v]
    /\ net' = Send(net, c, coord[c], [type |-> "Request", id |-> v])
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, serverVars, left, acquired, coord, max_ghost>>

\* Write: the critical section's write (no fencing token: 0).
Write(c) ==
    /\ Up(c) /\ phase[c] = "Holding"
    /\ net' = Send(net, c, Resource, [type |-> "Write", ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, left, request,
                   acquired, coord, max_ghost>>

HasUrgentStep(n) == n \in ClientIds /\ phase[n] = "Holding"

-----------------------------------------------------------------------------
(* The servers (server_receive). The first coordinator replicates when     *)
(* Standby = "replicated"; a standby that took over has no standby.        *)

Replicates(s) == Standby = "replicated" /\ s = Coord

\* grant_next: if the lock is free (holder h) and a request waits (queue
\* q), grant the head: a new ghost number; with replication, REPLICATE
\* first and GRANT on the ACK. q0: the network so far.
GrantNext(s, h, q, q0, replicate) ==
    IF h = None /\ q # <<>>
    THEN LET r == Head(q)
             g == ghost + 1
             hh == [client |-> r.client, id |-> r.id, ghost |-> g]
         IN /\ ghost' = g
            /\ holder' = [holder EXCEPT ![s] = hh]
            /\ queue' = [queue EXCEPT ![s] = Tail(q)]
            /\ IF replicate
               THEN /\ replicating' = [replicating EXCEPT ![s] = TRUE]
                    /\ net' = Send(q0, s, Backup, [type |-> "Replicate", holder |-> hh, queue |-> Tail(q)])
               ELSE /\ net' = Send(q0, s, r.client, [type |-> "Grant", id |-> r.id, ghost |-> g])
                    /\ UNCHANGED replicating
    ELSE /\ holder' = [holder EXCEPT ![s] = h]
         /\ queue' = [queue EXCEPT ![s] = q]
         /\ net' = q0
         /\ UNCHANGED <<ghost, replicating>>

Served(s, src, type) == Deliverable(src, s) /\ mode[s] = "Coordinator" /\ Msg(src, s).type = type

\* ReceiveRequest: the holder asking again for the same request (it learned
\* of a new coordinator before its grant arrived) is granted again; the
\* holder asking with a new request has released; otherwise queue the
\* request (once), and grant if the lock is free.
ReceiveRequest(src, s) ==
    LET v == Msg(src, s).id
        r == [client |-> src, id |-> v]
        h == holder[s]
        same == h # None /\ h.client = src /\ h.id = v
        h1 == IF h # None /\ h.client = src /\ ~replicating[s] THEN None ELSE h
        q1 == IF \E i \in 1..Len(queue[s]) : queue[s][i] = r THEN queue[s]
              ELSE Append(SelectSeq(queue[s], LAMBDA x : x.client # src), r)
    IN
    /\ Served(s, src, "Request")
    /\ IF same
       THEN /\ net' = IF replicating[s] THEN Pop(src, s)
                      ELSE Send(Pop(src, s), s, src, [type |-> "Grant", id |-> v, ghost |-> h.ghost])
            /\ UNCHANGED <<ghost, queue, holder, replicating>>
       ELSE GrantNext(s, h1, q1, Pop(src, s), Replicates(s))
    /\ UNCHANGED <<fixed, drawn, history, mode, clientVars, max_ghost>>

\* ReceiveRelease: the holder's release frees the lock for the head of the
\* queue; any other release is ignored.
ReceiveRelease(src, s) ==
    LET h == holder[s] IN
    /\ Served(s, src, "Release")
    /\ IF h # None /\ h.client = src /\ h.id = Msg(src, s).id /\ ~replicating[s]
       THEN GrantNext(s, None, queue[s], Pop(src, s), Replicates(s))
       ELSE /\ net' = Pop(src, s)
            /\ UNCHANGED <<ghost, queue, holder, replicating>>
    /\ UNCHANGED <<fixed, drawn, history, mode, clientVars, max_ghost>>

\* ReceiveAck: the standby has the state; GRANT.
ReceiveAck(src, s) ==
    LET h == holder[s] IN
    /\ Served(s, src, "Ack")
    /\ IF h # None /\ replicating[s] /\ h.id = Msg(src, s).id
       THEN /\ replicating' = [replicating EXCEPT ![s] = FALSE]
            /\ net' = Send(Pop(src, s), s, h.client, [type |-> "Grant", id |-> h.id, ghost |-> h.ghost])
       ELSE /\ net' = Pop(src, s)
            /\ UNCHANGED replicating
    /\ UNCHANGED <<fixed, ghost, drawn, history, mode, queue, holder, clientVars, max_ghost>>

\* ReceiveRestarted at the coordinator: the standby restarted empty; send
\* it the state again.
ReceiveRestarted(src, s) ==
    /\ Served(s, src, "Restarted")
    /\ net' = IF Replicates(s)
              THEN Send(Pop(src, s), s, Backup, [type |-> "Replicate", holder |-> holder[s], queue |-> queue[s]])
              ELSE Pop(src, s)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, clientVars, max_ghost>>

\* ReceiveReplicate at the standby: keep the copy, ACK it.
ReceiveReplicate(src, s) ==
    LET m == Msg(src, s) IN
    /\ Deliverable(src, s) /\ mode[s] = "Standby" /\ m.type = "Replicate"
    /\ holder' = [holder EXCEPT ![s] = m.holder]
    /\ queue' = [queue EXCEPT ![s] = m.queue]
    /\ net' = Send(Pop(src, s), s, src, [type |-> "Ack", id |-> IF m.holder = None THEN 0 ELSE m.holder.id])
    /\ UNCHANGED <<fixed, ghost, drawn, history, mode, replicating, clientVars, max_ghost>>

\* Takeover: the coordinator restarted without its memory. Serve from the
\* copy (none without replication), tell every client COORDINATOR, and
\* grant if the lock is free.
Takeover(src, s) ==
    LET q1 == SendAll(Pop(src, s), s, ClientIds, [type |-> "Coordinator"]) IN
    /\ Deliverable(src, s) /\ mode[s] = "Standby" /\ Msg(src, s).type = "Restarted"
    /\ mode' = [mode EXCEPT ![s] = "Coordinator"]
    /\ GrantNext(s, holder[s], queue[s], q1, FALSE)
    /\ UNCHANGED <<fixed, drawn, history, clientVars, max_ghost>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive).                                 *)

\* ReceiveGrant: a GRANT of the current request; the lock is ours.
ReceiveGrant(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c) /\ m.type = "Grant"
    /\ IF phase[c] = "Acquiring" /\ m.id = request[c]
       THEN /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
            /\ phase' = [phase EXCEPT ![c] = "Holding"]
       ELSE UNCHANGED <<acquired, phase>>
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, left, request, coord, max_ghost>>

\* ReceiveWritten: the critical section is over; RELEASE (no answer
\* expected). Only a client that may meet a new coordinator keeps its
\* last request id.
ReceiveWritten(src, c) ==
    /\ Deliverable(src, c) /\ Msg(src, c).type = "Accepted"
    /\ IF phase[c] = "Writing"
       THEN /\ net' = Send(Pop(src, c), c, coord[c], [type |-> "Release", id |-> request[c]])
            /\ acquired' = [acquired EXCEPT ![c] = 0]
            /\ request' = IF HasStandby THEN request ELSE [request EXCEPT ![c] = 0]
            /\ Released(c)
       ELSE /\ net' = Pop(src, c)
            /\ UNCHANGED <<acquired, request, phase, left>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, coord, max_ghost>>

\* ReceiveCoordinator: ask the new coordinator again, or repeat the last
\* release.
ReceiveCoordinator(src, c) ==
    LET q0 == Pop(src, c) IN
    /\ Deliverable(src, c) /\ Msg(src, c).type = "Coordinator"
    /\ coord' = [coord EXCEPT ![c] = src]
    /\ net' = CASE phase[c] = "Acquiring" ->
                     Send(q0, c, src, [type |-> "Request", id |-> request[c]])
              [] phase[c] \in {"Want", "Done"} /\ request[c] # 0 ->
                     Send(q0, c, src, [type |-> "Release", id |-> request[c]])
              [] OTHER -> q0
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, phase, left, request,
                   acquired, max_ghost>>

\* The resource (resource.rs), without fencing.
ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, ghost, drawn, serverVars, clientVars>>

\* What a node's handlers look at; it drops anything else unread.
Takes(src, dst) ==
    LET t == Msg(src, dst).type IN
    CASE dst = Resource -> t = "Write"
      [] dst \in ClientIds -> t \in {"Grant", "Accepted", "Coordinator"}
      [] mode[dst] = "Coordinator" -> t \in {"Request", "Release", "Ack", "Restarted"}
      [] mode[dst] = "Standby" -> t \in {"Replicate", "Restarted"}
      [] OTHER -> FALSE

Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, ghost, drawn, history, algVars>>

Deliver(src, dst) ==
    \/ dst \in Servers /\ \/ ReceiveRequest(src, dst) \/ ReceiveRelease(src, dst)
                          \/ ReceiveAck(src, dst) \/ ReceiveRestarted(src, dst)
                          \/ ReceiveReplicate(src, dst) \/ Takeover(src, dst)
    \/ dst \in ClientIds /\ \/ ReceiveGrant(src, dst) \/ ReceiveWritten(src, dst)
                            \/ ReceiveCoordinator(src, dst)
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* The world (World.tla): time, crashes, restarts. Only Crash and Restart  *)
(* touch the algorithm's state.                                            *)

\* No timers: time matters only to messages ageing on a network with
\* bounded delay, and cannot pass an urgent step or a message that is due.
Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars

\* Fault: a node stops; messages to it are dropped. Its state stays for
\* the restart.
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED algVars

\* Restart: the coordinator comes back with an empty queue; alone it
\* serves again, with a standby it retires and says RESTARTED to it; the standby comes
\* back with no copy and says RESTARTED to the coordinator; a client
\* starts afresh, believing node 0 is the coordinator.
Restart(n) ==
    /\ WorldRestart(n)
    /\ CASE n = Coord ->
              /\ mode' = [mode EXCEPT ![n] = IF HasStandby THEN "Retired" ELSE "Coordinator"]
              /\ queue' = [queue EXCEPT ![n] = <<>>]
              /\ holder' = [holder EXCEPT ![n] = None]
              /\ replicating' = [replicating EXCEPT ![n] = FALSE]
              /\ net' = IF HasStandby THEN Send(net, n, Backup, [type |-> "Restarted"]) ELSE net
              /\ UNCHANGED clientVars
         [] n \in Servers ->
              /\ mode' = [mode EXCEPT ![n] = "Standby"]
              /\ queue' = [queue EXCEPT ![n] = <<>>]
              /\ holder' = [holder EXCEPT ![n] = None]
              /\ replicating' = [replicating EXCEPT ![n] = FALSE]
              /\ net' = Send(net, n, Coord, [type |-> "Restarted"])
              /\ UNCHANGED clientVars
         [] OTHER ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ request' = [request EXCEPT ![n] = 0]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ coord' = [coord EXCEPT ![n] = Coord]
              /\ UNCHANGED <<serverVars, net>>
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ UNCHANGED <<ghost, drawn, history, max_ghost>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ mode = [s \in Servers |-> IF s = Coord THEN "Coordinator" ELSE "Standby"]
    /\ queue = [s \in Servers |-> <<>>]
    /\ holder = [s \in Servers |-> None]
    /\ replicating = [s \in Servers |-> FALSE]
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ request = [c \in ClientIds |-> 0]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ coord = [c \in ClientIds |-> Coord]
    /\ max_ghost = 0

\* A client's step by name (for fairness).
Step(n, s) == IF s = "Acquire" THEN Acquire(n) ELSE Write(n)

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Write(c)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ \E n \in AllNodes : Crash(n)

\* docs/design.md §5, in World.tla's shape: weak fairness for Tick, each
\* client's steps, each link's delivery, and Restart when outages end
\* (Recoveries). Faults never. No timers, no Heal: nothing is timed or cut.
Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds, s \in StepNames : WF_vars(Step(c, s))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank, src/world/ranks.rs): ghost numbers and   *)
(* request ids are only compared, so Rust replaces each by its rank among  *)
(* the values of its kind present, after every action; VIEW RankedVars     *)
(* counts the same.                                                        *)

Replicas == {m \in InFlight : m.type = "Replicate"}
HoldersIn == {holder[s] : s \in Servers} \cup {m.holder : m \in Replicas}
Held == {h \in HoldersIn : h # None}
QueuedIds == UNION {{queue[s][i].id : i \in 1..Len(queue[s])} : s \in Servers}
               \cup UNION {{m.queue[i].id : i \in 1..Len(m.queue)} : m \in Replicas}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds} \cup {h.ghost : h \in Held}
      \cup {m.ghost : m \in {x \in InFlight : x.type \in {"Grant", "Write"}}}

IdValues ==
    {0, drawn} \cup {request[c] : c \in ClientIds} \cup {h.id : h \in Held} \cup QueuedIds
      \cup {m.id : m \in {x \in InFlight : x.type \in {"Request", "Grant", "Release", "Ack"}}}

RankedVars ==
    LET G == GhostValues
        V == IdValues
        rg(g) == Rank(g, G)
        rv(v) == Rank(v, V)
        rh(h) == IF h = None THEN None ELSE [h EXCEPT !.id = rv(@), !.ghost = rg(@)]
        rq(q) == [i \in 1..Len(q) |-> [q[i] EXCEPT !.id = rv(@)]]
        msg(m) == CASE m.type \in {"Request", "Release", "Ack"} -> [m EXCEPT !.id = rv(@)]
                    [] m.type = "Grant" -> [m EXCEPT !.id = rv(@), !.ghost = rg(@)]
                    [] m.type = "Write" -> [m EXCEPT !.ghost = rg(@)]
                    [] m.type = "Replicate" -> [m EXCEPT !.holder = rh(@), !.queue = rq(@)]
                    [] OTHER -> m
    IN  IF ~(Concrete(net) /\ Concrete(queue) /\ Concrete(holder) /\ Concrete(request)
             /\ Concrete(acquired)) THEN <<>> ELSE
        <<RankedWorld(rg, rv, msg),
          mode, [s \in Servers |-> rq(queue[s])], [s \in Servers |-> rh(holder[s])], replicating,
          phase, left, [c \in ClientIds |-> rv(request[c])], [c \in ClientIds |-> rg(acquired[c])],
          coord, rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in AllNodes : timers[n] = NoTimers /\ watches[n] = NoTimers
    /\ history \subseteq {"StaleWrite"}
    /\ mode \in [Servers -> {"Coordinator", "Standby", "Retired"}]
    /\ replicating \in [Servers -> BOOLEAN]
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Done"}]
    /\ coord \in [ClientIds -> Servers]

MutualExclusion == Cardinality(Holding) <= 1

NoStaleWrite == "StaleWrite" \notin history

\* A RELEASE frees only the holder's own request: the flag is never raised.
NoForeignRelease == TRUE

Granted(c) == c \in Wanting /\ c \notin Wanting'

DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
