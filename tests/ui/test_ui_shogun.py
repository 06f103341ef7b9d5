"""A whole 4-player game of Shogun played through the app's screens (issue 17, "Done when"): Shogun is picked
on the Games screen, the new-game screen starts it, and every command of the scripted game
(``tests/games/shogun/script.py``: both years, both winters, 11 battles, 9 revolts) is entered by pressing the
screens' widgets - the draft, the tower's seeding, the lay-out, the event, bids with their ties, the special
cards, each action card for each player (the walk-through's province picker, target, armies, Carry out or No
card here), each throw on the battle helper with its +/- counts, the winter's rice loss and supply rows, the
revolt draws, and the scoring - ending with Ann's win on the scoring screen.

The app leads: the test waits for the screen the app goes to by itself (winter after the autumn round,
scoring after the revolts, the next round after scoring) and never calls the session directly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from games.shogun.pack import default_pack
from tests.games.shogun.script import CORRECTIONS, FINAL_VP, PLAYERS, START, WINTER_1_VP, steps

pytestmark = pytest.mark.ui

Step = dict[str, Any]
ENV = {"FUJIKORO_UI_PLAY": ""}  # a first start: the app opens on Games


def _until(path: str, value: Any, timeout: float = 20) -> Step:
    return {"do": "wait_until", "path": path, "equals": value, "timeout": timeout}


def _press(ident: str, times: int = 1) -> list[Step]:
    return [{"do": "press", "id": ident} for _ in range(times)]


def _command(ident: str) -> list[Step]:
    """A press that sends a command: then wait until the session has answered (the driver then gives the
    screen two frames to lay out what changed before the next press)."""
    return [{"do": "press", "id": ident}, _until("game.busy", False)]


def _throw(out: dict[str, int], back: str) -> list[Step]:
    """On the battle helper: count what came out with +, record it, read the result, continue."""
    presses: list[Step] = [_until("current_screen", "shogun_battle")]
    for colour, n in out.items():
        presses += _press(f"out_{colour}_plus", n)
    presses += _command("throw_record")
    presses.append(_until("shogun.throw_done", True))
    presses += _press("throw_continue")
    presses.append(_until("current_screen", back))
    return presses


def _draft() -> list[Step]:
    """The starting groups in draft turns (spec 2.3): seat order, each player placing the next of their groups
    as script.py's START lists them - the same board as its setup."""
    per_player: dict[str, list[dict[str, Any]]] = {}
    for entry in START:
        per_player.setdefault(entry["player"], []).append(entry)
    presses: list[Step] = []
    colours = [p["colour"] for p in PLAYERS]
    for turn in range(len(per_player[colours[0]])):
        for colour in colours:
            entry = per_player[colour][turn]
            presses += _press("draft_pick") + _press(f"prov_{entry['province']}") + _command(f"group_{entry['armies']}")
    return presses


