"""The hub over real HTTP (uvicorn on loopback), on SQLite and on PostgreSQL: idempotent submission,
bad input refused with nothing stored and nothing lost, standings, history, CSV, admin changes, audit;
HEAD answered as GET is, without the body."""

from __future__ import annotations

import copy
import csv
import io
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from hub.loadtest import random_game
from hub.payload import build_result_payload
from hub.storage import HubStore

Json = dict[str, Any]


class Hub:
    def __init__(self, url: str, store: HubStore) -> None:
        self.url = url
        self.store = store
        self.http = httpx.Client(base_url=url, timeout=30)
        created = store.create_event("Spring Con")
        self.code = created.event.code
        self.secrets = {created.event.code: created.event.join_secret}
        self.admin = {"Authorization": f"Bearer {created.admin_token}"}
        self.admin_token = created.admin_token

    def join(self, name: str, code: str | None = None) -> tuple[int, dict[str, str]]:
        code = code or self.code
        secret = self.secrets.get(code) or self.store.event(code).join_secret
        reply = self.http.post("/api/join", json={"event_code": code, "table_name": name,
                                                   "join_key": f"key-of-{name}-0123456789", "join_secret": secret})
        assert reply.status_code == 201, reply.text
        return reply.json()["table_id"], {"Authorization": f"Bearer {reply.json()['token']}"}

    def results_url(self, table_id: int, code: str | None = None) -> str:
        return f"/api/events/{code or self.code}/tables/{table_id}/results"

    def stored(self) -> list[Json]:
        reply = self.http.get(f"/api/events/{self.code}/results", headers=self.admin)
        assert reply.status_code == 200, reply.text
        results: list[Json] = reply.json()["results"]
        return results

    def audit(self) -> list[Json]:
        entries: list[Json] = self.http.get(f"/api/events/{self.code}/audit", headers=self.admin).json()["audit"]
        return entries


@pytest.fixture
def hub(live_server: Any) -> Iterator[Hub]:
    hub = Hub(live_server.url, live_server.app.state.store)
    yield hub
    hub.http.close()


def _game(seed: int, *, players: int = 4, round_number: int | None = None) -> Json:
    payload = random_game(random.Random(seed), players=players)
    payload["round"] = round_number
    return payload


def _assert_error(reply: httpx.Response, status: int, code: str) -> None:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert body["error"] == code and body["message"], body
    assert "Traceback" not in reply.text and 'File "' not in reply.text


def test_a_result_is_stored_once_and_a_replay_is_a_duplicate(hub: Hub) -> None:
    table, token = hub.join("Table 1")
    game = _game(1)
    first = hub.http.post(hub.results_url(table), json=game, headers=token)
    assert first.status_code == 201 and first.json()["status"] == "stored"
    again = hub.http.post(hub.results_url(table), json=game, headers=token)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert again.json()["result_id"] == first.json()["result_id"]
    assert len(hub.stored()) == 1


