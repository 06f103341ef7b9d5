"""Fights as session commands: example 2 through the log, undo across hand and app rolls, replay, coop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import CommandError, Session, UndoBarrierError
from companion.events import Kind
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import GAME_NAME, FujiKoro, game_from_pack_raw

PACK = default_pack()

TAKEKO = {"helmet": ["MMMM"], "weapon_left": ["WWWMM"], "weapon_right": ["MMM"]}
MITSUHIDE = {"monks": ["weapon", "action"], "helmet": ["MMW", "MW.", "W.."], "magic": ["helmet"],
             "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]}
EXAMPLE_PLAYERS = [{"name": "Takeko", "board": "takeko"}, {"name": "Masatsura", "board": "masatsura"},
                   {"name": "Mitsuhide", "board": "mitsuhide"}]


def session(players: list[Any], **config: Any) -> Session[Any]:
    seeds = iter(range(7000, 10**6))
    return Session(FujiKoro(PACK), {"players": players, **config}, new_seed=lambda: next(seeds))


def example_start() -> dict[str, Any]:
    # Listed joiner first on purpose: the attacker is whoever's turn it is, joiners follow from their left.
    return {"type": "fight_start", "dragon": "green_1", "samurai": [
        {"player": "Mitsuhide", "gear": MITSUHIDE, "heroic_monk": "wood", "monk_from": "action",
         "blueprints": {"helmet": ["MW", "W."]}},
        {"player": "Takeko", "gear": TAKEKO}]}


EXAMPLE_ROLLS: list[dict[str, Any]] = [
    {"type": "fight_roll", "dice": [["wood", 0]]},
    {"type": "fight_roll", "dice": [["wood", 1], ["wood", 0], ["wood", 0], ["metal", 0], ["metal", 0],
                                    ["metal", 1], ["metal", 1], ["tooth", "0b"]]},
    {"type": "fight_roll", "dice": [3, 3, "0b"]},  # the dragon: bare faces are its white dice
    {"type": "fight_roll", "dice": [["wood", "0b"], ["wood", "0b"], ["wood", 1], ["metal", "0b"], ["metal", 2],
                                    ["metal", 2], ["metal", 2], ["metal", 1]]},
    {"type": "fight_roll", "weapons": [{"hand": "left", "dice": [["metal", 2], ["metal", 2]]}]},
]


def health_events(events: Any) -> list[dict[str, Any]]:
    return [dict(e.payload) for e in events if e.kind == Kind.DRAGON_HEALTH]


def test_combat_example_2_through_session_commands_ends_with_7_vp_each() -> None:
    s = session(EXAMPLE_PLAYERS)
    before = dict(s.state_json()["scores"])  # Mitsuhide starts with a scroll and its 3 VP
    applied = s.do(example_start())
    assert applied.record.description == "Takeko and Mitsuhide fight green_1 (health 12)"
    assert health_events(applied.events) == [{"dragon": "green_1", "health": 12, "max": 12}]
    combat = s.state_json()["combat"]
    assert combat["order"] == ["Mitsuhide", "dragon", "Takeko"]
    assert [f["name"] for f in combat["fighters"]] == ["Takeko", "Mitsuhide"]
    assert combat["whose_turn"] == "monk:Mitsuhide"

    descriptions, healths = [], []
    for command in EXAMPLE_ROLLS:
        applied = s.do(command)
        descriptions.append(applied.record.description)
        healths.append([e["health"] for e in health_events(applied.events)])
        assert not applied.record.automated
    assert descriptions == [
        "Mitsuhide's heroic monk throws wood: 1 die: 0 = 0 hits",
        "Mitsuhide rolls 8 dice: 1, 0, 0, 0, 0, 1, 1, 0★ = 3 hits",
        "Dragon rolls 3 dice: 3, 3, 0★ = 6 hits",
        "Takeko rolls 8 dice: 0★, 0★, 1, 0★, 2, 2, 2, 1 = 8 hits",
        "Mitsuhide rolls 2 dice: 2, 2 = 4 hits (with it: green_1 is defeated; Takeko +7 VP; Mitsuhide +7 VP)",
    ]
    assert healths == [[], [9], [], [1], [0]]  # an event after every change of the health, none otherwise

    state = s.state
    fight = state.combat.fight
    m, t = fight.fighter("Mitsuhide"), fight.fighter("Takeko")
    assert "".join(m.gear.helmet).count("M") == 2 and "helmet" in m.gear.magic  # magic back after the fight
    assert "".join(t.gear.helmet).count("M") == 1
    out = s.state_json()
    players = {p["name"]: p for p in out["players"]}
    assert {n: players[n]["categories"]["dragons"] for n in ("Takeko", "Mitsuhide", "Masatsura")} == {
        "Takeko": 7, "Mitsuhide": 7, "Masatsura": 0}
    assert {n: out["scores"][n] - before[n] for n in before} == {"Takeko": 7, "Mitsuhide": 7, "Masatsura": 0}
    assert (players["Takeko"]["teeth"], players["Mitsuhide"]["teeth"]) == (2, 2)  # one broken off, one reward
    assert out["dragons"]["green_1"] == "defeated"
    assert out["fight"] is None
    assert out["combat"]["outcome"] == "dragon_defeated" and out["combat"]["active"] is False
    assert out["combat"]["attacker_may_continue"] is True
    assert out["combat"]["final_blow"] == "Mitsuhide"
    # The fight is over: the turn goes on.
    s.do({"type": "end_turn"})


def test_undo_crosses_hand_rolls_but_not_app_rolls_without_force() -> None:
    s = session(EXAMPLE_PLAYERS)
    s.do(example_start())
    s.do(EXAMPLE_ROLLS[0])
    s.do(EXAMPLE_ROLLS[1])
    # A typo in hand-entered dice stays undoable.
    assert s.undo_description() == "Mitsuhide rolls 8 dice: 1, 0, 0, 0, 0, 1, 1, 0★ = 3 hits"
    assert s.undo().record.description.startswith("Undo: Mitsuhide rolls 8 dice")
    assert s.state.combat.fight.health == 12
    s.redo()
    assert s.state.combat.fight.health == 9
    applied = s.do({"type": "fight_roll"})  # the app rolls for the dragon
    assert applied.record.automated and isinstance(applied.record.command["seed"], int)
    assert applied.record.command["who"] == "dragon"
    assert applied.record.description.startswith("Dragon rolls 3 dice: ")
    after_roll = s.state
    assert s.undo_blocked()
    with pytest.raises(UndoBarrierError, match="Dragon rolls 3 dice"):
        s.undo()
    assert s.state is after_roll
    s.undo(force=True)
    assert s.state.combat.fight.whose_turn() == "dragon"
    s.redo()
    assert s.state == after_roll  # the seed in the log rolls the same faces again


def test_a_whole_fight_of_app_rolls_replays_exactly(tmp_path: Path) -> None:
    from store.gamelog import Header
    from store.sessions import new_session, open_session

    config = {"players": EXAMPLE_PLAYERS}
    header = Header(GAME_NAME, PACK.version, config, {"pack": PACK.raw})
    factories = {GAME_NAME: lambda h: game_from_pack_raw(h.data.get("pack"))}
    seeds = iter(range(31, 10**6))
    file, s = new_session(tmp_path / "g.fujikoro-game", header, factories, new_seed=lambda: next(seeds))
    with file:
        s.do(example_start())
        s.do({"type": "fight_roll"})
        s.do(EXAMPLE_ROLLS[1])
        s.undo()
        s.do({"type": "fight_roll"})
        steps = 0
        while s.state.combat.is_active and steps < 60:
            s.do({"type": "fight_roll"})
            steps += 1
        assert not s.state.combat.is_active
        final = s.state
        final_json = s.state_json()
    replayed = Session.replay(FujiKoro(PACK), config, s.records)
    assert replayed.state == final
    file, reopened = open_session(tmp_path / "g.fujikoro-game", factories)
    with file:
        assert reopened.state == final
        assert reopened.state_json() == final_json
        assert [r.description for r in reopened.records] == [r.description for r in s.records]


def test_the_player_chooses_their_own_helmet_removal_after_the_app_rolled() -> None:
    s = session(EXAMPLE_PLAYERS)
    s.do(example_start())
    s.do(EXAMPLE_ROLLS[0])
    s.do(EXAMPLE_ROLLS[1])
    s.do({"type": "fight_roll", "dice": [3, 3, "0b"]})
    assert s.state_json()["combat"]["helmet_choice_open"] is True
    # A removal that absorbs more than needed is refused; Mitsuhide keeps his magic and gives 3 metal instead.
    with pytest.raises(CommandError, match="does not absorb exactly"):
        s.do({"type": "fight_helmet", "player": "Takeko", "cells": [[0, 0]]})
    applied = s.do({"type": "fight_helmet", "player": "Mitsuhide", "cells": [[0, 0], [0, 1], [1, 0]]})
    assert applied.record.description == "Mitsuhide chooses the helmet removal: remove 3 metal"
    m = s.state.combat.fight.fighter("Mitsuhide")
    assert m.gear.helmet[0].startswith("..") and not m.magic_used
    # Once the next samurai rolls, the removal is final.
    s.do(EXAMPLE_ROLLS[3])
    with pytest.raises(CommandError, match="right after the dragon's roll"):
        s.do({"type": "fight_helmet", "player": "Mitsuhide", "cells": [[0, 0]]})


def test_fight_rejections_leave_the_state_untouched() -> None:
    s = session(EXAMPLE_PLAYERS)
    with pytest.raises(CommandError, match="no fight is being played"):
        s.do({"type": "fight_roll"})
    with pytest.raises(CommandError, match="the attacker is the player whose turn it is"):
        s.do({**example_start(), "samurai": [{"player": "Mitsuhide", "gear": MITSUHIDE}]})
    with pytest.raises(CommandError, match="gear is on the symmetric board"):
        s.do({**example_start(), "samurai": [{"player": "Takeko", "gear": {**TAKEKO, "board": "symmetric"}}]})
    with pytest.raises(CommandError, match="unknown dragon figure"):
        s.do({**example_start(), "dragon": "purple_9"})
    s.do(example_start())
    state = s.state
    with pytest.raises(CommandError, match="a fight is being played"):
        s.do({"type": "end_turn"})
    with pytest.raises(CommandError, match="this roll is for Takeko, but monk:Mitsuhide rolls next"):
        s.do({"type": "fight_roll", "who": "Takeko", "dice": [["wood", 1]]})
    with pytest.raises(CommandError, match="exactly one wood die"):
        s.do({"type": "fight_roll", "dice": [["metal", 1]]})
    with pytest.raises(CommandError, match="a wood die has no face 3"):
        s.do({"type": "fight_roll", "dice": [["wood", 3]]})
    with pytest.raises(CommandError, match="only right after"):
        s.do({"type": "fight_retreat", "player": "Takeko"})
    with pytest.raises(CommandError, match="helmet removals are chosen when the dragon rolls"):
        s.do({"type": "fight_roll", "dice": [["wood", 1]], "removals": {"Takeko": [[0, 0]]}})
    s.do(EXAMPLE_ROLLS[0])
    s.do(EXAMPLE_ROLLS[1])
    with pytest.raises(CommandError, match="Masatsura is not in the fight"):
        s.do({"type": "fight_roll", "dice": [3, 3, "0b"], "removals": {"Masatsura": [[0, 0]]}})
    s.undo()
    s.undo()
    assert s.state is state
    s.do({"type": "fight_cancel", "reason": "we misread the tile"})
    assert s.state_json()["fight"] is None
    s.do({"type": "end_turn"})


def test_retreat_ends_a_lone_fight_and_the_dragon_heals() -> None:
    s = session(EXAMPLE_PLAYERS)
    s.do({"type": "fight_start", "dragon": "green_1", "samurai": [{"player": "Takeko", "gear": TAKEKO}]})
    assert s.state.combat.fight.order == ("dragon", "Takeko")
    s.do({"type": "fight_roll", "dice": [0, 0, 1]})
    assert s.state_json()["fight"] == {"dragon": "green_1", "health": 12}
    s.do({"type": "fight_roll", "dice": [["wood", "0b"], ["wood", "0b"], ["wood", 1]]})
    assert s.state_json()["combat"]["can_retreat"] == ["Takeko"]
    applied = s.do({"type": "fight_retreat", "player": "Takeko"})
    assert applied.record.description == "Takeko retreats from the fight"
    assert health_events(applied.events) == [{"dragon": "green_1", "health": 12, "max": 12}]
    assert [e.payload["outcome"] for e in applied.events if e.kind == "fight_ended"] == ["samurai_lost"]
    out = s.state_json()
    assert out["fight"] is None and out["dragons"].get("green_1") != "defeated" and out["scores"]["Takeko"] == 0


def test_coop_knockout_costs_a_life_and_teeth_go_to_the_group() -> None:
    s = session(["A", "B"], mode="coop")
    weak = {"helmet": ["W"], "weapon_left": ["WW"]}
    strong = {"helmet": ["MMMM"], "weapon_left": ["WWM"]}
    s.do({"type": "fight_start", "dragon": "blue_1", "samurai": [{"player": "A", "gear": weak},
                                                                 {"player": "B", "gear": strong}]})
    assert s.state.combat.fight.health == PACK.dragon_health(PACK.dragons["blue_1"], mode="coop", players=2)
    # Dragon initiative 5 beats both; 2 hits with a broken icon: A is out, B absorbs.
    applied = s.do({"type": "fight_roll", "dice": [2, "0b"]})
    assert [e.payload for e in applied.events if e.kind == "life_lost"] == [
        {"player": "A", "lives": 1, "reason": "knocked out by blue_1"}]
    out = s.state_json()
    assert out["group_teeth"] == 1
    assert {p["name"]: p["lives"] for p in out["players"]} == {"A": 1, "B": 2}
    while s.state.combat.is_active:
        who = s.state.combat.fight.whose_turn()
        s.do({"type": "fight_roll", "dice": [["metal", 2]] if who == "B" else [0, 0]})
    out = s.state_json()
    assert out["combat"]["outcome"] == "dragon_defeated"
    assert out["group_teeth"] == 1 + PACK.colours["blue"].coop_teeth
    assert out["scores"] == {"A": 0, "B": 0}


def test_coop_second_knockout_ends_the_game() -> None:
    s = session(["A"], mode="coop")
    s.do({"type": "life_lost", "player": "A", "reason": "lava"})
    s.do({"type": "fight_start", "dragon": {"name": "typed", "health": 5, "initiative": 9, "dice": 2},
          "samurai": [{"player": "A", "gear": {"helmet": ["W"], "weapon_left": ["WW"]}}]})
    s.do({"type": "fight_roll", "dice": [3, 0]})
    assert s.state_json()["phase"] == "ended"
    assert "lost a second Life" in s.state_json()["ending"]["reason"]


def test_scenario_1_no_joining_and_solo_health() -> None:
    s = session(["A", "B"], scenario=1)
    gear = {"helmet": ["MM"], "weapon_left": ["WWM"]}
    with pytest.raises(CommandError, match="nobody may join"):
        s.do({"type": "fight_start", "dragon": "red_1", "samurai": [{"player": "A", "gear": gear},
                                                                    {"player": "B", "gear": gear}]})
    s.do({"type": "fight_start", "dragon": "red_1", "samurai": [{"player": "A", "gear": gear}]})
    assert s.state.combat.fight.health == PACK.dragons["red_1"].health_solo


def test_scenario_2_the_final_blow_keeps_the_dragon_and_typed_stats_score_too() -> None:
    s = session(["A", "B"], scenario=2)
    a = {"helmet": ["MMMM"], "weapon_left": ["WWM"]}
    b = {"helmet": ["MMMM"], "weapon_left": ["WWMM"]}
    s.do({"type": "fight_start", "dragon": "blue_1", "samurai": [{"player": "A", "gear": a},
                                                                 {"player": "B", "gear": b}]})
    assert s.state.combat.fight.order == ("dragon", "B", "A")  # the longer weapon first, after the dragon
    s.do({"type": "fight_roll", "dice": [0, 0]})
    s.do({"type": "fight_roll", "dice": [["metal", 2], ["metal", 2]]})
    s.do({"type": "fight_roll", "dice": [["metal", 2]]})  # A deals the final blow
    out = s.state_json()
    players = {p["name"]: p for p in out["players"]}
    assert players["A"]["trophies"] == ["blue_1"] and players["B"]["trophies"] == []
    assert out["scores"] == {"A": PACK.colours["blue"].vp, "B": PACK.colours["blue"].vp}
    s.do({"type": "end_turn"})
    typed = {"name": "hatchling", "health": 1, "initiative": 0, "dice": 1, "vp": 2}
    s.do({"type": "fight_start", "dragon": typed, "samurai": [{"player": "B", "gear": b}]})
    s.do({"type": "fight_roll", "dice": [["metal", 1]]})
    assert s.state_json()["scores"]["B"] == PACK.colours["blue"].vp + 2


def test_samurai_combat_surrender_and_steal_a_scroll() -> None:
    s = session(["A", "D"])
    attacker = {"player": "A", "gear": {"helmet": ["MMMM"], "weapon_left": ["WWM"]}}
    defender = {"player": "D", "gear": {"helmet": ["MMMM"], "weapon_left": ["WM"]}}
    applied = s.do({"type": "samurai_fight_start", "attacker": attacker, "defender": defender})
    assert applied.record.description == "A attacks D (samurai combat)"
    with pytest.raises(CommandError, match="only the winner"):
        s.do({"type": "fight_steal", "item": "scroll"})
    s.do({"type": "fight_roll", "dice": [["wood", "0b"], ["wood", 1]]})
    applied = s.do({"type": "fight_surrender", "player": "A"})
    ended = [e.payload for e in applied.events if e.kind == "fight_ended"]
    assert ended[0]["winner"] == "D" and ended[0]["loser_turn_ends"] is True
    applied = s.do({"type": "fight_steal", "item": "scroll"})
    assert applied.record.description == "D steals a scroll from A (with it: D +3 VP)"  # undo names the VP
    assert s.state_json()["scores"] == {"A": 0, "D": PACK.scoring["scroll"]}
    with pytest.raises(CommandError, match="one item per combat"):
        s.do({"type": "fight_steal", "item": "monk"})
    coop = session(["A", "D"], mode="coop")
    with pytest.raises(CommandError, match="cooperative"):
        coop.do({"type": "samurai_fight_start", "attacker": attacker, "defender": defender})
