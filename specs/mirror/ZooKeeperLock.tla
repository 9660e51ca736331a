---------------------------- MODULE ZooKeeperLock ----------------------------
(***************************************************************************)
(* The lock recipes of Apache ZooKeeper's "Recipes and Solutions" page     *)
(* (Locks; Shared Locks), on one ensemble treated as a single              *)
(* linearizable server, with the sessions and ephemeral nodes of the       *)
(* ZooKeeper Programmer's Guide ("ZooKeeper Sessions", "Ephemeral Nodes",  *)
(* "ZooKeeper Watches", "Time in ZooKeeper": zxid, czxid).                 *)
(*                                                                         *)
(* Locks, as the Recipes page gives them:                                  *)
(*  1. create "<lock>/lock-" with the sequence and ephemeral flags;        *)
(*  2. getChildren on the lock node without the watch flag;                *)
(*  3. if the node created in 1 has the lowest sequence number, the        *)
(*     client has the lock;                                                *)
(*  4. otherwise exists() with the watch flag on the node with the next    *)
(*     lowest sequence number;                                             *)
(*  5. if exists() returns null, go to 2; otherwise wait for a             *)
(*     notification and go to 2.                                           *)
(* Watch = "all" is the form the page warns against (the herd effect):     *)
(* getChildren with a watch, woken by every change under the lock node.    *)
(* Shared Locks: readers create "read-" nodes and wait only for lower      *)
(* "write-" nodes; writers create "write-" nodes and wait for any lower    *)
(* node.                                                                   *)
(*                                                                         *)
(* Sessions: a client opens one (Connect) and keeps it alive with every    *)
(* request, pings included; the ensemble expires it SessionTimeout ticks   *)
(* after the last, deletes its ephemeral nodes (firing their watches) and  *)
(* answers SESSION_EXPIRED to any later request on it. A "naive" client    *)
(* learns of the expiry only from that answer; a "curator" client (Apache  *)
(* Curator) also treats the connection as SUSPENDED after SuspendAfter     *)
(* ticks without an answer, and checks it (Check) before using the lock.   *)
(* Node names carry Curator's protection prefix (the attempt's guid), so a *)
(* client whose create timed out finds its node with getChildren. Every    *)
(* request has a timeout (Timeout). Fencing: the resource rejects a write  *)
(* whose czxid is lower than one it accepted.                              *)
(*                                                                         *)
(* Mirrors src/algorithms/zookeeper/ (with src/algorithms/common/client.rs and *)
(* src/algorithms/common/resource.rs) in the world of src/world/mod.rs, action    *)
(* for action: Acquire, Check, Write, Read; the ensemble's handlers and    *)
(* SessionExpiry; the client's handlers and timers; the resource; then the *)
(* world: Tick, Crash, Restart, Pause. For the constants of a scenario,    *)
(* TLC must find as many distinct states as the Rust checker (docs/design.md *)
(* section 10; specs/README.md records both). Variables and Rust fields:   *)
(*   the world's variables (World.tla): status, pause, timers, net,        *)
(*     spent, ghost, history; drawn is WorldState::value (the last fresh   *)
(*     value: session ids and guids)                                       *)
(*   zxid, sessions, children, dwatches, cwatches: Ensemble (children as a *)
(*     set of [czxid, mode, guid, session, ghost]; watches as sets)        *)
(*   phase, left, session, value, node, wait, target, checked, acquired:   *)
(*     Client (acquired is Client::ghost; ghost is the world's counter)    *)
(*   max_token, max_ghost: Resource                                        *)
(* Ensemble timers are named by their session slot (Timer::SessionExpiry   *)
(* { slot }); client timers "Ping", "Timeout", "Suspend", "Retry".         *)
(* The world (time, network, faults, fairness) is World.tla's; this module *)
(* supplies the handlers. Not modelled (the ASSUME refuses them, as the    *)
(* Rust module does): faults of the ensemble, clock drift and jumps,       *)
(* partitions, loss, duplication, reordering, and recovery = "none".       *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    Clients,        \* [system] clients
    Recipe,         \* [system] recipe: "lock" or "rwlock"
    Readers,        \* [system] readers: clients 1..Readers read (rwlock)
    Watch,          \* [system] watch: "predecessor" or "all"
    SessionTimeout, \* [system] session_timeout, in the ensemble's ticks
    PingEvery,      \* [system] ping: ticks between a client's pings
    Client,         \* [system] client: "naive" or "curator"
    SuspendAfter,   \* [system] suspend_after: Curator's connection timeout
    Fencing,        \* [system] fencing: the resource checks the czxid
    Timeout,        \* [system] timeout: the request timeout, client ticks
    Retry,          \* [system] retry: ticks before trying again
    Acquisitions    \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..4 /\ Recipe \in {"lock", "rwlock"} /\ Readers \in 0..Clients
       /\ Watch \in {"predecessor", "all"} /\ SessionTimeout \in 2..30
       /\ PingEvery \in 1..SessionTimeout - 1 /\ Client \in {"naive", "curator"}
       /\ SuspendAfter \in 1..30 /\ Fencing \in BOOLEAN /\ Timeout \in 1..30
       /\ Retry \in 1..10 /\ Acquisitions \in 0..5
       \* The world's faults this family models: client crashes and pauses
       \* (the ensemble is never faulted), and delay.
       /\ Targets = "clients" /\ Recovery = "eventual"
       /\ ClockJumps = 0 /\ MaxDrift = 0 /\ Partitions = 0 /\ ~Loss /\ ~Duplication

Ensemble == 0
ClientIds == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1
Links == AllNodes \X AllNodes
Curator == Client = "curator"

\* Session slots on the ensemble: one per client, plus one per crash the
\* budget allows (Params::slots).
SlotsPer == 1 + Crashes
Slots == 0..Clients * SlotsPer - 1
SlotsOf(c) == (c - 1) * SlotsPer..c * SlotsPer - 1
SlotOwner(slot) == slot \div SlotsPer + 1
\* Timer names by node: the ensemble's are its session slots.
TimersOf(n) == IF n = Ensemble THEN Slots ELSE {"Ping", "Timeout", "Suspend", "Retry"}

Mode(c) == IF Recipe = "lock" THEN "Exclusive" ELSE IF c <= Readers THEN "Read" ELSE "Write"
\* A lower node of mode m keeps a client of mode m0 waiting.
BlockedBy(m0, m) == m0 # "Read" \/ m # "Read"

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max(S) == CHOOSE x \in S : \A y \in S : x >= y
RECURSIVE Sorted(_)
Sorted(S) == IF S = {} THEN <<>> ELSE <<Min(S)>> \o Sorted(S \ {Min(S)})

\* The world's view of the nodes (World.tla's hooks).
Role(n) == CASE n = Ensemble -> "server" [] n = Resource -> "observer" [] OTHER -> "client"
\* No stopwatches in this family.
Cap(n, w) == 0
MayPause(n) == TRUE

VARIABLES
    zxid,       \* the last zxid handed out
    sessions,   \* sessions[slot]: a session id, 0 for a free slot
    children,   \* the children of /lock: [czxid, mode, guid, session, ghost]
    dwatches,   \* exists watches: <<watched czxid, watching session>>
    cwatches,   \* getChildren watches: watching sessions
    phase, left,
    session,    \* session[c]: the client's session id, 0 for none
    value,      \* value[c]: the attempt's guid, 0 between attempts
    node,       \* node[c]: the czxid of c's node, 0 while unknown
    wait,       \* wait[c]: Idle, Creating, Listing, Checking, Watching
    target,     \* target[c]: the czxid watched (predecessor), 0 for none
    checked,    \* checked[c]: Curator checked its connection
    acquired,   \* acquired[c]: the ghost number of c's node when it holds
    max_token, max_ghost

\* The world's variables no handler changes.
fixed == <<status, pause, skew, watches, cut, spent>>
ensembleVars == <<zxid, sessions, children, dwatches, cwatches>>
clientVars == <<phase, left, session, value, node, wait, target, checked, acquired>>
resourceVars == <<max_token, max_ghost>>
algVars == <<zxid, sessions, children, dwatches, cwatches,
             phase, left, session, value, node, wait, target, checked, acquired,
             max_token, max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* Sending (World.tla's Send), several messages in turn.                   *)

\* Sends a sequence of <<dst, msg>> pairs, in order.
RECURSIVE SendEach(_, _, _)
SendEach(q, src, ms) ==
    IF ms = <<>> THEN q ELSE SendEach(Send(q, src, Head(ms)[1], Head(ms)[2]), src, Tail(ms))

-----------------------------------------------------------------------------
(* The lock view (properties.rs, src/algorithms/zookeeper/mod.rs's lock_view). *)

Unchecked(c) == Curator /\ ~checked[c]
Connected(c) == IsSet(c, "Suspend") /\ timers[c]["Suspend"] > 0
Holds(c) == \/ phase[c] = "Holding" /\ (~Unchecked(c) \/ Connected(c))
            \/ phase[c] = "Writing"
Wants(c) == phase[c] \in {"Want", "Acquiring"} \/ (phase[c] = "Holding" /\ Unchecked(c))
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

-----------------------------------------------------------------------------
(* The client's helpers.                                                   *)

\* Client::forget, with the phase.
Forget(c, ph) ==
    /\ phase' = [phase EXCEPT ![c] = ph]
    /\ value' = [value EXCEPT ![c] = 0]
    /\ node' = [node EXCEPT ![c] = 0]
    /\ wait' = [wait EXCEPT ![c] = "Idle"]
    /\ target' = [target EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

\* retry_later: the attempt is lost; try again after the back-off.
RetryLater(c, tm) ==
    /\ Forget(c, "Want")
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]
    /\ UNCHANGED left

\* The requests of c's current attempt.
GetChildrenMsg(c) == [type |-> "GetChildren", session |-> session[c], value |-> value[c],
                      watch |-> Watch = "all"]
DeleteMsg(c) == [type |-> "Delete", session |-> session[c], value |-> value[c], node |-> node[c]]

\* list: the recipe's step 2. q, tm: the network and c's timers so far.
List(c, q, tm) ==
    /\ net' = Send(q, c, Ensemble, GetChildrenMsg(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Timeout", Timeout)]
    /\ wait' = [wait EXCEPT ![c] = "Listing"]
    /\ target' = [target EXCEPT ![c] = 0]

\* release: delete the node.
Release(c, q, tm) ==
    /\ net' = Send(q, c, Ensemble, DeleteMsg(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]

\* give_up (Curator): delete the node without waiting, try again later.
GiveUp(c, q, tm) ==
    /\ net' = Send(q, c, Ensemble, DeleteMsg(c))
    /\ RetryLater(c, tm)

\* released: the delete is answered: want again, or close the session and
\* stop. q, tm: the network and c's timers so far; s: c's session now.
Released(c, q, tm, s) ==
    LET ph == IF Acquisitions = 0 THEN "Want" ELSE IF left[c] = 1 THEN "Done" ELSE "Want"
        closing == ph = "Done" /\ s # 0
    IN
    /\ left' = IF Acquisitions = 0 THEN left ELSE [left EXCEPT ![c] = @ - 1]
    /\ Forget(c, ph)
    /\ net' = IF closing THEN Send(q, c, Ensemble, [type |-> "CloseSession", session |-> s]) ELSE q
    /\ timers' = [timers EXCEPT ![c] =
                    IF closing THEN CancelTimer(CancelTimer(tm, "Ping"), "Suspend") ELSE tm]
    /\ session' = [session EXCEPT ![c] = IF closing THEN 0 ELSE s]

-----------------------------------------------------------------------------
(* Client steps. Check, Write and Read are urgent; Acquire is not (a       *)
(* client comes to want the lock, and retries, at any moment; weakly       *)
(* fair).                                                                  *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == phase[c] = "Holding" /\ Unchecked(c)
CanWrite(c) == phase[c] = "Holding" /\ ~Unchecked(c) /\ Mode(c) # "Read"
CanRead(c) == phase[c] = "Holding" /\ ~Unchecked(c) /\ Mode(c) = "Read"
HasUrgentStep(n) == n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n) \/ CanRead(n))

\* Acquire: connect if there is no session (a fresh id), then create the
\* node (a fresh guid), with a timeout.
Acquire(c) ==
    LET new == session[c] = 0
        s == IF new THEN drawn + 1 ELSE session[c]
        v == IF new THEN drawn + 2 ELSE drawn + 1
        create == [type |-> "Create", session |-> s, value |-> v, mode |-> Mode(c)]
        tm0 == IF new THEN SetTimer(timers[c], "Ping", PingEvery) ELSE timers[c]
        tm1 == IF new /\ Curator THEN SetTimer(tm0, "Suspend", SuspendAfter) ELSE tm0
    IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ session' = [session EXCEPT ![c] = s]
    /\ value' = [value EXCEPT ![c] = v]
    /\ net' = IF new
              THEN Send(Send(net, c, Ensemble, [type |-> "Connect", session |-> s]), c, Ensemble, create)
              ELSE Send(net, c, Ensemble, create)
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm1, "Timeout", Timeout)]
    /\ wait' = [wait EXCEPT ![c] = "Creating"]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, ensembleVars, left, node, target, checked,
                   acquired, resourceVars>>

\* Check (Curator): is the connection still there? Only then use the lock.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF Connected(c)
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ UNCHANGED <<timers, net, phase, left, value, node, wait, target, acquired>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, session, resourceVars>>

\* Write: the critical section's write, with the czxid if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, Resource, [type |-> "Write", token |-> IF Fencing THEN node[c] ELSE 0,
                                      ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, ensembleVars,
                   left, session, value, node, wait, target, checked, acquired, resourceVars>>

\* Read: a reader's critical section; then it deletes its node.
Read(c) ==
    /\ Up(c) /\ CanRead(c)
    /\ Release(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars,
                   left, session, value, node, wait, target, checked, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The ensemble (ensemble_receive): one request at a time, in order. Every *)
(* request on a live session resets its expiry; a request on any other     *)
(* session is answered SESSION_EXPIRED (closeSession: not at all).         *)

Owner(s) == SlotOwner(CHOOSE slot \in Slots : sessions[slot] = s)
SlotOf(c, s) == CHOOSE slot \in SlotsOf(c) : sessions[slot] = s
Live(c, s) == \E slot \in SlotsOf(c) : sessions[slot] = s
Listing(ch) == {[czxid |-> z.czxid, mode |-> z.mode, guid |-> z.guid] : z \in ch}

\* The events of the exists watches on node n (dw: the watches), by session.
NodeDeletedEvents(dw, n) ==
    LET ws == Sorted({w[2] : w \in {x \in dw : x[1] = n}})
    IN [i \in 1..Len(ws) |-> <<Owner(ws[i]), [type |-> "NodeDeleted", session |-> ws[i], node |-> n]>>]
\* The events of the getChildren watches cw, by session.
ChildrenChangedEvents(cw) ==
    LET ws == Sorted(cw)
    IN [i \in 1..Len(ws) |-> <<Owner(ws[i]), [type |-> "NodeChildrenChanged", session |-> ws[i]]>>]

\* A session ends (ss: the sessions after it ended): its watches go, then
\* its nodes are deleted in czxid order, firing the exists watches on each
\* and, at the first, every getChildren watch. q: the network so far.
CloseSession(s, ss, q, tm) ==
    LET dw == {w \in dwatches : w[2] # s}
        cw == cwatches \ {s}
        gone == {z \in children : z.session = s}
        order == Sorted({z.czxid : z \in gone})
        events == IF order = <<>> THEN <<>>
                  ELSE NodeDeletedEvents(dw, order[1]) \o ChildrenChangedEvents(cw)
                       \o LET rest == [i \in 1..Len(order) - 1 |-> order[i + 1]]
                          IN IF rest = <<>> THEN <<>>
                             ELSE NodeDeletedEvents(dw, rest[1])
    IN
    /\ sessions' = ss
    /\ children' = children \ gone
    /\ dwatches' = {w \in dw : w[1] \notin {z.czxid : z \in gone}}
    /\ cwatches' = IF gone = {} THEN cw ELSE {}
    /\ net' = SendEach(q, Ensemble, events)
    /\ timers' = tm
    /\ UNCHANGED zxid

Reply(src, m) == Send(Pop(src, Ensemble), Ensemble, src, m)
Touch(src, s) == [timers EXCEPT ![Ensemble] = SetTimer(@, SlotOf(src, s), SessionTimeout)]

ReceiveConnect(src) ==
    LET m == Msg(src, Ensemble)
        free == {slot \in SlotsOf(src) : sessions[slot] = 0}
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "Connect"
    /\ IF free = {} THEN UNCHANGED <<sessions, timers>>
       ELSE /\ sessions' = [sessions EXCEPT ![Min(free)] = m.session]
            /\ timers' = [timers EXCEPT ![Ensemble] = SetTimer(@, Min(free), SessionTimeout)]
    /\ net' = Pop(src, Ensemble)
    /\ UNCHANGED <<fixed, ghost, drawn, history, zxid, children, dwatches, cwatches,
                   clientVars, resourceVars>>

Requests == {"Create", "GetChildren", "Exists", "Delete", "Ping", "CloseSession"}

\* A request on a session that is not live.
ReceiveOnExpired(src) ==
    LET m == Msg(src, Ensemble) IN
    /\ Deliverable(src, Ensemble) /\ m.type \in Requests /\ ~Live(src, m.session)
    /\ net' = IF m.type = "CloseSession" THEN Pop(src, Ensemble)
              ELSE Reply(src, [type |-> "SessionExpired", session |-> m.session])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, ensembleVars, clientVars, resourceVars>>

\* create: the next zxid; the getChildren watches fire before the answer.
ReceiveCreate(src) ==
    LET m == Msg(src, Ensemble)
        z == zxid + 1
        g == ghost + 1
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "Create" /\ Live(src, m.session)
    /\ zxid' = z
    /\ ghost' = g
    /\ children' = children \cup {[czxid |-> z, mode |-> m.mode, guid |-> m.value,
                                   session |-> m.session, ghost |-> g]}
    /\ cwatches' = {}
    /\ net' = Send(SendEach(Pop(src, Ensemble), Ensemble, ChildrenChangedEvents(cwatches)),
                   Ensemble, src, [type |-> "Created", value |-> m.value, node |-> z])
    /\ timers' = Touch(src, m.session)
    /\ UNCHANGED <<fixed, drawn, history, sessions, dwatches, clientVars, resourceVars>>

ReceiveGetChildren(src) ==
    LET m == Msg(src, Ensemble)
        mine == {z \in children : z.guid = m.value}
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "GetChildren" /\ Live(src, m.session)
    /\ cwatches' = IF m.watch THEN cwatches \cup {m.session} ELSE cwatches
    /\ net' = Reply(src, [type |-> "Children", value |-> m.value, children |-> Listing(children),
                          ghost |-> IF mine = {} THEN 0 ELSE (CHOOSE z \in mine : TRUE).ghost])
    /\ timers' = Touch(src, m.session)
    /\ UNCHANGED <<fixed, ghost, drawn, history, zxid, sessions, children, dwatches,
                   clientVars, resourceVars>>

\* exists with a watch (left out on a node that is gone: a sequential name
\* is never reused, so it could never fire).
ReceiveExists(src) ==
    LET m == Msg(src, Ensemble)
        exists == \E z \in children : z.czxid = m.node
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "Exists" /\ Live(src, m.session)
    /\ dwatches' = IF exists THEN dwatches \cup {<<m.node, m.session>>} ELSE dwatches
    /\ net' = Reply(src, [type |-> "Stat", value |-> m.value, exists |-> exists])
    /\ timers' = Touch(src, m.session)
    /\ UNCHANGED <<fixed, ghost, drawn, history, zxid, sessions, children, cwatches,
                   clientVars, resourceVars>>

\* delete by path: the exists watches on the node fire, then every
\* getChildren watch, then the answer.
ReceiveDelete(src) ==
    LET m == Msg(src, Ensemble)
        gone == {z \in children : z.czxid = m.node}
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "Delete" /\ Live(src, m.session)
    /\ IF gone = {}
       THEN /\ net' = Reply(src, [type |-> "Deleted", value |-> m.value])
            /\ UNCHANGED <<history, children, dwatches, cwatches>>
       ELSE /\ children' = children \ gone
            /\ history' = IF \E z \in gone : z.session # m.session
                          THEN history \cup {"ForeignRelease"} ELSE history
            /\ dwatches' = {w \in dwatches : w[1] # m.node}
            /\ cwatches' = {}
            /\ net' = Send(SendEach(Pop(src, Ensemble), Ensemble,
                                   NodeDeletedEvents(dwatches, m.node) \o ChildrenChangedEvents(cwatches)),
                           Ensemble, src, [type |-> "Deleted", value |-> m.value])
    /\ timers' = Touch(src, m.session)
    /\ UNCHANGED <<fixed, ghost, drawn, zxid, sessions, clientVars, resourceVars>>

