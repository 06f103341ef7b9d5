"""The turn as the rulebook describes it (rules version 2): every wrong command refused with the rule and page.

English rulebook pages: two actions a turn and the Action Disc pool (p.4), Rest (p.7), Gather and the
Sacred Scroll's VP (p.6), the weapon card's VP bonus (p.8), dragon combat and who continues (p.11),
samurai combat (p.12), escapes (p.13), the cooperative mode (pp.14-15).
"""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import RULES_VERSION, FujiKoro

PACK = default_pack()

# Gear that survives one dragon roll of 3 and deals a little damage.
STRONG = {"helmet": ["TTT", "TTT"], "weapon_left": ["WWMMM"]}
WEAK = {"helmet": ["W"], "weapon_left": ["WW"]}


def game(players: Any = ("A", "B", "C"), **config: Any) -> Session[Any]:
    seeds = iter(range(500, 10**6))
    return Session(
        FujiKoro(PACK), {"players": list(players), "rules": RULES_VERSION, **config}, new_seed=lambda: next(seeds)
    )


def act(s: Session[Any], *actions: str, **extra: Any) -> None:
    for action in actions:
        s.do({"type": "action", "action": action, **extra})


def play_turn(s: Session[Any]) -> None:
    """A plain legal turn for whoever is to play: Move and Rest (or Rest first when the pool is empty)."""
    p = s.state.players[s.state.current]
    act(s, *(("rest", "move") if p.discs_used >= 3 else ("move", "rest")))
    s.do({"type": "end_turn"})


def refused(s: Session[Any], command: dict[str, Any], *words: str) -> str:
    before = s.state
    with pytest.raises(CommandError) as info:
        s.do(command)
    message = str(info.value)
    assert s.state is before, "a refused command changes nothing"
    assert "(EN p." in message or "(EN Appendix" in message, f"no rule and page in: {message}"
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def knock_out(s: Session[Any], player: str, *joiners: str) -> None:
    """A dragon fight in which the dragon's first roll knocks out ``player`` (helmet W, 3 hits)."""
    samurai = [{"player": player, "gear": WEAK}] + [{"player": j, "gear": STRONG} for j in joiners]
    s.do({"type": "fight_start", "dragon": {"health": 30, "initiative": 20, "dice": 1}, "samurai": samurai})
    s.do({"type": "fight_roll", "dice": [3]})


# ---- 1. Two actions a turn (EN p.4) --------------------------------------------------------------


def test_a_third_action_is_refused_two_actions_a_turn_p4() -> None:
    s = game()
    act(s, "move", "gather")
    refused(s, {"type": "action", "action": "explore", "level": 2}, "2 actions", "EN p.4")
    assert s.state_json()["scores"]["A"] == 0


def test_end_turn_without_the_two_actions_is_refused_p4() -> None:
    s = game()
    refused(s, {"type": "end_turn"}, "0 of the turn's 2 actions", "EN p.4")
    act(s, "move")
    refused(s, {"type": "end_turn"}, "1 of the turn's 2 actions")
    act(s, "gather")
    s.do({"type": "end_turn"})
    assert s.state_json()["current_player"] == "B"


def test_an_explore_in_the_middle_of_a_fight_is_refused_and_scores_nothing_p10() -> None:
    s = game()
    s.do({"type": "fight_start", "dragon": "green_1", "samurai": [{"player": "A", "gear": STRONG}]})
    refused(s, {"type": "action", "action": "explore", "level": 3}, "fight", "EN p.10")
    refused(s, {"type": "explore", "level": 2}, "fight")
    assert s.state_json()["scores"]["A"] == 0


# ---- 2. The Action Disc pool and Rest (EN p.4, p.7) ---------------------------------------------


def test_rest_as_the_first_action_of_the_game_is_refused_no_disc_on_the_fields_p4_p7() -> None:
    s = game()
    refused(s, {"type": "action", "action": "rest"}, "no Action Disc on the Action Fields", "EN p.4, p.7")


def test_rest_at_the_end_of_a_turn_and_again_at_the_start_of_the_next_is_refused_p7() -> None:
    s = game(("A", "B"))
    act(s, "move", "rest")
    s.do({"type": "end_turn"})
    act(s, "move", "gather")
    s.do({"type": "end_turn"})
    refused(s, {"type": "action", "action": "rest"}, "Rest twice in a row", "EN p.4, p.7")
    act(s, "gather", "rest")  # a disc on the fields again: Rest is fine


def test_a_move_after_all_three_discs_is_refused_they_must_rest_p4() -> None:
    s = game(("A", "B"))
    act(s, "move", "gather")
    s.do({"type": "end_turn"})
    play_turn(s)
    act(s, "explore")  # A's third disc
    refused(s, {"type": "action", "action": "move"}, "all 3 Action Discs", "must Rest", "EN p.4")
    act(s, "rest")
    s.do({"type": "end_turn"})


