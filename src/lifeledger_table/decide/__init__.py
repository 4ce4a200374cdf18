"""The table's decisions, with no network and no sockets: a table's log and what the rules engine
derives from it (:mod:`.table`, a facade over the rooms that decide it: :mod:`.state`,
:mod:`.entries`, :mod:`.reading`, :mod:`.undoing`, :mod:`.setting`, :mod:`.views`,
:mod:`.deciding`, :mod:`.loading`, :mod:`.undoing_under`), what each change changed
(:mod:`.changes`), who may do what (:mod:`.rights`), the limits and budgets (:mod:`.limits`), a
table's setup and text (:mod:`.setup`, :mod:`.text`), the tools' dice and clocks
(:mod:`.tools`), the one reader of JSON (:mod:`.jsontext`), the errors a change is refused with
(:mod:`.errors`) and the bridge to the rules package (:mod:`.engine`). A table is loaded from a
store it is given (:class:`lifeledger_table.store.records.Store`): the one layer below this one.
Its decisions do no I/O (sans I/O, as h11 and python-chess): one that needs part of the log not
in memory raises :class:`.logreads.NeedsLog` naming the read, having changed nothing; the caller
makes it off the event loop, gives it to the table (``Table.learn``) and decides again."""
