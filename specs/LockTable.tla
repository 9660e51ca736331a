------------------------------ MODULE LockTable ------------------------------
(***************************************************************************)
(* lock-table: a SQL table locks(name PRIMARY KEY, owner, expires_at). A   *)
(* client takes the lock by inserting the row (the unique key makes a      *)
(* second insert fail) and releases it with DELETE ... WHERE owner = me.   *)
(* With the expiry column, the insert first removes a row whose expires_at *)
(* has passed on the database's clock (expiry is checked on insert, never  *)
(* by a background job).                                                   *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/lock_table.rs (with              *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Write, Release (client steps), the database's handlers, the    *)
(* other client handlers, the resource's handler, the timers, then the     *)
(* world: Tick, Crash, Restart, Pause. The lock view and the properties    *)
(* are those of src/properties.rs.                                         *)
(*                                                                         *)
(* Same configuration, same states: for the constants of a scenario, TLC   *)
(* must find exactly as many distinct states as the Rust checker finds     *)
(* unique states (DESIGN.md section 10; specs/README.md records both).     *)
(* So every variable here is a field of the Rust world state, and every    *)
(* field of it that can change under these faults is a variable here:      *)
(*   status, pause   Node::status (Up, Paused(pause), Down)                *)
(*   timers          Node::timers, as a function from timer name to ticks  *)
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, history  WorldState::ghost and WorldState::history (flag bits  *)
(*                   as a set of flag names)                               *)
(*   row             Database                                              *)
(*   phase, left     Client::script; acquired is Client::ghost (renamed:   *)
(*                   ghost is the world's)                                 *)
(*   max_token, max_ghost   Resource (tokens are always 0 here)            *)
(* Ghost numbers only grow: Rust renumbers them by rank after every action *)
(* (src/world/ranks.rs); here RankedVars is that renumbered state, and the *)
(* .cfg's VIEW makes TLC count states by it.                               *)
(* Not modelled, because no scenario of this family uses them: stopwatches *)
(* (this algorithm starts none), clock drift and jumps (Node::skew stays   *)
(* 0), partitions (cut stays empty), loss, duplication (Envelope::copied   *)
(* stays false), reordering, and recovery = "none" (Restart is always fair *)
(* here).                                                                  *)
(*                                                                         *)
(* Node ids as in Rust: the database is 0, clients 1..Clients, the         *)
(* resource Clients + 1.                                                   *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Clients,       \* [system] clients
    Expiry,        \* [system] expiry: rows carry expires_at, checked on insert
    Ttl,           \* [system] ttl: row lifetime in the database's ticks
    Retry,         \* [system] retry: ticks a refused client waits
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    None           \* a model value: no row

ASSUME /\ Clients \in 1..4 /\ Expiry \in BOOLEAN /\ Ttl \in 1..30
       /\ Retry \in 1..10 /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

DB == 0
ClientIds == 1..Clients
Resource == Clients + 1
Nodes == 0..Clients + 1
Links == Nodes \X Nodes
TimerNames == {"RowExpiry", "Retry"}

\* Faults::targets: which nodes crashes and pauses may hit (the resource is
\* an observer, never faulted).
Targeted(n) == \/ Targets = "all" /\ n # Resource
               \/ Targets = "clients" /\ n \in ClientIds
               \/ Targets = "servers" /\ n = DB

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    history,    \* ghost flags raised: "ForeignRelease", "StaleWrite"
    row,        \* the lock's row: None or [owner, expired, ghost]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    acquired,   \* acquired[c]: the ghost number of c's insert
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent>>
clientVars == <<phase, left, acquired>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, net, spent, ghost, history,
          row, phase, left, acquired, max_token, max_ghost>>

-----------------------------------------------------------------------------
(* Timers and the network, as World::apply handles an actor's commands.    *)

NoTimers == [t \in {} |-> 0]
SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
Keep(f, names) == [x \in DOMAIN f \cap names |-> f[x]]
IsSet(n, t) == t \in DOMAIN timers[n]
Due(n, t) == IsSet(n, t) /\ timers[n][t] = 0

\* A message sent to a crashed node is dropped.
Sent(q, src, dst, m) ==
    IF status[dst] = "Down" THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, age |-> 0])]

\* Only the oldest message of a link can be delivered (FIFO, no reordering),
\* and only to a running node.
Deliverable(src, dst) == status[dst] = "Up" /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

Up(n) == status[n] = "Up"

ResourceMsgs == {"Write", "Accepted", "Rejected"}

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (properties.rs).      *)

\* Script::holds and Script::wants.
Holds(c) == phase[c] \in {"Holding", "Writing"}
Wants(c) == phase[c] \in {"Want", "Acquiring"}

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released: the release was answered.
Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Write is urgent: time does     *)
(* not pass while a running client has it. Acquire is not                  *)
(* (Actor::urgent): a client comes to want the lock, and retries after its *)
(* back-off, at any moment, any number of ticks later, but not never (it   *)
(* is weakly fair).                                                        *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanWrite(c) == phase[c] = "Holding"
HasUrgentStep(n) == n \in ClientIds /\ CanWrite(n)

\* Acquire: INSERT the row.
Acquire(c) ==
    /\ Up(c) /\ CanAcquire(c)
    /\ net' = Sent(net, c, DB, [type |-> "Insert"])
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, row,
                   left, acquired, resourceVars>>

\* Write: the critical section's write (no fencing token: 0).
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource, [type |-> "Write", token |-> 0, ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, row,
                   left, acquired, resourceVars>>

\* Release: the write is answered, so the critical section is over.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in ResourceMsgs
    /\ net' = Sent(Pop(src, c), c, DB, [type |-> "Delete"])
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, row,
                   left, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The database runs each statement as one transaction                     *)
(* (database_receive). Each handler delivers the head of the link src ->   *)
(* database.                                                               *)

Reply(src, m) == net' = Sent(Pop(src, DB), DB, src, m)

\* INSERT INTO locks VALUES ('lock', me, now() + ttl), after
\* DELETE ... WHERE expires_at < now() when rows expire.
ReceiveInsert(src) ==
    /\ Deliverable(src, DB) /\ Msg(src, DB).type = "Insert"
    /\ IF row # None /\ ~(Expiry /\ row.expired)
       THEN /\ Reply(src, [type |-> "Duplicate"])
            /\ UNCHANGED <<timers, ghost, row>>
       ELSE LET g == ghost + 1 IN
            /\ ghost' = g
            /\ row' = [owner |-> src, expired |-> FALSE, ghost |-> g]
            /\ timers' = IF Expiry THEN [timers EXCEPT ![DB] = SetTimer(@, "RowExpiry", Ttl)]
                         ELSE timers
            /\ Reply(src, [type |-> "Inserted", ghost |-> g])
    /\ UNCHANGED <<worldVars, history, clientVars, resourceVars>>

\* DELETE FROM locks WHERE name = 'lock' AND owner = me.
ReceiveDelete(src) ==
    /\ Deliverable(src, DB) /\ Msg(src, DB).type = "Delete"
    /\ IF row # None /\ row.owner = src
       THEN /\ row' = None
            /\ timers' = [timers EXCEPT ![DB] = CancelTimer(@, "RowExpiry")]
       ELSE UNCHANGED <<row, timers>>
    /\ Reply(src, [type |-> "Deleted"])
    /\ UNCHANGED <<worldVars, ghost, history, clientVars, resourceVars>>

DatabaseStatements == {"Insert", "Delete"}

-----------------------------------------------------------------------------
(* The client's other handlers (client_receive).                           *)

ReceiveInserted(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ Msg(src, c).type = "Inserted"
    /\ phase' = [phase EXCEPT ![c] = "Holding"]
    /\ acquired' = [acquired EXCEPT ![c] = Msg(src, c).ghost]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, row, left, resourceVars>>

ReceiveDuplicate(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ Msg(src, c).type = "Duplicate"
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Retry", Retry)]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, history, row, left, acquired, resourceVars>>

ReceiveDeleted(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Releasing" /\ Msg(src, c).type = "Deleted"
    /\ Released(c)
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, row, acquired, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type \in {"Inserted", "Duplicate"}
    \/ phase[c] = "Writing" /\ m.type \in ResourceMsgs
    \/ phase[c] = "Releasing" /\ m.type = "Deleted"

-----------------------------------------------------------------------------
(* The protected resource (resource.rs), without fencing.                  *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, row, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst = DB       -> m.type \in DatabaseStatements
      [] dst = Resource -> m.type = "Write"
      [] OTHER          -> ClientTakes(dst, m)

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<worldVars, timers, ghost, history, row, clientVars, resourceVars>>

Deliver(src, dst) ==
    \/ dst = DB /\ (ReceiveInsert(src) \/ ReceiveDelete(src))
    \/ /\ dst \in ClientIds
       /\ \/ ReceiveInserted(src, dst) \/ ReceiveDuplicate(src, dst)
          \/ Release(src, dst) \/ ReceiveDeleted(src, dst)
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer): a running node's timer, run down to    *)
(* zero, fires; the world removes it first.                                *)

Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, t)]
    \* RowExpiry: expires_at passes on the database's clock. Retry: the
    \* client may insert again.
    /\ row' = IF n = DB /\ t = "RowExpiry" /\ row # None
              THEN [row EXCEPT !.expired = TRUE] ELSE row
    /\ UNCHANGED <<worldVars, net, ghost, history, clientVars, resourceVars>>

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts, pauses.          *)

\* World::time_blocked: time cannot pass a due timer or an enabled urgent
\* step of a running node, nor a message to a running node in flight
\* MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in Nodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something.
TimeMatters ==
    \/ \E n \in Nodes : status[n] = "Paused" \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs, a crashed one's too (a
\* stored expires_at is an absolute deadline); a paused node's pause counts
\* down; messages age, saturating at MaxDelay.
Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, history, row, clientVars, resourceVars>>

\* Fault: a node stops and loses its timers; messages to it are dropped. A
\* database is durable: committed rows survive, and expires_at keeps
\* running while it is down. A client keeps its state only for the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = IF n = DB THEN Keep(@, {"RowExpiry"}) ELSE NoTimers]
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<ghost, history, row, clientVars, resourceVars>>

\* A crashed node comes back with what it persisted: the database with its
\* committed row (expired if expires_at passed while down), anything else
\* afresh.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ CASE n = DB ->
              /\ row' = IF row # None /\ Due(n, "RowExpiry")
                        THEN [row EXCEPT !.expired = TRUE] ELSE row
              /\ timers' = [timers EXCEPT ![n] =
                              IF row # None /\ IsSet(n, "RowExpiry") /\ ~Due(n, "RowExpiry")
                              THEN Keep(@, {"RowExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<clientVars, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, clientVars>>
    /\ UNCHANGED <<pause, net, spent, ghost, history>>

\* Fault: a running node stops taking steps for k ticks while its clock runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, history, row, clientVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ history = {}
    /\ row = None
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Write(c)
    \/ \E n \in Nodes, t \in TimerNames : Fire(n, t)
    \/ \E src, dst \in Nodes : Deliver(src, dst)
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E n \in Nodes, k \in 1..MaxPause : Pause(n, k)

\* DESIGN.md section 5: weak fairness for each message delivery (per link;
\* with FIFO links this is the same as per message), each node's own steps
\* and timers, Tick and Restart. Faults are never fair; the budget makes
\* them stop.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Write(c))
    /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers are only ever compared, *)
(* so Rust replaces each by its rank among the ghost numbers present in    *)
(* the state and the world's counter (0, "none", stays 0) after every      *)
(* action. RankedVars is the state so renumbered: two states with the same *)
(* RankedVars have the same future up to renumbering, so the .cfg's VIEW   *)
(* RankedVars makes TLC count the states the Rust checker counts. Tokens   *)
(* are always 0 here (no fencing): there is nothing to renumber in them.   *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}
Numbered == {m \in InFlight : m.type \in {"Inserted", "Write"}}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup (IF row = None THEN {} ELSE {row.ghost}) \cup {m.ghost : m \in Numbered}

RankedVars ==
    LET G == GhostValues
        rg(v) == Rank(v, G)
        msg(m) == IF m.type \in {"Inserted", "Write"} THEN [m EXCEPT !.ghost = rg(@)] ELSE m
    IN  <<status, pause, timers,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), history,
          IF row = None THEN None ELSE [row EXCEPT !.ghost = rg(@)],
          phase, left, [c \in ClientIds |-> rg(acquired[c])], max_token, rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ row = None \/ (row.owner \in ClientIds /\ row.expired \in BOOLEAN)
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired (DELETE is
\* guarded by owner = me, so this flag is never raised here).
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it
\* (properties.rs's acquired).
Granted(c) == c \in Wanting /\ c \notin Wanting'

\* Once faults stop, whenever a running client wants the lock, some client
\* eventually acquires it: no run ends in a suffix where some running client
\* always wants the lock and nobody is ever granted it.
DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
