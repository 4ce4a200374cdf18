"""Issue 27 item 4: a phone with no connection foresees its queued changes with its own engine
(``lifeledger_table.device.foresee``), from the table's current game as the server last gave it
(``GET /api/tables/{table}/game``). The rules named: 119.3 (life lost), 704.5a (a player at 0
life or less loses), 119.4 (a player can't pay more life than they have), 603.3b (a choice
first)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import given
from hypothesis import strategies as st
from table_helpers import TWO, open_table, phone, seat

from lifeledger import snapshot
from lifeledger_table.decide import engine
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.device.foresee import foresee
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.web.answers import ANSWERS_KEY

Client = TestClient[Any, Any]
HEADER = build_setup({"players": [{"name": "Ana"}, {"name": "Bo"}]})["header"]


def game_text(game: engine.Game, seq: int = 7) -> str:
    """What ``GET /api/tables/{table}/game`` answers for ``game`` at event ``seq``."""
    return json.dumps({"seq": seq, "game": snapshot.to_data(game)})


def action(cid: str, **act: Any) -> dict[str, Any]:
    return {"type": "action", "id": cid, "action": act}


def foreseen(game: engine.Game, queue: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(foresee(game_text(game), json.dumps(queue)))
    return out


def life(state: dict[str, Any]) -> dict[str, Any]:
    return {p["id"]: (p["life"], p["status"]) for p in state["players"]}


def test_704_5a_a_loss_is_foreseen_with_its_rule() -> None:
    """Bo at 20 loses 12, then 8 (119.3): at 0 life Bo loses the game (704.5a), foreseen on the
    phone with the rule, as the server's timeline entry would say it."""
    game = engine.new_game(HEADER)
    out = foreseen(
        game,
        [
            action("a", do="lose_life", player="bo", amount=12),
            action("b", do="lose_life", player="bo", amount=8),
        ],
    )
    assert out["seq"] == 7 and out["stopped"] is None
    assert [r["id"] for r in out["results"]] == ["a", "b"]
    assert all(r["ok"] for r in out["results"])
    assert life(out["state"]) == {"ana": (20, "won"), "bo": (0, "lost")}
    lost = [c for c in out["results"][1]["changes"] if c["what"] == "status" and c["to"] == "lost"]
    assert lost == [
        {
            "player": "bo",
            "what": "status",
            "from": "playing",
            "to": "lost",
            "reason": lost[0]["reason"],
            "rule": "704.5a",
        }
    ]
    assert isinstance(out["results"][1]["notes"], list)
    assert out["state"]["over"] is True
    # The same as the server's engine: the state after both, applied to the live game.
    engine.apply(game, {"do": "lose_life", "player": "bo", "amount": 12}, 0)
    engine.apply(game, {"do": "lose_life", "player": "bo", "amount": 8}, 1)
    assert out["state"] == engine.state_of(game)


def test_119_4_a_payment_refused_is_said_and_the_rest_still_applies() -> None:
    """Ana at 20 can't pay 25 life (119.4): that change is refused with its rule and sentence,
    changes nothing, and the changes after it are still foreseen (119.3)."""
    game = engine.new_game(HEADER)
    out = foreseen(
        game,
        [
            action("a", do="lose_life", player="ana", amount=3),
            action("b", do="pay_life", player="ana", amount=25),
            action("c", do="lose_life", player="bo", amount=2),
        ],
    )
    results = {r["id"]: r for r in out["results"]}
    assert results["a"]["ok"] and results["c"]["ok"]
    refused = results["b"]["refused"]
    assert refused["error"] == "refused"
    assert refused["rule"].startswith("119.4")
    assert refused["message"] and "sentence" in refused
    assert "ok" not in results["b"]
    assert life(out["state"]) == {"ana": (17, "playing"), "bo": (18, "playing")}


def test_an_undo_or_a_draw_agreed_stops_the_foresight_there() -> None:
    """An undo (and any change but an action) waits for the server, and so does an
    intentional draw (104.4i: every player agrees, which the phone can't know): foresight
    stops before it, and the changes after it are not foreseen."""
    game = engine.new_game(HEADER)
    out = foreseen(
        game,
        [
            action("a", do="lose_life", player="bo", amount=1),
            {"type": "undo", "id": "u", "target": 3},
            action("b", do="lose_life", player="bo", amount=1),
        ],
    )
    assert [r["id"] for r in out["results"]] == ["a"] and out["stopped"] == "u"
    assert life(out["state"])["bo"] == (19, "playing")
    draw = foreseen(game, [action("d", do="intentional_draw")])
    assert draw["results"] == [] and draw["stopped"] == "d"


def test_a_turn_begun_since_stops_the_foresight() -> None:
    """A change made at turn 0 (``at_turn``) while the kept game is at another turn is the
    server's to turn down as stale: foresight stops there."""
    game = engine.new_game(HEADER)
    out = foreseen(game, [{**action("t", do="lose_life", player="bo", amount=1), "at_turn": 3}])
    assert out["results"] == [] and out["stopped"] == "t"


