"""Device tables (issue 27 item 1): the table's decisions on the device, through
``lifeledger_table.device.host`` as the page's engine worker calls it, in JSON text. These run
the same Python in CPython; tests/table/test_device_tables.py runs it in Chromium (Pyodide)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lifeledger_table.device import host


@pytest.fixture(autouse=True)
def fresh_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test on a device with nothing open (as a page that was just loaded)."""
    monkeypatch.setattr(host, "_DEVICE", host._Device())


class Kept:
    """What the page's IndexedDB would hold: every ``save`` of every call, applied."""

    def __init__(self, created: dict[str, Any]) -> None:
        self.table = created["save"]["table"]
        self.seats = created["save"]["seats"]
        self.events: dict[int, str] = {}
        self.tools: list[Any] | None = None

    def take(self, save: dict[str, Any]) -> None:
        for row in save.get("events", []):
            self.events[json.loads(row)["seq"]] = row
        if save.get("tools"):
            self.tools = save["tools"]

    def text(self) -> str:
        rows = ", ".join(self.events[k] for k in sorted(self.events))
        return (
            f'{{"table": {json.dumps(self.table)}, "seats": {json.dumps(self.seats)}, '
            f'"tools": {json.dumps(self.tools)}, "events": [{rows}]}}'
        )


def new_table(players: list[dict[str, Any]], **form: Any) -> tuple[str, Kept]:
    created = json.loads(host.create(json.dumps({"players": players, **form})))
    assert "error" not in created, created
    return created["id"], Kept(created)


def send(table: str, kept: Kept, msg: dict[str, Any]) -> list[dict[str, Any]]:
    answer = json.loads(host.message(table, json.dumps(msg)))
    kept.take(answer["save"])
    return [json.loads(text) for text in answer["send"]]


def state(table: str) -> dict[str, Any]:
    return json.loads(host.info(table))["state"]  # type: ignore[no-any-return]


def life(table: str, player: str) -> Any:
    return next(p["life"] for p in state(table)["players"] if p["id"] == player)


def reopen(kept: Kept) -> None:
    """The page reloaded: a new engine, the table opened from what was kept."""
    host._DEVICE = host._Device()
    assert "error" not in json.loads(host.open_table(kept.text()))


TWO = [{"name": "Ana"}, {"name": "Bo"}]


def test_a_device_table_is_made_with_every_seat_held_by_the_device() -> None:
    table, kept = new_table(TWO)
    assert table.startswith(host.PREFIX)
    (welcome,) = send(table, kept, {"type": "hello", "since": 0})
    assert welcome["type"] == "welcome"
    assert welcome["seats"] == ["ana", "bo"]
    assert welcome["taken"] == ["ana", "bo"]
    assert welcome["device"] == "table"
    assert welcome["state"]["players"][0]["life"] == 20


@pytest.mark.rule("704.5a")
def test_a_change_is_decided_kept_and_acknowledged_and_the_rules_end_the_game() -> None:
    """Bo takes 20 damage: the device's engine decides it, says what to keep, and Bo loses
    (704.5a), as a server would."""
    table, kept = new_table(TWO)
    action = {"do": "damage", "to": "bo", "amount": 20, "source": "ana-attackers"}
    (event,) = send(table, kept, {"type": "action", "id": "t1", "as": "ana", "action": action})
    assert event["type"] == "event"
    assert event["id"] == "t1"  # the sender's acknowledgement
    assert sorted(kept.events) == [1]
    bo = next(p for p in state(table)["players"] if p["id"] == "bo")
    assert bo["life"] == 0
    assert (bo["status"], bo["rule"]) == ("lost", "704.5a")


def test_a_change_sent_again_is_acknowledged_and_not_applied_twice() -> None:
    table, kept = new_table(TWO)
    msg = {
        "type": "action",
        "id": "again",
        "as": "ana",
        "action": {"do": "lose_life", "player": "bo", "amount": 3},
    }
    send(table, kept, msg)
    (ack,) = send(table, kept, msg)
    assert ack == {"type": "ack", "id": "again", "seq": 1}
    assert life(table, "bo") == 17
    reopen(kept)
    (ack,) = send(table, kept, msg)  # after a reload too: the log knows the id
    assert ack["type"] == "ack"
    assert life(table, "bo") == 17


