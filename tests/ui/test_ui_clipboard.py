"""The app's clipboard under Xvfb: start-up says nothing alarming when xclip and xsel are not installed
(Kivy logged a CRITICAL line and two tracebacks at every start), copy and paste go through the SDL2
window's own clipboard, and the X11 cut buffer still comes from xclip where it is installed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.ui

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("xclip", "xsel")

# The app's own start, up to the first text fields: configured, the window opened, the clipboard chosen.
COPY_AND_PASTE = """
import json
from ui.app import choose_clipboard, configure_kivy
from ui.options import AppOptions
configure_kivy(AppOptions())
from kivy.core.window import Window
choose_clipboard()
from kivy.core.clipboard import Clipboard, CutBuffer
from kivy.uix.textinput import TextInput
source = TextInput(text="K7QX2M join secret")
source.select_all()
source.copy()
target = TextInput()
from kivy.clock import Clock
for _ in range(3):
    Clock.tick()  # (a new text field lays out its empty line on the next frame; it takes no text before)
target.paste()
print(json.dumps({"clipboard": type(Clipboard).__name__, "pasted": target.text,
                  "cutbuffer": None if CutBuffer is None else type(CutBuffer).__name__}))
"""


def _path_without_tools(extra: Path | None = None) -> str:
    """$PATH without the directories that hold xclip or xsel (and ``extra`` first, when given)."""
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any((Path(d) / tool).exists() for tool in TOOLS)]
    return os.pathsep.join([str(extra), *kept] if extra else kept)


def _environment(display: str, tmp_path: Path, path: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("KIVY_NO_CONSOLELOG", "KIVY_CLIPBOARD")}
    return {**environment, "DISPLAY": display, "PATH": path, "KIVY_HOME": str(tmp_path / "kivy-home"),
            "KIVY_NO_FILELOG": "1", "SDL_AUDIODRIVER": "dummy", "FUJIKORO_DATA_DIR": str(tmp_path / "data"),
            "FUJIKORO_CACHE_DIR": str(tmp_path / "cache")}


def _copy_and_paste(display: str, tmp_path: Path, path: str) -> tuple[dict[str, Any], str]:
    run = subprocess.run([sys.executable, "-c", COPY_AND_PASTE], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env=_environment(display, tmp_path, path))
    assert run.returncode == 0, run.stderr[-4000:]
    report: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return report, run.stderr


def test_the_app_starts_quietly_without_xclip_or_xsel(xvfb_display: str, tmp_path: Path) -> None:
    script, report = tmp_path / "script.json", tmp_path / "report.json"
    script.write_text(json.dumps([{"do": "wait", "seconds": 0.5}, {"do": "quit"}]), encoding="utf-8")
    environment = {**_environment(xvfb_display, tmp_path, _path_without_tools()),
                   "FUJIKORO_UI_SCRIPT": str(script), "FUJIKORO_UI_REPORT": str(report),
                   "FUJIKORO_UI_PLAY": "fujikoro"}
    run = subprocess.run([sys.executable, "-m", "ui.app"], cwd=REPO, env=environment, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    assert json.loads(report.read_text(encoding="utf-8"))["finished"]
    log = run.stderr
    assert re.search(r"\[Clipboard\s*\] Provider: sdl2", log), log[-4000:]  # the log is on, and a field was made
    assert "Traceback" not in log and "CRITICAL" not in log, log[-4000:]
    assert re.search(r"\[Cutbuffer\s*\] off: neither xclip nor xsel is installed", log)


def test_copy_and_paste_use_the_windows_clipboard(xvfb_display: str, tmp_path: Path) -> None:
    report, log = _copy_and_paste(xvfb_display, tmp_path, _path_without_tools())
    assert report == {"clipboard": "ClipboardSDL2", "pasted": "K7QX2M join secret", "cutbuffer": None}
    assert "Traceback" not in log and "CRITICAL" not in log, log[-4000:]


def test_the_cut_buffer_still_comes_from_xclip_where_it_is_installed(xvfb_display: str, tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    xclip = tools / "xclip"  # a stand-in that answers `xclip -version` as the real one does
    xclip.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    xclip.chmod(0o755)
    report, log = _copy_and_paste(xvfb_display, tmp_path, _path_without_tools(tools))
    assert report == {"clipboard": "ClipboardSDL2", "pasted": "K7QX2M join secret", "cutbuffer": "ClipboardXclip"}
    assert "neither xclip nor xsel" not in log and "Traceback" not in log, log[-4000:]
