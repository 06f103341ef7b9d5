"""A scripted driver inside the real app, for the UI tests and the UI benchmark.

Enabled only by ``FUJIKORO_UI_SCRIPT=script.json`` (``FUJIKORO_UI_REPORT`` names the JSON report).
It runs the script's steps one by one on the Kivy clock, each after the previous one's effects have
settled (no worker jobs pending, a frame drawn). Presses are real touch events dispatched through
Kivy's event loop at the widget's centre, so they pass the same hit-testing a finger does.

Steps (``{"do": ..., ...}``):
``press`` / ``long_press`` ``id``; ``text`` ``id`` ``value``; ``go`` ``screen``; ``wait`` ``seconds``;
``wait_until`` ``path`` ``equals``|``not_empty`` ``timeout``; ``read`` ``id``|``path`` ``key``;
``expect`` ``id``|``path`` with ``equals``/``contains``/``at_least``; ``screenshot`` ``name``;
``layout`` ``name`` (records clipped text, overlapping text and small touch targets); ``measure``
``seconds`` ``key`` (worst frame interval); ``press_row`` ``id`` ``index`` (a RecycleView row);
``until`` ``path`` ``equals`` ``press`` [ids] (press the first enabled one until the value is reached);
``table`` ``button`` | ``dice`` (press an emulated table button / shake its tray);
``gpio`` ``pin`` (press and release a button of the host's GPIO panel: gpiozero's mock pins);
``dice_seed`` ``seed`` (the combat screen's app rolls become reproducible);
``quit``; ``crash`` (``os._exit`` at once, to test resuming).
Widgets are found by their kv ``id`` in the visible tree (popups first, then the current screen).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.input.motionevent import MotionEvent
from kivy.metrics import dp
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from ui.theme import MIN_TOUCH_DP
from ui.worker import Worker

_touch_ids = itertools.count(1)


class DriverTouch(MotionEvent):  # type: ignore[misc]
    """A single-finger touch at window coordinates."""

    def __init__(self, x: float, y: float) -> None:
        super().__init__("fujikoro-driver", next(_touch_ids), [x, y], is_touch=True, type_id="touch")

    def depack(self, args: list[float]) -> None:
        self.sx = args[0] / max(1, Window.width)
        self.sy = args[1] / max(1, Window.height)
        self.profile = ["pos"]
        super().depack(args)


class DriverError(Exception):
    """A step that cannot run (unknown id, bad step); recorded in the report, the run goes on."""


class Driver:
    def __init__(self, app: Any, script: Path, report: str | None) -> None:
        self.app = app
        self.steps: list[dict[str, Any]] = json.loads(script.read_text(encoding="utf-8"))
        self.report_path = Path(report) if report else script.with_suffix(".report.json")
        self.shots_dir = Path(os.environ.get("FUJIKORO_SCREENSHOTS", "artifacts/screenshots"))
        self.report: dict[str, Any] = {
            "size": list(Window.size), "errors": [], "reads": {}, "layout": {}, "screenshots": [],
            "measures": {}, "done": 0,
        }
        self.index = 0
        self.not_before = 0.0
        self.deadline: float | None = None
        self.frames_since = 0
        self._measure: dict[str, Any] | None = None
        self._loops: dict[int, int] = {}
        self._shot_once: set[str] = set()
        self._event: Any = None

    def start(self) -> None:
        self._t0 = time.perf_counter()
        self.report["first_frame"] = None
        self._event = Clock.schedule_interval(self._tick, 0)

    # ---- the loop ---------------------------------------------------------------------------
    def _tick(self, _dt: float) -> None:
        now = time.perf_counter()
        if self.report["first_frame"] is None and self.app.first_frame_at is not None:
            self.report["first_frame"] = self.app.first_frame_at
            self.report["first_frame_wall"] = self.app.first_frame_wall
        self.frames_since += 1
        if self._measure is not None:
            self._measure_frame(now)
            return
        if now < self.not_before or self.frames_since < 2 or Worker.total_pending() or self.app.game.busy:
            return
        if self.index >= len(self.steps):
            self._finish()
            return
        step = self.steps[self.index]
        try:
            waiting = self._run(step, now)
        except Exception as error:  # noqa: BLE001 - a failed step is reported, the run continues
            self.report["errors"].append(f"step {self.index} {step}: {error!r}")
            print(f"fujikoro-driver: step {self.index} {step} failed: {error!r}", file=sys.stderr)
            if not isinstance(error, (DriverError, AssertionError)):
                self.report["errors"].append(traceback.format_exc())
                traceback.print_exc()
            waiting = False
        if not waiting:
            self.report.setdefault("timeline", []).append([self.index, step.get("do"), round(now - self._t0, 3)])
            self.index += 1
            self.report["done"] = self.index
            self.frames_since = 0
            self.deadline = None

    def _run(self, step: dict[str, Any], now: float) -> bool:
        """Run one step; True means "not finished yet, call again next frame"."""
        kind = step.get("do")
        if kind == "press":
            self._press(self.find(step["id"]), hold=0.0)
        elif kind == "long_press":
            self._press(self.find(step["id"]), hold=float(step.get("seconds", 0.9)))
            self.not_before = now + float(step.get("seconds", 0.9)) + 0.05
        elif kind == "text":
            widget = self.find(step["id"])
            if not isinstance(widget, TextInput):
                raise DriverError(f"{step['id']} is not a text field")
            widget.focus = True
            widget.select_all()
            widget.delete_selection()
            widget.insert_text(str(step["value"]))
            if step.get("enter"):
                widget.dispatch("on_text_validate")
            widget.focus = False
        elif kind == "go":
            self.app.go(step["screen"])
            self.not_before = now + 0.05  # let the new screen lay itself out before the next touch
        elif kind == "wait":
            if self.deadline is None:
                self.deadline = now + float(step["seconds"])
            return now < self.deadline
        elif kind == "wait_until":
            if self.deadline is None:
                self.deadline = now + float(step.get("timeout", 10))
            if self._check(step, raise_error=False):
                return False
            if now >= self.deadline:
                raise AssertionError(f"timed out waiting for {step}")
            return True
        elif kind == "read":
            self.report["reads"][step["key"]] = self._value(step)
        elif kind == "expect":
            self._check(step, raise_error=True)
        elif kind == "screenshot":
            self._screenshot(step["name"])
        elif kind == "layout":
            self.report["layout"][step["name"]] = self.layout_problems()
        elif kind == "measure":
            self._start_measure(step, now)
        elif kind == "press_row":
            self._press(self._row(step["id"], int(step.get("index", 0))), hold=0.0)
        elif kind == "until":
            return self._until(step, now)
        elif kind == "dice_seed":
            self.app.combat.reseed(step.get("seed"))
        elif kind == "quit":
            self._finish()
        elif kind == "table":
            # A finger on the (emulated) table: press a button or shake the tray with dice on it.
            table = self.app.status.table
            emulator = getattr(table, "emulator", None)
            if emulator is None:
                raise DriverError("no emulated table is connected")
            if "button" in step:
                threading.Thread(target=emulator.press, args=(step["button"],), daemon=True).start()
            else:
                threading.Thread(target=emulator.shake_tray, kwargs={"dice": step["dice"]}, daemon=True).start()
        elif kind == "read_leds":
            # What the (emulated) table's LED chain and player light show now, as [r, g, b] lists.
            table = self.app.status.table
            if table is None:
                raise DriverError("no table is connected")
            self.report["reads"][step["key"]] = {"chain": [list(rgb) for rgb in table.led_colours()],
                                                 "player": list(table.player_colour())}
        elif kind == "gpio":
            if self.app.panel is None:
                raise DriverError("no GPIO panel is running (gpio_panel = true in app.toml)")
            pin = self.app.panel.factory.pin(int(step["pin"]))
            pin.drive_low()  # a button to GND: pressed
            pin.drive_high()
        elif kind == "crash":
            # A hard stop (as a flat battery would): no on_stop, no flush; the report is written first.
            self.report["crashed"] = True
            self.report_path.write_text(json.dumps(self.report, indent=1, default=str), encoding="utf-8")
            os._exit(int(step.get("code", 3)))
        else:
            raise DriverError(f"unknown step {kind!r}")
        return False

    def _until(self, step: dict[str, Any], now: float) -> bool:
        """Press the first enabled widget of ``press`` (in order) until ``path`` equals ``equals``."""
        if self._check(step, raise_error=False):
            return False
        # Only real presses count: frames spent waiting (a dice animation, a worker) must not use up
        # ``max``, or the budget would depend on the frame rate of a loaded machine.
        count = self._loops.get(self.index, 0)
        if count >= int(step.get("max", 50)):
            raise AssertionError(f"{step['path']} never became {step.get('equals')!r} after {count} presses")
        for name in step["press"]:
            try:
                widget = self.find(name)
            except DriverError:
                continue
            if widget.disabled:
                continue
            shot = (step.get("shoot") or {}).get(name)
            if shot and shot not in self._shot_once:
                self._shot_once.add(shot)
                self._screenshot(shot)
            self._loops[self.index] = count + 1
            self.report.setdefault("presses", {}).setdefault(str(self.index), []).append(name)
            self._press(widget, hold=0.0)
            self.not_before = now + float(step.get("pause", 0.0))
            self.frames_since = 0
            self.deadline = None
            return True
        # Nothing to press yet (an animation runs): wait, but not forever.
        if self.deadline is None:
            self.deadline = now + float(step.get("timeout", 10))
        if now >= self.deadline:
            raise DriverError(f"none of {step['press']} could be pressed for {step.get('timeout', 10)} s")
        return True

    def _row(self, name: str, index: int) -> Widget:
        view = self.find(name)
        container = view.children[0] if view.children else None
        rows = sorted(container.children, key=lambda w: -w.top) if container is not None else []
        visible = [w for w in rows if w.get_root_window() is not None]
        if index >= len(visible):
            raise DriverError(f"{name} shows {len(visible)} rows, not {index + 1}")
        return visible[index]

    def _finish(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None
        self.report["finished"] = True
        sounds = getattr(self.app, "sounds", None)
        self.report["sounds"] = {"played": list(sounds.played) if sounds else [],
                                 "problem": sounds.problem if sounds else ""}
        self.report["errors"] += [f"uncaught: {text}" for text in getattr(self.app, "errors", [])]
        self.report_path.parent.mkdir(parents=True, exist_ok=True)
        self.report_path.write_text(json.dumps(self.report, indent=1, default=str), encoding="utf-8")
        self.app.stop()

    # ---- finding and touching ---------------------------------------------------------------
    def visible_roots(self) -> list[Widget]:
        return list(Window.children)  # popups are added after the root, so they come first

    def top_roots(self) -> list[Widget]:
        """What a finger can reach: the topmost modal panel if one is open, else the whole window."""
        from kivy.uix.modalview import ModalView

        modals = [w for w in Window.children if isinstance(w, ModalView)]
        return modals[:1] or list(Window.children)

    def find(self, name: str) -> Widget:
        for root in self.top_roots():
            for widget in walk(root):
                ids = getattr(widget, "ids", None)
                if ids and name in ids:
                    found = ids[name]
                    if found.get_root_window() is not None:
                        return found
        raise DriverError(f"no visible widget with id {name!r}")

    def _press(self, widget: Widget, hold: float) -> None:
        if widget.disabled:
            raise DriverError(f"{widget!r} is disabled")
        x, y = widget.to_window(*widget.center)
        touch = DriverTouch(x, y)
        EventLoop.post_dispatch_input("begin", touch)
        if hold <= 0:
            EventLoop.post_dispatch_input("end", touch)
        else:
            Clock.schedule_once(lambda _dt: EventLoop.post_dispatch_input("end", touch), hold)

    # ---- reading ----------------------------------------------------------------------------
    def _value(self, step: dict[str, Any]) -> Any:
        if "id" in step:
            widget = self.find(step["id"])
            return getattr(widget, step.get("attr", "text"))
        target: Any = self.app
        for part in step["path"].split("."):
            target = target[int(part)] if isinstance(target, (list, tuple)) else (
                target[part] if isinstance(target, dict) else getattr(target, part))
        if hasattr(target, "items") and not isinstance(target, dict):
            target = dict(target)
        return target

    def _check(self, step: dict[str, Any], *, raise_error: bool) -> bool:
        try:
            value = self._value(step)
        except DriverError:
            if raise_error:
                raise
            return False
        ok = True
        if "equals" in step:
            ok = value == step["equals"]
        if "contains" in step:
            ok = ok and str(step["contains"]) in str(value)
        if "at_least" in step:
            ok = ok and value >= step["at_least"]
        if step.get("not_empty"):
            ok = ok and bool(value)
        if not ok and raise_error:
            raise AssertionError(f"{step}: got {value!r}")
        return ok

    def _screenshot(self, name: str) -> None:
        width, height = Window.size
        folder = self.shots_dir / f"{width}x{height}"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{name}.png"
        made = Window.screenshot(name=str(folder / f"{name}-tmp.png"))
        if not made:
            raise DriverError("the window could not take a screenshot")
        os.replace(made, target)
        self.report["screenshots"].append(str(target))

    # ---- frame timing -----------------------------------------------------------------------
    def _start_measure(self, step: dict[str, Any], now: float) -> None:
        self._measure = {"key": step.get("key", "frames"), "until": now + float(step.get("seconds", 2)),
                         "last": now, "worst": 0.0, "frames": 0, "press": step.get("press"), "start": now}
        if step.get("press"):
            self._press(self.find(step["press"]), hold=0.0)

    def _measure_frame(self, now: float) -> None:
        m = self._measure
        assert m is not None
        m["worst"] = max(m["worst"], now - m["last"])
        m.setdefault("all", []).append(now - m["last"])
        thread_cpu, process_cpu = time.thread_time(), time.process_time()
        m.setdefault("series", []).append((round((now - m["start"]) * 1000, 1), round((now - m["last"]) * 1000, 1),
                                           round((thread_cpu - m.get("thread_cpu", thread_cpu)) * 1000, 1),
                                           round((process_cpu - m.get("process_cpu", process_cpu)) * 1000, 1)))
        m["thread_cpu"], m["process_cpu"] = thread_cpu, process_cpu
        m["last"] = now
        m["frames"] += 1
        if now >= m["until"]:
            frames = sorted(m.get("all", [0.0]))
            self.report["measures"][m["key"]] = {
                "worst_ms": round(m["worst"] * 1000, 2), "frames": m["frames"],
                "median_ms": round(frames[len(frames) // 2] * 1000, 2),
                "p95_ms": round(frames[min(len(frames) - 1, int(len(frames) * 0.95))] * 1000, 2),
                "series": m.get("series", [])}
            self._measure = None  # the step itself was counted when it started
            self.frames_since = 0

    # ---- layout checks ----------------------------------------------------------------------
    def layout_problems(self) -> dict[str, list[str]]:
        """Clipped text, overlapping text and touch targets under 48 dp in what is on screen now."""
        texts: list[tuple[Widget, tuple[float, float, float, float]]] = []
        clipped: list[str] = []
        small: list[str] = []
        for root in self.top_roots():
            for widget, clip in walk_clipped(root, None):
                if widget.opacity == 0 or widget.width <= 1 or widget.height <= 1:
                    continue
                if _is_touchable(widget) and not widget.disabled and min(widget.size) < dp(MIN_TOUCH_DP) - 0.5:
                    small.append(f"{describe(widget)} is {widget.width:.0f}x{widget.height:.0f}")
                if isinstance(widget, Label) and widget.text.strip() and not isinstance(widget, TextInput):
                    tw, th = widget.texture_size
                    if tw > widget.width + 1 or th > widget.height + 1:
                        clipped.append(f"{describe(widget)} text {tw:.0f}x{th:.0f} in {widget.width:.0f}x"
                                       f"{widget.height:.0f}")
                    x, y = widget.to_window(widget.center_x - tw / 2, widget.center_y - th / 2)
                    rect = (x, y, x + tw, y + th)
                    if clip is not None:
                        rect = _intersect(rect, clip)
                        if rect is None:
                            continue
                    texts.append((widget, rect))
        overlaps: list[str] = []
        for (a, ra), (b, rb) in itertools.combinations(texts, 2):
            if _related(a, b):
                continue
            inter = _intersect(ra, rb)
            if inter is not None and (inter[2] - inter[0]) > 2 and (inter[3] - inter[1]) > 2:
                overlaps.append(f"{describe(a)} overlaps {describe(b)}")
        return {"clipped": clipped, "overlapping": overlaps, "small_targets": small}


def walk(widget: Widget) -> Iterator[Widget]:
    yield widget
    for child in widget.children:
        yield from walk(child)


def walk_clipped(
    widget: Widget, clip: tuple[float, float, float, float] | None
) -> Iterator[tuple[Widget, tuple[float, float, float, float] | None]]:
    yield widget, clip
    if isinstance(widget, ScrollView):
        x, y = widget.to_window(widget.x, widget.y)
        own = (x, y, x + widget.width, y + widget.height)
        clip = own if clip is None else _intersect(clip, own) or (0, 0, 0, 0)
    for child in widget.children:
        yield from walk_clipped(child, clip)


def _is_touchable(widget: Widget) -> bool:
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.spinner import Spinner

    return isinstance(widget, (ButtonBehavior, TextInput, Spinner))


def _intersect(a: tuple[float, float, float, float],
               b: tuple[float, float, float, float]) -> tuple[float, float, float, float] | None:
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    if x2 <= x1 or y2 <= y1:
        return None
    return (x1, y1, x2, y2)


def _ancestors(widget: Widget) -> list[Any]:
    chain: list[Any] = []
    parent = widget.parent
    while parent is not None and parent not in chain and len(chain) < 500:  # the Window is its own parent
        chain.append(parent)
        parent = getattr(parent, "parent", None)
    return chain


def _related(a: Widget, b: Widget) -> bool:
    return any(p is b for p in _ancestors(a)) or any(p is a for p in _ancestors(b))


def describe(widget: Widget) -> str:
    text = getattr(widget, "text", "")
    name = type(widget).__name__
    return f"{name}({text[:30]!r})" if text else name
