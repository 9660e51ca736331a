------------------------------ MODULE EtcdLease ------------------------------
(***************************************************************************)
(* etcd-lease: a lock on one etcd cluster, after etcd's own lock, as       *)
(* published:                                                              *)
(*   - etcd, clientv3 package concurrency (go.etcd.io/etcd/client/v3/      *)
(*     concurrency): NewSession (a lease; client/v3/lease.go sends its     *)
(*     first keep-alive at once, the next TTL/3 after each answer),        *)
(*     Mutex.Lock (a transaction that puts the key pfx/<lease ID> with the *)
(*     lease if its create revision is 0; the owner is the key with the    *)
(*     lowest create revision; waitDeletes watches the key with the        *)
(*     largest create revision below one's own until it is deleted, then   *)
(*     looks again; a key gone meanwhile is ErrSessionExpired),            *)
(*     Mutex.Unlock (delete the key), Session.Close (revoke the lease);    *)
(*     the v3lock service runs the same Mutex for its callers;             *)
(*   - etcd documentation, "Interacting with etcd" (LeaseGrant,            *)
(*     LeaseKeepAlive, LeaseRevoke: a lease expires when no keep-alive     *)
(*     arrives within its TTL, and the keys attached to it are deleted)    *)
(*     and "API guarantees" (one linearizable store; every modification    *)
(*     moves the revision on; a watch from a revision delivers every event *)
(*     after it);                                                          *)
(*   - Martin Kleppmann, How to do distributed locking (2016): a lease     *)
(*     does not protect against a paused holder; a fencing token does,     *)
(*     and etcd's revision can be one.                                     *)
(* The cluster is one linearizable server (Raft inside it is out of        *)
(* scope) that stays available: no crash or pause hits it. Clients time    *)
(* out their requests (Timeout), draw a fresh lease ID per attempt (etcd   *)
(* lets a client choose it; every answer names it, so an answer to an      *)
(* older attempt is ignored), and are "naive" (hold from learning they are *)
(* first until the write is answered) or "validity" (clientv3's session:   *)
(* the lease's TTL - Drift counted on the client's clock from each grant   *)
(* or keep-alive answer, a Validity timer, a Check of more than Margin     *)
(* left, then the Write).                                                  *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/etcd_lease/ (with                *)
(* src/algorithms/common/client.rs for the client's script and             *)
(* src/algorithms/common/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Check, Write; the server's ReceiveLeaseGrant,                  *)
(* ReceiveLeaseKeepAlive, ReceiveLeaseRevoke, ReceiveLock, ReceiveWatch,   *)
(* ReceiveRange, ReceiveUnlock; the client's ReceiveLeaseGranted,          *)
(* ReceiveKeepAliveAnswer, ReceiveLocked, ReceiveLeaseNotFound,            *)
(* ReceiveDeleted, ReceiveRangeAnswer, Release, ReceiveUnlocked; the       *)
(* resource's ReceiveWrite; the timers (LeaseExpires on the server; Fire:  *)
(* TimedOut, KeepAlive, LeaseLost, Retry on a client); then the world:     *)
(* Tick, Crash, Restart, Pause.                                            *)
(*                                                                         *)
(* Same configuration, same states: every variable is a field of the Rust  *)
(* world state, and every field of it that can change here is a variable.  *)
(* The world (time, network, faults, fairness) is World.tla's, and so are  *)
(* its variables (status, pause, timers, net, spent, ghost, drawn: the     *)
(* last lease ID drawn, history); the server's timers are its leases'      *)
(* expiries, named by slot (LeaseExpiry { slot: s } is timers[0][s]).      *)
(*   revision, leases, keys, keyWatches   Server (leases[s]: the lease ID  *)
(*                   in slot s of the lease table, 0 for none; keys and    *)
(*                   keyWatches, the watches on keys, as sets of records:  *)
(*                   Rust keeps them sorted)                               *)
(*   phase, left     Client::script; stage, lease, rev, checked as in      *)
(*                   Client; acquired is Client::ghost                     *)
(*   max_token, max_ghost   Resource                                       *)
(* Values that only grow (ghost numbers; lease IDs; revisions) are         *)
(* renumbered by rank after every action in Rust (src/world/ranks.rs);     *)
(* RankedVars is that renumbered state, and the .cfg's VIEW makes TLC      *)
(* count states by it.                                                     *)
(* Not modelled (the ASSUME refuses them; the Rust module rejects them or  *)
(* no tabled scenario uses them): clock drift and jumps, partitions, loss, *)
(* duplication, reordering, recovery = "none", faults of the server.       *)
(*                                                                         *)
(* Node ids as in Rust: the server is 0, clients 1..Clients, the resource  *)
(* Clients + 1.                                                            *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: the lease TTL, in the server's ticks
    Fencing,       \* [system] fencing: the resource checks create revisions
    Retry,         \* [system] retry: ticks a failed client waits
    Timeout,       \* [system] timeout: the request timeout, client ticks
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: allowance subtracted from the TTL
    Margin,        \* [system] margin: validity needed at the Check
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..4 /\ Ttl \in 1..30 /\ Retry \in 1..10
       /\ Fencing \in BOOLEAN
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Acquisitions \in 0..5
       \* The world's faults this family models: client crashes and pauses
       \* (the cluster stays available), and delay.
       /\ (Crashes > 0 \/ Pauses > 0) => Targets = "clients"
       /\ Recovery = "eventual"
       /\ ClockJumps = 0 /\ MaxDrift = 0 /\ Partitions = 0 /\ ~Loss /\ ~Duplication

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1
Links == AllNodes \X AllNodes
TimerNames == {"Timeout", "KeepAlive", "Validity", "Retry"}
Validity == Client = "validity"

\* The server's lease table: a new lease takes the lowest free slot, whose
\* name its expiry timer bears. Live leases: each client's current one and
\* at most one orphan per crash (a crashed client's lease, or the lease its
\* grant in flight creates); a closed session's revoke reaches the server
\* before the client's next grant (FIFO).
Slots == 0..(Clients + Crashes - 1)

\* clientv3's keep-alive period, a third of the TTL (Params::keep_alive_every).
KeepAliveEvery == IF Ttl \div 3 > 1 THEN Ttl \div 3 ELSE 1

\* client::validity_left with nothing elapsed: clientv3 counts the TTL from
\* the answer's arrival.
ValidityLeft == Ttl - Drift

\* The world's view of the nodes (World.tla's hooks). Crashes and pauses
\* hit clients only (ASSUME above).
Role(n) == CASE n = Server -> "server" [] n = Resource -> "observer" [] OTHER -> "client"
\* No stopwatches in this family.
Cap(n, w) == 0
MayPause(n) == TRUE

VARIABLES
    revision,   \* the store's revision
    leases,     \* leases[s]: the lease ID in slot s, 0 for none
    keys,       \* the keys /lock/<lease>: [create, lease, ghost]
    keyWatches, \* the watches on keys, for a DELETE: [watcher, id, key]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    stage,      \* stage[c]: within Acquiring, Grant, Put, Watch or Range
    lease,      \* lease[c]: the attempt's lease ID, 0 between attempts
    rev,        \* rev[c]: its key's create revision, 0 until known
    checked,    \* checked[c]: a validity client found validity left
    acquired,   \* acquired[c]: the ghost number of c's key
    max_token,  \* the resource's highest accepted revision
    max_ghost   \* ghost: the latest acquisition a write was accepted under

\* The world's variables no handler changes.
fixed == <<status, pause, skew, watches, cut, spent>>
serverVars == <<revision, leases, keys, keyWatches>>
clientVars == <<phase, left, stage, lease, rev, checked, acquired>>
resourceVars == <<max_token, max_ghost>>
algVars == <<revision, leases, keys, keyWatches,
             phase, left, stage, lease, rev, checked, acquired, max_token, max_ghost>>
vars == <<worldVars, algVars>>

Min(S) == CHOOSE x \in S : \A y \in S : x <= y

-----------------------------------------------------------------------------
(* The client's script (common/client.rs) and the lock view (properties.rs). *)

\* A naive client believes it holds the lock from the moment it is first
\* until its write is answered; a validity client, while Holding, only
\* while its validity timer is above zero or once it has checked it, and it
\* still wants the lock until it has checked (docs/design.md §5).
Holds(c) ==
    \/ /\ phase[c] = "Holding"
       /\ \/ ~Validity \/ checked[c]
          \/ IsSet(c, "Validity") /\ timers[c]["Validity"] > 0
    \/ phase[c] = "Writing"
Wants(c) ==
    \/ phase[c] \in {"Want", "Acquiring"}
    \/ phase[c] = "Holding" /\ Validity /\ ~checked[c]

Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Client::forget: what only mattered to the attempt or hold that ended.
Forget(c) ==
    /\ stage' = [stage EXCEPT ![c] = "Grant"]
    /\ lease' = [lease EXCEPT ![c] = 0]
    /\ rev' = [rev EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

\* close_session's timers: no keep-alive, validity or request timeout left.
Closed(tm) == CancelTimer(CancelTimer(CancelTimer(tm, "KeepAlive"), "Validity"), "Timeout")

Revoke(c) == [type |-> "LeaseRevoke", id |-> lease[c]]

\* start_over: the attempt failed; close the session (LeaseRevoke, not
\* waited for) and try again after the back-off. q, tm: the network and
\* the client's timers so far.
StartOver(c, q, tm) ==
    /\ net' = Send(q, c, Server, Revoke(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(Closed(tm), "Retry", Retry)]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ Forget(c)
    /\ UNCHANGED left

\* released: the unlock is over (answered or timed out); close the session.
Released(c, q, tm) ==
    /\ net' = Send(q, c, Server, Revoke(c))
    /\ timers' = [timers EXCEPT ![c] = Closed(tm)]
    /\ IF Acquisitions = 0
       THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
            /\ UNCHANGED left
       ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
            /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]
    /\ Forget(c)

\* lease_lost: a validity client learns its lease is gone; an attempt, or
\* a hold it has not checked yet, is over.
LeaseLost(c, q, tm) ==
    IF phase[c] = "Acquiring" \/ (phase[c] = "Holding" /\ ~checked[c])
    THEN StartOver(c, q, tm)
    ELSE /\ net' = q
         /\ timers' = [timers EXCEPT ![c] = tm]
         /\ UNCHANGED clientVars

\* wait_for: no predecessor, the client holds (its stage stays as it was);
\* otherwise it watches the predecessor's key.
WaitFor(c, pred, q) ==
    IF pred = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Holding"]
         /\ net' = q
         /\ UNCHANGED stage
    ELSE /\ net' = Send(q, c, Server, [type |-> "Watch", id |-> lease[c], key |-> pred])
         /\ stage' = [stage EXCEPT ![c] = "Watch"]
         /\ UNCHANGED phase

-----------------------------------------------------------------------------
(* Client steps. Check and Write are urgent: time does not pass while a    *)
(* running client has one. Acquire is not (Actor::urgent): a client comes  *)
(* to want the lock, and retries after its back-off, at any moment, but    *)
(* not never (it is weakly fair).                                          *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == phase[c] = "Holding" /\ Validity /\ ~checked[c]
CanWrite(c) == phase[c] = "Holding" /\ (~Validity \/ checked[c])
HasUrgentStep(n) == n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n))

\* Acquire: NewSession: LeaseGrant(Ttl, ID) with a fresh ID, and a timeout.
Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ lease' = [lease EXCEPT ![c] = v]
    /\ net' = Send(net, c, Server, [type |-> "LeaseGrant", id |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ stage' = [stage EXCEPT ![c] = "Grant"]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, revision, leases, keys, keyWatches,
                   left, rev, checked, acquired, resourceVars>>

\* Check: is more than the margin left? Only then write; else start over.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ UNCHANGED <<net, timers, phase, left, stage, lease, rev, acquired>>
       ELSE StartOver(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history,
                   revision, leases, keys, keyWatches, resourceVars>>

\* Write: the critical section's write, with the create revision as the
\* token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, Resource,
                   [type |-> "Write", token |-> IF Fencing THEN rev[c] ELSE 0,
                    ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, serverVars,
                   left, stage, lease, rev, checked, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The server executes one request atomically: etcd is linearizable        *)
(* (server_receive). Each handler delivers the head of the link src ->     *)
(* server.                                                                 *)

HasKey(id) == \E k \in keys : k.lease = id
SlotOf(id) == CHOOSE s \in Slots : leases[s] = id
HasLease(id) == \E s \in Slots : leases[s] = id
FreeSlot == Min({s \in Slots : leases[s] = 0})

\* The DELETE event of /lock/<key> to every watcher of it, in the order of
\* the watches' IDs (Rust keeps the watches sorted).
RECURSIVE NotifyIds(_, _, _, _)
NotifyIds(q, w, key, ids) ==
    IF ids = {} THEN q
    ELSE LET i == Min(ids)
         IN  NotifyIds(Send(q, Server, w, [type |-> "Deleted", id |-> i, key |-> key]),
                       w, key, ids \ {i})
RECURSIVE NotifyFrom(_, _, _)
NotifyFrom(q, key, w) ==
    IF w > Clients THEN q
    ELSE NotifyFrom(NotifyIds(q, w, key, {x.id : x \in {y \in keyWatches : y.watcher = w /\ y.key = key}}),
                    key, w + 1)
Notify(q, key) == NotifyFrom(q, key, 1)

\* delete_keys_of: the keys of lease id go, in one write transaction (one
\* revision), and their watchers get the DELETE events. q: the network so
\* far; the caller sets net' to the result of DeletedNet.
DeleteKeysOf(id) ==
    /\ keys' = {k \in keys : k.lease # id}
    /\ revision' = IF HasKey(id) THEN revision + 1 ELSE revision
    /\ keyWatches' = {w \in keyWatches : w.key # id}
DeletedNet(q, id) == IF HasKey(id) THEN Notify(q, id) ELSE q

\* The newest key created before revision below, other than lease id's; 0
\* for none.
Pred(ks, id, below) ==
    LET S == {k \in ks : k.lease # id /\ k.create < below}
    IN  IF S = {} THEN 0 ELSE (CHOOSE k \in S : \A j \in S : j.create <= k.create).lease

\* LeaseGrant: a new lease, in the lowest free slot.
ReceiveLeaseGrant(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "LeaseGrant"
    /\ leases' = [leases EXCEPT ![FreeSlot] = m.id]
    /\ timers' = [timers EXCEPT ![Server] = SetTimer(@, FreeSlot, Ttl)]
    /\ net' = Send(Pop(src, Server), Server, src, [type |-> "LeaseGranted", id |-> m.id])
    /\ UNCHANGED <<fixed, ghost, drawn, history, revision, keys, keyWatches,
                   clientVars, resourceVars>>

\* LeaseKeepAlive: the TTL starts again; the answer says the TTL, or 0
\* when the lease is gone.
ReceiveLeaseKeepAlive(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "LeaseKeepAlive"
    /\ timers' = IF HasLease(m.id)
                 THEN [timers EXCEPT ![Server] = SetTimer(@, SlotOf(m.id), Ttl)] ELSE timers
    /\ net' = Send(Pop(src, Server), Server, src,
                   [type |-> "KeepAliveAnswer", id |-> m.id, alive |-> HasLease(m.id)])
    /\ UNCHANGED <<fixed, ghost, drawn, history,
                   revision, leases, keys, keyWatches, clientVars, resourceVars>>

\* LeaseRevoke: the lease and its keys go. No answer is waited for.
ReceiveLeaseRevoke(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "LeaseRevoke"
    /\ IF HasLease(m.id)
       THEN /\ leases' = [leases EXCEPT ![SlotOf(m.id)] = 0]
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, SlotOf(m.id))]
            /\ DeleteKeysOf(m.id)
            /\ net' = DeletedNet(Pop(src, Server), m.id)
       ELSE /\ net' = Pop(src, Server)
            /\ UNCHANGED <<timers, serverVars>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, clientVars, resourceVars>>

\* The lock transaction: if create_revision(/lock/ID) = 0 then put it with
\* the lease; and the newest other key. The put fails when the lease is
\* gone ("requested lease not found").
ReceiveLock(src) ==
    LET m == Msg(src, Server)
        fresh == ~HasKey(m.id)
        key == IF fresh THEN [create |-> revision + 1, lease |-> m.id, ghost |-> ghost + 1]
               ELSE CHOOSE k \in keys : k.lease = m.id
        ks == keys \cup {key}
    IN
    /\ Deliverable(src, Server) /\ m.type = "Lock"
    /\ IF ~HasLease(m.id)
       THEN /\ net' = Send(Pop(src, Server), Server, src, [type |-> "LeaseNotFound", id |-> m.id])
            /\ UNCHANGED <<ghost, revision, keys>>
       ELSE /\ keys' = ks
            /\ revision' = IF fresh THEN revision + 1 ELSE revision
            /\ ghost' = IF fresh THEN ghost + 1 ELSE ghost
            /\ net' = Send(Pop(src, Server), Server, src,
                           [type |-> "Locked", id |-> m.id, rev |-> key.create,
                            pred |-> Pred(ks, m.id, key.create), ghost |-> key.ghost])
    /\ UNCHANGED <<fixed, timers, drawn, history, leases, keyWatches,
                   clientVars, resourceVars>>

\* Watch(/lock/key, rev): from a revision before any delete, so a key
\* already gone gives its DELETE event at once.
ReceiveWatch(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "Watch"
    /\ IF HasKey(m.key)
       THEN /\ keyWatches' = keyWatches \cup {[watcher |-> src, id |-> m.id, key |-> m.key]}
            /\ net' = Pop(src, Server)
       ELSE /\ net' = Send(Pop(src, Server), Server, src,
                           [type |-> "Deleted", id |-> m.id, key |-> m.key])
            /\ UNCHANGED keyWatches
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, revision, leases, keys,
                   clientVars, resourceVars>>

\* The range transaction: the newest key below rev, and the client's own.
ReceiveRange(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "Range"
    /\ net' = Send(Pop(src, Server), Server, src,
                   [type |-> "RangeAnswer", id |-> m.id, pred |-> Pred(keys, m.id, m.rev),
                    mine |-> HasKey(m.id)])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, serverVars,
                   clientVars, resourceVars>>

\* The unlock transaction: if create_revision(/lock/ID) = rev then delete
\* it. It never deletes another client's key (a key of this lease with
\* another revision would be a foreign release; there is none).
ReceiveUnlock(src) ==
    LET m == Msg(src, Server)
        mine == {k \in keys : k.lease = m.id /\ k.create = m.rev}
    IN
    /\ Deliverable(src, Server) /\ m.type = "Unlock"
    /\ IF mine # {}
       THEN /\ keys' = keys \ mine
            /\ revision' = revision + 1
            /\ keyWatches' = {w \in keyWatches : w.key # m.id}
            /\ net' = Send(Notify(Pop(src, Server), m.id), Server, src,
                           [type |-> "Unlocked", id |-> m.id])
            /\ UNCHANGED history
       ELSE /\ history' = IF HasKey(m.id) THEN history \cup {"ForeignRelease"} ELSE history
            /\ net' = Send(Pop(src, Server), Server, src, [type |-> "Unlocked", id |-> m.id])
            /\ UNCHANGED <<revision, keys, keyWatches>>
    /\ UNCHANGED <<fixed, timers, ghost, drawn, leases, clientVars, resourceVars>>

ServerRequests == {"LeaseGrant", "LeaseKeepAlive", "LeaseRevoke", "Lock", "Watch", "Range", "Unlock"}

-----------------------------------------------------------------------------
(* The client's handlers (client_receive). An answer whose lease ID is not *)
(* the current attempt's answers an earlier request: it is dropped.        *)

Acquiring(c, s) == phase[c] = "Acquiring" /\ stage[c] = s

\* The grant: a validity client sets its Validity timer (or starts over
\* when the allowance leaves nothing); the first keep-alive goes out at once
\* (clientv3's KeepAlive sets nextKeepAlive to now); then the lock
\* transaction, with a timeout.
ReceiveLeaseGranted(src, c) ==
    LET m == Msg(src, c)
        tm == timers[c]
        ka == Send(Pop(src, c), c, Server, [type |-> "LeaseKeepAlive", id |-> m.id])
    IN
    /\ Deliverable(src, c)
    /\ m.type = "LeaseGranted" /\ m.id = lease[c] /\ Acquiring(c, "Grant")
    /\ IF Validity /\ ValidityLeft <= 0
       THEN StartOver(c, Pop(src, c), tm)
       ELSE /\ net' = Send(ka, c, Server, [type |-> "Lock", id |-> m.id])
            /\ timers' = [timers EXCEPT ![c] =
                            SetTimer(IF Validity THEN SetTimer(tm, "Validity", ValidityLeft) ELSE tm,
                                     "Timeout", Timeout)]
            /\ stage' = [stage EXCEPT ![c] = "Put"]
            /\ UNCHANGED <<phase, left, lease, rev, checked, acquired>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, revision, leases, keys, keyWatches,
                   resourceVars>>

\* A keep-alive's answer: the next keep-alive TTL/3 after it (clientv3's
\* recvKeepAlive), and for a validity client its TTL again; TTL 0 (the
\* lease is gone) stops the keep-alives and ends a validity client's
\* session.
ReceiveKeepAliveAnswer(src, c) ==
    LET m == Msg(src, c)
        tm == SetTimer(timers[c], "KeepAlive", KeepAliveEvery)
    IN
    /\ Deliverable(src, c)
    /\ m.type = "KeepAliveAnswer" /\ m.id = lease[c]
    /\ IF m.alive
       THEN /\ timers' = [timers EXCEPT ![c] =
                            IF Validity /\ ValidityLeft > 0 THEN SetTimer(tm, "Validity", ValidityLeft) ELSE tm]
            /\ net' = Pop(src, c)
            /\ UNCHANGED clientVars
       ELSE IF Validity
            THEN LeaseLost(c, Pop(src, c), timers[c])
            ELSE /\ net' = Pop(src, c)
                 /\ UNCHANGED <<timers, clientVars>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, revision, leases, keys, keyWatches,
                   resourceVars>>

ReceiveLocked(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Locked" /\ m.id = lease[c] /\ Acquiring(c, "Put")
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ rev' = [rev EXCEPT ![c] = m.rev]
    /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
    /\ WaitFor(c, m.pred, Pop(src, c))
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   left, lease, checked, resourceVars>>

ReceiveLeaseNotFound(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "LeaseNotFound" /\ m.id = lease[c] /\ Acquiring(c, "Put")
    /\ StartOver(c, Pop(src, c), timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, resourceVars>>

\* The predecessor's DELETE event: look again.
ReceiveDeleted(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Deleted" /\ m.id = lease[c] /\ Acquiring(c, "Watch")
    /\ net' = Send(Pop(src, c), c, Server, [type |-> "Range", id |-> m.id, rev |-> rev[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ stage' = [stage EXCEPT ![c] = "Range"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   phase, left, lease, rev, checked, acquired, resourceVars>>

\* No predecessor and its own key there: it holds; a predecessor: watch it;
\* its own key gone (ErrSessionExpired): start over.
ReceiveRangeAnswer(src, c) ==
    LET m == Msg(src, c)
        tm == CancelTimer(timers[c], "Timeout")
    IN
    /\ Deliverable(src, c)
    /\ m.type = "RangeAnswer" /\ m.id = lease[c] /\ Acquiring(c, "Range")
    /\ IF m.mine
       THEN /\ timers' = [timers EXCEPT ![c] = tm]
            /\ WaitFor(c, m.pred, Pop(src, c))
            /\ UNCHANGED <<left, lease, rev, checked, acquired>>
       ELSE StartOver(c, Pop(src, c), tm)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, resourceVars>>

\* Release: the write is answered, so the critical section is over: the
\* unlock transaction, with a timeout.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Send(Pop(src, c), c, Server, [type |-> "Unlock", id |-> lease[c], rev |-> rev[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   left, stage, lease, rev, checked, acquired, resourceVars>>

ReceiveUnlocked(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Unlocked" /\ m.id = lease[c] /\ phase[c] = "Releasing"
    /\ Released(c, Pop(src, c), CancelTimer(timers[c], "Timeout"))
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, resourceVars>>

\* The (message, state) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ m.type = "LeaseGranted" /\ m.id = lease[c] /\ Acquiring(c, "Grant")
    \/ m.type = "KeepAliveAnswer" /\ m.id = lease[c]
    \/ m.type \in {"Locked", "LeaseNotFound"} /\ m.id = lease[c] /\ Acquiring(c, "Put")
    \/ m.type = "Deleted" /\ m.id = lease[c] /\ Acquiring(c, "Watch")
    \/ m.type = "RangeAnswer" /\ m.id = lease[c] /\ Acquiring(c, "Range")
    \/ m.type \in {"Accepted", "Rejected"} /\ phase[c] = "Writing"
    \/ m.type = "Unlocked" /\ m.id = lease[c] /\ phase[c] = "Releasing"

-----------------------------------------------------------------------------
(* The protected resource (resource.rs): with fencing on, it rejects any   *)
(* revision lower than the highest it has accepted.                        *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ IF Fencing /\ m.token < max_token
       THEN /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, serverVars, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst = Server   -> m.type \in ServerRequests
      [] dst = Resource -> m.type = "Write"
      [] OTHER          -> ClientTakes(dst, m)

Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history,
                   serverVars, clientVars, resourceVars>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ /\ dst = Server
          /\ \/ ReceiveLeaseGrant(src) \/ ReceiveLeaseKeepAlive(src) \/ ReceiveLeaseRevoke(src)
             \/ ReceiveLock(src) \/ ReceiveWatch(src) \/ ReceiveRange(src)
             \/ ReceiveUnlock(src)
       \/ /\ dst \in ClientIds
          /\ \/ ReceiveLeaseGranted(src, dst) \/ ReceiveKeepAliveAnswer(src, dst)
             \/ ReceiveLocked(src, dst) \/ ReceiveLeaseNotFound(src, dst)
             \/ ReceiveDeleted(src, dst) \/ ReceiveRangeAnswer(src, dst)
             \/ Release(src, dst) \/ ReceiveUnlocked(src, dst)
       \/ dst = Resource /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer): a running node's timer, run down to    *)
(* zero, fires; the world removes it first.                                *)

\* The lease in slot s: its TTL ran out on the server's clock; it and its
\* keys are gone.
LeaseExpires(s) ==
    LET id == leases[s] IN
    /\ Up(Server) /\ Due(Server, s)
    /\ leases' = [leases EXCEPT ![s] = 0]
    /\ timers' = Expired(Server, s)
    /\ DeleteKeysOf(id)
    /\ net' = DeletedNet(net, id)
    /\ UNCHANGED <<fixed, ghost, drawn, history, clientVars, resourceVars>>

\* A client's timer: the request timeout (an attempt starts over, an
\* unlock counts as done), the next keep-alive, the validity running out
\* (LeaseLost), the end of the back-off.
Fire(c, t) ==
    LET rest == CancelTimer(timers[c], t) IN
    /\ Up(c) /\ Due(c, t)
    /\ CASE t = "Timeout" /\ phase[c] = "Acquiring" -> StartOver(c, net, rest)
         [] t = "Timeout" /\ phase[c] = "Releasing" -> Released(c, net, rest)
         [] t = "KeepAlive" /\ lease[c] # 0 ->
              /\ net' = Send(net, c, Server, [type |-> "LeaseKeepAlive", id |-> lease[c]])
              /\ timers' = [timers EXCEPT ![c] = rest]
              /\ UNCHANGED clientVars
         [] t = "Validity" -> LeaseLost(c, net, rest)
         [] OTHER ->
              /\ timers' = [timers EXCEPT ![c] = rest]
              /\ UNCHANGED <<net, clientVars>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, resourceVars>>

-----------------------------------------------------------------------------
(* The world (World.tla): time, client crashes, restarts, pauses. Only     *)
(* Restart touches the algorithm's state.                                  *)

Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars
Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars

\* Fault: a client stops and loses its timers; messages to it are dropped.
\* It keeps its state only for the restart (the lock view ignores it).
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED algVars

\* A crashed client comes back afresh (its old lease runs out on the server).
Restart(n) ==
    /\ n \in ClientIds
    /\ WorldRestart(n)
    /\ phase' = [phase EXCEPT ![n] = "Want"]
    /\ left' = [left EXCEPT ![n] = Acquisitions]
    /\ Forget(n)
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history, serverVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ revision = 0
    /\ leases = [s \in Slots |-> 0]
    /\ keys = {}
    /\ keyWatches = {}
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ stage = [c \in ClientIds |-> "Grant"]
    /\ lease = [c \in ClientIds |-> 0]
    /\ rev = [c \in ClientIds |-> 0]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
    \/ \E s \in Slots : LeaseExpires(s)
    \/ \E c \in ClientIds, t \in TimerNames : Fire(c, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in ClientIds : Restart(n)
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)

\* docs/design.md §5, in World.tla's shape: weak fairness for each link's delivery, each
\* client's steps, each timer, Tick and Restart. Faults are never fair.
Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A s \in Slots : WF_vars(LeaseExpires(s))
    /\ \A c \in ClientIds, t \in TimerNames : WF_vars(Fire(c, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => \A n \in ClientIds : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs): ghost numbers, lease IDs and          *)
(* revisions are only compared, so Rust replaces each by its rank among    *)
(* the values of its kind present in the state (0, "none", stays 0) after  *)
(* every action. RankedVars is the state so renumbered.                    *)

WithField(f) == {m \in InFlight : f \in DOMAIN m}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds} \cup {k.ghost : k \in keys}
      \cup {m.ghost : m \in WithField("ghost")}

TokenValues ==
    {0, revision, max_token} \cup {rev[c] : c \in ClientIds} \cup {k.create : k \in keys}
      \cup {m.rev : m \in WithField("rev")} \cup {m.token : m \in WithField("token")}

IdValues ==
    {0, drawn} \cup {leases[s] : s \in Slots} \cup {lease[c] : c \in ClientIds}
      \cup {k.lease : k \in keys} \cup {w.id : w \in keyWatches} \cup {w.key : w \in keyWatches}
      \cup {m.id : m \in WithField("id")} \cup {m.key : m \in WithField("key")}
      \cup {m.pred : m \in WithField("pred")}

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        V == IdValues
        rg(v) == Rank(v, G)
        rt(v) == Rank(v, T)
        rv(v) == Rank(v, V)
        msg(m) == [x \in DOMAIN m |->
                     CASE x = "ghost" -> rg(m[x])
                       [] x \in {"rev", "token"} -> rt(m[x])
                       [] x \in {"id", "key", "pred"} -> rv(m[x])
                       [] OTHER -> m[x]]
    IN  <<RankedWorld(rg, rv, msg),
          rt(revision), [s \in Slots |-> rv(leases[s])],
          {[create |-> rt(k.create), lease |-> rv(k.lease), ghost |-> rg(k.ghost)] : k \in keys},
          {[watcher |-> w.watcher, id |-> rv(w.id), key |-> rv(w.key)] : w \in keyWatches},
          phase, left, stage, [c \in ClientIds |-> rv(lease[c])],
          [c \in ClientIds |-> rt(rev[c])], checked,
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A c \in ClientIds : DOMAIN timers[c] \subseteq TimerNames
    /\ DOMAIN timers[Server] \subseteq Slots /\ timers[Resource] = NoTimers
    /\ \A s \in Slots : IsSet(Server, s) <=> leases[s] # 0
    /\ \A s \in DOMAIN timers[Server] : timers[Server][s] \in 0..Ttl
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ \A k \in keys : k.create \in 1..revision /\ k.lease \in 1..drawn
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ stage \in [ClientIds -> {"Grant", "Put", "Watch", "Range"}]
    /\ lease \in [ClientIds -> 0..drawn]
    /\ checked \in [ClientIds -> BOOLEAN]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired.
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it.
Granted(c) == c \in Wanting /\ c \notin Wanting'

DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
