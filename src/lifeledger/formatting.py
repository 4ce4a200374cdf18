"""The game record's actions written back as JSON (:func:`format_action`)."""

from __future__ import annotations

from .actions import (
    Action,
    AddCounters,
    Amount,
    BecomeMonarch,
    BeginStep,
    Cast,
    Choose,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
    Draw,
    DrawGame,
    End,
    ExchangeLife,
    GainLife,
    LifeOf,
    Loop,
    Lose,
    LoseLife,
    PayLife,
    Penalty,
    RedistributeLife,
    RemoveCounters,
    Repeat,
    Restart,
    SetLibrary,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    TakeInitiative,
    Together,
    Turn,
    Upkeep,
    Win,
)
from .effects import Reach
from .recordjson import Json


def _amount_json(value: Amount) -> Json:
    if isinstance(value, LifeOf):
        out: dict[str, Json] = {"life_of": value.player}
        if value.fraction != (1, 1):
            out["fraction"] = list(value.fraction)
        if value.round is not None:
            out["round"] = value.round
        return out
    return value


def format_action(action: Action) -> dict[str, Json]:
    """``action`` as a record's JSON object; :func:`parse_action` reads it back unchanged."""
    out: dict[str, Json] = {"do": action.do}
    match action:
        case Damage():
            out |= {"to": action.to, "amount": _amount_json(action.amount)}
            for flag in ("combat", "infect", "lifelink"):
                if getattr(action, flag):
                    out[flag] = True
            if action.controller is not None:
                out["controller"] = action.controller
            if action.toxic:
                out["toxic"] = action.toxic
        case LoseLife() | GainLife():
            out |= {"player": action.player, "amount": _amount_json(action.amount)}
        case PayLife(single=True):
            player, amount = action.payments[0]
            out |= {"player": player, "amount": _amount_json(amount)}
        case PayLife():
            out["payments"] = {p: _amount_json(a) for p, a in action.payments}
        case SetLife():
            out |= {"player": action.player, "to": _amount_json(action.to)}
        case SetLifeEach():
            out["each"] = {p: _amount_json(t) for p, t in action.each}
            if action.chosen:
                out["chosen"] = dict(action.chosen)
        case ExchangeLife():
            out["players"] = [action.a, action.b]
        case RedistributeLife():
            out["totals"] = dict(action.totals)
            if action.controller is not None:
                out["controller"] = action.controller
        case AddCounters() | RemoveCounters():
            out |= {"player": action.player, "kind": action.kind}
            out["amount"] = _amount_json(action.amount)
        case Draw():
            out |= {"player": action.player, "count": action.count}
        case (
            Concede()
            | Win()
            | Penalty()
            | Upkeep()
            | Turn()
            | BecomeMonarch()
            | TakeInitiative()
            | CityBlessing()
        ):
            out["player"] = action.player
        case Cast() | SetLibrary():
            out |= {"player": action.player, "count": action.count}
        case BeginStep():
            out["step"] = action.step
            if action.nonland_milled:
                out["nonland_milled"] = dict(action.nonland_milled)
        case DayNight():
            out["to"] = action.to
        case Choose():
            out["player"] = action.player
            if action.order:
                out["order"] = list(action.order)
            if action.targets:
                out["targets"] = {i: list(t) for i, t in action.targets}
            if action.replacements:
                out["replacements"] = list(action.replacements)
        case Lose(single=True):
            out["player"] = action.losers[0]
        case Lose():
            out["players"] = list(action.losers)
        case DrawGame() | Restart():
            if action.controller is not None:
                out["controller"] = action.controller
        case Loop():
            out["controllers"] = list(action.controllers)
        case StartEffect():
            out |= {"id": action.id, "kind": action.kind.value, "controller": action.controller}
            if action.affects is not Reach.YOU:
                affects = action.affects
                out["affects"] = affects.value if isinstance(affects, Reach) else list(affects)
            if action.factor is not None:
                out["factor"] = action.factor
            if action.life_at_least is not None:
                out["life_at_least"] = action.life_at_least
            if action.until is not None:
                out["until"] = action.until
        case StartCard():
            out |= {"id": action.id, "name": action.name, "controller": action.controller}
        case End():
            out["id"] = action.id
        case Together():
            out["actions"] = [format_action(a) for a in action.actions]
        case Repeat():
            out["times"] = action.times
            out["actions"] = [format_action(a) for a in action.actions]
    if action.source is not None:
        out["source"] = action.source
    if action.note is not None:
        out["note"] = action.note
    return out
