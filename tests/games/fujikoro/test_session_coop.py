"""Cooperative mode (EN pp.14-15): the round track, status tokens, lives, objectives, win and loss."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import FujiKoro


def coop(players: tuple[str, ...] = ("A", "B"), **config: Any) -> Session[Any]:
    return Session(FujiKoro(default_pack()), {"players": list(players), "mode": "coop", **config}, new_seed=lambda: 3)


def end_round(s: Session[Any]) -> list[Any]:
    events: list[Any] = []
    for _ in range(len(s.state.players)):
        events += s.do({"type": "end_turn"}).events
    return events


@pytest.mark.parametrize(
    ("players", "adventure", "start"),
    [(("A",), False, 25), (("A",), True, 23), (("A", "B"), False, 20), (("A", "B", "C", "D", "E", "F"), True, 18)],
)
def test_the_round_track_starts_at_20_or_25_minus_2_with_adventure_tokens(
    players: tuple[str, ...], adventure: bool, start: int
) -> None:
    pack = default_pack()
    s = coop(players, adventure_tokens=adventure)
    assert s.state_json()["countdown"]["rounds_left"] == start
    assert start == pack.coop.start(len(players), adventure)


def test_the_track_moves_at_each_new_round_then_the_8_eruption_spaces_end_the_game() -> None:
    pack = default_pack()
    s = coop(("A", "B"))
    for expected in range(19, 0, -1):
        events = end_round(s)
        assert [dict(e.payload)["rounds_left"] for e in events if e.kind == "round_track"] == [expected]
    assert s.state_json()["round"] == 20 and s.state_json()["phase"] == "playing"
    events = end_round(s)  # round 21 begins on the first eruption space
    assert [dict(e.payload)["phase"] for e in events if e.kind == "final_chapter"] == ["end"]
    assert [dict(e.payload) for e in events if e.kind == "countdown_advanced"] == [
        {"position": 1, "event": pack.countdown[0].event.value, "lava": list(pack.countdown[0].lava)}
    ]
    assert s.state_json()["phase"] == "final"
    while not s.is_over:
        end_round(s)
    state = s.state_json()
    assert state["countdown"]["position"] == 8 and state["ending"]["won"] is False
    assert "Defeat the Legendary Dragon" in state["ending"]["reason"]


def test_status_tokens_sleeping_awake_then_the_dragon_moves() -> None:
    s = coop(("A", "B"))
    s.do({"type": "dragon_revealed", "dragon": "green_2"})
    assert s.state_json()["dragons"] == {"green_2": "sleeping"}
    events = end_round(s)
    assert s.state_json()["dragons"] == {"green_2": "awake"}
    assert not [e for e in events if e.kind == "dragons_move"]
    events = end_round(s)
    assert s.state_json()["moving_dragons"] == ["green_2"]
    assert [dict(e.payload)["dragons"] for e in events if e.kind == "dragons_move"] == [["green_2"]]
    s.do({"type": "dragon_defeated", "dragon": "green_2", "players": ["A", "B"]})
    assert (
        s.state_json()["moving_dragons"] == []
        and s.state_json()["group_teeth"] == default_pack().colours["green"].coop_teeth
    )


def test_no_vp_in_coop_and_two_lives_each() -> None:
    s = coop(("A", "B"))
    with pytest.raises(CommandError, match="no VP in the cooperative mode"):
        s.do({"type": "vp", "player": "A", "points": 3, "reason": "scroll"})
    s.do({"type": "life_lost", "player": "B", "reason": "knocked out by red_2"})
    assert s.state_json()["players"][1]["lives"] == 1 and not s.is_over
    applied = s.do({"type": "life_lost", "player": "B", "reason": "lava"})
    assert s.is_over
    ended = [dict(e.payload) for e in applied.events if e.kind == "game_ended"][0]
    assert ended["won"] is False and "B lost a second Life" in ended["reason"]


def test_lives_do_not_exist_in_competitive_mode() -> None:
    s = Session(FujiKoro(default_pack()), {"players": ["A", "B"]})
    with pytest.raises(CommandError, match="cooperative"):
        s.do({"type": "life_lost", "player": "A"})


def test_all_objectives_achieved_wins_at_once() -> None:
    s = coop(("A", "B"))
    s.do({"type": "dragon_revealed", "dragon": "legendary"})
    s.do({"type": "dragon_defeated", "dragon": "legendary", "players": ["A", "B"]})
    s.do({"type": "magical_gear", "player": "B", "gear": "sandals"})
    s.do({"type": "escape", "via": "secret_exit", "tokens": {"helmet": 1}})  # A
    objectives = {o["text"]: o["done"] for o in s.state_json()["objectives"]}
    assert objectives["Defeat the Legendary Dragon"] is True
    assert objectives["Together: a Magical Helmet, Weapon and Sandals (missing: weapon)"] is False
    s.do({"type": "end_turn"})
    applied = s.do({"type": "escape", "via": "secret_exit", "tokens": {"weapon": 1}})  # B
    assert s.is_over and s.state_json()["ending"]["won"] is True
    assert [e for e in applied.events if e.kind == "game_ended"]
    result = s.game.result(s.state)
    assert result is not None and result.cooperative and all(p.winner for p in result.players)


def test_coop_scenario_3_lava_phase_after_5_rounds_then_back_to_5() -> None:
    s = coop(("A", "B"), scenario=3)
    assert s.state_json()["countdown"]["rounds_left"] == 5
    for _ in range(4):
        end_round(s)
    events = end_round(s)
    assert [dict(e.payload)["phase"] for e in events if e.kind == "final_chapter"] == ["lava"]
    for _ in range(7):
        end_round(s)
    assert not s.is_over and s.state_json()["countdown"]["rounds_left"] == 5
    assert s.state_json()["countdown"]["kind"] == "rounds"


def test_scenario_6_killing_the_legendary_loses_and_taming_wins() -> None:
    s = coop(("A", "B"), scenario=6)
    s.do({"type": "dragon_defeated", "dragon": "legendary", "players": ["A"]})
    assert s.is_over and s.state_json()["ending"]["won"] is False
    t = coop(("A", "B"), scenario=6)
    t.do({"type": "tamed"})
    assert t.is_over and t.state_json()["ending"]["won"] is True


def test_scenario_7_three_hostile_samurai_then_the_secret_exit_with_three_magical_gear() -> None:
    s = coop(("Solo",), scenario=7)
    for gear in ("helmet", "weapon"):
        s.do({"type": "magical_gear", "gear": gear})
    for _ in range(3):
        s.do({"type": "hostile_defeated"})
    with pytest.raises(CommandError, match="already defeated"):
        s.do({"type": "hostile_defeated"})
    s.do({"type": "escape", "via": "secret_exit", "tokens": {"sandals": 1}})
    assert s.is_over and s.state_json()["ending"]["won"] is True


def test_scenario_5_no_escape_while_a_visible_dragon_lives() -> None:
    s = coop(("A", "B"), scenario=5)
    s.do({"type": "dragon_revealed", "dragon": "blue_1"})
    with pytest.raises(CommandError, match="visible dragon"):
        s.do({"type": "escape", "via": "secret_exit"})
    s.do({"type": "dragon_defeated", "dragon": "blue_1", "players": ["A"]})
    s.do({"type": "escape", "via": "secret_exit"})
