"""The web: the HTTP API (:mod:`.routes`), the WebSocket protocol (:mod:`.protocol`), the pages
and static files (:mod:`.pages`), what both answer with (:mod:`.requests`), the statistics'
pictures (:mod:`.pictures`), the answers kept and the cost shares (:mod:`.answers`), the
middleware and the connections (:mod:`.middleware`, :mod:`.connections`), clients' addresses
behind proxies (:mod:`.addresses`), the LAN address and QR code (:mod:`.lan`) and the app's
icons (:mod:`.icons`). :mod:`lifeledger_table.server` puts it together."""
