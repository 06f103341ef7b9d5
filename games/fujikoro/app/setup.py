"""The new-game form: players (name, colour, board or character), mode, scenario, Adventure Tokens,
and the setup checklist for this player count, recomputed as the form changes.

The checklist and the validation come from the game module (:func:`games.fujikoro.rules.parse_setup`
and :func:`~games.fujikoro.rules.setup_checklist`), so the form refuses exactly what the session
would refuse, with the same sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty

from games.fujikoro.pack import DataPack
from games.fujikoro.rules import MAX_PLAYERS, RULES_VERSION, SetupError, parse_setup, setup_checklist
from ui import coretext
from ui import players as players_form
from ui.theme import PLAYER_COLOURS
from ui.tr import tr


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    name: str
    colour: str
    board: str = "symmetric"


@dataclass(frozen=True, slots=True)
class GameSetup:
    players: tuple[PlayerSetup, ...]
    mode: str = "competitive"
    scenario: int = 0
    adventure_tokens: bool = False

    def config(self) -> dict[str, Any]:
        return {
            "players": [{"name": p.name, "colour": p.colour, "board": p.board} for p in self.players],
            "mode": self.mode,
            "scenario": self.scenario,
            "adventure_tokens": self.adventure_tokens,
        }


class RulesGameSetup(GameSetup):
    """A new game from the form is played by the current turn rules (a setup without ``rules`` is an old game)."""

    __slots__ = ()

    def config(self) -> dict[str, Any]:
        return {**GameSetup.config(self), "rules": RULES_VERSION}


DEFAULT_NAMES = ("Aiko", "Botan", "Chiyo", "Daiki", "Emi", "Fumio")
COLOURS = tuple(PLAYER_COLOURS)


class SetupModel(EventDispatcher):  # type: ignore[misc]
    players = ListProperty([])  # [{"name", "colour", "board"}]
    mode = StringProperty("competitive")
    scenario = NumericProperty(0)
    adventure_tokens = BooleanProperty(False)
    checklist = ListProperty([])
    error = StringProperty("")
    valid = BooleanProperty(False)
    scenario_text = StringProperty("")
    pack = ObjectProperty(None)

    def __init__(self, pack: DataPack, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pack = pack
        self.players = [
            {"name": DEFAULT_NAMES[i], "colour": COLOURS[i], "board": "symmetric"} for i in range(3)
        ]
        for name in ("players", "mode", "scenario", "adventure_tokens", "pack"):
            self.fbind(name, self.refresh)
        tr.bind(language=self.refresh)
        self.refresh()

    # ---- editing ----------------------------------------------------------------------------
    def add_player(self) -> None:
        if len(self.players) >= MAX_PLAYERS:
            return
        used_names = {p["name"] for p in self.players}
        used_colours = {p["colour"] for p in self.players}
        name = next(n for n in DEFAULT_NAMES if n not in used_names)
        colour = next(c for c in COLOURS if c not in used_colours)
        board = "symmetric" if all(p["board"] == "symmetric" for p in self.players) else self._free_character()
        self.players = [*self.players, {"name": name, "colour": colour, "board": board}]

    def remove_player(self, index: int) -> None:
        if len(self.players) > 1:
            self.players = [p for i, p in enumerate(self.players) if i != index]

    def rename(self, index: int, name: str) -> None:
        changed = players_form.renamed(self.players, index, name)
        if changed is not None:
            self.players = changed

    def next_colour(self, index: int) -> None:
        changed = players_form.next_colour(self.players, index, COLOURS)
        if changed is not None:
            self.players = changed

    def next_board(self, index: int) -> None:
        """Cycle symmetric -> characters; switching one player to characters switches all (EN p.2)."""
        boards = ["symmetric", *sorted(b for b in self.pack.boards if b != "symmetric")]
        current = self.players[index]["board"]
        nxt = boards[(boards.index(current) + 1) % len(boards)] if current in boards else boards[0]
        players = [dict(p) for p in self.players]
        if nxt == "symmetric":
            for p in players:
                p["board"] = "symmetric"
        else:
            taken = {p["board"] for i, p in enumerate(players) if i != index}
            while nxt in taken and nxt != "symmetric":
                nxt = boards[(boards.index(nxt) + 1) % len(boards)]
            players[index]["board"] = nxt
            if nxt == "symmetric":
                for p in players:
                    p["board"] = "symmetric"
            else:
                for _i, p in enumerate(players):
                    if p["board"] == "symmetric":
                        p["board"] = self._free_character({q["board"] for q in players})
        self.players = players

    def _free_character(self, taken: set[str] | None = None) -> str:
        taken = taken if taken is not None else {p["board"] for p in self.players}
        for board in sorted(self.pack.boards):
            if board != "symmetric" and board not in taken:
                return board
        return "symmetric"

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if mode not in self.pack.scenarios[self.scenario].modes:
            self.scenario = 0

    def next_scenario(self, step: int = 1) -> None:
        numbers = [n for n, s in sorted(self.pack.scenarios.items()) if self.mode in s.modes]
        current = numbers.index(self.scenario) if self.scenario in numbers else 0
        self.scenario = numbers[(current + step) % len(numbers)]

    # ---- derived ----------------------------------------------------------------------------
    def game_setup(self) -> GameSetup:
        return RulesGameSetup(
            players=tuple(PlayerSetup(p["name"].strip(), p["colour"], p["board"]) for p in self.players),
            mode=self.mode,
            scenario=int(self.scenario),
            adventure_tokens=bool(self.adventure_tokens),
        )

    def refresh(self, *_: Any) -> None:
        spec = self.pack.scenarios.get(int(self.scenario))
        name = spec.name if spec is not None else "?"
        self.scenario_text = (tr._("Base game") if self.scenario == 0
                              else tr.f("Scenario {n}: {name}", n=int(self.scenario), name=name))
        try:
            setup = parse_setup(self.game_setup().config(), self.pack)
        except SetupError as error:
            self.error = str(error)
            self.valid = False
            self.checklist = []
            return
        self.error = ""
        self.valid = True
        self.checklist = [coretext.translate(item) for item in setup_checklist(setup, self.pack)]
