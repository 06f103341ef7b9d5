"""The whole game on the session engine (spec 2-8): the scripted 4-player game through a real store game file,
replay, undo with names and the tower-throw barrier, the throw correction, the randomisers, and a game played
with no map at all."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import CommandError, Session, UndoBarrierError
from companion.registry import game, games
from games.shogun import GAME, views
from games.shogun.rules import ShogunRules
from store.gamelog import Header
from store.sessions import factories, new_session, open_session

from .script import CONFIG, CORRECTIONS, FINAL_VP, WINNER, WINTER_1_VP, steps


def _rules(corrections: dict[str, Any] | None = None) -> ShogunRules:
    return GAME.rules(GAME.new_game(corrections or {}).data)  # type: ignore[return-value]


def _audit_ok(rules: ShogunRules, session: Session[Any]) -> None:
    bad = [line for line in views.audit(rules, session.state) if not line["ok"]]
    assert not bad, bad


def test_the_registry_finds_shogun_with_no_shared_file_touched() -> None:
    # issue 17 / docs/architecture.md "Adding a game": games/shogun is found by itself
    assert games()["shogun"].title == "Shogun"
    assert game("shogun").players == (3, 5)


def test_the_scripted_four_player_game_through_a_store_file(tmp_path: Path) -> None:
    """Spec 2-8 end to end: both years, both winters, 11 battles and 9 revolts; every colour's cubes add up
    after every command (spec 12.1 item 6); Ann wins with 34 VP (reckoned by hand in script.py)."""
    made = game("shogun").new_game(CORRECTIONS)
    header = Header("shogun", made.version, CONFIG, made.data)
    path = tmp_path / "shogun.fujikoro-game"
    file, session = new_session(path, header, factories())
    rules: ShogunRules = session.game  # type: ignore[assignment]
    battles = revolts = cancelled = 0
    for command, expect in steps():
        applied = session.do(command, expected_state_id=session.state_id)
        _audit_ok(rules, session)
        throw = session.state.tower.throws[-1] if "out" in command else None
        if throw is not None and command["type"] != "seed_tower":
            revolt = command["type"] == "winter_revolt" or command.get("to") is None
            revolts += revolt
            battles += not revolt
            if "winner" in expect:
                assert throw.outcome == expect["winner"], applied.record.description
        if expect.get("cancelled"):
            cancelled += 1
            assert "cancelled" in applied.record.description
        if command["type"] == "score" and session.state.round == 5:
            assert dict(session.state.vp) == WINTER_1_VP  # spec 7.3, first winter
    assert (battles, revolts, cancelled) == (11, 9, 2)
    assert session.is_over
    assert dict(session.state.vp) == FINAL_VP
    result = rules.result(session.state)
    assert result is not None
    by_colour = {p.colour: p for p in result.players}
    assert by_colour[WINNER].winner and by_colour[WINNER].rank == 1
    assert [by_colour[c].rank for c in ("blue", "purple", "red", "yellow")] == [1, 2, 3, 4]
    assert by_colour["blue"].categories == {"provinces": 19, "buildings": 6, "majorities": 9}
    assert sum(by_colour["red"].categories.values()) == FINAL_VP["red"]
    assert by_colour["blue"].tiebreak == session.state.chests["blue"]  # chests break a tie (spec 8)
    file.close()

    # the file replays to exactly the same state (spec 12.1 item 11: the log rebuilds the game)
    reopened, replayed = open_session(path, factories())
    assert replayed.state == session.state
    assert replayed.state_id == session.state_id
    reopened.close()


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=1, max_value=len(steps())))
def test_replaying_any_prefix_of_the_log_rebuilds_the_state_exactly(n: int) -> None:
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    for command, _ in steps()[:n]:
        session.do(command)
    replayed = Session.replay(rules, CONFIG, session.records)
    assert replayed.state == session.state
    assert rules.state_json(replayed.state) == rules.state_json(session.state)


def _play_until(session: Session[Any], predicate: Any) -> None:
    for command, _ in steps():
        if predicate(command):
            return
        session.do(command)
    raise AssertionError("the script has no such command")


def test_undo_names_what_it_undoes_and_stops_at_a_tower_throw() -> None:
    """Spec 12.1 item 11: undo with a named log; a tower throw is a barrier - a typo in its counts is fixed
    with correct_throw, a re-throw is not possible."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])  # seeding the tower
    session.do(steps()[1][0])
    assert session.undo_description() is not None and "Laid out round 1" in session.undo_description()
    undone = session.undo()
    assert undone.record.description.startswith("Undo: Laid out round 1")
    assert session.undo_blocked()
    with pytest.raises(UndoBarrierError, match="seeding|seeded"):
        session.undo()
    # the typo: one green too few counted; correct it, the throw itself stays
    before_inside = dict(session.state.tower.inside)
    session.do({"type": "correct_throw", "out": {"blue": 5, "red": 5, "yellow": 4, "purple": 6, "green": 7}})
    assert session.state.tower.inside["purple"] == before_inside["purple"] - 1
    assert len(session.state.tower.throws) == 1
    assert session.undo_description() is not None and session.undo_description().startswith("Corrected")
    session.undo()  # the correction itself can be undone; the seeding is still there
    assert session.state.tower.inside == before_inside