def test_a_monk_in_the_action_disc_pool_is_a_fourth_disc_p6() -> None:
    s = game(("A", "B"))
    act(s, "move")
    s.do({"type": "action", "action": "gather", "monk_to": "action_discs"})
    s.do({"type": "end_turn"})
    play_turn(s)
    act(s, "move", "move")  # discs 3 and 4
    s.do({"type": "end_turn"})
    play_turn(s)
    refused(s, {"type": "action", "action": "move"}, "all 4 Action Discs")


def test_a_characters_disc_count_comes_from_the_data_pack_appendix_a() -> None:
    s = game([{"name": "Y", "board": "yoshihiro"}, {"name": "T", "board": "tomoe"}])
    act(s, "move", "move")
    s.do({"type": "end_turn"})
    act(s, "move", "move")
    s.do({"type": "end_turn"})
    act(s, "move", "move")  # Yoshihiro: 4 discs
    s.do({"type": "end_turn"})
    # Tomoe: "2 regular Action Discs and 1 Monk as an Action Disc" (EN Appendix A): a third Move, not a fourth
    act(s, "move")
    refused(s, {"type": "action", "action": "move"}, "all 3 Action Discs")


# ---- 3. Combat ends the turn unless first action and survived (EN p.11, p.12) ---------------------


def test_a_knocked_out_samurai_can_neither_gather_nor_fight_again_in_that_turn_p11() -> None:
    s = game()
    knock_out(s, "A")
    out = s.state_json()
    assert out["combat"]["active"] is False and out["turn_over"]
    refused(s, {"type": "action", "action": "gather"}, "knocked out", "EN p.11")
    refused(
        s,
        {"type": "fight_start", "dragon": "green_1", "samurai": [{"player": "A", "gear": STRONG}]},
        "knocked out",
    )
    s.do({"type": "end_turn"})  # the turn ended with one action: End turn is what is left
    assert s.state_json()["current_player"] == "B"


def test_a_fight_as_the_second_action_ends_the_turn_even_when_won_p11() -> None:
    s = game()
    act(s, "gather")
    s.do({"type": "fight_start", "dragon": {"health": 1, "initiative": 0, "dice": 1},
          "samurai": [{"player": "A", "gear": STRONG}]})
    s.do({"type": "fight_roll", "dice": [["wood", 1], ["wood", 0]]})
    assert s.state_json()["combat"]["outcome"] == "dragon_defeated"
    assert s.state.actions == ("gather", "move")  # the fight came with its Move
    refused(s, {"type": "action", "action": "gather"}, "not their first action", "EN p.11")


def test_a_fight_won_with_the_first_action_leaves_the_second_action_p11() -> None:
    s = game()
    act(s, "move")
    s.do({"type": "fight_start", "dragon": {"health": 1, "initiative": 0, "dice": 1},
          "samurai": [{"player": "A", "gear": STRONG}]})
    s.do({"type": "fight_roll", "dice": [["wood", 1]]})
    assert s.state_json()["turn_over"] is None
    act(s, "gather")
    refused(s, {"type": "action", "action": "gather"}, "2 actions")
    s.do({"type": "end_turn"})


def test_first_action_claimed_against_the_log_is_refused_p11() -> None:
    s = game()
    act(s, "gather")
    refused(
        s,
        {"type": "fight_start", "dragon": "green_1", "first_action": True,
         "samurai": [{"player": "A", "gear": STRONG}]},
        "second action",
        "EN p.11",
    )


def test_a_samurai_who_loses_a_samurai_combat_in_their_own_turn_may_not_move_or_gather_p12() -> None:
    s = game()
    act(s, "move")
    s.do({"type": "samurai_fight_start", "attacker": {"player": "A", "gear": WEAK},
          "defender": {"player": "B", "gear": STRONG}})
    while s.state.combat.is_active:
        who = s.state.combat.fight.whose_turn()
        s.do({"type": "fight_roll", "dice": [["metal", 2], ["metal", 2], ["metal", 2]] if who == "B"
              else [["wood", 0], ["wood", 0]]})
    assert s.state.combat.fight.winner == "B"
    refused(s, {"type": "action", "action": "move"}, "knocked out in their own turn", "EN p.11, p.12")
    refused(s, {"type": "action", "action": "gather"}, "knocked out")
    s.do({"type": "end_turn"})


def test_a_dragon_attacking_at_the_start_of_a_coop_round_does_not_cost_the_start_player_their_turn_p15() -> None:
    s = game(("A", "B"), mode="coop")
    play_turn(s)
    play_turn(s)  # round 2: A is the start player again
    s.do({"type": "fight_start", "dragon": {"health": 30, "initiative": 20, "dice": 1}, "dragon_attacks": True,
          "samurai": [{"player": "A", "gear": WEAK}]})
    s.do({"type": "fight_roll", "dice": [3]})  # A is knocked out: a Life, and resurrects on the Central Tile
    out = s.state_json()
    assert out["combat"]["active"] is False and out["turn_over"] is None
    assert {p["name"]: p["lives"] for p in out["players"]}["A"] == 1
    act(s, "move", "gather")  # A still plays the round's first turn
    s.do({"type": "end_turn"})


