"""Where the app keeps things on this machine: the one place that answers it.

Three folders, each the platform's usual one (via ``platformdirs``) unless an environment variable moves
it - tests, a second table on one laptop and the benchmarks use that:

========== ========================== =========================================================
folder     moved by                   holds
========== ========================== =========================================================
data       ``FUJIKORO_DATA_DIR``      game files (``games/``), the hub's database, the hub outbox
config     ``FUJIKORO_CONFIG_DIR``    app settings, data-pack corrections, LED map, GPIO pins
cache      ``FUJIKORO_CACHE_DIR``     made-again-on-demand things (sound cues)
========== ========================== =========================================================

The folder names keep the first game's name (``fujikoro``) so every group's files stay where they are.
Nothing here creates a folder: the code that writes a file does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_FOLDER = "fujikoro"
ENV_DATA = "FUJIKORO_DATA_DIR"
ENV_CONFIG = "FUJIKORO_CONFIG_DIR"
ENV_CACHE = "FUJIKORO_CACHE_DIR"
ENV_HUB_DB = "FUJIKORO_HUB_DB"


@dataclass(frozen=True, slots=True)
class AppPaths:
    data: Path
    config: Path
    cache: Path
    hub_db_url: str | None = None

    @property
    def games(self) -> Path:
        return self.data / "games"

    @property
    def hub_db(self) -> str:
        """The convention hub's database: ``FUJIKORO_HUB_DB``, else ``hub.sqlite3`` in the data folder."""
        return self.hub_db_url or str(self.data / "hub.sqlite3")

    @property
    def hub_outbox(self) -> Path:
        return self.data / "hub-outbox.sqlite3"

    @property
    def settings(self) -> Path:
        return self.config / "app.toml"

    #: The one game there was before games were packages: its corrections keep their old file name.
    FIRST_GAME = "fujikoro"

    def data_overrides(self, game: str) -> Path:
        """A game's data-pack corrections (``data-overrides-<game>.toml``; Fuji Koro's file, written when it
        was the only game, is ``data-overrides.toml``)."""
        if game == self.FIRST_GAME:
            return self.config / "data-overrides.toml"
        return self.config / f"data-overrides-{game}.toml"

    @property
    def ledmap(self) -> Path:
        return self.config / "ledmap.json"

    @property
    def panel_pins(self) -> Path:
        return self.config / "panel_pins.toml"

    @property
    def sounds(self) -> Path:
        return self.cache / "sounds"


def app_paths(env: Mapping[str, str] | None = None) -> AppPaths:
    """The folders for this environment (``os.environ`` unless given)."""
    import platformdirs

    env = os.environ if env is None else env
    return AppPaths(
        data=Path(env.get(ENV_DATA) or platformdirs.user_data_dir(APP_FOLDER)),
        config=Path(env.get(ENV_CONFIG) or platformdirs.user_config_dir(APP_FOLDER)),
        cache=Path(env.get(ENV_CACHE) or platformdirs.user_cache_dir(APP_FOLDER)),
        hub_db_url=env.get(ENV_HUB_DB) or None,
    )
