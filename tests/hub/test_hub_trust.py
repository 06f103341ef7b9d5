"""Issue 14: a hub an organiser can trust. Each test reproduces a failure found by trying the hub as a
hostile table and as a careless organiser would (loopback only), then checks the fix:

* two tablets that start a game in the same minute are both counted;
* a game counts in the event round in play when it arrives, never in the game's own round counter;
* a captive portal's ``200 text/html`` leaves the result queued and visibly unsent;
* a stranger with the public event code cannot join, pre-empt, overwrite or hide another table's game;
* an admin form posted from a page on another port of the same host changes nothing;
* a table's submit is answered while slow-header clients are still stalled (they do not delay it);
* NUL, control, format and direction-override characters are refused with a clear 422;
* an acknowledged result survives a power cut (SQLite ``synchronous=FULL``).
"""

from __future__ import annotations

import logging
import random
import re
import socket
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from hub import db
from hub.guard import RepeatFilter, raise_file_limit
from hub.loadtest import ServerProcess, random_game
from hub.names import lookalike_groups
from hub.outbox import Outbox, Sender, join
from hub.payload import build_result_payload
from hub.storage import HubStore

Json = dict[str, Any]


class Event:
    """One event on a live hub, with the organiser's token and helpers to join and send like a tablet."""

    def __init__(self, url: str, store: HubStore, name: str = "Trust Con") -> None:
        self.url = url
        self.store = store
        self.http = httpx.Client(base_url=url, timeout=30)
        created = store.create_event(name)
        self.code = created.event.code
        self.secret = created.event.join_secret
        self.admin_token = created.admin_token
        self.admin = {"Authorization": f"Bearer {created.admin_token}"}

    def join(self, name: str, *, secret: str | None = None, key: str | None = None) -> httpx.Response:
        return self.http.post("/api/join", json={
            "event_code": self.code, "table_name": name, "join_key": key or f"key-of-{name}-0123456789",
            "join_secret": self.secret if secret is None else secret})

    def table(self, name: str) -> tuple[int, dict[str, str]]:
        reply = self.join(name)
        assert reply.status_code == 201, reply.text
        return reply.json()["table_id"], {"Authorization": f"Bearer {reply.json()['token']}"}

    def send(self, table: int, token: dict[str, str], payload: Json) -> httpx.Response:
        return self.http.post(f"/api/events/{self.code}/tables/{table}/results", json=payload, headers=token)

    def live(self, table: int, token: dict[str, str], game_id: str, seq: int, vp: int = 5) -> httpx.Response:
        return self.http.post(f"/api/events/{self.code}/tables/{table}/live", headers=token, json={
            "game_id": game_id, "seq": seq, "players": [{"name": "Aiko", "colour": "red", "vp": vp}]})

    def results(self) -> list[Json]:
        reply = self.http.get(f"/api/events/{self.code}/results", headers=self.admin)
        assert reply.status_code == 200, reply.text
        results: list[Json] = reply.json()["results"]
        return results

    def admin_post(self, path: str, body: Json | None = None) -> httpx.Response:
        return self.http.post(f"/api/events/{self.code}{path}", json=body or {}, headers=self.admin)


@pytest.fixture
def event(live_server: Any) -> Iterator[Event]:
    made = Event(live_server.url, live_server.app.state.store)
    yield made
    made.http.close()


def _game(seed: int, **changes: Any) -> Json:
    payload = random_game(random.Random(seed), players=3)
    payload.update(changes)
    return payload


