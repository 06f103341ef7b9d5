"""Child process for the SIGKILL durability test: applies commands to a game file until it is killed.

Prints "SEQ<TAB>DESCRIPTION" on stdout (unbuffered) right after each command is acknowledged.
"""

from __future__ import annotations

import os
import random
import sys

from companion.engine import CommandError
from games.fujikoro.rules import GAME_NAME, game_from_pack_raw
from store.sessions import open_session

COMMANDS = [
    {"type": "action", "action": "move"},
    {"type": "action", "action": "gather"},
    {"type": "action", "action": "rest"},
    {"type": "end_turn"},
    {"type": "roll", "dice": ["tooth", "tooth", "metal"]},
    {"type": "roll", "source": "hand", "faces": [["wood", 1], ["metal", "0b"]]},
    {"type": "vp", "player": "A", "points": 1, "reason": "scroll"},
    {"type": "vp", "player": "A", "points": -1, "reason": "took it back"},
]


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    file, session = open_session(path, {GAME_NAME: lambda header: game_from_pack_raw(header.data.get("pack"))})
    while True:
        pick = rng.random()
        try:
            if pick < 0.08:
                applied = session.undo(force=rng.random() < 0.5)
            elif pick < 0.12:
                applied = session.redo()
            else:
                applied = session.do(rng.choice(COMMANDS))
        except CommandError:
            continue
        os.write(1, f"{applied.record.seq}\t{applied.record.description}\n".encode())


if __name__ == "__main__":
    main()