def test_bad_input_is_refused_nothing_stored_nothing_lost(hub: Hub) -> None:
    table_a, token_a = hub.join("Table A")
    table_b, token_b = hub.join("Table B")
    other = hub.store.create_event("Other Con")
    _other_table, token_other = hub.join("Intruder", code=other.event.code)
    game = _game(2)
    url = hub.results_url(table_a)
    assert hub.http.post(url, json=game, headers=token_a).status_code == 201
    before_results, before_audit = hub.stored(), hub.audit()

    fresh = _game(3)
    changed = copy.deepcopy(game)
    changed["players"][0]["scores"]["dragons"] += 5
    changed["players"] = build_result_payload(
        changed["players"], game_id=game["game_id"], seq=game["seq"], mode="competitive", scenario=0,
        duration_seconds=game["duration_seconds"],
    )["players"]  # a consistent, valid result - only the scores differ from what was stored
    attempts: list[tuple[str, httpx.Response, int, str]] = [
        ("no token", hub.http.post(url, json=fresh), 401, "unauthorized"),
        ("wrong token", hub.http.post(url, json=fresh, headers={"Authorization": "Bearer tbl_nope"}), 401,
         "unauthorized"),
        ("not bearer", hub.http.post(url, json=fresh, headers={"Authorization": "Basic dXNlcg=="}), 401,
         "unauthorized"),
        ("another table's token", hub.http.post(url, json=fresh, headers=token_b), 403, "forbidden"),
        ("another event's token", hub.http.post(url, json=fresh, headers=token_other), 403, "forbidden"),
        ("admin token is not a table token", hub.http.post(url, json=fresh, headers=hub.admin), 401,
         "unauthorized"),
        ("oversized body", hub.http.post(url, content=b" " * 70_000, headers={**token_a,
         "content-type": "application/json"}), 413, "too_large"),
        ("oversized streamed body", hub.http.post(url, content=iter([b" " * 40_000] * 3), headers={**token_a,
         "content-type": "application/json"}), 413, "too_large"),
        ("malformed JSON", hub.http.post(url, content=b'{"game_id": ', headers={**token_a,
         "content-type": "application/json"}), 400, "malformed_json"),
        ("empty body", hub.http.post(url, headers=token_a), 400, "missing_body"),
        ("wrong types", hub.http.post(url, json={**fresh, "seq": "1"}, headers=token_a), 422, "invalid"),
        ("inconsistent total", hub.http.post(url, json={**fresh, "players": [dict(fresh["players"][0], total=999),
         *fresh["players"][1:]]}, headers=token_a), 422, "invalid"),
        ("replay with different scores", hub.http.post(url, json=changed, headers=token_a), 409, "conflict"),
        ("replay with another seq", hub.http.post(url, json={**game, "seq": 2}, headers=token_a), 409,
         "conflict"),
        ("table token on the admin API", hub.http.get(f"/api/events/{hub.code}/results", headers=token_a), 403,
         "forbidden"),
        ("no token on the admin API", hub.http.post(f"/api/events/{hub.code}/results/1/void",
         json={"reason": "x"}), 401, "unauthorized"),
        ("unknown event", hub.http.post(hub.results_url(table_a, code="ZZZZZZ"), json=fresh, headers=token_a),
         404, "not_found"),
    ]
    for what, reply, status, code in attempts:
        try:
            _assert_error(reply, status, code)
        except AssertionError as error:
            raise AssertionError(f"{what}: {error}") from error
    assert "422" not in json.dumps(attempts[10][1].json()["details"])  # details say where, not a status dump
    assert hub.stored() == before_results  # nothing stored, the original untouched
    assert hub.audit() == before_audit
    # nothing lost: the refused fresh game still goes in with the right token
    assert hub.http.post(url, json=fresh, headers=token_a).status_code == 201
    assert len(hub.stored()) == 2


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_an_internal_error_reaches_the_client_without_a_stack_trace(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, token = hub.join("Table 1")

    def explode(*_args: object) -> None:
        raise RuntimeError("secret internals at /srv/hub/storage.py line 42")

    monkeypatch.setattr(hub.store, "submit_result", explode)
    reply = hub.http.post(hub.results_url(table), json=_game(4), headers=token)
    _assert_error(reply, 500, "internal")
    assert "secret" not in reply.text and "storage.py" not in reply.text


def test_standings_per_round_and_overall_history_and_csv(hub: Hub) -> None:
    table_1, token_1 = hub.join("Table 1")
    table_2, token_2 = hub.join("Table 2")

    def play(table: int, token: dict[str, str], names: list[str], totals: list[int], escapes: list[int | None],
             round_number: int | None = None) -> None:
        players = [{"name": n, "colour": c, "scores": {"dragons": t}, "escape_order": e}
                   for n, c, t, e in zip(names, ["red", "blue", "green"], totals, escapes, strict=False)]
        payload = build_result_payload(players, game_id=f"00000000-0000-4000-8000-{random.getrandbits(48):012x}",
                                       seq=1, mode="competitive", scenario=0, duration_seconds=3000,
                                       round_number=round_number)
        assert hub.http.post(hub.results_url(table), json=payload, headers=token).status_code == 201

    play(table_1, token_1, ["Aiko", "Ben", "Chiyo"], [40, 40, 20], [2, 1, None])  # Ben wins the tie
    play(table_2, token_2, ["Dai", "Emi"], [35, 30], [None, None])
    closed = hub.http.post(f"/api/events/{hub.code}/round/close", headers=hub.admin).json()
    assert closed == {"current_round": 1, "round_open": False}
    # a late result of round 1 (its own round counter says 7: never an event round) waits for approval
    play(table_2, token_2, ["ben", "Emi", "Chiyo"], [10, 20, 30], [None, None, None], round_number=7)
    late = [r for r in hub.stored() if r["pending"]]
    assert [(r["round"], r["table"]) for r in late] == [(1, "Table 2")]
    assert hub.http.get(f"/api/events/{hub.code}/standings").json()["standings"][0]["games"] == 1  # not yet
    approved = hub.http.post(f"/api/events/{hub.code}/results/{late[0]['result_id']}/approve",
                             json={"reason": "table 2 finished late"}, headers=hub.admin)
    assert approved.status_code == 200 and approved.json()["pending"] is False and approved.json()["round"] == 1
    assert hub.http.post(f"/api/events/{hub.code}/round", json={"round": 2}, headers=hub.admin).json() == {
        "current_round": 2, "round_open": True
    }
    play(table_1, token_1, ["Aiko", "Dai"], [50, 10], [None, 1])

    overall = hub.http.get(f"/api/events/{hub.code}/standings").json()
    assert overall["rounds"] == [1, 2] and overall["current_round"] == 2
    table = [(r["place"], r["name"], r["rank_points"], r["wins"], r["games"], r["vp"]) for r in overall["standings"]]
    # Aiko and Dai: 17 points, 1 win each, VP decides; Ben and Chiyo: 15, 1 win, 50 VP, Ben escaped once
    assert table == [
        (1, "Aiko", 17, 1, 2, 90),
        (2, "Dai", 17, 1, 2, 45),
        (3, "Ben", 15, 1, 2, 50),
        (4, "Chiyo", 15, 1, 2, 50),
        (5, "Emi", 14, 0, 2, 50),
    ]
    by_name = {r["name"]: r for r in overall["standings"]}
    assert by_name["Ben"]["rank_points"] == 10 + 5 and by_name["Ben"]["wins"] == 1
    assert by_name["Aiko"]["rank_points"] == 7 + 10
    round_one = hub.http.get(f"/api/events/{hub.code}/standings", params={"round": 1}).json()["standings"]
    assert [(r["name"], r["rank_points"]) for r in round_one][:2] == [("Ben", 15), ("Chiyo", 15)]
    round_two = hub.http.get(f"/api/events/{hub.code}/standings", params={"round": 2}).json()["standings"]
    assert [(r["name"], r["rank_points"]) for r in round_two] == [("Aiko", 10), ("Dai", 7)]

    history = hub.http.get(f"/api/events/{hub.code}/players/BEN").json()
    assert [(g["round"], g["table"], g["rank"], g["total"], g["rank_points"]) for g in history["games"]] == [
        (1, "Table 1", 1, 40, 10),
        (1, "Table 2", 3, 10, 5),
    ]
    _assert_error(hub.http.get(f"/api/events/{hub.code}/players/nobody"), 404, "not_found")
    board = hub.http.get(f"/events/{hub.code}/leaderboard").text
    assert f"href='/events/{hub.code}/players/Ben'" in board
    ben = hub.http.get(f"/events/{hub.code}/players/ben")
    assert ben.status_code == 200 and "<h1>ben</h1>" in ben.text and ben.text.count("<tr>") == 3  # head + 2 games

    _assert_error(hub.http.get(f"/api/events/{hub.code}/export.csv"), 401, "unauthorized")
    rows = list(csv.DictReader(io.StringIO(hub.http.get(f"/api/events/{hub.code}/export.csv",
                                                        headers=hub.admin).text)))
    assert len(rows) == 3 + 2 + 2 + 3
    assert {(r["player"], r["rank"], r["rank_points"]) for r in rows if r["round"] == "2"} == {
        ("Aiko", "1", "10"), ("Dai", "2", "7")
    }
    standings_csv = hub.http.get(f"/api/events/{hub.code}/export.csv", params={"what": "standings", "round": 2},
                                 headers=hub.admin)
    assert standings_csv.headers["content-type"].startswith("text/csv")
    assert standings_csv.text.splitlines()[:2] == ["place,name,rank_points,wins,games,vp,escapes", "1,Aiko,10,1,1,50,0"]


def test_admin_corrects_and_voids_with_reasons_and_every_change_is_audited(hub: Hub) -> None:
    table, token = hub.join("Table 1")
    game = _game(5, players=3)
    result_id = hub.http.post(hub.results_url(table), json=game, headers=token).json()["result_id"]
    base = f"/api/events/{hub.code}/results/{result_id}"
    winner = min(game["players"], key=lambda p: p["rank"])["name"]

    # a correction that breaks the rulebook order is refused and changes nothing
    broken = copy.deepcopy(game["players"])
    for p in broken:
        p["rank"] = 1 if p["name"] != winner else 3
    _assert_error(hub.http.post(f"{base}/correct", json={"reason": "typo", "players": broken},
                                headers=hub.admin), 422, "invalid")
    _assert_error(hub.http.post(f"{base}/correct", json={"players": game["players"]}, headers=hub.admin),
                  422, "invalid")  # no reason
    assert hub.stored()[0]["revision"] == 1

    fixed = build_result_payload(
        [dict(p, scores=dict(p["scores"], corrections=p["scores"]["corrections"] + (40 if p["name"] != winner else 0)))
         for p in game["players"]],
        game_id=game["game_id"], seq=1, mode="competitive", scenario=0, duration_seconds=60,
    )["players"]
    corrected = hub.http.post(f"{base}/correct", json={"reason": "forgot the Shogun bonus", "players": fixed,
                                                       "round": 3}, headers=hub.admin)
    assert corrected.status_code == 200, corrected.text
    assert corrected.json()["revision"] == 2 and corrected.json()["round"] == 3
    leader = hub.http.get(f"/api/events/{hub.code}/standings").json()["standings"][0]["name"]
    assert leader != winner

    _assert_error(hub.http.post(f"{base}/void", json={}, headers=hub.admin), 422, "invalid")
    voided = hub.http.post(f"{base}/void", json={"reason": "table played the wrong scenario"}, headers=hub.admin)
    assert voided.json()["void"] is True
    _assert_error(hub.http.post(f"{base}/void", json={"reason": "again"}, headers=hub.admin), 409, "conflict")
    assert hub.http.get(f"/api/events/{hub.code}/standings").json()["standings"] == []
    assert hub.http.post(f"{base}/restore", json={"reason": "judge ruling"}, headers=hub.admin).json()["void"] is False

    # the table's replay of the original still answers duplicate: a correction is not a conflict for it
    assert hub.http.post(hub.results_url(table), json=game, headers=token).status_code == 200

    audit = [a for a in hub.audit() if a["result_id"] == result_id]
    assert [(a["action"], a["actor"], a["reason"]) for a in audit] == [
        ("submitted", "table:Table 1", None),
        ("corrected", "admin", "forgot the Shogun bonus"),
        ("voided", "admin", "table played the wrong scenario"),
        ("restored", "admin", "judge ruling"),
    ]
    assert audit[1]["before"]["round"] == 1 and audit[1]["after"]["round"] == 3
    assert [p["total"] for p in audit[1]["before"]["players"]] != [p["total"] for p in audit[1]["after"]["players"]]


def csrf_of(html: str) -> str:
    found = re.search(r"name='csrf' value='([^']+)'", html)
    assert found, "the admin page has no CSRF token in its forms"
    return found.group(1)


def test_admin_page_is_behind_the_admin_token(hub: Hub) -> None:
    table, token = hub.join("Table 1")
    result_id = hub.http.post(hub.results_url(table), json=_game(6), headers=token).json()["result_id"]
    page = f"/events/{hub.code}/admin"
    locked = hub.http.get(page)
    assert locked.status_code == 401 and "Admin token" in locked.text and "Results" not in locked.text
    origin = {"Origin": hub.url}  # what a browser sends with a form post from the hub's own page
    wrong = hub.http.post(f"{page}/login", data={"token": token["Authorization"].split()[1]}, headers=origin)
    assert wrong.status_code == 401 and "hub_admin" not in wrong.headers.get("set-cookie", "")
    with httpx.Client(base_url=hub.url, timeout=30, headers=origin) as browser:
        signed_in = browser.post(f"{page}/login", data={"token": hub.admin_token}, follow_redirects=True)
        assert signed_in.status_code == 200 and "Audit log" in signed_in.text and "Table 1" in signed_in.text
        cookie = signed_in.history[0].headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        assert hub.admin_token not in cookie  # the cookie is a session id, not the token
        csrf = csrf_of(signed_in.text)
        voided = browser.post(f"{page}/results/{result_id}/void", data={"reason": "duplicate table entry",
                                                                         "csrf": csrf}, follow_redirects=True)
        assert voided.status_code == 200 and "voided" in voided.text
        refused = browser.post(f"{page}/results/{result_id}/correct",
                               data={"reason": "x", "players": "[]", "csrf": csrf})
        assert refused.status_code == 422 and "Not changed" in refused.text
        players = hub.stored()[0]["players"]
        players[0]["colour"] = "orange"
        corrected = browser.post(f"{page}/results/{result_id}/correct", follow_redirects=True,
                                 data={"reason": "wrong colour", "players": json.dumps(players), "round": "2",
                                       "csrf": csrf})
        assert corrected.status_code == 200 and f"Result {result_id} corrected." in corrected.text
        assert browser.post(f"{page}/round", data={"round": "3", "csrf": csrf},
                            follow_redirects=True).status_code == 200
        assert browser.post(f"{page}/round", data={"round": "zero", "csrf": csrf}).status_code == 422
        browser.post(f"{page}/logout", data={"csrf": csrf})
        assert browser.get(page).status_code == 401
    forged = httpx.post(f"{hub.url}{page}/results/{result_id}/restore", data={"reason": "sneaky"},
                        cookies={f"hub_admin_{hub.code}": token["Authorization"].split()[1]}, headers=origin)
    assert forged.status_code == 401
    stored = hub.stored()[0]
    assert stored["void"] is True and stored["round"] == 2 and stored["players"][0]["colour"] == "orange"
    assert hub.store.event(hub.code).current_round == 3
    assert [a["action"] for a in hub.audit()][-3:] == ["voided", "corrected", "round_opened"]


def test_live_scores_show_until_the_result_arrives(hub: Hub) -> None:
    table, token = hub.join("Table 7")
    game = _game(7, players=2)
    live_url = f"/api/events/{hub.code}/tables/{table}/live"
    update = {"game_id": game["game_id"], "seq": 3, "countdown": 5,
              "players": [{"name": p["name"], "colour": p["colour"], "vp": 12} for p in game["players"]]}
    receipt = {"game_id": game["game_id"], "seq": 3}
    assert hub.http.post(live_url, json=update, headers=token).json() == {"status": "stored", **receipt}
    assert hub.http.post(live_url, json={**update, "seq": 2}, headers=token).json() == {
        "status": "stale", "game_id": game["game_id"], "seq": 2}
    _, token_b = hub.join("Table 8")
    _assert_error(hub.http.post(live_url, json=update, headers=token_b), 403, "forbidden")
    live = hub.http.get(f"/api/events/{hub.code}/live").json()["live"]
    assert [(g["table"], g["seq"]) for g in live] == [("Table 7", 3)]
    fragment = hub.http.get(f"/events/{hub.code}/leaderboard/fragment").text
    assert "Playing now" in fragment and "countdown 5" in fragment
    assert hub.http.post(live_url, json={**update, "seq": 4, "countdown": 2}, headers=token).status_code == 202
    assert "countdown 2" in hub.http.get(f"/events/{hub.code}/leaderboard/fragment").text  # not a stale copy
    hub.http.post(hub.results_url(table), json={**game, "seq": 5}, headers=token)
    assert hub.http.get(f"/api/events/{hub.code}/live").json()["live"] == []
    fragment = hub.http.get(f"/events/{hub.code}/leaderboard/fragment").text
    assert "Playing now" not in fragment and "Table 7" in fragment
    assert hub.http.post(live_url, json={**update, "seq": 9}, headers=token).json() == {
        "status": "finished", "game_id": game["game_id"], "seq": 9}


def test_join_can_be_retried_but_a_name_cannot_be_taken_over(hub: Hub) -> None:
    body = {"event_code": hub.code.lower(), "table_name": "Table 1", "join_key": "k" * 32,
            "join_secret": hub.secrets[hub.code].lower()}
    first = hub.http.post("/api/join", json=body)
    again = hub.http.post("/api/join", json=body)
    assert first.status_code == again.status_code == 201
    assert first.json()["table_id"] == again.json()["table_id"]
    url = hub.results_url(first.json()["table_id"])
    _assert_error(hub.http.post(url, json=_game(8), headers={"Authorization": f"Bearer {first.json()['token']}"}),
                  401, "unauthorized")  # the re-issued token replaced the old one
    assert hub.http.post(url, json=_game(8), headers={"Authorization": f"Bearer {again.json()['token']}"}
                         ).status_code == 201
    _assert_error(hub.http.post("/api/join", json={**body, "join_key": "x" * 32}), 409, "conflict")
    _assert_error(hub.http.post("/api/join", json={**body, "event_code": "NOPE42"}), 404, "not_found")
    _assert_error(hub.http.post("/api/join", json={"event_code": hub.code}), 422, "invalid")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_head_is_answered_as_get_without_a_body(hub: Hub, live_server: Any) -> None:
    """Every GET route answered HEAD with 405 (FastAPI routes, unlike Starlette's, do not add it)."""
    table, token = hub.join("Table 1")
    game = _game(12)
    result_id = hub.http.post(hub.results_url(table), json=game, headers=token).json()["result_id"]
    player = game["players"][0]["name"]
    get_paths = sorted(route.path for route in live_server.app.routes if "GET" in getattr(route, "methods", ()))
    urls = [path.replace("{code}", hub.code).replace("{name:path}", player).replace("{result_id}", str(result_id))
            for path in get_paths]
    assert not [url for url in urls if "{" in url], "a GET route with a path parameter this test does not fill"
    urls += ["/events/NOPE99/leaderboard", "/api/events/NOPE99/standings", "/nope",  # refusals, page and API
             f"/api/events/{hub.code}/results"]  # without the admin token
    checked = set()
    for url in urls:
        headers = hub.admin if url != urls[-1] else {}
        got, head = hub.http.get(url, headers=headers), hub.http.head(url, headers=headers)
        assert head.status_code == got.status_code, url
        assert {k: v for k, v in head.headers.items() if k != "date"} == \
               {k: v for k, v in got.headers.items() if k != "date"}, url
        assert head.content == b"" and int(head.headers["content-length"]) == len(got.content) > 0, url
        assert head.headers["x-frame-options"] == "DENY", url
        checked.add(got.status_code)
    assert checked == {200, 401, 404}
    assert {"/", f"/events/{hub.code}/leaderboard", f"/events/{hub.code}/admin"} <= set(urls)
    # A path that takes only POST refuses HEAD as it refuses GET, and a refused HEAD is no failed sign-in.
    for _ in range(15):
        refused = hub.http.head(f"/events/{hub.code}/admin/login")
        assert refused.status_code == 405 and refused.headers["allow"] == "POST" and refused.content == b""
    assert hub.http.post(f"/events/{hub.code}/leaderboard").headers["allow"] == "GET, HEAD"
    signing_in = hub.http.post(f"/events/{hub.code}/admin/login", data={"token": "wrong"},
                               headers={"Origin": hub.url})
    assert signing_in.status_code == 401


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_names_are_escaped_on_pages_and_defused_in_csv(hub: Hub) -> None:
    table, token = hub.join("<b>Table</b>")
    players = [
        {"name": "<script>alert(1)</script>", "colour": "red", "scores": {"dragons": 30}, "escape_order": None},
        {"name": "=HYPERLINK(\"x\")", "colour": "blue'><i>", "scores": {"dragons": 20}, "escape_order": None},
    ]
    payload = build_result_payload(players, game_id="00000000-0000-4000-8000-00000000abcd", seq=1,
                                   mode="competitive", scenario=0, duration_seconds=60)
    assert hub.http.post(hub.results_url(table), json=payload, headers=token).status_code == 201
    page = hub.http.get(f"/events/{hub.code}/leaderboard").text
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>Table</b>" not in page
    admin = httpx.Client(base_url=hub.url)
    admin.post(f"/events/{hub.code}/admin/login", data={"token": hub.admin_token})
    admin_page = admin.get(f"/events/{hub.code}/admin").text
    assert "<script>alert" not in admin_page and "<i>" not in admin_page
    exported = hub.http.get(f"/api/events/{hub.code}/export.csv", headers=hub.admin).text
    assert "'=HYPERLINK" in exported and "\n=HYPERLINK" not in exported.replace(",=", "\n=")
    admin.close()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_database_outage_is_a_503_the_outbox_retries(hub: Hub, db_url: str, pg_cluster: Any) -> None:
    from hub.outbox import Outcome, classify

    table, token = hub.join("Table 1")
    pg_cluster.drop_database(db_url.rsplit("/", 1)[1])  # the database server loses it mid-event
    reply = hub.http.post(hub.results_url(table), json=_game(9), headers=token)
    _assert_error(reply, 503, "unavailable")
    assert classify(reply.status_code) is Outcome.RETRY
