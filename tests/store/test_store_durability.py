"""A crash at any moment loses nothing acknowledged, and the game file always opens.

Real processes apply commands to a real SQLite file and are killed with SIGKILL at random moments
(some while still starting or replaying, most between or inside commits), 50 times in a row on the
same game; after each kill the file must open, pass SQLite's integrity check, hold every command the
child acknowledged (same sequence number and description) and replay.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from games.fujikoro.pack import default_pack
from games.fujikoro.rules import GAME_NAME, game_from_pack_raw
from store.gamelog import GameFile, Header
from store.sessions import new_session, open_session

CHILD = Path(__file__).with_name("durability_child.py")
KILLS = 50
FACTORIES = {GAME_NAME: lambda header: game_from_pack_raw(header.data.get("pack"))}


def test_sigkill_at_random_moments_loses_no_acknowledged_command(tmp_path: Path) -> None:
    db = tmp_path / "crash.fujikoro-game"
    pack = default_pack()
    file, _ = new_session(
        db, Header(GAME_NAME, pack.version, {"players": ["A", "B", "C"]}, {"pack": pack.raw}), FACTORIES
    )
    file.close()
    rng = random.Random(20261123)
    acknowledged: dict[int, str] = {}
    killed_after_acks = 0
    for attempt in range(KILLS):
        child = subprocess.Popen([sys.executable, str(CHILD), str(db), str(attempt)], stdout=subprocess.PIPE)
        assert child.stdout is not None
        first = b""
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 0.25))  # while starting, opening or replaying
        else:
            ready, _, _ = select.select([child.stdout], [], [], 20.0)  # once it is committing
            first = os.read(child.stdout.fileno(), 65536) if ready else b""
            time.sleep(rng.uniform(0.0, 0.05))
        child.send_signal(signal.SIGKILL)
        output = (first + child.stdout.read()).decode()
        child.wait()
        assert child.returncode == -signal.SIGKILL
        lines = [line for line in output.split("\n")[:-1] if line]  # a torn last line was never an ack
        killed_after_acks += bool(lines)
        for line in lines:
            seq, description = line.split("\t", 1)
            acknowledged[int(seq)] = description  # a later run may reuse nothing: seqs only grow

        with GameFile.open(db) as check:
            assert check.integrity_ok()
            stored = {r.seq: r.description for r in check.records()}
        missing = {seq: d for seq, d in acknowledged.items() if stored.get(seq) != d}
        assert not missing, f"attempt {attempt}: acknowledged but not in the log: {missing}"
        assert sorted(stored) == list(range(1, len(stored) + 1))
        file, session = open_session(db, FACTORIES)  # the log replays
        file.close()
    assert killed_after_acks >= KILLS // 2, "most kills should land after the child acknowledged commands"
    assert len(acknowledged) >= 100