# ------------------------------------------------------------------------------------------ identity
def test_same_minute_games_from_two_tables_are_both_counted(event: Event, tmp_path: Path) -> None:
    """Both tablets started a game at 14:05: the old id (from the file name) was the same, and the second
    table's result was refused with 409 for good. Game ids are now random, kept in the game file, and a
    game id is the table's own on the hub."""
    from companion.engine import PlayerResult, Result
    from store.gamelog import GameFile, Header
    from ui.convention import result_payload

    result = Result("Fuji Koro", None, False, (
        PlayerResult("Aiko", 9, 1, True, colour="red", categories={"dragons": 9}),
        PlayerResult("Ben", 4, 2, False, colour="blue", categories={"scrolls": 4})))
    sent = []
    for tablet in ("tablet-1", "tablet-2"):
        path = tmp_path / tablet / "2027-04-03_1405.fujikoro-game"
        GameFile.create(path, Header("fujikoro", "test", {})).close()
        table, token = event.table(f"Table {tablet[-1]}")
        reply = event.send(table, token, result_payload(result, "fujikoro", str(path), seq=40))
        assert reply.status_code == 201, reply.text
        sent.append(reply.json()["game_id"])
    assert sent[0] != sent[1]
    assert len(event.results()) == 2

    # even one id sent by two tables (a copied game file) is two games, one per table
    same = _game(1)
    for name in ("Table 3", "Table 4"):
        table, token = event.table(name)
        assert event.send(table, token, same).status_code == 201
    assert len(event.results()) == 4


# ------------------------------------------------------------------------------------------ rounds
def test_a_game_sent_while_round_2_is_in_play_counts_in_round_2(event: Event) -> None:
    """The tablet sent the game's own round counter (8 after a final chapter) as the event round."""
    table, token = event.table("Table 1")
    assert event.admin_post("/round", {"round": 2}).json() == {"current_round": 2, "round_open": True}
    reply = event.send(table, token, _game(2, round=8))
    assert reply.status_code == 201 and reply.json()["round"] == 2 and reply.json()["pending"] is False
    assert [r["round"] for r in event.results()] == [2]
    standings = event.http.get(f"/api/events/{event.code}/standings", params={"round": 2}).json()
    assert len(standings["standings"]) == 3


def test_a_late_result_for_a_closed_round_waits_for_the_organisers_approval(event: Event) -> None:
    table, token = event.table("Table 1")
    assert event.admin_post("/round/close").json() == {"current_round": 1, "round_open": False}
    reply = event.send(table, token, _game(3))
    assert reply.status_code == 201 and reply.json()["pending"] is True  # stored: the table is done
    assert event.http.get(f"/api/events/{event.code}/standings").json()["standings"] == []
    fragment = event.http.get(f"/events/{event.code}/leaderboard/fragment").text
    assert "round 1 closed" in fragment
    result_id = reply.json()["result_id"]
    assert event.admin_post(f"/results/{result_id}/approve", {"reason": "late table", "round": 1}).status_code == 200
    assert len(event.http.get(f"/api/events/{event.code}/standings").json()["standings"]) == 3
    again = event.admin_post(f"/results/{result_id}/approve", {"reason": "twice"})
    assert again.status_code == 409
    audit = event.http.get(f"/api/events/{event.code}/audit", headers=event.admin).json()["audit"]
    assert [a["action"] for a in audit][-3:] == ["round_closed", "submitted", "approved"]