def test_a_dragon_attack_only_comes_at_the_start_of_a_round_p15() -> None:
    s = game(("A", "B"), mode="coop")
    act(s, "move")
    refused(
        s,
        {"type": "fight_start", "dragon": "green_1", "dragon_attacks": True,
         "samurai": [{"player": "A", "gear": WEAK}]},
        "start of a round",
        "EN p.15",
    )


def test_only_a_dragon_without_its_status_token_attacks_p15() -> None:
    """EN p.15: at a round's start the Awake tokens are removed and the Sleeping ones flipped; "each Dragon
    that does not have a Status Token next to it then moves"."""
    s = game(("A", "B"), mode="coop")
    act(s, "explore")
    s.do({"type": "dragon_revealed", "dragon": "green_1"})  # Sleeping token next to it
    act(s, "move")
    s.do({"type": "end_turn"})
    play_turn(s)
    attack = {"type": "fight_start", "dragon": "green_1", "dragon_attacks": True,
              "samurai": [{"player": "A", "gear": STRONG}]}
    assert s.state.dragon("green_1").value == "awake"  # round 2: flipped, still next to it
    refused(s, attack, "Status Token", "EN p.15")
    play_turn(s)
    play_turn(s)  # round 3: the Awake token is removed, the dragon moves
    assert s.state.dragon("green_1").value == "moving"
    s.do(attack)


def test_a_fight_told_by_its_result_follows_the_same_turn_rules_p5_p10_p11() -> None:
    """dragon_defeated records a fight played without the fight screen: it comes with the active player's
    Move (EN p.10), it is the third action if two were taken (EN p.4), a hidden dragon is not fought (EN p.5),
    an unconscious samurai takes no part (EN p.11), a fight as the second action ends the turn (EN p.11)."""
    s = game(("A", "B", "C"))
    defeated = {"type": "dragon_defeated", "dragon": "blue_1", "players": ["A"]}
    refused(s, defeated, "has not been revealed", "EN p.5")
    act(s, "explore")
    s.do({"type": "dragon_revealed", "dragon": "blue_1"})
    refused(s, {**defeated, "players": ["B"]}, "started by the player whose turn it is (A)", "EN p.10")
    s.do(defeated)  # A's Move onto the dragon, the fight, won: the second action
    assert s.state.actions == ("explore", "move") and s.state.turn_over is not None
    refused(s, {"type": "action", "action": "gather"}, "not their first action", "EN p.11")
    s.do({"type": "end_turn"})
    act(s, "move", "gather")
    refused(s, {"type": "dragon_defeated", "dragon": "blue_1", "players": ["B"]}, "EN p.4")


def test_an_explores_vp_comes_with_ones_own_explore_once_p5() -> None:
    """EN p.5: "Immediately earn 1 VP if you Explore a Level II Tile or 2 VP if you Explore a Level III Tile"."""
    s = game(("A", "B"))
    tap = {"type": "vp", "player": "A", "points": 1, "category": "explore_level_2"}
    refused(s, tap, "no action this turn to score an Explore's VP", "EN p.5")
    refused(s, {**tap, "player": "B"}, "EN p.")  # not B's turn
    act(s, "explore")  # the table explored without telling the level
    s.do(tap)
    refused(s, tap, "once per Explore")
    s.do({"type": "action", "action": "explore", "level": 3})  # scored with the action itself
    refused(s, {**tap, "points": 2, "category": "explore_level_3"}, "once per Explore")
    assert s.state_json()["scores"]["A"] == 3


def test_scenario_1_a_samurai_leaves_the_volcano_at_the_start_of_their_next_turn_appendix_b() -> None:
    """EN Appendix B scenario 1: "To escape from the Volcano, a Samurai needs to end their turn on the Rope
    Tile and will only leave the Volcano at the beginning of their next turn"."""
    s = game(("A", "B"), scenario=1)
    s.do({"type": "vp", "player": "A", "points": 19, "reason": "house rule: a quick start"})
    s.do({"type": "action", "action": "explore", "level": 2})  # 20 VP: the final chapter (scenario 1)
    act(s, "rest")
    s.do({"type": "end_turn"})
    while not s.state.countdown.rope:
        play_turn(s)
    who = s.state.players[s.state.current].name
    act(s, "move", "rest")
    s.do({"type": "escape", "via": "rope", "tokens": {"monks": 1}})
    assert s.state_json()["players"][s.state.current]["on_rope"] is True
    refused(s, {"type": "shogun_bonus", "track": "monks"}, "Rope Tile", "EN Appendix B scenario 1")
    s.do({"type": "end_turn"})
    assert s.state.phase.value == "final"
    while s.state.players[s.state.current].name != who:
        play_turn(s)
    assert s.state_json()["players"][s.state.current]["on_rope"] is False
    s.do({"type": "shogun_bonus", "track": "monks"})  # left the Volcano: the bonus now


