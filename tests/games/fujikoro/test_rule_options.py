"""Rule options: where the rulebooks are unclear, the pack's ``[rules]`` section holds the reading (assumed).

Each option is shipped with the default described in the pack and can be corrected like any value.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Session
from games.fujikoro.pack import apply_overrides, default_pack, iter_leaves, parse, shipped_raw
from games.fujikoro.rules import RULES_VERSION, FujiKoro


def pack_with(**overrides: Any) -> Any:
    return parse(apply_overrides(shipped_raw(), {f"rules.{k}": v for k, v in overrides.items()}))


def test_every_rule_option_is_marked_assumed_with_its_source() -> None:
    leaves = {k: v for k, v in iter_leaves(default_pack().raw) if k.startswith("rules.")}
    assert set(leaves) == {"rules.coop_health_3_to_6", "rules.scenario_3_back_to", "rules.ronin_round_track",
                           "rules.escape_when_rope_appears", "rules.scenario_2_sets"}
    assert all(v["status"] == "assumed" and v["source"] for v in leaves.values())


def test_coop_health_for_3_to_6_players_is_the_solo_value_by_default_p11_or_the_2p_or_standard_value() -> None:
    # EN p.11, Fighting the Dragon: "(In the co-op version, use the Health for the solo game.)" (the shipped
    # reading was the standard Health until 2026-12-01).
    red, legendary = default_pack().dragons["red_1"], default_pack().dragons["legendary"]
    assert default_pack().dragon_health(red, mode="coop", players=4) == red.health_solo == 18
    assert default_pack().dragon_health(legendary, mode="coop", players=6) == legendary.health_solo == 25
    assert pack_with(coop_health_3_to_6="standard").dragon_health(red, mode="coop", players=4) == red.health
    assert pack_with(coop_health_3_to_6="two_player").dragon_health(red, mode="coop", players=4) == red.health_2p
    assert pack_with(coop_health_3_to_6="solo").dragon_health(red, mode="coop", players=4) == red.health_solo
    # The rulebook's own cases do not change: solo and 2 players (EN p.15).
    assert pack_with(coop_health_3_to_6="solo").dragon_health(red, mode="coop", players=2) == red.health_2p


def test_the_ronin_round_track_runs_only_when_the_option_says_so_appendix_b_scenario_8() -> None:
    config = {"players": ["R"], "mode": "coop", "scenario": 8, "rules": RULES_VERSION}
    assert Session(FujiKoro(default_pack()), config).state_json()["countdown"]["kind"] == "idle"
    on = Session(FujiKoro(pack_with(ronin_round_track=True)), config).state_json()["countdown"]
    assert on["kind"] == "rounds" and on["rounds_left"] == 25


def _turn(s: Session[Any]) -> list[Any]:
    p = s.state.players[s.state.current]
    for action in (("rest", "move") if p.discs_used >= 3 else ("move", "rest")):
        s.do({"type": "action", "action": action})
    return list(s.do({"type": "end_turn"}).events)


def test_scenario_3_back_to_start_or_onto_space_1_when_the_end_phase_cuts_the_lava_phase_short() -> None:
    for back_to, expected in ((0, 0), (1, 1)):
        s = Session(FujiKoro(pack_with(scenario_3_back_to=back_to)),
                    {"players": ["A", "B"], "scenario": 3, "rules": RULES_VERSION})
        s.do({"type": "vp", "player": "A", "points": 10, "reason": "test: the Lava Phase"})
        _turn(s)
        _turn(s)
        assert s.state.countdown.kind.value == "lava_phase" and s.state.countdown.position == 1
        s.do({"type": "vp", "player": "A", "points": 20, "reason": "test: the End Phase"})
        assert s.state.countdown.kind.value == "end_phase" and s.state.countdown.position == expected


def test_escape_when_the_rope_appears_asks_who_stands_on_the_central_tile_de_rulebook() -> None:
    for option, asked in ((False, False), (True, True)):
        s = Session(FujiKoro(pack_with(escape_when_rope_appears=option)), {"players": ["A", "B"], "rules": 2})
        s.do({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"})
        kinds: list[str] = []
        while not s.state.countdown.rope:
            kinds += [e.kind for e in _turn(s)]
        assert ("ask_rope" in kinds) is asked
