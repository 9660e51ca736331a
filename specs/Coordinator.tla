------------------------------ MODULE Coordinator ------------------------------
(***************************************************************************)
(* A clean-room specification of the centralized mutual exclusion          *)
(* algorithm (a lock coordinator), with and without a standby server,      *)
(* written from the published descriptions only.                           *)
(*                                                                         *)
(* Sources                                                                 *)
(*  [T]  A. S. Tanenbaum, M. van Steen, Distributed Systems: Principles    *)
(*       and Paradigms, "Mutual exclusion: a centralized algorithm": one   *)
(*       process is the coordinator; a process that wants the resource     *)
(*       sends it a request; if no other process is currently in the       *)
(*       critical region the coordinator replies with a grant; otherwise it*)
(*       does not reply and queues the request; the holder, when done,     *)
(*       sends a release; the coordinator takes the first item off the     *)
(*       queue of deferred requests and sends that process a grant         *)
(*       (paraphrased). Three messages per use; requests are granted in the*)
(*       order received, so no process waits forever. Drawbacks named      *)
(*       there: the coordinator is a single point of failure, and a        *)
(*       blocked requester cannot tell a dead coordinator from a refusal.  *)
(*  [C]  G. Coulouris, J. Dollimore, T. Kindberg, G. Blair, Distributed    *)
(*       Systems: Concepts and Design, "The central server algorithm":     *)
(*       the same recipe (request, wait for the token, give the token back *)
(*       on exit; the server replies to the oldest queued request),        *)
(*       stated under the assumption that no process fails.                *)
(*  [BMST] N. Budhiraja, K. Marzullo, F. B. Schneider, S. Toueg, "The     *)
(*       primary-backup approach", in Distributed Systems (2nd ed.), 1993  *)
(*       (and Cornell TR 92-1265): clients send requests only to the       *)
(*       primary; a server that is not the primary does not act on a       *)
(*       request; the primary informs the backup of each state change and  *)
(*       (in the blocking protocols) waits for its acknowledgement before  *)
(*       responding; when the primary fails, the backup takes over as the  *)
(*       new primary, and the clients learn who it is; a failover is an    *)
(*       outage in which requests may go unanswered, and clients re-send  *)
(*       their requests to the new primary once they learn of it.          *)
(*  [AD] P. A. Alsberg, J. D. Day, "A principle for resilient sharing of   *)
(*       distributed resources", ICSE 1976: the client sequences its       *)
(*       requests, so a re-sent request is recognised as a duplicate.      *)
(*                                                                         *)
(* Nodes. Servers 1 (the coordinator, the primary) and, with a standby, 2; *)
(* then the Clients lock clients; then the protected resource, an          *)
(* observer that is never faulted.                                         *)
(*                                                                         *)
(* The server (state exactly what [T]/[C] name, plus the primary-backup    *)
(* bookkeeping of [BMST]):                                                 *)
(*   active[s]   s is the acting coordinator ([BMST] Pb3: a server that is *)
(*               not the primary ignores requests);                        *)
(*   queue[s]    the queue of deferred requests, oldest first, each a    *)
(*               pair <<client, request id>>;                              *)
(*   holder[s]   the request <<client, id>> the resource is granted to, or *)
(*               None ([T]: the coordinator knows which process is in the  *)
(*               critical region);                                         *)
(*   grantee[s]  Standby = "replicated" only: the request <<client, id>>   *)
(*               the primary has made holder but not yet sent the grant    *)
(*               to, because the standby has not yet acknowledged a state  *)
(*               with that holder (None: no grant pending).                *)
(*   Request <<c, i>>: if it is the holder, it is granted again (with id   *)
(*     i); if nobody holds the lock, it becomes holder and is granted; if  *)
(*     it is already queued it is ignored; otherwise it is queued, after   *)
(*     any other request of client c has been taken out of the queue (a    *)
(*     client's new request supersedes its older queued one).              *)
(*     Release <<c, i>> naming the holder: the head of the queue becomes   *)
(*     holder and is granted, or the lock is free; any other release is   *)
(*     ignored. A Grant carries the id of the request it answers.          *)
(*                                                                         *)
(* The client's recipe ([T], [C]): request; wait for the grant; use the    *)
(* resource (one write, acknowledged by the resource); release (a message, *)
(* unacknowledged, as in [T]/[C]). Acquisitions such rounds (0: forever).  *)
(* Each new request gets a fresh request id (the world's fresh-value       *)
(* counter, drawn), which its grant and its release carry (at-most-once:   *)
(* [AD] sequence numbers). With a standby the client also keeps coord[c],  *)
(* the server it sends to: the coordinator, until a new coordinator        *)
(* announces itself ([BMST]). Then it sends everything there, and first    *)
(* re-sends to it what may have gone unanswered: its last Release (if it   *)
(* has released at least once), then, if it is waiting, its current       *)
(* Request, both with their original ids ([BMST]: clients re-send to the   *)
(* new primary after a failover). A grant it no longer wants, one carrying *)
(* the id of its last release, it gives back at once: it answers it with a *)
(* Release of that id to the server that sent it ([T]/[C]'s client has at  *)
(* most one request outstanding, and a grant it does not use must not keep *)
(* the lock).                                                              *)
(*                                                                         *)
(* Standby variants (the failure detector is "restart": no heartbeat, no   *)
(* clock). A restarted coordinator (node 1) comes back empty, tells the    *)
(* standby TakeOver and stays passive; the standby becomes the coordinator *)
(* and announces itself to every client.                                   *)
(*   "no-state"    the standby takes over with an empty queue and no       *)
(*                 holder;                                                 *)
(*   "replicated"  the primary sends its whole state (queue, holder) to    *)
(*                 the standby after every change; the standby applies it  *)
(*                 and acknowledges it; a grant is sent only once the      *)
(*                 standby has acknowledged a state naming the new holder  *)
(*                 (blocking, for grants, as in [BMST]). Other changes     *)
(*                 (queueing a request, freeing the lock) do not wait: the *)
(*                 description asks the wait "before each grant" only, and *)
(*                 a primary that stopped reading its links while waiting  *)
(*                 would let weak fairness starve one link (a first draft  *)
(*                 did; see RESULTS.md). A restarted standby               *)
(*                 tells the primary (Rejoin), which sends it its state    *)
(*                 again (the state transfer to a recovered backup).       *)
(*                 After a takeover the new coordinator runs alone.        *)
(*                                                                         *)
(* Modelling choices, and why                                              *)
(*  - Granularity: one action per message delivery (the handler runs      *)
(*    atomically, as a server's event loop does) and one per client       *)
(*    decision (to request; to write once granted). The release is sent   *)
(*    in the same step that receives the resource's acknowledgement of the *)
(*    write: nothing observable lies between them.                         *)
(*  - The write is acknowledged before the release is sent: a client that  *)
(*    released before its write landed would make every run stale-write,   *)
(*    which no reading of [T]/[C] (use, then exit, then release) intends.    *)
(*  - No fencing: [T]/[C] hand out no token, so the resource accepts every *)
(*    write; it only records, as a ghost, the latest acquisition it has    *)
(*    accepted a write from, to state NoStaleWrite.                        *)
(*  - Acquisitions are numbered by the world's ghost counter when the      *)
(*    grant is received (the step from which the client may use the        *)
(*    lock). A Write carries its acquisition's ghost number (a ghost, not  *)
(*    seen by the resource's decision).                                    *)
(*  - A release is accepted only if it names the recorded holder's        *)
(*    request <<client, id>>; any other is ignored (the server knows who   *)
(*    holds the lock; [T]/[C] never meet a release from a non-holder,      *)
(*    since they assume no failures). So no handler ever removes another  *)
(*    client's lock: the ghost flag "ForeignRelease" is never raised and   *)
(*    NoForeignRelease holds by construction (stated anyway, for the       *)
(*    shared property set).                                                *)
(*  - A client uses a grant only while waiting, and only one carrying its *)
(*    current request id (from whichever server: a grant the primary sent *)
(*    before crashing still counts). A grant carrying the id of its last   *)
(*    release (non-zero) it gives back: it answers it with a Release of    *)
(*    that id to the server that sent the grant, whatever its own state,   *)
(*    so a server that granted a request the client has already used and   *)
(*    released (a re-sent copy that was queued there) gets its lock back.  *)
(*    Any other grant is ignored.                                          *)
(*  - Retransmission after failover, with request ids (A3 in RESULTS.md,  *)
(*    a design decision of the project, after [AD] and [BMST]). A request *)
(*    id is drawn from the world's fresh-value counter (drawn) when the   *)
(*    client sends a new request, never when it re-sends. On the new      *)
(*    coordinator's announcement the client re-sends its last Release     *)
(*    (with that release's id: it cannot know whether the old coordinator *)
(*    saw it), then, if waiting, its current Request (same id). The ids   *)
(*    make the re-sends safe: a duplicate of a queued request is ignored, *)
(*    a duplicate of the holder's request is granted again with the same  *)
(*    id (a client still using that grant ignores the copy; one that has   *)
(*    since released it gives the copy back), and a stale release names a  *)
(*    request that is no longer the holder. Every grant a server sends     *)
(*    must eventually be answered by a release, or the lock leaks; hence   *)
(*    the give-back above, and: a request from a client under a new id     *)
(*    replaces, in the queue, any older request of the same client (the    *)
(*    client has only one outstanding request: the older one would be      *)
(*    granted to a client that no longer waits for it). A request from a   *)
(*    client under a new id while the server still records the client's    *)
(*    older request as holder is queued like any other (only the           *)
(*    id-matching release frees the older one). There is no timeout:       *)
(*    the announcement is the only trigger, so without a standby a lost   *)
(*    request stays lost ([T]'s single point of failure).                 *)
(*    A replicating primary that still holds back the grant of a request  *)
(*    (grantee) does not grant it again on a duplicate: it waits for the  *)
(*    standby's Ack as for the first copy.                                 *)
(*  - No clocks: the algorithm has no timers or stopwatches, so Tick is    *)
(*    never enabled (World.TimeMatters) and Cap is 0.                      *)
(*  - Messages travel on the world's FIFO links, not TCP connections: the  *)
(*    textbooks' protocol is message passing. A crashed node's volatile   *)
(*    state (the whole server state; a client's lock state, with its     *)
(*    request ids) is lost; a client keeps how many acquisitions it has    *)
(*    done (the workload, not lock state).                                 *)
(*  - Restart and Heal are actions whatever Recovery is; Recovery only     *)
(*    says whether they are fair (World.Recoveries).                       *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets

CONSTANTS
    Clients,      \* number of lock clients
    Standby,      \* "none", "no-state" or "replicated"
    Acquisitions  \* acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..6
       /\ Standby \in {"none", "no-state", "replicated"}
       /\ Acquisitions \in Nat

VARIABLES
    active,     \* active[s]: s is the acting coordinator
    queue,      \* queue[s]: deferred requests, oldest first
    holder,     \* holder[s]: the client granted the lock, or None
    grantee,    \* grantee[s]: the grant to send once acked, or None
    cstate,     \* cstate[c]: "idle", "waiting", "holding" or "writing"
    coord,      \* coord[c]: the server c talks to
    rid,        \* rid[c]: the id of c's current request (0 when idle)
    lastRel,    \* lastRel[c]: the id of c's last release (0: none yet)
    done,       \* done[c]: acquisitions completed (kept 0 when forever)
    cghost,     \* cghost[c]: ghost number of c's current acquisition, or 0
    lastWrite   \* the resource: ghost number of the latest acquisition it
                \* accepted a write from (0: none)

algVars == <<active, queue, holder, grantee, cstate, coord, rid, lastRel, done, cghost, lastWrite>>
vars == <<status, pause, skew, timers, watches, net, cut, spent, ghost, drawn, history,
          active, queue, holder, grantee, cstate, coord, rid, lastRel, done, cghost, lastWrite>>

-----------------------------------------------------------------------------
(* Nodes and links.                                                        *)

Primary == 1
Backup == 2
Servers == IF Standby = "none" THEN {Primary} ELSE {Primary, Backup}
NS == Cardinality(Servers)
ClientSet == (NS + 1)..(NS + Clients)
Resource == NS + Clients + 1
AllNodes == Servers \cup ClientSet \cup {Resource}

Role(n) == IF n \in Servers THEN "server"
           ELSE IF n \in ClientSet THEN "client" ELSE "observer"

Links == {<<c, s>> : c \in ClientSet, s \in Servers}
         \cup {<<s, c>> : c \in ClientSet, s \in Servers}
         \cup {<<c, Resource>> : c \in ClientSet}
         \cup {<<Resource, c>> : c \in ClientSet}
         \cup (IF Standby = "none" THEN {} ELSE {<<Primary, Backup>>, <<Backup, Primary>>})

\* Messages, all of one shape: g is a Write's ghost acquisition number; id
\* the request id a Request, Grant or Release carries; q, h the state (of
\* <<client, id>> pairs) a Sync carries and an Ack acknowledges.
M(t) == [type |-> t, g |-> 0, id |-> 0, q |-> <<>>, h |-> None]
WriteMsg(g) == [M("Write") EXCEPT !.g = g]
IdMsg(t, i) == [M(t) EXCEPT !.id = i]
SyncMsg(q, h) == [M("Sync") EXCEPT !.q = q, !.h = h]
AckMsg(q, h) == [M("Ack") EXCEPT !.q = q, !.h = h]

\* World hooks: no clocks, nothing urgent but the holder's use of the lock.
Urgent(n) == n \in ClientSet /\ Up(n) /\ cstate[n] = "holding"
Cap(n, w) == 0
MayPause(n) == TRUE

\* The primary replicates (only the original coordinator, and only in the
\* "replicated" variant; after a takeover the new coordinator runs alone).
Replicates(s) == Standby = "replicated" /\ s = Primary

InQueue(r, q) == \E i \in 1..Len(q) : q[i] = r

\* A request <<client, id>>, as the server's queue and holder record it.
Req(c, i) == <<c, i>>

-----------------------------------------------------------------------------
(* Initial state.                                                          *)

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ active = [s \in Servers |-> s = Primary]
    /\ queue = [s \in Servers |-> <<>>]
    /\ holder = [s \in Servers |-> None]
    /\ grantee = [s \in Servers |-> None]
    /\ cstate = [c \in ClientSet |-> "idle"]
    /\ coord = [c \in ClientSet |-> Primary]
    /\ rid = [c \in ClientSet |-> 0]
    /\ lastRel = [c \in ClientSet |-> 0]
    /\ done = [c \in ClientSet |-> 0]
    /\ cghost = [c \in ClientSet |-> 0]
    /\ lastWrite = 0

-----------------------------------------------------------------------------
(* Clients' own steps.                                                     *)

\* A client comes to want the lock (at any moment: not urgent) and sends a
\* request, under a fresh request id, to its coordinator.
Request(c) ==
    /\ Up(c) /\ cstate[c] = "idle"
    /\ Acquisitions = 0 \/ done[c] < Acquisitions
    /\ drawn' = drawn + 1
    /\ rid' = [rid EXCEPT ![c] = drawn + 1]
    /\ net' = Send(net, c, coord[c], IdMsg("Request", drawn + 1))
    /\ cstate' = [cstate EXCEPT ![c] = "waiting"]
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, history>>
    /\ UNCHANGED <<active, queue, holder, grantee, coord, lastRel, done, cghost, lastWrite>>

\* The holder uses the resource: one write.
Write(c) ==
    /\ Up(c) /\ cstate[c] = "holding"
    /\ net' = Send(net, c, Resource, WriteMsg(cghost[c]))
    /\ cstate' = [cstate EXCEPT ![c] = "writing"]
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<active, queue, holder, grantee, coord, rid, lastRel, done, cghost, lastWrite>>

-----------------------------------------------------------------------------
(* Server handlers.                                                        *)

\* Server s, having taken a message off the network (nq), moves to queue q
\* and holder h and grants the lock to request g = <<client, id>> (None: no
\* grant). A replicating
\* primary first sends the new state to the standby and grants only when
\* the standby has acknowledged it; otherwise the grant goes out at once.
Commit(s, nq, q, h, g) ==
    /\ queue' = [queue EXCEPT ![s] = q]
    /\ holder' = [holder EXCEPT ![s] = h]
    /\ IF Replicates(s)
       THEN /\ net' = Send(nq, s, Backup, SyncMsg(q, h))
            /\ grantee' = IF g = None THEN grantee ELSE [grantee EXCEPT ![s] = g]
       ELSE /\ net' = IF g = None THEN nq ELSE Send(nq, s, g[1], IdMsg("Grant", g[2]))
            /\ UNCHANGED grantee

\* Server s handles the oldest message from client c.
ServerFromClient(c, s) ==
    LET m == Msg(c, s)
        nq == Pop(c, s)
        r == Req(c, m.id)
    IN
    /\ IF ~active[s]
       THEN \* not the coordinator: the request is not acted on ([BMST] Pb3)
            /\ net' = nq
            /\ UNCHANGED <<queue, holder, grantee, history>>
       ELSE IF m.type = "Request"
       THEN IF holder[s] = r
            THEN \* a copy of the holder's request: grant again, same id
                 \* (unless that grant still waits for the standby's Ack)
                 /\ net' = IF grantee[s] = r THEN nq
                           ELSE Send(nq, s, c, IdMsg("Grant", m.id))
                 /\ UNCHANGED <<queue, holder, grantee, history>>
            ELSE IF holder[s] = None
            THEN Commit(s, nq, queue[s], r, r) /\ UNCHANGED history
            ELSE IF InQueue(r, queue[s])
            THEN \* a copy of a queued request: ignored
                 /\ net' = nq
                 /\ UNCHANGED <<queue, holder, grantee, history>>
            ELSE \* queued, replacing any older queued request of c
                 /\ Commit(s, nq, Append(SelectSeq(queue[s], LAMBDA p : p[1] # c), r),
                           holder[s], None)
                 /\ UNCHANGED history
       ELSE \* m.type = "Release"
            IF holder[s] # r
            THEN \* a release that does not name the holder's request is ignored
                 /\ net' = nq
                 /\ UNCHANGED <<queue, holder, grantee, history>>
            ELSE /\ UNCHANGED history   \* c's own lock: never a foreign release
                 /\ IF queue[s] = <<>>
                    THEN Commit(s, nq, <<>>, None, None)
                    ELSE Commit(s, nq, Tail(queue[s]), Head(queue[s]), Head(queue[s]))
    /\ UNCHANGED <<active, cstate, coord, rid, lastRel, done, cghost, lastWrite, ghost>>

\* The standby handles a message from the primary.
BackupFromPrimary ==
    LET m == Msg(Primary, Backup)
        nq == Pop(Primary, Backup)
    IN
    /\ IF m.type = "Sync" /\ ~active[Backup]
       THEN \* adopt the primary's state and acknowledge it
            /\ queue' = [queue EXCEPT ![Backup] = m.q]
            /\ holder' = [holder EXCEPT ![Backup] = m.h]
            /\ net' = Send(nq, Backup, Primary, AckMsg(m.q, m.h))
            /\ UNCHANGED active
       ELSE IF m.type = "TakeOver" /\ ~active[Backup]
       THEN \* the primary restarted: become the coordinator, tell the clients
            /\ active' = [active EXCEPT ![Backup] = TRUE]
            /\ net' = SendAll(nq, Backup, ClientSet, M("Coordinator"))
            /\ UNCHANGED <<queue, holder>>
       ELSE /\ net' = nq
            /\ UNCHANGED <<active, queue, holder>>
    /\ UNCHANGED <<grantee, cstate, coord, rid, lastRel, done, cghost, lastWrite, ghost, history>>

\* The primary handles a message from the standby.
PrimaryFromBackup ==
    LET m == Msg(Backup, Primary)
        nq == Pop(Backup, Primary)
    IN
    /\ IF m.type = "Ack" /\ grantee[Primary] # None /\ m.h = grantee[Primary]
       THEN \* the standby knows the new holder: send the grant held back
            /\ grantee' = [grantee EXCEPT ![Primary] = None]
            /\ net' = Send(nq, Primary, grantee[Primary][1], IdMsg("Grant", grantee[Primary][2]))
       ELSE IF m.type = "Rejoin" /\ active[Primary] /\ Replicates(Primary)
       THEN \* the standby restarted empty: transfer the state again
            /\ net' = Send(nq, Primary, Backup, SyncMsg(queue[Primary], holder[Primary]))
            /\ UNCHANGED grantee
       ELSE /\ net' = nq
            /\ UNCHANGED grantee
    /\ UNCHANGED <<active, queue, holder, cstate, coord, rid, lastRel, done, cghost, lastWrite, ghost, history>>

-----------------------------------------------------------------------------
(* Client and resource handlers.                                           *)

\* Client c handles the oldest message from server s.
ClientFromServer(s, c) ==
    LET m == Msg(s, c)
        nq == Pop(s, c)
    IN
    /\ IF m.type = "Grant" /\ cstate[c] = "waiting" /\ m.id = rid[c]
       THEN \* the lock is c's from this step: a new acquisition
            /\ ghost' = ghost + 1
            /\ cghost' = [cghost EXCEPT ![c] = ghost + 1]
            /\ cstate' = [cstate EXCEPT ![c] = "holding"]
            /\ net' = nq
            /\ UNCHANGED coord
       ELSE IF m.type = "Grant" /\ lastRel[c] # 0 /\ m.id = lastRel[c]
       THEN \* a grant for the request c last released: given back at once
            /\ net' = Send(nq, c, s, IdMsg("Release", m.id))
            /\ UNCHANGED <<ghost, cghost, cstate, coord>>
       ELSE IF m.type = "Coordinator"
       THEN \* a new coordinator: send everything from now on to it, and
            \* first re-send what may have gone unanswered: the last
            \* release (if any), then the pending request (same ids)
            /\ coord' = [coord EXCEPT ![c] = s]
            /\ LET n1 == IF lastRel[c] # 0
                         THEN Send(nq, c, s, IdMsg("Release", lastRel[c]))
                         ELSE nq
               IN net' = IF cstate[c] = "waiting"
                         THEN Send(n1, c, s, IdMsg("Request", rid[c]))
                         ELSE n1
            /\ UNCHANGED <<ghost, cghost, cstate>>
       ELSE \* any other grant (to a client that is not waiting, or for
            \* another request than its current one or its last release):
            \* ignored
            /\ net' = nq
            /\ UNCHANGED <<ghost, cghost, cstate, coord>>
    /\ UNCHANGED <<active, queue, holder, grantee, rid, lastRel, done, lastWrite, history>>

\* The resource accepts a write (no fencing: every write is accepted) and
\* acknowledges it; a write under an acquisition earlier than one it has
\* already accepted a write from is a stale write (ghost flag).
ResourceFromClient(c) ==
    LET m == Msg(c, Resource)
        nq == Pop(c, Resource)
    IN
    /\ history' = IF m.g < lastWrite THEN history \cup {"StaleWrite"} ELSE history
    /\ lastWrite' = IF m.g > lastWrite THEN m.g ELSE lastWrite
    /\ net' = Send(nq, Resource, c, M("WriteAck"))
    /\ UNCHANGED <<active, queue, holder, grantee, cstate, coord, rid, lastRel, done, cghost, ghost>>

\* The write is done: c releases the lock to its coordinator (naming its
\* request) and is idle.
ClientFromResource(c) ==
    LET nq == Pop(Resource, c) IN
    /\ IF cstate[c] = "writing"
       THEN /\ net' = Send(nq, c, coord[c], IdMsg("Release", rid[c]))
            /\ cstate' = [cstate EXCEPT ![c] = "idle"]
            /\ cghost' = [cghost EXCEPT ![c] = 0]
            /\ lastRel' = [lastRel EXCEPT ![c] = rid[c]]
            /\ rid' = [rid EXCEPT ![c] = 0]
            /\ done' = [done EXCEPT ![c] = IF Acquisitions = 0 THEN 0 ELSE @ + 1]
       ELSE /\ net' = nq
            /\ UNCHANGED <<cstate, cghost, rid, lastRel, done>>
    /\ UNCHANGED <<active, queue, holder, grantee, coord, lastWrite, ghost, history>>

\* Delivery of the oldest message of link src -> dst.
Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ Role(src) = "client" /\ Role(dst) = "server" /\ ServerFromClient(src, dst)
       \/ Standby # "none" /\ src = Primary /\ dst = Backup /\ BackupFromPrimary
       \/ Standby # "none" /\ src = Backup /\ dst = Primary /\ PrimaryFromBackup
       \/ Role(src) = "server" /\ Role(dst) = "client" /\ ClientFromServer(src, dst)
       \/ dst = Resource /\ ResourceFromClient(src)
       \/ src = Resource /\ ClientFromResource(dst)
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, drawn>>

-----------------------------------------------------------------------------
(* Crash and restart. A crashed node loses its volatile state; a          *)
(* restarted coordinator, with a standby, tells the standby to take over  *)
(* (the "restart" failure detector); a restarted standby tells the        *)
(* primary it is back (replicated variant).                                *)

Crash(n) ==
    /\ WorldCrash(n, NoTimers, Role)
    /\ IF n \in Servers
       THEN /\ active' = [active EXCEPT ![n] = FALSE]
            /\ queue' = [queue EXCEPT ![n] = <<>>]
            /\ holder' = [holder EXCEPT ![n] = None]
            /\ grantee' = [grantee EXCEPT ![n] = None]
            /\ UNCHANGED <<cstate, coord, rid, lastRel, done, cghost, lastWrite>>
       ELSE /\ cstate' = [cstate EXCEPT ![n] = "idle"]
            /\ coord' = [coord EXCEPT ![n] = Primary]
            /\ cghost' = [cghost EXCEPT ![n] = 0]
            /\ rid' = [rid EXCEPT ![n] = 0]
            /\ lastRel' = [lastRel EXCEPT ![n] = 0]
            /\ UNCHANGED <<active, queue, holder, grantee, done, lastWrite>>

Restart(n) ==
    /\ WorldRestart(n)
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ IF n = Primary
       THEN /\ active' = [active EXCEPT ![n] = (Standby = "none")]
            /\ net' = IF Standby = "none" THEN net
                      ELSE Send(net, Primary, Backup, M("TakeOver"))
       ELSE IF n = Backup /\ n \in Servers
       THEN /\ net' = IF Standby = "replicated" THEN Send(net, Backup, Primary, M("Rejoin"))
                      ELSE net
            /\ UNCHANGED active
       ELSE /\ UNCHANGED <<active, net>>
    /\ UNCHANGED <<ghost, drawn, history>>
    /\ UNCHANGED <<queue, holder, grantee, cstate, coord, rid, lastRel, done, cghost, lastWrite>>

-----------------------------------------------------------------------------
(* The world alone acts.                                                   *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
Drift == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

-----------------------------------------------------------------------------

Step(c) == Request(c) \/ Write(c)

Fault ==
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in -MaxJump..MaxJump : ClockJump(n, by)
    \/ Drift

NoFault ==
    \/ Tick
    \/ \E c \in ClientSet : Step(c)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (\/ \E n \in AllNodes : Restart(n)
                      \/ Heal)

Next ==
    \/ NoFault
    \/ Fault
    \/ ~Recoveries /\ (\/ \E n \in AllNodes : Restart(n)
                       \/ Heal)

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientSet : WF_vars(Request(c)) /\ WF_vars(Write(c))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS.md section 5) and the properties.              *)

\* c believes it holds the lock from the grant until it has released.
Holds(c) == status[c] # "Down" /\ cstate[c] \in {"holding", "writing"}
\* c has asked for the lock and not yet been granted it.
Wants(c) == status[c] # "Down" /\ cstate[c] = "waiting"

MutualExclusion == \A c1, c2 \in ClientSet : Holds(c1) /\ Holds(c2) => c1 = c2

NoStaleWrite == "StaleWrite" \notin history

NoForeignRelease == "ForeignRelease" \notin history

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = AllNodes
    /\ DOMAIN net = Links
    /\ active \in [Servers -> BOOLEAN]
    /\ \A s \in Servers : queue[s] \in Seq(ClientSet \X (1..drawn))
    /\ holder \in [Servers -> (ClientSet \X (1..drawn)) \cup {None}]
    /\ grantee \in [Servers -> (ClientSet \X (1..drawn)) \cup {None}]
    /\ cstate \in [ClientSet -> {"idle", "waiting", "holding", "writing"}]
    /\ coord \in [ClientSet -> Servers]
    /\ rid \in [ClientSet -> 0..drawn]
    /\ \A c \in ClientSet : (rid[c] = 0) <=> (cstate[c] = "idle")
    /\ lastRel \in [ClientSet -> 0..drawn]
    /\ done \in [ClientSet -> 0..Acquisitions]
    /\ cghost \in [ClientSet -> 0..ghost]
    /\ lastWrite \in 0..ghost

FaultsStop == <>[][NoFault]_vars

\* Holding is bounded (the holder's write and release are weakly fair
\* steps), so "some client eventually holds" after a moment at which a
\* client waits, required at every moment, says that some client
\* eventually acquires the lock.
SomeWants == \E c \in ClientSet : Wants(c)
SomeHolds == \E c \in ClientSet : Holds(c)

DeadlockFreedom == FaultsStop => [](SomeWants => <>SomeHolds)

StarvationFreedom == FaultsStop => \A c \in ClientSet : [](Wants(c) => <>Holds(c))

=============================================================================
