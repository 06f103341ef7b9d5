"""Fuji Koro (Game Brewer, 2019) as a game of the Table Companion.

The rules live in :mod:`companion.fujikoro_game` for now (with gear, combat and odds); this package is
how the app meets them: the registry finds ``GAME`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.datapack import load
from companion.fujikoro_game import GAME_NAME, MAX_PLAYERS, game_from_pack_raw
from companion.registry import GameModule, NewGame


def _rules(data: Mapping[str, Any]) -> Any:
    return game_from_pack_raw(data.get("pack"))


def _new_game(overrides: Mapping[str, Any]) -> NewGame:
    """A new game keeps the whole data pack, with the group's corrections, in its file."""
    pack = load(dict(overrides))
    return NewGame(pack.version, {"pack": pack.raw})


GAME = GameModule(name=GAME_NAME, title="Fuji Koro", rules=_rules, new_game=_new_game, players=(1, MAX_PLAYERS))
