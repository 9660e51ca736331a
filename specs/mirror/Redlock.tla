------------------------------- MODULE Redlock -------------------------------
(***************************************************************************)
(* redlock: N independent Redis masters, as the Redis documentation's      *)
(* "Distributed Locks with Redis" (redis.io/docs/latest/develop/use/       *)
(* patterns/distributed-locks/, "The Redlock Algorithm") describes it. To  *)
(* acquire the lock, the client                                            *)
(*   1. gets the current time (T1): Acquire starts the stopwatch Elapsed   *)
(*      and draws a fresh random value for the attempt;                    *)
(*   2. tries to acquire the lock in all N instances sequentially, with    *)
(*      the same key and random value (SET lock value NX PX ttl: Lock,     *)
(*      answered Locked(ok)), with a timeout small compared to the TTL     *)
(*      (Timeout);                                                         *)
(*   3. computes the time elapsed (T2 - T1) when every instance answered   *)
(*      or the timeout fired (ReceiveLocked, TimedOut: Decide), and holds  *)
(*      the lock only if a majority (Quorum) said yes and the elapsed time *)
(*      is less than the lock validity time;                               *)
(*   4. takes as validity the TTL less the elapsed time less the clock     *)
(*      drift allowance (Drift): its Validity timer; before it uses the    *)
(*      resource it checks that more than Margin is left (Check, then      *)
(*      Write; Kleppmann's "How to do distributed locking", 2016: a pause  *)
(*      between the two still breaks it, and only fencing keeps the        *)
(*      resource safe: Fencing = "counter", an INCR on a counter service,  *)
(*      or "lock-value", the random value, which is no order);             *)
(*   5. if it failed (no majority, or no validity left), unlocks all       *)
(*      instances (GiveUp: Unlock, the compare-and-delete script, to every *)
(*      master, without waiting); and after the critical section it       *)
(*      releases the same way (Release). It retries after a random delay   *)
(*      (Backoff draws one of Retry..RetryMax, each outcome strongly fair; *)
(*      the Retry timer then fires exactly that many ticks later and the   *)
(*      client acquires at once: RetryFires). RetryMax = Retry is a fixed  *)
(*      delay, weakly fair only.                                           *)
(* A master that crashes restarts "empty" (no persistence), "fsync" (the   *)
(* key survives; antirez: appendfsync always) or "delayed" (antirez's fix: *)
(* it answers nothing for a TTL after the restart: Recovered).             *)
(*                                                                         *)
(* Vocabulary. Lock (SET lock v NX PX Ttl), Locked (OK / nil, with the     *)
(* value), Unlock (if GET lock == v then DEL lock), Incr and Token (the    *)
(* fencing counter), Write/Accepted/Rejected (the resource). Timers:       *)
(* KeyExpiry, Recovered (masters); Timeout, Validity, Retry (clients).     *)
(*                                                                         *)
(* The world (time, network, faults, fairness) is World.tla's; this module *)
(* supplies the handlers. The Rust module src/algorithms/redlock/          *)
(* follows it action for action (with src/algorithms/common/client.rs and  *)
(* resource.rs): for the constants of a scenario TLC must find exactly as  *)
(* many distinct states as the Rust checker finds unique states. Variables:*)
(*   key, recovering Master (key: the value the key holds)                 *)
(*   issued          State::Counter: the counter service's last INCR       *)
(*   phase, left     Client::script; value, answered, yes (masks as sets   *)
(*                   of master ids), checked, token, drawing as in Client; *)
(*                   acquired is Client::ghost (renamed: ghost is the      *)
(*                   world's)                                              *)
(*   max_token, max_ghost   Resource                                       *)
(* The stopwatch T1 is the world's watches[c]["Elapsed"].                  *)
(*                                                                         *)
(* Node ids as in Rust: masters 0..Masters-1, then the clients, then the   *)
(* counter service (only with Fencing = "counter"), then the resource.     *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    Masters,       \* [system] masters
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: key expiry in a master's ticks
    Timeout,       \* [system] timeout: the per-request timeout, client ticks
    Drift,         \* [system] drift: allowance subtracted from the validity
    Margin,        \* [system] margin: validity a client needs left at Check
    Retry,         \* [system] retry: the shortest back-off, client ticks
    RetryMax,      \* [system] retry_max: the longest back-off
    RestartMode,   \* [system] restart: "empty", "fsync" or "delayed"
    Fencing,       \* [system] fencing: "none", "lock-value" or "counter"
    PauseWindow,   \* [system] pause_window: "any" or "acquiring"
    Requests,      \* [system] requests: this mirror has only "parallel"
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Masters \in 1..7 /\ Clients \in 1..4 /\ Ttl \in 1..30
       /\ Timeout \in 1..Ttl - 1 /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Retry \in 1..10 /\ RetryMax \in Retry..20
       /\ RestartMode \in {"empty", "fsync", "delayed"}
       /\ Fencing \in {"none", "lock-value", "counter"}
       /\ PauseWindow \in {"any", "acquiring"}
       \* Requests in sequence are the clean-room spec's (specs/Redlock.tla),
       \* which checks them against the Rust model; this mirror of the Rust
       \* client sends every SET at once.
       /\ Requests = "parallel"
       /\ Acquisitions \in 0..5

MasterIds == 0..Masters - 1
ClientIds == Masters..Masters + Clients - 1
Counter == Masters + Clients
Resource == IF Fencing = "counter" THEN Counter + 1 ELSE Counter
AllNodes == 0..Resource
\* The links that ever carry a message: masters and clients both ways, the
\* clients and the resource both ways, the clients and the counter both
\* ways. No other node sends to any other (World::net holds no such entry).
Links == LET pair(a, b) == (a \X b) \cup (b \X a) IN
         pair(MasterIds, ClientIds) \cup pair(ClientIds, {Resource})
           \cup (IF Fencing = "counter" THEN pair(ClientIds, {Counter}) ELSE {})
MasterTimers == {"KeyExpiry", "Recovered"}
ClientTimers == {"Timeout", "Validity", "Retry"}
TimerNames == MasterTimers \cup ClientTimers
StepNames == {"Acquire", "Check", "Write"}
Delays == Retry..RetryMax

Quorum == Masters \div 2 + 1

\* The world's view of the nodes (World.tla's hooks): the counter service
\* and the resource are observers, never faulted.
Role(n) == CASE n \in MasterIds -> "server" [] n \in ClientIds -> "client" [] OTHER -> "observer"
\* Any elapsed time of a TTL or more leaves no validity.
Cap(n, w) == Ttl

VARIABLES
    key,        \* key[m]: the value master m's key holds, or None
    recovering, \* recovering[m]: a delayed restart, answering nothing yet
    issued,     \* the counter service's value (INCR lock:fence)
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Done (never
                \* Releasing: a Redlock client does not wait for the unlocks)
    left,       \* left[c]: acquisitions still to make
    value,      \* value[c]: the attempt's random value, 0 when none
    answered,   \* answered[c]: masters that answered this attempt
    yes,        \* yes[c]: masters that said yes
    checked,    \* checked[c]: found validity left at Check, about to write
    token,      \* token[c]: the fencing token, or None until known
    acquired,   \* acquired[c]: the ghost number of c's acquisition
    drawing,    \* drawing[c]: gave up an attempt, draws its back-off next
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

\* The world's variables no handler changes.
fixed == <<status, pause, skew, cut, spent>>
masterVars == <<key, recovering>>
clientVars == <<phase, left, value, answered, yes, checked, token, acquired, drawing, watches>>
resourceVars == <<max_token, max_ghost>>
algVars == <<key, recovering, issued, phase, left, value, answered, yes, checked, token,
             acquired, drawing, max_token, max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* The client's script (common/client.rs) and the lock view (src/algorithms/redlock/mod.rs's *)
(* lock_view and properties.rs).                                           *)

\* A client believes it holds the lock while its validity timer is above
\* zero, and, once it has checked that timer, until it has written and
\* released.
Holds(c) ==
    \/ phase[c] = "Holding" /\ (checked[c] \/ (IsSet(c, "Validity") /\ timers[c]["Validity"] > 0))
    \/ phase[c] = "Writing"
\* A client wants the lock until it may use it: a client that won a
\* majority but has not passed its Check yet still wants it (and may hold
\* it too, for mutual exclusion).
Wants(c) ==
    \/ phase[c] \in {"Want", "Acquiring"}
    \/ phase[c] = "Holding" /\ ~checked[c]

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released: the release was sent (redlock does not wait for it).
Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

\* Client::forget: drop what only mattered to the attempt or the hold.
Forget(c) ==
    /\ value' = [value EXCEPT ![c] = 0]
    /\ answered' = [answered EXCEPT ![c] = {}]
    /\ yes' = [yes EXCEPT ![c] = {}]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ token' = [token EXCEPT ![c] = None]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

\* give_up: the attempt failed or the lock was lost: unlock every master,
\* and draw a back-off next (Backoff). q and tm are the network and c's
\* timers so far in the step.
GiveUp(c, q, tm) ==
    /\ net' = SendAll(q, c, MasterIds, [type |-> "Unlock", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(tm, "Validity")]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ drawing' = [drawing EXCEPT ![c] = TRUE]
    /\ Forget(c)
    /\ UNCHANGED ghost

\* decide: T2. Hold the lock only with a majority (y: the masters that said
\* yes) and validity left; then ask the counter for a token, if fenced so.
Decide(c, q, tm, y) ==
    LET t == CancelTimer(tm, "Timeout")
        validity == Ttl - (IF Running(c, "Elapsed") THEN watches[c]["Elapsed"] ELSE Ttl) - Drift
    IN  /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]
        /\ IF Cardinality(y) < Quorum \/ validity <= 0
           THEN GiveUp(c, q, t)
           ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
                /\ answered' = [answered EXCEPT ![c] = {}]
                /\ yes' = [yes EXCEPT ![c] = {}]
                /\ ghost' = ghost + 1
                /\ acquired' = [acquired EXCEPT ![c] = ghost + 1]
                /\ timers' = [timers EXCEPT ![c] = SetTimer(t, "Validity", validity)]
                /\ token' = [token EXCEPT ![c] = CASE Fencing = "none" -> 0
                                                   [] Fencing = "lock-value" -> value[c]
                                                   [] OTHER -> None]
                /\ net' = IF Fencing = "counter"
                          THEN Send(q, c, Counter, [type |-> "Incr", value |-> value[c]])
                          ELSE q
                /\ UNCHANGED <<checked, value, drawing>>

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Backoff, Check and Write are   *)
(* urgent: time does not pass while a running client has one. Acquire (the *)
(* first attempt of an acquisition) is not (Actor::urgent): a client comes *)
(* to want the lock at any moment, any number of ticks later, but not      *)
(* never (it is weakly fair). A retry is RetryFires, when the back-off     *)
(* timer fires.                                                            *)

CanAcquire(c) == phase[c] = "Want" /\ ~drawing[c] /\ ~IsSet(c, "Retry")
CanDraw(c) == phase[c] = "Want" /\ drawing[c]
CanCheck(c) == phase[c] = "Holding" /\ ~checked[c] /\ token[c] # None
CanWrite(c) == phase[c] = "Holding" /\ checked[c]
HasUrgentStep(n) == n \in ClientIds /\ (CanDraw(n) \/ CanCheck(n) \/ CanWrite(n))

\* acquire: a fresh random value (Out::fresh_value: unlike any value
\* present), T1, then SET lock value NX PX ttl on every master, with a
\* timeout. tm: c's timers so far in the step.
StartAttempt(c, tm) ==
    LET v == drawn + 1 IN
    /\ drawn' = v
    /\ value' = [value EXCEPT ![c] = v]
    /\ answered' = [answered EXCEPT ![c] = {}]
    /\ yes' = [yes EXCEPT ![c] = {}]
    /\ watches' = [watches EXCEPT ![c] = StartWatch(@, "Elapsed")]
    /\ net' = SendAll(net, c, MasterIds, [type |-> "Lock", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, masterVars, issued,
                   left, checked, token, acquired, drawing, resourceVars>>

Acquire(c) == Up(c) /\ CanAcquire(c) /\ StartAttempt(c, timers[c])

\* Backoff: draw the delay d before the next attempt, one of Retry..RetryMax
\* (each outcome a step of its own, strongly fair: Fairness).
Backoff(c, d) ==
    /\ Up(c) /\ CanDraw(c) /\ d \in Delays
    /\ drawing' = [drawing EXCEPT ![c] = FALSE]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Retry", d)]
    /\ UNCHANGED <<fixed, drawn, net, ghost, history, masterVars, issued, phase, left,
                   value, answered, yes, checked, token, acquired, watches, resourceVars>>

\* Check: is there validity left for the work? Only then use the resource.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, ghost, phase, value, answered, yes, token, acquired, drawing>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<fixed, drawn, history, masterVars, issued,
                   left, watches, resourceVars>>

\* Write: the critical section's write, with the token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, Resource,
                   [type |-> "Write", token |-> IF token[c] = None THEN 0 ELSE token[c],
                    ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, drawn, timers, ghost, history, masterVars, issued,
                   left, value, answered, yes, checked, token, acquired, drawing,
                   watches, resourceVars>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive, on_timer). Each delivers the     *)
(* head of the link src -> c, or fires one of c's due timers.              *)

\* A master's answer to this attempt (it carries the attempt's value; an
\* answer to an earlier attempt is discarded): count it; decide once all
\* answered.
ReceiveLocked(src, c) ==
    LET m == Msg(src, c)
        a == answered[c] \cup {src}
        y == IF m.ok THEN yes[c] \cup {src} ELSE yes[c]
    IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ m.type = "Locked" /\ m.value = value[c]
    /\ IF a = MasterIds
       THEN Decide(c, Pop(src, c), timers[c], y)
       ELSE /\ answered' = [answered EXCEPT ![c] = a]
            /\ yes' = [yes EXCEPT ![c] = y]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<timers, ghost, phase, value, checked, token, acquired, drawing, watches>>
    /\ UNCHANGED <<fixed, drawn, history, masterVars, issued, left, resourceVars>>

\* The request timeout fired while acquiring: decide with what answered.
TimedOut(c) ==
    /\ Up(c) /\ Due(c, "Timeout") /\ phase[c] = "Acquiring"
    /\ Decide(c, net, CancelTimer(timers[c], "Timeout"), yes[c])
    /\ UNCHANGED <<fixed, drawn, history, masterVars, issued, left, resourceVars>>

\* The back-off is over: try again, at once.
RetryFires(c) ==
    /\ Up(c) /\ Due(c, "Retry") /\ phase[c] = "Want"
    /\ StartAttempt(c, CancelTimer(timers[c], "Retry"))

\* The validity ran out before the client checked it: lost.
ValidityEnds(c) ==
    /\ Up(c) /\ Due(c, "Validity") /\ phase[c] = "Holding"
    /\ GiveUp(c, net, CancelTimer(timers[c], "Validity"))
    /\ UNCHANGED <<fixed, drawn, history, masterVars, issued,
                   left, watches, resourceVars>>

\* The counter service's answer: the fencing token, for this hold.
ReceiveToken(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Holding" /\ m.type = "Token" /\ m.value = value[c] /\ token[c] = None
    /\ token' = [token EXCEPT ![c] = m.token]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, drawn, timers, ghost, history, masterVars, issued,
                   phase, left, value, answered, yes, checked, acquired, drawing,
                   watches, resourceVars>>

\* The write is answered: release on every master, without waiting.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = SendAll(Pop(src, c), c, MasterIds, [type |-> "Unlock", value |-> value[c]])
    /\ Forget(c)
    /\ Released(c)
    /\ UNCHANGED <<fixed, drawn, timers, ghost, history, masterVars, issued,
                   drawing, watches, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type = "Locked" /\ m.value = value[c]
    \/ phase[c] = "Holding" /\ m.type = "Token" /\ m.value = value[c] /\ token[c] = None
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}

-----------------------------------------------------------------------------
(* The masters (master_receive, on_timer): each runs a command atomically; *)
(* a recovering master answers nothing.                                    *)

\* SET lock value NX PX ttl.
ReceiveLock(src, s) ==
    LET m == Msg(src, s) IN
    /\ Deliverable(src, s) /\ ~recovering[s] /\ m.type = "Lock"
    /\ IF key[s] = None
       THEN /\ key' = [key EXCEPT ![s] = m.value]
            /\ timers' = [timers EXCEPT ![s] = SetTimer(@, "KeyExpiry", Ttl)]
       ELSE UNCHANGED <<key, timers>>
    /\ net' = Send(Pop(src, s), s, src,
                   [type |-> "Locked", value |-> m.value, ok |-> key[s] = None])
    /\ UNCHANGED <<fixed, drawn, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* Compare-and-delete: if GET lock == value then DEL lock. No answer.
ReceiveUnlock(src, s) ==
    /\ Deliverable(src, s) /\ ~recovering[s]
    /\ Msg(src, s).type = "Unlock" /\ key[s] = Msg(src, s).value
    /\ key' = [key EXCEPT ![s] = None]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "KeyExpiry")]
    /\ net' = Pop(src, s)
    /\ UNCHANGED <<fixed, drawn, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* The key's TTL ran out on the master's clock.
KeyExpiry(s) ==
    /\ Up(s) /\ Due(s, "KeyExpiry")
    /\ key' = [key EXCEPT ![s] = None]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "KeyExpiry")]
    /\ UNCHANGED <<fixed, drawn, net, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* A delayed restart ends: the master answers again.
Recovered(s) ==
    /\ Up(s) /\ Due(s, "Recovered")
    /\ recovering' = [recovering EXCEPT ![s] = FALSE]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "Recovered")]
    /\ UNCHANGED <<fixed, drawn, net, ghost, history, key, issued,
                   clientVars, resourceVars>>

MasterTakes(src, s, m) ==
    ~recovering[s] /\ (m.type = "Lock" \/ (m.type = "Unlock" /\ key[s] = m.value))

-----------------------------------------------------------------------------
(* The counter service (INCR) and the protected resource (resource.rs):    *)
(* with fencing on, it rejects any token lower than the highest accepted.  *)

ReceiveIncr(src) ==
    /\ Deliverable(src, Counter) /\ Msg(src, Counter).type = "Incr"
    /\ issued' = issued + 1
    /\ net' = Send(Pop(src, Counter), Counter, src,
                   [type |-> "Token", value |-> Msg(src, Counter).value, token |-> issued + 1])
    /\ UNCHANGED <<fixed, drawn, timers, ghost, history, masterVars,
                   clientVars, resourceVars>>