def test_the_foot_of_the_mountain_pays_one_bonus_per_category_p13() -> None:
    """EN p.13: after the Secret Exit "there is only 1 Shogun bonus for each category"."""
    s = game(("A", "B"))
    for _ in range(2):
        act(s, "move", "move")
        s.do({"type": "escape", "via": "secret_exit", "tokens": {"helmet": 1, "sandals": 1}})
        if s.state.players[s.state.current].name == "A":
            s.do({"type": "shogun_bonus", "track": "helmet"})
        else:
            refused(s, {"type": "shogun_bonus", "track": "helmet"}, "only 1 Shogun bonus for each category", "EN p.13")
            s.do({"type": "shogun_bonus", "track": "sandals"})  # another category: its own spot
        s.do({"type": "end_turn"})


def test_scenario_6_the_legendary_dragon_is_tamed_at_10_health_appendix_b() -> None:
    """EN Appendix B scenario 6: "Fight against this Dragon on the Central Tile and reduce its Health to 10 or
    below"; with every objective achieved the players win at once (EN p.15)."""
    s = game(("A", "B"), mode="coop", scenario=6)
    refused(s, {"type": "tamed"}, "must be on the board first", "EN Appendix B scenario 6")
    s.do({"type": "dragon_revealed", "dragon": "legendary"})
    gear = {"helmet": ["TTTT", "TTTT"], "weapon_left": ["WWTT"]}  # 8 hits a roll: never 0 from above 10
    s.do({"type": "fight_start", "dragon": "legendary", "samurai": [{"player": "A", "gear": gear}]})
    health = s.state.combat.fight.health
    while s.state.phase.value != "ended":
        who = s.state.combat.fight.whose_turn()
        if who == "dragon":
            s.do({"type": "fight_roll", "dice": [0, 0, 0, 0, 1, 1]})
        else:
            s.do({"type": "fight_roll", "dice": [["wood", 1], ["wood", 1], ["tooth", 3], ["tooth", 3]]})
        assert s.state.combat is None or s.state.combat.fight.health > 0, "tamed, never killed"
    assert health > 10 and s.state.tamed
    assert s.state.ending is not None and s.state.ending.won is True


# ---- 4. Unconscious samurai (EN p.11, p.12) -------------------------------------------------------


def test_an_unconscious_samurai_cannot_be_attacked_or_join_until_their_next_turn_p11_p12() -> None:
    s = game()
    knock_out(s, "A")
    s.do({"type": "end_turn"})
    # B's turn: A lies unconscious.
    refused(
        s,
        {"type": "samurai_fight_start", "attacker": {"player": "B", "gear": STRONG},
         "defender": {"player": "A", "gear": STRONG}},
        "unconscious",
        "EN p.11, p.12",
    )
    refused(
        s,
        {"type": "fight_start", "dragon": "green_1",
         "samurai": [{"player": "B", "gear": STRONG}, {"player": "A", "gear": STRONG}]},
        "unconscious",
        "join",
    )
    assert [p["unconscious"] for p in s.state_json()["players"]] == [True, False, False]
    act(s, "move", "gather")
    s.do({"type": "end_turn"})
    act(s, "move", "gather")
    s.do({"type": "end_turn"})
    # A's next turn: awake again.
    assert [p["unconscious"] for p in s.state_json()["players"]] == [False, False, False]
    act(s, "move", "gather")


def test_a_joiner_knocked_out_stays_unconscious_until_their_own_turn_p11() -> None:
    s = game()
    act(s, "move")
    s.do({"type": "fight_start", "dragon": {"health": 30, "initiative": 20, "dice": 1},
          "samurai": [{"player": "A", "gear": STRONG}, {"player": "B", "gear": WEAK}]})
    s.do({"type": "fight_roll", "dice": [3]})  # B out, A stands
    assert [p["unconscious"] for p in s.state_json()["players"]] == [False, True, False]
    s.do({"type": "fight_cancel", "reason": "A walks away"})
    act(s, "gather")
    s.do({"type": "end_turn"})
    assert [p["unconscious"] for p in s.state_json()["players"]] == [False, False, False]


# ---- 8. Scroll VP and weapon-card VP with one's own action (EN p.6, p.8) ----------------------


def test_scroll_vp_needs_ones_own_gather_in_ones_own_turn_once_per_gather_p6() -> None:
    s = game()
    refused(s, {"type": "scroll"}, "Gather", "EN p.6")  # before any action
    refused(s, {"type": "scroll", "player": "B"}, "own turn", "EN p.4")  # someone else's turn
    act(s, "move")
    refused(s, {"type": "scroll"}, "Gather")
    act(s, "gather")
    s.do({"type": "scroll"})
    refused(s, {"type": "scroll"}, "one per Gather")  # twice for one action
    refused(s, {"type": "vp", "points": 3, "reason": "scroll"}, "one per Gather")  # the same through the VP tap
    assert s.state_json()["scores"]["A"] == 3