# ------------------------------------------------------------------------------------------ the outbox
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_captive_portal_leaves_the_result_queued_and_visibly_unsent(
    event: Event, html_page: Callable[[str], str], tmp_path: Path
) -> None:
    """A Wi-Fi sign-in page answered 200 text/html and the outbox marked the game sent: it was lost."""
    from hub.outbox import Credentials

    captive_portal = html_page("<html><body>Welcome to Hotel Wi-Fi. Please sign in.</body></html>")

    outbox = Outbox(tmp_path / "tablet.sqlite3")
    join(outbox, event.url, event.code, "Table 1", event.secret)
    real = outbox.credentials()
    assert real is not None
    outbox.set_credentials(Credentials(captive_portal, real.event_code, real.table_id, real.table_name, real.token))
    payload = _game(4)
    outbox.enqueue_result(payload)
    report = Sender(outbox, rng=random.Random(0)).pump()
    assert report.sent == 0 and report.retried == 1
    status = outbox.status()
    assert status.pending == 1 and status.sent == 0
    assert "waiting to send" in status.label and "not the hub" in status.label
    # the network is back: the same message reaches the real hub and is counted once
    outbox.set_credentials(real)
    assert Sender(outbox, rng=random.Random(0)).pump().sent == 1
    assert outbox.status().label == "all sent"
    assert [r["game_id"] for r in event.results()] == [payload["game_id"]]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_2xx_that_does_not_name_the_game_is_not_a_receipt(event: Event, tmp_path: Path) -> None:
    from hub.outbox import MessageKind, OutboxMessage, confirms

    message = OutboxMessage(1, MessageKind.RESULT, "k", {"game_id": str(uuid.uuid4()), "seq": 1}, "pending", 0, 0, None)  # type: ignore[arg-type]
    request = httpx.Request("POST", "http://hub/")
    answers = [
        (httpx.Response(201, json={"status": "stored", "game_id": message.body["game_id"]}, request=request), True),
        (httpx.Response(200, json={"status": "duplicate", "game_id": message.body["game_id"]}, request=request),
         True),
        (httpx.Response(201, json={"status": "stored", "game_id": str(uuid.uuid4())}, request=request), False),
        (httpx.Response(201, json={"status": "ok"}, request=request), False),
        (httpx.Response(200, text="<html>sign in</html>", request=request), False),
        (httpx.Response(200, json=["stored"], request=request), False),
    ]
    for reply, expected in answers:
        assert confirms(message, reply) is expected, reply.text


# ------------------------------------------------------------------------------------------ strangers
def test_a_stranger_with_the_event_code_cannot_join_preempt_or_hide_a_game(event: Event) -> None:
    """Anyone who read the projector URL could join, read a live game's id from the public live view and
    post a result first: the real table's result was refused and its live row disappeared."""
    from hub.storage import new_secret

    for secret in ("", "WRONG", new_secret(10)):
        refused = event.join("Table 99", secret=secret)
        assert refused.status_code == 403 and "join secret" in refused.json()["message"]

    table, token = event.table("Table 1")
    game = _game(5)
    assert event.live(table, token, game["game_id"], seq=3).status_code == 202
    public = event.http.get(f"/api/events/{event.code}/live").json()["live"]
    assert public and game["game_id"] not in str(public)  # no id a stranger could use
    assert game["game_id"] not in event.http.get(f"/events/{event.code}/leaderboard/fragment").text

    # a table that did get in (a leaked secret) with the id anyway:
    rogue, rogue_token = event.table("Rogue")
    assert event.live(rogue, rogue_token, game["game_id"], seq=9).status_code == 202
    assert [g["table"] for g in event.http.get(f"/api/events/{event.code}/live").json()["live"]] == [
        "Rogue", "Table 1"]
    assert event.send(rogue, rogue_token, game).status_code == 201  # its own game, not Table 1's
    assert [g["table"] for g in event.http.get(f"/api/events/{event.code}/live").json()["live"]] == [
        "Table 1"]  # Table 1's live row is still there
    assert event.send(table, rogue_token, game).status_code == 403  # not through Table 1's door either
    assert event.send(table, token, game).status_code == 201  # the real table is counted
    by_table = {r["table"]: r for r in event.results()}
    assert set(by_table) == {"Rogue", "Table 1"}
    # the organiser revokes the rogue table and voids what it sent
    assert event.admin_post(f"/tables/{rogue}/revoke", {"reason": "not a real table"}).status_code == 200
    assert event.send(rogue, rogue_token, _game(6)).status_code == 401
    rejoin = event.join("Rogue")
    assert rejoin.status_code == 403 and "revoked" in rejoin.json()["message"]
    void = event.admin_post(f"/results/{by_table['Rogue']['result_id']}/void", {"reason": "rogue table"})
    assert void.status_code == 200