\* With Fencing = "lock-value" the tokens are random values, in no order
\* related to the acquisitions; values are drawn in increasing order, so the
\* resource orders them the other way round (a value drawn later is lower):
\* one possible outcome of random draws, the one that defeats fencing.
\* max_token is then the lowest value accepted, 0 before any.
Rejects(m) ==
    CASE Fencing = "counter" -> m.token < max_token
      [] Fencing = "lock-value" -> max_token # 0 /\ m.token > max_token
      [] OTHER -> FALSE

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ IF Rejects(m)
       THEN /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF Fencing = "lock-value" \/ m.token > max_token THEN m.token
                            ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, drawn, timers, ghost, masterVars, issued, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst \in MasterIds -> MasterTakes(src, dst, m)
      [] dst \in ClientIds -> ClientTakes(dst, m)
      [] dst = Resource    -> m.type = "Write"
      [] OTHER             -> m.type = "Incr"

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, drawn, timers, ghost, history, masterVars, issued,
                   clientVars, resourceVars>>

\* (Deliverable first, though each disjunct checks it too: TLC evaluates the
\* fairness of Deliver on every state and every step, and most links are
\* empty.)
Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ dst \in ClientIds /\ (ReceiveLocked(src, dst) \/ ReceiveToken(src, dst) \/ Release(src, dst))
       \/ dst \in MasterIds /\ (ReceiveLock(src, dst) \/ ReceiveUnlock(src, dst))
       \/ dst = Counter /\ Fencing = "counter" /\ ReceiveIncr(src)
       \/ dst = Resource /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire): a running node's timer, run down to zero, fires; *)
