"""Fuji Koro (Game Brewer, 2019) as a game of the Table Companion.

| module | owns |
|---|---|
| `rules/` | the rules on the session engine: a module per subject (setup, turns, countdown, scoring, coop, |
| | scenarios, fights ...) and one command registry, `rules/commands.py` (see `rules/__init__.py`) |
| `gear.py`, `combat.py`, `odds.py` | gear grids, dragon and samurai fights, exact fight odds |
| `pack.py`, `data/fujikoro.toml` | the data pack (every number with its status) |
| `table.py` | the LED script: lava markers, the countdown bar, the rope, the player light |
| `app/` | the app's screens (`.py` + `.kv`) and their view models |
| `cli/` | the command-line verbs (`fujikoro game`, `odds`, `gear inspect`, `read-board` ...) |

The registry finds ``GAME`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.datapack import PackSpec
from companion.registry import GameModule, NewGame
from games.fujikoro.cli import register as register_cli
from games.fujikoro.pack import DataPack, load, parse, shipped_raw
from games.fujikoro.rules import GAME_NAME, MAX_PLAYERS, game_from_pack_raw


def _app() -> Any:
    """The app's screens (imported only by the app: the command line never loads Kivy)."""
    from games.fujikoro.app import game_app

    return game_app()


def _rules(data: Mapping[str, Any]) -> Any:
    return game_from_pack_raw(data.get("pack"))


def _new_game(overrides: Mapping[str, Any]) -> NewGame:
    """A new game keeps the whole data pack, with the group's corrections, in its file."""
    pack = load(dict(overrides))
    return NewGame(pack.version, {"pack": pack.raw})


def _summary(pack: DataPack) -> str:
    return f"{len(pack.dragons)} dragons, {len(pack.boards)} boards"


#: The data pack for the shared data verbs (``fujikoro data show|set|reset|validate``).
DATA_PACK = PackSpec(shipped_raw=shipped_raw, load=load, parse=parse, summary=_summary)

GAME = GameModule(name=GAME_NAME, title="Fuji Koro", rules=_rules, new_game=_new_game, players=(1, MAX_PLAYERS),
                  cli=register_cli, app=_app, data_pack=DATA_PACK)
