"""The tablet-side outbox: durable across restarts, retries with backoff, exactly once against a real hub
even when the reply to a stored result is lost."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.loadtest import DropProxy, random_game
from hub.outbox import (
    Backoff,
    Credentials,
    MessageState,
    Outbox,
    OutboxError,
    Outcome,
    Sender,
    classify,
    join,
)


class FakeClock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _credentials(url: str = "http://hub.invalid") -> Credentials:
    return Credentials(url, "ABCDEF", 1, "Table 1", "tbl_x")


def test_queued_games_and_credentials_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    outbox = Outbox(path)
    outbox.set_credentials(_credentials())
    key = outbox.join_key()
    game = random_game(random.Random(1))
    outbox.enqueue_result(game)
    outbox.close()  # the app is killed here

    reopened = Outbox(path)
    assert reopened.credentials() == _credentials()
    assert reopened.join_key() == key
    [message] = reopened.due()
    assert message.body == game and message.state is MessageState.PENDING
    assert reopened.status().pending == 1 and reopened.status().label == "1 waiting to send"
    reopened.close()


def test_enqueue_is_idempotent_and_refuses_a_changed_copy(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.sqlite3")
    game = random_game(random.Random(2))
    assert outbox.enqueue_result(game) == outbox.enqueue_result(copy.deepcopy(game))
    changed = copy.deepcopy(game)
    changed["duration_seconds"] += 1
    with pytest.raises(OutboxError, match="different content"):
        outbox.enqueue_result(changed)
    with pytest.raises(OutboxError):
        outbox.enqueue_result({"seq": 1})
    assert len(outbox.messages()) == 1


def test_live_updates_coalesce_to_the_newest(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.sqlite3")
    game_id = "6f1c2b9e-3d4a-4f5b-9c8d-7e6f5a4b3c2d"
    for seq in (1, 2, 3):
        outbox.enqueue_live({"game_id": game_id, "seq": seq, "players": [{"name": "A", "colour": "red", "vp": seq}]})
    assert [m.body["seq"] for m in outbox.messages()] == [3]


def test_classify_replies() -> None:
    assert classify(201) is Outcome.SENT and classify(202) is Outcome.SENT
    assert classify(200) is Outcome.DUPLICATE
    assert classify(401) is Outcome.AUTH and classify(403) is Outcome.AUTH
    assert classify(503) is Outcome.RETRY and classify(429) is Outcome.RETRY
    assert classify(409) is Outcome.REJECTED and classify(422) is Outcome.REJECTED and classify(413) is Outcome.REJECTED


def test_backoff_grows_and_is_capped_with_a_fake_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    outbox = Outbox(tmp_path / "o.sqlite3", clock=clock)
    outbox.set_credentials(_credentials())
    outbox.enqueue_result(random_game(random.Random(3)))

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("network is down", request=request)

    sender = Sender(outbox, client=httpx.Client(transport=httpx.MockTransport(refuse)),
                    backoff=Backoff(base=1.0, cap=8.0), rng=random.Random(0))
    waits = []
    for _ in range(7):
        assert sender.pump().retried == 1
        due_at = outbox.next_due_at()
        assert due_at is not None
        waits.append(due_at - clock.now)
        assert sender.pump().retried == 0  # not due yet: nothing is sent early
        clock.now = due_at
    assert all(0.5 <= w <= 1.0 for w in waits[:1]) and all(4.0 <= w <= 8.0 for w in waits[3:])
    assert waits[1] > waits[0] and waits[2] > waits[1]
    status = outbox.status()
    assert status.pending == 1 and not status.connected and "unreachable" in (status.last_error or "")
    assert status.label == "1 waiting to send (hub unreachable)"


def _hub_table(live_server: Any, outbox: Outbox, name: str = "Table 1") -> tuple[str, str]:
    created = live_server.app.state.store.create_event("Outbox Con")
    join(outbox, live_server.url, created.event.code, name, created.event.join_secret)
    return created.event.code, created.admin_token


def _stored(live_server: Any, code: str, admin_token: str) -> list[dict[str, Any]]:
    reply = httpx.get(f"{live_server.url}/api/events/{code}/results",
                      headers={"Authorization": f"Bearer {admin_token}"})
    results: list[dict[str, Any]] = reply.json()["results"]
    return results


def test_a_lost_reply_is_retried_and_counted_once(live_server: Any, tmp_path: Path) -> None:
    clock = FakeClock()
    outbox = Outbox(tmp_path / "tablet.sqlite3", clock=clock)
    code, admin = _hub_table(live_server, outbox)
    port = int(live_server.url.rsplit(":", 1)[1])
    with DropProxy(port, drop_request=0.0, drop_response=1.0) as proxy:
        credentials = outbox.credentials()
        assert credentials is not None
        outbox.set_credentials(Credentials(proxy.url, credentials.event_code, credentials.table_id,
                                           credentials.table_name, credentials.token))
        game = random_game(random.Random(4))
        outbox.enqueue_result(game)
        sender = Sender(outbox, backoff=Backoff(base=1.0, cap=4.0), rng=random.Random(0))
        assert sender.pump().retried == 1  # the hub stored it, the reply never arrived
        assert proxy.counters.responses_cut == 1
        assert len(_stored(live_server, code, admin)) == 1 and outbox.status().pending == 1

        outbox.close()  # and the tablet restarts before the retry
        outbox = Outbox(tmp_path / "tablet.sqlite3", clock=clock)
        sender = Sender(outbox, backoff=Backoff(base=1.0, cap=4.0), rng=random.Random(0))
        proxy.drop_response = 0.0
        assert sender.pump().sent == 0  # not due yet
        clock.now += 5
        report = sender.pump()
        assert report.duplicates == 1 and report.sent == 0
    assert outbox.status().pending == 0 and outbox.status().sent == 1
    stored = _stored(live_server, code, admin)
    assert [r["game_id"] for r in stored] == [game["game_id"]]


def test_a_refused_result_is_kept_for_the_organizer_not_lost(live_server: Any, tmp_path: Path) -> None:
    clock = FakeClock()
    outbox = Outbox(tmp_path / "tablet.sqlite3", clock=clock)
    code, admin = _hub_table(live_server, outbox)
    game = random_game(random.Random(5))
    outbox.enqueue_result(game)
    sender = Sender(outbox, rng=random.Random(0))
    assert sender.pump().sent == 1

    # the table fixes a typo and re-sends the same game id and seq with other scores: the hub refuses it
    second = Outbox(tmp_path / "restored-backup.sqlite3", clock=clock)
    second.set_credentials(outbox.credentials())  # type: ignore[arg-type]
    changed = copy.deepcopy(game)
    changed["players"][0]["scores"]["corrections"] += 1
    changed["players"][0]["total"] += 1
    changed["players"] = [dict(p, rank=r) for p, r in zip(changed["players"], _reranked(changed), strict=True)]
    second.enqueue_result(changed)
    assert Sender(second, rng=random.Random(0)).pump().rejected == 1
    [kept] = second.messages(MessageState.REJECTED)
    assert kept.body == changed and kept.last_error and kept.last_error.startswith("409")
    assert second.status().label == "1 refused by the hub"
    assert second.requeue_rejected() == 1 and second.status().pending == 1  # after the organizer's fix
    assert [r["players"] for r in _stored(live_server, code, admin)] == [
        [dict(p) for p in game["players"]]
    ]


def _reranked(payload: dict[str, Any]) -> list[int]:
    from hub.rules import finishing_ranks

    return finishing_ranks([(p["total"], p["escape_order"]) for p in payload["players"]])


def test_a_bad_token_holds_messages_until_the_table_joins_again(live_server: Any, tmp_path: Path) -> None:
    clock = FakeClock()
    outbox = Outbox(tmp_path / "tablet.sqlite3", clock=clock)
    code, admin = _hub_table(live_server, outbox)
    good = outbox.credentials()
    assert good is not None
    outbox.set_credentials(Credentials(good.hub_url, good.event_code, good.table_id, good.table_name, "tbl_bad"))
    outbox.enqueue_result(random_game(random.Random(6)))
    sender = Sender(outbox, backoff=Backoff(auth_wait=300.0), rng=random.Random(0))
    assert sender.pump().retried == 1
    assert (outbox.next_due_at() or 0) - clock.now == pytest.approx(300.0)
    secret = live_server.app.state.store.event(code).join_secret
    join(outbox, live_server.url, code, "Table 1", secret)  # same tablet, same join key: a fresh token
    assert sender.pump().sent == 1
    assert len(_stored(live_server, code, admin)) == 1


def test_the_background_sender_delivers_what_the_session_queues(live_server: Any, tmp_path: Path) -> None:
    import threading
    import time

    outbox = Outbox(tmp_path / "tablet.sqlite3")
    code, admin = _hub_table(live_server, outbox)
    stop = threading.Event()
    worker = threading.Thread(target=Sender(outbox).run, args=(stop,), kwargs={"idle": 0.05})
    worker.start()
    try:
        games = [random_game(random.Random(20 + i)) for i in range(3)]
        for game in games:
            outbox.enqueue_result(game)
        deadline = time.monotonic() + 20
        while outbox.status().sent < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join(timeout=10)
    assert not worker.is_alive()
    assert outbox.status().label == "all sent"
    assert sorted(r["game_id"] for r in _stored(live_server, code, admin)) == sorted(g["game_id"] for g in games)