def test_weapon_card_vp_comes_with_its_linked_action_once_per_action_p8() -> None:
    s = game()
    refused(s, {"type": "gear_card_vp"}, "EN p.8")
    act(s, "move")
    refused(s, {"type": "gear_card_vp", "player": "B"}, "own turn")
    s.do({"type": "gear_card_vp"})  # linked to Move from now on
    refused(s, {"type": "gear_card_vp"}, "once per action")
    act(s, "rest")
    refused(s, {"type": "gear_card_vp"}, "linked to move")
    s.do({"type": "end_turn"})
    play_turn(s)
    play_turn(s)
    act(s, "move", "move")
    s.do({"type": "gear_card_vp"})
    s.do({"type": "gear_card_vp"})  # two Moves, two bonuses
    assert s.state_json()["scores"]["A"] == 3


def test_corrections_stay_possible_at_any_time() -> None:
    s = game()
    s.do({"type": "vp", "player": "B", "points": 2, "reason": "we forgot B's dragon VP"})
    assert s.state_json()["scores"]["B"] == 2


# ---- Escapes (EN p.13; coop p.14) ------------------------------------------------------------


def _to_the_rope(s: Session[Any]) -> None:
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"})
    while not s.state.countdown.rope:
        play_turn(s)


def test_an_escaped_samurai_takes_no_more_actions_p13() -> None:
    s = game(("A", "B"))
    _to_the_rope(s)
    while s.state.current != 0:
        play_turn(s)
    refused(s, {"type": "escape", "via": "rope"}, "after the turn's 2 actions", "EN p.4, p.13")
    act(s, *(("rest", "move") if s.state.players[0].discs_used >= 3 else ("move", "rest")))
    s.do({"type": "escape", "via": "rope"})
    s.do({"type": "end_turn"})
    play_turn(s)
    refused(s, {"type": "action", "action": "move"}, "escaped", "EN p.13")
    refused(s, {"type": "scroll"}, "escaped")
    refused(s, {"type": "magical_gear", "gear": "helmet"}, "escaped")
    s.do({"type": "end_turn"})  # an escaped player's turn is a Shogun bonus at most


def _coop_final(s: Session[Any]) -> None:
    while s.state.countdown.kind.value == "rounds":
        act(s, "move", "gather")
        s.do({"type": "end_turn"})


def test_coop_escape_needs_the_secret_exit_and_completed_magical_gear_p14() -> None:
    s = game(("A", "B"), mode="coop")
    act(s, "move", "gather")
    refused(s, {"type": "escape", "via": "secret_exit"}, "Magical Gear", "EN p.14")
    refused(s, {"type": "escape", "via": "rope"}, "Secret Exit", "EN p.14")
    s.do({"type": "magical_gear", "gear": "sandals"})
    s.do({"type": "escape", "via": "secret_exit"})
    refused(s, {"type": "magical_gear", "gear": "helmet"}, "escaped", "EN p.13")
    state = s.state_json()
    assert state["phase"] == "playing"


def test_escaping_without_gear_then_adding_some_does_not_win_p14() -> None:
    s = game(("A",), mode="coop")
    act(s, "move", "gather")
    refused(s, {"type": "escape", "via": "secret_exit"}, "Magical Gear")
    assert s.state_json()["phase"] == "playing"


# ---- Games saved before the turn rules (no "rules" in their setup) ------------------------------


def test_a_game_saved_before_the_turn_rules_still_replays_its_historic_commands() -> None:
    from companion.engine import Record, RecordKind

    legacy = {"players": ["A", "B"]}  # what every setup looked like before rules version 2
    commands = [
        {"type": "action", "action": "rest", "player": "A"},  # Rest first: refused today
        {"type": "action", "action": "move", "player": "A"},
        {"type": "action", "action": "gather", "player": "A"},  # a third action
        {"type": "scroll", "player": "B"},  # VP in someone else's turn
        {"type": "end_turn"},
        {"type": "end_turn"},  # no action at all
    ]
    records = [Record(i + 1, RecordKind.COMMAND, c, "") for i, c in enumerate(commands)]
    s = Session.replay(FujiKoro(PACK), legacy, records)
    out = s.state_json()
    assert out["rules"] == 1 and out["scores"]["B"] == 3 and out["current_player"] == "A" and out["round"] == 2
    with pytest.raises(CommandError):
        Session(FujiKoro(PACK), {"players": ["A", "B"], "rules": 3})


