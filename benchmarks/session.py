"""Session figures: durable acknowledgement time per command, and replay time of a 10,000-command log.

Targets (issue 4): median ack <= 5 ms, replay of 10,000 commands <= 0.5 s.
Run: python benchmarks/session.py [--acks N] [--replay N] [--dir DIR]   (DIR: where the game file goes;
default a temp dir - put it on the tablet's real storage to measure that disk).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.engine import CommandError, Session
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import GAME_NAME, FujiKoro
from store.gamelog import GameFile, Header, Stamped
from store.sessions import factories, new_session, open_session

FACTORIES: dict[str, Any] = factories()
COMMANDS = [
    {"type": "action", "action": "move"},
    {"type": "action", "action": "explore", "level": 1},
    {"type": "action", "action": "rest"},
    {"type": "end_turn"},
    {"type": "roll", "dice": ["tooth", "tooth", "metal", "wood"]},
    {"type": "vp", "player": "A", "points": 1, "reason": "scroll"},
    {"type": "vp", "player": "A", "points": -1, "reason": "took it back"},
    {"type": "dragon_revealed", "dragon": "blue_1"},
]


def drive(session: Session[Any], count: int, rng: random.Random, timings: list[float] | None = None) -> None:
    done = 0
    while done < count:
        pick = rng.random()
        start = time.perf_counter()
        try:
            if pick < 0.05:
                session.undo(force=True)
            elif pick < 0.07:
                session.redo()
            else:
                command = rng.choice(COMMANDS)
                if command["type"] == "vp" and session.state.players[0].vp >= 20:
                    command = COMMANDS[6]  # stay clear of the final chapter: this log is a long middle game
                session.do(command)
        except CommandError:
            continue
        if timings is not None:
            timings.append(time.perf_counter() - start)
        done += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acks", type=int, default=500)
    parser.add_argument("--replay", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    pack = default_pack()
    header = Header(GAME_NAME, pack.version, {"players": ["A", "B", "C", "D"]}, {"pack": pack.raw})

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        file, session = new_session(Path(tmp) / "bench.fujikoro-game", header, FACTORIES)
        timings: list[float] = []
        with file:
            drive(session, args.acks, random.Random(1), timings)
        timings.sort()
        median = statistics.median(timings) * 1000
        p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))] * 1000
        print(f"durable ack (WAL, synchronous=FULL), {len(timings)} commands: median {median:.2f} ms, p99 {p99:.2f} ms")

        game = FujiKoro(pack)
        seeds = random.Random(2)
        memory = Session(game, header.config, new_seed=lambda: seeds.getrandbits(32))
        drive(memory, args.replay, random.Random(3))
        records = memory.records
        start = time.perf_counter()
        replayed = Session.replay(game, header.config, records)
        replay_s = time.perf_counter() - start
        assert replayed.state == memory.state and not memory.is_over
        print(f"replay of {len(records)} log records in memory: {replay_s:.3f} s")

        path = Path(tmp) / "replay.fujikoro-game"
        GameFile.create(path, header, [Stamped(r, 0.0) for r in records]).close()
        start = time.perf_counter()
        file, reopened = open_session(path, FACTORIES)
        open_s = time.perf_counter() - start
        file.close()
        assert reopened.state == memory.state
        print(f"open + read + replay of the same {len(records)} records from SQLite: {open_s:.3f} s")


if __name__ == "__main__":
    main()