ReceivePing(src) ==
    LET m == Msg(src, Ensemble) IN
    /\ Deliverable(src, Ensemble) /\ m.type = "Ping" /\ Live(src, m.session)
    /\ net' = Reply(src, [type |-> "Pong", session |-> m.session])
    /\ timers' = Touch(src, m.session)
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, clientVars, resourceVars>>

ReceiveCloseSession(src) ==
    LET m == Msg(src, Ensemble)
        slot == SlotOf(src, m.session)
    IN
    /\ Deliverable(src, Ensemble) /\ m.type = "CloseSession" /\ Live(src, m.session)
    /\ CloseSession(m.session, [sessions EXCEPT ![slot] = 0], Pop(src, Ensemble),
                    [timers EXCEPT ![Ensemble] = CancelTimer(@, slot)])
    /\ UNCHANGED <<fixed, ghost, drawn, history, clientVars, resourceVars>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive). A Curator client's Suspend      *)
(* timer restarts at every message from the ensemble while it has a        *)
(* session, whether or not the handler then takes the message.             *)

Heard(c, src) ==
    IF Curator /\ session[c] # 0 /\ src = Ensemble
    THEN SetTimer(timers[c], "Suspend", SuspendAfter) ELSE timers[c]

Acquiring(c) == phase[c] = "Acquiring"

