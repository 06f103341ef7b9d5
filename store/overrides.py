"""The group's data-pack corrections: one small TOML file in the user's config dir.

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


def overrides_path() -> Path:
    return app_paths().data_overrides


def read_overrides(path: Path | None = None) -> dict[str, Any]:
    path = path or overrides_path()
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


def write_overrides(values: dict[str, Any], path: Path | None = None) -> Path:
    path = path or overrides_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "# Your group's corrections to the shipped Fuji Koro data pack.\n"
        "# Change them with `fujikoro data set KEY VALUE` / `fujikoro data reset KEY`.\n"
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