def test_a_pack_stored_before_the_rule_options_existed_loads_with_the_readings_of_its_time() -> None:
    from dataclasses import replace

    from games.fujikoro.pack import RuleOptions, parse

    raw = {k: v for k, v in PACK.raw.items() if k != "rules"}
    assert parse(raw).rules == RuleOptions()
    # The shipped pack reads co-op Health for 3-6 players as EN p.11 says (the solo value); a game stored before
    # the options existed replays with the standard Health it was played with.
    assert replace(RuleOptions(), coop_health_3_to_6="solo") == PACK.rules


# ---- 5. Cooperative length: 20 rounds + 8 final rounds, 25 + 8 solo (EN p.14) ---------------------


@pytest.mark.parametrize(("players", "normal"), [(("A", "B"), 20), (("A",), 25), (("A", "B", "C", "D", "E", "F"), 20)])
def test_a_coop_game_plays_all_its_rounds_and_ends_after_the_8th_final_round_p14(
    players: tuple[str, ...], normal: int
) -> None:
    s = game(players, mode="coop")
    rounds: list[tuple[int, str]] = []
    turns = 0
    while not s.is_over:
        rounds.append((s.state.round, s.state.phase.value))
        play_turn(s)  # 2 actions and End turn
        turns += 1
    out = s.state_json()
    played = sorted(set(rounds))
    assert played[-1] == (normal + 8, "final"), "the last round played is the 8th final round"
    assert [r for r, phase in played if phase == "playing"] == list(range(1, normal + 1))
    assert [r for r, phase in played if phase == "final"] == list(range(normal + 1, normal + 9))
    assert turns == len(players) * (normal + 8), "every player had every turn of every round"
    assert out["countdown"]["position"] == 8 and out["ending"]["won"] is False
    assert out["round"] == normal + 8


# ---- 7. Permanent Damage Tokens stay when the dragon heals (EN p.11) ------------------------------


def test_permanent_damage_tokens_stay_on_the_dragon_for_the_next_fight_p11() -> None:
    s = game()
    full = s.game.pack.dragons["green_1"].health
    s.do({"type": "fight_start", "dragon": "green_1", "damage_tokens": 2, "samurai": [{"player": "A", "gear": WEAK}]})
    assert s.state.combat.fight.health == full - 2
    while s.state.combat.is_active:
        s.do({"type": "fight_roll", "dice": [3, 3, 3]} if s.state.combat.fight.whose_turn() == "dragon"
             else {"type": "fight_roll", "dice": [["wood", 0], ["wood", 0]]})
    assert s.state_json()["combat"]["outcome"] == "samurai_lost"
    assert s.state_json()["dragon_damage_tokens"] == {"green_1": 2}
    s.do({"type": "end_turn"})
    act(s, "move")
    refused(
        s,
        {"type": "fight_start", "dragon": "green_1", "damage_tokens": 0, "samurai": [{"player": "B", "gear": STRONG}]},
        "permanent Damage Tokens",
        "EN p.11",
    )
    s.do({"type": "fight_start", "dragon": "green_1", "samurai": [{"player": "B", "gear": STRONG}]})
    assert s.state.combat.fight.health == full - 2  # healed, but not the tokens' damage


# ---- 12. Undo names the consequences of what it undoes ------------------------------------------


def test_undo_of_the_last_turn_names_the_games_end_and_the_final_scoring() -> None:
    s = game(("A", "B"))
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"})
    descriptions = []
    while not s.is_over:
        p = s.state.players[s.state.current]
        act(s, *(("rest", "move") if p.discs_used >= 3 else ("move", "rest")))
        descriptions.append(s.do({"type": "end_turn"}).record.description)
    assert "the final chapter begins" not in descriptions[0]  # it began with the VP, not the turn
    assert "the Countdown Token moves to space 1" in descriptions[0]
    assert any("the Rope appears" in d for d in descriptions)
    assert any("lava erupts on" in d for d in descriptions)
    last = s.undo_description()
    assert last is not None and last.startswith("End A's turn (round 8)")
    assert "the game ends with the final scoring" in last
    assert s.undo().record.description == f"Undo: {last}"
    assert s.state_json()["phase"] == "final"


# ---- 11. Eruptions ask who stands on the lava (EN p.13) ------------------------------------------


def _to_first_eruption(s: Session[Any]) -> list[Any]:
    while True:
        p = s.state.players[s.state.current]
        act(s, *(("rest", "move") if p.discs_used >= 3 else ("move", "rest")))
        events = list(s.do({"type": "end_turn"}).events)
        if any(e.kind == "eruption" for e in events):
            return events


def test_an_eruption_asks_who_stands_there_and_applies_the_damage_or_the_perishing_p13() -> None:
    s = game(("A", "B"))
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"})
    events = _to_first_eruption(s)
    eruption = next(dict(e.payload) for e in events if e.kind == "eruption")
    assert eruption["lava"] and eruption["ask"] == ["A", "B"] and "EN p.13" in eruption["rule"]
    assert s.state_json()["eruption"] == {"lava": eruption["lava"], "answered": []}
    applied = s.do({"type": "lava_hit", "player": "A", "outcome": "moved"})
    assert [dict(e.payload) for e in applied.events if e.kind == "sandals_damage"] == [{"player": "A", "damage": 5}]
    refused(s, {"type": "lava_hit", "player": "A", "outcome": "perished"}, "already moved off")
    s.do({"type": "lava_hit", "player": "B", "outcome": "perished"})
    assert s.state_json()["eruption"]["answered"] == ["A", "B"]


