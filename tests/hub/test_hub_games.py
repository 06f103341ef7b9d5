"""The hub stores results of any game (schema 2, issue 16): the game's own categories, its tie-break value,
ranks by the one finishing-order rule, standings per game and overall; Fuji Koro's schema 1 still read."""

from __future__ import annotations

import csv
import io
import random
import uuid
from collections.abc import Iterator
from typing import Any

import counter_game
import httpx
import pytest

from companion.engine import PlayerResult, Result, Session
from hub.loadtest import random_game
from hub.payload import build_lines, payload_from_result

Json = dict[str, Any]


class Hub:
    def __init__(self, url: str, store: Any) -> None:
        self.http = httpx.Client(base_url=url, timeout=30)
        created = store.create_event("Games Con")
        self.code = created.event.code
        self.admin = {"Authorization": f"Bearer {created.admin_token}"}
        reply = self.http.post("/api/join", json={"event_code": self.code, "table_name": "Table 1",
                                                   "join_key": "k" * 32, "join_secret": created.event.join_secret})
        self.table = reply.json()["table_id"]
        self.token = {"Authorization": f"Bearer {reply.json()['token']}"}

    def send(self, payload: Json) -> httpx.Response:
        return self.http.post(f"/api/events/{self.code}/tables/{self.table}/results", json=payload,
                              headers=self.token)

    def standings(self, **params: Any) -> list[Json]:
        rows: list[Json] = self.http.get(f"/api/events/{self.code}/standings", params=params).json()["standings"]
        return rows


@pytest.fixture
def hub(live_server: Any) -> Iterator[Hub]:
    made = Hub(live_server.url, live_server.app.state.store)
    yield made
    made.http.close()


def _castle(names: list[str], scores: list[dict[str, int]], tiebreaks: list[int | None]) -> Json:
    """A competitive result of another game, as its tablet would send it."""
    players = [{"name": n, "colour": c, "scores": s, "tiebreak": t}
               for n, c, s, t in zip(names, ["red", "blue", "green", "white"], scores, tiebreaks, strict=False)]
    return {"schema_version": 2, "game": "white_castle", "game_id": str(uuid.uuid4()), "seq": 1,
            "mode": "competitive", "duration_seconds": 3600, "players": build_lines(players)}


def test_the_counter_game_plays_through_to_the_hub(hub: Hub) -> None:
    session: Session[Any] = Session(counter_game.Counter(goal=10), {"start": 4})
    session.do({"type": "add", "n": 7})
    result = session.game.result(session.state)
    assert result is not None
    payload = payload_from_result(result, game="counter", game_id=uuid.uuid4(), seq=session.state_id,
                                  duration_seconds=60)
    reply = hub.send(payload)
    assert reply.status_code == 201, reply.text
    stored = hub.http.get(f"/api/events/{hub.code}/results", headers=hub.admin).json()["results"]
    assert [(r["game"], r["mode"], r["players"][0]["scores"]) for r in stored] == [
        ("counter", "cooperative", {"count": 11})]


def test_another_games_categories_and_tie_break_rank_the_players(hub: Hub) -> None:
    game = _castle(["Aiko", "Ben", "Chiyo"], [{"lanterns": 20, "castle": 10}, {"lanterns": 25, "castle": 5},
                                             {"lanterns": 12}], [3, 1, None])
    assert [p["rank"] for p in game["players"]] == [1, 2, 3]  # 30 and 30: the tie-break decides
    assert hub.send(game).status_code == 201
    wrong = _castle(["Aiko", "Ben"], [{"lanterns": 20}, {"lanterns": 20}], [1, 2])
    wrong["players"][0]["rank"], wrong["players"][1]["rank"] = 1, 2
    refused = hub.send(wrong)
    assert refused.status_code == 422 and "player 2 must rank ahead of player 1" in refused.json()["message"]
    bad_total = _castle(["Aiko", "Ben"], [{"lanterns": 20}, {"lanterns": 3}], [None, None])
    bad_total["players"][0]["total"] = 99
    assert hub.send(bad_total).status_code == 422
    bad_category = _castle(["Aiko", "Ben"], [{"Lanterns!": 20}, {"lanterns": 3}], [None, None])
    assert hub.send(bad_category).status_code == 422
    unknown_key = _castle(["Aiko", "Ben"], [{"lanterns": 20}, {"lanterns": 3}], [None, None])
    unknown_key["players"][0]["escape_order"] = 1  # Fuji Koro's field is not part of schema 2
    assert hub.send(unknown_key).status_code == 422


def test_standings_per_game_and_overall(hub: Hub) -> None:
    fuji = random_game(random.Random(5), players=2)  # schema 1: Fuji Koro
    assert hub.send(fuji).status_code == 201
    assert hub.send(_castle(["Zed", "Yui"], [{"lanterns": 9}, {"lanterns": 4}], [None, None])).status_code == 201
    overall = {r["name"] for r in hub.standings()}
    castle = [r["name"] for r in hub.standings(game="white_castle")]
    fujikoro = {r["name"] for r in hub.standings(game="fujikoro")}
    assert castle == ["Zed", "Yui"] and fujikoro == {p["name"] for p in fuji["players"]}
    assert overall == fujikoro | set(castle)
    body = hub.http.get(f"/api/events/{hub.code}/standings").json()
    assert body["games"] == ["fujikoro", "white_castle"]
    assert hub.http.get(f"/api/events/{hub.code}/standings", params={"game": "Bad Game"}).status_code == 422
    rows = list(csv.DictReader(io.StringIO(hub.http.get(f"/api/events/{hub.code}/export.csv",
                                                        headers=hub.admin).text)))
    by_name = {r["player"]: r for r in rows}
    assert by_name["Zed"]["vp_lanterns"] == "9" and by_name["Zed"]["vp_dragons"] == ""
    assert by_name["Zed"]["game"] == "white_castle"