def game_steps() -> tuple[list[Step], dict[str, Any]]:
    """The driver's steps for the whole game, and what the reads must show."""
    pack_loss = {e: c.rice_loss for e, c in default_pack().events.items()}
    s: list[Step] = [
        _until("current_screen", "games"),
        *_press("play_shogun"),
        _until("current_screen", "shogun_new"),
        {"do": "read", "id": "nav_shogun_round", "key": "nav_round"},
    ]
    for i, player in enumerate(PLAYERS):
        s.append({"do": "text", "id": f"player_name_{i}", "value": player["name"]})
    s += _press("player_colour_3", 2)  # purple -> black -> purple again (blue, red and yellow are taken)
    s += [{"do": "read", "id": "player_colour_3", "key": "colour_3"}]
    s += [{"do": "screenshot", "name": "shogun-new"}, {"do": "layout", "name": "new"}]
    s += _press("start_game")
    s += [_until("current_screen", "shogun_round"), _until("game.phase", "setup")]
    s += _draft()
    expect: dict[str, Any] = {"outcomes": {}, "cancelled": []}
    shot = {"lay_out": False, "bids": False, "act": False, "battle": False, "winter": False}
    round_now = 0
    for i, (command, wanted) in enumerate(steps()):
        kind = command["type"]
        if kind == "seed_tower":
            s += _press("seed_tower") + _throw(command["out"], "shogun_round")
        elif kind == "lay_out":
            round_now += 1
            s.append(_until("current_screen", "shogun_round", 30))
            s.append(_until("game.state.phase", "lay_out"))
            if round_now == 5:
                s.append({"do": "read", "path": "game.state.vp", "key": "vp_after_winter_1"})
            for card in [*command["actions"], *command["specials"], *command.get("events", [])]:
                s += _press(f"lay_{card}")
            if not shot["lay_out"]:
                shot["lay_out"] = True
                s += [{"do": "screenshot", "name": "shogun-lay-out"}, {"do": "layout", "name": "lay_out"}]
            s += _command("lay_done")
        elif kind == "draw_event":
            s += _command(f"event_{command['event']}")
        elif kind == "bids":
            for player, bid in command["bids"].items():
                if "war_chest_card" in bid:
                    s += _press(f"bid_{player}_{bid['war_chest_card']}")
                elif "province_card" in bid:
                    s += _press(f"bid_{player}_province") + _press(f"prov_{bid['province_card']}")
                else:
                    s += _press(f"bid_{player}_none")
            for group in command.get("tie_orders", []):
                for player in group:
                    s += _press(f"tie_{player}")
            if not shot["bids"] and command.get("tie_orders"):
                shot["bids"] = True
                s += [{"do": "screenshot", "name": "shogun-bids"}, {"do": "layout", "name": "bids"}]
            s += _command("bids_reveal")
        elif kind == "take_special":
            s += _command(f"special_{command['card']}")
        elif kind == "act":
            if command["province"] is None:
                s += _command("act_none")
                continue
            s += _press("pick_province") + _press(f"prov_{command['province']}")
            if "to" in command:
                s += _press("pick_target") + _press(f"prov_{command['to']}")
                s += _press("armies_plus", command["armies"] - 1)
            if not shot["act"] and "to" in command:
                shot["act"] = True
                s += [{"do": "screenshot", "name": "shogun-act"}, {"do": "layout", "name": "act"}]
            s += _command("act_go")
            if "out" in command:
                if not shot["battle"] and "to" in command:
                    shot["battle"] = True
                    s += [_until("current_screen", "shogun_battle"), {"do": "screenshot", "name": "shogun-battle"},
                          {"do": "layout", "name": "battle"},
                          {"do": "read", "id": "throw_odds", "key": "odds_text"}]
                s += _throw(command["out"], "shogun_round" if not _last_of_round(i) else "shogun_winter")
        elif kind == "winter_supply":
            s.append(_until("current_screen", "shogun_winter", 30))
            loss = command.get("rice_loss", CORRECTIONS.get("events.e08.rice_loss"))
            s += _press("loss_plus", loss - (pack_loss.get(_winter_event(i)) or 0))
            for player, row in (command.get("supply") or {}).items():
                s += _press(f"sup_{player}_revolts_plus", row["revolts"])
                s += _press(f"sup_{player}_extra_plus", row["extra_peasants"])
            if not shot["winter"]:
                shot["winter"] = True
                s += [{"do": "screenshot", "name": "shogun-winter"}, {"do": "layout", "name": "winter"}]
            s += _command("winter_supply_go")
        elif kind == "winter_draw":
            for pid in command["provinces"]:
                s += _press(f"draw_{pid}")
            s += _command("winter_draw_go")
        elif kind == "winter_revolt":
            last = steps()[i + 1][0]["type"] == "score"
            s += _press(f"revolt_{command['province']}") + _throw(command["out"],
                                                                 "shogun_scoring" if last else "shogun_winter")
        elif kind == "score":
            s += [_until("current_screen", "shogun_scoring"), _until("game.state.phase", "scoring")]
            s += _command("score_winter")
        else:
            raise AssertionError(f"the UI test does not know how to enter {kind}")
        if "winner" in wanted:
            s.append({"do": "read", "path": "shogun.last_outcome", "key": f"outcome_{i}"})
            expect["outcomes"][f"outcome_{i}"] = wanted["winner"]
        if wanted.get("cancelled"):
            s.append({"do": "read", "path": "game.last_description", "key": f"cancel_{i}"})
            expect["cancelled"].append(f"cancel_{i}")
    s += [
        _until("game.state.phase", "over"),
        _until("current_screen", "shogun_scoring"),
        {"do": "read", "id": "winner_text", "key": "winner_text"},
        {"do": "read", "id": "nav_shogun_scoring", "key": "nav_scoring"},
        {"do": "read", "path": "game.state.vp", "key": "vp"},
        {"do": "read", "path": "shogun.failures", "key": "failures"},
        {"do": "screenshot", "name": "shogun-scoring"},
        {"do": "layout", "name": "scoring"},
        *_press("export_button"),
        {"do": "wait_until", "path": "shogun.export_text", "not_empty": True, "timeout": 20},
        {"do": "read", "path": "shogun.export_text", "key": "export"},
        {"do": "quit"},
    ]
    return s, expect


def _last_of_round(index: int) -> bool:
    """The command after this one starts winter (its throw's Continue goes to the Winter screen)."""
    following = steps()[index + 1][0]["type"] if index + 1 < len(steps()) else ""
    return following == "winter_supply"


