"""The one place where the server's parts are made and wired (issue 29 item 3): the
composition root.

:func:`assemble` makes the store's users (the hub, which makes its writer, owners and
follower: they and the hub each need the others), the takeovers, the undo questions, the tool
changes' budgets, the answers and series kept, the socket and code gates and the error pacer;
each is given what it uses by its constructor, and what each does on the others' news goes in
the :class:`~.live.subscribers.Subscribers` the hub was given. :meth:`Parts.install` puts them
on the aiohttp app under their keys, where the handlers find them. Nothing is looked up by the
hub in a registry, and no module assigns another's attributes.

A layer of its own, between the server entry (:mod:`.server`) and the web (:mod:`.web`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from aiohttp import web

from .decide.limits import CodeGuard, Limits, SocketGate
from .live.hub import HUB_KEY, Hub
from .live.seats import seats_given
from .live.subscribers import Subscribers
from .live.takeover import TAKEOVERS_KEY, Takeovers
from .live.toolmessages import TOOLS_KEY, ToolWork
from .live.undoasks import UNDO_ASKS_KEY, UndoAsks
from .store.records import Leases, Store
from .store.sqlite import LocalLeases
from .web import notices, protocol, routes
from .web.answers import ANSWERS_KEY, Answers
from .web.middleware import ERRORS_KEY, ErrorPacer
from .web.pictures import MADE_KEY, Made
from .web.socket import hello

__all__ = ["Parts", "assemble"]


@dataclass(frozen=True, eq=False)
class Parts:
    """The parts of one server, made and wired by :func:`assemble`."""

    store: Store
    limits: Limits
    subscribers: Subscribers
    hub: Hub
    takeovers: Takeovers
    undo_asks: UndoAsks
    tools: ToolWork
    answers: Answers
    made: Made
    gate: SocketGate
    codes: CodeGuard
    errors: ErrorPacer

    def install(self, app: web.Application) -> None:
        """Put the parts on ``app`` under their keys (the handlers' way to them)."""
        app[HUB_KEY] = self.hub
        app[TAKEOVERS_KEY] = self.takeovers
        app[UNDO_ASKS_KEY] = self.undo_asks
        app[TOOLS_KEY] = self.tools
        app[ANSWERS_KEY] = self.answers
        app[MADE_KEY] = self.made
        app[protocol.GATE_KEY] = self.gate
        app[routes.CODES_KEY] = self.codes
        app[ERRORS_KEY] = self.errors

    def install_inside(self, inside: web.Application) -> None:
        """Put on the internal listener's app what its routes use (a takeover's poll)."""
        inside[HUB_KEY] = self.hub
        inside[TAKEOVERS_KEY] = self.takeovers
        inside[ERRORS_KEY] = self.errors

    def share_notices(self) -> None:
        """Several servers share the store: the notices of theirs that are neither events,
        tools nor seats (takeovers and undo questions across servers) are handled here."""
        self.subscribers.notices.append(
            functools.partial(notices.relayed, self.hub, self.takeovers, self.undo_asks)
        )


def assemble(store: Store, limits: Limits) -> Parts:
    """Make the server's parts on ``store`` with ``limits``, each given what it uses, and
    subscribe each to the news it acts on."""
    subscribers = Subscribers()
    tools = ToolWork(limits)
    leases = store if isinstance(store, Leases) else LocalLeases()
    hub = Hub(store, limits, subscribers, leases, tools)
    takeovers = Takeovers(limits)
    undo_asks = UndoAsks(takeovers)
    owners = hub.owners
    # What each part does on the others' news, in the order it was done before.
    subscribers.welcome.append(hello.welcome)
    subscribers.changed.append(functools.partial(undo_asks.changed, hub))
    subscribers.written.append(owners.relaying.relay)
    subscribers.tools_sent.append(owners.relaying.relay_tools)
    subscribers.reading.append(owners.copies.catch_up)
    subscribers.seats_changed.append(functools.partial(seats_given, hub, takeovers))
    subscribers.undo_asked.append(functools.partial(undo_asks.ask, hub))
    gate = SocketGate(limits, changed=owners.counts.changed)
    owners.counts.count(gate)  # a table's caps count its sockets on every process
    return Parts(
        store=store,
        limits=limits,
        subscribers=subscribers,
        hub=hub,
        takeovers=takeovers,
        undo_asks=undo_asks,
        tools=tools,
        answers=Answers(limits),
        made=Made(),
        gate=gate,
        codes=CodeGuard(limits),
        errors=ErrorPacer(limits),
    )
