"""The final chapter exactly as EN p.13, the countdown scenarios of Appendix B, escapes and the end."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack, load
from games.fujikoro.rules import FujiKoro


def session(players: tuple[str, ...] = ("A", "B", "C", "D"), pack: Any = None, **config: Any) -> Session[Any]:
    return Session(FujiKoro(pack or default_pack()), {"players": list(players), **config}, new_seed=lambda: 7)


def kinds(applied: Any) -> list[str]:
    return [str(e.kind) for e in applied.events]


def test_full_final_chapter_triggered_on_the_third_players_turn() -> None:
    pack = default_pack()
    s = session()
    s.do({"type": "vp", "player": "C", "points": 25, "reason": "dragons"})
    s.do({"type": "end_turn"})  # A
    s.do({"type": "end_turn"})  # B
    assert s.state_json()["current_player"] == "C"
    trigger = s.do({"type": "action", "action": "explore", "level": 3})  # C explores: 27
    assert "final_chapter" not in kinds(trigger)
    trigger = s.do({"type": "scroll"})  # C: 30 -> the final chapter
    final = [e for e in trigger.events if e.kind == "final_chapter"]
    assert final and final[0].payload == {"player": "C", "threshold": 30, "phase": "end"}
    assert final[0].state_id == s.state_id
    state = s.state_json()
    assert state["phase"] == "final" and state["countdown"]["active"] and state["countdown"]["position"] == 0
    assert state["countdown"]["marker_after"] == "C"

    seen: list[dict[str, Any]] = []
    turns_of_c = 0
    for _ in range(8 * 4 + 4):
        ending_player = s.state_json()["current_player"]
        applied = s.do({"type": "end_turn"})
        advanced = [dict(e.payload) for e in applied.events if e.kind == "countdown_advanced"]
        if ending_player == "C":
            turns_of_c += 1
            assert len(advanced) == 1, "each time C ends a turn the countdown advances"
            space = pack.countdown[turns_of_c - 1]
            assert advanced[0] == {"position": turns_of_c, "event": space.event.value, "lava": list(space.lava)}
            assert ("rope_appeared" in kinds(applied)) == (space.event.value == "rope")
            seen.append(advanced[0])
        else:
            assert advanced == [], f"{ending_player} ending a turn does not move the countdown"
        if s.is_over:
            break
    assert turns_of_c == 8 and [e["position"] for e in seen] == list(range(1, 9))
    assert seen[-1]["event"] == "end"
    state = s.state_json()
    assert state["phase"] == "ended"
    assert state["ending"]["ranking"][0] == {"player": "C", "vp": 30, "rank": 1}
    assert s.game.result(s.state) is not None
    with pytest.raises(CommandError, match="ended"):
        s.do({"type": "end_turn"})


def test_countdown_events_come_from_the_data_pack() -> None:
    spaces = [{"event": "rope"}, {"event": "nothing"}, {"event": "lava", "lava": [9, 8]}] + [{"event": "nothing"}] * 4
    pack = load({"countdown.competitive.spaces": [*spaces, {"event": "end"}]})
    s = session(("A", "B"), pack=pack)
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "correction: test"})
    first = s.do({"type": "end_turn"})
    assert [dict(e.payload) for e in first.events if e.kind == "countdown_advanced"] == [
        {"position": 1, "event": "rope", "lava": []}
    ]
    assert "rope_appeared" in kinds(first)
    s.do({"type": "end_turn"})  # B
    s.do({"type": "end_turn"})  # A: nothing
    s.do({"type": "end_turn"})  # B
    third = s.do({"type": "end_turn"})
    assert [dict(e.payload) for e in third.events if e.kind == "countdown_advanced"] == [
        {"position": 3, "event": "lava", "lava": [9, 8]}
    ]


def test_a_trigger_off_turn_puts_the_marker_after_the_player_who_reached_the_threshold() -> None:
    s = session(("A", "B", "C"))
    s.do({"type": "end_turn"})  # B to play
    s.do({"type": "dragon_defeated", "dragon": "red_1", "players": ["B", "A"]})
    s.do({"type": "vp", "player": "A", "points": 20, "reason": "dragons"})  # A reaches 32 in B's turn
    assert s.state_json()["countdown"]["marker_after"] == "A"
    assert not [e for e in s.do({"type": "end_turn"}).events if e.kind == "countdown_advanced"]  # B
    assert not [e for e in s.do({"type": "end_turn"}).events if e.kind == "countdown_advanced"]  # C
    assert [e for e in s.do({"type": "end_turn"}).events if e.kind == "countdown_advanced"]  # A


def play_until_rope(s: Session[Any], trigger: str = "A") -> None:
    s.do({"type": "vp", "player": trigger, "points": 30, "reason": "test setup"})
    while not s.state_json()["countdown"]["rope"]:
        s.do({"type": "end_turn"})


def test_escape_by_rope_needs_the_rope_and_shogun_bonuses_descend_one_per_turn() -> None:
    pack = default_pack()
    s = session(("A", "B", "C"))
    with pytest.raises(CommandError, match="Rope Tile is not"):
        s.do({"type": "escape", "via": "rope"})
    play_until_rope(s)
    first = s.state_json()["current_player"]
    s.do({"type": "escape", "via": "rope", "tokens": {"helmet": 1, "monks": 3, "teeth": 2}})
    s.do({"type": "shogun_bonus", "track": "monks"})
    with pytest.raises(CommandError, match="one Shogun bonus per turn"):
        s.do({"type": "shogun_bonus", "track": "teeth"})
    with pytest.raises(CommandError, match="performs no more actions"):
        s.do({"type": "action", "action": "move"})
    s.do({"type": "end_turn"})
    second = s.state_json()["current_player"]
    s.do({"type": "escape", "via": "rope", "tokens": {"monks": 1}})
    s.do({"type": "shogun_bonus", "track": "monks"})
    monks = pack.shogun.palace["monks"]
    scores = s.state_json()["scores"]
    assert scores[second] - (30 if second == "A" else 0) == monks[1]
    assert scores[first] - (30 if first == "A" else 0) == monks[0]
    s.do({"type": "end_turn"})
    while s.state_json()["current_player"] != second:
        s.do({"type": "end_turn"})
    with pytest.raises(CommandError, match="no monks token left"):
        s.do({"type": "shogun_bonus", "track": "monks"})


def test_at_the_end_rope_escapees_score_their_remaining_tokens_at_the_minimum_and_secret_exit_ones_do_not() -> None:
    pack = default_pack()
    s = session(("A", "B"))
    s.do({"type": "escape", "via": "secret_exit", "tokens": {"weapon": 1, "monks": 2, "teeth": 4}})  # A
    with pytest.raises(CommandError, match="no VP for teeth"):
        s.do({"type": "shogun_bonus", "track": "teeth"})
    s.do({"type": "shogun_bonus", "track": "weapon"})
    assert s.state_json()["scores"]["A"] == pack.shogun.foot["blueprints"][0]
    s.do({"type": "end_turn"})
    s.do({"type": "vp", "player": "B", "points": 30, "reason": "test setup"})
    while not s.state_json()["countdown"]["rope"]:
        s.do({"type": "end_turn"})
    if s.state_json()["current_player"] != "B":
        s.do({"type": "end_turn"})
    s.do({"type": "escape", "via": "rope", "tokens": {"sandals": 1, "monks": 2, "teeth": 3}})
    before = s.state_json()["scores"]
    while not s.is_over:
        s.do({"type": "end_turn"})
    after = s.state_json()["scores"]
    palace = pack.shogun.palace
    assert after["B"] - before["B"] == palace["sandals"][-1] + 2 * palace["monks"][-1] + 3 * palace["teeth"][-1]
    assert after["A"] == before["A"], "the secret exit gives no end scoring for leftover tokens"


def test_foot_of_the_mountain_blueprint_spots_run_out() -> None:
    s = session(("A", "B", "C", "D"))
    for _ in range(3):
        s.do({"type": "escape", "via": "secret_exit", "tokens": {"helmet": 1}})
        s.do({"type": "shogun_bonus", "track": "helmet"})
        s.do({"type": "end_turn"})
    s.do({"type": "escape", "via": "secret_exit", "tokens": {"helmet": 1}})
    with pytest.raises(CommandError, match="all 3 spots"):
        s.do({"type": "shogun_bonus", "track": "helmet"})


def test_ranking_tie_goes_to_who_escaped_first() -> None:
    s = session(("A", "B", "C"))
    s.do({"type": "vp", "player": "C", "points": 12, "reason": "dragons"})
    s.do({"type": "vp", "player": "B", "points": 12, "reason": "dragons"})
    s.do({"type": "end_turn"})
    s.do({"type": "escape", "via": "secret_exit"})  # B escapes first
    s.do({"type": "end_turn"})
    s.do({"type": "escape", "via": "secret_exit"})  # C
    s.do({"type": "end_game", "reason": "test"})
    ranking = s.state_json()["ending"]["ranking"]
    assert ranking == [
        {"player": "B", "vp": 12, "rank": 1},
        {"player": "C", "vp": 12, "rank": 2},
        {"player": "A", "vp": 0, "rank": 3},
    ]
    result = s.game.result(s.state)
    assert result is not None and [p.winner for p in result.players] == [False, True, False]


def test_a_tie_without_escapes_is_shared() -> None:
    s = session(("A", "B"))
    s.do({"type": "vp", "player": "A", "points": 5, "reason": "scroll"})
    s.do({"type": "vp", "player": "B", "points": 5, "reason": "scroll"})
    s.do({"type": "end_game", "reason": "test"})
    assert [r["rank"] for r in s.state_json()["ending"]["ranking"]] == [1, 1]


def test_scenario_1_threshold_20_status_tokens_worth_5_and_no_secret_exit() -> None:
    s = session(("A", "B"), scenario=1)
    with pytest.raises(CommandError, match="Secret Exit"):
        s.do({"type": "escape", "via": "secret_exit"})
    with pytest.raises(CommandError, match="cannot be joined"):
        s.do({"type": "dragon_defeated", "dragon": "blue_1", "players": ["A", "B"]})
    s.do({"type": "status_tokens", "player": "B", "delta": 3})
    applied = s.do({"type": "vp", "player": "A", "points": 20, "reason": "dragons"})
    assert [dict(e.payload) for e in applied.events if e.kind == "final_chapter"] == [
        {"player": "A", "threshold": 20, "phase": "end"}
    ]
    while not s.is_over:
        s.do({"type": "end_turn"})
    state = s.state_json()
    assert state["scores"]["B"] == 15 and state["players"][1]["categories"]["scenario"] == 15


def test_scenario_2_trophies_score_per_colour_and_the_best_sets() -> None:
    s = session(("A", "B"), scenario=2)
    with pytest.raises(CommandError, match="final blow"):
        s.do({"type": "dragon_defeated", "dragon": "blue_1", "players": ["A", "B"]})
    for dragon in ("blue_1", "blue_2", "blue_3", "green_1"):
        s.do({"type": "dragon_defeated", "dragon": dragon, "players": ["A"]})
    s.do({"type": "dragon_defeated", "dragon": "red_1", "players": ["A", "B"], "final_blow": "B"})
    before = s.state_json()["scores"]
    s.do({"type": "end_game", "reason": "test"})
    after = s.state_json()["scores"]
    # A: 3 blue (3 x 2) + 1 green (3) + a set of 3 blue (+7) = 16; B: one red (5).
    assert after["A"] - before["A"] == 16 and after["B"] - before["B"] == 5
    game = s.game
    assert isinstance(game, FujiKoro)
    extras = default_pack().scenarios[2].extras
    assert game.trophy_points(("blue_1", "green_1", "red_1"), extras) == 2 + 3 + 5 + 10
    # 3 blue, 2 green, 1 red: 6 + 6 + 5, and one set of 3 different (+10) beats 3 alike (+7).
    assert game.trophy_points(("blue_1", "blue_2", "blue_3", "green_1", "green_2", "red_1"), extras) == 27
    # Appendix B does not say whether a dragon may be in a set of each kind (rules.scenario_2_sets, assumed):
    # read so, the 3 blue are a set alike and, with a green and the red, also in a set of 3 different.
    from games.fujikoro.pack import apply_overrides, parse, shipped_raw
    from games.fujikoro.rules import FujiKoro as Game

    both = Game(parse(apply_overrides(shipped_raw(), {"rules.scenario_2_sets": "one_of_each_kind"})))
    assert both.trophy_points(("blue_1", "blue_2", "blue_3", "green_1", "green_2", "red_1"), extras) == 17 + 7 + 10
    assert both.trophy_points(("blue_1", "blue_2", "blue_3", "green_1", "red_1"), extras) == 14 + 7 + 10


def test_scenario_3_lava_phase_at_10_then_the_end_phase_at_30() -> None:
    pack = default_pack()
    s = session(("A", "B"), scenario=3)
    applied = s.do({"type": "vp", "player": "B", "points": 10, "reason": "dragons"})
    assert [dict(e.payload) for e in applied.events if e.kind == "final_chapter"] == [
        {"player": "B", "threshold": 10, "phase": "lava"}
    ]
    assert s.state_json()["phase"] == "playing" and s.state_json()["countdown"]["kind"] == "lava_phase"
    events: list[dict[str, Any]] = []
    while s.state_json()["countdown"]["kind"] == "lava_phase":
        applied = s.do({"type": "end_turn"})
        events += [dict(e.payload) for e in applied.events if e.kind == "countdown_advanced"]
        assert "rope_appeared" not in kinds(applied), "the rope does not appear in the lava phase"
    assert [e["position"] for e in events] == list(range(1, 9)) and all(e["lava_phase"] for e in events)
    assert not s.is_over and s.state_json()["countdown"] == {
        **s.state_json()["countdown"],
        "active": False,
        "kind": "idle",
    }
    s.do({"type": "vp", "player": "B", "points": 10, "reason": "dragons"})  # 20: no second lava phase
    assert s.state_json()["countdown"]["kind"] == "idle"
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "dragons"})
    assert s.state_json()["countdown"]["kind"] == "end_phase"
    ended = 0
    while not s.is_over:
        applied = s.do({"type": "end_turn"})
        ended += len([e for e in applied.events if e.kind == "countdown_advanced"])
    assert ended == len(pack.countdown) == 8


def test_scenario_3_an_unfinished_lava_phase_restarts_the_token_for_the_end_phase() -> None:
    s = session(("A", "B"), scenario=3)
    s.do({"type": "vp", "player": "A", "points": 10, "reason": "dragons"})
    s.do({"type": "end_turn"})  # A: space 1
    s.do({"type": "end_turn"})
    s.do({"type": "end_turn"})  # A: space 2
    assert s.state_json()["countdown"]["position"] == 2
    s.do({"type": "vp", "player": "B", "points": 30, "reason": "dragons"})
    countdown = s.state_json()["countdown"]
    assert countdown["kind"] == "end_phase" and countdown["position"] == 0 and countdown["marker_after"] == "B"


def test_scenario_4_a_monk_defeat_costs_5_vp() -> None:
    s = session(("A", "B"), scenario=4)
    s.do({"type": "vp", "player": "A", "points": 6, "reason": "scrolls"})
    s.do({"type": "monk_defeat", "player": "A"})
    assert s.state_json()["scores"]["A"] == 1
    other = session(("A", "B"))
    with pytest.raises(CommandError, match="scenario 4"):
        other.do({"type": "monk_defeat", "player": "A"})


def test_scenario_8_ronin_end_phase_at_20_and_win_at_50_by_the_rope() -> None:
    s = session(("Solo",), mode="coop", scenario=8)
    applied = s.do({"type": "vp", "points": 20, "reason": "dragons"})
    assert [dict(e.payload) for e in applied.events if e.kind == "final_chapter"] == [
        {"player": "Solo", "threshold": 20, "phase": "end"}
    ]
    s.do({"type": "vp", "points": 26, "reason": "dragons"})
    while not s.state_json()["countdown"]["rope"]:
        s.do({"type": "end_turn"})
    s.do({"type": "escape", "via": "rope", "tokens": {"helmet": 1, "monks": 1}})
    s.do({"type": "shogun_bonus", "track": "helmet"})
    while not s.is_over:
        s.do({"type": "end_turn"})
    state = s.state_json()
    assert state["scores"]["Solo"] >= 50 and state["ending"]["won"] is True


def test_state_lists_the_lava_that_has_erupted() -> None:
    from companion.engine import Session
    from games.fujikoro.pack import CountdownEvent, default_pack
    from games.fujikoro.rules import FujiKoro

    pack = default_pack()
    session = Session(FujiKoro(pack), {"players": ["A", "B"]})
    session.do({"type": "vp", "player": "A", "points": 30, "reason": "correction", "note": "test"})
    expected: set[int] = set()
    for space in pack.countdown[:-1]:
        session.do({"type": "end_turn"})  # A's turn ends: the countdown advances
        if space.event is CountdownEvent.LAVA:
            expected |= set(space.lava)
        assert session.state_json()["countdown"]["lava"] == sorted(expected)
        session.do({"type": "end_turn"})  # B's turn