ClientTakes(c, m) ==
    \/ m.type = "Created" /\ Acquiring(c) /\ m.value = value[c] /\ wait[c] = "Creating"
    \/ m.type = "Children" /\ Acquiring(c) /\ m.value = value[c] /\ wait[c] = "Listing"
    \/ m.type = "Stat" /\ Acquiring(c) /\ m.value = value[c] /\ wait[c] = "Checking"
    \/ m.type = "NodeDeleted" /\ Acquiring(c) /\ m.session = session[c] /\ wait[c] = "Watching"
       /\ m.node = target[c]
    \/ m.type = "NodeChildrenChanged" /\ Acquiring(c) /\ m.session = session[c]
       /\ wait[c] = "Watching"
    \/ m.type \in {"Accepted", "Rejected"} /\ phase[c] = "Writing"
    \/ m.type = "Deleted" /\ phase[c] = "Releasing" /\ m.value = value[c]
    \/ m.type = "SessionExpired" /\ m.session = session[c]

ReceiveCreated(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c) /\ m.type = "Created" /\ ClientTakes(c, m)
    /\ node' = [node EXCEPT ![c] = m.node]
    /\ List(c, Pop(src, c), Heard(c, src))
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars,
                   phase, left, session, value, checked, acquired, resourceVars>>

