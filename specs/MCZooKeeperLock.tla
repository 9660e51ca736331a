--------------------------- MODULE MCZooKeeperLock ---------------------------
(***************************************************************************)
(* What only the model checker needs. The constants come from each .cfg.   *)
(* Every configuration of configurations.txt has Acquisitions = 1 and a    *)
(* finite fault budget, so the ever-growing numbers (session numbers,      *)
(* czxids, ghost acquisition numbers) are bounded and no VIEW or state     *)
(* constraint is needed. For Acquisitions = 0 a VIEW renumbering them by   *)
(* rank (World's Rank) would be needed; none is defined since no           *)
(* configuration uses it.                                                  *)
(***************************************************************************)
EXTENDS ZooKeeperLock

=============================================================================
