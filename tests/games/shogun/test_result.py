"""A finished game of Shogun on its way out (issue 17 item 4: BG Stats / CSV export and hub results like Fuji
Koro's): ``Game.result`` gives each player's VP by category (provinces, buildings, majorities, spec 7.3) and
the chests as the tie-break (spec 8); ``store.export`` and ``hub.payload.payload_from_result`` take it and
rank the players the same way."""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
import uuid
from dataclasses import replace
from typing import Any

from companion.engine import Session
from games.shogun import GAME
from games.shogun.rules import ShogunRules
from games.shogun.state import State
from hub.payload import payload_from_result
from store.export import BGSTATS_URL, bgstats_link, bgstats_play, result_csv

from .script import CONFIG, CORRECTIONS, FINAL_VP, steps


def _finished() -> tuple[ShogunRules, State]:
    rules: ShogunRules = GAME.rules(GAME.new_game(CORRECTIONS).data)  # type: ignore[assignment]
    session: Session[Any] = Session(rules, CONFIG)
    for command, _ in steps():
        session.do(command)
    return rules, session.state


def test_the_result_exports_and_goes_to_the_hub_with_categories() -> None:
    rules, state = _finished()
    result = rules.result(state)
    assert result is not None and result.bgg_id == 20551 and not result.cooperative
    by_name = {p.name: p for p in result.players}
    assert {n: p.score for n, p in by_name.items()} == {"Ann": 34, "Bo": 28, "Cy": 24, "Dee": 29}
    for p in result.players:
        assert set(p.categories) == {"provinces", "buildings", "majorities"}
        assert sum(p.categories.values()) == p.score == FINAL_VP[p.colour or ""]
        assert p.tiebreak == state.chests[p.colour or ""]  # spec 8: the chests break a tie

    payload = payload_from_result(result, game="shogun", game_id=uuid.uuid4(), seq=len(steps()),
                                  duration_seconds=7200, table_order=["Ann", "Bo", "Cy", "Dee"])
    assert payload["schema_version"] == 2 and payload["game"] == "shogun" and payload["mode"] == "competitive"
    assert [(p["name"], p["total"], p["rank"]) for p in payload["players"]] == [
        ("Ann", 34, 1), ("Bo", 28, 3), ("Cy", 24, 4), ("Dee", 29, 2)]
    assert payload["players"][0]["scores"] == dict(by_name["Ann"].categories)

    rows = list(csv.DictReader(io.StringIO(result_csv(result))))
    assert [(r["rank"], r["player"], r["score"]) for r in rows] == [
        ("1", "Ann", "34"), ("2", "Dee", "29"), ("3", "Bo", "28"), ("4", "Cy", "24")]
    assert rows[0]["majorities"] == str(by_name["Ann"].categories["majorities"])
    play = bgstats_play(result, started=0.0, finished=7200.0, play_id="g1")
    assert play["game"]["bggId"] == 20551 and [p["winner"] for p in play["players"]] == [True, False, False, False]
    link = bgstats_link(play)
    assert link.startswith(BGSTATS_URL)
    assert json.loads(urllib.parse.unquote(link[len(BGSTATS_URL):]))["players"][3]["score"] == 29


def test_equal_vp_is_settled_by_the_chests_in_the_result_and_at_the_hub() -> None:
    """Spec 8: with equal VP the player with more chests wins. Dee scores 5 more for a majority in winter 2,
    34 like Ann; whoever holds more chests ranks first, in the result and in the hub's payload."""
    rules, state = _finished()
    last = dict(state.scores[-1])
    last["purple"] = replace(last["purple"], majority={**last["purple"].majority, "extra": 5})
    for ann_chests, dee_chests, first in ((3, 9, "Dee"), (9, 3, "Ann")):
        tied = replace(state, scores=(*state.scores[:-1], last), vp={**state.vp, "purple": 34},
                       chests={**state.chests, "blue": ann_chests, "purple": dee_chests})
        result = rules.result(tied)
        assert result is not None
        ranks = {p.name: p.rank for p in result.players}
        assert ranks[first] == 1 and ranks["Ann" if first == "Dee" else "Dee"] == 2
        payload = payload_from_result(result, game="shogun", game_id=uuid.uuid4(), seq=1, duration_seconds=60)
        assert {p["name"]: p["rank"] for p in payload["players"]} == ranks
    both = replace(state, scores=(*state.scores[:-1], last), vp={**state.vp, "purple": 34},
                   chests={**state.chests, "blue": 4, "purple": 4})
    shared = rules.result(both)
    assert shared is not None and "shared win" in shared.note  # equal chests too: A11
    assert [p.name for p in shared.players if p.winner] == ["Ann", "Dee"]
