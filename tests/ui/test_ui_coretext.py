"""The rules engine's sentences in Czech and German: every line that real fights and real commands
produce is one the app knows, and it comes out translated with its names and numbers intact."""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from companion.engine import Session
from games.fujikoro.app.sentences import SENTENCES, WORDS
from games.fujikoro.combat import (
    Combatant,
    CombatError,
    DragonStats,
    Mode,
    retreat,
    roll_for_turn,
    start_dragon_fight,
    start_samurai_fight,
)
from games.fujikoro.gear import GearError, gear_from_json, inspect
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import FujiKoro, SetupError, parse_setup, setup_checklist
from ui import coretext
from ui.tr import tr

PACK = default_pack()
GEARS: list[dict[str, Any]] = [
    {"helmet": ["MMMM"], "weapon_left": ["WWWMM"], "weapon_right": ["MMM"]},
    {"helmet": ["MMW", "MW.", "W.."], "magic": ["helmet"], "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]},
    {"helmet": ["TT"], "weapon_left": ["WW", "MM"]},
    {"helmet": ["W"], "weapon_left": ["TTTT"], "sandals": ["WWM"]},
]
MONKS = [None, "wood", "metal", "none"]


@pytest.fixture(autouse=True)
def _fujikoro_hosted() -> Iterator[None]:
    """The app hosting Fuji Koro: its sentence shapes are the ones matched (ui.coretext.use)."""
    coretext.use(SENTENCES, WORDS)
    yield
    coretext.use(())


def fight_logs() -> Iterator[str]:
    """The log lines of 160 fights to their ends: every dragon colour, joiners, monks, magic, retreats."""
    dragons = ["green_1", "blue_2", "red_4", "legendary", "green_3"]
    for k, dragon_id in zip(range(120), itertools.cycle(dragons), strict=False):
        mode = Mode.COOP if k % 4 == 3 else Mode.COMPETITIVE
        stats = DragonStats.from_figure(PACK.dragons[dragon_id], PACK, mode=mode, players=3)
        samurai = [Combatant(name, gear_from_json(GEARS[(k + i) % len(GEARS)], PACK),
                             heroic_monk=None if dragon_id == "legendary" else MONKS[(k + i) % len(MONKS)])
                   for i, name in enumerate(["Aiko", "Botan", "Chiyo"][: 1 + k % 3])]
        fight = start_dragon_fight(stats, samurai, PACK, mode=mode, dragon_attacks=k % 5 == 4)
        for seed in range(k * 100, k * 100 + 60):
            if fight.is_over:
                break
            fight = roll_for_turn(fight, PACK, seed=seed)
            if k % 7 == 0 and not fight.is_over:
                for f in fight.fighters:
                    with contextlib.suppress(CombatError):
                        fight = retreat(fight, f.name, PACK)
        yield from fight.log
    for k in range(40):
        a = Combatant("Aiko", gear_from_json(GEARS[k % 4], PACK))
        d = Combatant("Botan", gear_from_json(GEARS[(k + 1) % 4], PACK))
        fight = start_samurai_fight(a, d, PACK)
        for seed in range(k * 50, k * 50 + 40):
            if fight.is_over:
                break
            fight = roll_for_turn(fight, PACK, seed=seed)
        yield from fight.log


def descriptions() -> Iterator[str]:
    """What the log and the Undo button say for each kind of command, from the game's own describe()."""
    seeds = itertools.count(500)
    s = Session(FujiKoro(PACK), {"players": [{"name": "Aiko"}, {"name": "Botan"}, {"name": "Chiyo"}]},
                new_seed=lambda: next(seeds))
    game, state = s.game, s.state
    commands: list[dict[str, Any]] = [
        {"type": "start"}, {"type": "vp", "points": 5, "category": "dragons"},
        {"type": "vp", "points": -2, "reason": "miscounted a scroll"}, {"type": "action", "action": "move"},
        {"type": "action", "action": "explore", "level": 2}, {"type": "explore", "level": 3},
        {"type": "scroll"}, {"type": "gear_card_vp"}, {"type": "end_turn"},
        {"type": "dragon_revealed", "dragon": "red_2"},
        {"type": "dragon_defeated", "dragon": "green_1", "players": ["Aiko"]},
        {"type": "dragon_defeated", "dragon": "green_1", "players": ["Aiko", "Botan"]},
        {"type": "roll", "dice": [["tooth", 3], ["tooth", "0b"]], "source": "hand"},
        {"type": "roll", "dice": [["wood", 1]]},
        {"type": "escape", "via": "rope"}, {"type": "escape", "via": "secret_exit"},
        {"type": "magical_gear", "gear": "helmet"}, {"type": "magical_gear", "gear": "sandals", "completed": False},
        {"type": "life_lost"}, {"type": "life_lost", "reason": "lava"}, {"type": "status_tokens", "delta": -1},
        {"type": "monk_defeat"}, {"type": "hostile_defeated"}, {"type": "tamed"},
        {"type": "end_game"}, {"type": "end_game", "reason": "the volcano erupts"},
        {"type": "fight_start", "dragon": "green_2", "samurai": [{"player": "Aiko", "gear": GEARS[0]}]},
        {"type": "fight_start", "dragon": "blue_1", "dragon_attacks": True,
         "samurai": [{"player": "Aiko", "gear": GEARS[0]}, {"player": "Botan", "gear": GEARS[1]}]},
        {"type": "samurai_fight_start", "attacker": {"player": "Aiko"}, "defender": {"player": "Botan"}},
        {"type": "fight_retreat", "player": "Aiko"}, {"type": "fight_surrender", "player": "Botan"},
        {"type": "fight_cancel"}, {"type": "fight_cancel", "reason": "wrong dragon"},
    ]
    for command in commands:
        yield game.describe(state, command)
    # A fight through the session: its rolls and the helmet choice are described from the live fight.
    s.do({"type": "fight_start", "dragon": "red_4", "samurai": [
        {"player": "Aiko", "gear": GEARS[1], "heroic_monk": "wood"}, {"player": "Botan", "gear": GEARS[0]}]})
    for seed in range(40):
        combat = s.state_json().get("combat") or {}
        if not combat.get("active"):
            break
        yield s.do({"type": "fight_roll", "seed": seed}).record.description
    yield from s.state_json()["combat"]["log"]


ILLEGAL_GEARS: list[dict[str, Any]] = [
    {"helmet": ["TTTT", "TTTT", "TTTT"], "sandals": ["WWW"]},
    {"weapon_left": ["WWWWW", "M....", "M...."], "weapon_right": ["MMM", "M..", "M.."]},
    {"weapon_left": ["W.W..", "W.W.."]},
    {"weapon_left": [".....", "....W"], "weapon_right": ["W..", "W.."]},
    {"weapon_left": [".....", "...WW"], "weapon_right": ["WW.", "...", "..W"]},
    {"magic": ["helmet", "sandals", "weapon"]},
]


def gear_problems() -> Iterator[str]:
    """Why gear is illegal, on every board of the data pack."""
    for board in PACK.boards:
        for gear in ILLEGAL_GEARS:
            try:
                yield from inspect(gear_from_json({**gear, "board": board}, PACK), PACK).problems
            except GearError:
                continue  # a grid this board does not have


def checklists() -> Iterator[str]:
    """The setup checklist for every player count, both modes, every scenario, with and without tokens."""
    names = ["Aiko", "Botan", "Chiyo", "Daigo", "Emi", "Fumi"]
    boards = ["tomoe", "mitsuhide", "takeko", "masako", "yoshihiro", "masatsura"]
    for n, mode, scenario, tokens, mixed in itertools.product(range(1, 7), ("competitive", "coop"), range(9),
                                                              (False, True), (False, True)):
        players = [{"name": names[i], "board": boards[i] if mixed else "symmetric"} for i in range(n)]
        try:
            setup = parse_setup({"players": players, "mode": mode, "scenario": scenario,
                                 "adventure_tokens": tokens}, PACK)
        except SetupError:
            continue  # a scenario this mode or player count does not allow
        yield from setup_checklist(setup, PACK)


ENDINGS = ["the Countdown Token reached the end of the track", "all objectives achieved: everyone wins",
           "the Legendary Dragon was killed instead of tamed, so everyone loses",
           "Aiko lost a second Life, so everyone loses (EN p.15)", "ended by the table: we ran out of time"]

LINES = sorted(set(itertools.chain(fight_logs(), descriptions(), gear_problems(), checklists(), ENDINGS)))


def test_the_corpus_covers_the_fight_and_its_endings() -> None:
    text = "\n".join(LINES)
    for needle in ("is defeated!", "is knocked out", "heals fully", "heroic monk throws", "retreats",
                   "broke off", "rolls first", "weapon loses", "steal", "at most", "magical cube sits",
                   "spans both grids", "no monk unlocks", "Tile piles", "Lava Phase", "Tokugawa", "plays Tomoe"):
        assert needle in text, needle


def test_every_core_line_is_known() -> None:
    unknown = [line for line in LINES if not coretext.known(line)]
    assert unknown == [], "no sentence in games/fujikoro/app/sentences.py matches these"
    assert len(LINES) > 300


NUMBERS = re.compile(r"\d+")
#: The corpus's own free text (reasons typed by players), which stays as typed.
FREE_TEXT = re.compile(r"wrong dragon|miscounted a scroll|the volcano erupts|lava|we ran out of time|"
                       r"Scenario \d+: .*|Scénář \d+: .*|Szenario \d+: .*")  # scenario names are data
#: English words that must not survive a translation (names, numbers and free text aside).
ENGLISH = re.compile(r"\b(dice|die(?=:)|hits|rolls|damage|health|the|and|helmet|weapon|dragon|remove|wood|metal|"
                     r"tooth|fights?|defeats?|takes|turn|round|VP)\b")


@pytest.mark.parametrize("language", ["cs", "de"])
def test_core_lines_are_translated_keeping_names_and_numbers(language: str) -> None:
    tr.switch(language)
    try:
        for line in LINES:
            shown = coretext.translate(line)
            assert shown != line, line
            assert sorted(NUMBERS.findall(shown)) == sorted(NUMBERS.findall(line)), (line, shown)
            left = ENGLISH.findall(FREE_TEXT.sub("", shown))
            assert not left, (line, shown, left)
            for name in ("Aiko", "Botan", "Chiyo"):
                assert shown.count(name) == line.count(name), (line, shown)
    finally:
        tr.switch("en")


def test_english_and_unknown_lines_stay_as_they_are() -> None:
    tr.switch("en")
    assert coretext.translate("Aiko +3 VP (scrolls)") == "Aiko +3 VP (scrolls)"
    tr.switch("de")
    try:
        assert coretext.translate("Something the core never says") == "Something the core never says"
        assert coretext.translate("Aiko +3 VP (scrolls)") != "Aiko +3 VP (scrolls)"
    finally:
        tr.switch("en")


def test_a_message_is_translated_by_its_key_not_by_matching_english() -> None:
    """Issue 16 point 2: a Text carries its key; its fields are translated in turn."""
    from companion.text import say
    from ui.tr import tr

    line = say("Undo: {what}", what=say("Redo: {what}", what="Aiko +2 VP (scroll)"))
    try:
        tr.switch("cs")
        assert coretext.translate(line) == "Zpět: Znovu: Aiko +2 VB (scroll)"
        # The same words as plain English (a record from an older file) still read by matching.
        assert coretext.translate(str(line)) == "Zpět: Znovu: Aiko +2 VB (scroll)"
    finally:
        tr.switch("en")


@pytest.mark.parametrize("language", ["cs", "de"])
def test_the_log_lines_are_messages_and_read_the_same_by_key_as_by_matching(language: str) -> None:
    """Issue 16 point 2: the rules' log lines carry their message key; the translation by key is the one
    an older file's plain English gets by matching, so both kinds of game file read alike."""
    from companion.text import Text

    said = [line for line in descriptions() if isinstance(line, Text)]
    assert len(said) > 30
    tr.switch(language)
    try:
        for line in said:
            assert coretext.translate(line) == coretext.translate(str(line)), line.to_json()
    finally:
        tr.switch("en")