def test_the_organiser_frees_squatted_names_and_removes_live_rows(event: Event) -> None:
    squatters = [event.table(f"Table {n}") for n in range(10, 20)]
    tables = event.http.get(f"/api/events/{event.code}/tables", headers=event.admin).json()
    assert tables["join_secret"] == event.secret and len(tables["tables"]) == 10
    for table_id, _ in squatters:
        assert event.admin_post(f"/tables/{table_id}/delete", {"reason": "squatted"}).status_code == 200
    real, real_token = event.table("Table 12")  # the name is free again
    # a table that floods the projector keeps one live row: a table plays one game at a time
    for n in range(30):
        assert event.live(real, real_token, str(uuid.uuid4()), seq=n).status_code == 202
    assert len(event.http.get(f"/api/events/{event.code}/live").json()["live"]) == 1
    assert event.admin_post(f"/tables/{real}/remove-live", {"reason": "stale game"}).status_code == 200
    assert event.http.get(f"/api/events/{event.code}/live").json()["live"] == []
    renamed = event.admin_post(f"/tables/{real}/rename", {"name": "Table 12 (window)", "reason": "two rooms"})
    assert renamed.status_code == 200
    assert event.send(real, real_token, _game(7)).status_code == 201  # the token still works
    assert event.results()[0]["table"] == "Table 12 (window)"
    sent = event.admin_post(f"/tables/{real}/delete", {"reason": "oops"})
    assert sent.status_code == 409 and "revoke" in sent.json()["message"]  # results are never orphaned
    actions = [a["action"] for a in event.http.get(f"/api/events/{event.code}/audit",
                                                   headers=event.admin).json()["audit"]]
    assert actions.count("table_deleted") == 10 and "live_removed" in actions and "table_renamed" in actions


def test_a_result_is_entered_from_paper_and_audited(event: Event) -> None:
    reply = event.admin_post("/results/paper", {
        "reason": "tablet battery died", "table_name": "Table 5", "round": 1,
        "players": [{"name": "Aiko", "scores": {"dragons": 20}, "escape_order": 1},
                    {"name": "Ben", "scores": {"dragons": 20}}]})
    assert reply.status_code == 201, reply.text
    stored = reply.json()
    assert stored["source"] == "paper" and stored["table"] == "paper: Table 5"
    assert [(p["name"], p["total"], p["rank"]) for p in stored["players"]] == [("Aiko", 20, 1), ("Ben", 20, 2)]
    standings = event.http.get(f"/api/events/{event.code}/standings").json()["standings"]
    assert [s["name"] for s in standings] == ["Aiko", "Ben"]
    audit = event.http.get(f"/api/events/{event.code}/audit", headers=event.admin).json()["audit"]
    assert audit[-1]["action"] == "entered_by_hand" and audit[-1]["reason"] == "tablet battery died"
    bad = event.admin_post("/results/paper", {"reason": "x", "players": [{"name": "A", "scores": {"bogus": 1}}]})
    assert bad.status_code == 422


