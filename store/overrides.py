"""The group's data-pack corrections: one small TOML file per game in the user's config dir.

The shipped pack is never edited. Corrections are a flat table of dotted keys to values, written
atomically (temp file + rename) so a crash never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from companion.datapack import DataPackError
from companion.paths import app_paths


def config_dir() -> Path:
    """Where settings and corrections live (:mod:`companion.paths`)."""
    return app_paths().config


def overrides_path(game: str) -> Path:
    return app_paths().data_overrides(game)


def read_overrides(game: str, path: Path | None = None) -> dict[str, Any]:
    """A game's corrections (``game``: its registry name), {} when the group has made none."""
    path = path or overrides_path(game)
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise DataPackError(f"cannot read your corrections at {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise DataPackError(f"your corrections at {path} are not valid TOML: {error}") from None
    values = data.get("values", {})
    if not isinstance(values, dict):
        raise DataPackError(f"{path}: [values] must be a table of dotted keys")
    return values


def write_overrides(game: str, values: dict[str, Any], path: Path | None = None) -> Path:
    path = path or overrides_path(game)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f"# Your group's corrections to the shipped {game} data pack.\n"
        "# Change them in the app's Game data screen or with the game's `data set` / `data reset` verbs.\n"
    )
    body = tomli_w.dumps({"values": dict(sorted(values.items()))})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".overrides-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(header + body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
