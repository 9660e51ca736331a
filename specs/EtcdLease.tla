------------------------------ MODULE EtcdLease ------------------------------
(***************************************************************************)
(* etcd-lease: a lock on one etcd cluster, after etcd's own lock, as       *)
(* published:                                                              *)
(*   - etcd, clientv3 package concurrency (go.etcd.io/etcd/client/v3/      *)
(*     concurrency): NewSession (a lease, kept alive every TTL/3),         *)
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
(*     does not protect against a paused holder; a fencing token does,    *)
(*     and etcd's revision can be one.                                    *)
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
(* Mirrors the Rust module src/algorithms/etcd_lease.rs (with              *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
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
(* world state, and every field of it that can change here is a variable:  *)
(*   status, pause   Node::status (Up, Paused(pause), Down)                *)
(*   timers          a client's Node::timers (name -> ticks left)          *)
(*   expiry          the server's timers LeaseExpiry { slot: s }, as       *)
(*                   expiry[s] (None when not set)                         *)
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, drawn, history   WorldState::ghost, value, history             *)
(*   revision, leases, keys, watches   Server (leases[s]: the lease ID in  *)
(*                   slot s of the lease table, 0 for none; keys and       *)
(*                   watches as sets of records, Rust keeps them sorted)   *)
(*   phase, left     Client::script; stage, lease, rev, checked as in      *)
(*                   Client; acquired is Client::ghost                     *)
(*   max_token, max_ghost   Resource                                       *)
(* Values that only grow (ghost numbers; lease IDs; revisions) are         *)
(* renumbered by rank after every action in Rust (src/world/ranks.rs);     *)
(* RankedVars is that renumbered state, and the .cfg's VIEW makes TLC      *)
(* count states by it.                                                     *)
(* Not modelled (the Rust module rejects them or no tabled scenario uses   *)
(* them): clock drift and jumps, partitions, loss, duplication,            *)
(* reordering, recovery = "none", a min_pause other than 1.                *)
(*                                                                         *)
(* Node ids as in Rust: the server is 0, clients 1..Clients, the resource  *)
(* Clients + 1.                                                            *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: the lease TTL, in the server's ticks
    Fencing,       \* [system] fencing: the resource checks create revisions
    Retry,         \* [system] retry: ticks a failed client waits
    Timeout,       \* [system] timeout: the request timeout, client ticks
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: allowance subtracted from the TTL
    Margin,        \* [system] margin: validity needed at the Check
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "clients" when crashes or pauses > 0
    None           \* a model value: a timer not set

ASSUME /\ Clients \in 1..4 /\ Ttl \in 1..30 /\ Retry \in 1..10
       /\ Fencing \in BOOLEAN
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}
       /\ (Crashes > 0 \/ Pauses > 0) => Targets = "clients"

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
Nodes == 0..Clients + 1
Links == Nodes \X Nodes
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

\* Faults::targets: crashes and pauses hit clients only (ASSUME above).
Targeted(n) == n \in ClientIds /\ Targets # "servers"

Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    expiry,     \* expiry[s]: ticks left of the lease in slot s, or None
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    drawn,      \* the last lease ID drawn
    history,    \* ghost flags raised: "ForeignRelease", "StaleWrite"
    revision,   \* the store's revision
    leases,     \* leases[s]: the lease ID in slot s, 0 for none
    keys,       \* the keys /lock/<lease>: [create, lease, ghost]
    watches,    \* watches for a DELETE: [watcher, id, key]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    stage,      \* stage[c]: within Acquiring, Grant, Put, Watch or Range
    lease,      \* lease[c]: the attempt's lease ID, 0 between attempts
    rev,        \* rev[c]: its key's create revision, 0 until known
    checked,    \* checked[c]: a validity client found validity left
    acquired,   \* acquired[c]: the ghost number of c's key
    max_token,  \* the resource's highest accepted revision
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent>>
serverVars == <<revision, leases, expiry, keys, watches>>
clientVars == <<phase, left, stage, lease, rev, checked, acquired>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, expiry, net, spent, ghost, drawn, history,
          revision, leases, keys, watches,
          phase, left, stage, lease, rev, checked, acquired, max_token, max_ghost>>

-----------------------------------------------------------------------------
(* The world's part: timers and the network, as World::apply handles an    *)
(* actor's commands. (To move to specs/World.tla.)                         *)

NoTimers == [t \in {} |-> 0]
SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
IsSet(n, t) == t \in DOMAIN timers[n]
Due(n, t) == IsSet(n, t) /\ timers[n][t] = 0

\* A message sent to a crashed node is dropped.
Sent(q, src, dst, m) ==
    IF status[dst] = "Down" THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, age |-> 0])]

\* Only the oldest message of a link can be delivered (FIFO), and only to a
\* running node.
Deliverable(src, dst) == status[dst] = "Up" /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

Up(n) == status[n] = "Up"

Min(S) == CHOOSE x \in S : \A y \in S : x <= y

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (properties.rs).      *)

\* A naive client believes it holds the lock from the moment it is first
\* until its write is answered; a validity client, while Holding, only
\* while its validity timer is above zero or once it has checked it, and it
\* still wants the lock until it has checked (DESIGN.md section 5).
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
    /\ net' = Sent(q, c, Server, Revoke(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(Closed(tm), "Retry", Retry)]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ Forget(c)
    /\ UNCHANGED left

\* released: the unlock is over (answered or timed out); close the session.
Released(c, q, tm) ==
    /\ net' = Sent(q, c, Server, Revoke(c))
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
    ELSE /\ net' = Sent(q, c, Server, [type |-> "Watch", id |-> lease[c], key |-> pred])
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
    /\ net' = Sent(net, c, Server, [type |-> "LeaseGrant", id |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ stage' = [stage EXCEPT ![c] = "Grant"]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<worldVars, expiry, ghost, history, revision, leases, keys, watches,
                   left, rev, checked, acquired, resourceVars>>

\* Check: is more than the margin left? Only then write; else start over.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ UNCHANGED <<net, timers, phase, left, stage, lease, rev, acquired>>
       ELSE StartOver(c, net, timers[c])
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history,
                   revision, leases, keys, watches, resourceVars>>

\* Write: the critical section's write, with the create revision as the
\* token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource,
                   [type |-> "Write", token |-> IF Fencing THEN rev[c] ELSE 0,
                    ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, expiry, ghost, drawn, history, serverVars,
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
         IN  NotifyIds(Sent(q, Server, w, [type |-> "Deleted", id |-> i, key |-> key]),
                       w, key, ids \ {i})
RECURSIVE NotifyFrom(_, _, _)
NotifyFrom(q, key, w) ==
    IF w > Clients THEN q
    ELSE NotifyFrom(NotifyIds(q, w, key, {x.id : x \in {y \in watches : y.watcher = w /\ y.key = key}}),
                    key, w + 1)
Notify(q, key) == NotifyFrom(q, key, 1)

\* delete_keys_of: the keys of lease id go, in one write transaction (one
\* revision), and their watchers get the DELETE events. q: the network so
\* far; the caller sets net' to the result of DeletedNet.
DeleteKeysOf(id) ==
    /\ keys' = {k \in keys : k.lease # id}
    /\ revision' = IF HasKey(id) THEN revision + 1 ELSE revision
    /\ watches' = {w \in watches : w.key # id}
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
    /\ expiry' = [expiry EXCEPT ![FreeSlot] = Ttl]
    /\ net' = Sent(Pop(src, Server), Server, src, [type |-> "LeaseGranted", id |-> m.id])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, revision, keys, watches,
                   clientVars, resourceVars>>

\* LeaseKeepAlive: the TTL starts again; the answer says the TTL, or 0
\* when the lease is gone.
ReceiveLeaseKeepAlive(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "LeaseKeepAlive"
    /\ expiry' = IF HasLease(m.id) THEN [expiry EXCEPT ![SlotOf(m.id)] = Ttl] ELSE expiry
    /\ net' = Sent(Pop(src, Server), Server, src,
                   [type |-> "KeepAliveAnswer", id |-> m.id, alive |-> HasLease(m.id)])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history,
                   revision, leases, keys, watches, clientVars, resourceVars>>

\* LeaseRevoke: the lease and its keys go. No answer is waited for.
ReceiveLeaseRevoke(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "LeaseRevoke"
    /\ IF HasLease(m.id)
       THEN /\ leases' = [leases EXCEPT ![SlotOf(m.id)] = 0]
            /\ expiry' = [expiry EXCEPT ![SlotOf(m.id)] = None]
            /\ DeleteKeysOf(m.id)
            /\ net' = DeletedNet(Pop(src, Server), m.id)
       ELSE /\ net' = Pop(src, Server)
            /\ UNCHANGED serverVars
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, clientVars, resourceVars>>

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
       THEN /\ net' = Sent(Pop(src, Server), Server, src, [type |-> "LeaseNotFound", id |-> m.id])
            /\ UNCHANGED <<ghost, revision, keys>>
       ELSE /\ keys' = ks
            /\ revision' = IF fresh THEN revision + 1 ELSE revision
            /\ ghost' = IF fresh THEN ghost + 1 ELSE ghost
            /\ net' = Sent(Pop(src, Server), Server, src,
                           [type |-> "Locked", id |-> m.id, rev |-> key.create,
                            pred |-> Pred(ks, m.id, key.create), ghost |-> key.ghost])
    /\ UNCHANGED <<worldVars, timers, drawn, history, leases, expiry, watches,
                   clientVars, resourceVars>>

\* Watch(/lock/key, rev): from a revision before any delete, so a key
\* already gone gives its DELETE event at once.
ReceiveWatch(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "Watch"
    /\ IF HasKey(m.key)
       THEN /\ watches' = watches \cup {[watcher |-> src, id |-> m.id, key |-> m.key]}
            /\ net' = Pop(src, Server)
       ELSE /\ net' = Sent(Pop(src, Server), Server, src,
                           [type |-> "Deleted", id |-> m.id, key |-> m.key])
            /\ UNCHANGED watches
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, revision, leases, expiry, keys,
                   clientVars, resourceVars>>

\* The range transaction: the newest key below rev, and the client's own.
ReceiveRange(src) ==
    LET m == Msg(src, Server) IN
    /\ Deliverable(src, Server) /\ m.type = "Range"
    /\ net' = Sent(Pop(src, Server), Server, src,
                   [type |-> "RangeAnswer", id |-> m.id, pred |-> Pred(keys, m.id, m.rev),
                    mine |-> HasKey(m.id)])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, serverVars,
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
            /\ watches' = {w \in watches : w.key # m.id}
            /\ net' = Sent(Notify(Pop(src, Server), m.id), Server, src,
                           [type |-> "Unlocked", id |-> m.id])
            /\ UNCHANGED history
       ELSE /\ history' = IF HasKey(m.id) THEN history \cup {"ForeignRelease"} ELSE history
            /\ net' = Sent(Pop(src, Server), Server, src, [type |-> "Unlocked", id |-> m.id])
            /\ UNCHANGED <<revision, keys, watches>>
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, leases, expiry, clientVars, resourceVars>>

ServerRequests == {"LeaseGrant", "LeaseKeepAlive", "LeaseRevoke", "Lock", "Watch", "Range", "Unlock"}

-----------------------------------------------------------------------------
(* The client's handlers (client_receive). An answer whose lease ID is not *)
(* the current attempt's answers an earlier request: it is dropped.        *)

Acquiring(c, s) == phase[c] = "Acquiring" /\ stage[c] = s

\* The grant: keep-alives start; a validity client sets its Validity timer
\* (or starts over when the allowance leaves nothing); then the lock
\* transaction, with a timeout.
ReceiveLeaseGranted(src, c) ==
    LET m == Msg(src, c)
        tm == SetTimer(timers[c], "KeepAlive", KeepAliveEvery)
    IN
    /\ Deliverable(src, c)
    /\ m.type = "LeaseGranted" /\ m.id = lease[c] /\ Acquiring(c, "Grant")
    /\ IF Validity /\ ValidityLeft <= 0
       THEN StartOver(c, Pop(src, c), tm)
       ELSE /\ net' = Sent(Pop(src, c), c, Server, [type |-> "Lock", id |-> m.id])
            /\ timers' = [timers EXCEPT ![c] =
                            SetTimer(IF Validity THEN SetTimer(tm, "Validity", ValidityLeft) ELSE tm,
                                     "Timeout", Timeout)]
            /\ stage' = [stage EXCEPT ![c] = "Put"]
            /\ UNCHANGED <<phase, left, lease, rev, checked, acquired>>
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, revision, leases, keys, watches,
                   resourceVars>>

\* A keep-alive's answer, taken by a validity client only: TTL again, or
\* the lease is gone.
ReceiveKeepAliveAnswer(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "KeepAliveAnswer" /\ m.id = lease[c] /\ Validity
    /\ IF m.alive
       THEN /\ timers' = IF ValidityLeft > 0
                         THEN [timers EXCEPT ![c] = SetTimer(@, "Validity", ValidityLeft)]
                         ELSE timers
            /\ net' = Pop(src, c)
            /\ UNCHANGED clientVars
       ELSE LeaseLost(c, Pop(src, c), timers[c])
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, revision, leases, keys, watches,
                   resourceVars>>

ReceiveLocked(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Locked" /\ m.id = lease[c] /\ Acquiring(c, "Put")
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ rev' = [rev EXCEPT ![c] = m.rev]
    /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
    /\ WaitFor(c, m.pred, Pop(src, c))
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars,
                   left, lease, checked, resourceVars>>

ReceiveLeaseNotFound(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "LeaseNotFound" /\ m.id = lease[c] /\ Acquiring(c, "Put")
    /\ StartOver(c, Pop(src, c), timers[c])
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars, resourceVars>>

\* The predecessor's DELETE event: look again.
ReceiveDeleted(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Deleted" /\ m.id = lease[c] /\ Acquiring(c, "Watch")
    /\ net' = Sent(Pop(src, c), c, Server, [type |-> "Range", id |-> m.id, rev |-> rev[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ stage' = [stage EXCEPT ![c] = "Range"]
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars,
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
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars, resourceVars>>

\* Release: the write is answered, so the critical section is over: the
\* unlock transaction, with a timeout.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Sent(Pop(src, c), c, Server, [type |-> "Unlock", id |-> lease[c], rev |-> rev[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars,
                   left, stage, lease, rev, checked, acquired, resourceVars>>

ReceiveUnlocked(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ m.type = "Unlocked" /\ m.id = lease[c] /\ phase[c] = "Releasing"
    /\ Released(c, Pop(src, c), CancelTimer(timers[c], "Timeout"))
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars, resourceVars>>

\* The (message, state) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ m.type = "LeaseGranted" /\ m.id = lease[c] /\ Acquiring(c, "Grant")
    \/ m.type = "KeepAliveAnswer" /\ m.id = lease[c] /\ Validity
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
       THEN /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, serverVars, clientVars>>

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
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history,
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
    /\ Up(Server) /\ expiry[s] = 0
    /\ leases' = [leases EXCEPT ![s] = 0]
    /\ expiry' = [expiry EXCEPT ![s] = None]
    /\ DeleteKeysOf(id)
    /\ net' = DeletedNet(net, id)
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, clientVars, resourceVars>>

\* A client's timer: the request timeout (an attempt starts over, an
\* unlock counts as done), the next keep-alive, the validity running out
\* (LeaseLost), the end of the back-off.
Fire(c, t) ==
    LET rest == CancelTimer(timers[c], t) IN
    /\ Up(c) /\ Due(c, t)
    /\ CASE t = "Timeout" /\ phase[c] = "Acquiring" -> StartOver(c, net, rest)
         [] t = "Timeout" /\ phase[c] = "Releasing" -> Released(c, net, rest)
         [] t = "KeepAlive" /\ lease[c] # 0 ->
              /\ net' = Sent(net, c, Server, [type |-> "LeaseKeepAlive", id |-> lease[c]])
              /\ timers' = [timers EXCEPT ![c] = SetTimer(rest, "KeepAlive", KeepAliveEvery)]
              /\ UNCHANGED clientVars
         [] t = "Validity" -> LeaseLost(c, net, rest)
         [] OTHER ->
              /\ timers' = [timers EXCEPT ![c] = rest]
              /\ UNCHANGED <<net, clientVars>>
    /\ UNCHANGED <<worldVars, expiry, ghost, drawn, history, serverVars, resourceVars>>

-----------------------------------------------------------------------------
(* The world's part (src/world/mod.rs): time, crashes, restarts, pauses.   *)
(* (To move to specs/World.tla.)                                           *)

\* World::time_blocked: time cannot pass a due timer or an enabled urgent
\* step of a running node, nor a message to a running node in flight
\* MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in Nodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Up(Server) /\ \E s \in Slots : expiry[s] = 0
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something.
TimeMatters ==
    \/ \E n \in Nodes : status[n] = "Paused" \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ \E s \in Slots : expiry[s] # None /\ expiry[s] > 0
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time: every node's clock runs; a paused node's pause
\* counts down; messages age, saturating at MaxDelay.
Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ expiry' = [s \in Slots |->
                    IF expiry[s] = None THEN None
                    ELSE IF expiry[s] > 0 THEN expiry[s] - 1 ELSE 0]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, drawn, history, revision, leases, keys, watches,
                   clientVars, resourceVars>>

\* Fault: a client stops and loses its timers; messages to it are dropped.
\* It keeps its state only for the restart (the lock view ignores it).
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<expiry, ghost, drawn, history, serverVars, clientVars, resourceVars>>

\* A crashed client comes back afresh (its old lease runs out on the server).
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ phase' = [phase EXCEPT ![n] = "Want"]
    /\ left' = [left EXCEPT ![n] = Acquisitions]
    /\ Forget(n)
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ UNCHANGED <<pause, net, spent, expiry, ghost, drawn, history, serverVars, resourceVars>>

\* Fault: a running client stops taking steps for k ticks while its clock
\* runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, expiry, net, ghost, drawn, history, serverVars, clientVars,
                   resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ expiry = [s \in Slots |-> None]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ drawn = 0
    /\ history = {}
    /\ revision = 0
    /\ leases = [s \in Slots |-> 0]
    /\ keys = {}
    /\ watches = {}
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
    \/ \E src, dst \in Nodes : Deliver(src, dst)
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E n \in Nodes, k \in 1..MaxPause : Pause(n, k)

\* DESIGN.md section 5: weak fairness for each link's delivery, each
\* client's steps, each timer, Tick and Restart. Faults are never fair.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A s \in Slots : WF_vars(LeaseExpires(s))
    /\ \A c \in ClientIds, t \in TimerNames : WF_vars(Fire(c, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs): ghost numbers, lease IDs and          *)
(* revisions are only compared, so Rust replaces each by its rank among    *)
(* the values of its kind present in the state (0, "none", stays 0) after  *)
(* every action. RankedVars is the state so renumbered.                    *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}
WithField(f) == {m \in InFlight : f \in DOMAIN m}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds} \cup {k.ghost : k \in keys}
      \cup {m.ghost : m \in WithField("ghost")}

TokenValues ==
    {0, revision, max_token} \cup {rev[c] : c \in ClientIds} \cup {k.create : k \in keys}
      \cup {m.rev : m \in WithField("rev")} \cup {m.token : m \in WithField("token")}

IdValues ==
    {0, drawn} \cup {leases[s] : s \in Slots} \cup {lease[c] : c \in ClientIds}
      \cup {k.lease : k \in keys} \cup {w.id : w \in watches} \cup {w.key : w \in watches}
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
    IN  <<status, pause, timers, expiry,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), rv(drawn), history,
          rt(revision), [s \in Slots |-> rv(leases[s])],
          {[create |-> rt(k.create), lease |-> rv(k.lease), ghost |-> rg(k.ghost)] : k \in keys},
          {[watcher |-> w.watcher, id |-> rv(w.id), key |-> rv(w.key)] : w \in watches},
          phase, left, stage, [c \in ClientIds |-> rv(lease[c])],
          [c \in ClientIds |-> rt(rev[c])], checked,
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ expiry \in [Slots -> 0..Ttl \cup {None}]
    /\ \A s \in Slots : (expiry[s] = None) <=> (leases[s] = 0)
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
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