@pytest.mark.parametrize(
    ("game", "queue", "member", "words"),
    [
        ("{", "[]", "game", "The game kept for foresight is not JSON"),
        (None, "[", "queue", "The queue is not JSON"),
        ('{"seq": 1}', "[]", "game", '{"seq": N, "game": {...}}'),
        ('{"seq": 1, "game": {"snapshot": 99}}', "[]", "game", "can't be read: snapshot"),
        (None, '{"id": "a"}', "queue", "a JSON array"),
        (None, '[{"type": "action"}]', "queue[0]", "Change 1 of the queue"),
    ],
)
def test_bad_input_is_refused_naming_where_and_what(
    game: str | None, queue: str, member: str | None, words: str
) -> None:
    text = game if game is not None else game_text(engine.new_game(HEADER))
    out = json.loads(foresee(text, queue))
    assert set(out) == {"error"}
    assert out["error"]["error"] == "malformed"
    assert out["error"]["member"] == member
    assert words in out["error"]["message"]


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["lose_life", "gain_life", "pay_life", "add_counters"]),
        st.sampled_from(["ana", "bo"]),
        st.integers(min_value=0, max_value=12),
    ),
    max_size=25,
)


@given(before=ACTIONS, queued=ACTIONS)
def test_the_kept_game_decides_further_actions_as_the_live_game(
    before: list[tuple[str, str, int]], queued: list[tuple[str, str, int]]
) -> None:
    """The table's game keeps no history; its data, read back on the phone, decides any later
    actions exactly as the live game does: the same state after each, the same refusals."""

    def act(kind: str, player: str, amount: int) -> dict[str, Any]:
        out: dict[str, Any] = {"do": kind, "player": player, "amount": amount}
        if kind == "add_counters":
            out["kind"] = "poison"
        return out

    game = engine.new_game(HEADER)
    for kind, player, amount in before:
        with contextlib.suppress(engine.RefusedError, engine.MalformedError):
            engine.apply(game, act(kind, player, amount), 0)
    queue = [{"type": "action", "id": f"q{i}", "action": act(*a)} for i, a in enumerate(queued)]
    out = foreseen(game, queue)
    for msg, result in zip(queue, out["results"], strict=True):
        try:
            engine.apply(game, msg["action"], 0)
            assert result.get("ok"), result
        except (engine.RefusedError, engine.MalformedError) as exc:
            assert result["refused"]["rule"] == getattr(exc, "rule", None)
    assert out["state"] == engine.state_of(game)


# -- the server's answer --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_table_s_game_is_given_as_of_its_last_event_built_once(client: Client) -> None:
    """``GET /api/tables/{table}/game``: the current game as of the last event, read back by the
    phone's engine to the same state the server shows; built once per change of the table."""
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    await ana.act({"do": "lose_life", "player": "bo", "amount": 5})
    url = f"/api/tables/{table['id']}/game"
    res = await client.get(url)
    assert res.status == 200
    data = await res.json()
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == info["seq"]
    assert engine.state_of(snapshot.from_data(data["game"])) == info["state"]
    assert data["game"]["history"] is None  # the table keeps its log: the game keeps no history
    kept = client.server.app[ANSWERS_KEY]
    built = kept.built
    assert await (await client.get(url)).json() == data
    assert kept.built == built
    # A change: the next answer is the game after it (704.5a foreseen from it, as decided).
    await ana.act({"do": "lose_life", "player": "bo", "amount": 10})
    after = await (await client.get(url)).json()
    assert after["seq"] == data["seq"] + 1 and kept.built == built + 1
    queue = [action("x", do="lose_life", player="bo", amount=5)]
    out = json.loads(foresee(json.dumps(after), json.dumps(queue)))
    assert life(out["state"])["bo"] == (0, "lost")
    await ana.act({"do": "lose_life", "player": "bo", "amount": 5})
    final = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert out["state"] == final["state"]


@pytest.mark.asyncio
async def test_the_game_waits_while_a_decided_change_is_not_yet_written(client: Client) -> None:
    """While a change decided is not yet written, the live game is ahead of the last event:
    503 ``busy`` with ``Retry-After``, not a game the phones have not seen; an unknown table
    is 404."""
    table = await open_table(client, TWO)
    live = await client.server.app[HUB_KEY].table(table["id"])
    assert live is not None
    live.pending[live.last_seq + 1] = None
    try:
        res = await client.get(f"/api/tables/{table['id']}/game")
        assert res.status == 503 and res.headers["Retry-After"] == "1"
        assert (await res.json())["error"] == "busy"
    finally:
        live.pending.clear()
    assert (await client.get(f"/api/tables/{table['id']}/game")).status == 200
    assert (await client.get("/api/tables/nosuchtable/game")).status == 404