@pytest.mark.rule("119.4")
def test_a_change_the_rules_refuse_is_said_with_its_rule_and_nothing_is_kept() -> None:
    """Ana can't pay 21 life with 20 (119.4)."""
    table, kept = new_table(TWO)
    action = {"do": "pay_life", "player": "ana", "amount": 21}
    (error,) = send(table, kept, {"type": "action", "id": "p", "as": "ana", "action": action})
    assert error["type"] == "error"
    assert error["id"] == "p"
    assert error["error"] == "refused"
    assert error["rule"].startswith("119.4")
    assert kept.events == {}
    assert life(table, "ana") == 20


@pytest.mark.parametrize(
    ("msg", "member"),
    [
        ({"type": "action", "id": "x", "action": {"do": "lose_life"}}, None),
        ({"type": "action", "id": "bad id!", "action": {}}, None),
        ({"type": "action", "id": "x", "as": "cy", "action": {}}, "as"),
        ({"type": "action", "id": "x", "as": "ana", "at_turn": 1.0, "action": {}}, "at_turn"),
        ({"type": "undo", "id": "x", "as": "ana", "colour": 1}, None),
        ({"type": "teleport", "id": "x"}, None),
        ({"type": "history", "before": "1"}, None),
    ],
)
def test_a_malformed_message_is_refused_naming_what_and_changes_nothing(
    msg: dict[str, Any], member: str | None
) -> None:
    table, kept = new_table(TWO)
    (error,) = send(table, kept, msg)
    assert error["type"] == "error"
    assert error["error"] == "malformed"
    if member is not None:
        assert error["member"] == member
    assert kept.events == {}
    assert life(table, "ana") == life(table, "bo") == 20


def test_text_that_is_not_json_is_refused() -> None:
    table, _ = new_table(TWO)
    answer = json.loads(host.message(table, "{not json"))
    assert json.loads(answer["send"][0])["error"] == "malformed"
    assert answer["save"] == {}


def test_a_table_the_device_does_not_hold_is_said_so() -> None:
    answer = json.loads(host.message("d-nothing", '{"type": "ping"}'))
    assert json.loads(answer["send"][0])["error"] == "unknown-table"
    assert "error" in json.loads(host.info("d-nothing"))


def test_a_bad_setup_is_refused_naming_the_member() -> None:
    created = json.loads(host.create(json.dumps({"players": []})))
    assert created["error"]["member"] == "players"
    assert json.loads(host.create("[1,"))["error"]["error"] == "malformed"


def test_any_seat_s_change_is_undone_at_once_on_the_device() -> None:
    """The device holds every seat: Ana's undo of Bo's change asks nobody."""
    table, kept = new_table(TWO)
    action = {"do": "lose_life", "player": "ana", "amount": 4}
    send(table, kept, {"type": "action", "id": "b1", "as": "bo", "action": action})
    (event,) = send(table, kept, {"type": "undo", "id": "u1", "as": "ana", "target": 1})
    assert event["type"] == "event"
    assert life(table, "ana") == 20


def test_a_reloaded_device_table_is_the_same_table_across_checkpoints_and_undos() -> None:
    """250 changes (checkpoints every 100 actions), an undo, dice: a reload rebuilds it all
    from what the page kept, totals of 10^60 included."""
    table, kept = new_table(TWO)
    for i in range(250):
        action = {"do": "gain_life", "player": ["ana", "bo"][i % 2], "amount": 10**60}
        send(table, kept, {"type": "action", "id": f"c{i}", "as": "ana", "action": action})
    send(table, kept, {"type": "undo", "id": "u", "as": "bo", "target": 250})
    (tools,) = send(table, kept, {"type": "tool", "id": "d6", "tool": "roll", "sides": 6})
    assert tools["type"] == "tools"
    before = json.loads(host.info(table))
    reopen(kept)
    after = json.loads(host.info(table))
    assert after["state"] == before["state"]
    assert after["seq"] == before["seq"] == 251
    (welcome,) = send(table, kept, {"type": "hello", "since": 0})
    assert welcome["tools"]["recent"][-1]["values"] == tools["tools"]["recent"][-1]["values"]