# ------------------------------------------------------------------------------------------ admin safety
def _signed_in(event: Event) -> tuple[httpx.Client, str]:
    browser = httpx.Client(base_url=event.url, timeout=30, headers={"Origin": event.url})
    page = browser.post(f"/events/{event.code}/admin/login", data={"token": event.admin_token},
                        follow_redirects=True)
    assert page.status_code == 200
    found = re.search(r"name='csrf' value='([^']+)'", page.text)
    assert found
    return browser, found.group(1)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_form_posted_from_another_port_of_the_same_host_changes_nothing(event: Event) -> None:
    """SameSite cookies go with a post from http://host:OTHER-PORT (same site): only the Origin check and
    the CSRF token stop a page there from voiding a result with the organiser's browser."""
    table, token = event.table("Table 1")
    result_id = event.send(table, token, _game(8)).json()["result_id"]
    browser, csrf = _signed_in(event)
    void = f"/events/{event.code}/admin/results/{result_id}/void"
    other_port = event.url.rsplit(":", 1)[0] + ":9999"
    cross = browser.post(void, data={"reason": "x", "csrf": csrf}, headers={"Origin": other_port})
    assert cross.status_code == 403 and cross.json()["error"] == "cross_origin"
    referer_only = browser.post(void, data={"reason": "x", "csrf": csrf},
                                headers={"Origin": "null", "Referer": other_port + "/evil.html"})
    assert referer_only.status_code == 403
    no_token = browser.post(void, data={"reason": "x"})
    assert no_token.status_code == 403 and no_token.json()["error"] == "csrf"
    assert event.results()[0]["void"] is False
    # the admin API takes no cookie for a change: only the token in the Authorization header
    api = browser.post(f"/api/events/{event.code}/results/{result_id}/void", json={"reason": "x"})
    assert api.status_code == 401
    assert browser.post(void, data={"reason": "duplicate", "csrf": csrf}).status_code == 303
    assert event.results()[0]["void"] is True
    browser.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_admin_cookie_is_a_session_that_ends(event: Event) -> None:
    browser, _csrf = _signed_in(event)
    cookie = next(iter(browser.cookies.jar))
    assert cookie.name == f"hub_admin_{event.code}" and event.admin_token not in (cookie.value or "")
    assert cookie.expires is not None and cookie.expires - time.time() <= 12 * 3600 + 60
    admin_page = f"/events/{event.code}/admin"
    assert browser.get(admin_page).status_code == 200
    # a session whose time is up is refused (the server keeps the expiry, not the browser)
    past = event.store.create_session(event.store.event(event.code), now=time.time() - 13 * 3600)
    assert httpx.get(f"{event.url}{admin_page}", cookies={cookie.name: past}).status_code == 401
    # rotating the admin token signs every browser out and retires the old token
    new_token = event.store.rotate_admin_token(event.store.event(event.code))
    assert browser.get(admin_page).status_code == 401
    assert event.http.get(f"/api/events/{event.code}/results", headers=event.admin).status_code == 401
    assert event.http.get(f"/api/events/{event.code}/results",
                          headers={"Authorization": f"Bearer {new_token}"}).status_code == 200
    browser.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_every_page_carries_security_headers_and_no_inline_script(event: Event) -> None:
    table, token = event.table("<script>alert(1)</script>")
    event.send(table, token, _game(9))
    browser, _csrf = _signed_in(event)
    pages = [event.http.get("/"), event.http.get(f"/events/{event.code}/leaderboard"),
             event.http.get(f"/events/{event.code}/admin"), browser.get(f"/events/{event.code}/admin"),
             event.http.get(f"/api/events/{event.code}/standings"), event.http.get("/nope")]
    for page in pages:
        csp = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "same-origin"
        if page.headers["content-type"].startswith("text/html"):
            assert re.search(r"<script(?![^>]*\bsrc=)", page.text) is None, "inline script"
            assert " style=" not in page.text and "<style" not in page.text, "inline style"
    assert "&lt;script&gt;" in pages[3].text
    assert event.http.get("/static/leaderboard.js").headers["content-type"].startswith("text/javascript")
    browser.close()


def test_admin_tokens_rotate_and_revoke_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    from ui.cli.main import main

    database = tmp_path / "hub.sqlite3"
    store = HubStore(db.make_engine(str(database)))
    db.migrate(store.engine)
    created = store.create_event("Token Con")
    code = created.event.code
    assert main(["hub", "admin-token", "rotate", "--event", code, "--db", str(database)]) == 0
    new_token = re.search(r"(adm_\S+)", capsys.readouterr().out)
    assert new_token
    event = store.event(code)
    assert not store.is_admin(event, created.admin_token) and store.is_admin(event, new_token.group(1))
    assert main(["hub", "admin-token", "revoke", "--event", code, "--db", str(database)]) == 0
    assert not store.is_admin(store.event(code), new_token.group(1))
    assert main(["hub", "join-secret", "rotate", "--event", code, "--db", str(database)]) == 0
    assert store.event(code).join_secret != created.event.join_secret
    assert main(["hub", "admin-token", "rotate", "--event", "NOPE99", "--db", str(database)]) == 2
    store.engine.dispose()


