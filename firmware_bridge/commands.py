"""The table's inputs as values: which button (protocol.md §6) and tray dice -> DiceRoll.

What a button means is the open game's (``GameApp.button`` in the app): the bridge reports which button
was pressed and the state the table showed, never a game's command.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from companion.dice import DiceRoll, DiceSource, Die, DieResult, Face, from_faces
from firmware_bridge.firmware import protocol


class Button(enum.IntEnum):
    """Table buttons; the values are the BUTTON ids on the wire (protocol.md). The names are the labels
    of the three buttons on the table; each game decides what they do."""

    END_TURN = protocol.BUTTON_END_TURN
    DRAGON_ROLL = protocol.BUTTON_DRAGON_ROLL
    UNDO = protocol.BUTTON_UNDO


def dice_from_wire(results: Sequence[tuple[int, int, bool]], dice: Mapping[str, Die]) -> DiceRoll:
    """A DICE payload (kind index, hits, broken) as the companion dice value, source TRAY.

    ``dice`` is the open game's dice by kind: a kind or face it does not have raises
    companion.dice.DiceError. With no game's dice (empty) the roll is taken as the tray read it.
    """
    faces = [(protocol.DIE_KINDS[kind], Face(hits, broken)) for kind, hits, broken in results]
    if not dice:
        return DiceRoll(tuple(DieResult(kind, face) for kind, face in faces), DiceSource.TRAY)
    return from_faces(faces, dice, DiceSource.TRAY)