def test_a_result_of_another_game_is_corrected_and_entered_from_paper(hub: Hub) -> None:
    reply = hub.send(_castle(["Aiko", "Ben"], [{"lanterns": 20}, {"lanterns": 3}], [None, None]))
    result_id = reply.json()["result_id"]
    lines = build_lines([{"name": "Aiko", "colour": "red", "scores": {"lanterns": 2}},
                         {"name": "Ben", "colour": "blue", "scores": {"lanterns": 30}}])
    corrected = hub.http.post(f"/api/events/{hub.code}/results/{result_id}/correct", headers=hub.admin,
                              json={"reason": "scores swapped", "players": lines})
    assert corrected.status_code == 200, corrected.text
    assert [(p["name"], p["rank"]) for p in corrected.json()["players"]] == [("Aiko", 2), ("Ben", 1)]
    fuji_form = hub.http.post(f"/api/events/{hub.code}/results/{result_id}/correct", headers=hub.admin, json={
        "reason": "x", "players": [{"name": "Aiko", "colour": "red", "scores": {"dragons": 1}, "total": 1,
                                    "rank": 1}, {"name": "Ben", "colour": "blue", "scores": {}, "total": 0,
                                                 "rank": 2}]})
    assert fuji_form.status_code == 422 and "white_castle result" in fuji_form.json()["message"]
    paper = hub.http.post(f"/api/events/{hub.code}/results/paper", headers=hub.admin, json={
        "reason": "tablet flat", "game": "white_castle",
        "players": [{"name": "Cho", "scores": {"lanterns": 7}, "tiebreak": 2},
                    {"name": "Dai", "scores": {"lanterns": 7}, "tiebreak": 5}]})
    assert paper.status_code == 201, paper.text
    assert [(p["name"], p["rank"]) for p in paper.json()["players"]] == [("Cho", 2), ("Dai", 1)]


def test_a_game_result_from_the_kernel_keeps_its_categories_and_tie_break() -> None:
    result = Result("Fuji Koro", 260300, False, (
        PlayerResult("Aiko", 30, 2, False, colour="red", categories={"dragons": 30}, tiebreak=None),
        PlayerResult("Ben", 30, 1, True, colour="blue", categories={"dragons": 25, "scrolls": 5}, tiebreak=6),
    ))
    payload = payload_from_result(result, game="fujikoro", game_id=uuid.uuid4(), seq=9, duration_seconds=10)
    assert payload["schema_version"] == 2 and payload["mode"] == "competitive"
    assert [(p["name"], p["total"], p["tiebreak"], p["rank"]) for p in payload["players"]] == [
        ("Aiko", 30, None, 2), ("Ben", 30, 6, 1)]


def test_the_projector_shows_each_games_standings(hub: Hub) -> None:
    assert hub.send(random_game(random.Random(6), players=2)).status_code == 201
    assert hub.send(_castle(["Zed", "Yui"], [{"lanterns": 9}, {"lanterns": 4}], [None, None])).status_code == 201
    page = hub.http.get(f"/events/{hub.code}/leaderboard", params={"game": "white_castle"}).text
    assert "Overall standings: white_castle" in page and "data-player='Zed'" in page
    assert "leaderboard/fragment?game=white_castle" in page
    overall = hub.http.get(f"/events/{hub.code}/leaderboard/fragment").text
    assert "?game=fujikoro" in overall and "?game=white_castle" in overall and "data-player='Zed'" in overall


def test_the_results_export_gives_fuji_koros_scenario_and_none_for_another_game(hub: Hub) -> None:
    """Schema 2 has no scenario field: every schema 2 result was exported as scenario 0, Fuji Koro's base
    game, whatever the game and whatever scenario its variant named."""
    fuji_v1 = {**random_game(random.Random(7), players=2), "scenario": 5}
    sent = {"v1 scenario 5": fuji_v1, "castle": _castle(["Zed", "Yui"], [{"lanterns": 9}, {"lanterns": 4}],
                                                        [None, None])}
    for variant in ("scenario 3", None, "night market"):
        game = _castle(["Aiko", "Ben"], [{"dragons": 9}, {"dragons": 4}], [None, None])
        sent[f"v2 {variant}"] = {**game, "game": "fujikoro", "variant": variant}
    for payload in sent.values():
        reply = hub.send(payload)
        assert reply.status_code == 201, reply.text
    stored = hub.http.get(f"/api/events/{hub.code}/results", headers=hub.admin).json()["results"]
    by_game_id = {r["game_id"]: r for r in stored}
    assert {name: by_game_id[p["game_id"]]["scenario"] for name, p in sent.items()} == {
        "v1 scenario 5": 5, "castle": None, "v2 scenario 3": 3, "v2 None": 0, "v2 night market": None}
    rows = list(csv.DictReader(io.StringIO(hub.http.get(f"/api/events/{hub.code}/export.csv",
                                                        headers=hub.admin).text)))
    exported = {r["game_id"]: r["scenario_number"] for r in rows}
    assert {name: exported[p["game_id"]] for name, p in sent.items()} == {
        "v1 scenario 5": "5", "castle": "", "v2 scenario 3": "3", "v2 None": "0", "v2 night market": ""}
    assert {r["variant"] for r in rows if r["game_id"] == sent["v2 night market"]["game_id"]} == {"night market"}