# ------------------------------------------------------------------------------------------ names
@pytest.mark.parametrize(
    ("name", "bad"),
    [("A\x00nn", "U+0000"), ("Ann\x1b[31m", "U+001B"), ("\u202eAnn", "U+202E"), ("A\u200bnn", "U+200B"),
     ("Ann\u2066", "U+2066"), ("Ann\ufeff", "U+FEFF")],
)
def test_control_format_and_override_characters_get_a_422(event: Event, name: str, bad: str) -> None:
    table, token = event.table("Table 1")
    payload = _game(10)
    payload["players"][0]["name"] = name
    reply = event.send(table, token, payload)
    assert reply.status_code == 422, reply.text
    body = reply.json()
    assert body["error"] == "invalid" and bad in body["message"] and "players.0.name" in body["message"]
    assert "Traceback" not in reply.text
    assert event.join(f"Table{name}").status_code == 422
    assert event.results() == []


def test_names_are_nfkc_normalised_and_lookalikes_are_flagged(event: Event) -> None:
    table, token = event.table("Table 1")
    players = [{"name": "Ａｎｎ", "colour": "red", "scores": {"dragons": 5}},  # full-width letters
               {"name": "Аnn", "colour": "blue", "scores": {"dragons": 3}}]  # a Cyrillic А
    payload = build_result_payload(players, game_id=uuid.uuid4(), seq=1, mode="competitive", scenario=0,
                                   duration_seconds=60)
    assert event.send(table, token, payload).status_code == 201
    names = [p["name"] for p in event.results()[0]["players"]]
    assert names == ["Ann", "Аnn"]
    flagged = event.http.get(f"/api/events/{event.code}/lookalikes", headers=event.admin).json()["lookalikes"]
    assert flagged == [["Ann", "Аnn"]]
    assert lookalike_groups(["Ann", "ann ", "Bo"]) == []  # one name, spelt twice, is not a look-alike


# ------------------------------------------------------------------------------------------ durability
def test_an_acknowledged_result_survives_a_power_cut(tmp_path: Path) -> None:
    """WAL with synchronous=NORMAL can lose the last commits in a power cut, after the reply told the
    tablet its game was stored; FULL syncs the WAL before the commit returns."""
    engine = db.make_engine(str(tmp_path / "hub.sqlite3"))
    with engine.connect() as connection:
        assert connection.execute(sa.text("PRAGMA synchronous")).scalar() == 2  # FULL
        assert connection.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
    engine.dispose()


# ------------------------------------------------------------------------------------------ abuse limits
def _held(socks: list[socket.socket]) -> list[socket.socket]:
    """The connections the hub still holds open (it has sent nothing and closed none of them)."""
    held = []
    for sock in socks:
        sock.setblocking(False)
        try:
            if sock.recv(1, socket.MSG_PEEK):
                held.append(sock)
        except BlockingIOError:
            held.append(sock)  # nothing to read and not closed
        except OSError:
            pass  # reset by the hub
    return held


def test_slow_header_clients_do_not_delay_a_tables_submit(tmp_path: Path) -> None:
    """1,100 connections from one client that never finish their headers used up the hub's file
    descriptors (a laptop's usual limit is 1024) and a table's POST waited until their header deadline
    closed them (15 s). Checked by order, not by a stopwatch (a busy machine is slow, not wrong): the
    table's submit is answered while every slow client the hub let in is still stalled in its headers."""
    header_timeout, per_client = 10, 64
    raise_file_limit()
    database = f"sqlite:///{tmp_path / 'hub.sqlite3'}"
    engine = db.make_engine(database)
    db.migrate(engine)
    created = HubStore(engine).create_event("Slow Con")
    engine.dispose()
    server = ServerProcess(database, extra_args=("--header-timeout", str(header_timeout),
                                                 "--max-connections-per-client", str(per_client)), file_limit=1024)
    attackers: list[socket.socket] = []
    with server:
        joined = httpx.post(f"{server.url}/api/join", json={
            "event_code": created.event.code, "table_name": "Table 1", "join_key": "k" * 32,
            "join_secret": created.event.join_secret}).json()
        stalled_at = time.monotonic()
        for _ in range(1100):
            sock = socket.socket()
            sock.bind(("127.0.0.2", 0))  # another machine on the hub's network
            try:
                sock.connect(("127.0.0.1", server.port))
                sock.sendall(b"POST /api/join HTTP/1.1\r\nHost: hub\r\nX-Slow: ")
            except OSError:
                sock.close()
                continue
            attackers.append(sock)
        reply = httpx.post(f"{server.url}/api/events/{created.event.code}/tables/{joined['table_id']}/results",
                           json=_game(11), headers={"Authorization": f"Bearer {joined['token']}"}, timeout=120)
        assert reply.status_code == 201, reply.text
        # The hub takes the attackers' connections before the table's (they came first) and closes those over
        # the cap at once; the ones it let in stay open until their header deadline. All of them still open
        # now means the submit did not wait for that deadline to free the hub's connections.
        held = _held(attackers)
        assert len(held) == per_client, (
            f"{len(held)} slow clients held when the submit was answered, {time.monotonic() - stalled_at:.1f} s "
            f"after they stalled (their header deadline is {header_timeout} s; {per_client} were let in)")
        # ... and the header deadline closes them
        deadline = time.monotonic() + header_timeout + 60
        while _held(held) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _held(held) == []
    for sock in attackers:
        sock.close()


