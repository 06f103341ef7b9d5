"""``fujikoro data show|set|reset|validate``: see and correct the game-data pack.

The verbs are the shared ones (:mod:`ui.cli.packdata`) on Fuji Koro's pack (``games.fujikoro.DATA_PACK``):
corrections go to the group's override file (see :mod:`store.overrides`); the shipped pack is never edited.
Every change is validated against the whole pack before it is saved, so a typo cannot break the app: it is
refused with the field path and the bad value.
"""

from __future__ import annotations

from typing import Any

from games.fujikoro.rules import GAME_NAME
from ui.cli.packdata import add_data_verbs
from ui.cli.packdata import current_pack as group_pack

COMMAND = "fujikoro data"


def register(subparsers: Any) -> None:
    add_data_verbs(subparsers, game=GAME_NAME, command=COMMAND, example_key="dragons.green_2.health",
                   what="dragons, dice, countdown ...")


def current_pack() -> Any:
    """The shipped pack with the group's corrections; a broken corrections file is a clear error."""
    return group_pack(GAME_NAME, COMMAND)