\* decide: hold when no lower node blocks; else watch.
ReceiveChildren(src, c) ==
    LET m == Msg(src, c)
        tm == CancelTimer(Heard(c, src), "Timeout")
        mine == {ch \in m.children : ch.guid = value[c]}
        me == CHOOSE ch \in mine : TRUE
        below == {ch.czxid : ch \in {x \in m.children : x.czxid < me.czxid /\ BlockedBy(Mode(c), x.mode)}}
    IN
    /\ Deliverable(src, c) /\ m.type = "Children" /\ ClientTakes(c, m)
    /\ IF mine = {}
       THEN /\ RetryLater(c, tm)
            /\ net' = Pop(src, c)
       ELSE /\ node' = [node EXCEPT ![c] = me.czxid]
            /\ CASE below = {} ->
                      /\ wait' = [wait EXCEPT ![c] = "Idle"]
                      /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
                      /\ phase' = [phase EXCEPT ![c] = "Holding"]
                      /\ net' = Pop(src, c)
                      /\ timers' = [timers EXCEPT ![c] = tm]
                      /\ UNCHANGED target
                 [] Watch = "all" ->
                      /\ wait' = [wait EXCEPT ![c] = "Watching"]
                      /\ net' = Pop(src, c)
                      /\ timers' = [timers EXCEPT ![c] = tm]
                      /\ UNCHANGED <<phase, acquired, target>>
                 [] OTHER ->
                      /\ target' = [target EXCEPT ![c] = Max(below)]
                      /\ net' = Send(Pop(src, c), c, Ensemble,
                                     [type |-> "Exists", session |-> session[c], value |-> value[c],
                                      node |-> Max(below)])
                      /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Timeout", Timeout)]
                      /\ wait' = [wait EXCEPT ![c] = "Checking"]
                      /\ UNCHANGED <<phase, acquired>>
            /\ UNCHANGED <<value, checked, left>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, session, resourceVars>>