@pytest.mark.parametrize("live_server", [{"body_timeout": 1.0}], indirect=True)
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_per_table_rate_limit_and_body_deadline(live_server: Any, event: Event) -> None:
    table, token = event.table("Table 1")
    for seed in range(30):
        assert event.send(table, token, _game(100 + seed)).status_code == 201
    limited = event.send(table, token, _game(200))
    assert limited.status_code == 429 and limited.headers["retry-after"] and limited.json()["error"] == "rate_limited"
    other, other_token = event.table("Table 2")
    assert event.send(other, other_token, _game(201)).status_code == 201  # a table's limit is its own

    host, port = event.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as slow:
        slow.sendall(f"POST /api/events/{event.code}/tables/{other}/results HTTP/1.1\r\nHost: hub\r\n"
                     f"Authorization: {other_token['Authorization']}\r\nContent-Type: application/json\r\n"
                     "Content-Length: 500\r\n\r\n{".encode())
        slow.settimeout(30)
        started = time.monotonic()
        answer = slow.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 408") and time.monotonic() - started < 5


def test_repeated_errors_are_logged_a_few_times_a_minute() -> None:
    now = [0.0]
    repeat = RepeatFilter(burst=3, window=60, clock=lambda: now[0])

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", logging.WARNING, __file__, 1, message, None, None)

    kept = [repeat.filter(record("Invalid HTTP request received.")) for _ in range(1000)]
    assert sum(kept) == 3
    assert repeat.filter(record("something else"))
    assert repeat.filter(logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "started", None, None))
    now[0] = 61.0
    later = record("Invalid HTTP request received.")
    assert repeat.filter(later) and "997 more like this" in later.getMessage()


def test_hub_serves_https_with_a_certificate(tmp_path: Path) -> None:
    openssl = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
        capture_output=True, check=False)
    if openssl.returncode != 0:
        pytest.skip("openssl is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "ui.cli", "hub", "serve", "--db", str(tmp_path / "hub.sqlite3"), "--host",
         "127.0.0.1", "--port", str(port), "--tls-cert", str(tmp_path / "cert.pem"), "--tls-key",
         str(tmp_path / "key.pem")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                reply = httpx.get(f"https://127.0.0.1:{port}/api/health", timeout=2,
                                  verify=ssl.create_default_context(cafile=str(tmp_path / "cert.pem")))
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "the hub did not start"
                time.sleep(0.1)
        assert reply.status_code == 200 and reply.headers["strict-transport-security"]
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_leaked_join_secret_cannot_create_tables_without_end(event: Event, monkeypatch: pytest.MonkeyPatch) -> None:
    import hub.storage

    monkeypatch.setattr(hub.storage, "MAX_TABLES_PER_EVENT", 3)
    for n in range(3):
        event.table(f"Table {n}")
    refused = event.join("Table 99")
    assert refused.status_code == 409 and "3 tables" in refused.json()["message"]
    assert event.join("Table 1").status_code == 201  # a table that joined may join again
