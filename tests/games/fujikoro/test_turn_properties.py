"""Property: no sequence of commands breaks the turn (rules version 2).

Whatever the table taps, in any order: nobody takes more than the 2 actions of a turn (EN p.4),
nobody acts after escaping (EN p.13), nobody acts, joins a fight or is attacked while unconscious
(EN p.11, p.12). Refused commands change nothing; accepted ones are checked against the state before.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import RULES_VERSION, FujiKoro, State

PACK = default_pack()
PLAYERS = ("A", "B", "C")
WEAK = {"helmet": ["W"], "weapon_left": ["WW"]}
STRONG = {"helmet": ["TTT", "TTT"], "weapon_left": ["WWMMM"]}

name = st.sampled_from(PLAYERS)
gear = st.sampled_from([WEAK, STRONG])
COMMANDS = st.one_of(
    st.builds(lambda a: {"type": "action", "action": a}, st.sampled_from(["move", "explore", "gather", "rest"])),
    st.builds(lambda a, p: {"type": "action", "action": a, "player": p}, st.sampled_from(["move", "rest"]), name),
    st.just({"type": "end_turn"}),
    st.just({"type": "end_turn"}),
    st.builds(lambda p: {"type": "scroll", "player": p}, name),
    st.just({"type": "gear_card_vp"}),
    st.builds(
        lambda v: {"type": "escape", "via": v, "tokens": {"helmet": 1}}, st.sampled_from(["rope", "secret_exit"])
    ),
    st.builds(lambda p: {"type": "magical_gear", "player": p, "gear": "helmet"}, name),
    st.just({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"}),
    st.builds(
        lambda who, g, h: {"type": "fight_start", "dragon": {"health": h, "initiative": 5, "dice": 1},
                           "samurai": [{"player": p, "gear": g} for p in who]},
        st.lists(name, min_size=1, max_size=3, unique=True),
        gear,
        st.integers(1, 4),
    ),
    st.builds(
        lambda d, ga, gd: {"type": "samurai_fight_start", "attacker": {"player": "?", "gear": ga},
                           "defender": {"player": d, "gear": gd}},
        name, gear, gear,
    ),
    st.just({"type": "fight_roll"}),
    st.just({"type": "fight_roll"}),
    st.just({"type": "fight_roll"}),
    st.builds(lambda p: {"type": "fight_retreat", "player": p}, name),
    st.just({"type": "fight_cancel", "reason": "test"}),
)

ACTING = {"action", "explore", "scroll", "gear_card_vp", "magical_gear"}


def actor(state: State, command: dict[str, Any]) -> str:
    return str(command.get("player", state.players[state.current].name))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(COMMANDS, min_size=1, max_size=80), st.sampled_from(["competitive", "coop"]))
def test_no_sequence_of_commands_breaks_the_turn(commands: list[dict[str, Any]], mode: str) -> None:
    seeds = iter(range(10**6))
    s = Session(FujiKoro(PACK), {"players": list(PLAYERS), "mode": mode, "rules": RULES_VERSION},
                new_seed=lambda: next(seeds))
    actions_this_turn = 0
    for command in commands:
        if s.is_over:
            break
        before = s.state
        if command["type"] == "samurai_fight_start":
            command = {**command, "attacker": {**command["attacker"], "player": before.players[before.current].name}}
        try:
            s.do(command)
        except CommandError:
            assert s.state is before
            continue
        after = s.state
        players = {p.name: p for p in before.players}
        kind = command["type"]
        if kind == "end_turn":
            actions_this_turn = 0
            continue
        who = actor(before, command)
        if kind in ACTING:
            assert players[who].escaped is None, f"{who} acted after escaping: {command}"
            if kind != "magical_gear":  # recording what the gear is (magic lost in a fight) is not an action
                assert not players[who].unconscious, f"{who} acted while unconscious: {command}"
        if kind in ("fight_start", "samurai_fight_start"):
            names = [f["player"] for f in command.get("samurai", [])] or [
                command["attacker"]["player"], command["defender"]["player"]]
            for n in names:
                assert not players[n].unconscious, f"{n} fought while unconscious: {command}"
                assert players[n].escaped is None, f"{n} fought after escaping: {command}"
        actions_this_turn += len(after.actions) - len(before.actions) if after.turn == before.turn else 0
        assert actions_this_turn <= 2, f"more than two actions in a turn: {after.actions}"
        assert len(after.actions) <= 2
