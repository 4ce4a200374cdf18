"""The live server: the tables in memory and the sockets on each (:mod:`.fanout`,
:mod:`.hub`), one socket's queue (:mod:`.sockets`), writing decided changes in order
(:mod:`.writer`), following the other servers on the same store (:mod:`.follow`), the tools'
messages (:mod:`.toolmessages`), giving seats (:mod:`.seats`), seat takeovers
(:mod:`.takeover`) and undo questions (:mod:`.undoasks`). No HTTP here: :mod:`..web` sits on
this layer."""
