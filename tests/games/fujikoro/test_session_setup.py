"""Setup, the checklist, turns and VP categories with their history."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import FujiKoro, SetupError, deal_blueprints, parse_setup


def new(players: list[Any], **config: Any) -> Session[Any]:
    return Session(FujiKoro(default_pack()), {"players": players, **config})


def checklist(players: list[Any], **config: Any) -> str:
    return "\n".join(new(players, **config).state_json()["setup_checklist"])


def test_new_game_is_playing_with_the_first_listed_player_to_move() -> None:
    state = new(["Ann", "Bo", "Cy"]).state_json()
    assert state["phase"] == "playing" and state["current_player"] == "Ann" and state["round"] == 1
    assert state["scores"] == {"Ann": 0, "Bo": 0, "Cy": 0}
    assert state["countdown"]["active"] is False and state["countdown"]["position"] is None


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({"players": ["A"]}, "2 to 6 players"),
        ({"players": ["A"] * 2}, "different name"),
        ({"players": list("ABCDEFG"), "mode": "coop"}, "1 to 6"),
        ({"players": ["A", "B"], "scenario": 9}, "0 \\(base game\\) to 8"),
        ({"players": ["A", "B"], "scenario": 6}, "coop mode"),
        ({"players": ["A", "B"], "mode": "coop", "scenario": 8}, "solo"),
        ({"players": [{"name": "A", "board": "masako"}, "B"]}, "for all players"),
        ({"players": [{"name": "A", "board": "masako"}, {"name": "B", "board": "masako"}]}, "same character"),
        ({"players": [{"name": "A", "board": "nobody"}, "B"]}, "unknown board"),
        (
            {"players": [{"name": "A", "board": "tomoe"}, {"name": "B", "board": "takeko"}], "scenario": 1},
            "symmetrical",
        ),
        ({"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "red"}]}, "different colour"),
        ({"players": ["A", "B"], "start_player": "Z"}, "start player"),
    ],
)
def test_setups_the_rules_do_not_allow_are_refused(config: dict[str, Any], match: str) -> None:
    with pytest.raises(SetupError, match=match):
        parse_setup(config, default_pack())


def test_checklist_monks_hexagons_and_blueprints_follow_the_player_count() -> None:
    assert "Starting Monks: 1 per player" in checklist(["A", "B", "C", "D", "E"])
    six = checklist(list("ABCDEF"))
    assert "Starting Monks: 2 per player" in six and "Add the hexagon Resource Tokens" in six
    assert "Leave the hexagon Resource Tokens in the box" in checklist(["A", "B"])
    characters = checklist([{"name": "A", "board": "masako"}, {"name": "B", "board": "tomoe"}])
    assert "Starting Monks: 0 per player" in characters and "2 one-handed weapons" in characters
    two = checklist(["A", "B"])
    assert "Temple 1: 1 helmet, 1 weapon; Temple 2: 1 helmet, 1 sandals; Temple 3: 1 weapon, 1 sandals" in two


def test_blueprints_are_dealt_round_robin_and_each_temple_gets_one_per_player() -> None:
    for n in range(1, 7):
        piles = deal_blueprints(n)
        assert [len(p) for p in piles] == [n, n, n]
    assert deal_blueprints(2) == [["helmet", "weapon"], ["helmet", "sandals"], ["weapon", "sandals"]]


def test_coop_checklist_has_the_round_track_lives_and_the_tile_decks() -> None:
    text = checklist(["A", "B", "C"], mode="coop", adventure_tokens=True)
    assert "Countdown Token on 18" in text and "Life Token, 2 Lives" in text
    assert "put 2 other tiles under each of those piles and 6 on top" in text
    assert "put the 8 other tiles on top" in checklist(list("ABCDE"), mode="coop")
    assert "Tokugawa" in text


def test_mitsuhide_starts_with_a_scroll_and_its_3_vp() -> None:
    state = new([{"name": "A", "board": "mitsuhide"}, {"name": "B", "board": "masako"}]).state_json()
    assert state["scores"] == {"A": 3, "B": 0} and state["players"][0]["categories"]["scrolls"] == 3


def test_turns_actions_rounds_and_a_chosen_start_player() -> None:
    s = new(["A", "B", "C"], start_player="B")
    assert s.state_json()["current_player"] == "B"
    s.do({"type": "action", "action": "move"})
    applied = s.do({"type": "action", "action": "rest"})
    assert dict(applied.events[-1].payload)["actions_left"] == 0
    with pytest.raises(CommandError, match="Rest twice"):
        s.do({"type": "action", "action": "rest"})
    with pytest.raises(CommandError, match="own turn"):
        s.do({"type": "action", "player": "A", "action": "move"})
    started = s.do({"type": "end_turn"}).events[-1]
    assert started.kind == "turn_started" and dict(started.payload) == {"player": "C", "round": 1, "colour": None}
    s.do({"type": "end_turn"})
    started = s.do({"type": "end_turn"}).events[-1]
    assert dict(started.payload)["player"] == "B" and dict(started.payload)["round"] == 2
    assert s.state_json()["actions"] == []


def test_vp_by_category_with_corrections_and_history() -> None:
    pack = default_pack()
    s = new(["A", "B"])
    s.do({"type": "action", "action": "explore", "level": 2})
    s.do({"type": "explore", "level": 3})
    s.do({"type": "scroll"})
    s.do({"type": "gear_card_vp"})
    s.do({"type": "dragon_defeated", "dragon": "green_1", "players": ["A", "B"]})
    s.do({"type": "vp", "player": "B", "points": -2, "reason": "counted a scroll twice"})
    with pytest.raises(CommandError, match="needs a reason"):
        s.do({"type": "vp", "player": "B", "points": 1})
    with pytest.raises(CommandError, match="whole number other than 0"):
        s.do({"type": "vp", "player": "B", "points": 0, "reason": "scroll"})
    state = s.state_json()
    a = state["players"][0]["categories"]
    assert (
        a["explore_level_2"] == pack.scoring["explore_level_2"]
        and a["explore_level_3"] == pack.scoring["explore_level_3"]
    )
    assert a["scrolls"] == 3 and a["gear_card"] == 1 and a["dragons"] == pack.colours["green"].vp
    assert state["players"][0]["teeth"] == 1
    assert state["players"][1]["categories"]["correction"] == -2
    assert state["scores"]["A"] == sum(a.values())
    history = state["vp_history"]
    assert [h["total"] for h in history if h["player"] == "A"] == [1, 3, 6, 7, 14]
    assert history[-1] == {"turn": 1, "round": 1, "player": "B", "category": "correction", "points": -2, "total": 5}
    with pytest.raises(CommandError, match="already defeated"):
        s.do({"type": "dragon_defeated", "dragon": "green_1", "players": ["A"]})


def test_the_setup_phase_waits_for_start() -> None:
    s = new(["A", "B"], begin=False)
    assert s.state_json()["phase"] == "setup"
    with pytest.raises(CommandError, match="still being set up"):
        s.do({"type": "end_turn"})
    s.do({"type": "start"})
    assert s.state_json()["phase"] == "playing"


def test_dragon_health_drives_the_health_display_until_the_defeat() -> None:
    s = new(["A", "B"])
    applied = s.do({"type": "dragon_health", "dragon": "green_1"})
    assert [(e.kind, dict(e.payload)) for e in applied.events] == [
        ("dragon_health", {"dragon": "green_1", "health": 12, "max": 12})
    ]
    s.do({"type": "dragon_health", "dragon": "green_1", "health": 5})
    assert s.state_json()["fight"] == {"dragon": "green_1", "health": 5}
    with pytest.raises(CommandError, match="1 to 12"):
        s.do({"type": "dragon_health", "dragon": "green_1", "health": 0})
    s.do({"type": "dragon_defeated", "dragon": "green_1", "players": ["A"]})
    assert s.state_json()["fight"] is None
    with pytest.raises(CommandError, match="already defeated"):
        s.do({"type": "dragon_health", "dragon": "green_1", "health": 3})
