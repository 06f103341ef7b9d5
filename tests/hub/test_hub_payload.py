"""The pure result-payload builder the session calls when a game ends, checked against the wire schema."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from hub.payload import PayloadError, build_result_payload
from hub.schema import GameResult

GAME_ID = "6f1c2b9e-3d4a-4f5b-9c8d-7e6f5a4b3c2d"


def _players() -> list[dict[str, object]]:
    return [
        {"name": "Aiko", "colour": "red", "scores": {"explored": 4, "scrolls": 6, "dragons": 14, "shogun": 9},
         "escape_order": 2},
        {"name": "Ben", "colour": "blue", "scores": {"explored": 6, "dragons": 21, "gear_cards": 6},
         "escape_order": 1},
        {"name": "Chiyo", "colour": "green", "scores": {"explored": 2, "dragons": 7, "corrections": -1},
         "escape_order": None},
    ]


def test_builds_totals_and_rulebook_ranks_that_the_hub_accepts() -> None:
    payload = build_result_payload(
        _players(), game_id=GAME_ID, seq=7, mode="competitive", scenario=0, duration_seconds=3600.4
    )
    assert [p["total"] for p in payload["players"]] == [33, 33, 8]
    assert [p["rank"] for p in payload["players"]] == [2, 1, 3]  # tied on 33: Ben left the Volcano first
    assert payload["players"][2]["scores"]["corrections"] == -1
    assert payload["duration_seconds"] == 3600
    parsed = GameResult.model_validate(payload)
    assert parsed.game_id == uuid.UUID(GAME_ID) and parsed.seq == 7


def test_unsettled_tie_is_shared_or_follows_the_table_order() -> None:
    players = _players()
    players[0]["escape_order"] = None
    players[1]["escape_order"] = None
    shared = build_result_payload(players, game_id=GAME_ID, seq=1, mode="competitive", scenario=0,
                                  duration_seconds=1)
    assert [p["rank"] for p in shared["players"]] == [1, 1, 3]
    settled = build_result_payload(players, game_id=GAME_ID, seq=1, mode="competitive", scenario=0,
                                   duration_seconds=1, table_order=["ben", "Aiko"])
    assert [p["rank"] for p in settled["players"]] == [2, 1, 3]
    GameResult.model_validate(shared)
    GameResult.model_validate(settled)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mode": "party"}, "mode must be one of"),
        ({"game_id": "not-a-uuid"}, "game_id must be a UUID"),
        ({"table_order": ["Nobody"]}, "not in the game"),
    ],
)
def test_bad_game_data_is_a_payload_error(change: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"game_id": GAME_ID, "seq": 1, "mode": "competitive", "scenario": 0,
                                    "duration_seconds": 60, **change}
    with pytest.raises(PayloadError, match=message):
        build_result_payload(_players(), **arguments)  # type: ignore[arg-type]


def test_unknown_category_is_refused() -> None:
    players = _players()
    players[0]["scores"] = {"gold": 3}
    with pytest.raises(PayloadError, match="unknown score category 'gold'"):
        build_result_payload(players, game_id=GAME_ID, seq=1, mode="competitive", scenario=0, duration_seconds=1)


def test_schema_refuses_what_a_broken_table_might_send() -> None:
    good = build_result_payload(_players(), game_id=GAME_ID, seq=1, mode="competitive", scenario=0,
                                duration_seconds=60)
    broken = [
        {**good, "seq": "1"},  # strings are not numbers
        {**good, "players": [dict(good["players"][0], total=99), *good["players"][1:]]},  # total != sum
        {**good, "players": [dict(good["players"][0], rank=1), *good["players"][1:]]},  # breaks tie-break
        {**good, "players": [dict(p, colour="red") for p in good["players"]]},  # colours repeat
        {**good, "players": [dict(p, escape_order=1) for p in good["players"]]},  # escape order repeats
        {**good, "players": good["players"][:1]},  # competitive needs two players
        {**good, "scenario": 9},
        {**good, "extra": True},
    ]
    for payload in broken:
        with pytest.raises(ValidationError):
            GameResult.model_validate(payload)


def test_accepts_the_session_names_for_categories_and_mode() -> None:
    players = [
        {"name": "Aiko", "colour": None, "escape_order": None,
         "scores": {"explore_level_2": 3, "explore_level_3": 4, "gear_card": 6, "correction": -2}},
        {"name": "Ben", "colour": None, "escape_order": None, "scores": {"dragons": 2}},
    ]
    payload = build_result_payload(players, game_id=GAME_ID, seq=1, mode="coop", scenario=5, duration_seconds=9)
    first = payload["players"][0]
    assert first["scores"]["explored"] == 7 and first["scores"]["gear_cards"] == 6 and first["total"] == 11
    assert payload["mode"] == "cooperative" and [p["colour"] for p in payload["players"]] == ["seat 1", "seat 2"]
    GameResult.model_validate(payload)


category_scores = st.fixed_dictionaries(
    {"explored": st.integers(0, 20), "scrolls": st.integers(0, 30), "dragons": st.integers(0, 60),
     "shogun": st.integers(0, 40), "corrections": st.integers(-10, 10)}
)


@given(st.lists(st.tuples(category_scores, st.booleans()), min_size=2, max_size=6), st.randoms())
def test_every_built_payload_is_accepted_by_the_hub(rows: list[tuple[dict[str, int], bool]], rnd: Any) -> None:
    escaped = [i for i, (_, out) in enumerate(rows) if out]
    rnd.shuffle(escaped)
    players = [{"name": f"P{i}", "colour": f"c{i}", "scores": scores,
                "escape_order": escaped.index(i) + 1 if i in escaped else None}
               for i, (scores, _) in enumerate(rows)]
    payload = build_result_payload(players, game_id=GAME_ID, seq=1, mode="competitive", scenario=0,
                                   duration_seconds=1)
    parsed = GameResult.model_validate(payload)
    assert parsed.content_hash() == GameResult.model_validate(payload).content_hash()