(* the world removes it first. A timer whose handler does nothing in this  *)
(* state (Timeout or Validity in another phase) just goes away.           *)

Expires(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, t)]
    /\ UNCHANGED <<fixed, drawn, net, ghost, history, masterVars, issued,
                   clientVars, resourceVars>>

Fire(n, t) ==
    CASE n \in ClientIds /\ t = "Timeout" /\ phase[n] = "Acquiring" -> TimedOut(n)
      [] n \in ClientIds /\ t = "Retry" /\ phase[n] = "Want" -> RetryFires(n)
      [] n \in ClientIds /\ t = "Validity" /\ phase[n] = "Holding" -> ValidityEnds(n)
      [] n \in MasterIds /\ t = "KeyExpiry" -> KeyExpiry(n)
      [] n \in MasterIds /\ t = "Recovered" -> Recovered(n)
      [] OTHER -> Expires(n, t)

-----------------------------------------------------------------------------
(* The world (World.tla): time, drift, crashes, restarts, pauses,          *)
(* partitions, loss, duplication, clock jumps. Only Crash and Restart      *)
(* touch the algorithm's state.                                            *)

\* Actor::may_pause: with PauseWindow = "acquiring", a client only while it
\* is acquiring (antirez's case); any other node at any time.
MayPause(n) == n \in ClientIds /\ PauseWindow = "acquiring" => phase[n] = "Acquiring"

Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars
DriftTick == WorldDrift(Role, HasUrgentStep, Cap) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

\* Fault: a node stops. An fsynced master keeps its key and the key's
\* expiry; any other master forgets both. A client keeps its state only for
\* the restart.
Crash(n) ==
    /\ WorldCrash(n, IF n \in MasterIds /\ RestartMode = "fsync"
                     THEN Keep(timers[n], {"KeyExpiry"}) ELSE NoTimers, Role)
    /\ IF n \in MasterIds /\ RestartMode # "fsync"
       THEN /\ key' = [key EXCEPT ![n] = None]
            /\ recovering' = [recovering EXCEPT ![n] = FALSE]
       ELSE UNCHANGED masterVars
    /\ UNCHANGED <<issued, phase, left, value, answered, yes, checked, token, acquired,
                   drawing, resourceVars>>

\* A crashed node comes back with what it persisted: an fsynced master with
\* its key (gone if its expiry passed while down), a delayed one empty and
\* silent for one TTL, anything else afresh.
Restart(n) ==
    /\ WorldRestart(n)
    /\ CASE n \in MasterIds /\ RestartMode = "fsync" ->
              /\ key' = [key EXCEPT ![n] = IF Due(n, "KeyExpiry") THEN None ELSE @]
              /\ timers' = [timers EXCEPT ![n] =
                              IF IsSet(n, "KeyExpiry") /\ ~Due(n, "KeyExpiry")
                              THEN Keep(@, {"KeyExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<recovering, issued, phase, left, value, answered, yes, checked,
                             token, acquired, drawing, resourceVars>>
         [] n \in MasterIds /\ RestartMode = "delayed" ->
              /\ key' = [key EXCEPT ![n] = None]
              /\ recovering' = [recovering EXCEPT ![n] = TRUE]
              /\ timers' = [timers EXCEPT ![n] = [t \in {"Recovered"} |-> Ttl]]
              /\ UNCHANGED <<issued, phase, left, value, answered, yes, checked,
                             token, acquired, drawing, resourceVars>>
         [] n \in MasterIds ->
              /\ key' = [key EXCEPT ![n] = None]
              /\ recovering' = [recovering EXCEPT ![n] = FALSE]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<issued, phase, left, value, answered, yes, checked,
                             token, acquired, drawing, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ answered' = [answered EXCEPT ![n] = {}]
              /\ yes' = [yes EXCEPT ![n] = {}]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ token' = [token EXCEPT ![n] = None]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ drawing' = [drawing EXCEPT ![n] = FALSE]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, issued, resourceVars>>
         [] n = Resource ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, issued, phase, left, value, answered, yes, checked,
                             token, acquired, drawing>>
         [] OTHER ->
              /\ issued' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, phase, left, value, answered, yes, checked,
                             token, acquired, drawing, resourceVars>>
    /\ UNCHANGED <<net, ghost, drawn, history>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ key = [s \in MasterIds |-> None]
    /\ recovering = [s \in MasterIds |-> FALSE]
    /\ issued = 0
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ value = [c \in ClientIds |-> 0]
    /\ answered = [c \in ClientIds |-> {}]
    /\ yes = [c \in ClientIds |-> {}]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ token = [c \in ClientIds |-> None]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ drawing = [c \in ClientIds |-> FALSE]
    /\ max_token = 0
    /\ max_ghost = 0

\* A client's step by name (for fairness).
Step(n, s) ==
    /\ n \in ClientIds
    /\ CASE s = "Acquire" -> Acquire(n)
         [] s = "Check" -> Check(n)
         [] OTHER -> Write(n)

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ (\E d \in Delays : Backoff(c, d)) \/ Check(c) \/ Write(c)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ Heal
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in (-MaxJump..MaxJump) \ {0} : ClockJump(n, by)
    \/ DriftTick

\* docs/design.md §5, in World.tla's shape (only masters have master
\* timers, only clients client timers).
Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in ClientIds, s \in StepNames : WF_vars(Step(n, s))
    /\ \A n \in ClientIds, d \in Delays : WF_vars(Backoff(n, d))
    \* Actor::random: each outcome of the random draw is strongly fair.
    /\ RetryMax > Retry => \A n \in ClientIds, d \in Delays : SF_vars(Backoff(n, d))
    /\ \A n \in MasterIds, t \in MasterTimers : WF_vars(Fire(n, t))
    /\ \A n \in ClientIds, t \in ClientTimers : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

\* The steps that are no fault (World.tla): the nodes' own, the network's
\* deliveries, time, and the recoveries unless Recovery = "none". A step
\* some of these could take is no fault, even when a fault (say, losing a
\* message the destination would ignore) could take it too.
NoFault ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ (\E d \in Delays : Backoff(c, d)) \/ Check(c) \/ Write(c)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (Heal \/ \E n \in AllNodes : Restart(n))

\* docs/design.md §5: liveness is about the runs in which faults stop.
\* Loss, duplication and drift have no budget, so a run may lose every
\* message for ever; such runs are not counterexamples.
FaultsStop == <>[][NoFault]_vars

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank). Ghost numbers, lock values (equal or    *)
(* not, but drawn in increasing order), and with counter fencing the       *)
(* counter's value and the tokens drawn from it, are only ever compared:   *)
(* RankedVars is the state with each renumbered by its rank among the      *)
(* values of its kind present, as Rust does after every action. With       *)
(* Fencing = "lock-value" the tokens are lock values, renumbered with them. *)

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup {w.ghost : w \in {m \in InFlight : m.type = "Write"}}

Counted == Fencing = "counter"
ValueTokens == Fencing = "lock-value"
TokenValues ==
    {0, issued, max_token} \cup {token[c] : c \in {d \in ClientIds : token[d] # None}}
      \cup {w.token : w \in {m \in InFlight : m.type \in {"Write", "Token"}}}

LockValues ==
    {0, drawn} \cup {value[c] : c \in ClientIds}
      \cup {key[s] : s \in {m \in MasterIds : key[m] # None}}
      \cup {m.value : m \in {x \in InFlight : x.type \in {"Lock", "Locked", "Unlock", "Incr", "Token"}}}
      \cup (IF ValueTokens
            THEN {max_token} \cup {token[c] : c \in {d \in ClientIds : token[d] # None}}
                   \cup {w.token : w \in {m \in InFlight : m.type = "Write"}}
            ELSE {})

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        V == LockValues
        rg(v) == Rank(v, G)
        rv(v) == Rank(v, V)
        rt(v) == CASE v = None -> v
                   [] Counted -> Rank(v, T)
                   [] ValueTokens -> Rank(v, V)
                   [] OTHER -> v
        msg(m) == CASE m.type = "Write" -> [m EXCEPT !.ghost = rg(@), !.token = rt(@)]
                    [] m.type = "Token" -> [m EXCEPT !.value = rv(@), !.token = Rank(@, T)]
                    [] m.type \in {"Lock", "Locked", "Unlock", "Incr"} -> [m EXCEPT !.value = rv(@)]
                    [] OTHER -> m
    IN  IF ~(Concrete(net) /\ Concrete(key) /\ Concrete(value) /\ Concrete(token)
             /\ Concrete(acquired)) THEN <<>> ELSE
        <<RankedWorld(rg, rv, msg),
          [s \in MasterIds |-> IF key[s] = None THEN None ELSE rv(key[s])],
          recovering, rt(issued), phase, left, [c \in ClientIds |-> rv(value[c])],
          answered, yes, checked, [c \in ClientIds |-> rt(token[c])],
          [c \in ClientIds |-> rg(acquired[c])], drawing, rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ \A n \in Nodes : DOMAIN watches[n] \subseteq {"Elapsed"}
    /\ history \subseteq {"StaleWrite"}
    /\ recovering \in [MasterIds -> BOOLEAN]
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Done"}]
    /\ drawn \in Nat
    /\ key \in [MasterIds -> Nat \cup {None}]
    /\ value \in [ClientIds -> Nat]
    /\ answered \in [ClientIds -> SUBSET MasterIds]
    /\ yes \in [ClientIds -> SUBSET MasterIds]
    /\ \A c \in ClientIds : yes[c] \subseteq answered[c]
    /\ checked \in [ClientIds -> BOOLEAN]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired: the
\* compare-and-delete raises no flag, so this holds by construction.
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it
\* (properties.rs's acquired). A majority whose Check fails is no grant.
Granted(c) == c \in Wanting /\ c \notin Wanting'

\* Once faults stop, whenever a running client wants the lock, some client
\* eventually acquires it.
DeadlockFreedom ==
    FaultsStop => ([]<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars)

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