ReceiveStat(src, c) ==
    LET m == Msg(src, c)
        tm == CancelTimer(Heard(c, src), "Timeout")
    IN
    /\ Deliverable(src, c) /\ m.type = "Stat" /\ ClientTakes(c, m)
    /\ IF m.exists
       THEN /\ wait' = [wait EXCEPT ![c] = "Watching"]
            /\ net' = Pop(src, c)
            /\ timers' = [timers EXCEPT ![c] = tm]
            /\ UNCHANGED target
       ELSE List(c, Pop(src, c), tm)
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars,
                   phase, left, session, value, node, checked, acquired, resourceVars>>

\* A watch fired: back to the recipe's step 2.
ReceiveWatchedEvent(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c) /\ m.type \in {"NodeDeleted", "NodeChildrenChanged"} /\ ClientTakes(c, m)
    /\ List(c, Pop(src, c), Heard(c, src))
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars,
                   phase, left, session, value, node, checked, acquired, resourceVars>>

\* The write is answered: the critical section is over; delete the node.
ReceiveWriteAnswer(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c) /\ m.type \in {"Accepted", "Rejected"} /\ ClientTakes(c, m)
    /\ Release(c, Pop(src, c), Heard(c, src))
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars,
                   left, session, value, node, wait, target, checked, acquired, resourceVars>>

