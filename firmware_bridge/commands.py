"""What the table's inputs mean to the session: the button -> command table and tray dice -> DiceRoll.

The one place to align with the session's command vocabulary (companion session/combat commands).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from companion.dice import DiceRoll, DiceSource, Die, DieResult, Face, from_faces
from firmware_bridge.firmware import protocol


class Button(enum.IntEnum):
    """Table buttons; the values are the BUTTON ids on the wire (protocol.md)."""

    END_TURN = protocol.BUTTON_END_TURN
    DRAGON_ROLL = protocol.BUTTON_DRAGON_ROLL
    UNDO = protocol.BUTTON_UNDO


# The command each button sends to the session. Edit here to follow the session's command names. Undo is
# not a command (it walks the session's log): its entry is None and the app calls the session's undo.
BUTTON_COMMANDS: Mapping[Button, Mapping[str, Any] | None] = {
    Button.END_TURN: {"type": "end_turn"},
    Button.DRAGON_ROLL: {"type": "fight_roll", "who": "dragon"},
    Button.UNDO: None,
}


def command_for(button: Button) -> dict[str, Any] | None:
    """A fresh copy of the command for ``button`` (callers may add fields such as a state id); None for a
    button that is not a command (Undo)."""
    command = BUTTON_COMMANDS[button]
    return None if command is None else dict(command)


def dice_from_wire(results: Sequence[tuple[int, int, bool]], dice: Mapping[str, Die]) -> DiceRoll:
    """A DICE payload (kind index, hits, broken) as the companion dice value, source TRAY.

    ``dice`` is the open game's dice by kind: a kind or face it does not have raises
    companion.dice.DiceError. With no game's dice (empty) the roll is taken as the tray read it.
    """
    faces = [(protocol.DIE_KINDS[kind], Face(hits, broken)) for kind, hits, broken in results]
    if not dice:
        return DiceRoll(tuple(DieResult(kind, face) for kind, face in faces), DiceSource.TRAY)
    return from_faces(faces, dice, DiceSource.TRAY)