def test_undo_calls_a_throw_the_players_entered_theirs_and_a_draw_the_apps() -> None:
    """Spec 12.1 items 10-11, 12.2: a tower throw is thrown at the table and entered by the players (a barrier
    because it cannot be thrown again); undo called it "a roll the app made". A draw the app makes is the app's."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG, new_seed=lambda: 7)
    session.do(steps()[0][0])  # seeding the tower (spec 2.5): the counts the players read off the tray
    assert session.undo_barrier() == "a throw the players entered from the tower"
    with pytest.raises(UndoBarrierError) as refused:
        session.undo()
    assert str(refused.value).startswith("undo stops at a throw the players entered from the tower (The tower is "
                                         "seeded: ")
    assert "app" not in str(refused.value)
    session.do({"type": "lay_out", "draw": True})  # the app lays out the rows (spec 12.1 item 10)
    assert session.undo_barrier() == "a draw the app made"
    with pytest.raises(UndoBarrierError, match=r"^undo stops at a draw the app made \(The app lays out round 1"):
        session.undo()
    session.undo(force=True)
    assert session.undo_barrier() == "a throw the players entered from the tower"


def test_a_correction_is_only_for_the_throw_just_entered() -> None:
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])
    session.do(steps()[1][0])
    with pytest.raises(CommandError, match="not a throw"):
        session.do({"type": "correct_throw", "out": {}})


def test_an_impossible_action_is_cancelled_and_a_typo_is_refused() -> None:
    """Spec 4.6: an action that cannot be carried out completely is cancelled whole (the round goes on); a
    province card that was never the player's is a typo and is refused."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    _play_until(session, lambda c: c.get("type") == "act")
    state = session.state
    assert state.current_player == "red" and state.current_action == "castle"
    with pytest.raises(CommandError, match="was not Bo's"):
        session.do({"type": "act", "player": "red", "province": "kozuke"})
    with pytest.raises(CommandError, match="turn"):
        session.do({"type": "act", "player": "blue", "province": "kozuke"})
    # Bo cannot build a castle in Owari (1 site) twice - but first: a castle in Hida, 1 site, is fine
    session.do({"type": "act", "player": "red", "province": "hida"})
    assert "castle" in session.state.provinces["hida"].buildings
    assert session.state.chests["red"] == state.chests["red"] - 3  # spec 5: a castle costs 3