def test_in_coop_perishing_in_the_lava_costs_a_life_p13_p15() -> None:
    s = game(("A", "B"), mode="coop")
    _to_first_eruption(s)
    s.do({"type": "lava_hit", "player": "A", "outcome": "perished"})
    assert {p["name"]: p["lives"] for p in s.state_json()["players"]}["A"] == 1


def test_an_unconscious_samurai_on_erupting_lava_perishes_p13() -> None:
    s = game(("A", "B"))
    s.do({"type": "vp", "player": "A", "points": 30, "reason": "test: the final chapter"})
    while True:
        # B is knocked out in their own turn, so they lie unconscious when A's end of turn makes lava erupt.
        if s.state.current == 1:
            if s.state.players[1].discs_used >= 3:
                act(s, "rest")
            knock_out(s, "B")
            events = list(s.do({"type": "end_turn"}).events)
        else:
            p = s.state.players[0]
            act(s, *(("rest", "move") if p.discs_used >= 3 else ("move", "rest")))
            events = list(s.do({"type": "end_turn"}).events)
        if any(e.kind == "eruption" for e in events) and s.state.eruption_unconscious == ("B",):
            break  # the lava erupted at the end of A's turn, while B still lay unconscious
    assert not s.state.players[1].unconscious  # B's turn has begun: awake now, but the lava came first
    refused(s, {"type": "lava_hit", "player": "B", "outcome": "moved"}, "unconscious", "perishes", "EN p.13")
    s.do({"type": "lava_hit", "player": "B", "outcome": "perished"})


# ---- 10. The setup checklist: what the rulebook's setups add (EN p.12, p.14, Appendix B) -----------


def _checklist(**config: Any) -> list[str]:
    return list(game(**config).state_json()["setup_checklist"])


def test_the_coop_checklist_gives_the_starting_weapons_p14_step_12() -> None:
    items = _checklist(players=("A", "B", "C"), mode="coop")
    assert any("2 wood and 2 metal" in item and "EN p.14 step 12" in item for item in items)


def test_scenario_1_hides_the_blueprints_and_leaves_out_the_secret_exit_appendix_b() -> None:
    items = _checklist(players=("A", "B"), scenario=1)
    assert any("face down" in item and "Secret Exit" in item for item in items)
    assert not any(item.startswith("Magical Blueprints: draw") for item in items)


def test_scenario_7_sets_up_the_three_hostile_samurai_appendix_b() -> None:
    items = _checklist(players=("A",), mode="coop", scenario=7)
    assert any("hostile Samurai" in item and "Temple" in item for item in items)


def test_the_peaceful_variant_is_on_the_checklist_and_refuses_samurai_combat_p12() -> None:
    s = game(("A", "B"), peaceful=True)
    assert any("Peaceful Variant" in item for item in s.state_json()["setup_checklist"])
    act(s, "move")
    refused(
        s,
        {"type": "samurai_fight_start", "attacker": {"player": "A", "gear": STRONG},
         "defender": {"player": "B", "gear": STRONG}},
        "Peaceful Variant",
        "EN p.12",
    )


# ---- 10. Scenario 4: the Monk combat (EN Appendix B scenario 4) ----------------------------------


def test_scenario_4_monk_combat_infinite_initiative_4_health_4_wooden_dice_appendix_b() -> None:
    s = game(("A", "B"), scenario=4)
    act(s, "move")
    refused(s, {"type": "fight_start", "dragon": "monk",
                "samurai": [{"player": "A", "gear": STRONG}, {"player": "B", "gear": STRONG}]},
            "can't be joined", "EN Appendix B scenario 4")
    s.do({"type": "fight_start", "dragon": "monk", "samurai": [{"player": "A", "gear": STRONG}]})
    fight = s.state.combat.fight
    assert fight.order[0] == "dragon" and fight.health == 4  # the Monk always rolls first
    assert s.state_json()["combat"]["dice_to_roll"] == [{"hand": "", "dice": ["wood"] * 4}]
    applied = s.do({"type": "fight_roll", "dice": [1, 1, 0, "0b"]})  # 2 hits; a broken result: A takes 1 wood
    assert any("take 1 wood" in line for line in s.state.combat.fight.log)
    assert applied.record.description.startswith("The Monk rolls 4 dice")  # the log names the Monk
    s.do({"type": "fight_roll", "dice": [["wood", 1], ["wood", 1], ["metal", 2], ["metal", 0], ["metal", 0]]})
    out = s.state_json()
    assert out["combat"]["outcome"] == "dragon_defeated" and out["scores"]["A"] == 0  # conquered: no VP
    act(s, "gather")  # the fight was the first action and A stands


