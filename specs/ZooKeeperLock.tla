---------------------------- MODULE ZooKeeperLock ----------------------------
(***************************************************************************)
(* The ZooKeeper lock recipes (Locks, Shared Locks) run by N clients       *)
(* against one ZooKeeper ensemble, protecting a resource, in the world of  *)
(* World.tla. Written clean-room from the published sources only:          *)
(*                                                                         *)
(* [R] ZooKeeper "Recipes and Solutions", sections Locks, Recoverable      *)
(*     Errors and the GUID, Shared Locks (apache/zookeeper,                *)
(*     zookeeper-website/.../developer/recipes.mdx).                       *)
(* [S] ZooKeeper Programmer's Guide, Sessions: expiry is decided by the    *)
(*     cluster when it does not hear from the client for the session       *)
(*     timeout; at expiry it deletes the session's ephemeral nodes and     *)
(*     notifies the watchers; the expired client is told only when it      *)
(*     reaches the cluster again; PINGs keep an idle session alive; a      *)
(*     disconnect fails pending operations with CONNECTION_LOSS.           *)
(* [W] ZooKeeper Programmer's Guide, Watches: one-time triggers; exists()  *)
(*     sets a data watch, getChildren() a child watch; delete fires both;  *)
(*     events are ordered with replies on the connection; on reconnect the *)
(*     client re-registers its watches, which fire if needed.              *)
(* [Z] apache/zookeeper server source: DataTree.killSession (expiry deletes *)
(*     the session's ephemerals in one transaction), DataTree.setWatches   *)
(*     (NodeDeleted for a re-registered watch whose node is gone;          *)
(*     NodeChildrenChanged when the parent's pzxid is past the client's    *)
(*     last zxid), SessionTrackerImpl (every request and ping touches the  *)
(*     session), FinalRequestProcessor (watches are triggered before the   *)
(*     reply is sent).                                                     *)
(* [C] Apache Curator: LockInternals.attemptLock/internalLockLoop (create  *)
(*     with protection, getSortedChildren, watch the predecessor, retry    *)
(*     all on NoNode/expiry, guaranteed delete), ConnectionState javadoc   *)
(*     and Tech Note 12 (SUSPENDED on connection loss; in Curator 3.x LOST *)
(*     when the session timeout elapses while suspended, or on an Expired  *)
(*     answer), Shared Reentrant Lock docs ("If a SUSPENDED state is       *)
(*     reported you cannot be certain that you still hold the lock unless *)
(*     you subsequently receive a RECONNECTED state. If a LOST state is    *)
(*     reported it is certain that you no longer hold the lock").          *)
(* [K] M. Kleppmann, "How to do distributed locking" (2016): a client      *)
(*     paused (GC) past its session/lease keeps believing it holds the     *)
(*     lock and writes after another client acquired it; a fencing token   *)
(*     (ZooKeeper: the lock node's czxid or version) lets the storage      *)
(*     reject the late write.                                              *)
(*                                                                         *)
(* Nodes: 0 is the ensemble (one linearizable server, never faulted);      *)
(* 1..Clients are the clients c1..cN; Clients+1 is the resource, an        *)
(* observer node. Links: each client to and from the ensemble (the TCP     *)
(* connection of its session) and to and from the resource.               *)
(*                                                                         *)
(* Modelling choices, and why:                                             *)
(*  - Granularity: one TLA+ step per message handler or per client step,   *)
(*    as the server handles one request atomically (linearizable) and the  *)
(*    recipe is a sequence of synchronous calls. The ensemble's internal   *)
(*    replication (Zab) is abstracted: it is one linearizable server.      *)
(*  - Znodes: only the children of the lock node "_locknode_" (or the      *)
(*    shared-lock node) are modelled, each as [seq, owner, kind]. seq is   *)
(*    the czxid of the creating transaction; it also stands for the        *)
(*    sequential suffix, since both grow with every create in commit order *)
(*    and only their order is ever compared. zxid advances only at         *)
(*    creates: other transactions would only leave gaps.                   *)
(*  - The GUID of [R] is the session <<c, e>> that creates the node: unique *)
(*    per client incarnation and known to the client before the create.    *)
(*    After a create whose result is lost (CONNECTION_LOSS) the client     *)
(*    calls getChildren and adopts the node carrying its GUID, as [R] says. *)
(*  - Sessions are <<c, e>>, e drawn by the server at connect. The server's *)
(*    session timer <<c, e>> is reset to SessionTimeout by every request   *)
(*    and ping of that session; when it fires the session expires: its     *)
(*    ephemeral nodes are deleted and the watches on them fire [S][Z].     *)
(*    The server does not push "expired" to the client: the client learns  *)
(*    it from the answer to its next request, ping or reconnect [S].       *)
(*  - The connection: a client keeps the queue of its requests without an *)
(*    answer (pend; ZooKeeper's pendingQueue) and runs a "Timeout" timer   *)
(*    while it is not empty, re-armed by every answer. Answers come in     *)
(*    order on the connection; an answer that is not the one for the head *)
(*    of the queue means a message was lost, and the client drops the     *)
(*    connection, as ClientCnxn does on "Xid out of order" (the xid is     *)
(*    abstracted to the request's type, exact because a ping is sent only  *)
(*    when none is pending and the recipe has one call pending at a time). *)
(*    When the timer fires, or on such a mismatch, the connection is       *)
(*    considered broken (CONNECTION_LOSS):                                 *)
(*    pings stop, answers still in flight on the old connection are        *)
(*    discarded, and after a back-off of Retry ticks the library           *)
(*    reconnects, re-sending its session and its watch (SetWatches). On    *)
(*    reconnect the recipe re-issues its interrupted call; for create that *)
(*    is getChildren and the GUID check [R]; for delete it repeats the     *)
(*    delete (Curator's guaranteed delete, which the plain recipe also     *)
(*    needs to release at all). Loss of a message and a cut are the        *)
(*    world's faults; on TCP they break the connection (SEMANTICS.md), and *)
(*    the client sees them through the timeout, the out-of-order answer,   *)
(*    or a missing watch event: the server numbers the events it sends on *)
(*    a client's link (evCount) and every message carries the number so   *)
(*    far, so a client that finds one missing drops the connection and    *)
(*    re-registers its watch on reconnect. (Without this, a lost event     *)
(*    would strand a waiter for ever, which TCP does not allow.)           *)
(*  - Watches: the server keeps data watches <<session, seq>> (exists) and *)
(*    child watches (getChildren, Watch = "all"), one-shot. exists() on a  *)
(*    node already gone answers false and registers nothing: ZooKeeper     *)
(*    would register a creation watch, but a sequential name is never      *)
(*    created again, so it could never fire (Curator uses getData to avoid *)
(*    exactly this leak). On reconnect a data watch whose node is gone     *)
(*    fires at once [Z]; a child watch is re-fired unconditionally (the    *)
(*    pzxid comparison is abstracted: a spurious child event only makes    *)
(*    the recipe list the children again). All events of one transaction   *)
(*    for one session travel in one message.                               *)
(*  - Client "naive": a plain ZooKeeper client; it believes it holds the   *)
(*    lock from the getChildren answer that shows it lowest until it has   *)
(*    written and sent its delete, whatever happens to its connection; it  *)
(*    learns of expiry only from an Expired answer.                        *)
(*  - Client "curator": the connection state is a function of the          *)
(*    stopwatch "Heard" (ticks since the ensemble last answered): SUSPENDED *)
(*    once Heard >= SuspendAfter or the connection is broken, RECONNECTED  *)
(*    when an answer comes, LOST once Heard >= SuspendAfter +              *)
(*    SessionTimeout (or on an Expired answer), after which the session is *)
(*    abandoned. The holder checks the state (step Check) before it writes *)
(*    (step Write): two steps, because the window between them is what a   *)
(*    pause exploits. A suspended holder does not believe it holds.        *)
(*  - The resource: Write(token, acquisition) answered by Ack; with        *)
(*    Fencing it rejects a token lower than the highest it accepted. The   *)
(*    token is the lock node's czxid [K]. A holder waits for the Ack before *)
(*    it deletes its node, as a real client's synchronous write does.     *)
(*    With Recipe = "rwlock" a reader's use is a read: the resource        *)
(*    answers it and records nothing (no_stale_write is about writes).    *)
(*  - Acquisitions: an acquisition is counted when it is granted, and     *)
(*    numbered in the ensemble's order: the lock node's czxid (a client    *)
(*    that reads a stale answer after a pause holds under its own, older   *)
(*    node; SEMANTICS.md section 5, "Which order"). A holder               *)
(*    that learns its session is gone before writing does not write and    *)
(*    that acquisition ends (the lock was held, then lost). A client whose *)
(*    session dies while it waits starts over with a new session after the *)
(*    back-off, still wanting the lock (Curator's retry of attemptLock).   *)
(*    After its last acquisition a client closes its session.              *)
(*  - A client persists nothing: a crash loses its session (which the      *)
(*    server expires later) and its place in the recipe; on restart it     *)
(*    still owes its remaining acquisitions (the workload is the           *)
(*    scenario's, not the process's).                                      *)
(*  - Faults: the ensemble and the resource are never faulted; clients may *)
(*    crash, pause, jump their clocks, drift (World decides), and the      *)
(*    client-ensemble links may be cut, lose or duplicate messages.        *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Clients,        \* number of lock clients
    Recipe,         \* "lock" or "rwlock"
    Readers,        \* rwlock: c1..cReaders take read locks
    Watch,          \* "predecessor" or "all"
    SessionTimeout, \* ensemble ticks without a request before expiry
    PingEvery,      \* ticks between pings
    Client,         \* "naive" or "curator"
    SuspendAfter,   \* curator: ticks without an answer before SUSPENDED
    Fencing,        \* writes carry the czxid; the resource rejects lower ones
    Timeout,        \* per-request timeout (client ticks)
    Retry,          \* back-off after a lost attempt (client ticks)
    Acquisitions    \* per client; 0 = forever

ASSUME /\ Clients \in 1..5
       /\ Recipe \in {"lock", "rwlock"}
       /\ Readers \in 0..Clients /\ (Recipe = "lock" => Readers = 0)
       /\ Watch \in {"predecessor", "all"}
       /\ SessionTimeout \in 1..20 /\ PingEvery \in 1..20
       /\ Client \in {"naive", "curator"} /\ SuspendAfter \in 1..20
       /\ Fencing \in BOOLEAN
       /\ Timeout \in 1..20 /\ Retry \in 0..20
       /\ Acquisitions \in Nat
       \* the ensemble is never faulted: a drifting clock would be a fault of it
       /\ MaxDrift = 0 \/ Targets = "clients"

Server == 0
ClientSet == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1
Links == {<<c, Server>> : c \in ClientSet} \cup {<<Server, c>> : c \in ClientSet}
         \cup {<<c, Resource>> : c \in ClientSet} \cup {<<Resource, c>> : c \in ClientSet}

Role(n) == IF n = Server THEN "server" ELSE IF n = Resource THEN "observer" ELSE "client"
MayPause(n) == n \in ClientSet

Kind(c) == IF Recipe = "rwlock" /\ c <= Readers THEN "read" ELSE "write"
LostAfter == SuspendAfter + SessionTimeout
Cap(n, w) == IF w = "Heard" THEN LostAfter ELSE 0
Forever == Acquisitions = 0

VARIABLES
    \* the ensemble
    live,     \* live sessions <<c, e>>
    lastSess, \* lastSess[c]: the last session number the server gave c
    znodes,   \* children of the lock node: [seq, owner, kind]
    zxid,     \* the last czxid
    dataW,    \* data watches <<session, seq>> (exists with watch)
    childW,   \* child watches on the lock node: sessions (getChildren with watch)
    evCount,  \* evCount[c]: watch events the server has sent on c's link
    \* the clients
    phase,    \* where the client is in the recipe
    sess,     \* its session number (0: none)
    conn,     \* "none", "connecting", "connected", "lost", "reconnecting"
    mine,     \* the seq (czxid) of its lock node, 0 if none known
    watchOn,  \* the seq whose deletion it waits for (predecessor watch), 0
    pend,     \* the types of the requests sent on this connection and not
              \* yet answered, oldest first
    left,     \* acquisitions still to make (ignored when Forever)
    acq,      \* ghost number of its current acquisition, 0 if none
    evSeen,   \* the number of the last event it received on this connection
    \* the resource
    resTok,   \* the highest fencing token it accepted
    resAcq    \* the highest acquisition number it accepted a write from

serverVars == <<live, lastSess, znodes, zxid, dataW, childW, evCount>>
clientVars == <<phase, sess, conn, mine, watchOn, pend, left, acq, evSeen>>
resVars == <<resTok, resAcq>>
algVars == <<serverVars, clientVars, resVars>>
vars == <<worldVars, algVars>>

Phases == {"idle", "connect", "create", "children", "exists", "wait",
           "holding", "checked", "writing", "release"}
WantPhases == {"connect", "create", "children", "exists", "wait"}
ReqTypes == {"Connect", "Reconnect", "Ping", "Create", "GetChildren", "Exists", "Delete"}

\* The answer a to a request of type r (in order on the connection).
Answers(a, r) ==
    CASE a = "Connected" -> r \in {"Connect", "Reconnect"}
      [] a = "Pong" -> r = "Ping"
      [] a = "Created" -> r = "Create"
      [] a = "Children" -> r = "GetChildren"
      [] a = "Stat" -> r = "Exists"
      [] a \in {"Deleted", "NoNode"} -> r = "Delete"
      [] OTHER -> FALSE

-----------------------------------------------------------------------------
(* Messages. One record shape for all, so that any two can be compared.    *)

Mk(t, e) == [type |-> t, e |-> e, n |-> 0, b |-> FALSE, kind |-> "write",
             kids |-> {}, ds |-> {}, ev |-> 0]
MkN(t, e, n) == [Mk(t, e) EXCEPT !.n = n]
Env(m) == [msg |-> m, age |-> 0, copied |-> FALSE]

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS.md section 5).                                 *)

Session(c) == <<c, sess[c]>>
HeardFor(c) == IF Running(c, "Heard") THEN watches[c]["Heard"] ELSE 0
Suspended(c) == conn[c] # "connected" \/ HeardFor(c) >= SuspendAfter
IsLost(c) == Client = "curator" /\ sess[c] # 0 /\ Running(c, "Heard")
             /\ watches[c]["Heard"] >= LostAfter

\* A client believes it holds the lock from the step at which it may use it
\* until it has written and released. A curator holder that is SUSPENDED
\* does not use the lock, so does not believe it holds it until RECONNECTED.
Holds(c) ==
    \/ phase[c] = "writing"
    \/ phase[c] = "checked"
    \/ phase[c] = "holding" /\ (Client = "naive" \/ ~Suspended(c))
Wants(c) == phase[c] \in WantPhases
RunningClient(c) == status[c] # "Down"

\* No two clients hold at once, in any mode (the shared property of
\* docs/design.md §5: under Recipe = "rwlock" two readers violate it).
MutualExclusion ==
    \A c1, c2 \in ClientSet : c1 # c2 /\ Holds(c1) => ~Holds(c2)

\* The read-write lock's own exclusion: two clients hold at once only when
\* both are readers.
RWExclusion ==
    \A c1, c2 \in ClientSet :
        c1 # c2 /\ Holds(c1) /\ Holds(c2) => Kind(c1) = "read" /\ Kind(c2) = "read"
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

TypeOK ==
    /\ WorldTypeOK
    /\ live \subseteq (ClientSet \X Nat)
    /\ lastSess \in [ClientSet -> Nat]
    /\ \A k \in znodes : k.seq \in Nat \ {0} /\ k.owner \in ClientSet \X Nat
                         /\ k.kind \in {"read", "write"}
    /\ zxid \in Nat
    /\ \A w \in dataW : w[1] \in ClientSet \X Nat /\ w[2] \in Nat
    /\ childW \subseteq (ClientSet \X Nat)
    /\ evCount \in [ClientSet -> Nat] /\ evSeen \in [ClientSet -> Nat]
    /\ phase \in [ClientSet -> Phases]
    /\ sess \in [ClientSet -> Nat]
    /\ conn \in [ClientSet -> {"none", "connecting", "connected", "lost", "reconnecting"}]
    /\ mine \in [ClientSet -> Nat] /\ watchOn \in [ClientSet -> Nat]
    /\ pend \in [ClientSet -> Seq(ReqTypes)] /\ left \in [ClientSet -> Nat]
    /\ acq \in [ClientSet -> Nat]
    /\ resTok \in Nat /\ resAcq \in Nat

-----------------------------------------------------------------------------
(* Initial state.                                                          *)

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ live = {} /\ lastSess = [c \in ClientSet |-> 0]
    /\ znodes = {} /\ zxid = 0 /\ dataW = {} /\ childW = {}
    /\ evCount = [c \in ClientSet |-> 0] /\ evSeen = [c \in ClientSet |-> 0]
    /\ phase = [c \in ClientSet |-> "idle"]
    /\ sess = [c \in ClientSet |-> 0]
    /\ conn = [c \in ClientSet |-> "none"]
    /\ mine = [c \in ClientSet |-> 0]
    /\ watchOn = [c \in ClientSet |-> 0]
    /\ pend = [c \in ClientSet |-> <<>>]
    /\ left = [c \in ClientSet |-> Acquisitions]
    /\ acq = [c \in ClientSet |-> 0]
    /\ resTok = 0 /\ resAcq = 0

-----------------------------------------------------------------------------
(* The ensemble.                                                           *)

RECURSIVE SortNat(_)
SortNat(S) == IF S = {} THEN <<>>
              ELSE LET x == CHOOSE x \in S : \A y \in S : x <= y
                   IN <<x>> \o SortNat(S \ {x})

\* The watches a change fires: data watches on the deleted seqs D, and the
\* child watches when the children changed (childFire), except those of
\* session ex (a session being closed loses its watches).
Fired(s, D, childFire, ex) ==
    s # ex /\ ((\E d \in D : <<s, d>> \in dataW) \/ (childFire /\ s \in childW))
EventFor(s, D, childFire) ==
    [Mk("Event", s[2]) EXCEPT !.ds = {d \in D : <<s, d>> \in dataW},
                              !.b = childFire /\ s \in childW]

\* q with the events of the change sent to their clients, in session order,
\* ahead of anything the handler sends after (FinalRequestProcessor).
\* Events on a client's link are numbered (ev), so that the client notices
\* one that the network dropped: on TCP a dropped segment breaks the
\* connection instead (see the header).
Notified(c2, D, childFire, ex) == {e \in 0..lastSess[c2] : Fired(<<c2, e>>, D, childFire, ex)}
FireNet(q, D, childFire, ex) ==
    [l \in DOMAIN q |->
        IF l[1] = Server /\ l[2] \in ClientSet /\ status[l[2]] # "Down" /\ ~Cut(Server, l[2])
        THEN LET Es == SortNat(Notified(l[2], D, childFire, ex))
             IN q[l] \o [i \in 1..Len(Es) |->
                            Env([EventFor(<<l[2], Es[i]>>, D, childFire) EXCEPT
                                    !.ev = evCount[l[2]] + i])]
        ELSE q[l]]
EvAfter(D, childFire, ex) ==
    [c2 \in ClientSet |-> evCount[c2] + Cardinality(Notified(c2, D, childFire, ex))]

\* The watches left once they have fired.
DataWAfter(D, ex) == {w \in dataW : w[2] \notin D /\ w[1] # ex}
ChildWAfter(childFire, ex) == IF childFire THEN {} ELSE childW \ {ex}

Touch(s) == [timers EXCEPT ![Server] = SetTimer(@, s, SessionTimeout)]

\* Session s ends (expiry or close): its ephemeral nodes are deleted in one
\* transaction and the watches on them fire [S][Z]; q is the net so far.
EndSession(s, q, T) ==
    LET D == {k.seq : k \in {k2 \in znodes : k2.owner = s}}
        cf == D # {}
    IN /\ live' = live \ {s}
       /\ znodes' = {k \in znodes : k.owner # s}
       /\ evCount' = EvAfter(D, cf, s)
       /\ net' = FireNet(q, D, cf, s)
       /\ dataW' = DataWAfter(D, s)
       /\ childW' = ChildWAfter(cf, s)
       /\ timers' = [T EXCEPT ![Server] = CancelTimer(@, s)]

\* The session timer fires: the session expires.
ExpireSession(c) ==
    \E e \in 1..lastSess[c] :
        /\ Due(Server, <<c, e>>)
        /\ EndSession(<<c, e>>, net, Expired(Server, <<c, e>>))
        /\ UNCHANGED <<lastSess, zxid, clientVars, resVars, status, pause, skew,
                       watches, cut, spent, ghost, drawn, history>>

\* The ensemble handles the oldest request from c.
ServerHandles(c) ==
    LET m == Msg(c, Server)
        s == <<c, m.e>>
        q0 == Pop(c, Server)
        Reply(q, r) == Send(q, Server, c, [r EXCEPT !.ev = evCount'[c]])
        UnchangedRest == UNCHANGED <<status, pause, skew, watches, cut, spent,
                                     ghost, drawn, clientVars, resVars>>
    IN
    /\ Deliverable(c, Server)
    /\ UnchangedRest
    /\ CASE m.type = "Connect" ->
              LET e == lastSess[c] + 1 IN
              /\ lastSess' = [lastSess EXCEPT ![c] = e]
              /\ live' = live \cup {<<c, e>>}
              /\ timers' = Touch(<<c, e>>)
              /\ evCount' = evCount
              /\ net' = Reply(q0, Mk("Connected", e))
              /\ UNCHANGED <<znodes, zxid, dataW, childW, history>>
         [] m.type = "Close" ->
              /\ IF s \in live THEN EndSession(s, q0, timers)
                 ELSE /\ net' = q0
                      /\ UNCHANGED <<live, znodes, dataW, childW, timers, evCount>>
              /\ UNCHANGED <<lastSess, zxid, history>>
         [] s \notin live ->
              \* an expired (or unknown) session: SESSION_EXPIRED
              /\ evCount' = evCount
              /\ net' = Reply(q0, Mk("Expired", m.e))
              /\ UNCHANGED <<serverVars, timers, history>>
         [] m.type = "Reconnect" ->
              \* re-registers the client's watch (SetWatches); a data watch
              \* on a node already gone fires at once [Z]; a child watch is
              \* re-fired (see the header)
              LET gone == m.n # 0 /\ ~\E k \in znodes : k.seq = m.n
                  ev == [Mk("Event", m.e) EXCEPT !.ds = IF gone THEN {m.n} ELSE {},
                                                 !.b = m.b, !.ev = evCount[c] + 1]
                  q1 == Send(q0, Server, c, [Mk("Connected", m.e) EXCEPT !.ev = evCount[c]])
              IN
              /\ timers' = Touch(s)
              /\ dataW' = IF m.n # 0 /\ ~gone THEN dataW \cup {<<s, m.n>>} ELSE dataW
              /\ net' = IF gone \/ m.b THEN Send(q1, Server, c, ev) ELSE q1
              /\ evCount' = IF gone \/ m.b THEN [evCount EXCEPT ![c] = @ + 1] ELSE evCount
              /\ UNCHANGED <<live, lastSess, znodes, zxid, childW, history>>
         [] m.type = "Ping" ->
              /\ timers' = Touch(s)
              /\ evCount' = evCount
              /\ net' = Reply(q0, Mk("Pong", m.e))
              /\ UNCHANGED <<serverVars, history>>
         [] m.type = "Create" ->
              \* create("_locknode_/guid-lock-", EPHEMERAL_SEQUENTIAL): a
              \* child change, firing the child watches
              LET z == zxid + 1 IN
              /\ zxid' = z
              /\ znodes' = znodes \cup {[seq |-> z, owner |-> s, kind |-> m.kind]}
              /\ timers' = Touch(s)
              /\ evCount' = EvAfter({}, childW # {}, None)
              /\ net' = Reply(FireNet(q0, {}, childW # {}, None), MkN("Created", m.e, z))
              /\ childW' = {}
              /\ UNCHANGED <<live, lastSess, dataW, history>>
         [] m.type = "GetChildren" ->
              /\ timers' = Touch(s)
              /\ evCount' = evCount
              /\ net' = Reply(q0, [Mk("Children", m.e) EXCEPT !.kids = znodes])
              /\ childW' = IF m.b THEN childW \cup {s} ELSE childW
              /\ UNCHANGED <<live, lastSess, znodes, zxid, dataW, history>>
         [] m.type = "Exists" ->
              LET there == \E k \in znodes : k.seq = m.n IN
              /\ timers' = Touch(s)
              /\ evCount' = evCount
              /\ dataW' = IF there THEN dataW \cup {<<s, m.n>>} ELSE dataW
              /\ net' = Reply(q0, [Mk("Stat", m.e) EXCEPT !.b = there])
              /\ UNCHANGED <<live, lastSess, znodes, zxid, childW, history>>
         [] m.type = "Delete" ->
              \* delete by path; ZooKeeper does not check who created it
              LET K == {k \in znodes : k.seq = m.n} IN
              /\ timers' = Touch(s)
              /\ IF K = {}
                 THEN /\ evCount' = evCount
                      /\ net' = Reply(q0, Mk("NoNode", m.e))
                      /\ UNCHANGED <<znodes, dataW, childW, history>>
                 ELSE /\ znodes' = znodes \ K
                      /\ evCount' = EvAfter({m.n}, TRUE, None)
                      /\ net' = Reply(FireNet(q0, {m.n}, TRUE, None), Mk("Deleted", m.e))
                      /\ dataW' = DataWAfter({m.n}, None)
                      /\ childW' = {}
                      /\ history' = IF \E k \in K : k.owner[1] # c
                                    THEN history \cup {"ForeignRelease"} ELSE history
              /\ UNCHANGED <<live, lastSess, zxid>>

-----------------------------------------------------------------------------
(* The resource: an observer that accepts writes, fenced or not.           *)

ResourceHandles(c) ==
    LET m == Msg(c, Resource)
        q0 == Pop(c, Resource)
        ok == ~m.b \/ ~Fencing \/ m.n >= resTok
    IN
    /\ Deliverable(c, Resource)
    /\ net' = Send(q0, Resource, c, [Mk("Ack", m.e) EXCEPT !.b = ok])
    /\ IF m.b /\ ok
       THEN /\ resTok' = IF m.n > resTok THEN m.n ELSE resTok
            /\ resAcq' = IF m.e > resAcq THEN m.e ELSE resAcq
            /\ history' = IF m.e < resAcq THEN history \cup {"StaleWrite"} ELSE history
       ELSE UNCHANGED <<resTok, resAcq, history>>
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn,
                   serverVars, clientVars>>

-----------------------------------------------------------------------------
(* The clients. Helpers computing a client's new timers.                   *)

ArmTimeout(f) == IF "Timeout" \in DOMAIN f THEN f ELSE SetTimer(f, "Timeout", Timeout)
\* an answer came: one fewer outstanding; the timeout runs again from now
\* while requests remain
AfterAnswer(f, o) == IF o = <<>> THEN CancelTimer(f, "Timeout") ELSE SetTimer(f, "Timeout", Timeout)

ResetHeard(c) ==
    IF Client = "curator" THEN [watches EXCEPT ![c] = StartWatch(@, "Heard")] ELSE watches

NextLeft(c) == IF Forever THEN left[c] ELSE left[c] - 1
IsDone(c, l) == ~Forever /\ l = 0

\* The lock predicate on a getChildren answer: the client's own node is k0.
LowerBlocking(kids, k0) ==
    IF k0.kind = "read"
    THEN {k \in kids : k.seq < k0.seq /\ k.kind = "write"}
    ELSE {k \in kids : k.seq < k0.seq}
MaxSeq(S) == CHOOSE x \in {k.seq : k \in S} : \A k \in S : k.seq <= x

\* The session is gone (an Expired answer, or curator's LOST): the client
\* drops it; a waiting client starts over after the back-off; a holder that
\* has not written gives the acquisition up; a writer finishes its write.
DropSession(c, T, W, q) ==
    LET p == phase[c]
        np == CASE p \in WantPhases -> "connect"
                [] p \in {"holding", "checked", "release"} -> "idle"
                [] OTHER -> p
        t0 == CancelTimer(CancelTimer(CancelTimer(T[c], "Ping"), "Timeout"), "Retry")
    IN
    /\ phase' = [phase EXCEPT ![c] = np]
    /\ sess' = [sess EXCEPT ![c] = 0]
    /\ conn' = [conn EXCEPT ![c] = IF np = "connect" THEN "lost" ELSE "none"]
    /\ mine' = [mine EXCEPT ![c] = 0]
    /\ watchOn' = [watchOn EXCEPT ![c] = 0]
    /\ pend' = [pend EXCEPT ![c] = <<>>]
    /\ acq' = [acq EXCEPT ![c] = IF np = "writing" THEN acq[c] ELSE 0]
    /\ timers' = [T EXCEPT ![c] = IF np = "connect" THEN SetTimer(t0, "Retry", Retry) ELSE t0]
    /\ watches' = [W EXCEPT ![c] = StopWatch(@, "Heard")]
    /\ net' = q
    /\ UNCHANGED left

\* The recipe's next call on a live connection, after an answer or a
\* reconnect: in phase p, with the client's node `my`.
\*   "connect"            -> create (step 1)
\*   "create" (lost), "children", "exists" (lost) -> getChildren (step 2)
\*   "release" (lost)     -> delete again
ResumeMsg(c, p) ==
    CASE p = "connect" -> [Mk("Create", sess'[c]) EXCEPT !.kind = Kind(c)]
      [] p = "release" -> MkN("Delete", sess'[c], mine[c])
      [] OTHER -> [Mk("GetChildren", sess'[c]) EXCEPT !.b = (Watch = "all")]
ResumePhase(p) ==
    CASE p = "connect" -> "create"
      [] p = "release" -> "release"
      [] OTHER -> "children"
Resumes(p) == p \in {"connect", "create", "children", "exists", "release"}

\* --- the client's own steps ---

\* The client comes to want the lock (at any moment: weakly fair).
Want(c) ==
    /\ Up(c) /\ phase[c] = "idle" /\ (Forever \/ left[c] > 0)
    /\ CASE conn[c] = "connected" ->
              LET m == [Mk("Create", sess[c]) EXCEPT !.kind = Kind(c)] IN
              /\ phase' = [phase EXCEPT ![c] = "create"]
              /\ net' = Send(net, c, Server, m)
              /\ pend' = [pend EXCEPT ![c] = Append(@, "Create")]
              /\ timers' = [timers EXCEPT ![c] = ArmTimeout(@)]
              /\ UNCHANGED conn
         [] conn[c] = "none" ->
              /\ phase' = [phase EXCEPT ![c] = "connect"]
              /\ conn' = [conn EXCEPT ![c] = "connecting"]
              /\ net' = Send(net, c, Server, Mk("Connect", 0))
              /\ pend' = [pend EXCEPT ![c] = <<"Connect">>]
              /\ timers' = [timers EXCEPT ![c] = ArmTimeout(@)]
         [] OTHER ->
              \* the library is (re)connecting; the recipe starts when it is done
              /\ phase' = [phase EXCEPT ![c] = "connect"]
              /\ UNCHANGED <<conn, net, pend, timers>>
    /\ UNCHANGED <<sess, mine, watchOn, left, acq, evSeen, serverVars, resVars, status, pause,
                   skew, watches, cut, spent, ghost, drawn, history>>

\* After the back-off the library connects again (at any moment after it:
\* weakly fair): with its session and watch if it has one, else anew.
Reconnect(c) ==
    /\ Up(c) /\ conn[c] = "lost" /\ ~IsSet(c, "Retry")
    /\ LET w == IF phase[c] = "wait" /\ Watch = "predecessor" THEN watchOn[c] ELSE 0
           m == IF sess[c] # 0
                THEN [MkN("Reconnect", sess[c], w) EXCEPT !.b = (phase[c] = "wait" /\ Watch = "all")]
                ELSE Mk("Connect", 0)
       IN
       /\ net' = Send(net, c, Server, m)
       /\ conn' = [conn EXCEPT ![c] = IF sess[c] # 0 THEN "reconnecting" ELSE "connecting"]
       /\ pend' = [pend EXCEPT ![c] = <<m.type>>]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ UNCHANGED <<phase, sess, mine, watchOn, left, acq, evSeen, serverVars, resVars, status,
                   pause, skew, watches, cut, spent, ghost, drawn, history>>

UseMsg(c) == [MkN("Use", acq[c], IF Fencing THEN mine[c] ELSE 0) EXCEPT !.b = (Kind(c) = "write")]

\* curator: the holder checks the connection state before it uses the lock.
Check(c) ==
    /\ Client = "curator" /\ Up(c) /\ phase[c] = "holding" /\ ~Suspended(c)
    /\ phase' = [phase EXCEPT ![c] = "checked"]
    /\ UNCHANGED <<sess, conn, mine, watchOn, pend, left, acq, evSeen, serverVars, resVars, worldVars>>

\* The holder uses the resource (a write, or a read for a reader).
Write(c) ==
    /\ Up(c)
    /\ phase[c] = IF Client = "curator" THEN "checked" ELSE "holding"
    /\ phase' = [phase EXCEPT ![c] = "writing"]
    /\ net' = Send(net, c, Resource, UseMsg(c))
    /\ UNCHANGED <<sess, conn, mine, watchOn, pend, left, acq, evSeen, serverVars, resVars,
                   status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>

\* curator: LOST after SessionTimeout more ticks SUSPENDED: the session is
\* treated as expired.
Lost(c) ==
    /\ Up(c) /\ IsLost(c)
    /\ DropSession(c, timers, watches, net)
    /\ UNCHANGED <<evSeen, serverVars, resVars, status, pause, skew, cut, spent, ghost, drawn, history>>

StepNames == {"Want", "Reconnect", "Check", "Write", "Lost"}
Step(c, s) ==
    CASE s = "Want" -> Want(c)
      [] s = "Reconnect" -> Reconnect(c)
      [] s = "Check" -> Check(c)
      [] s = "Write" -> Write(c)
      [] s = "Lost" -> Lost(c)

\* --- the client's timers ---

TimerNames == {"Ping", "Timeout", "Retry"}

Fire(c, t) ==
    /\ Up(c) /\ Due(c, t)
    /\ LET T == Expired(c, t) IN
       CASE t = "Ping" ->
              \* keep the session alive
              \* (only when no ping is pending)
              IF conn[c] = "connected" /\ ~\E i \in DOMAIN pend[c] : pend[c][i] = "Ping"
              THEN /\ net' = Send(net, c, Server, Mk("Ping", sess[c]))
                   /\ pend' = [pend EXCEPT ![c] = Append(@, "Ping")]
                   /\ timers' = [T EXCEPT ![c] = SetTimer(ArmTimeout(@), "Ping", PingEvery)]
              ELSE /\ timers' = [T EXCEPT ![c] = IF conn[c] = "connected"
                                                THEN SetTimer(@, "Ping", PingEvery) ELSE @]
                   /\ UNCHANGED <<net, pend>>
         [] t = "Timeout" ->
              \* CONNECTION_LOSS: pending requests fail, pings stop, back off
              /\ conn' = [conn EXCEPT ![c] = "lost"]
              /\ pend' = [pend EXCEPT ![c] = <<>>]
              /\ timers' = [T EXCEPT ![c] = SetTimer(CancelTimer(@, "Ping"), "Retry", Retry)]
              /\ UNCHANGED net
         [] t = "Retry" ->
              /\ timers' = T /\ UNCHANGED <<net, pend>>
    /\ (t # "Timeout" => UNCHANGED conn)
    /\ UNCHANGED <<phase, sess, mine, watchOn, left, acq, evSeen, serverVars, resVars, status,
                   pause, skew, watches, cut, spent, ghost, drawn, history>>

\* --- the client handles the oldest message from the ensemble ---

ClientHandles(c) ==
    LET m == Msg(Server, c)
        q0 == Pop(Server, c)
        cur == sess[c] # 0 /\ m.e = sess[c]
        match == pend[c] # <<>> /\ Answers(m.type, Head(pend[c]))
        o == IF pend[c] = <<>> THEN <<>> ELSE Tail(pend[c])
        tA == [timers EXCEPT ![c] = AfterAnswer(@, o)]
        UnchangedW == UNCHANGED <<serverVars, resVars, status, pause, skew, cut, spent, drawn>>
        Ignore == /\ net' = q0
                  /\ UNCHANGED <<phase, sess, conn, mine, watchOn, pend, left, acq,
                                 timers, watches, ghost, history>>
        isConn == m.type = "Connected" /\ conn[c] \in {"connecting", "reconnecting"}
                  /\ (conn[c] = "reconnecting" => cur) /\ match
        \* a watch event of this connection went missing
        gap == m.ev # (IF m.type = "Event" THEN evSeen[c] + 1 ELSE evSeen[c])
        accepted == isConn \/ (conn[c] = "connected" /\ ~gap)
        \* send request r next, in phase p
        Ask(r, p) ==
            /\ net' = Send(q0, c, Server, r)
            /\ pend' = [pend EXCEPT ![c] = Append(o, r.type)]
            /\ timers' = [tA EXCEPT ![c] = ArmTimeout(@)]
            /\ phase' = [phase EXCEPT ![c] = p]
        Quiet == /\ net' = q0 /\ pend' = [pend EXCEPT ![c] = o] /\ timers' = tA
    IN
    /\ Deliverable(Server, c)
    /\ UnchangedW
    /\ evSeen' = [evSeen EXCEPT ![c] = IF accepted THEN m.ev ELSE @]
    /\ CASE m.type = "Expired" /\ cur ->
              /\ DropSession(c, timers, watches, q0)
              /\ UNCHANGED <<ghost, history>>
         [] isConn ->
              \* CONNECTED / RECONNECTED: pings resume, the recipe resumes
              LET p == phase[c]
                  tC == [tA EXCEPT ![c] = SetTimer(@, "Ping", PingEvery)]
              IN
              /\ sess' = [sess EXCEPT ![c] = m.e]
              /\ conn' = [conn EXCEPT ![c] = "connected"]
              /\ watches' = ResetHeard(c)
              /\ IF Resumes(p)
                 THEN /\ net' = Send(q0, c, Server, ResumeMsg(c, p))
                      /\ pend' = [pend EXCEPT ![c] = Append(o, ResumeMsg(c, p).type)]
                      /\ timers' = [tC EXCEPT ![c] = ArmTimeout(@)]
                      /\ phase' = [phase EXCEPT ![c] = ResumePhase(p)]
                 ELSE /\ net' = q0 /\ pend' = [pend EXCEPT ![c] = o] /\ timers' = tC
                      /\ UNCHANGED phase
              /\ watchOn' = [watchOn EXCEPT ![c] = IF Resumes(p) THEN 0 ELSE @]
              /\ UNCHANGED <<mine, left, acq, ghost, history>>
         [] conn[c] # "connected" -> Ignore
         [] gap \/ (cur /\ m.type # "Event" /\ ~match) ->
              \* an answer out of order or an event missing: a message was
              \* lost; the client drops the connection (CONNECTION_LOSS)
              /\ net' = q0
              /\ conn' = [conn EXCEPT ![c] = "lost"]
              /\ pend' = [pend EXCEPT ![c] = <<>>]
              /\ timers' = [timers EXCEPT ![c] =
                              SetTimer(CancelTimer(CancelTimer(@, "Ping"), "Timeout"), "Retry", Retry)]
              /\ UNCHANGED <<phase, sess, mine, watchOn, left, acq, watches, ghost, history>>
         [] ~cur -> Ignore
         [] m.type = "Event" ->
              \* a watch fired: if it is the one the recipe waits on, go to
              \* step 2 (not an answer: pend is unchanged)
              /\ watches' = ResetHeard(c)
              /\ IF phase[c] = "wait" /\ (watchOn[c] \in m.ds \/ (Watch = "all" /\ m.b))
                 THEN /\ net' = Send(q0, c, Server, [Mk("GetChildren", sess[c]) EXCEPT !.b = (Watch = "all")])
                      /\ pend' = [pend EXCEPT ![c] = Append(@, "GetChildren")]
                      /\ timers' = [timers EXCEPT ![c] = ArmTimeout(@)]
                      /\ phase' = [phase EXCEPT ![c] = "children"]
                      /\ watchOn' = [watchOn EXCEPT ![c] = 0]
                 ELSE /\ net' = q0 /\ UNCHANGED <<phase, watchOn, pend, timers>>
              /\ UNCHANGED <<sess, conn, mine, left, acq, ghost, history>>
         [] m.type = "Created" /\ phase[c] = "create" ->
              /\ Ask([Mk("GetChildren", sess[c]) EXCEPT !.b = (Watch = "all")], "children")
              /\ mine' = [mine EXCEPT ![c] = m.n]
              /\ watches' = ResetHeard(c)
              /\ UNCHANGED <<sess, conn, watchOn, left, acq, ghost, history>>
         [] m.type = "Children" /\ phase[c] = "children" ->
              LET own == {k \in m.kids : k.owner = Session(c)}
                  my == IF mine[c] # 0 THEN mine[c]
                        ELSE IF own = {} THEN 0 ELSE MaxSeq(own)
                  K0 == {k \in m.kids : k.seq = my}
              IN
              /\ watches' = ResetHeard(c)
              /\ mine' = [mine EXCEPT ![c] = IF K0 = {} THEN 0 ELSE my]
              /\ IF K0 = {}
                 THEN \* no node of ours (its create was lost): create (step 1)
                      /\ Ask([Mk("Create", sess[c]) EXCEPT !.kind = Kind(c)], "create")
                      /\ UNCHANGED <<watchOn, left, acq, ghost>>
                 ELSE LET k0 == CHOOSE k \in K0 : TRUE
                          B == LowerBlocking(m.kids, k0)
                      IN
                      IF B = {}
                      THEN \* lowest: the client has the lock (step 3)
                           /\ Quiet
                           /\ phase' = [phase EXCEPT ![c] = "holding"]
                           \* numbered in the ensemble's grant order: the
                           \* node's czxid (SEMANTICS.md §5, "Which order")
                           /\ acq' = [acq EXCEPT ![c] = my]
                           /\ left' = [left EXCEPT ![c] = NextLeft(c)]
                           /\ UNCHANGED <<watchOn, ghost>>
                      ELSE IF Watch = "all"
                      THEN \* wait for the child watch set by this getChildren
                           /\ Quiet
                           /\ phase' = [phase EXCEPT ![c] = "wait"]
                           /\ UNCHANGED <<watchOn, left, acq, ghost>>
                      ELSE \* exists() with watch on the next lowest (step 4)
                           /\ Ask(MkN("Exists", sess[c], MaxSeq(B)), "exists")
                           /\ watchOn' = [watchOn EXCEPT ![c] = MaxSeq(B)]
                           /\ UNCHANGED <<left, acq, ghost>>
              /\ UNCHANGED <<sess, conn, history>>
         [] m.type = "Stat" /\ phase[c] = "exists" ->
              \* step 5: gone -> step 2; else wait for the notification
              /\ watches' = ResetHeard(c)
              /\ IF m.b
                 THEN /\ Quiet /\ phase' = [phase EXCEPT ![c] = "wait"]
                      /\ UNCHANGED watchOn
                 ELSE /\ Ask([Mk("GetChildren", sess[c]) EXCEPT !.b = (Watch = "all")], "children")
                      /\ watchOn' = [watchOn EXCEPT ![c] = 0]
              /\ UNCHANGED <<sess, conn, mine, left, acq, ghost, history>>
         [] m.type \in {"Deleted", "NoNode"} /\ phase[c] = "release" ->
              \* released; after the last acquisition the session is closed
              LET fin == IsDone(c, left[c]) IN
              /\ phase' = [phase EXCEPT ![c] = "idle"]
              /\ mine' = [mine EXCEPT ![c] = 0]
              /\ acq' = [acq EXCEPT ![c] = 0]
              /\ IF fin
                 THEN /\ net' = Send(q0, c, Server, Mk("Close", sess[c]))
                      /\ sess' = [sess EXCEPT ![c] = 0]
                      /\ conn' = [conn EXCEPT ![c] = "none"]
                      /\ pend' = [pend EXCEPT ![c] = <<>>]
                      /\ timers' = [timers EXCEPT ![c] = NoTimers]
                      /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Heard")]
                 ELSE /\ Quiet /\ watches' = ResetHeard(c)
                      /\ UNCHANGED <<sess, conn>>
              /\ UNCHANGED <<watchOn, left, ghost, history>>
         [] OTHER ->
              \* an answer the recipe no longer waits for (a Pong, ...)
              /\ Quiet
              /\ watches' = ResetHeard(c)
              /\ UNCHANGED <<phase, sess, conn, mine, watchOn, left, acq, ghost, history>>

\* The client gets the resource's answer: the use is done; release the
\* lock by deleting its node (or later, once reconnected; not at all if
\* the session, and with it the node, is gone).
ClientGetsAck(c) ==
    LET q0 == Pop(Resource, c) IN
    /\ Deliverable(Resource, c)
    /\ IF phase[c] = "writing"
       THEN IF sess[c] = 0
            THEN /\ phase' = [phase EXCEPT ![c] = "idle"]
                 /\ acq' = [acq EXCEPT ![c] = 0]
                 /\ net' = q0
                 /\ UNCHANGED <<pend, timers>>
            ELSE /\ phase' = [phase EXCEPT ![c] = "release"]
                 /\ UNCHANGED acq
                 /\ IF conn[c] = "connected"
                    THEN /\ net' = Send(q0, c, Server, MkN("Delete", sess[c], mine[c]))
                         /\ pend' = [pend EXCEPT ![c] = Append(@, "Delete")]
                         /\ timers' = [timers EXCEPT ![c] = ArmTimeout(@)]
                    ELSE /\ net' = q0 /\ UNCHANGED <<pend, timers>>
       ELSE /\ net' = q0 /\ UNCHANGED <<phase, acq, pend, timers>>
    /\ UNCHANGED <<sess, conn, mine, watchOn, left, evSeen, serverVars, resVars, status, pause,
                   skew, watches, cut, spent, ghost, drawn, history>>

Deliver(src, dst) ==
    CASE dst = Server -> ServerHandles(src)
      [] dst = Resource -> ResourceHandles(src)
      [] src = Server -> ClientHandles(dst)
      [] OTHER -> ClientGetsAck(dst)

-----------------------------------------------------------------------------
(* Time and faults.                                                        *)

Urgent(n) ==
    /\ n \in ClientSet
    /\ \/ phase[n] = "holding" /\ (Client = "naive" \/ ~Suspended(n))
       \/ phase[n] = "checked"
       \/ IsLost(n)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
Drift == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* A client crashes: it loses everything but the work it still owes.
Crash(c) ==
    /\ WorldCrash(c, NoTimers, Role)
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ sess' = [sess EXCEPT ![c] = 0]
    /\ conn' = [conn EXCEPT ![c] = "none"]
    /\ mine' = [mine EXCEPT ![c] = 0]
    /\ watchOn' = [watchOn EXCEPT ![c] = 0]
    /\ pend' = [pend EXCEPT ![c] = <<>>]
    /\ acq' = [acq EXCEPT ![c] = 0]
    /\ evSeen' = [evSeen EXCEPT ![c] = 0]
    /\ UNCHANGED <<left, serverVars, resVars>>

Restart(c) ==
    /\ WorldRestart(c)
    /\ timers' = [timers EXCEPT ![c] = NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history, algVars>>

Pause(c, k) == WorldPause(c, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Lose(l, i) == WorldLose(l[1], l[2], i, Role) /\ UNCHANGED algVars
Duplicate(l, i) == WorldDuplicate(l[1], l[2], i, Role) /\ UNCHANGED algVars
ClockJump(c, by) == WorldClockJump(c, by, Role, Cap) /\ UNCHANGED algVars

NodeSteps ==
    \/ \E c \in ClientSet, s \in StepNames : Step(c, s)
    \/ \E c \in ClientSet, t \in TimerNames : Fire(c, t)
    \/ \E c \in ClientSet : ExpireSession(c)
    \/ \E l \in Links : Deliver(l[1], l[2])

NoFault ==
    \/ Tick
    \/ NodeSteps
    \/ Recoveries /\ ((\E c \in ClientSet : Restart(c)) \/ Heal)

Faults ==
    \/ Drift
    \/ \E c \in ClientSet : Crash(c)
    \/ \E c \in ClientSet, k \in MinPause..MaxPause : Pause(c, k)
    \/ \E c \in ClientSet : Partition(Server, c)
    \/ \E l \in Links, i \in 1..8 : Lose(l, i) \/ Duplicate(l, i)
    \/ \E c \in ClientSet, by \in -MaxJump..MaxJump : ClockJump(c, by)

Next ==
    \/ Tick
    \/ NodeSteps
    \/ \E c \in ClientSet : Restart(c)
    \/ Heal
    \/ Faults

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientSet, s \in StepNames : WF_vars(Step(c, s))
    /\ \A c \in ClientSet, t \in TimerNames : WF_vars(Fire(c, t))
    /\ \A c \in ClientSet : WF_vars(ExpireSession(c))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A c \in ClientSet : WF_vars(Restart(c))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Liveness (SEMANTICS.md section 5), over the runs in which faults stop.  *)

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop =>
        ((\E c \in ClientSet : RunningClient(c) /\ Wants(c)) ~> (\E c \in ClientSet : Holds(c)))

StarvationFreedom ==
    FaultsStop =>
        \A c \in ClientSet :
            (RunningClient(c) /\ Wants(c)) ~> (Holds(c) \/ ~RunningClient(c))

=============================================================================