def test_a_battle_asks_for_the_tray_counts_and_says_what_goes_in() -> None:
    """Spec 12.1 item 5: the helper says exactly what goes into the tower before the throw."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    _play_until(session, lambda c: c.get("type") == "act" and c.get("to") == "echigo")
    helper = views.battle_helper(rules, session.state, "kozuke", "echigo", 3)
    assert helper["added"] == {"blue": 4, "green": 1}  # 3 moved + the +1 army attacking card; 1 peasant
    assert 0 < helper["odds"]["p_attacker"] < 1
    assert helper["odds"]["model"]["status"].startswith("assumed")
    with pytest.raises(CommandError, match="throw in at once: 4 blue, 1 green"):
        session.do({"type": "act", "player": "blue", "province": "kozuke", "to": "echigo", "armies": 3})
    with pytest.raises(CommandError, match="not adjacent"):
        session.do({"type": "act", "player": "blue", "province": "kozuke", "to": "mino", "armies": 3,
                    "out": {}})


def test_the_randomisers_draw_with_a_logged_seed_and_are_undo_barriers() -> None:
    """Spec 12.1 item 10: the app may lay out the rows, draw the event and the start, break bid ties, draw
    winter revolts; the seed goes in the log (replay gives the same draw); each is an undo barrier."""
    rules = _rules()
    seeds = iter(range(100, 200))
    config = {"players": ["blue", "red", "yellow"], "side": "moon"}
    session: Session[Any] = Session(rules, config, new_seed=lambda: next(seeds))
    session.do({"type": "deal_start", "draw": True})
    assert session.undo_blocked()
    held = [len(session.state.held(p)) for p in ("blue", "red", "yellow")]
    assert held == [9, 9, 9]  # 3 players: 9 groups each (spec 2.2)
    assert all(not rules.pack.sides["moon"].provinces[pid].light_bordered
               for pid in session.state.provinces)  # 37 in play, no light-bordered ones (spec 2.1)
    assert len(session.state.provinces) == 37
    session.do({"type": "seed_tower", "out": {"blue": 7, "red": 7, "yellow": 7, "green": 10}})
    session.do({"type": "lay_out", "draw": True})
    assert sorted(session.state.action_row) == sorted(rules.pack.action_names)
    assert len(session.state.events_face_up) == 4
    session.do({"type": "draw_event", "draw": True})
    assert session.state.event in session.state.events_face_up
    session.do({"type": "bids", "bids": {"blue": {"war_chest_card": 1}, "red": {"war_chest_card": 1},
                                          "yellow": {"war_chest_card": 1}}, "draw": True})
    assert sorted(session.state.choosing) == ["blue", "red", "yellow"]
    assert session.undo_blocked()
    replayed = Session.replay(rules, config, session.records)
    assert replayed.state == session.state


def test_a_game_with_no_map_scores_orders_turns_fights_and_winters() -> None:
    """Issue 17: with no map the table enters per-region counts; the app still orders turns (spec 4.5),
    resolves battles (6.4-6.6), winters (7.1-7.2) and scores (7.3)."""
    rules = _rules({"events.e04.rice_loss": 2})
    config = {"players": [{"name": "Ann", "colour": "blue"}, {"name": "Bo", "colour": "red"},
                          {"name": "Cy", "colour": "yellow"}], "map": False,
              "holdings": {"blue": {"kanto": {"provinces": 5, "castle": 1}},
                           "red": {"kanto": {"provinces": 2, "castle": 1, "temple": 1}, "kinai": {"provinces": 3}},
                           "yellow": {"kinai": {"provinces": 4, "theatre": 1}}}}
    session: Session[Any] = Session(rules, config)
    session.do({"type": "seed_tower", "out": {"blue": 6, "red": 6, "yellow": 6, "green": 8}})
    for year_round in range(3):
        session.do({"type": "lay_out", "actions": ["castle", "temple", "theatre", "rice", "taxes"],
                    "specials": ["chest_plus_1", "rice_plus_1", "six_armies", "attack_plus_1", "defence_plus_1"],
                    **({"events": ["e01", "e02", "e03", "e04"]} if year_round == 0 else {})})
        session.do({"type": "draw_event", "event": ["e01", "e02", "e03"][year_round]})
        session.do({"type": "bids", "bids": {"blue": {"war_chest_card": 1}, "red": {"province_card": "Mino"},
                                             "yellow": {"none": True}}})
        assert session.state.choosing == ("blue", "red", "yellow")  # 1 chest, a province card, no bid
        session.do({"type": "take_special", "player": "blue", "card": "defence_plus_1"})
        session.do({"type": "take_special", "player": "red", "card": "rice_plus_1"})
        session.do({"type": "take_special", "player": "yellow", "card": "chest_plus_1"})
        assert session.state.turn_order == ("yellow", "red", "blue")  # by space (spec 4.5 item 4)
        if year_round == 0:
            # Blue attacks a red province in Kanto (2 armies, a castle, no token): greens help red.
            session.do({"type": "battle", "kind": "attack", "attacker": "blue", "defender": "red", "moved": 3,
                        "source": {"armies": 5}, "target": {"armies": 2, "buildings": ["castle"]},
                        "region": "kanto", "out": {"blue": 3, "red": 1}})
            session.do({"type": "adjust", "player": "red", "rice": 3})
        session.do({"type": "end_actions"})
    assert session.state.holdings["blue"]["kanto"].provinces == 6  # Kanto card went to blue with its castle
    assert session.state.holdings["blue"]["kanto"].castle == 2
    assert session.state.holdings["red"]["kanto"].provinces == 1
    # winter: rice loss 2 from the corrected pack; blue 0 rice for 6 provinces -> 6 unsupplied: the row is
    # unknown in the pack, so the table enters it from its board
    with pytest.raises(CommandError, match="unknown in the data pack"):
        session.do({"type": "winter_supply"})
    session.do({"type": "winter_supply", "supply": {"blue": {"revolts": 2, "extra_peasants": 3},
                                                    "yellow": {"revolts": 2, "extra_peasants": 2}}})
    assert session.state.rice["red"] == 1  # 3 - 2 (spec 7.1)
    order = []
    while session.state.phase == "winter_revolts":
        player = rules.winter_current(session.state)
        order.append(player)
        session.do({"type": "winter_revolt", "player": player, "region": "kanto" if player == "blue" else "kinai",
                    "armies": 2, "out": {player: 2}})
    # red: 1 rice left for 4 provinces -> 3 unsupplied, a confirmed row: 2 revolts (spec 7.2)
    assert order == ["yellow", "yellow", "red", "red", "blue", "blue"]  # the autumn turn order (spec 7.1)
    session.do({"type": "score"})
    # blue: 6 provinces + 2 castles + Kanto castles 3; red: 4 + its temple + Kanto temples 2; yellow: 4 + a
    # theatre + Kinai theatres 1 (spec 7.3)
    assert session.state.vp["blue"] == 6 + 2 + 3
    assert session.state.vp["red"] == 4 + 1 + 2
    assert session.state.vp["yellow"] == 4 + 1 + 1


def _to_the_actions_with_five_cards_laid(corrections: dict[str, Any]) -> tuple[ShogunRules, Session[Any]]:
    """The scripted game's set-up, then a round whose row is laid by hand as far as it is known (cards 1-5), nobody
    bidding, the special cards taken: at the first action."""
    rules = _rules(corrections)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])
    session.do({"type": "lay_out", "actions": ["taxes", "rice", "castle", "temple", "theatre"],
                "specials": ["chest_plus_1", "rice_plus_1", "six_armies", "attack_plus_1", "defence_plus_1"],
                "events": ["e01", "e02", "e03", "e04"]})
    session.do({"type": "draw_event", "event": "e01"})
    session.do({"type": "bids", "bids": {}, "draw": True})  # nobody bids: a 4-way tie, shuffled by the app
    assert session.undo_blocked()
    for player in session.state.choosing:
        session.do({"type": "take_special", "player": player,
                    "card": next(c for c in session.state.special_row
                                 if session.state.special_row.index(c) + 1 not in session.state.spaces.values())})
    return rules, session


def test_hidden_action_cards_are_turned_up_one_at_a_time() -> None:
    """Spec 4.1 and A1 (default: just before it is carried out): cards 6-10 lie face down; a row laid by hand
    is entered as far as it is known and each hidden card when it is turned up."""
    rules, session = _to_the_actions_with_five_cards_laid(CORRECTIONS)
    row = views.action_row(rules, session.state)
    assert [c["face_up"] for c in row] == [True] * 5 + [False] * 5
    for _ in range(5 * 4):
        session.do({"type": "act", "player": session.state.current_player, "province": None})
    with pytest.raises(CommandError, match="turn up the next action card"):
        session.do({"type": "act", "player": session.state.current_player, "province": None})
    session.do({"type": "reveal_action", "action": "deploy3"})
    assert views.action_row(rules, session.state)[5]["name"] == "Deploy 3"
    with pytest.raises(CommandError, match="known already"):
        session.do({"type": "reveal_action", "action": "taxes"})


def test_a1_the_other_reading_turns_up_one_hidden_card_per_finished_action() -> None:
    """Spec 10 A1 (b): "one hidden card per finished action (card 6 after action 1, ...)". The setting only
    changed what the screen showed: card 6 could not be entered until action 6 (2026-12-01)."""
    rules, session = _to_the_actions_with_five_cards_laid({**CORRECTIONS, "rule_options.a1_reveal": "one_per_action"})
    with pytest.raises(CommandError, match="one hidden card per finished action"):
        session.do({"type": "reveal_action", "action": "deploy3"})  # no action finished yet
    for _ in range(len(session.state.players)):  # action 1 finished
        session.do({"type": "act", "player": session.state.current_player, "province": None})
    session.do({"type": "reveal_action", "action": "deploy3"})
    assert [c["face_up"] for c in views.action_row(rules, session.state)] == [True] * 6 + [False] * 4
    assert views.action_row(rules, session.state)[5]["name"] == "Deploy 3"
    with pytest.raises(CommandError, match="one hidden card per finished action"):
        session.do({"type": "reveal_action", "action": "deploy5"})


def test_bids_without_a_tie_draw_nothing_and_are_no_barrier() -> None:
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    for command, _ in steps()[:3]:
        session.do(command)
    session.do({"type": "bids", "bids": {"blue": {"war_chest_card": 2}, "red": {"war_chest_card": 1},
                                          "yellow": {"province_card": "kii"}}, "draw": True})
    assert "seed" not in (session.records[-1].command or {}) and not session.undo_blocked()


def test_cubes_that_fell_out_by_themselves_are_recorded_and_audited() -> None:
    """Spec 6.1: a cube that falls out between battles waits in the tray; the audit still adds up (12.1)."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])
    session.do({"type": "fell_out", "out": {"yellow": 1}})
    assert session.state.tower.tray == {"yellow": 1} and session.state.tower.inside["yellow"] == 2
    _audit_ok(rules, session)
    assert session.undo_description() == "Fell out of the tower by itself: 1 yellow"