def test_a_monk_that_defeats_a_samurai_costs_5_vp_and_knocks_them_out_appendix_b_scenario_4() -> None:
    s = game(("A", "B"), scenario=4)
    s.do({"type": "vp", "player": "A", "points": 6, "reason": "test: some VP to lose"})
    act(s, "move")
    s.do({"type": "fight_start", "dragon": "monk", "samurai": [{"player": "A", "gear": WEAK}]})
    s.do({"type": "fight_roll", "dice": [1, 1, 1, 0]})
    out = s.state_json()
    assert out["combat"]["outcome"] == "samurai_lost" and out["scores"]["A"] == 1
    assert out["players"][0]["unconscious"] is True and out["turn_over"]


def test_the_monk_is_scenario_4_only() -> None:
    s = game(("A", "B"))
    refused(s, {"type": "fight_start", "dragon": "monk", "samurai": [{"player": "A", "gear": STRONG}]},
            "scenario 4")


# ---- 10. Scenario 7: the hostile Samurai keep their damage (EN Appendix B scenario 7, p.12) ------------


HOSTILE = {"helmet": ["MM"], "weapon_left": ["WWM"]}


def test_scenario_7_damage_to_a_hostile_samurai_is_not_repaired_between_fights_appendix_b() -> None:
    s = game(("Ronin",), mode="coop", scenario=7)
    act(s, "move")
    s.do({"type": "samurai_fight_start", "attacker": {"player": "Ronin", "gear": STRONG},
          "defender": {"hostile": 1, "gear": HOSTILE}})
    fight = s.state.combat.fight
    assert [f.name for f in fight.fighters] == ["Ronin", "Hostile Samurai 1"]
    first = fight.whose_turn()
    # The hostile samurai's helmet absorbs 2 of the Ronin's hits; then the Ronin's weapon breaks and they surrender.
    if first == "Hostile Samurai 1":
        s.do({"type": "fight_roll", "dice": [["wood", 0], ["wood", 0], ["metal", 0]]})
    s.do({"type": "fight_roll", "dice": [["wood", "0b"], ["wood", 1], ["metal", 2]]})
    if s.state.combat.is_active:
        s.do({"type": "fight_surrender", "player": "Ronin"})
    kept = s.state.hostiles[0][1]
    assert "M" not in "".join(kept["helmet"])  # 3 hits took both metal cubes of its helmet
    s.do({"type": "end_turn"})
    act(s, "move")
    refused(s, {"type": "samurai_fight_start", "attacker": {"player": "Ronin", "gear": STRONG},
                "defender": {"hostile": 1, "gear": HOSTILE}}, "not repaired", "EN Appendix B scenario 7")
    s.do({"type": "samurai_fight_start", "attacker": {"player": "Ronin", "gear": STRONG}, "defender": {"hostile": 1}})
    assert s.state.combat.fight.fighters[1].gear.to_json() == kept


def test_defeating_a_hostile_samurai_counts_for_the_objective_appendix_b_scenario_7() -> None:
    s = game(("Ronin",), mode="coop", scenario=7)
    act(s, "move")
    s.do({"type": "samurai_fight_start", "attacker": {"player": "Ronin", "gear": STRONG},
          "defender": {"hostile": 2, "gear": {"helmet": ["W"], "weapon_left": ["WW"]}}})
    while s.state.combat.is_active:
        who = s.state.combat.fight.whose_turn()
        s.do({"type": "fight_roll", "dice": [["wood", 1], ["wood", 1], ["metal", 2]] if who == "Ronin"
              else [["wood", 0], ["wood", 0]]})
    assert s.state.hostile_defeated == 1 and s.state.hostiles_out == (2,)
    s.do({"type": "fight_steal", "item": "blueprint"})
    act(s, "gather")  # the fight was the first action and the Ronin stands (EN p.11)
    s.do({"type": "end_turn"})
    act(s, "move")
    refused(s, {"type": "samurai_fight_start", "attacker": {"player": "Ronin", "gear": STRONG},
                "defender": {"hostile": 2}}, "removed from the game")


def test_scenario_1_a_status_token_buys_one_extra_action_appendix_b() -> None:
    s = game(("A", "B"), scenario=1)
    s.do({"type": "status_tokens", "player": "A", "delta": 1})
    act(s, "move", "gather")
    refused(s, {"type": "action", "action": "move"}, "2 actions")  # without spending a token
    s.do({"type": "action", "action": "rest", "status_token": True})
    assert s.state.players[0].status_tokens == 0 and s.state.actions == ("move", "gather", "rest")
    refused(s, {"type": "action", "action": "move", "status_token": True}, "3 actions")  # no token left
    s.do({"type": "end_turn"})