ReceiveDeleted(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c) /\ m.type = "Deleted" /\ ClientTakes(c, m)
    /\ Released(c, Pop(src, c), CancelTimer(Heard(c, src), "Timeout"), session[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, resourceVars>>

\* The session is gone, and the node with it.
ReceiveSessionExpired(src, c) ==
    LET m == Msg(src, c)
        tm == CancelTimer(CancelTimer(Heard(c, src), "Ping"), "Suspend")
    IN
    /\ Deliverable(src, c) /\ m.type = "SessionExpired" /\ ClientTakes(c, m)
    /\ CASE phase[c] \in {"Acquiring", "Holding", "Writing"} ->
              /\ RetryLater(c, CancelTimer(tm, "Timeout"))
              /\ net' = Pop(src, c)
              /\ session' = [session EXCEPT ![c] = 0]
         [] phase[c] = "Releasing" ->
              Released(c, Pop(src, c), CancelTimer(tm, "Timeout"), 0)
         [] OTHER ->
              /\ timers' = [timers EXCEPT ![c] = tm]
              /\ net' = Pop(src, c)
              /\ session' = [session EXCEPT ![c] = 0]
              /\ UNCHANGED <<phase, left, value, node, wait, target, checked, acquired>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, resourceVars>>

-----------------------------------------------------------------------------
(* The protected resource (resource.rs).                                   *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ IF Fencing /\ m.token < max_token
       THEN /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
            /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, ensembleVars, clientVars>>

-----------------------------------------------------------------------------
(* Delivery: the head of a link reaches its running destination.           *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst = Ensemble -> m.type \in Requests \cup {"Connect"}
      [] dst = Resource -> m.type = "Write"
      [] OTHER -> ClientTakes(dst, m)

\* A message the handler ignores leaves the link (and a Curator client
\* still hears from the ensemble).
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ timers' = IF dst \in ClientIds THEN [timers EXCEPT ![dst] = Heard(dst, src)] ELSE timers
    /\ UNCHANGED <<fixed, ghost, drawn, history, ensembleVars, clientVars, resourceVars>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ /\ dst = Ensemble
          /\ \/ ReceiveConnect(src) \/ ReceiveOnExpired(src) \/ ReceiveCreate(src)
             \/ ReceiveGetChildren(src) \/ ReceiveExists(src) \/ ReceiveDelete(src)
             \/ ReceivePing(src) \/ ReceiveCloseSession(src)
       \/ /\ dst \in ClientIds
          /\ \/ ReceiveCreated(src, dst) \/ ReceiveChildren(src, dst) \/ ReceiveStat(src, dst)
             \/ ReceiveWatchedEvent(src, dst) \/ ReceiveWriteAnswer(src, dst)
             \/ ReceiveDeleted(src, dst) \/ ReceiveSessionExpired(src, dst)
       \/ dst = Resource /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (on_timer): a running node's timer, run down to zero, fires; the *)
(* world removes it first.                                                 *)

\* SessionExpiry: the session in this slot expires.
SessionExpiry(slot, rest) ==
    /\ CloseSession(sessions[slot], [sessions EXCEPT ![slot] = 0], net, rest)
    /\ UNCHANGED <<clientVars>>

\* Timeout: an acquiring client lists again; a releasing one deletes again.
ClientTimer(c, t, rest) ==
    CASE t = "Ping" /\ session[c] # 0 ->
           /\ net' = Send(net, c, Ensemble, [type |-> "Ping", session |-> session[c]])
           /\ timers' = [rest EXCEPT ![c] = SetTimer(@, "Ping", PingEvery)]
           /\ UNCHANGED clientVars
      [] t = "Timeout" /\ phase[c] = "Acquiring" ->
           /\ List(c, net, rest[c])
           /\ UNCHANGED <<phase, left, session, value, node, checked, acquired>>
      [] t = "Timeout" /\ phase[c] = "Releasing" ->
           /\ net' = Send(net, c, Ensemble, DeleteMsg(c))
           /\ timers' = [rest EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
           /\ UNCHANGED clientVars
      [] t = "Suspend" /\ phase[c] = "Holding" /\ ~checked[c] ->
           /\ GiveUp(c, net, rest[c])
           /\ UNCHANGED session
      [] OTHER ->
           /\ timers' = rest
           /\ UNCHANGED <<net, clientVars>>

Fire(n, t) ==
    LET rest == Expired(n, t) IN
    /\ Up(n) /\ Due(n, t)
    /\ IF n = Ensemble
       THEN SessionExpiry(t, rest)
       ELSE /\ ClientTimer(n, t, rest)
            /\ UNCHANGED ensembleVars
    /\ UNCHANGED <<fixed, ghost, drawn, history, resourceVars>>

-----------------------------------------------------------------------------
(* The world (World.tla): time, client crashes, restarts, pauses. Only     *)
(* Restart touches the algorithm's state.                                  *)

Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars
Pause(c, k) == WorldPause(c, k, Role, MayPause) /\ UNCHANGED algVars

\* Fault: a client stops and loses its timers. It keeps its state only for
\* the restart; its session lives on until it expires.
Crash(c) == WorldCrash(c, NoTimers, Role) /\ UNCHANGED algVars

\* A crashed client restarts afresh, with no session.
Restart(c) ==
    /\ c \in ClientIds
    /\ WorldRestart(c)
    /\ left' = [left EXCEPT ![c] = Acquisitions]
    /\ session' = [session EXCEPT ![c] = 0]
    /\ Forget(c, "Want")
    /\ timers' = [timers EXCEPT ![c] = NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history, ensembleVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ zxid = 0
    /\ sessions = [s \in Slots |-> 0]
    /\ children = {} /\ dwatches = {} /\ cwatches = {}
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ session = [c \in ClientIds |-> 0]
    /\ value = [c \in ClientIds |-> 0]
    /\ node = [c \in ClientIds |-> 0]
    /\ wait = [c \in ClientIds |-> "Idle"]
    /\ target = [c \in ClientIds |-> 0]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0 /\ max_ghost = 0

Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c) \/ Read(c)
    \/ \E n \in AllNodes : \E t \in TimersOf(n) : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E c \in ClientIds : Restart(c)
    \/ \E c \in ClientIds : Crash(c)
    \/ \E c \in ClientIds, k \in MinPause..MaxPause : Pause(c, k)

\* docs/design.md §5, in World.tla's shape: weak fairness for Tick, each
\* client step, each timer, each link's delivery and Restart; never for a
\* fault.
Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds : /\ WF_vars(Acquire(c)) /\ WF_vars(Check(c))
                            /\ WF_vars(Write(c)) /\ WF_vars(Read(c))
    /\ \A n \in AllNodes : \A t \in TimersOf(n) : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A c \in ClientIds : WF_vars(Restart(c))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank, src/world/ranks.rs): ghost numbers,      *)
(* fresh values (session ids, guids) and zxids are only compared, so Rust  *)
(* replaces each by its rank among the values of its kind present;         *)
(* RankedVars is that state.                                               *)

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds} \cup {z.ghost : z \in children}
      \cup {m.ghost : m \in {x \in InFlight : x.type \in {"Children", "Write"}}}
TokenValues ==
    {0, zxid, max_token} \cup {node[c] : c \in ClientIds} \cup {target[c] : c \in ClientIds}
      \cup {z.czxid : z \in children} \cup {w[1] : w \in dwatches}
      \cup {m.node : m \in {x \in InFlight : "node" \in DOMAIN x}}
      \cup {m.token : m \in {x \in InFlight : x.type = "Write"}}
      \cup UNION {{ch.czxid : ch \in m.children} : m \in {x \in InFlight : x.type = "Children"}}
FreshValues ==
    {0, drawn} \cup {sessions[s] : s \in Slots} \cup {session[c] : c \in ClientIds}
      \cup {value[c] : c \in ClientIds} \cup {z.guid : z \in children} \cup {z.session : z \in children}
      \cup {w[2] : w \in dwatches} \cup cwatches
      \cup {m.session : m \in {x \in InFlight : "session" \in DOMAIN x}}
      \cup {m.value : m \in {x \in InFlight : "value" \in DOMAIN x}}
      \cup UNION {{ch.guid : ch \in m.children} : m \in {x \in InFlight : x.type = "Children"}}

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        V == FreshValues
        rg(v) == Rank(v, G)
        rt(v) == Rank(v, T)
        rv(v) == Rank(v, V)
        ch(c) == [c EXCEPT !.czxid = rt(@), !.guid = rv(@)]
        msg(m) ==
            LET m1 == IF "session" \in DOMAIN m THEN [m EXCEPT !.session = rv(@)] ELSE m
                m2 == IF "value" \in DOMAIN m1 THEN [m1 EXCEPT !.value = rv(@)] ELSE m1
                m3 == IF "node" \in DOMAIN m2 THEN [m2 EXCEPT !.node = rt(@)] ELSE m2
                m4 == IF m3.type = "Write" THEN [m3 EXCEPT !.token = rt(@), !.ghost = rg(@)] ELSE m3
            IN IF m4.type = "Children"
               THEN [m4 EXCEPT !.ghost = rg(@), !.children = {ch(x) : x \in @}]
               ELSE m4
    IN  <<RankedWorld(rg, rv, msg),
          rt(zxid), [s \in Slots |-> rv(sessions[s])],
          {[z EXCEPT !.czxid = rt(@), !.guid = rv(@), !.session = rv(@), !.ghost = rg(@)] : z \in children},
          {<<rt(w[1]), rv(w[2])>> : w \in dwatches}, {rv(s) : s \in cwatches},
          phase, left, [c \in ClientIds |-> rv(session[c])], [c \in ClientIds |-> rv(value[c])],
          [c \in ClientIds |-> rt(node[c])], wait, [c \in ClientIds |-> rt(target[c])], checked,
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimersOf(n)
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ wait \in [ClientIds -> {"Idle", "Creating", "Listing", "Checking", "Watching"}]
    /\ sessions \in [Slots -> 0..drawn]
    /\ \A z \in children : z.czxid \in 1..zxid

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* Never a writer together with any other holder (readers may share).
RwExclusion == Cardinality(Holding) <= 1 \/ \A c \in Holding : Mode(c) = "Read"

NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

Granted(c) == c \in Wanting /\ c \notin Wanting'

DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
