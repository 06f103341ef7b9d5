"""UI test harness: a virtual X screen (Xvfb, Mesa software GL) and a runner for the real app.

``run_app(steps, size=...)`` starts ``python -m ui.app`` in a subprocess on the Xvfb display with the
scripted driver (:mod:`ui.testdriver`) enabled, waits for it to quit and returns the driver's JSON
report. Screenshots go to ``artifacts/screenshots/<W>x<H>/`` (gitignored), kept as test artifacts.
Tests using these fixtures are marked ``ui`` and skip with the reason when Xvfb is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
APP_TIMEOUT = 300
XVFB_HINT = "apt-get install -y xvfb xauth libgl1 libegl1 libgles2 libmtdev1 (./dev test does it in CI)"


@pytest.fixture(scope="session")
def xvfb_display() -> Iterator[str]:
    """A private Xvfb screen big enough for the largest window size; yields its DISPLAY."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip(f"UI tests need a virtual screen: Xvfb is not installed ({XVFB_HINT})")
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            pytest.skip(f"Xvfb did not start ({XVFB_HINT})")
        yield f":{number}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def run_app(xvfb_display: str, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """Run the real app with a driver script; returns the report (raises if the app did not finish)."""
    counter = iter(range(1000))

    def run(steps: list[dict[str, Any]], *, size: str = "1280x800", allow_exit: int | None = None,
            env: dict[str, str] | None = None) -> dict[str, Any]:
        n = next(counter)
        script = tmp_path / f"script-{n}.json"
        report = tmp_path / f"report-{n}.json"
        script.write_text(json.dumps(steps), encoding="utf-8")
        environment = {
            **os.environ,
            "DISPLAY": xvfb_display,
            "FUJIKORO_UI_SCRIPT": str(script),
            "FUJIKORO_UI_REPORT": str(report),
            "FUJIKORO_UI_SIZE": size,
            "FUJIKORO_SCREENSHOTS": str(SCREENSHOTS),
            "KIVY_NO_CONSOLELOG": "1",
            "KIVY_NO_FILELOG": "1",
            "KIVY_HOME": str(tmp_path / "kivy-home"),
            # A sound output that plays to nowhere: the real SDL mixer path, without a sound card.
            "SDL_AUDIODRIVER": "dummy",
            "FUJIKORO_CACHE_DIR": str(tmp_path / "cache"),
            # These scripts play Fuji Koro unless they say otherwise (a first start would open on Games).
            "FUJIKORO_UI_PLAY": "fujikoro",
            **(env or {}),
        }
        result = subprocess.run([sys.executable, "-m", "ui.app"], cwd=REPO, env=environment,
                                capture_output=True, text=True, timeout=APP_TIMEOUT)
        if allow_exit is not None and result.returncode == allow_exit:
            return json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
        assert result.returncode == 0, f"the app exited with {result.returncode}:\n{result.stderr[-4000:]}"
        assert report.exists(), f"the driver wrote no report:\n{result.stderr[-4000:]}"
        return json.loads(report.read_text(encoding="utf-8"))

    return run
