"""UI benchmark: time from launch to the first frame, and the worst frame while a dragon roll animates.

Runs the real app (``python -m ui.app``) on a private Xvfb screen with Mesa's software renderer, driven
by the scripted test driver: the first figure is measured from starting the process to the first
frame the app draws; the second is the longest interval between two frames while the combat screen
animates "Roll for the dragon" and applies it (several rolls, the worst kept).
Targets: first frame <= 3 s; no frame over 50 ms.

    python benchmarks/ui.py [--size 1280x800] [--rolls 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIRST_FRAME_TARGET_S = 3.0
FRAME_TARGET_MS = 50.0


def script(rolls: int) -> list[dict[str, Any]]:
    def press(widget_id: str) -> dict[str, Any]:
        return {"do": "press", "id": widget_id}

    steps: list[dict[str, Any]] = [
        {"do": "wait", "seconds": 0.3},
        press("start_game"), {"do": "wait_until", "path": "game.phase", "equals": "playing"},
        {"do": "go", "screen": "gear"}, press("gear_paint_T"),
    ]
    steps += [press(f"gear_helmet_{r}_{c}") for r in range(3) for c in range(4)]  # a strong helmet
    steps += [press("gear_paint_W"), press("gear_weapon_left_0_0"), press("gear_weapon_left_0_1")]
    steps += [{"do": "go", "screen": "combat"}, press("dragon_red_4")]
    for k in range(rolls):
        steps += [press("fight_start"), {"do": "wait_until", "path": "combat.whose", "equals": "dragon"},
                  {"do": "wait_until", "path": "combat.odds_busy", "equals": False, "timeout": 30},
                  {"do": "wait", "seconds": 0.3},
                  {"do": "measure", "seconds": 1.4, "press": "roll_dragon", "key": f"roll_{k}"},
                  {"do": "wait", "seconds": 0.2}, press("end_fight")]
    return [*steps, {"do": "quit"}]


BASELINE = """
import os, sys, time
os.environ["KIVY_NO_ARGS"] = "1"; os.environ["KIVY_NO_CONSOLELOG"] = "1"
from kivy.config import Config
w, h = sys.argv[1].split("x"); Config.set("graphics", "width", w); Config.set("graphics", "height", h)
Config.set("graphics", "multisamples", "0")  # as the app
from kivy.app import App
from kivy.clock import Clock
from kivy.uix.label import Label
class Baseline(App):
    def build(self):
        self.times, self.last, self.n = [], None, 0
        Clock.schedule_interval(self.tick, 0)
        self.label = Label(text="0", font_size=40)
        return self.label
    def tick(self, dt):
        now = time.perf_counter()
        if self.last is not None and self.n > 10:
            self.times.append(now - self.last)
        self.last, self.n = now, self.n + 1
        self.label.text = str(self.n)
        if self.n > 90:
            t = sorted(self.times)
            print(f"{1000 * t[len(t) // 2]:.1f} {1000 * t[-1]:.1f}")
            self.stop()
