------------------------------ MODULE EtcdLease ------------------------------
(***************************************************************************)
(* The etcd v3 lease-based mutex (clientv3 concurrency.Session + Mutex),   *)
(* written clean-room from its published description, in the world of     *)
(* World.tla.                                                              *)
(*                                                                         *)
(* Sources                                                                 *)
(*  [API]   etcd v3 API (api/etcdserverpb/rpc.proto and the API guide):    *)
(*          KV Range/Put/DeleteRange/Txn, the store revision (one counter  *)
(*          for the whole store, +1 per write transaction), create_revision*)
(*          of a key; Lease: "LeaseGrant creates a lease which expires if  *)
(*          the server does not receive a keepAlive within a given time to *)
(*          live period. All keys attached to the lease will be expired    *)
(*          and deleted if the lease expires"; LeaseRevoke deletes them    *)
(*          too; LeaseKeepAlive answers TTL = 0 for an unknown lease       *)
(*          (server/etcdserver/api/v3rpc/lease.go); a Put attached to a    *)
(*          lease that does not exist fails with "requested lease not      *)
(*          found" (server/etcdserver/txn/put.go checkLease, checked only  *)
(*          for the branch a Txn takes); Watch WithRev(r) delivers every   *)
(*          event from revision r on.                                      *)
(*  [LESSOR] server/lease/lessor.go: Renew of an expired, not yet revoked  *)
(*          lease waits for the revocation and returns "not found";        *)
(*          Revoke deletes the attached keys in one transaction.           *)
(*  [SESS]  client/v3/concurrency/session.go: NewSession = LeaseGrant(ttl) *)
(*          then KeepAlive(id); Close = stop keep-alives + LeaseRevoke.    *)
(*  [MUTEX] client/v3/concurrency/mutex.go and key.go (etcd main, fetched  *)
(*          from github:etcd-io/etcd): Lock = tryAcquire (one Txn: If      *)
(*          create_revision(pfx/lease) = 0 Then Put(pfx/lease, lease)      *)
(*          Else Get(pfx/lease); both branches Get(pfx, FirstCreate));     *)
(*          the lock is held if the first-created key is mine; else        *)
(*          waitDeletes(pfx, myRev-1): loop { Get(pfx, LastCreate,         *)
(*          MaxCreateRev(myRev-1)); none -> done; else Watch that key      *)
(*          WithRev(header.Revision) until a DELETE }, then Get(myKey):    *)
(*          absent -> ErrSessionExpired. Unlock = Delete(myKey). (Jepsen   *)
(*          reports an implementation bug, since fixed, that made the      *)
(*          lock worse; this spec follows the current code.)               *)
(*  [LEASE] client/v3/lease.go: the first keep-alive is due at once        *)
(*          (nextKeepAlive = now); on an answer with TTL > 0 the next is   *)
(*          due TTL/3 later and deadline = now + TTL; on TTL <= 0 the      *)
(*          keep-alive channel is closed (the session is over); the send   *)
(*          loop polls every 500 ms (retryConnWait) and resends while      *)
(*          nextKeepAlive is in the past, i.e. until an answer arrives.    *)
(*  [JEPSEN] Jepsen, "etcd 3.4.3" (2020-01-30) and etcd issue #11457:      *)
(*          etcd locks "did not, and can not, guarantee mutual exclusion": *)
(*          a holder paused (or partitioned) past its lease TTL still      *)
(*          believes it holds the lock after the lease expired and another *)
(*          client acquired it. etcd's contrib/lock README gives fencing   *)
(*          (the storage rejects stale tokens) as the remedy; the lock     *)
(*          key's create revision is such a token.                         *)
(*                                                                         *)
(* Nodes: Server (0) is one linearizable etcd node (a Raft cluster seen    *)
(* as one: Jepsen found its KV operations strict serializable), never     *)
(* crashed or paused; clients 1..Clients; Resource (Clients + 1), the     *)
(* protected storage, an observer.                                         *)
(*                                                                         *)
(* Modelling choices, and why                                              *)
(*  - One tick = one second of etcd's TTL unit. Lease expiry is a server   *)
(*    timer per lease (named by the lease id) set to Ttl at grant and at   *)
(*    every successful renewal; it is due at 0 and the server then revokes *)
(*    the lease (the lessor's 500 ms expiry loop is below a tick). A       *)
(*    keep-alive reaching a lease whose timer is at 0 is answered TTL = 0  *)
(*    [LESSOR].                                                            *)
(*  - Keys: only the lock prefix is modelled. A key is pfx/<lease id>      *)
(*    [MUTEX], so kv is a function from lease ids to the key's             *)
(*    create_revision (and a ghost owner used only for NoForeignRelease).  *)
(*    Key values ("") are not modelled. The store revision rev grows by    *)
(*    one per transaction that writes (a Txn that puts, a Delete or a      *)
(*    revoke that removes a key); reads do not change it.                  *)
(*  - waitDeletes' Get and the Watch it opens are one server step: the     *)
(*    Range answer names the predecessor and the server registers the      *)
(*    watch at that same revision. This is exact because the real watch    *)
(*    starts WithRev(header.Revision) and so replays any delete between    *)
(*    the two RPCs; and the link is FIFO, so the event cannot overtake the *)
(*    Range answer. A client has at most one such watch (watchers[c]);    *)
(*    events carry the waiting session's lease id so that an event from   *)
(*    an abandoned attempt is recognised as stale. A client crash closes  *)
(*    its connection and so its watch.                                     *)
(*  - The keep-alive loop is the client timer "KeepAlive": the first       *)
(*    keep-alive is sent with the Lock's Txn right after the grant answer; *)
(*    after each answer with TTL > 0 the timer is max(1, Ttl \div 3) (the *)
(*    500 ms poll makes a sub-tick period one tick); after a send it is 1, *)
(*    so an unanswered keep-alive is resent every tick, as the send loop   *)
(*    does; an answer with TTL = 0 ends the loop. clientv3's own deadline  *)
(*    (close the channel when no answer came for TTL) is not modelled:     *)
(*    without drift it can only fire after the server's lease already      *)
(*    expired (the server counts from the renewal, the client from the     *)
(*    later answer), and the Mutex never looks at it. etcd's minimum TTL   *)
(*    is not modelled (every configuration's Ttl is at least 2).           *)
(*  - Requests (LeaseGrant, the tryAcquire Txn, waitDeletes' Get, the final*)
(*    Get, Unlock's Delete) carry one client timer "Request" of Timeout    *)
(*    ticks; the wait for the watch event has none. A failed attempt (a   *)
(*    timeout, "lease not found", ErrSessionExpired, or a failed validity  *)
(*    check) closes the session: stops keep-alives and sends LeaseRevoke   *)
(*    (which also deletes the key, subsuming Lock's own Unlock-on-error),  *)
(*    then waits Retry ticks (timer "Retry") and may then open a new       *)
(*    session at any moment (a weakly fair step, SEMANTICS §2). The        *)
(*    LeaseRevoke answer is not modelled: the client never waits on it.    *)
(*    An Unlock that times out counts as done.                             *)
(*  - Responses are matched to requests by kind, by the client's phase and *)
(*    by the session's lease id (the key is pfx/lease), standing for gRPC  *)
(*    discarding the answer of a cancelled call. A LeaseGrant answer has   *)
(*    no lease to match; a late one accepted by a later Granting attempt   *)
(*    names a real lease of this client, so it is harmless.                *)
(*  - Sessions: a client keeps its session across acquisitions (NewSession *)
(*    once, Lock/Unlock repeatedly); only a failed attempt opens a new     *)
(*    one, and after its last acquisition the client closes it            *)
(*    (Session.Close: LeaseRevoke).                                        *)
(*  - The client: "naive" holds from Lock's return until its write is      *)
(*    answered; "validity" keeps timer "Validity" = Ttl - Drift from each  *)
(*    grant or keep-alive answer (clientv3's deadline, less a drift        *)
(*    allowance) and checks, at the step at which Lock returns, that more  *)
(*    than Margin is left; if not, it never held the lock and the attempt  *)
(*    fails. The write is a separate (urgent) step after Lock returns, so *)
(*    a pause between the check and the use is possible, as in reality.   *)
(*    A holder writes once (token = its key's create revision, and the     *)
(*    ghost acquisition number) and, once the write is answered, unlocks.  *)
(*  - Ghost acquisition numbers (for NoStaleWrite) are drawn in the order  *)
(*    etcd grants the lock: when a key becomes the first-created key of    *)
(*    the prefix (put into an empty prefix, or its predecessor deleted),   *)
(*    the server draws the next number for it, and Lock's answer carries   *)
(*    it to the client. Drawing it instead at the client's Lock return     *)
(*    would call a write of the legitimate newer holder "stale" whenever   *)
(*    an old holder's Lock returns late (see RESULTS.md).                  *)
(*  - Crash of a client: its process state is lost (phase, session lease,  *)
(*    revision, timers); the count of completed acquisitions is the        *)
(*    scenario's workload and survives. It restarts idle and wants the    *)
(*    lock again if acquisitions are left. Its lease lives on in etcd until*)
(*    it expires, as in reality.                                           *)
(*  - Not modelled: watch resumption after a broken connection (a lost or  *)
(*    cut-off watch event is lost here, while the real client would resume *)
(*    the watch from its revision and get it); no checked configuration    *)
(*    has Loss or Partitions. Compaction (the watch revision is never      *)
(*    compacted away here). Leader changes, lease checkpoints.             *)
(*                                                                         *)
(* Properties (SEMANTICS §5). A client holds the lock (Holds) from the     *)
(* step at which Lock returns (and, for "validity", its check passes)      *)
(* until its write is answered; it wants the lock (Wants) from the step at *)
(* which it starts Lock until then, backing off included. The liveness     *)
(* properties are stated for the runs in which faults stop (FaultsStop),   *)
(* under weak fairness of Tick, of each client's own steps and timers, of  *)
(* lease expiry, of each link's delivery, and of Restart and Heal when     *)
(* Recovery = "eventual"; a client that is down for good no longer counts  *)
(* as wanting. Faults (crash, pause, drift, jumps, partitions, loss,       *)
(* duplication, and Restart/Heal when Recovery = "none") are never fair.   *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets

CONSTANTS
    Clients,       \* number of lock clients
    Ttl,           \* lease TTL in ticks
    Fencing,       \* the resource rejects writes with a lower token
    Retry,         \* ticks a failed client waits before a new session
    Timeout,       \* per-request timeout, client ticks
    Client,        \* "naive" or "validity"
    Drift,         \* validity client: drift allowance subtracted from Ttl
    Margin,        \* validity client: validity that must be left to write
    Acquisitions   \* per client; 0 = forever

ASSUME /\ Clients \in 1..5 /\ Ttl \in 1..30 /\ Fencing \in BOOLEAN
       /\ Retry \in 1..30 /\ Timeout \in 1..30
       /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..Ttl - 1 /\ Margin \in Nat /\ Acquisitions \in Nat

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
NodeSet == {Server} \cup ClientIds \cup {Resource}
Links == {<<c, Server>> : c \in ClientIds} \cup {<<Server, c>> : c \in ClientIds}
         \cup {<<c, Resource>> : c \in ClientIds} \cup {<<Resource, c>> : c \in ClientIds}

Role(n) == IF n = Server THEN "server" ELSE IF n = Resource THEN "observer" ELSE "client"

VARIABLES
    \* etcd
    rev,        \* the store revision
    nextLease,  \* the last lease id granted (ids are never reused)
    kv,         \* the keys under the lock prefix: lease id -> [create,
                \* owner, grant]; owner and grant are ghosts (below)
    watchers,   \* watchers[c]: None, or the key c's waitDelete watches and
                \* the lease of the session that watches it
    \* clients
    phase,      \* where the client is in its recipe (Phases)
    lease,      \* the session's lease id, 0 if no session
    myRev,      \* Mutex.myRev: the create revision of my key, 0 if none
    acq,        \* ghost: the grant number of the current hold, 0 if none
    done,       \* acquisitions completed (0 when Acquisitions = 0)
    \* the resource
    resMax,     \* the highest fencing token accepted (Fencing only)
    resGhost    \* ghost: the highest acquisition number accepted

serverVars == <<rev, nextLease, kv, watchers>>
clientVars == <<phase, lease, myRev, acq, done>>
resourceVars == <<resMax, resGhost>>
algVars == <<rev, nextLease, kv, watchers, phase, lease, myRev, acq, done, resMax, resGhost>>
vars == <<worldVars, algVars>>

Phases == {"Idle",        \* does not want the lock (start, between acquisitions)
           "Granting",    \* NewSession: LeaseGrant sent
           "Acquiring",   \* Lock: tryAcquire Txn sent
           "Ranging",     \* waitDeletes: Get(pfx, LastCreate, MaxCreateRev) sent
           "Watching",    \* waitDeletes: waiting for the predecessor's DELETE
           "Confirming",  \* Lock: final Get(myKey) sent
           "Locked",      \* Lock returned: holds, about to write
           "Writing",     \* holds, write sent to the resource
           "Unlocking",   \* Unlock: Delete(myKey) sent
           "Backoff",     \* a failed attempt: waiting to open a new session
           "Done"}        \* all acquisitions made, session closed
ClientTimers == {"KeepAlive", "Request", "Retry", "Validity"}
StepNames == {"Start", "Write"}

KaPeriod == IF Ttl \div 3 >= 1 THEN Ttl \div 3 ELSE 1
Max(a, b) == IF a >= b THEN a ELSE b

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS.md §5).                                        *)

Holds(c) == phase[c] \in {"Locked", "Writing"}
Wants(c) == phase[c] \in {"Granting", "Acquiring", "Ranging", "Watching", "Confirming", "Backoff"}
Live(c) == status[c] # "Down"

\* What World needs.
Urgent(n) == n \in ClientIds /\ phase[n] = "Locked"
Cap(n, w) == 0          \* no stopwatches
MayPause(n) == TRUE

-----------------------------------------------------------------------------
Init ==
    /\ WorldInit(NodeSet, Links)
    /\ rev = 1
    /\ nextLease = 0
    /\ kv = [k \in {} |-> [create |-> 0, owner |-> 0, grant |-> 0]]
    /\ watchers = [c \in ClientIds |-> None]
    /\ phase = [c \in ClientIds |-> "Idle"]
    /\ lease = [c \in ClientIds |-> 0]
    /\ myRev = [c \in ClientIds |-> 0]
    /\ acq = [c \in ClientIds |-> 0]
    /\ done = [c \in ClientIds |-> 0]
    /\ resMax = 0
    /\ resGhost = 0

-----------------------------------------------------------------------------
(* etcd                                                                    *)

\* Send each client d in D the DELETE event of the watch it registered.
RECURSIVE SendEvents(_, _)
SendEvents(q, D) ==
    IF D = {} THEN q
    ELSE LET d == CHOOSE x \in D : TRUE
         IN SendEvents(Send(q, Server, d, [type |-> "Event", lease |-> watchers[d].lease]),
                       D \ {d})

\* The ghost grant order. The lock is granted, at etcd, to the key with the
\* smallest create revision; it passes to a key when that key becomes the
\* first (put into an empty prefix, or its predecessor deleted). That key
\* then draws the next ghost number: acquisitions are numbered in the
\* order etcd grants them (see RESULTS.md for why not at Lock's return).
FirstKey(f) == CHOOSE k \in DOMAIN f : \A x \in DOMAIN f : f[k].create <= f[x].create
Granted(f) ==
    IF DOMAIN f # {} /\ f[FirstKey(f)].grant = 0
    THEN /\ kv' = [f EXCEPT ![FirstKey(f)].grant = ghost + 1]
         /\ ghost' = ghost + 1
    ELSE /\ kv' = f
         /\ UNCHANGED ghost

\* One write transaction deleting the keys K (at most one here): a new
\* revision if anything is deleted, and a DELETE event to each watcher of
\* a deleted key; q is the network the events are appended to.
DeleteKeys(K, q) ==
    LET D == {d \in ClientIds : watchers[d] # None /\ watchers[d].key \in K} IN
    /\ Granted([k \in DOMAIN kv \ K |-> kv[k]])
    /\ rev' = IF K = {} THEN rev ELSE rev + 1
    /\ watchers' = [d \in ClientIds |-> IF d \in D THEN None ELSE watchers[d]]
    /\ net' = SendEvents(q, D)

\* LeaseRevoke or expiry of lease l: its key is deleted, the lease is gone.
RevokeLease(l, q) ==
    /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, l)]
    /\ DeleteKeys(IF l \in DOMAIN kv THEN {l} ELSE {}, q)

FirstCreate(f) == LET rs == {f[k].create : k \in DOMAIN f} IN
                  CHOOSE r \in rs : \A x \in rs : r <= x
\* waitDeletes' Get: the key created last at or before revision r.
LastCreateUpTo(r) == LET ks == {k \in DOMAIN kv : kv[k].create <= r} IN
                     CHOOSE k \in ks : \A x \in ks : kv[x].create <= kv[k].create

\* etcd handles the oldest request from client c.
ServerRecv(c) ==
    LET m == Msg(c, Server)
        q == Pop(c, Server)
        Reply(r) == Send(q, Server, c, r)
    IN
    \/ /\ m.type = "Grant"
       /\ nextLease' = nextLease + 1
       /\ timers' = [timers EXCEPT ![Server] = SetTimer(@, nextLease + 1, Ttl)]
       /\ net' = Reply([type |-> "GrantResp", lease |-> nextLease + 1])
       /\ UNCHANGED <<rev, kv, watchers, history, ghost>>
    \/ /\ m.type = "KeepAlive"
       /\ LET alive == IsSet(Server, m.lease) /\ Left(Server, m.lease) > 0 IN
          /\ timers' = IF alive THEN [timers EXCEPT ![Server] = SetTimer(@, m.lease, Ttl)]
                       ELSE timers
          /\ net' = Reply([type |-> "KeepAliveResp", lease |-> m.lease,
                           ttl |-> IF alive THEN Ttl ELSE 0])
       /\ UNCHANGED <<rev, nextLease, kv, watchers, history, ghost>>
    \/ /\ m.type = "Revoke"
       /\ IF IsSet(Server, m.lease)
          THEN RevokeLease(m.lease, q)
          ELSE /\ net' = q /\ UNCHANGED <<timers, rev, kv, watchers, ghost>>
       /\ UNCHANGED <<nextLease, history>>
    \/ /\ m.type = "Txn"   \* tryAcquire; the key is pfx/m.lease
       /\ LET l == m.lease IN
          IF l \in DOMAIN kv
          THEN \* Else branch: Get(myKey), Get(pfx, FirstCreate)
               /\ net' = Reply([type |-> "TxnResp", lease |-> l, ok |-> TRUE,
                                myRev |-> kv[l].create, owner |-> FirstCreate(kv),
                                grant |-> kv[l].grant])
               /\ UNCHANGED <<rev, kv, ghost>>
          ELSE IF ~IsSet(Server, l)
          THEN \* Then branch's Put names a lease that does not exist
               /\ net' = Reply([type |-> "TxnResp", lease |-> l, ok |-> FALSE,
                                myRev |-> 0, owner |-> 0, grant |-> 0])
               /\ UNCHANGED <<rev, kv, ghost>>
          ELSE \* Then branch: Put(myKey, lease), Get(pfx, FirstCreate)
               LET kv2 == [k \in DOMAIN kv \cup {l} |->
                             IF k = l THEN [create |-> rev + 1, owner |-> c, grant |-> 0]
                             ELSE kv[k]]
                   first == DOMAIN kv = {}
               IN /\ Granted(kv2)
                  /\ rev' = rev + 1
                  /\ net' = Reply([type |-> "TxnResp", lease |-> l, ok |-> TRUE,
                                   myRev |-> rev + 1, owner |-> FirstCreate(kv2),
                                   grant |-> IF first THEN ghost + 1 ELSE 0])
       /\ UNCHANGED <<timers, nextLease, watchers, history>>
    \/ /\ m.type = "Range"  \* waitDeletes: Get, and Watch WithRev(header.Revision)
       /\ IF \E k \in DOMAIN kv : kv[k].create <= m.max
          THEN /\ watchers' = [watchers EXCEPT ![c] =
                                 [key |-> LastCreateUpTo(m.max), lease |-> m.lease]]
               /\ net' = Reply([type |-> "RangeResp", lease |-> m.lease, found |-> TRUE])
          ELSE /\ net' = Reply([type |-> "RangeResp", lease |-> m.lease, found |-> FALSE])
               /\ UNCHANGED watchers
       /\ UNCHANGED <<timers, rev, nextLease, kv, history, ghost>>
    \/ /\ m.type = "Get"    \* Lock's final Get(myKey)
       /\ net' = Reply([type |-> "GetResp", lease |-> m.lease, found |-> m.lease \in DOMAIN kv,
                        grant |-> IF m.lease \in DOMAIN kv THEN kv[m.lease].grant ELSE 0])
       /\ UNCHANGED <<timers, rev, nextLease, kv, watchers, history, ghost>>
    \/ /\ m.type = "Delete" \* Unlock: Delete(myKey)
       /\ LET K == IF m.lease \in DOMAIN kv THEN {m.lease} ELSE {} IN
          /\ DeleteKeys(K, Reply([type |-> "DeleteResp", lease |-> m.lease]))
          /\ history' = IF \E k \in K : kv[k].owner # c
                        THEN history \cup {"ForeignRelease"} ELSE history
       /\ UNCHANGED <<timers, nextLease>>

\* A lease's TTL ran out: the lessor revokes it.
ServerExpire ==
    /\ Up(Server)
    /\ \E l \in DOMAIN timers[Server] :
          /\ Due(Server, l)
          /\ RevokeLease(l, net)
    /\ UNCHANGED <<nextLease, history, clientVars, resourceVars,
                   status, pause, skew, watches, cut, spent, drawn>>

-----------------------------------------------------------------------------
(* The resource: accepts a write unless fencing rejects its token; raises  *)
(* StaleWrite when it accepts a write of an earlier acquisition than one   *)
(* it already accepted.                                                    *)

ResourceRecv(c) ==
    LET m == Msg(c, Resource)
        ok == ~Fencing \/ m.token >= resMax
    IN
    /\ resMax' = IF ok /\ Fencing THEN Max(resMax, m.token) ELSE resMax
    /\ resGhost' = IF ok THEN Max(resGhost, m.ghost) ELSE resGhost
    /\ history' = IF ok /\ m.ghost < resGhost THEN history \cup {"StaleWrite"} ELSE history
    /\ net' = Send(Pop(c, Resource), Resource, c, [type |-> "WriteResp", ok |-> ok])
    /\ UNCHANGED <<timers, serverVars, clientVars>>

-----------------------------------------------------------------------------
(* The client. Each helper takes q, the network so far, and tm, client c's *)
(* timers so far, and sets net', timers', the client's variables and      *)
(* ghost.                                                                  *)

SetC(f, c, v) == [f EXCEPT ![c] = v]
WithValidity(tm) == IF Client = "validity" THEN SetTimer(tm, "Validity", Ttl - Drift) ELSE tm
EndSession(tm) == CancelTimer(CancelTimer(CancelTimer(tm, "KeepAlive"), "Request"), "Validity")
RevokeMsg(c) == [type |-> "Revoke", lease |-> lease[c]]

\* A failed attempt: close the session (stop keep-alives, LeaseRevoke) and
\* back off.
FailAttempt(c, q, tm) ==
    /\ net' = IF lease[c] # 0 THEN Send(q, c, Server, RevokeMsg(c)) ELSE q
    /\ timers' = [timers EXCEPT ![c] = SetTimer(EndSession(tm), "Retry", Retry)]
    /\ phase' = SetC(phase, c, "Backoff")
    /\ lease' = SetC(lease, c, 0)
    /\ myRev' = SetC(myRev, c, 0)
    /\ acq' = SetC(acq, c, 0)
    /\ UNCHANGED <<done, ghost>>

\* Lock returns with my key first (revision r, ghost grant number g). The
\* validity client checks its lease's remaining validity here, at the step
\* Lock returns.
LockReturns(c, q, tm, r, g) ==
    IF Client = "validity" /\ ~("Validity" \in DOMAIN tm /\ tm["Validity"] > Margin)
    THEN FailAttempt(c, q, tm)
    ELSE /\ net' = q
         /\ timers' = [timers EXCEPT ![c] = CancelTimer(tm, "Request")]
         /\ phase' = SetC(phase, c, "Locked")
         /\ myRev' = SetC(myRev, c, r)
         /\ acq' = SetC(acq, c, g)
         /\ UNCHANGED <<lease, done, ghost>>

\* Send a request and start its timeout.
Request(c, q, tm, m, ph) ==
    /\ net' = Send(q, c, Server, m)
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Request", Timeout)]
    /\ phase' = SetC(phase, c, ph)

RangeMsg(c, r) == [type |-> "Range", lease |-> lease[c], max |-> r - 1]

\* Unlock answered (or timed out): one acquisition done; after the last,
\* Session.Close.
FinishAcquisition(c, q, tm) ==
    LET d == IF Acquisitions = 0 THEN 0 ELSE done[c] + 1
        last == Acquisitions # 0 /\ d >= Acquisitions
    IN
    /\ done' = SetC(done, c, d)
    /\ IF last
       THEN /\ net' = IF lease[c] # 0 THEN Send(q, c, Server, RevokeMsg(c)) ELSE q
            /\ timers' = [timers EXCEPT ![c] = EndSession(tm)]
            /\ phase' = SetC(phase, c, "Done")
            /\ lease' = SetC(lease, c, 0)
       ELSE /\ net' = q
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(tm, "Request")]
            /\ phase' = SetC(phase, c, "Idle")
            /\ UNCHANGED lease
    /\ myRev' = SetC(myRev, c, 0)
    /\ acq' = SetC(acq, c, 0)
    /\ UNCHANGED ghost

\* The world variables a client's or server's handler never touches.
Fixed == <<status, pause, skew, watches, cut, spent, drawn>>

\* Client c handles the oldest message from etcd.
ClientFromServer(c) ==
    LET m == Msg(Server, c)
        q == Pop(Server, c)
        tm == timers[c]
        mine == lease[c] # 0 /\ m.lease = lease[c]
    IN
    /\ \/ /\ m.type = "GrantResp" /\ phase[c] = "Granting"
          \* NewSession: KeepAlive at once; then Lock's tryAcquire Txn
          /\ lease' = SetC(lease, c, m.lease)
          /\ net' = Send(Send(q, c, Server, [type |-> "KeepAlive", lease |-> m.lease]),
                         c, Server, [type |-> "Txn", lease |-> m.lease])
          /\ timers' = [timers EXCEPT ![c] =
                          WithValidity(SetTimer(SetTimer(tm, "KeepAlive", 1), "Request", Timeout))]
          /\ phase' = SetC(phase, c, "Acquiring")
          /\ UNCHANGED <<myRev, acq, done, ghost>>
       \/ /\ m.type = "KeepAliveResp" /\ mine /\ IsSet(c, "KeepAlive")
          /\ timers' = [timers EXCEPT ![c] =
                          IF m.ttl > 0 THEN WithValidity(SetTimer(tm, "KeepAlive", KaPeriod))
                          ELSE CancelTimer(CancelTimer(tm, "KeepAlive"), "Validity")]
          /\ net' = q
          /\ UNCHANGED <<phase, lease, myRev, acq, done, ghost>>
       \/ /\ m.type = "TxnResp" /\ mine /\ phase[c] = "Acquiring"
          /\ IF ~m.ok THEN FailAttempt(c, q, tm)
             ELSE IF m.owner = m.myRev THEN LockReturns(c, q, tm, m.myRev, m.grant)
             ELSE /\ Request(c, q, tm, RangeMsg(c, m.myRev), "Ranging")
                  /\ myRev' = SetC(myRev, c, m.myRev)
                  /\ UNCHANGED <<lease, acq, done, ghost>>
       \/ /\ m.type = "RangeResp" /\ mine /\ phase[c] = "Ranging"
          /\ IF m.found
             THEN /\ net' = q
                  /\ timers' = [timers EXCEPT ![c] = CancelTimer(tm, "Request")]
                  /\ phase' = SetC(phase, c, "Watching")
             ELSE Request(c, q, tm, [type |-> "Get", lease |-> lease[c]], "Confirming")
          /\ UNCHANGED <<lease, myRev, acq, done, ghost>>
       \/ /\ m.type = "Event" /\ mine /\ phase[c] = "Watching"
          /\ Request(c, q, tm, RangeMsg(c, myRev[c]), "Ranging")
          /\ UNCHANGED <<lease, myRev, acq, done, ghost>>
       \/ /\ m.type = "GetResp" /\ mine /\ phase[c] = "Confirming"
          /\ IF m.found THEN LockReturns(c, q, tm, myRev[c], m.grant)
             ELSE FailAttempt(c, q, tm)   \* ErrSessionExpired
       \/ /\ m.type = "DeleteResp" /\ mine /\ phase[c] = "Unlocking"
          /\ FinishAcquisition(c, q, tm)
       \/ /\ \* a stale answer (of a cancelled call or an ended session)
             ~ \/ m.type = "GrantResp" /\ phase[c] = "Granting"
               \/ m.type = "KeepAliveResp" /\ mine /\ IsSet(c, "KeepAlive")
               \/ m.type = "TxnResp" /\ mine /\ phase[c] = "Acquiring"
               \/ m.type = "RangeResp" /\ mine /\ phase[c] = "Ranging"
               \/ m.type = "Event" /\ mine /\ phase[c] = "Watching"
               \/ m.type = "GetResp" /\ mine /\ phase[c] = "Confirming"
               \/ m.type = "DeleteResp" /\ mine /\ phase[c] = "Unlocking"
          /\ net' = q
          /\ UNCHANGED <<timers, clientVars, ghost>>
    /\ UNCHANGED <<serverVars, resourceVars, history>>

\* Client c handles the resource's answer to its write: Unlock.
ClientFromResource(c) ==
    LET q == Pop(Resource, c) IN
    /\ IF phase[c] = "Writing"
       THEN /\ Request(c, q, timers[c], [type |-> "Delete", lease |-> lease[c]], "Unlocking")
            /\ acq' = SetC(acq, c, 0)
       ELSE /\ net' = q
            /\ UNCHANGED <<timers, phase, acq>>
    /\ UNCHANGED <<lease, myRev, done, ghost, serverVars, resourceVars, history>>

\* A client's own steps.
Step(c, s) ==
    /\ Up(c)
    /\ \/ /\ s = "Start"   \* wants the lock: Lock (opening a session if none)
          /\ \/ phase[c] = "Idle"
             \/ phase[c] = "Backoff" /\ ~IsSet(c, "Retry")
          /\ IF lease[c] # 0
             THEN Request(c, net, timers[c], [type |-> "Txn", lease |-> lease[c]], "Acquiring")
             ELSE Request(c, net, timers[c], [type |-> "Grant"], "Granting")
          /\ UNCHANGED <<lease, myRev, acq, done, ghost>>
       \/ /\ s = "Write"   \* the holder uses the resource
          /\ phase[c] = "Locked"
          /\ net' = Send(net, c, Resource, [type |-> "Write", token |-> myRev[c], ghost |-> acq[c]])
          /\ phase' = SetC(phase, c, "Writing")
          /\ UNCHANGED <<timers, lease, myRev, acq, done, ghost>>
    /\ UNCHANGED <<serverVars, resourceVars, history, Fixed>>

\* A client's timer fires.
Fire(c, t) ==
    /\ Up(c) /\ Due(c, t)
    /\ LET tm == Expired(c, t)[c] IN
       CASE t = "KeepAlive" ->
              /\ net' = Send(net, c, Server, [type |-> "KeepAlive", lease |-> lease[c]])
              /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "KeepAlive", 1)]
              /\ UNCHANGED <<clientVars, ghost>>
         [] t = "Request" /\ phase[c] \in {"Granting", "Acquiring", "Ranging", "Confirming"} ->
              FailAttempt(c, net, tm)
         [] t = "Request" /\ phase[c] = "Unlocking" ->
              FinishAcquisition(c, net, tm)
         [] OTHER ->
              /\ timers' = Expired(c, t)
              /\ UNCHANGED <<net, clientVars, ghost>>
    /\ UNCHANGED <<serverVars, resourceVars, history, Fixed>>

-----------------------------------------------------------------------------
(* Delivery: the oldest message of a link to a running node.               *)

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ dst = Server /\ ServerRecv(src)
          /\ UNCHANGED <<clientVars, resourceVars, Fixed>>
       \/ src = Server /\ ClientFromServer(dst) /\ UNCHANGED Fixed
       \/ dst = Resource /\ ResourceRecv(src) /\ UNCHANGED <<Fixed, ghost>>
       \/ src = Resource /\ ClientFromResource(dst) /\ UNCHANGED Fixed

-----------------------------------------------------------------------------
(* The world's actions.                                                    *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* etcd is never crashed or paused: crashes and pauses target clients.
Crash(c) ==
    /\ c \in ClientIds
    /\ WorldCrash(c, NoTimers, Role)
    /\ phase' = SetC(phase, c, IF Acquisitions # 0 /\ done[c] >= Acquisitions THEN "Done" ELSE "Idle")
    /\ lease' = SetC(lease, c, 0)
    /\ myRev' = SetC(myRev, c, 0)
    /\ acq' = SetC(acq, c, 0)
    /\ watchers' = SetC(watchers, c, None)   \* its watch stream is closed
    /\ UNCHANGED <<done, rev, nextLease, kv, resourceVars>>

Restart(c) ==
    /\ c \in ClientIds
    /\ WorldRestart(c)
    /\ timers' = [timers EXCEPT ![c] = NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history, algVars>>

Pause(c, k) == c \in ClientIds /\ WorldPause(c, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Lose(s, d, i) == WorldLose(s, d, i, Role) /\ UNCHANGED algVars
Duplicate(s, d, i) == WorldDuplicate(s, d, i, Role) /\ UNCHANGED algVars
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

NoFault ==
    \/ Tick
    \/ \E c \in ClientIds, s \in StepNames : Step(c, s)
    \/ \E c \in ClientIds, t \in ClientTimers : Fire(c, t)
    \/ ServerExpire
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (\/ \E c \in ClientIds : Restart(c)
                      \/ Heal)

Fault ==
    \/ DriftTick
    \/ \E c \in ClientIds : Crash(c)
    \/ ~Recoveries /\ (\/ \E c \in ClientIds : Restart(c)
                       \/ Heal)
    \/ \E c \in ClientIds, k \in MinPause..MaxPause : Pause(c, k)
    \/ \E a, b \in NodeSet : Partition(a, b)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in NodeSet, by \in -MaxJump..MaxJump : ClockJump(n, by)

Next == NoFault \/ Fault

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds, s \in StepNames : WF_vars(Step(c, s))
    /\ \A c \in ClientIds, t \in ClientTimers : WF_vars(Fire(c, t))
    /\ WF_vars(ServerExpire)
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A c \in ClientIds : WF_vars(Restart(c))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties (SEMANTICS.md §5).                                           *)

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = NodeSet
    /\ rev \in Nat /\ rev >= 1 /\ nextLease \in Nat
    /\ DOMAIN kv \subseteq 1..nextLease
    /\ \A k \in DOMAIN kv : kv[k].create \in 2..rev /\ kv[k].owner \in ClientIds
                          /\ kv[k].grant \in 0..ghost
    /\ \A c \in ClientIds : Holds(c) => acq[c] \in 1..ghost
    /\ \A c \in ClientIds : watchers[c] = None \/
          (watchers[c].key \in 1..nextLease /\ watchers[c].lease \in 1..nextLease)
    /\ phase \in [ClientIds -> Phases]
    /\ lease \in [ClientIds -> 0..nextLease]
    /\ myRev \in [ClientIds -> 0..rev]
    /\ acq \in [ClientIds -> 0..ghost]
    /\ done \in [ClientIds -> 0..Acquisitions]
    /\ resMax \in 0..rev /\ resGhost \in 0..ghost
    /\ DOMAIN timers[Server] \subseteq 1..nextLease
    /\ \A c \in ClientIds : DOMAIN timers[c] \subseteq ClientTimers
    /\ DOMAIN timers[Resource] = {}

MutualExclusion == \A c, d \in ClientIds : c # d => ~(Holds(c) /\ Holds(d))
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

FaultsStop == <>[][NoFault]_vars

SomeWants == \E c \in ClientIds : Live(c) /\ Wants(c)
SomeHolds == \E c \in ClientIds : Holds(c)

\* Whenever a running client wants the lock, some client eventually holds
\* it (or no running client wants it any more: it crashed for good).
DeadlockFreedom == FaultsStop => (SomeWants ~> (SomeHolds \/ ~SomeWants))

\* Every running client that wants the lock eventually holds it (or is
\* down).
StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : (Live(c) /\ Wants(c)) ~> (Holds(c) \/ ~Live(c))

=============================================================================
