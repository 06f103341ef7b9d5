"""What hostile clients written from hub/README.md alone found (2026-12-01), each reproduced against a live hub
(loopback, SQLite and PostgreSQL) and checked fixed:

* a paper result or an admin correction that was not valid was answered with pydantic's whole error dump or a
  Python exception's text, not one sentence naming the field;
* a player whose name holds "/" had a leaderboard link that led nowhere (404);
* "TABLE 1" could join beside "Table 1" (one name on the projector, two tables);
* a replay that differed only in ``round`` (accepted and ignored, README) was a 409 conflict;
* a schema 1 total over 1000 was refused although its categories (each up to 1000) may add up to more;
* a live update could name the same player twice, which a result cannot;
* valid JSON sent as text/plain was answered "Input should be a valid dictionary".
"""

# ruff: noqa: F811 - the tests take ``event``, the live-hub fixture imported from test_hub_trust

from __future__ import annotations

import json
import urllib.parse
from html import escape
from typing import Any

import httpx
import pytest

from tests.hub.test_hub_trust import Event, _game, event  # noqa: F401 - the fixture, used by name

Json = dict[str, Any]


def _one_sentence(reply: httpx.Response) -> str:
    """The refusal's message, checked to be a single line without pydantic's or Python's own words."""
    message: str = reply.json()["message"]
    assert "\n" not in message and "pydantic" not in message and "validation error for" not in message
    assert "invalid literal" not in message and "[type=" not in message and "list[" not in message
    return message


def test_an_invalid_paper_result_is_refused_in_one_sentence(event: Event) -> None:
    # A competitive game needs 2 to 6 players (README: players 1..6, competitive 2..6).
    reply = event.admin_post("/results/paper", {"reason": "sheet", "players": [
        {"name": "Solo", "colour": "red", "scores": {"dragons": 3}}]})
    assert reply.status_code == 422
    assert _one_sentence(reply).endswith("a competitive game has 2 to 6 players")
    # A category is 0..1000 (scenario and corrections -1000..1000).
    reply = event.admin_post("/results/paper", {"reason": "sheet", "players": [
        {"name": "Aiko", "colour": "red", "scores": {"dragons": -3}},
        {"name": "Ben", "colour": "blue", "scores": {"dragons": 4}}]})
    assert reply.status_code == 422
    assert "dragons" in _one_sentence(reply)
    assert event.results() == []


def test_a_correction_with_a_round_that_is_no_number_says_so(event: Event) -> None:
    table, token = event.table("Table 1")
    result_id = event.send(table, token, _game(11)).json()["result_id"]
    reply = event.admin_post(f"/results/{result_id}/correct", {"reason": "typo", "players": "nope"})
    assert reply.status_code == 422
    message = _one_sentence(reply)
    assert message.startswith("players: ") and "(and" not in message  # the union's two branches, one problem
    # The admin page's form takes the round as text: "x" was answered "invalid literal for int() with base 10".
    from hub.server import _apply_form
    from hub.storage import InvalidError

    info = event.store.event(event.code)
    players = json.dumps(event.results()[0]["players"])
    with pytest.raises(InvalidError) as refused:
        _apply_form(event.store, info, "correct", result_id, {"reason": "typo", "players": players, "round": "x"})
    assert str(refused.value) == "the round must be a whole number from 1 to 999"
    assert event.store.result(info, result_id)["revision"] == 1


def test_a_player_named_with_a_slash_has_a_page(event: Event) -> None:
    table, token = event.table("Table 1")
    game = _game(12)
    game["players"][0]["name"] = "../../etc/passwd"
    game["players"][1]["name"] = "a/b?c#d%2e"
    assert event.send(table, token, game).status_code == 201
    page = event.http.get(f"/events/{event.code}/leaderboard").text
    for name in ("../../etc/passwd", "a/b?c#d%2e"):
        link = f"/events/{event.code}/players/{urllib.parse.quote(name, safe='')}"
        assert link in page  # the README: the player page is linked from the leaderboard
        page_reply = event.http.get(link)
        assert page_reply.status_code == 200 and escape(name, quote=False) in page_reply.text
        api = event.http.get(f"/api/events/{event.code}/players/{urllib.parse.quote(name, safe='')}")
        assert api.status_code == 200 and api.json()["player"] == name


