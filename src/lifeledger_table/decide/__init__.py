"""The table's decisions, with no network and no sockets: a table's log and what the rules
engine derives from it (:mod:`.table`), what each change changed (:mod:`.changes`), who may do
what (:mod:`.rights`), the limits and budgets (:mod:`.limits`), a table's setup and text
(:mod:`.setup`, :mod:`.text`), the tools' dice and clocks (:mod:`.tools`), the one reader of
JSON (:mod:`.jsontext`), the errors a change is refused with (:mod:`.errors`) and the bridge to
the rules package (:mod:`.engine`). A table reads its log from a store it is given
(:class:`lifeledger_table.store.records.Store`): the one layer below this one."""