# ---- a field a command does not take is refused (spec 12.1 item 6: the tower record is only as good as what
# ---- is entered; a misspelt "out" must not read as "nothing fell out", spec 2.5)


def test_a_seeding_with_fell_out_for_out_is_refused_not_read_as_nothing_fell_out() -> None:
    """Spec 2.5: what falls out of the tower at the seeding goes back to the supplies; ``fell_out`` for ``out``
    used to read as an empty tray, every cube left inside. Refused, naming the command and the field, and the
    session is as it was."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    before = session.state
    with pytest.raises(CommandError) as refused:
        session.do({"type": "seed_tower", "fell_out": {"blue": 5, "red": 5, "yellow": 4, "purple": 6, "green": 8}})
    assert str(refused.value) == "seed_tower: unknown field 'fell_out'; the fields are out, type"
    assert session.state == before and session.records == () and not session.state.tower_seeded
    session.do(steps()[0][0])  # the same throw spelt right is taken
    assert session.state.tower_seeded


def _one_of_each_command() -> dict[str, dict[str, Any]]:
    """Every command type with fields it takes (not necessarily possible in the phase the test is at)."""
    out = {"blue": 1}
    return {"place": {"player": "blue", "province": "kozuke", "armies": 5}, "deal_start": {"draw": True},
            "seed_tower": {"out": out}, "lay_out": {"draw": True}, "reveal_action": {"action": "deploy3"},
            "draw_event": {"event": "e01"}, "bids": {"bids": {}}, "take_special": {"player": "blue", "card": "x"},
            "act": {"player": "blue", "province": None}, "end_actions": {},
            "battle": {"kind": "neutral", "region": "kanto", "out": out}, "set_region": {"player": "blue"},
            "adjust": {"player": "blue", "rice": 1}, "fell_out": {"out": out}, "correct_throw": {"out": out},
            "winter_supply": {"rice_loss": 2}, "winter_draw": {"player": "blue", "draw": True},
            "winter_revolt": {"province": "kozuke", "out": out}, "score": {}}


def test_every_command_refuses_a_field_it_does_not_take_in_one_sentence_and_changes_nothing() -> None:
    from games.shogun.rules import COMMANDS

    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])
    before, records = session.state, session.records
    commands = _one_of_each_command()
    assert set(commands) == set(COMMANDS)
    for kind, fields in commands.items():
        assert set(fields) <= COMMANDS[kind].fields, kind
        with pytest.raises(CommandError) as refused:
            session.do({"type": kind, **fields, "player_name": "Ann"})
        message = str(refused.value)
        assert message.startswith(f"{kind}: unknown field 'player_name'; the fields are "), message
        assert "\n" not in message and ", ".join(sorted(COMMANDS[kind].fields | {"type"})) in message
        assert session.state == before and session.records == records


def test_a_field_inside_a_command_is_checked_too() -> None:
    """A battle entered with its numbers (no map): a misspelt target field would have counted 0 defending
    armies (spec 6.3: all defending armies go into the tower); a misspelt player in the winter supply would
    have left that player's row to the pack (spec 7.2)."""
    rules = _rules()
    config = {"players": ["blue", "red", "yellow"], "map": False}
    session: Session[Any] = Session(rules, config)
    session.do({"type": "seed_tower", "out": {"blue": 7, "red": 7, "yellow": 7, "green": 10}})
    with pytest.raises(CommandError, match=r"^battle.target: unknown field 'army'; the fields are armies, "
                                           r"buildings, revolt_tokens$"):
        session.do({"type": "battle", "kind": "attack", "attacker": "blue", "defender": "red", "moved": 3,
                    "source": {"armies": 4}, "target": {"army": 2}, "region": "kanto", "out": {"blue": 3}})
    with pytest.raises(CommandError, match=r"^battle.special_cards: unknown field 'attack_plus1'"):
        session.do({"type": "battle", "kind": "neutral", "attacker": "blue", "region": "kanto",
                    "special_cards": {"attack_plus1": "blue"}})
    with pytest.raises(CommandError, match=r"^winter_supply.supply: unknown field 'blu'; the players are blue, "
                                           r"red, yellow$"):
        session.do({"type": "winter_supply", "supply": {"blu": {"revolts": 1, "extra_peasants": 2}}})
    with pytest.raises(CommandError, match=r"^winter_supply.supply.blue: unknown field 'extra'"):
        session.do({"type": "winter_supply", "supply": {"blue": {"revolts": 1, "extra": 2}}})
    assert len(session.records) == 1


def test_a_game_file_written_before_the_check_still_replays() -> None:
    """The check is made when a command comes in (prepare), not when the log is replayed: a stored command with
    a field it never read replays as it was played."""
    rules = _rules(CORRECTIONS)
    session: Session[Any] = Session(rules, CONFIG)
    session.do(steps()[0][0])
    old = session.records[0]
    stored = replace(old, command={**(old.command or {}), "note": "written by an older app"})
    replayed = Session.replay(rules, CONFIG, [stored])
    assert replayed.state.tower == session.state.tower and replayed.state.supply == session.state.supply
    assert replayed.state.phase == session.state.phase == "lay_out"