def test_table_names_differ_ignoring_case(event: Event) -> None:
    first, _token = event.table("Table 1")
    taken = event.join("TABLE 1")
    assert taken.status_code == 409 and "'Table 1' is already taken" in taken.json()["message"]
    # The same tablet (its join key) may type its name in another case: it is the same table.
    again = event.http.post("/api/join", json={"event_code": event.code, "table_name": "table 1",
                                                "join_key": "key-of-Table 1-0123456789", "join_secret": event.secret})
    assert again.status_code == 201 and again.json()["table_id"] == first and again.json()["table_name"] == "Table 1"
    second, _ = event.table("Table 2")
    renamed = event.admin_post(f"/tables/{second}/rename", {"name": "table 1", "reason": "typo"})
    assert renamed.status_code == 409
    assert event.admin_post(f"/tables/{first}/rename", {"name": "TABLE 1", "reason": "caps"}).status_code == 200


def test_a_replay_that_differs_only_in_the_ignored_round_is_a_duplicate(event: Event) -> None:
    table, token = event.table("Table 1")
    game = _game(13)
    stored = event.send(table, token, game)
    assert stored.status_code == 201
    replay = event.send(table, token, {**game, "round": 5})
    assert replay.status_code == 200 and replay.json()["status"] == "duplicate"
    assert replay.json()["result_id"] == stored.json()["result_id"]
    changed = json.loads(json.dumps(game))
    changed["duration_seconds"] += 1
    assert event.send(table, token, changed).status_code == 409


def test_a_stored_result_hashed_with_its_round_by_an_older_hub_still_replays_as_a_duplicate(event: Event) -> None:
    import sqlalchemy as sa

    from hub import db
    from hub.schema import GameResult, _fingerprint

    table, token = event.table("Table 1")
    game = _game(14, round=3)
    result_id = event.send(table, token, game).json()["result_id"]
    older = _fingerprint(GameResult.model_validate(game), with_round=True)
    with event.store.engine.begin() as connection:
        connection.execute(sa.update(db.results).where(db.results.c.id == result_id).values(content_hash=older))
    replay = event.send(table, token, game)
    assert replay.status_code == 200 and replay.json()["status"] == "duplicate"


def test_a_schema_1_total_may_pass_1000_when_its_categories_do(event: Event) -> None:
    # README, schema 1: categories 0..1000, total the sum of the categories.
    table, token = event.table("Table 1")
    game = _game(15)
    for player in game["players"]:
        player["scores"]["dragons"] = 600
        player["scores"]["shogun"] = 600 + player["scores"]["shogun"]
    from hub.payload import build_result_payload

    rebuilt = build_result_payload(
        [{"name": p["name"], "colour": p["colour"], "scores": p["scores"], "escape_order": p["escape_order"]}
         for p in game["players"]], game_id=game["game_id"], seq=1, mode="competitive", scenario=0,
        duration_seconds=3600)
    assert max(p["total"] for p in rebuilt["players"]) > 1000
    reply = event.send(table, token, rebuilt)
    assert reply.status_code == 201, reply.text


def test_a_live_update_may_not_name_a_player_twice(event: Event) -> None:
    table, token = event.table("Table 1")
    reply = event.http.post(f"/api/events/{event.code}/tables/{table}/live", headers=token, json={
        "game_id": "6f1c2b9e-3d4a-4f5b-9c8d-7e6f5a4b3c2d", "seq": 1,
        "players": [{"name": "A", "colour": "red", "vp": 3}, {"name": "a", "colour": "blue", "vp": 4}]})
    assert reply.status_code == 422 and _one_sentence(reply) == "player names must be different within a game"


def test_json_sent_as_text_is_told_to_send_json(event: Event) -> None:
    table, token = event.table("Table 1")
    reply = event.http.post(f"/api/events/{event.code}/tables/{table}/results", headers={
        **token, "Content-Type": "text/plain"}, content=json.dumps(_game(16)))
    assert reply.status_code == 415
    assert reply.json()["message"] == ("send the body as JSON with Content-Type: application/json "
                                       "(it came as text/plain)")
    assert event.results() == []


def test_a_page_the_hub_cannot_give_is_shown_as_a_page(event: Event) -> None:
    """A projector pointed at a mistyped event code showed the API's JSON; a browser now gets the same sentence
    as a page (the API keeps its JSON)."""
    page = event.http.get("/events/NOSUCH/leaderboard")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "NOSUCH" in page.text and "<script" not in page.text
    missing = event.http.get(f"/events/{event.code}/players/{urllib.parse.quote('<b>Nobody</b>', safe='')}")
    assert missing.status_code == 404 and "&lt;b&gt;Nobody&lt;/b&gt;" in missing.text
    assert event.http.get("/events/x/y/z").headers["content-type"].startswith("text/html")
    api = event.http.get("/api/events/NOSUCH/standings")
    assert api.status_code == 404 and api.json()["error"] == "not_found"
