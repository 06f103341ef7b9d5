"""The app's settings file: defaults, round trip, refusal of bad values, a broken file set aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from ui import settings
from ui.settings import Settings, SettingsError


def test_ui_settings_round_trip_in_the_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUJIKORO_CONFIG_DIR", str(tmp_path))
    assert settings.load() == Settings()
    changed = Settings().replace(language="cs", hardware_url="none", hub_url="https://hub.example", event_code="ABC")
    path = settings.save(changed)
    assert path == tmp_path / "app.toml"
    assert settings.load() == changed


def test_ui_settings_refuse_wrong_values() -> None:
    with pytest.raises(SettingsError, match="language"):
        Settings().replace(language="fr")
    with pytest.raises(SettingsError, match="sounds"):
        Settings().replace(sounds="yes")
    with pytest.raises(SettingsError, match="unknown setting"):
        Settings().replace(colour="red")


def test_ui_broken_settings_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "app.toml"
    path.write_text("language = [unclosed", encoding="utf-8")
    assert settings.load(path) == Settings()
    assert (tmp_path / "app.toml.bad").exists()
    path.write_text('language = "de"\nfuture_option = 3\nsounds = "loud"\n', encoding="utf-8")
    assert settings.load(path) == Settings(language="de")
