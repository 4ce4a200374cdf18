"""Where tables are kept: the :class:`.records.Store` interface and what it keeps
(:mod:`.records`), the SQLite store (:mod:`.sqlite`), the PostgreSQL store (:mod:`.postgres`)
and which of them ``lifeledger serve --db`` opens (:mod:`.opening`). The bottom layer: it
imports nothing else of the app."""
