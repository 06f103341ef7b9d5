"""Shared widgets: text that always fits, big touch buttons, long press, the countdown track, the
dragon's health bar, the VP-over-time chart and a cube grid for the gear editor.

Layout and colour live in ``widgets.kv``; behaviour lives here. Text widgets shrink their font (never
below a readable minimum) instead of clipping, so German and Czech labels fit the 800x480 screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

from ui.theme import CUBE_COLOURS, EVENT_COLOURS, MIN_TOUCH_DP


class FitMixin:
    """Shrinks ``font_size`` from ``base_font_size`` until the text fits the widget (or ``min_font``).

    ``wrap`` lets the text break into lines within the width; otherwise it stays on one line.
    """

    base_font_size = NumericProperty(sp(20))
    min_font = NumericProperty(sp(11))
    wrap = BooleanProperty(False)
    fits = BooleanProperty(True)

    def __init__(self, **kwargs: Any) -> None:
        self._fit_trigger = Clock.create_trigger(self._fit, -1)
        super().__init__(**kwargs)
        for name in ("size", "text", "base_font_size", "wrap", "padding", "min_font"):
            self.fbind(name, self._fit_trigger)
        self._fit_trigger()

    def _fit(self, *_: Any) -> None:
        pad_x = self.padding[0] + self.padding[2] if len(self.padding) == 4 else 2 * self.padding[0]
        pad_y = self.padding[1] + self.padding[3] if len(self.padding) == 4 else 2 * self.padding[-1]
        avail_w = max(1.0, self.width - pad_x)
        avail_h = max(1.0, self.height - pad_y)
        key = (self.text, round(self.width), round(self.height), self.base_font_size, self.wrap, self.bold)
        cached = _FIT_CACHE.get(key)
        self.text_size = (avail_w, None) if self.wrap else (None, None)
        size = cached if cached is not None else self.base_font_size
        longest = max(self.text.split(), key=len, default="") if self.wrap else ""
        for _attempt in range(10):
            self.font_size = size
            self.texture_update()
            tw, th = self.texture_size
            word_w = _word_width(longest, size, self.bold, self.font_name) if longest else 0.0
            # Kivy keeps the padding inside text_size, so a word must fit the width less the padding.
            word_room = max(1.0, avail_w - pad_x - 2)
            if (tw <= self.width + 0.5 and th <= self.height + 0.5 and word_w <= word_room) or size <= self.min_font:
                break
            # Text size scales about linearly with the font size: jump close to the fit, then step down.
            ratio = max(0.05, min(self.width / max(tw, 1), self.height / max(th, 1), word_room / max(word_w, 1)))
            size = max(self.min_font, min(size * 0.92, size * (ratio ** (0.5 if self.wrap else 1.0)) * 0.98))
        tw, th = self.texture_size
        self.fits = tw <= self.width + 0.5 and th <= self.height + 0.5
        if len(_FIT_CACHE) > 4000:
            _FIT_CACHE.clear()
        _FIT_CACHE[key] = self.font_size
        if self.wrap and self.fits:
            self.text_size = (avail_w, avail_h)  # lets valign place the lines; never cuts a line that fits


def _word_width(word: str, size: float, bold: bool, font_name: str) -> float:
    """The width of one word on one line (a wrapped label must not break words apart)."""
    key = (word, round(size, 1), bold, font_name)
    width = _WORD_CACHE.get(key)
    if width is None:
        label = CoreLabel(text=word, font_size=size, bold=bold, font_name=font_name)
        label.refresh()
        width = float(label.texture.width) if label.texture is not None else 0.0
        if len(_WORD_CACHE) > 4000:
            _WORD_CACHE.clear()
        _WORD_CACHE[key] = width
    return width


_WORD_CACHE: dict[tuple[Any, ...], float] = {}
_FIT_CACHE: dict[tuple[Any, ...], float] = {}


class FitLabel(FitMixin, Label):
    pass


class TouchButton(FitMixin, Button):
    """A button at least 48 dp each way; its text breaks into lines before it shrinks."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("wrap", True)
        super().__init__(**kwargs)
        self.fbind("size", self._keep_touchable)

    def _keep_touchable(self, *_: Any) -> None:
        if self.size_hint_y is None and self.height < dp(MIN_TOUCH_DP):
            self.height = dp(MIN_TOUCH_DP)
        if self.size_hint_x is None and self.width < dp(MIN_TOUCH_DP):
            self.width = dp(MIN_TOUCH_DP)


class TouchToggle(FitMixin, ToggleButton):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("wrap", True)
        super().__init__(**kwargs)


