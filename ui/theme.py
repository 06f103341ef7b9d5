"""The look: colours readable across a table, type sizes and touch-target sizes per window size.

One :class:`Theme` (an ``EventDispatcher``) lives on the app; ``.kv`` rules read ``app.theme.*`` so a
resize (1280x800 tablet, 800x480 Raspberry Pi screen) restyles everything. Touch targets never go
below 48 dp (:data:`MIN_TOUCH_DP`); text is light on a dark surface, 4.5:1 contrast or better.
"""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty

from ui.i18n import N_

MIN_TOUCH_DP = 48

# Player colours offered at setup (the six player boards). Names are the keys the session stores;
# the screens show them translated.
COLOUR_NAMES = (N_("red"), N_("blue"), N_("green"), N_("yellow"), N_("purple"), N_("white"))
PLAYER_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "red": (0.90, 0.25, 0.22, 1),
    "blue": (0.25, 0.52, 0.95, 1),
    "green": (0.30, 0.75, 0.38, 1),
    "yellow": (0.95, 0.80, 0.20, 1),
    "purple": (0.66, 0.42, 0.90, 1),
    "white": (0.92, 0.92, 0.92, 1),
}

EVENT_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "lava": (0.95, 0.42, 0.10, 1),
    "rope": (0.85, 0.68, 0.30, 1),
    "nothing": (0.45, 0.47, 0.52, 1),
    "end": (0.85, 0.18, 0.22, 1),
}

DRAGON_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "blue": (0.30, 0.55, 0.95, 1),
    "green": (0.30, 0.75, 0.38, 1),
    "red": (0.90, 0.25, 0.22, 1),
    "legendary": (0.92, 0.92, 0.92, 1),
}

CUBE_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "W": (0.62, 0.42, 0.22, 1),
    "M": (0.62, 0.65, 0.70, 1),
    "T": (0.97, 0.95, 0.88, 1),
    ".": (0.20, 0.21, 0.25, 1),
}


def player_colour(name: str) -> tuple[float, float, float, float]:
    return PLAYER_COLOURS.get(name, (0.8, 0.8, 0.8, 1))


class Theme(EventDispatcher):  # type: ignore[misc]
    compact = BooleanProperty(False)

    background = ColorProperty((0.09, 0.10, 0.12, 1))
    surface = ColorProperty((0.16, 0.17, 0.21, 1))
    surface_high = ColorProperty((0.22, 0.24, 0.29, 1))
    text = ColorProperty((0.96, 0.96, 0.96, 1))
    text_dim = ColorProperty((0.74, 0.76, 0.80, 1))
    accent = ColorProperty((0.98, 0.52, 0.15, 1))
    good = ColorProperty((0.35, 0.80, 0.45, 1))
    bad = ColorProperty((0.95, 0.35, 0.32, 1))
    assumed = ColorProperty((0.98, 0.80, 0.25, 1))

    font_s = NumericProperty(sp(16))
    font_m = NumericProperty(sp(20))
    font_l = NumericProperty(sp(28))
    font_xl = NumericProperty(sp(44))
    touch = NumericProperty(dp(60))
    spacing = NumericProperty(dp(10))
    padding = NumericProperty(dp(14))
    bar = NumericProperty(dp(52))

    def update_for(self, width: float, height: float) -> None:
        """Pick the size set: compact below 600 px high or 1000 px wide (the 800x480 screen)."""
        self.compact = height < dp(600) or width < dp(1000)
        if self.compact:
            self.font_s, self.font_m, self.font_l, self.font_xl = sp(13), sp(16), sp(21), sp(30)
            self.touch, self.spacing, self.padding, self.bar = dp(MIN_TOUCH_DP), dp(6), dp(8), dp(48)
        else:
            self.font_s, self.font_m, self.font_l, self.font_xl = sp(16), sp(20), sp(28), sp(44)
            self.touch, self.spacing, self.padding, self.bar = dp(60), dp(10), dp(14), dp(52)