Baseline().run()
"""


def baseline(size: str, display: str) -> tuple[float, float]:
    """Median and worst frame of an almost empty Kivy window that redraws every frame (the renderer's floor)."""
    env = {**os.environ, "DISPLAY": display}
    with tempfile.TemporaryDirectory(prefix="fujikoro-ui-base-") as tmp:
        env["KIVY_HOME"] = tmp
        script_file = Path(tmp) / "baseline.py"  # a file, not -c: Kivy's App wants its module's __file__
        script_file.write_text(BASELINE, encoding="utf-8")
        result = subprocess.run([sys.executable, str(script_file), size], env=env, capture_output=True, text=True,
                                timeout=120)
    out = result.stdout.split()
    if len(out) < 2:
        sys.exit(f"the baseline window failed:\n{result.stderr[-2000:]}")
    return float(out[-2]), float(out[-1])


def start_xvfb() -> tuple[subprocess.Popen[bytes] | None, str]:
    if os.environ.get("DISPLAY"):
        return None, os.environ["DISPLAY"]
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        sys.exit("benchmarks/ui.py needs Xvfb (apt-get install -y xvfb xauth libgl1 libegl1 libgles2 libmtdev1)")
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                               pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        return process, ":" + pipe.readline().strip()


def run(size: str, rolls: int, hardware: str = "") -> dict[str, Any]:
    xvfb, display = start_xvfb()
    try:
        floor = baseline(size, display)
        with tempfile.TemporaryDirectory(prefix="fujikoro-ui-bench-") as tmp:
            folder = Path(tmp)
            (folder / "script.json").write_text(json.dumps(script(rolls)), encoding="utf-8")
            (folder / "config").mkdir()
            (folder / "config" / "app.toml").write_text(f"hardware_url = {json.dumps(hardware)}\n", encoding="utf-8")
            env = {**os.environ, "DISPLAY": display, "FUJIKORO_UI_SIZE": size, "FUJIKORO_UI_PLAY": "fujikoro",
                   "FUJIKORO_UI_SCRIPT": str(folder / "script.json"), "FUJIKORO_UI_REPORT": str(folder / "report.json"),
                   "FUJIKORO_CONFIG_DIR": str(folder / "config"), "FUJIKORO_DATA_DIR": str(folder / "data"),
                   "FUJIKORO_SCREENSHOTS": str(folder / "shots"), "KIVY_NO_CONSOLELOG": "1",
                   "KIVY_HOME": str(folder / "kivy")}
            started = time.time()
            result = subprocess.run([sys.executable, "-m", "ui.app"], cwd=REPO, env=env, capture_output=True,
                                    text=True, timeout=600)
            if result.returncode != 0 or not (folder / "report.json").exists():
                sys.exit(f"the app failed ({result.returncode}):\n{result.stderr[-3000:]}")
            report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
            report["first_frame_from_launch"] = report["first_frame_wall"] - started
            report["baseline"] = floor
            return report
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", action="append", help="window size (repeatable); default 1280x800 and 800x480")
    parser.add_argument("--rolls", type=int, default=5)
    parser.add_argument("--slow-frames", type=float, default=None, metavar="MS",
                        help="also list every frame longer than MS, with its time since the press")
    parser.add_argument("--hardware", default="", help='table setting: "" = the emulated table (default), "none"')
    args = parser.parse_args(argv)
    for size in args.size or ["1280x800", "800x480"]:
        report = run(size, args.rolls, args.hardware)
        if report["errors"]:
            print("\n".join(report["errors"]), file=sys.stderr)
            return 1
        rolls = [v for k, v in report["measures"].items() if k.startswith("roll_")]
        worst = max(r["worst_ms"] for r in rolls)
        frames = sum(r["frames"] for r in rolls)
        first = report["first_frame_from_launch"]
        per_roll = ", ".join(f"{r['worst_ms']:.1f}" for r in rolls)
        medians = sorted(r["median_ms"] for r in rolls)
        label = f"{size}, table {'emulated' if not args.hardware else args.hardware}"
        print(f"{label}: first frame {first:.2f} s after launch (target <= {FIRST_FRAME_TARGET_S:.0f} s: "
              f"{'ok' if first <= FIRST_FRAME_TARGET_S else 'MISSED'})")
        print(f"{label}: dragon roll animation, {len(rolls)} rolls, {frames} frames: worst frame {worst:.1f} ms "
              f"(target <= {FRAME_TARGET_MS:.0f} ms: {'ok' if worst <= FRAME_TARGET_MS else 'MISSED'}); "
              f"worst per roll: {per_roll} ms; median frame {medians[len(medians) // 2]:.1f} ms")
        if args.slow_frames is not None:
            for k, r in enumerate(rolls):
                slow = [f"{at:.0f}:{ms:.0f}/{ui:.0f}/{cpu:.0f}" for at, ms, ui, cpu in r.get("series", [])
                        if ms > args.slow_frames]
                print(f"  roll {k}: frames over {args.slow_frames:.0f} ms (ms after the press: length / "
                      "UI thread CPU / app CPU, all threads): "
                      f"{' '.join(slow) or 'none'}")
        floor_median, floor_worst = report["baseline"]
        print(f"{label}: renderer floor (an empty Kivy window redrawing a label every frame): median "
              f"{floor_median:.1f} ms, worst {floor_worst:.1f} ms; load average {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
