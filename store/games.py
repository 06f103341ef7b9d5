"""Where game files live: the user's data dir by default, one SQLite file per game; "resume the last game".

``FUJIKORO_DATA_DIR`` overrides the platform default (tests and a second table use it).
"""

from __future__ import annotations

import time
from pathlib import Path

from companion.paths import app_paths
from store.gamelog import SUFFIX


def games_dir() -> Path:
    """The folder of game files: FUJIKORO_DATA_DIR/games, or the platform's user data dir/games."""
    return app_paths().games


def new_game_path(directory: Path | None = None, *, now: float | None = None) -> Path:
    """A fresh file name such as ``2026-11-23_0812.fujikoro-game`` (a counter avoids clashes)."""
    directory = directory or games_dir()
    stamp = time.strftime("%Y-%m-%d_%H%M", time.localtime(time.time() if now is None else now))
    path = directory / f"{stamp}{SUFFIX}"
    n = 2
    while path.exists():
        path = directory / f"{stamp}-{n}{SUFFIX}"
        n += 1
    return path


def _touched(path: Path) -> float:
    """When a game was last written: WAL mode writes the -wal file first, so look at both."""
    times = [path.stat().st_mtime]
    wal = Path(f"{path}-wal")
    if wal.exists():
        times.append(wal.stat().st_mtime)
    return max(times)


def list_games(directory: Path | None = None) -> list[Path]:
    """Game files, most recently played first."""
    directory = directory or games_dir()
    if not directory.is_dir():
        return []
    games = [p for p in directory.glob(f"*{SUFFIX}") if p.is_file() and not p.name.startswith(".")]
    return sorted(games, key=_touched, reverse=True)


def last_game(directory: Path | None = None) -> Path | None:
    """The game to resume when the app starts: the one written most recently."""
    games = list_games(directory)
    return games[0] if games else None