def _winter_event(index: int) -> str:
    """The event card left face up at this winter: the one of the year's four not drawn in its rounds."""
    year: list[str] = []
    drawn: list[str] = []
    for command, _ in steps()[:index]:
        if command["type"] == "lay_out" and "events" in command:
            year, drawn = list(command["events"]), []
        if command["type"] == "draw_event":
            drawn.append(command["event"])
    left = [e for e in year if e not in drawn]
    assert len(left) == 1
    return left[0]


def test_ui_a_whole_game_of_shogun_through_the_screens(run_app: Callable[..., Any]) -> None:
    driver_steps, expect = game_steps()
    started = time.perf_counter()
    report = run_app(driver_steps, size="800x480", env=ENV)
    took = time.perf_counter() - started
    print(f"\nShogun UI game: {len(driver_steps)} driver steps in {took:.1f} s")
    assert not report["errors"], report["errors"][:5]
    reads = report["reads"]
    assert reads["nav_round"] == "Round" and reads["nav_scoring"] == "Scoring"
    assert reads["colour_3"] == "purple"
    assert reads["failures"] == []
    # every battle and revolt the script names ended as reckoned by hand (spec 6.4-6.6)
    assert {k: reads[k] for k in expect["outcomes"]} == expect["outcomes"]
    # Bo's and Ann's planned actions in provinces that changed hands were cancelled (spec 4.6)
    assert all("cancelled" in reads[k] for k in expect["cancelled"]) and len(expect["cancelled"]) == 2
    assert reads["vp_after_winter_1"] == WINTER_1_VP  # spec 7.3, the first winter
    assert reads["vp"] == FINAL_VP
    assert reads["winner_text"].startswith("Ann won the game")  # spec 8: the most VP
    assert "Saved" in reads["export"] and ".csv" in reads["export"]
    assert took < 240, f"the whole game took {took:.0f} s through the screens"
    # the 800x480 screen stays usable on every screen of the game: no touch target under 48 dp
    assert set(report["layout"]) == {"new", "lay_out", "bids", "act", "battle", "winter", "scoring"}
    for name, problems in report["layout"].items():
        assert problems["small_targets"] == [], (name, problems["small_targets"])


def test_ui_shogun_on_the_tablet_deals_the_start_and_seeds_the_tower(run_app: Callable[..., Any]) -> None:
    """The 1280x800 tablet, in German: the new-game form, the app's random start (a draw with its seed in the
    log, spec 12.1 item 10) and the seeding on the battle helper (spec 2.5: 7 cubes of each player, 10 green);
    Shogun's own catalog translates its screens."""
    steps_small: list[Step] = [
        _until("current_screen", "games"),
        *_press("play_shogun"),
        _until("current_screen", "shogun_new"),
        {"do": "layout", "name": "new"}, {"do": "screenshot", "name": "shogun-new"},
        *_press("start_game"),
        _until("current_screen", "shogun_round"),
        *_press("deal_start"),
        _until("game.state.prompt.player", None),
        {"do": "layout", "name": "seed"}, {"do": "screenshot", "name": "shogun-seed"},
        *_press("seed_tower"),
        _until("current_screen", "shogun_battle"),
        *_press("out_blue_plus", 7),
        {"do": "layout", "name": "battle"}, {"do": "screenshot", "name": "shogun-battle"},
        {"do": "read", "id": "goes_in", "key": "goes_in"},
        {"do": "read", "id": "nav_shogun_round", "key": "nav_round"},
        {"do": "read", "id": "throw_title", "key": "title"},
        *_command("throw_record"),
        *_press("throw_continue"),
        _until("current_screen", "shogun_round"),
        # the table (emulated): round 1 of 8 on the bar, nobody's turn while the cards are laid out
        _until("status.hardware_ok", True),
        _until("status.table.lights.view.round", 1),
        {"do": "wait", "seconds": 0.5},
        {"do": "read_leds", "key": "leds"},
        {"do": "quit"},
    ]
    report = run_app(steps_small, size="1280x800", env={**ENV, "FUJIKORO_UI_LANG": "de"})
    assert not report["errors"], report["errors"][:5]
    reads = report["reads"]
    assert reads["goes_in"].startswith("Auf einmal einwerfen: 7 blau, 10 grün")  # spec 2.5: 7 each, 10 green
    assert reads["nav_round"] == "Runde" and reads["title"] == "Den Turm füllen (Spez. 2.5)"
    from firmware_bridge import ledmap

    leds = ledmap.default()
    chain = [tuple(rgb) for rgb in reads["leds"]["chain"]]
    bar = [chain[i] for i in leds.countdown]
    per_round = len(bar) // 8
    assert bar[:per_round] == [leds.colour("rope")] * per_round  # round 1 now (games/shogun/table.py)
    assert set(bar[per_round:]) == {leds.colour("bar_unlit")}
    assert tuple(reads["leds"]["player"]) == (0, 0, 0)
    for name, problems in report["layout"].items():
        assert problems["small_targets"] == [], (name, problems["small_targets"])
