"""A tiny second game: a counter. It proves the platform knows no game: it registers itself and plays
through the session engine, the store, the hub, the table's LEDs (``leds.py``: the bar fills towards the
goal) and the app (``app/``: one screen, reached from the Games screen) with no change to any shared file.
The app finds it through ``TABLE_COMPANION_GAMES=counter_game`` (with ``tests`` on the path).

Commands: ``{"type": "add", "n": 3}`` adds (only positive numbers), ``{"type": "random"}`` adds a die
the app rolls (an undo barrier, seeded in the log); the game is over at 100.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.engine import CommandError, Outcome, PlayerResult, Result
from companion.registry import GameModule, NewGame, register


@dataclass(frozen=True, slots=True)
class Tally:
    total: int = 0


class Counter:
    name = "counter"
    version = "1"

    def __init__(self, goal: int = 100) -> None:
        self.goal = goal

    def setup(self, config: Mapping[str, Any]) -> Tally:
        return Tally(int(config.get("start", 0)))

    def prepare(self, state: Tally, command: Mapping[str, Any], new_seed: Callable[[], int]) -> dict[str, Any]:
        out = dict(command)
        if out["type"] == "random" and "seed" not in out:
            out["seed"] = new_seed()
        return out

    def apply(self, state: Tally, command: Mapping[str, Any]) -> Outcome[Tally]:
        if command["type"] == "add":
            if command["n"] < 0:
                raise CommandError("only positive numbers are added")
            total = state.total + command["n"]
            return Outcome(Tally(total), (("added", {"n": command["n"], "total": total, "goal": self.goal}),))
        if command["type"] == "random":
            total = state.total + random.Random(command["seed"]).randint(1, 6)
            return Outcome(Tally(total), (("added", {"total": total, "goal": self.goal}),))
        raise CommandError("unknown command")

    def describe(self, state: Tally, command: Mapping[str, Any], events: Any = None) -> str:
        return f"{command['type']} {command.get('n', '')}".strip()

    def is_automated_random(self, command: Mapping[str, Any]) -> bool:
        return bool(command["type"] == "random")

    def is_over(self, state: Tally) -> bool:
        return state.total >= self.goal

    def state_json(self, state: Tally) -> dict[str, Any]:
        return {"total": state.total, "goal": self.goal, "phase": "ended" if self.is_over(state) else "playing"}

    def result(self, state: Tally) -> Result | None:
        """A finished count is the group's one shared result: category "count", no tie-break."""
        if not self.is_over(state):
            return None
        return Result("Counter", None, True, (PlayerResult("Everyone", state.total, 1, True, colour="white",
                                                           categories={"count": state.total}),))


def _app() -> Any:
    from counter_game.app import game_app

    return game_app()


GAME = GameModule(
    name="counter",
    title="Counter",
    rules=lambda data: Counter(int(data.get("goal", 100))),
    new_game=lambda _overrides: NewGame("1", {"goal": 100}),
    players=(1, 1),
    app=_app,
    package=__name__,
)
register(GAME)
