"""Shared test set-up: corrections and settings go to a per-test folder, never the user's."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("fujikoro-home")
    monkeypatch.setenv("FUJIKORO_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("FUJIKORO_DATA_DIR", str(base / "data"))
