"""A seat taking back its own change under later ones (issue 25 item 4): in the log, the
later ones taken back (newest first), its own, then each later one made again as it was, so
that every reader of the log reads plain undos and actions. The engine works them out first
(:func:`replayed_without`): a later change it now refuses, or one that would now do something
else (unless confirmed), refuses the undo, naming it.

The room above :mod:`.deciding` (each change is decided there) and :mod:`.loading` (a failure
midway loads the table again).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from lifeledger.sentences import Items, Sentence

from . import deciding, engine, loading, reading, undoing
from .changes import changes
from .entries import Decision, device_of, undoable
from .errors import TableError, engine_failed
from .limits import UNDO_SECONDS, WorkShare
from .state import UNDO_UNDER, TableState

__all__ = ["decide_all", "replayed_without", "undo_under", "undoes_under"]

log = logging.getLogger("lifeledger_table")


def undoes_under(table: TableState, kind: str, body: dict[str, Any]) -> bool:
    """Whether a request is an undo of a change under the table's last one: an action in
    effect since the last checkpoint, not the last (:func:`decide_all` decides it)."""
    target = body.get("target")
    last = table.last
    if kind != "undo" or type(target) is not int or last is None or last.kind != "action":
        return False
    return target != last.seq and any(e.seq == target for e in table.tail)


def decide_all(
    table: TableState,
    kind: str,
    body: dict[str, Any],
    client_id: str,
    seat: str | None,
    *,
    look_up: bool = False,
    at_turn: int | None = None,
    shares: Sequence[WorkShare] = (),
) -> list[Decision] | int:
    """:func:`.deciding.decide` a request, as one or several changes: a seat taking back its own
    change under later ones (issue 25 item 4) is, in the log, the later ones taken back
    (newest first), its own, then each later one made again as it was (its seat's, its
    device's, marked ``"replay"``), so that every reader of the log (records, pictures,
    checkpoints, other servers) reads plain undos and actions. The engine works them out
    first: if it now refuses a later change, the undo is refused, naming it and the rule;
    if a later change would now do something else, the undo is refused
    ``undo-changes-later``, naming each and how, unless the request says
    ``"confirm": true``. The last change made has ``client_id`` (a retry is answered its
    sequence number); the others have ids derived from it."""
    if not undoes_under(table, kind, body):
        decision = deciding.decide(
            table, kind, body, client_id, seat, look_up=look_up, at_turn=at_turn, shares=shares
        )
        return decision if isinstance(decision, int) else [decision]
    earlier = deciding.admit(table, client_id, look_up, at_turn, shares)
    if earlier is not None:
        return earlier
    with deciding.spending(table, shares):
        try:
            return undo_under(table, body, client_id, seat)
        except TableError as exc:
            deciding.refused(table, client_id, exc)
            raise


def undo_under(
    table: TableState, body: dict[str, Any], client_id: str, seat: str | None
) -> list[Decision]:
    """A seat's own change taken back under later ones (:func:`decide_all`): checked
    (:func:`_check`), then made as the later ones taken back, its own, and the later ones
    made again, each decided as a change of its own (:func:`.deciding.decide_one`)."""
    target = body["target"]
    index = next(i for i, e in enumerate(table.tail) if e.seq == target)
    _check(table, body, seat, index)
    return _take_back(table, body, client_id, seat, index)


def _check(table: TableState, body: dict[str, Any], seat: str | None, index: int) -> None:
    """Refuse taking back ``table.tail[index]`` under later ones unless it is the seat's own
    last change (from the same device), not a concession (104.3a), under at most
    :data:`.state.UNDO_UNDER` changes, and the later changes do as they did (or the request
    says ``"confirm": true``)."""
    target = body["target"]
    undone, later = table.tail[index], table.tail[index + 1 :]
    device = device_of(body)
    last = table.last
    assert last is not None
    if seat is None or undone.seat != seat or device_of(undone.body) != device:
        raise TableError(
            "not-last",
            Sentence(
                "Event {seq} is not the last action in effect: {player}'s change (event "
                "{last}) came after it. Under later changes, a seat takes back only its "
                "own last change.",
                seq=target,
                player=undoing.undo_by(table, last),
                last=last.seq,
            ),
        )
    newer = [e for e in later if e.seat == seat and device_of(e.body) == device]
    if newer:
        raise TableError(
            "not-last",
            Sentence(
                "Event {seq} is not {player}'s last change: event {newer} came after it; "
                "take that back first.",
                seq=target,
                player=undoing.undo_by(table, undone),
                newer=newer[-1].seq,
            ),
        )
    if undoable(undone) is None:
        raise undoing.final()
    if len(later) > UNDO_UNDER:
        raise TableError(
            "too-much-work",
            Sentence(
                "{n} changes came after it: a change is taken back under at most {most}. "
                "Record what undoes it instead.",
                n=len(later),
                most=UNDO_UNDER,
            ),
        )
    differ = replayed_without(table, index)
    if differ and body.get("confirm") is not True:
        raise TableError(
            "undo-changes-later",
            Sentence(
                "Taking back {what} changes what later changes did: {changes}. Undo again "
                "to take it back anyway.",
                what=Sentence("event {seq}", seq=target),
                changes=Items(said for said, _ in differ),
            ),
            preview=[each for _, each in differ],
        )


def _take_back(
    table: TableState, body: dict[str, Any], client_id: str, seat: str | None, index: int
) -> list[Decision]:
    """The changes that take back ``table.tail[index]`` under later ones, decided (checked by
    :func:`_check`); if one fails, the table is loaded again as the store holds it."""
    target = body["target"]
    later = table.tail[index + 1 :]
    device = device_of(body)
    # What the undo of the last of them reads of the log is read before anything changes
    # (NeedsLog: nothing changed yet), and kept through the changes made here.
    position = table.base_count + index
    if position == table.base_count and position:
        reading.in_effect(table, position - 1, position)
    elif not position:
        reading.opener(table, table.number)
    reads = table.reads
    made: list[Decision] = []
    stem = client_id[:48]
    common = {"device": device} if device else {}
    try:
        for e in reversed(later):
            undo = {"target": e.seq, "replay": target, **common}
            made.append(
                deciding.decide_one(table, "undo", undo, f"{stem}-u{e.seq}", seat, group=client_id)
            )
            table.reads = reads
        ids = [f"{stem}-r{e.seq}" for e in later]
        made.append(
            deciding.decide_one(table, "undo", {**body}, f"{stem}-x", seat, group=client_id)
        )
        table.reads = reads
        for e, cid in zip(later, [*ids[:-1], client_id], strict=True):
            again = {"action": e.body["action"], "replay": e.seq}
            if device_of(e.body):
                again["device"] = "table"
            made.append(
                deciding.decide_one(
                    table, "action", again, cid, e.seat, replayed=True, group=client_id
                )
            )
            table.reads = reads
    except Exception:
        # Worked out before: the engine agreed. Whatever failed, the table is loaded again
        # as the store holds it (nothing of this undo is written).
        log.exception("table %s: taking back event %s under later ones failed", table.id, target)
        for decision in made:
            table.pending.pop(decision.event.seq, None)
        loading.reload(table)
        raise engine_failed() from None
    return made


def replayed_without(table: TableState, index: int) -> list[tuple[str, dict[str, Any]]]:
    """The later changes (after ``table.tail[index]``) that the engine, replaying them
    without it, finds doing something else, each named with how (raises ``refused``
    naming one it now refuses, with the rule, and ``too-much-work`` past
    :data:`.limits.UNDO_SECONDS`). Changes nothing."""
    start = table.base_count
    game = table.base.copy()
    game.deadline = time.monotonic() + UNDO_SECONDS
    undone = table.tail[index]
    differ: list[tuple[str, dict[str, Any]]] = []
    try:
        engine.resume(game, [e.body["action"] for e in table.tail[:index]], start)
        state = engine.state_of(game)
        for offset, e in enumerate(table.tail[index + 1 :]):
            where = start + index + offset
            try:
                engine.apply(game, e.body["action"], where)
            except (engine.RefusedError, engine.ChoiceNeeded) as exc:
                why = exc.message if isinstance(exc, engine.RefusedError) else str(exc)
                raise TableError(
                    "refused",
                    Sentence(
                        "Taking back event {seq} would leave {player}'s later change "
                        "(event {later}) refused: {why}",
                        seq=undone.seq,
                        player=undoing.undo_by(table, e),
                        later=e.seq,
                        why=why,
                    ),
                    rule=getattr(exc, "rule", None),
                ) from None
            after, players, teams, _ = engine.after(game, state)
            now = changes(state, after, players, teams)
            state = after
            was = json.loads(e.entry)["changes"] if e.entry else []
            if _effect(now) != _effect(was):
                said = Sentence(
                    "{player}'s change (event {seq}): {was}, now {now}",
                    player=undoing.undo_by(table, e),
                    seq=e.seq,
                    was=said_changes(table, was),
                    now=said_changes(table, now),
                )
                each = {"seq": e.seq, "seat": e.seat, "action": e.body["action"]}
                if device_of(e.body):
                    each["device"] = "table"
                differ.append((said, {**each, "was": was, "now": now}))
    except engine.TooMuchWork as exc:
        raise TableError(
            "too-much-work",
            Sentence(
                "Taking this back means working out the changes after it again, more than "
                "a table may at once ({ms} ms); nothing changed. Record what undoes it "
                "instead.",
                ms=f"{UNDO_SECONDS * 1000:g}",
            ),
        ) from exc
    finally:
        game.deadline = None
    return differ


def said_changes(table: TableState, items: list[dict[str, Any]]) -> str:
    """What a change did, shortly: "Cy life 40 → 37; Cy status playing → lost"."""
    if not items:
        return Sentence("nothing")
    said = []
    for c in items:
        who = c.get("player") or c.get("team")
        what = str(c.get("what"))
        if c.get("key"):
            what = f"{what} {c['key']}"
        said.append(
            f"{table.label(who) + ' ' if who else ''}{what} {c.get('from')} → {c.get('to')}"
        )
    return "; ".join(said)


def _effect(items: list[dict[str, Any]]) -> list[str]:
    """What a change did, whatever the totals were before it: each item of its changes with a
    number's change as the difference (Bo −2 is Bo −2 from 38 as from 36), else as it was."""
    out = []
    for c in items:
        rest = {k: v for k, v in c.items() if k not in ("from", "to")}
        old, new = c.get("from"), c.get("to")
        numbers = all(type(x) is int for x in (old, new))
        rest["by"] = new - old if numbers else [old, new]  # type: ignore[operator]
        out.append(json.dumps(rest, sort_keys=True))
    return sorted(out)