class LongPressMixin:
    """Adds ``on_long_press`` to a ButtonBehavior widget held for ``long_press_time`` seconds.

    A long press does not also fire ``on_release``, so "tap to add, hold to correct" never does both.
    """

    long_press_time = NumericProperty(0.6)

    def __init__(self, **kwargs: Any) -> None:
        self.register_event_type("on_long_press")
        self._long_event: Any = None
        self._long_fired = False
        super().__init__(**kwargs)

    def on_touch_down(self, touch: Any) -> bool:
        if self.collide_point(*touch.pos) and not self.disabled:
            self._long_fired = False
            self._long_event = Clock.schedule_once(self._fire_long, self.long_press_time)
        return bool(super().on_touch_down(touch))

    def on_touch_up(self, touch: Any) -> bool:
        if self._long_event is not None:
            self._long_event.cancel()
            self._long_event = None
        if self._long_fired and touch.grab_current is self:
            touch.ungrab(self)
            self.state = "normal"
            self._long_fired = False
            return True
        return bool(super().on_touch_up(touch))

    def _fire_long(self, _dt: float) -> None:
        self._long_event = None
        self._long_fired = True
        self.dispatch("on_long_press")

    def on_long_press(self) -> None:
        pass


class LongPressButton(LongPressMixin, TouchButton):
    pass


class CountdownTrack(Widget):
    """The eight spaces of the final chapter; passed spaces glow in their event's colour.

    ``spaces`` is a list of event names ("lava", "rope", "nothing", "end"); ``position`` is 0 before
    the countdown starts, else 1..8.
    """

    spaces = ListProperty([])
    labels = ListProperty([])
    position = NumericProperty(0)
    active = BooleanProperty(False)
    font_size = NumericProperty(sp(16))

    def __init__(self, **kwargs: Any) -> None:
        self._labels: list[Label] = []
        self._redraw = Clock.create_trigger(self.redraw, -1)
        super().__init__(**kwargs)
        for name in ("spaces", "labels", "position", "active", "pos", "size", "font_size"):
            self.fbind(name, self._redraw)

    def redraw(self, *_: Any) -> None:
        count = len(self.spaces)
        while len(self._labels) < count:
            label = FitLabel(halign="center", valign="middle", wrap=True, min_font=sp(9))
            self._labels.append(label)
            self.add_widget(label)
        while len(self._labels) > count:
            self.remove_widget(self._labels.pop())
        self.canvas.before.clear()
        if not count:
            return
        gap = dp(4)
        cell_w = (self.width - gap * (count - 1)) / count
        with self.canvas.before:
            for i, event in enumerate(self.spaces):
                x = self.x + i * (cell_w + gap)
                base = EVENT_COLOURS.get(event, (0.5, 0.5, 0.5, 1))
                lit = self.active and i < self.position
                current = self.active and i == self.position - 1
                if lit:
                    Color(*base)
                else:
                    Color(base[0] * 0.35, base[1] * 0.35, base[2] * 0.35, 1)
                Rectangle(pos=(x, self.y), size=(cell_w, self.height))
                if current:
                    Color(1, 1, 1, 1)
                    Line(rectangle=(x + 1, self.y + 1, cell_w - 2, self.height - 2), width=dp(2.5))
        for i, label in enumerate(self._labels):
            label.pos = (self.x + i * (cell_w + gap), self.y)
            label.size = (cell_w, self.height)
            label.base_font_size = self.font_size
            label.text = self.labels[i] if i < len(self.labels) else str(i + 1)
            lit = self.active and i < self.position
            label.color = (0.05, 0.05, 0.05, 1) if lit else (0.9, 0.9, 0.9, 1)


class DiceStrip(Widget):
    """Dice as big numbers in a row (``*`` marks the broken icon), sized once per number of dice so the
    rolling animation only swaps short texts and never re-fits fonts."""

    faces = ListProperty([])
    total = StringProperty("")
    max_font = NumericProperty(sp(44))
    text_colour = ListProperty([1, 1, 1, 1])

    def __init__(self, **kwargs: Any) -> None:
        self._labels: list[Label] = []
        self._total = Label(halign="left")
        self._layout = Clock.create_trigger(self._relayout, -1)
        super().__init__(**kwargs)
        self.add_widget(self._total)
        for name in ("pos", "size", "max_font"):
            self.fbind(name, self._layout)
        self.fbind("faces", self._on_faces)
        self.fbind("total", self._on_total)

    def _on_faces(self, *_: Any) -> None:
        if len(self.faces) != len(self._labels):
            self._relayout()
            return
        for label, face in zip(self._labels, self.faces, strict=True):
            label.text = face

    def _on_total(self, *_: Any) -> None:
        self._total.text = self.total and f"= {self.total}"

    def _relayout(self, *_: Any) -> None:
        count = len(self.faces)
        while len(self._labels) < count:
            label = Label(halign="center", valign="middle")
            self._labels.append(label)
            self.add_widget(label)
        while len(self._labels) > count:
            self.remove_widget(self._labels.pop())
        total_w = self.width * 0.38
        cell = (self.width - total_w) / max(count, 1)
        size = max(sp(12), min(self.max_font, cell * 0.62, self.height * 0.8))
        for i, (label, face) in enumerate(zip(self._labels, self.faces, strict=True)):
            label.font_size = size
            label.color = self.text_colour
            label.pos = (self.x + i * cell, self.y)
            label.size = (cell, self.height)
            label.text = face
        self._total.font_size = max(sp(12), min(self.max_font * 0.7, self.height * 0.6, total_w / 6))
        self._total.color = self.text_colour
        self._total.pos = (self.x + count * cell, self.y)
        self._total.size = (total_w, self.height)
        self._total.text_size = (total_w, None)
        self._on_total()