def test_a_game_s_record_is_written_on_the_device() -> None:
    table, kept = new_table(TWO)
    action = {"do": "lose_life", "player": "bo", "amount": 5}
    send(table, kept, {"type": "action", "id": "r", "as": "ana", "action": action})
    record = json.loads(host.record(table, "1"))
    assert record["actions"][-1] == action
    assert "error" in json.loads(host.record(table, "7"))


def test_a_history_page_and_a_ping_are_answered() -> None:
    table, kept = new_table(TWO)
    for i in range(3):
        action = {"do": "lose_life", "player": "bo", "amount": 1}
        send(table, kept, {"type": "action", "id": f"h{i}", "as": "ana", "action": action})
    (page,) = send(table, kept, {"type": "history", "before": 3, "limit": 5})
    assert [e["seq"] for e in page["entries"]] == [1, 2]
    assert send(table, kept, {"type": "ping"}) == [{"type": "pong"}]


@pytest.mark.rule("704.5a")
def test_a_seats_change_under_later_ones_is_taken_back_on_the_device_too() -> None:
    """Issue 25 item 4, decided by the device's engine as by a server: Ana's change under Bo's
    is taken back and Bo's made again; one that would now do something else (Bo's −2 no
    longer ends Bo at 0: 704.5a) is named first and taken back with "confirm"; everything is
    kept, and the table opens again as it was."""
    table, kept = new_table(TWO)
    for cid, seat, amount in (("a1", "ana", 3), ("b1", "bo", 2)):
        action = {"do": "lose_life", "player": "bo", "amount": amount}
        send(table, kept, {"type": "action", "id": cid, "as": seat, "action": action})
    sent = send(table, kept, {"type": "undo", "id": "u1", "as": "ana", "target": 1})
    assert [m["entry"]["kind"] for m in sent] == ["undo", "undo", "action"]
    assert sent[-1]["id"] == "u1" and sent[-1]["entry"]["seat"] == "bo"
    assert life(table, "bo") == 18
    action = {"do": "lose_life", "player": "bo", "amount": 16}
    send(table, kept, {"type": "action", "id": "a2", "as": "ana", "action": action})
    action = {"do": "lose_life", "player": "bo", "amount": 2}
    send(table, kept, {"type": "action", "id": "b2", "as": "bo", "action": action})
    assert life(table, "bo") == 0
    (refused,) = send(table, kept, {"type": "undo", "id": "u2", "as": "ana", "target": 6})
    assert refused["error"] == "undo-changes-later" and "event 7" in refused["message"]
    msg = {"type": "undo", "id": "u3", "as": "ana", "target": 6, "confirm": True}
    assert send(table, kept, msg)[-1]["id"] == "u3"
    assert life(table, "bo") == 16
    reopen(kept)
    assert life(table, "bo") == 16


def test_a_device_tables_checkpoint_is_the_same_data_as_a_servers() -> None:
    """issue 26 item 6: a device table's checkpoint (every 100 changes) is JSON data of the
    engine's state under this build, as a server's, read back to the same game; no pickle."""
    from lifeledger_table.decide import engine

    table, kept = new_table(TWO)
    for n in range(100):
        action = {"do": "lose_life" if n % 2 else "gain_life", "player": "bo", "amount": 1}
        send(table, kept, {"type": "action", "id": f"c{n}", "as": "ana", "action": action})
    found = host._table(table).store.checkpoint(table, 1, 100)
    assert found is not None
    body = json.loads(found.data)
    assert body["format"] == engine.CHECKPOINT_FORMAT and body["game"]["snapshot"] == 1
    game, outcomes = engine.load_checkpoint(found.data)
    assert engine.state_of(game) == state(table) and outcomes == []
    reopen(kept)
    assert life(table, "bo") == 20