class HealthBar(Widget):
    """The dragon's health: the track holds 30, above that the token's +30 side shows as a second bar."""

    health = NumericProperty(0)
    maximum = NumericProperty(1)
    track = NumericProperty(30)
    colour = ListProperty([0.9, 0.25, 0.22, 1])

    def __init__(self, **kwargs: Any) -> None:
        self._redraw = Clock.create_trigger(self.redraw, -1)
        super().__init__(**kwargs)
        for name in ("health", "maximum", "track", "pos", "size", "colour"):
            self.fbind(name, self._redraw)

    def redraw(self, *_: Any) -> None:
        self.canvas.before.clear()
        over = self.maximum > self.track
        rows = 2 if over else 1
        gap = dp(3)
        row_h = (self.height - gap * (rows - 1)) / rows
        scale = max(1.0, min(self.maximum, self.track))
        with self.canvas.before:
            for row in range(rows):
                y = self.y + (rows - 1 - row) * (row_h + gap)
                Color(0.2, 0.2, 0.24, 1)
                Rectangle(pos=(self.x, y), size=(self.width, row_h))
                if row == 0:
                    filled = min(self.health, self.track)
                else:
                    filled = max(0.0, self.health - self.track)
                Color(*self.colour)
                Rectangle(pos=(self.x, y), size=(self.width * filled / scale, row_h))


class VPChart(Widget):
    """VP over time: one line per player through (step, total) points, drawn with Kivy graphics."""

    series = ListProperty([])  # [(colour rgba, [totals per step])]
    maximum = NumericProperty(30)
    grid_step = NumericProperty(10)

    def __init__(self, **kwargs: Any) -> None:
        self._redraw = Clock.create_trigger(self.redraw, -1)
        self._axis_labels: list[Label] = []
        super().__init__(**kwargs)
        for name in ("series", "maximum", "pos", "size"):
            self.fbind(name, self._redraw)

    def redraw(self, *_: Any) -> None:
        for label in self._axis_labels:
            self.remove_widget(label)
        self._axis_labels = []
        self.canvas.before.clear()
        top = max([self.maximum, *(max(v) for _, v in self.series if v)])
        top = max(10, int((top + self.grid_step - 1) // self.grid_step * self.grid_step))
        steps = max([len(v) for _, v in self.series] or [1])
        left = self.x + dp(40)
        width = max(1.0, self.right - left - dp(6))
        height = max(1.0, self.height - dp(8))
        bottom = self.y + dp(4)
        with self.canvas.before:
            Color(0.3, 0.32, 0.36, 1)
            for value in range(0, top + 1, int(self.grid_step)):
                y = bottom + height * value / top
                Line(points=[left, y, left + width, y], width=1)
            for colour, values in self.series:
                if not values:
                    continue
                Color(*colour)
                points: list[float] = []
                for i, value in enumerate(values):
                    x = left + (width * i / max(1, steps - 1))
                    points += [x, bottom + height * value / top]
                if len(points) == 2:
                    points += points
                Line(points=points, width=dp(2.5))
        for value in range(0, top + 1, int(self.grid_step)):
            label = Label(text=str(value), font_size=sp(12), size_hint=(None, None), size=(dp(34), dp(16)),
                          halign="right", valign="middle", color=(0.75, 0.77, 0.8, 1))
            label.text_size = label.size
            label.pos = (self.x, bottom + height * value / top - dp(8))
            self._axis_labels.append(label)
            self.add_widget(label)


class Sheet(ModalView):
    """A modal panel without the open/close fade: a tap right after closing reaches the screen."""

    _anim_duration = 0


class CubeCell(TouchButton):
    """One square of a gear grid: tapping it cycles empty -> wood -> metal -> tooth -> empty."""

    cell = StringProperty(".")
    row = NumericProperty(0)
    col = NumericProperty(0)
    grid_name = StringProperty("")
    uncertain = BooleanProperty(False)  # a photo could not read this cell: shown as "?" until tapped
    cube_colours = ObjectProperty(CUBE_COLOURS)


def cycle_cell(cell: str, order: Sequence[str] = (".", "W", "M", "T")) -> str:
    """The next cube in the tap cycle."""
    return order[(order.index(cell) + 1) % len(order)] if cell in order else order[0]
